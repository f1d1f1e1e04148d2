//! [`App`]: the interactive client's state machine. Keys and server messages go in, messages to
//! send and screens to draw come out; no terminal or socket is touched here, so the whole
//! client logic is tested without either.

use crate::cli::CreateArgs;
use crate::hint::{self, HintJob, Hints};
use crate::render_game::{self, GameView, Link, Notice};
use crate::render_lobby::{self, GamesView, LobbyView};
use crate::room_state::RoomState;
use crate::saved_seats::{SavedSeat, SeatUpdate};
use crate::style::{Line, Style};
use jchomp_engine::classic::ClassicLibrary;
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::{ClientMessage, GameSummary, PresetInfo, RoomStatus, RoomSummary};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod hints;
mod keys;
mod messages;
mod pairing;
mod review;
mod seats;
#[cfg(test)]
mod test_support;

pub(crate) use pairing::AfterWait;
pub use pairing::SeekScreen;
pub use review::Review;
pub(crate) use seats::ResumeOffer;

/// How many recent games the games list asks for.
pub(crate) const GAMES_LIMIT: u32 = 50;

/// How often the lobby refreshes its room list.
pub(crate) const LOBBY_REFRESH: Duration = Duration::from_secs(3);

/// Where the client starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// The room list.
    Lobby,
    /// Create a room with these options.
    Create(CreateArgs),
    /// Join a room.
    Join(String),
    /// Watch a room.
    Watch(String),
    /// Take a seat back with its token.
    Resume(String),
    /// Step through a stored game.
    Replay(Record),
    /// Wait in a quick-pairing pool (`jchomp play PRESET`); Esc ends the program.
    Play {
        /// The preset's name.
        preset: String,
        /// Whether bots may take the seats nobody took after the server's patience.
        bots: bool,
    },
}

/// What is being typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PromptKind {
    /// Coordinates `ROW,COL` to eat at.
    Coords,
    /// A bot spec to add.
    Bot,
    /// The create-room form.
    Create,
    /// A room id to join.
    JoinId,
}

impl PromptKind {
    fn label(self) -> &'static str {
        match self {
            PromptKind::Coords => "eat at ROW,COL: ",
            PromptKind::Bot => "bot spec (Enter: server default): ",
            PromptKind::Create => "create: ",
            PromptKind::JoinId => "room id: ",
        }
    }
}

/// A room the client is in, or about to be.
#[derive(Clone, Debug)]
pub struct RoomScreen {
    /// The room as last seen; `None` until the first snapshot.
    pub state: Option<RoomState>,
    /// The seat held; `None` when watching.
    pub seat: Option<u8>,
    /// The token to resume the seat.
    pub token: Option<String>,
    /// The room id, once known (for watching again after a reconnect).
    pub room: Option<String>,
    /// Whether this client created the room.
    pub(crate) host: bool,
    /// The anchor under the cursor.
    pub(crate) cursor: (i64, i64),
    /// Hints for the current position, when switched on.
    pub(crate) hints: Option<Hints>,
    /// Whether hints are switched on (they are recomputed after every move).
    pub(crate) hints_on: bool,
    /// The key of the analysis being waited for.
    pub(crate) hints_waiting: Option<u64>,
    /// The move clock of the seat to move: when it was last read and how many milliseconds it
    /// then had left (the server's `time_left_ms`, or a whole move time at the start of a turn).
    pub(crate) turn_clock: Option<(Instant, u64)>,
    /// For each dropped seat the server holds for a `resume`, when its hold runs out (from the
    /// snapshot's `grace_left_ms`).
    pub(crate) grace_until: Vec<Option<Instant>>,
    /// Which game of the room this is, as seen here: 1, then one more for each rematch. Names
    /// the record only when the server's snapshot does not (an older server).
    pub game_no: u32,
}

impl RoomScreen {
    fn new(room: Option<String>) -> RoomScreen {
        RoomScreen {
            state: None,
            seat: None,
            token: None,
            room,
            host: false,
            cursor: (0, 0),
            hints: None,
            hints_on: false,
            hints_waiting: None,
            turn_clock: None,
            grace_until: Vec::new(),
            game_no: 1,
        }
    }
}

/// The screen shown.
#[derive(Clone, Debug)]
pub enum Screen {
    /// The room list.
    Lobby,
    /// A room.
    Room(Box<RoomScreen>),
    /// The "Play now" list: the quick-pairing presets, each picked with one key.
    PlayNow {
        /// Whether bots may take the seats nobody took after the server's patience.
        bots: bool,
    },
    /// Waiting in a quick-pairing pool.
    Seeking(Box<SeekScreen>),
    /// The recently finished games.
    Games {
        /// The selected line.
        selected: usize,
    },
    /// A stored game, at a step.
    Replay {
        /// The game.
        record: Box<Record>,
        /// The number of moves shown as played.
        step: usize,
        /// Whether Esc goes back to the games list (else it quits).
        back: bool,
        /// The analysis of its positions and moves.
        review: Box<Review>,
    },
}

