//! Running the client: the interactive loop (terminal events, server messages, a clock tick,
//! reconnecting and resuming after a drop) and the dispatch of each subcommand.

use crate::account::{self, Login};
use crate::app::{App, Start};
use crate::classic_db;
use crate::cli::{Cli, Command, command_line, display_name};
use crate::commands::{self, CommandError};
use crate::connection::{CLOSE_RESUMED_ELSEWHERE, Connection, ConnectionError, connect_retry};
use crate::hint::{HintError, Hints};
use crate::ratings_table;
use crate::render_game::Link;
use crate::saved_seats::SeatStore;
use crate::signals::{Ending, Signals};
use crate::style::Style;
use crate::terminal::{self, TerminalGuard};
use crate::tournaments;
use crossterm::event::{Event, EventStream};
use futures_util::StreamExt;
use jchomp_protocol::wire::ClientMessage;
use std::future::Future;
use std::io::{IsTerminal, Write};
use std::pin::Pin;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// How many times the client tries to reconnect after a drop (about a minute in all, the
/// server's default grace period).
pub(crate) const RECONNECT_ATTEMPTS: u32 = 24;

/// How often the screen is redrawn for the clock.
const TICK: Duration = Duration::from_millis(200);

type Reconnect = Pin<Box<dyn Future<Output = Result<Connection, ConnectionError>> + Send>>;

/// Reconnects, logs in again with the session `token` (if any) and sends `rejoin`. A session
/// that ended meanwhile leaves a guest, who can still take a seat back by its token.
fn reconnect(url: String, rejoin: ClientMessage, token: Option<String>) -> Reconnect {
    Box::pin(async move {
        let mut conn = connect_retry(&url, RECONNECT_ATTEMPTS).await?;
        if let Some(token) = token {
            let _refused = account::send_token(&mut conn, &token).await?;
        }
        conn.send(&rejoin).await?;
        Ok(conn)
    })
}

async fn recv(
    conn: &mut Option<Connection>,
) -> Result<jchomp_protocol::wire::ServerMessage, ConnectionError> {
    match conn {
        Some(c) => c.recv().await,
        None => std::future::pending().await,
    }
}

type HintTask = tokio::task::JoinHandle<(u64, Result<Hints, HintError>)>;

async fn hints_done(task: &mut Option<HintTask>) -> Option<(u64, Result<Hints, HintError>)> {
    match task {
        Some(t) => t.await.ok(),
        None => std::future::pending().await,
    }
}

async fn wait(r: &mut Option<Reconnect>) -> Result<Connection, ConnectionError> {
    match r {
        Some(f) => f.await,
        None => std::future::pending().await,
    }
}

/// Handles a failed send or receive: reconnects (and resumes the seat) after a drop, stays
/// offline when reconnecting would not help, and only reports anything else.
fn lost(
    conn: &mut Option<Connection>,
    pending: &mut Option<Reconnect>,
    app: &mut App,
    link: &ServerLink,
    e: ConnectionError,
) {
    if e.should_reconnect() {
        *conn = None;
        app.on_link(Link::Reconnecting);
        *pending = Some(reconnect(
            link.url.clone(),
            app.rejoin(),
            link.token.clone(),
        ));
    } else if e.is_drop() {
        *conn = None;
        app.on_link(Link::Offline);
        let why = match &e {
            ConnectionError::Closed {
                code: Some(CLOSE_RESUMED_ELSEWHERE),
                ..
            } => "Your seat was resumed from another connection".to_owned(),
            _ => e.to_string(),
        };
        app.say(format!("{why}. Press q to quit."), Style::Bad);
    } else {
        app.say(e.to_string(), Style::Bad);
    }
}

/// Where the interactive client reconnects to, and the session it logs in with.
struct ServerLink {
    url: String,
    token: Option<String>,
}

/// Logs a new connection in with the kept session and tells the user how it went. A session
/// that has ended is an error when `needs_login` (a rated room), else a message.
async fn log_in(
    conn: &mut Connection,
    url: &str,
    app: &mut App,
    needs_login: bool,
) -> Result<(), CommandError> {
    match account::authenticate(conn, url).await? {
        Login::Account(name) => app.say(format!("Logged in as {name}."), Style::Good),
        Login::Ended(words) if needs_login => return Err(CommandError::SessionEnded(words)),
        Login::Ended(words) => app.say(capitalised(&words), Style::Bad),
        Login::Guest => {}
    }
    Ok(())
}

