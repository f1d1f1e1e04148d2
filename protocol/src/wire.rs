//! The JSON wire messages between clients and the server, as documented in `docs/PROTOCOL.md`.
//! Every message is a JSON object with a `"type"`.

use crate::json::{ConfigJson, MoveJson, ResultJson};
use crate::record::Record;
use crate::rules::Seat;
pub use crate::tournament::{
    DrawnStarts, Entry, Points, Standing, Start, TournamentFormat, TournamentGame, TournamentSpec,
    TournamentStarts, TournamentStatus, TournamentSummary, TournamentView,
};
use serde::{Deserialize, Serialize};

/// The longest display name a server accepts, in characters (after trimming).
pub const MAX_NAME: usize = 32;

/// Why a display name is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadName {
    /// Empty or too long, once trimmed; holds its length in characters.
    #[error("name must be 1–{MAX_NAME} characters, got {0}")]
    Length(usize),
    /// It holds a control character.
    #[error("name must not contain control characters")]
    Control,
}

/// The one rule for display names, on the server and in every client: trimmed, 1–[`MAX_NAME`]
/// characters, no control characters. Returns the trimmed name.
pub fn check_name(name: &str) -> Result<&str, BadName> {
    let name = name.trim();
    let len = name.chars().count();
    if !(1..=MAX_NAME).contains(&len) {
        return Err(BadName::Length(len));
    }
    if name.chars().any(char::is_control) {
        return Err(BadName::Control);
    }
    Ok(name)
}