/// The interactive client.
#[derive(Debug)]
pub struct App {
    server: String,
    name: String,
    /// The screen shown.
    pub screen: Screen,
    rooms: Vec<RoomSummary>,
    games: Vec<GameSummary>,
    selected: usize,
    prompt: Option<(PromptKind, String)>,
    notice: Option<Notice>,
    link: Link,
    quit: bool,
    outbox: Vec<ClientMessage>,
    pending_bots: Vec<Option<String>>,
    last_refresh: Option<Instant>,
    hint_limit: Option<Duration>,
    hint_job: Option<HintJob>,
    hint_seq: u64,
    library: Option<Arc<ClassicLibrary>>,
    confirm_leave: bool,
    confirm_poison: Option<(i64, i64)>,
    saved: Vec<SavedSeat>,
    seat_updates: Vec<SeatUpdate>,
    offer: Option<ResumeOffer>,
    declined: Vec<String>,
    presets: Vec<PresetInfo>,
    bot_patience_secs: Option<u64>,
    cancelling: Option<AfterWait>,
    late_cancel: bool,
    farewell: Option<String>,
    failure: Option<String>,
}

impl App {
    /// A client for `server`, playing as `name`, starting at `start`. The messages to send
    /// first are in the outbox.
    pub fn new(server: &str, name: &str, start: Start) -> App {
        let mut app = App {
            server: server.to_owned(),
            name: name.to_owned(),
            screen: Screen::Lobby,
            rooms: Vec::new(),
            games: Vec::new(),
            selected: 0,
            prompt: None,
            notice: None,
            link: Link::Online,
            quit: false,
            outbox: Vec::new(),
            pending_bots: Vec::new(),
            last_refresh: None,
            hint_limit: Some(hint::HINT_TIME),
            hint_job: None,
            hint_seq: 0,
            library: None,
            confirm_leave: false,
            confirm_poison: None,
            saved: Vec::new(),
            seat_updates: Vec::new(),
            offer: None,
            declined: Vec::new(),
            presets: Vec::new(),
            bot_patience_secs: None,
            cancelling: None,
            late_cancel: false,
            farewell: None,
            failure: None,
        };
        match start {
            Start::Lobby => app.send(ClientMessage::ListRooms),
            Start::Create(args) => app.create(args),
            Start::Join(room) => app.join_now(room),
            Start::Watch(room) => app.watch(room),
            Start::Resume(token) => {
                let mut screen = RoomScreen::new(None);
                screen.token = Some(token.clone());
                app.screen = Screen::Room(Box::new(screen));
                app.send(ClientMessage::Resume { token });
            }
            Start::Replay(record) => {
                let step = record.moves.len();
                app.open_replay(record, step, false);
            }
            Start::Play { preset, bots } => {
                app.send(ClientMessage::ListPresets);
                app.seek(preset, bots, AfterWait::Quit);
            }
        }
        app
    }

    /// Sets how long a hint analysis may take (`None`: until solved); the default is
    /// [`hint::HINT_TIME`].
    #[cfg(test)]
    pub(crate) fn with_hint_limit(mut self, limit: Option<Duration>) -> App {
        self.hint_limit = limit;
        if let Some(job) = &mut self.hint_job {
            job.limit = limit;
        }
        self
    }

    /// Gives the client the classic database, asked first for the hints of the standard
    /// classic game; without one the engine answers everywhere.
    pub(crate) fn with_classic_library(mut self, library: Arc<ClassicLibrary>) -> App {
        if let Some(job) = &mut self.hint_job {
            job.library = Some(library.clone());
        }
        self.library = Some(library);
        self
    }

    fn send(&mut self, msg: ClientMessage) {
        self.outbox.push(msg);
    }

    /// Shows a message to the player.
    pub(crate) fn say(&mut self, text: impl Into<String>, style: Style) {
        self.notice = Some(Notice::new(text, style));
    }

    /// The `jchomp` command line with `args`, naming the server unless it is the default.
    pub(crate) fn command(&self, args: &str) -> String {
        crate::cli::command_line(&self.server, args)
    }