/// `text` with its first letter upper case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Runs the interactive client until the user quits or a signal ends it (returned). The first
/// connection is made before the terminal is taken over, so that an unreachable server is
/// reported plainly. However it ends, the terminal is restored and a seat left open is
/// printed with the command that takes it back.
pub(crate) async fn interactive(
    url: &str,
    mut app: App,
    needs_login: bool,
) -> Result<Option<Ending>, CommandError> {
    let mut conn = if app.needs_server() {
        let mut c = Connection::connect(url).await?;
        log_in(&mut c, url, &mut app, needs_login).await?;
        Some(c)
    } else {
        None
    };
    let link = ServerLink {
        url: url.to_owned(),
        token: account::kept_session(url)?.map(|s| s.token),
    };
    let mut signals = Signals::install()?;
    let mut guard = TerminalGuard::enter()?;
    let colour = terminal::colour_enabled();
    let mut events = EventStream::new();
    let mut tick = tokio::time::interval(TICK);
    let mut pending: Option<Reconnect> = None;
    let mut hints: Option<HintTask> = None;
    let store = SeatStore::user();
    let outcome = loop {
        for update in app.take_seat_updates() {
            if let Some(store) = &store
                && let Err(e) = store.apply(url, &update)
            {
                app.say(
                    format!("The seat could not be kept for later: {e}"),
                    Style::Bad,
                );
            }
        }
        for msg in app.take_outbox() {
            let Some(c) = conn.as_mut() else {
                app.say(
                    "Not connected to the server; try again in a moment.",
                    Style::Bad,
                );
                break;
            };
            if let Err(e) = c.send(&msg).await {
                lost(&mut conn, &mut pending, &mut app, &link, e);
                break;
            }
        }
        terminal::set_farewell(app.farewell());
        if app.quit() {
            break Ok(None);
        }
        if let Some(job) = app.take_hint_job() {
            // A newer position supersedes the analysis under way; its answer would be ignored.
            if let Some(old) = hints.take() {
                old.abort();
            }
            hints = Some(tokio::task::spawn_blocking(move || (job.key, job.run())));
        }
        if let Err(e) = guard.draw(colour, |w, h| {
            app.render(usize::from(w), usize::from(h), Instant::now())
        }) {
            break Err(e.into());
        }
        tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(Event::Key(key))) => app.on_key(key),
                Some(Ok(_)) => {}
                Some(Err(e)) => break Err(e.into()),
                None => break Ok(None),
            },
            msg = recv(&mut conn) => match msg {
                Ok(msg) => app.on_message(msg, Instant::now()),
                Err(e) => lost(&mut conn, &mut pending, &mut app, &link, e),
            },
            done = wait(&mut pending) => {
                pending = None;
                match done {
                    Ok(c) => {
                        conn = Some(c);
                        app.on_link(Link::Online);
                        app.say("Reconnected.", Style::Good);
                    }
                    Err(e) => {
                        app.on_link(Link::Offline);
                        app.say(format!("{e}. Press q to quit."), Style::Bad);
                    }
                }
            }
            done = hints_done(&mut hints) => {
                hints = None;
                if let Some((key, result)) = done {
                    app.on_hints(key, result);
                }
            }
            _ = tick.tick() => app.on_tick(Instant::now()),
            ending = signals.next() => break Ok(Some(ending)),
        }
    };
    drop(guard);
    terminal::set_farewell(None);
    if let Some(words) = app.farewell() {
        // The terminal may be gone (a hang-up): nothing to do if this cannot be written.
        let _ = writeln!(std::io::stdout(), "{words}");
    }
    if let Some(c) = conn {
        c.close().await;
    }
    match app.failure() {
        Some(why) => Err(CommandError::Refused(why.to_owned())),
        None => outcome,
    }
}