/// A message from a client to the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Asks for the list of rooms.
    ListRooms,
    /// Creates a room; the creator takes seat 0 and becomes its host. With `bots`, every seat
    /// is a server bot instead and the game starts at once, the creator watching it.
    CreateRoom {
        /// The creator's display name.
        name: String,
        /// The game configuration (with an optional `move_time_ms`).
        config: ConfigJson,
        /// One bot spec per seat, in seat order, for a game between server bots.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bots: Option<Vec<String>>,
    },
    /// Takes a free seat of a room: `seat`, or the lowest free one.
    JoinRoom {
        /// The room id.
        room: String,
        /// The joiner's display name.
        name: String,
        /// The seat wanted (absent: the lowest free seat).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<u8>,
    },
    /// Host only: a bot run by the server takes a free seat: `seat`, or the lowest free one.
    AddBot {
        /// The bot spec (`random`, `greedy`, `level:3`, `level:3,seed=7`, …); absent means the
        /// server's default.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bot: Option<String>,
        /// The seat wanted (absent: the lowest free seat).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<u8>,
    },
    /// Watches a room without a seat.
    Spectate {
        /// The room id.
        room: String,
    },
    /// Selects the rectangle anchored at (row, col).
    Move {
        /// Anchor row.
        row: i64,
        /// Anchor column.
        col: i64,
    },
    /// Takes over the seat that the token belongs to.
    Resume {
        /// The seat token from `joined`.
        token: String,
    },
    /// Asks for a full snapshot of the sender's room.
    Sync,
    /// Leaves the room (seat or spectator).
    Leave,
    /// A seat of a finished game asks to play again in the same room; the new game starts
    /// once every seat held by a person has asked.
    Rematch,
    /// Asks for the most recent finished games.
    ListGames {
        /// How many games at most (the server caps it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
    },
    /// Asks for one stored game record.
    GetGame {
        /// The game id (from `games`).
        game: String,
    },
    /// Asks for the value of every valid selection of a position: a room's (which must allow
    /// it), a stored game's, or one given outright (`config` and the `moves` that reach it from
    /// the start, an analysis board's). Exactly one of `room`, `game` and `config` is given.
    /// Answered by an [`Analysis`].
    Analyze {
        /// The room whose position is analysed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        room: Option<String>,
        /// The stored game whose position is analysed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        game: Option<String>,
        /// The rules of a position given outright.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        config: Option<ConfigJson>,
        /// With `config`: the moves, `[row, col]` each, that reach the position from the start.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moves: Option<Vec<[i64; 2]>>,
        /// The position after this many moves; absent: the room's current position, the
        /// stored game's last, or the one `moves` reach.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        index: Option<i64>,
    },
    /// Asks for the quick-pairing pools (answered by `presets`).
    ListPresets,
    /// Waits in the pool of a preset to be paired with players of about the same rating
    /// (answered by `seeking`; later `paired`, then `joined` and the room's snapshot). A
    /// connection waits in one pool at a time: a new `seek` moves it.
    Seek {
        /// The preset's name (from `presets`).
        preset: String,
        /// A guest's display name (absent: `guest`); an account plays under its own name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// Whether server bots of about the player's rating may take the seats nobody took
        /// once the server's patience has run out.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bots: bool,
    },
    /// Stops waiting in the pool (answered by `seek_ended`).
    CancelSeek,
    /// Makes a person's account and logs this connection in to it (answered by `account`).
    Register {
        /// The account name (3–20 of a–z, A–Z, 0–9, `_`, `-`, beginning with a letter).
        name: String,
        /// The password (at least 8 characters).
        password: String,
    },
    /// Logs this connection in to a person's account (answered by `account`).
    Login {
        /// The account name (case does not matter).
        name: String,
        /// The password.
        password: String,
    },
    /// Acts as the account holding `token`: a session from `register` or `login`, or a bot
    /// account's API token (answered by `account`, without the token).
    Authenticate {
        /// The session or API token.
        token: String,
    },
    /// Ends this connection's session, or with `everywhere` every session of its account.
    Logout {
        /// End every session of the account, not only this one.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        everywhere: bool,
    },
    /// Changes the logged-in person's password; every session ends and this connection gets a
    /// new one (answered by `account`).
    ChangePassword {
        /// The password now.
        old: String,
        /// The new password.
        new: String,
    },
    /// Deletes the logged-in person's account and its bot accounts; their games keep the
    /// names, marked deleted.
    DeleteAccount {
        /// The password, again.
        password: String,
    },
    /// Makes a bot account owned by the logged-in person (answered by `bot_token`).
    CreateBot {
        /// The bot account's name (the rule of account names).
        name: String,
    },
    /// Revokes a bot account's API tokens and issues a new one (answered by `bot_token`).
    RenewBotToken {
        /// The bot account's name.
        bot: String,
    },
    /// Creates a tournament the server runs (answered by `tournament`, to the creator, who
    /// watches it from then on).
    CreateTournament {
        /// What it is to be.
        tournament: TournamentSpec,
    },
    /// Asks for the tournaments the server holds (answered by `tournaments`).
    ListTournaments,
    /// Watches a tournament: its `tournament` view now, and again whenever it changes.
    WatchTournament {
        /// The tournament's id.
        tournament: String,
        /// The first view lists every game played (the pushed ones list the recent games).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        all_games: bool,
    },
    /// Enters a tournament under the connection's account (answered by `tournament`; the
    /// entrant watches it, and is seated in each of its games: `tournament_game`, then
    /// `joined`).
    JoinTournament {
        /// The tournament's id.
        tournament: String,
    },
    /// Leaves a tournament: before its start the entry is taken back; after it, the entrant
    /// is paired no more (answered by `tournament`).
    WithdrawTournament {
        /// The tournament's id.
        tournament: String,
    },
}

/// A room's lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoomStatus {
    /// Seats are still free.
    Waiting,
    /// Every seat is filled and the game goes on.
    Playing,
    /// The game is over.
    Finished,
}

/// One seat of a room as clients see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    /// Display name.
    pub name: String,
    /// Whether a server-side bot plays this seat, or a bot account sits in it.
    pub bot: bool,
    /// Whether the seat's connection is live (bots always are).
    pub connected: bool,
    /// While a dropped seat of a game in play is held for a `resume`: the milliseconds left,
    /// when this was sent, before the game ends `abandoned`. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_left_ms: Option<u64>,
}