    fn create(&mut self, args: CreateArgs) {
        match args.validate() {
            Ok(config) => {
                self.pending_bots = args.bots.into_iter().map(Some).collect();
                let mut screen = RoomScreen::new(None);
                screen.host = true;
                self.screen = Screen::Room(Box::new(screen));
                self.send(ClientMessage::CreateRoom {
                    bots: None,
                    name: self.name.clone(),
                    config,
                });
            }
            Err(e) => self.say(e.to_string(), Style::Bad),
        }
    }

    /// Joins `room`, or first asks whether to take back the seat kept there.
    fn join(&mut self, room: String) {
        if !self.offer_for(&room, true) {
            self.join_now(room);
        }
    }

    fn join_now(&mut self, room: String) {
        self.screen = Screen::Room(Box::new(RoomScreen::new(Some(room.clone()))));
        self.send(ClientMessage::JoinRoom {
            seat: None,
            room,
            name: self.name.clone(),
        });
    }

    fn watch(&mut self, room: String) {
        self.screen = Screen::Room(Box::new(RoomScreen::new(Some(room.clone()))));
        self.send(ClientMessage::Spectate { room });
    }

    fn back_to_lobby(&mut self) {
        self.screen = Screen::Lobby;
        self.prompt = None;
        self.send(ClientMessage::ListRooms);
    }

    /// Takes the messages to send.
    pub fn take_outbox(&mut self) -> Vec<ClientMessage> {
        std::mem::take(&mut self.outbox)
    }

    /// Whether the user asked to quit.
    pub(crate) fn quit(&self) -> bool {
        self.quit
    }

    /// The message shown to the player, if any.
    pub fn notice(&self) -> Option<&Notice> {
        self.notice.as_ref()
    }

    /// The room shown, if any.
    pub fn room(&self) -> Option<&RoomScreen> {
        match &self.screen {
            Screen::Room(r) => Some(r),
            _ => None,
        }
    }

    /// The rooms as last listed.
    pub fn rooms(&self) -> &[RoomSummary] {
        &self.rooms
    }

    /// The recently finished games, as last listed.
    pub fn games(&self) -> &[GameSummary] {
        &self.games
    }

    /// Whether the client talks to a server at all (a replay does not).
    pub(crate) fn needs_server(&self) -> bool {
        !matches!(self.screen, Screen::Replay { back: false, .. })
    }

    /// The link state changed.
    pub fn on_link(&mut self, link: Link) {
        self.link = link;
    }

    /// What to send on a new connection after a drop to get back where the client was: the
    /// seat's `resume`, the watched room's `spectate`, or the room list.
    pub fn rejoin(&self) -> ClientMessage {
        match &self.screen {
            Screen::Room(r) => match (&r.token, &r.room) {
                (Some(token), _) => ClientMessage::Resume {
                    token: token.clone(),
                },
                (None, Some(room)) if r.seat.is_none() => {
                    ClientMessage::Spectate { room: room.clone() }
                }
                _ => ClientMessage::ListRooms,
            },
            Screen::Seeking(s) => self.seek_message(s),
            Screen::PlayNow { .. } => ClientMessage::ListPresets,
            _ => ClientMessage::ListRooms,
        }
    }

    /// How to take the seat back, when quitting leaves a game in progress (or a waiting room)
    /// behind.
    pub(crate) fn resume_hint(&self) -> Option<String> {
        let r = self.room()?;
        let token = r.token.as_deref()?;
        let state = r.state.as_ref()?;
        (state.status != RoomStatus::Finished).then(|| {
            format!(
                "You left seat {} of room {} open; take it back with:\n{}\n(or `{}`, which \
                 offers it on this computer)",
                r.seat.unwrap_or_default(),
                state.room,
                self.command(&format!("resume {token}")),
                self.command(&format!("join {}", state.room)),
            )
        })
    }

    /// What to print once the terminal is restored: how to take back a seat left open, or how
    /// a wait for a pairing ended.
    pub(crate) fn farewell(&self) -> Option<String> {
        self.resume_hint().or_else(|| self.farewell.clone())
    }

    /// Why the client stopped when it could not do what the command line asked (a refused
    /// `jchomp play`), in the server's words.
    pub(crate) fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// The seat token held, if any.
    pub fn token(&self) -> Option<&str> {
        self.room().and_then(|r| r.token.as_deref())
    }

    /// Time passed: refreshes the lobby now and then, and the hints once the classic database
    /// they were waiting for is ready.
    pub(crate) fn on_tick(&mut self, now: Instant) {
        self.hints_tick();
        let ask = match self.screen {
            Screen::Lobby => ClientMessage::ListRooms,
            // The waiting counts: the list's, and the pool's while waiting in it.
            Screen::PlayNow { .. } | Screen::Seeking(_) if self.cancelling.is_none() => {
                ClientMessage::ListPresets
            }
            _ => return,
        };
        if self.link == Link::Online
            && self
                .last_refresh
                .is_none_or(|t| now.duration_since(t) >= LOBBY_REFRESH)
        {
            self.last_refresh = Some(now);
            self.send(ask);
        }
    }