async fn dispatch(cli: Cli) -> Result<Option<Ending>, CommandError> {
    let url = cli.server.as_str();
    let db_path = cli
        .classic_db
        .clone()
        .unwrap_or_else(classic_db::default_path);
    let library = classic_db::library(&db_path);
    let mut stdout = std::io::stdout().lock();
    let start = match cli.command {
        None => Start::Lobby,
        Some(Command::Create(args)) => {
            args.validate()?;
            if args.rated && account::kept_session(url)?.is_none() {
                return Err(CommandError::NeedsLogin(command_line(url, "login")));
            }
            Start::Create(args)
        }
        Some(Command::Register { name }) => {
            let name = name.map_or_else(|| display_name(cli.name.as_deref()), Ok)?;
            account::log_in(url, &name, true, &mut stdout).await?;
            return Ok(None);
        }
        Some(Command::Login { name }) => {
            let name = name.map_or_else(|| display_name(cli.name.as_deref()), Ok)?;
            account::log_in(url, &name, false, &mut stdout).await?;
            return Ok(None);
        }
        Some(Command::Logout { everywhere }) => {
            account::log_out(url, everywhere, &mut stdout).await?;
            return Ok(None);
        }
        Some(Command::Leaderboard {
            category,
            bots,
            days,
            json,
        }) => {
            let width = terminal::output_width();
            ratings_table::leaderboard(url, &category, bots, days, json, &mut stdout, width)
                .await?;
            return Ok(None);
        }
        Some(Command::Player { name, json }) => {
            let width = terminal::output_width();
            ratings_table::player(url, &name, json, &mut stdout, width).await?;
            return Ok(None);
        }
        Some(Command::Play { preset: None, .. }) => {
            let (presets, patience) = commands::fetch_presets(url).await?;
            let play = command_line(url, "play PRESET");
            let width = terminal::output_width();
            commands::write_presets(&mut stdout, &presets, patience, &play, width)?;
            return Ok(None);
        }
        Some(Command::Play {
            preset: Some(preset),
            bots,
        }) => Start::Play { preset, bots },
        Some(Command::Join { room }) => Start::Join(room),
        Some(Command::Watch { room }) => Start::Watch(room),
        Some(Command::Resume { token }) => Start::Resume(token),
        Some(Command::Rooms { json }) => {
            let rooms = commands::fetch_rooms(url).await?;
            commands::write_rooms(&mut stdout, &rooms, json, terminal::output_width())?;
            return Ok(None);
        }
        Some(Command::Games { json, limit }) => {
            let games = commands::fetch_games(url, limit).await?;
            commands::write_games(&mut stdout, &games, json, terminal::output_width())?;
            return Ok(None);
        }
        Some(Command::Tournaments { json }) => {
            let list = tournaments::fetch_tournaments(url).await?;
            let follow = command_line(url, "tournament ID");
            let width = terminal::output_width();
            tournaments::write_tournaments(&mut stdout, &list, json, &follow, width)?;
            return Ok(None);
        }
        Some(Command::Tournament { id }) => {
            let screen = std::io::stdout().is_terminal();
            let width = terminal::output_width();
            tournaments::follow(url, &id, &mut stdout, screen, width).await?;
            return Ok(None);
        }
        Some(Command::Replay { game, json }) => {
            let record = commands::fetch_game(url, &game).await?;
            if json {
                commands::write_record_json(&mut stdout, &record)?;
                return Ok(None);
            }
            if !std::io::stdout().is_terminal() {
                // Printing waits for nothing: the database is used only if its file is there.
                let library = db_path.is_file().then_some(library);
                let text = commands::replay_text(&record, 80, library)?;
                stdout.write_all(text.as_bytes())?;
                return Ok(None);
            }
            record.replay()?;
            Start::Replay(record)
        }
    };
    drop(stdout);
    let name = display_name(cli.name.as_deref())?;
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        let what = match &start {
            Start::Lobby => "jchomp",
            Start::Create(_) => "jchomp create",
            Start::Join(_) => "jchomp join",
            Start::Watch(_) => "jchomp watch",
            Start::Resume(_) => "jchomp resume",
            Start::Replay(_) => "jchomp replay",
            Start::Play { .. } => "jchomp play",
        };
        return Err(CommandError::NoTerminal(what));
    }
    let needs_login = matches!(&start, Start::Create(args) if args.rated);
    let mut app = App::new(url, &name, start).with_classic_library(library);
    match SeatStore::user().map(|s| s.for_server(url)).transpose() {
        Ok(seats) => app = app.with_saved_seats(seats.unwrap_or_default()),
        Err(e) => app.say(
            format!("Seats kept earlier cannot be read: {e}"),
            Style::Bad,
        ),
    }
    interactive(url, app, needs_login).await
}

/// Runs the command line and returns the process exit code: 0 on success, 128 + the signal's
/// number when a signal ended it, else a message `jchomp: …` on standard error and 2 for a
/// command line that cannot be used, 1 for a failure.
pub async fn main(cli: Cli) -> ExitCode {
    match dispatch(cli).await {
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(ending)) => ExitCode::from(ending.exit_code()),
        Err(e) => {
            eprintln!("jchomp: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// Reports a command line clap cannot read in the same style as every other error (`jchomp:
/// …`, exit status 2); `--help` and `--version` print and succeed.
pub fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let text = e.render().to_string();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    eprint!("jchomp: {text}");
    ExitCode::from(2)
}