/// A line of the room list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomSummary {
    /// The room id.
    pub room: String,
    /// The configuration.
    pub config: ConfigJson,
    /// One entry per seat; `null` for a free seat.
    pub seats: Vec<Option<SeatInfo>>,
    /// Waiting, playing or finished.
    pub status: RoomStatus,
}

/// The full state of a room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The room id.
    pub room: String,
    /// The configuration.
    pub config: ConfigJson,
    /// One entry per seat; `null` for a free seat.
    pub seats: Vec<Option<SeatInfo>>,
    /// Waiting, playing or finished.
    pub status: RoomStatus,
    /// The seat to move while playing.
    pub to_move: Option<Seat>,
    /// Every eaten cell as `[row, col]`.
    pub eaten: Vec<[u8; 2]>,
    /// The accepted moves so far.
    pub moves: Vec<MoveJson>,
    /// How the game ended, once it has.
    pub result: Option<ResultJson>,
    /// Grows by one with every change to the room.
    pub version: u64,
    /// In a game in play with a move timer, one entry per seat: the milliseconds the seat to
    /// move has left for its move, and a whole `move_time_ms` for each other seat. Absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_left_ms: Option<Vec<u64>>,
    /// Once the game is over: the seats that have asked for a rematch. Absent when none has.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rematch: Vec<Seat>,
    /// The id the room's current game is stored under once it ends (or, once it has ended, is
    /// stored under): the `game` of `get_game`. The room id for its first game, then
    /// `ROOM-2`, `ROOM-3`, … for each rematch. Empty from a server that does not send it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub game: String,
}

/// The id the `n`th game (from 1) of room `room` is stored under: the room id for the first,
/// then `ROOM-2`, `ROOM-3`, … for the rematches that follow.
pub fn game_id(room: &str, n: u32) -> String {
    match n {
        0 | 1 => room.to_owned(),
        n => format!("{room}-{n}"),
    }
}

/// An accepted move, sent to every seat and spectator of the room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moved {
    /// The room id.
    pub room: String,
    /// The room's version after this move.
    pub version: u64,
    /// The seat that moved.
    pub seat: Seat,
    /// Anchor row.
    pub row: i64,
    /// Anchor column.
    pub col: i64,
    /// The seat to move next, or `null` once the game is over.
    pub to_move: Option<Seat>,
    /// Playing or finished.
    pub status: RoomStatus,
    /// How the game ended, once it has.
    pub result: Option<ResultJson>,
}

/// A line of the finished-games list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSummary {
    /// The game id, for `get_game`.
    pub game: String,
    /// The configuration.
    pub config: ConfigJson,
    /// Seat names.
    pub seats: Vec<String>,
    /// The seats a bot took, by index (as the record has them); absent when none did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bots: Vec<u8>,
    /// How it ended.
    pub result: Option<ResultJson>,
    /// Number of moves played.
    pub moves: usize,
    /// When it finished, in milliseconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_ms: Option<u64>,
}

/// Why a move was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectReason {
    /// Part of the rectangle lies outside the board.
    OutOfRange,
    /// Part of the rectangle is already eaten.
    AlreadyEaten,
    /// Edge breaks: the cell is neither in the poison's row nor in its column.
    NotABreak,
    /// Square bites are banned and the selection would eat a k×k square.
    SquareBite,
    /// Another seat is to move.
    NotYourTurn,
    /// The room's game has not started or is over.
    NotPlaying,
    /// The sender holds no seat (not in a room, or a spectator).
    NotSeated,
}