    /// The screen to draw, for a terminal of `width` × `height`, at time `now`.
    pub fn render(&self, width: usize, height: usize, now: Instant) -> Vec<Line> {
        let question = self.offer.as_ref().map(|offer| offer.question(width));
        let input = match &question {
            Some(q) => Some((q.as_str(), "")),
            None => self.prompt.as_ref().map(|(k, t)| (k.label(), t.as_str())),
        };
        match &self.screen {
            Screen::Lobby => render_lobby::render(
                &LobbyView {
                    server: &self.server,
                    name: &self.name,
                    rooms: &self.rooms,
                    selected: self.selected,
                    notice: self.notice.as_ref(),
                    input,
                },
                width,
                height,
            ),
            Screen::Room(r) => match &r.state {
                None => {
                    let mut out = vec![
                        Line::styled("JChomp", Style::Title),
                        Line::plain("Joining the room…"),
                    ];
                    if let Some(n) = &self.notice {
                        out.extend(n.lines(width));
                    }
                    out.push(render_game::input_or_help(
                        input,
                        Line::styled("Esc back to the lobby  q quit", Style::Dim),
                    ));
                    out
                }
                Some(state) => {
                    let clock_ms = match r.turn_clock {
                        Some((read, left)) if state.status == RoomStatus::Playing => {
                            let spent = now.saturating_duration_since(read).as_millis();
                            Some(left.saturating_sub(u64::try_from(spent).unwrap_or(u64::MAX)))
                        }
                        _ => None,
                    };
                    // Whole seconds left, rounded up: a hold shows 1s until it runs out.
                    let offline = r
                        .grace_until
                        .iter()
                        .map(|t| {
                            t.map(|t| {
                                let ms = t.saturating_duration_since(now).as_millis();
                                u64::try_from(ms.div_ceil(1000)).unwrap_or(u64::MAX)
                            })
                        })
                        .collect();
                    let view = GameView {
                        offline,
                        state,
                        me: r.seat,
                        cursor: r.seat.map(|_| r.cursor),
                        hints: r.hints.as_ref(),
                        clock_ms,
                        link: self.link,
                        notice: self.notice.as_ref(),
                        input,
                        replay: None,
                        analysing: r.hints_waiting.is_some(),
                        offer_hints: hint::offered(&state.config, &state.position()),
                        blunder: None,
                        reviewing: false,
                    };
                    render_game::render_within(&view, width, height)
                }
            },
            Screen::PlayNow { bots } => self.render_play_now(*bots, width),
            Screen::Seeking(seek) => self.render_seeking(seek, width, now),
            Screen::Games { selected } => render_lobby::render_games(
                &GamesView {
                    games: &self.games,
                    selected: *selected,
                    notice: self.notice.as_ref(),
                },
                width,
                height,
            ),
            Screen::Replay {
                record,
                step,
                review,
                ..
            } => match RoomState::from_record(record, *step) {
                Ok(state) => {
                    let mut view = GameView::replay(&state, *step, record.moves.len());
                    view.offer_hints = review.offered();
                    view.blunder = review.blunder_at(*step);
                    view.reviewing = !review.done();
                    if review.show {
                        view.hints = review.hints_at(*step);
                        view.analysing = review.pending_at(*step);
                    }
                    render_game::render_within(&view, width, height)
                }
                Err(e) => vec![Line::styled(
                    format!("This game record does not replay: {e}"),
                    Style::Bad,
                )],
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::app::test_support::*;
    use crate::app::*;
    use crate::style::to_text;

    use jchomp_protocol::wire::{ClientMessage, ServerMessage};
    use std::time::Instant;

    #[test]
    fn a_dropped_seat_is_resumed_with_its_token() {
        let mut app = seated(1);
        assert_eq!(
            app.rejoin(),
            ClientMessage::Resume {
                token: "tok".into()
            }
        );
        app.on_link(Link::Reconnecting);
        let text = to_text(&app.render(80, 24, Instant::now()));
        assert!(text.contains("reconnecting"), "{text}");
    }

    #[test]
    fn the_clock_counts_down_from_the_turn_start() {
        let mut app = seated(0);
        let t0 = Instant::now();
        app.on_message(ServerMessage::Room(snapshot(3, 1)), t0);
        let text = to_text(&app.render(80, 24, t0 + Duration::from_millis(2500)));
        assert!(text.contains("you to move · 27.5s"), "{text}");
    }
}
