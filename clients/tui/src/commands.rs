//! The read-only, scriptable commands: `jchomp rooms`, `jchomp games`, `jchomp replay` and
//! the presets `jchomp play` lists, as tables, plain text or JSON (`jchomp tournaments` and
//! `jchomp tournament` are in `tournaments`).

use crate::connection::{Connection, ConnectionError, ServerError};
use crate::explain;
use crate::hint::HINT_TIME;
use crate::list_table::ListTable;
use crate::render_game::{GameView, render};
use crate::render_lobby::{config_short, room_cells};
use crate::render_pairing::preset_cells;
use crate::review;
use crate::room_state::RoomState;
use crate::style::printable;
use jchomp_engine::classic::ClassicLibrary;
use jchomp_protocol::record::{Record, ReplayError};
use jchomp_protocol::wire::{ClientMessage, GameSummary, PresetInfo, RoomSummary, ServerMessage};
use std::io::{self, Write};
use std::sync::Arc;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// Talking to the server failed.
    #[error(transparent)]
    Connection(#[from] ConnectionError),
    /// The server refused the request.
    #[error(transparent)]
    Server(#[from] ServerError),
    /// The stored game does not replay.
    #[error("the stored game does not replay: {0}")]
    Replay(#[from] ReplayError),
    /// The `--name` flag is not a name the server takes.
    #[error(transparent)]
    Name(#[from] crate::cli::NameError),
    /// The options of a new room are not valid.
    #[error(transparent)]
    Create(#[from] crate::cli::CreateError),
    /// Writing the output failed.
    #[error("cannot write the output: {0}")]
    Io(#[from] io::Error),
    /// The server's HTTP API failed or refused the request.
    #[error(transparent)]
    Api(#[from] crate::http_api::ApiError),
    /// No password was read.
    #[error(transparent)]
    Password(#[from] crate::password::PasswordError),
    /// The session file cannot be read or written.
    #[error("the login session file: {0}")]
    Session(#[source] io::Error),
    /// No state directory is known to keep the session in.
    #[error("no place to keep the login session: set HOME or XDG_STATE_HOME")]
    NoStateDir,
    /// The server logged in without giving a session token.
    #[error("the server logged in but gave no session token to keep")]
    NoToken,
    /// A rated room without a login.
    #[error(
        "a rated room is for players with accounts: log in first with `{0}` (or make an \
         account with `jchomp register`)"
    )]
    NeedsLogin(String),
    /// The kept session was refused where one is needed.
    #[error("{0}")]
    SessionEnded(String),
    /// The server refused what the command line asked (a `jchomp play` of a preset it does
    /// not have), in its words.
    #[error("{0}")]
    Refused(String),
    /// An interactive command run without a terminal.
    #[error(
        "`{0}` is interactive and needs a terminal; `jchomp rooms`, `games`, `replay`, \
         `leaderboard`, `player`, `tournaments`, `tournament` and `play` without a preset \
         print without one"
    )]
    NoTerminal(&'static str),
}

impl CommandError {
    /// The exit status: 2 for a command line that cannot be used as given (like clap's own
    /// errors), 1 for anything that went wrong while running.
    pub fn exit_code(&self) -> u8 {
        match self {
            CommandError::Name(_)
            | CommandError::Create(_)
            | CommandError::NoTerminal(_)
            | CommandError::NeedsLogin(_) => 2,
            _ => 1,
        }
    }
}

/// Sends one request on a connection of its own and returns what `pick` takes from the answer.
pub(crate) async fn ask<T>(
    url: &str,
    msg: &ClientMessage,
    pick: impl FnMut(ServerMessage) -> Option<T>,
) -> Result<T, CommandError> {
    let mut conn = Connection::connect(url).await?;
    let answer = conn.request(msg, pick).await??;
    conn.close().await;
    Ok(answer)
}

/// Fetches the room list.
pub async fn fetch_rooms(url: &str) -> Result<Vec<RoomSummary>, CommandError> {
    ask(url, &ClientMessage::ListRooms, |m| match m {
        ServerMessage::Rooms { rooms } => Some(rooms),
        _ => None,
    })
    .await
}

/// Fetches the quick-pairing presets and the server's patience before bots fill a table.
pub async fn fetch_presets(url: &str) -> Result<(Vec<PresetInfo>, u64), CommandError> {
    ask(url, &ClientMessage::ListPresets, |m| match m {
        ServerMessage::Presets {
            presets,
            bot_patience_secs,
        } => Some((presets, bot_patience_secs)),
        _ => None,
    })
    .await
}

/// Writes the presets as a table at most `width` columns wide, with how to play one (`play`:
/// the command line that does, as the user types it).
pub fn write_presets(
    out: &mut impl Write,
    presets: &[PresetInfo],
    bot_patience_secs: u64,
    play: &str,
    width: usize,
) -> io::Result<()> {
    if presets.is_empty() {
        return writeln!(out, "The server offers no games to be paired for.");
    }
    let rows: Vec<[String; 3]> = presets.iter().map(preset_cells).collect();
    out.write_all(printed(["PRESET", "GAME", "WAITING"], &rows, &[1], width).as_bytes())?;
    writeln!(
        out,
        "Play one with `{play}`; with --bots, bots of about your level take the seats \
         nobody took after {bot_patience_secs} s."
    )
}

/// Fetches the most recent finished games.
pub async fn fetch_games(url: &str, limit: u32) -> Result<Vec<GameSummary>, CommandError> {
    let msg = ClientMessage::ListGames { limit: Some(limit) };
    ask(url, &msg, |m| match m {
        ServerMessage::Games { games } => Some(games),
        _ => None,
    })
    .await
}

/// Fetches one stored game.
pub async fn fetch_game(url: &str, game: &str) -> Result<Record, CommandError> {
    let msg = ClientMessage::GetGame {
        game: game.to_owned(),
    };
    ask(url, &msg, |m| match m {
        ServerMessage::Game { record } => Some(record),
        _ => None,
    })
    .await
}

/// Writes the room list as a table at most `width` columns wide, or as a JSON array with
/// `json`.
pub fn write_rooms(
    out: &mut impl Write,
    rooms: &[RoomSummary],
    json: bool,
    width: usize,
) -> io::Result<()> {
    if json {
        return writeln!(out, "{}", serde_json::to_string_pretty(rooms)?);
    }
    if rooms.is_empty() {
        return writeln!(out, "No rooms. Create one with `jchomp create`.");
    }
    let rows: Vec<[String; 5]> = rooms.iter().map(room_cells).collect();
    out.write_all(
        printed(
            ["ROOM", "STATUS", "SEATS", "BOARD", "PLAYERS"],
            &rows,
            &[3, 4],
            width,
        )
        .as_bytes(),
    )
}

/// Writes the finished games as a table at most `width` columns wide, or as a JSON array with
/// `json` (each game's id also as `id`, the name `replay --json` gives it).
pub fn write_games(
    out: &mut impl Write,
    games: &[GameSummary],
    json: bool,
    width: usize,
) -> io::Result<()> {
    if json {
        let mut list = serde_json::to_value(games)?;
        if let Some(items) = list.as_array_mut() {
            for item in items {
                if let Some(obj) = item.as_object_mut()
                    && let Some(id) = obj.get("game").cloned()
                {
                    obj.insert("id".to_owned(), id);
                }
            }
        }
        return writeln!(out, "{}", serde_json::to_string_pretty(&list)?);
    }
    if games.is_empty() {
        return writeln!(out, "No finished games yet.");
    }
    let mut rows = Vec::with_capacity(games.len());
    for g in games {
        let result = explain::stored_result_short(g.result, &g.seats);
        rows.push([
            g.game.clone(),
            g.finished_ms.map(explain::utc_minutes).unwrap_or_default(),
            g.moves.to_string(),
            config_short(&g.config),
            g.seats.join(", "),
            result,
        ]);
    }
    let heading = [
        "GAME",
        "FINISHED (UTC)",
        "MOVES",
        "BOARD",
        "PLAYERS",
        "RESULT",
    ];
    out.write_all(printed(heading, &rows, &[3, 4, 5], width).as_bytes())
}

/// A printed table at most `width` columns wide, laid out as the lobby lays out its lists
/// (`ListTable`): ids, dates and counts whole, the `cuttable` columns cut with `…`.
pub(crate) fn printed<const N: usize>(
    heading: [&str; N],
    rows: &[[String; N]],
    cuttable: &[usize],
    width: usize,
) -> String {
    ListTable {
        title: String::new(),
        heading,
        rows,
        styles: &[],
        cuttable,
        selected: 0,
    }
    .plain(width)
}

/// Writes a record as JSON.
pub fn write_record_json(out: &mut impl Write, record: &Record) -> io::Result<()> {
    write_json(out, record)
}

/// Writes a value as pretty JSON on a line of its own.
pub(crate) fn write_json(out: &mut impl Write, value: &impl serde::Serialize) -> io::Result<()> {
    writeln!(out, "{}", serde_json::to_string_pretty(value)?)
}

/// The whole game as text: the board before the first move and after every move, each with a
/// line saying who moved where (and `?! blunder: …` if the move threw away a win or a tie, in a
/// two-player game; the classic database is used if given), and the result.
pub fn replay_text(
    record: &Record,
    width: usize,
    library: Option<Arc<ClassicLibrary>>,
) -> Result<String, ReplayError> {
    let n = record.moves.len();
    let blunders = review::blunders(record, library, Some(HINT_TIME))?;
    let mut out = String::new();
    for step in 0..=n {
        let state = RoomState::from_record(record, step)?;
        if step == 0 {
            out.push_str("Start\n");
        } else {
            let m = record.moves[step - 1];
            let name = record
                .seats
                .get(m.seat as usize)
                .cloned()
                .unwrap_or_else(|| format!("seat {}", m.seat));
            let name = printable(&name);
            out.push_str(&format!("Move {step}: {name} eats at {},{}", m.row, m.col));
            if let Some(Some(b)) = blunders.get(step - 1) {
                out.push_str("  ");
                out.push_str(b.words());
            }
            out.push('\n');
        }
        let view = GameView::replay(&state, step, n);
        let lines = render(&view, width);
        // Skip the title and the key help; keep the board, panel and legend.
        let body = &lines[1..lines.len().saturating_sub(1)];
        for line in body {
            out.push_str(&printable(line.text().trim_end()));
            out.push('\n');
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::text_width;
    use jchomp_protocol::json::ResultJson;
    use jchomp_testkit::fixtures::*;

    fn finished() -> Record {
        record("4x4 poison 0,0")
            .id("g1")
            .finished(1_700_000_000_000)
            .play(&[(3, 3), (0, 0)])
    }

    #[test]
    fn replay_text_shows_every_step_and_the_result() {
        let text = replay_text(&finished(), 80, None).unwrap();
        assert!(text.starts_with("Start\n"), "{text}");
        assert!(text.contains("Move 1: ann eats at 3,3"), "{text}");
        assert!(text.contains("Move 2: bob eats at 0,0"), "{text}");
        assert!(
            text.contains("bob ate poison and lost; ann wins."),
            "{text}"
        );
        assert!(text.contains(" 0  X  #  #  #"), "{text}");
    }

    #[test]
    fn replay_text_marks_the_move_that_threw_away_a_win() {
        let text = replay_text(&crate::fixtures::blundered(), 80, None).unwrap();
        assert!(
            text.contains("Move 1: ann eats at 0,1  ?! blunder: threw away a win\n"),
            "{text}"
        );
        assert!(text.contains("Move 2: bob eats at 1,0\n"), "{text}");
        let text = replay_text(&crate::fixtures::perfect(), 80, None).unwrap();
        assert!(!text.contains("?!"), "{text}");
    }

    #[test]
    fn tables_and_json() {
        let games = vec![finished().summary()];
        let mut out = Vec::new();
        write_games(&mut out, &games, false, usize::MAX).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("g1    2023-11-14 22:13  2      4×4 eat 1×1"),
            "{text}"
        );
        assert!(
            text.starts_with("GAME  FINISHED (UTC)    MOVES  BOARD"),
            "{text}"
        );
        assert!(text.contains("bob lost (poison)"), "{text}");
        let mut out = Vec::new();
        write_games(&mut out, &games, true, usize::MAX).unwrap();
        let back: Vec<GameSummary> = serde_json::from_slice(&out).unwrap();
        assert_eq!(back, games);

        let rooms = vec![room_summary("r1", "4x4 poison 0,0")];
        let mut out = Vec::new();
        write_rooms(&mut out, &rooms, true, usize::MAX).unwrap();
        let back: Vec<RoomSummary> = serde_json::from_slice(&out).unwrap();
        assert_eq!(back, rooms);
        let mut out = Vec::new();
        write_rooms(&mut out, &[], false, usize::MAX).unwrap();
        assert!(String::from_utf8(out).unwrap().contains("No rooms"));
    }

    #[test]
    fn item9_tables_fit_80_columns_and_cut_with_an_ellipsis() {
        let long = "alexandra-the-magnificent".to_owned();
        let g = game_summary("k3v9x2mq7a", "15x15 eat 2x3 poison 0,0 poison 14,14")
            .timed(30_000)
            .seats([long.as_str(), "bob", "cyrus"])
            .result(ResultJson::Timeout { loser: 0 })
            .moves(117)
            .finished(1_700_000_000_000);
        let mut out = Vec::new();
        write_games(&mut out, &[g.clone(), g], false, 80).unwrap();
        let text = String::from_utf8(out).unwrap();
        for line in text.lines() {
            assert!(
                text_width(line) <= 80,
                "{} columns: {line}",
                text_width(line)
            );
        }
        assert!(text.contains('…'), "{text}");
        // What is cut is the board, the players and the result's names, never an id or a date.
        assert!(text.contains("k3v9x2mq7a  2023-11-14 22:13  117"), "{text}");
        // Unlimited (a pipe), nothing is cut.
        let mut out = Vec::new();
        write_games(&mut out, &[], false, 80).unwrap();
        let mut wide = Vec::new();
        let g2 = game_summary("k3", "4x4 poison 0,0").seats([long.as_str(), "bob"]);
        write_games(&mut wide, &[g2], false, usize::MAX).unwrap();
        assert!(String::from_utf8(wide).unwrap().contains(&long));
    }

    #[test]
    fn narrow_printed_tables_cut_cells_but_keep_the_headings_whole() {
        let g = game_summary("ez6w3egtoh", "5x5 poison 0,0")
            .seats(["dave-with-a-rather-long-name", "random"])
            .result(ResultJson::Timeout { loser: 0 })
            .moves(1)
            .finished(1_700_000_000_000);
        let mut out = Vec::new();
        write_games(&mut out, &[g], false, 60).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut lines = text.lines();
        let heading = lines.next().unwrap();
        assert!(heading.ends_with("MOVES  BOARD  PLAYERS  RESULT"), "{text}");
        let row = lines.next().unwrap();
        assert!(row.starts_with("ez6w3egtoh  2023-11-14 22:13  1"), "{text}");
        assert!(row.contains("dave-w…"), "{text}");
        assert!(text.lines().all(|l| text_width(l) <= 60), "{text}");
    }

    #[test]
    fn item12_games_json_names_the_id_as_replay_does() {
        let g = game_summary("g9", "4x4 poison 0,0");
        let mut out = Vec::new();
        write_games(&mut out, &[g], true, 80).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v[0]["id"], "g9");
        assert_eq!(v[0]["game"], "g9", "the old name stays for scripts");
    }
}