/// Error codes of `error` messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not JSON, unknown type, missing or ill-typed field.
    BadRequest,
    /// The configuration is refused; the message names the field, range and value.
    InvalidConfig,
    /// No room has that id.
    NoSuchRoom,
    /// Every seat of the room is taken.
    RoomFull,
    /// The sender may not do that (not the host, not in that room, already seated, …).
    Forbidden,
    /// The token matches no seat.
    BadToken,
    /// The sender sent too many messages; the connection is closed next.
    RateLimited,
    /// No stored game has that id.
    NoSuchGame,
    /// A server limit (rooms, connections) is reached.
    ServerFull,
    /// The server is shutting down.
    ShuttingDown,
    /// The server failed to do something it should have; the message says what.
    Internal,
    /// The server cannot analyse this position (three or four players); the message says why.
    AnalysisUnavailable,
    /// In a cluster: the room's node cannot be reached now; nothing was done, send it again.
    Unavailable,
    /// `register` or `create_bot`: the name is taken (ignoring case).
    NameTaken,
    /// `login`, `change_password`, `delete_account`: wrong name or password.
    BadCredentials,
    /// Too many login attempts for the account or from the address; the message says when to
    /// try again (the connection stays open).
    TooManyAttempts,
    /// No tournament has that id.
    NoSuchTournament,
    /// `join_tournament`: the account has entered already.
    AlreadyEntered,
    /// `join_tournament`: the tournament has its maximum of entrants.
    TournamentFull,
    /// `join_tournament`, `withdraw_tournament`: the tournament takes no entrants now (it has
    /// begun or is over), or the account has not entered it.
    NotOpen,
    /// `join_tournament`: the tournament admits only people, or only bots.
    EntryRefused,
}

/// One quick-pairing pool, as `presets` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PresetInfo {
    /// The name a `seek` gives.
    pub name: String,
    /// What it is, in words.
    pub title: String,
    /// The game every room of the pool plays (`rated` is set per room: when every person
    /// seated has an account).
    pub config: ConfigJson,
    /// Players waiting in the pool now.
    pub waiting: u32,
}

/// A message from the server to a client.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The room list.
    Rooms {
        /// Every room the server holds.
        rooms: Vec<RoomSummary>,
    },
    /// The sender now holds a seat.
    Joined {
        /// The room id.
        room: String,
        /// The seat taken.
        seat: Seat,
        /// Secret token to `resume` the seat from another connection.
        token: String,
    },
    /// A full snapshot of a room.
    Room(Snapshot),
    /// An accepted move.
    Moved(Moved),
    /// The answer to `analyze`, to the sender only.
    Analysis(Analysis),
    /// The sender's move was refused; nothing changed.
    MoveRejected {
        /// Why.
        reason: RejectReason,
        /// The reason in words.
        message: String,
    },
    /// Recent finished games.
    Games {
        /// Newest first.
        games: Vec<GameSummary>,
    },
    /// One stored game.
    Game {
        /// The record.
        record: Record,
    },
    /// The sender left its room.
    Left {
        /// The room left.
        room: String,
    },
    /// The connection acts as this account now (after `register`, `login`, `authenticate`
    /// or `change_password`).
    Account {
        /// The account's name as registered.
        name: String,
        /// Whether it is a bot account (or a built-in level).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bot: bool,
        /// A new session token, shown once (after `register`, `login` and `change_password`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// When the session ends, milliseconds since the Unix epoch.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expires_ms: Option<u64>,
    },
    /// A bot account's new API token, shown once.
    BotToken {
        /// The bot account's name.
        bot: String,
        /// The API token.
        token: String,
    },
    /// The connection is a guest again (after `logout` or `delete_account`).
    LoggedOut {
        /// How many sessions ended.
        sessions: u32,
    },
    /// The quick-pairing pools.
    Presets {
        /// Every preset, in the server's order.
        presets: Vec<PresetInfo>,
        /// Seconds a player who allows bots waits before bots take the empty seats.
        bot_patience_secs: u64,
    },
    /// The connection waits in a pool.
    Seeking {
        /// The preset's name.
        preset: String,
        /// The rating it is paired by, rounded (a guest's is the category's starting rating).
        rating: i64,
        /// Players waiting in that pool, this one included.
        waiting: u32,
    },
    /// The connection no longer waits (after `cancel_seek`, a room request, or a `seek` that
    /// moved it elsewhere).
    SeekEnded {
        /// The preset it waited for.
        preset: String,
    },
    /// The connection was paired: its seat's `joined` and the room's snapshot follow.
    Paired {
        /// The preset.
        preset: String,
        /// The room made for the game.
        room: String,
    },
    /// The tournaments the server holds, newest first.
    Tournaments {
        /// One line each.
        tournaments: Vec<TournamentSummary>,
    },
    /// A tournament's standings, crosstable and games, to its watchers, whenever it changes.
    Tournament(Box<TournamentView>),
    /// The connection's account was seated in a game of a tournament it entered: its seat's
    /// `joined` and the room's snapshot follow.
    TournamentGame {
        /// The tournament's id.
        tournament: String,
        /// The room made for the game.
        room: String,
        /// The game's round (in an arena, the order it was started in).
        round: u32,
    },
    /// A request failed.
    Error {
        /// Machine-readable code.
        code: ErrorCode,
        /// What went wrong, in words.
        message: String,
    },
}

/// What one selection is worth to the seat making it, as `analysis` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The seat making the selection wins with best play.
    Win,
    /// The seat making the selection loses with best play.
    Loss,
    /// Best play ties.
    Tie,
    /// Not proven within the server's time for one analysis.
    Unknown,
}

/// One valid selection and its value: `{"row":0,"col":1,"value":"win","plies":4}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotation {
    /// The selection's row (the anchor in JChomp, the cell in classic Chomp).
    pub row: u8,
    /// The selection's column.
    pub col: u8,
    /// What it is worth to the seat making it.
    pub value: Verdict,
    /// Plies to the end of the game with best play, this selection included (winners hurry,
    /// losers delay); `null` for a tie or an unknown value.
    pub plies: Option<u32>,
}

/// The answer to `analyze` (`ServerMessage::Analysis`, `"type":"analysis"`): every valid
/// selection of one position with its value, in board order (row by row). Sent only to the
/// connection that asked, so a client that never asks never sees one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analysis {
    /// The room analysed, when a room was asked about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
    /// The stored game analysed, when a game was asked about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// The moves played before the analysed position.
    pub index: u64,
    /// The seat to move in it, or `null` when the game is over there (and `moves` is empty).
    pub to_move: Option<Seat>,
    /// Every valid selection, row by row.
    pub moves: Vec<Annotation>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyze_reads_a_room_or_a_game_and_an_index() {
        let room: ClientMessage =
            serde_json::from_str(r#"{"type":"analyze","room":"k3v9x2mq7a"}"#).unwrap();
        assert_eq!(
            room,
            ClientMessage::Analyze {
                room: Some("k3v9x2mq7a".into()),
                game: None,
                config: None,
                moves: None,
                index: None
            }
        );
        let game = ClientMessage::Analyze {
            room: None,
            game: Some("g".into()),
            config: None,
            moves: None,
            index: Some(-3),
        };
        let text = serde_json::to_string(&game).unwrap();
        assert_eq!(text, r#"{"type":"analyze","game":"g","index":-3}"#);
        assert_eq!(serde_json::from_str::<ClientMessage>(&text).unwrap(), game);
    }

    #[test]
    fn an_analysis_has_the_documented_shape() {
        let analysis = Analysis {
            room: None,
            game: Some("k3v9x2mq7a".into()),
            index: 2,
            to_move: Some(0),
            moves: vec![
                Annotation {
                    row: 0,
                    col: 1,
                    value: Verdict::Win,
                    plies: Some(4),
                },
                Annotation {
                    row: 3,
                    col: 3,
                    value: Verdict::Unknown,
                    plies: None,
                },
            ],
        };
        let message = ServerMessage::Analysis(analysis);
        let text = serde_json::to_string(&message).unwrap();
        assert_eq!(
            text,
            r#"{"type":"analysis","game":"k3v9x2mq7a","index":2,"to_move":0,"moves":[{"row":0,"col":1,"value":"win","plies":4},{"row":3,"col":3,"value":"unknown","plies":null}]}"#
        );
        assert_eq!(
            serde_json::from_str::<ServerMessage>(&text).unwrap(),
            message
        );
        assert_eq!(
            serde_json::to_string(&ErrorCode::AnalysisUnavailable).unwrap(),
            r#""analysis_unavailable""#
        );
    }
}
