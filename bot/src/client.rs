//! The bot client: plays games on a JChomp server through the WebSocket protocol, joining a
//! room or creating one (and seating server bots in it), thinking off the async threads,
//! resuming its seat with its token when the connection drops, and playing further games in the
//! same configuration. The player is a built-in bot or an external engine (through the
//! [bridge](crate::bridge)).

use crate::bridge::{BridgeError, Bridged, EngineSeat};
use jchomp_engine::classic::ClassicLibrary;
use jchomp_engine::player::Player;
use jchomp_engine::scoring::seat_score;
use jchomp_engine::spec::BotSpec;
use jchomp_engine::think::{Outcome, Stop, think};
use jchomp_protocol::connection::{Connection, ConnectionError, Resumed, ServerError};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::wire::{ClientMessage, ErrorCode, RoomStatus, ServerMessage, Snapshot};
use jchomp_rules::{Cell, ConfigError, Game, GameResult, Rejection, Seat};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// How long the bot waits before sending a move again that the server could not pass on to
/// the room's node (`unavailable`).
const UNAVAILABLE_RETRY: Duration = Duration::from_millis(500);

/// Why the bot client stopped. Each message is whole: it includes the message of the error it
/// wraps, which is therefore not given as a source.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Talking to the server failed.
    #[error("{0}")]
    Connection(ConnectionError),
    /// The server answered a request with an error.
    #[error("{}", jchomp_protocol::connection::describe_error(*.code, .message))]
    Refused {
        /// The error code.
        code: ErrorCode,
        /// The server's explanation.
        message: String,
    },
    /// A room snapshot held a configuration the rules refuse.
    #[error("the server sent a bad configuration: {0}")]
    BadConfig(ConfigError),
    /// A room snapshot held a move the rules refuse.
    #[error("the server sent a bad move ({row},{col}): {reason}")]
    BadSnapshotMove {
        /// Its row.
        row: i64,
        /// Its column.
        col: i64,
        /// Why the rules refuse it.
        reason: Rejection,
    },
    /// The server announced a move the rules refuse.
    #[error("the server sent a bad move: {0}")]
    BadMove(Rejection),
    /// No room to join for the next game.
    #[error("no waiting room with the same configuration appeared within {secs} s")]
    NoRoom {
        /// How long the client looked, in seconds.
        secs: u64,
    },
    /// The bot panicked in an earlier turn and is gone.
    #[error("the bot was lost")]
    BotLost,
    /// The engine failed, or does not play the room's game.
    #[error("{0}")]
    Engine(BridgeError),
    /// The bot panicked.
    #[error("the bot failed: it panicked")]
    BotPanicked,
    /// The bot answered no selection.
    #[error("the bot found no selection")]
    NoSelection,
    /// Reconnecting after a dropped connection failed.
    #[error("could not reconnect: {0}")]
    Reconnect(ConnectionError),
    /// The server refused to give the seat back.
    #[error("could not resume the seat: {0}")]
    ResumeRefused(ServerError),
}

impl From<ConnectionError> for ClientError {
    fn from(e: ConnectionError) -> ClientError {
        ClientError::Connection(e)
    }
}

/// Where the first game is played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Join this room.
    Join(String),
    /// Create a room with this configuration and wait for opponents.
    Create(ConfigJson),
    /// Wait in the server's quick-pairing pool of this preset, and play the game it pairs.
    Seek {
        /// The preset's name.
        preset: String,
        /// Whether server bots may take the empty seats after the server's patience.
        bots: bool,
    },
}

/// Who plays: a built-in bot, or an external engine through the bridge.
#[derive(Clone, Debug)]
pub enum Contestant {
    /// A built-in bot.
    Bot(BotSpec),
    /// An external engine, started once for every game.
    Engine(EngineSeat),
}

/// What to play, where and how.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// Server URL, `ws://HOST:PORT/ws`.
    pub url: String,
    /// The first room.
    pub target: Target,
    /// The bot's display name (a guest's; with `token`, the bot account's name is used).
    pub name: String,
    /// A bot account's API token: each game's connection authenticates with it first, so the
    /// bot plays under its account (and may sit in rated rooms); none: a guest.
    pub token: Option<String>,
    /// Who plays.
    pub contestant: Contestant,
    /// Server bots (their specs) a creator seats in each room it creates (`add_bot`).
    pub add_bots: Vec<String>,
    /// Games to play. After the first, a creator creates a new room with the same
    /// configuration; a joiner joins a waiting room with the same configuration.
    pub games: u32,
    /// Seed of the bot's choices (an engine's `Seed` option, derived per game).
    pub seed: u64,
    /// Longest wait for the server (opponents, moves) before giving up.
    pub wait: Duration,
    /// How often to try to resume after the connection drops, per drop.
    pub reconnects: u32,
    /// The classic database `level:5` plays from in classic two-player games with the poison
    /// at 0,0; none: it searches.
    pub classic: Option<Arc<ClassicLibrary>>,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    /// The room.
    pub room: String,
    /// The bot's seat.
    pub seat: Seat,
    /// How the game ended.
    pub result: GameResult,
    /// Moves played.
    pub moves: usize,
    /// The bot's score (see [`jchomp_engine::scoring`]).
    pub score: f64,
}

/// The local copy of the room's game.
struct Tracker {
    config: ConfigJson,
    game: Game,
    version: u64,
    status: RoomStatus,
    result: Option<GameResult>,
}

impl Tracker {
    fn load(snap: &Snapshot) -> Result<Tracker, ClientError> {
        let config = snap.config.validate().map_err(ClientError::BadConfig)?;
        let mut game = Game::new(config);
        for m in &snap.moves {
            game.select(m.row, m.col)
                .map_err(|reason| ClientError::BadSnapshotMove {
                    row: m.row,
                    col: m.col,
                    reason,
                })?;
        }
        Ok(Tracker {
            config: snap.config.clone(),
            game,
            version: snap.version,
            status: snap.status,
            result: snap.result.map(Into::into),
        })
    }
}

/// The server's refusal of a request.
pub(crate) fn server_error(code: ErrorCode, message: String) -> ClientError {
    ClientError::Refused { code, message }
}

/// Plays `options.games` games and returns them; `log` receives one line per event worth
/// telling a person (joined, each result).
pub async fn play(
    options: &PlayOptions,
    log: &mut (dyn FnMut(String) + Send),
) -> Result<Vec<Played>, ClientError> {
    let mut mover = Mover::new(options).await?;
    let mut played = Vec::new();
    let mut target = options.target.clone();
    for n in 0..options.games {
        let (game, config) = one_game(options, &target, &mut mover, log).await?;
        log(format!(
            "game {}: room {} seat {}: {} after {} moves ({})",
            n + 1,
            game.room,
            game.seat,
            verdict(game.score),
            game.moves,
            describe(game.result)
        ));
        let previous = game.room.clone();
        played.push(game);
        if n + 1 < options.games {
            target = match &options.target {
                Target::Create(_) => Target::Create(config),
                Target::Join(_) => Target::Join(find_room(options, &config, &previous).await?),
                seek @ Target::Seek { .. } => seek.clone(),
            };
        }
    }
    Ok(played)
}

/// `won`, `lost` or `tie` for a score of 1, 0 or 1/2.
pub fn verdict(score: f64) -> &'static str {
    if score >= 1.0 {
        "won"
    } else if score <= 0.0 {
        "lost"
    } else {
        "tie"
    }
}

fn describe(result: GameResult) -> String {
    match result {
        GameResult::Poisoned { loser } => format!("seat {loser} ate poison"),
        GameResult::Tie => "no selection left".to_string(),
        GameResult::Won { winner } => format!("seat {winner} ate a marked cell and won"),
        GameResult::Timeout { loser } => format!("seat {loser} ran out of time"),
        GameResult::Abandoned { loser } => format!("seat {loser} left"),
    }
}

/// A waiting room with this configuration and a free seat (not `previous`).
async fn find_room(
    options: &PlayOptions,
    config: &ConfigJson,
    previous: &str,
) -> Result<String, ClientError> {
    let mut ws = Connection::connect(&options.url).await?;
    let deadline = tokio::time::Instant::now() + options.wait;
    loop {
        ws.send(&ClientMessage::ListRooms).await?;
        loop {
            match ws.recv_within(options.wait).await? {
                ServerMessage::Rooms { rooms } => {
                    let found = rooms.into_iter().find(|r| {
                        r.status == RoomStatus::Waiting
                            && r.room != previous
                            && &r.config == config
                            && r.seats.iter().any(Option::is_none)
                    });
                    if let Some(r) = found {
                        ws.close().await;
                        return Ok(r.room);
                    }
                    break;
                }
                ServerMessage::Error { code, message } => return Err(server_error(code, message)),
                _ => {}
            }
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(ClientError::NoRoom {
                secs: options.wait.as_secs(),
            });
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Acts as the bot account of `options.token`, if any, before anything else on `ws`; returns
/// the account's name.
pub(crate) async fn authenticate(
    ws: &mut Connection,
    options: &PlayOptions,
) -> Result<Option<String>, ClientError> {
    let Some(token) = &options.token else {
        return Ok(None);
    };
    ws.send(&ClientMessage::Authenticate {
        token: token.clone(),
    })
    .await?;
    loop {
        match ws.recv_within(options.wait).await? {
            ServerMessage::Account { name, .. } => return Ok(Some(name)),
            ServerMessage::Error { code, message } => return Err(server_error(code, message)),
            _ => {}
        }
    }
}

/// Plays one game from joining to its end; returns it and the room's configuration.
async fn one_game(
    options: &PlayOptions,
    target: &Target,
    mover: &mut Mover,
    log: &mut (dyn FnMut(String) + Send),
) -> Result<(Played, ConfigJson), ClientError> {
    let mut ws = Connection::connect(&options.url).await?;
    authenticate(&mut ws, options).await?;
    ws.send(&match target {
        Target::Join(room) => ClientMessage::JoinRoom {
            seat: None,
            room: room.clone(),
            name: options.name.clone(),
        },
        Target::Create(config) => ClientMessage::CreateRoom {
            bots: None,
            name: options.name.clone(),
            config: config.clone(),
        },
        Target::Seek { preset, bots } => ClientMessage::Seek {
            preset: preset.clone(),
            name: Some(options.name.clone()),
            bots: *bots,
        },
    })
    .await?;
    let held = loop {
        match ws.recv_within(options.wait).await? {
            ServerMessage::Joined { room, seat, token } => break Held { room, seat, token },
            ServerMessage::Error { code, message } => return Err(server_error(code, message)),
            _ => {}
        }
    };
    log(format!("joined room {} as seat {}", held.room, held.seat));
    if matches!(target, Target::Create(_)) {
        for bot in &options.add_bots {
            ws.send(&ClientMessage::AddBot {
                seat: None,
                bot: Some(bot.clone()),
            })
            .await?;
        }
    }
    let (played, config, _) = play_seat(options, &mut ws, &held, mover, log, &mut |_| {}).await?;
    ws.close().await;
    Ok((played, config))
}

/// A seat the bot holds.
pub(crate) struct Held {
    /// The room.
    pub room: String,
    /// The seat.
    pub seat: Seat,
    /// The token that resumes it.
    pub token: String,
}

/// Plays the game of `held` on `ws` to its end, resuming the seat with its token on a new
/// connection if `ws` drops (`ws` is then that connection); `log` is told what a person would
/// want to know, and every message not about the game is handed to `other`. Returns the game, the room's configuration, and whether the connection
/// was replaced.
pub(crate) async fn play_seat(
    options: &PlayOptions,
    ws: &mut Connection,
    held: &Held,
    mover: &mut Mover,
    log: &mut (dyn FnMut(String) + Send),
    other: &mut (dyn FnMut(ServerMessage) + Send),
) -> Result<(Played, ConfigJson, bool), ClientError> {
    let Held { room, seat, token } = held;
    let seat = *seat;
    let mut tracker: Option<Tracker> = None;
    let mut pending = false;
    let mut replaced = false;
    loop {
        let msg = match ws.recv_within(options.wait).await {
            Ok(msg) => msg,
            Err(e) => {
                log(format!("connection lost ({e}); resuming"));
                *ws = resume(options, token).await?;
                replaced = true;
                pending = false;
                continue;
            }
        };
        match msg {
            ServerMessage::Room(snap) if &snap.room == room => {
                tracker = Some(Tracker::load(&snap)?);
                pending = false;
            }
            ServerMessage::Moved(m) if &m.room == room => {
                let in_step = tracker.as_ref().is_some_and(|t| m.version == t.version + 1);
                match tracker.as_mut() {
                    Some(t) if in_step => {
                        t.game.select(m.row, m.col).map_err(ClientError::BadMove)?;
                        t.version = m.version;
                        t.status = m.status;
                        t.result = m.result.map(Into::into);
                        pending = false;
                    }
                    _ => ws.send(&ClientMessage::Sync).await?,
                }
            }
            ServerMessage::MoveRejected { .. } => {
                pending = false;
                ws.send(&ClientMessage::Sync).await?;
            }
            ServerMessage::Error { code, message } => {
                if code == ErrorCode::BadToken {
                    return Err(server_error(code, message));
                }
                if code == ErrorCode::ShuttingDown {
                    // The game in play comes back when the server starts again: the
                    // connection closes next, and the seat is resumed then.
                    log("the server is shutting down; the seat is resumed once it is back".into());
                    continue;
                }
                log(format!("server error: {message}"));
                if code == ErrorCode::Unavailable && pending {
                    // The move did not reach the room's node: choose and send it again, a
                    // little later.
                    tokio::time::sleep(UNAVAILABLE_RETRY).await;
                    pending = false;
                }
            }
            msg => other(msg),
        }
        let Some(t) = tracker.as_ref() else { continue };
        if t.status == RoomStatus::Finished {
            let result = t.result.unwrap_or(GameResult::Tie);
            let played = Played {
                room: room.clone(),
                seat,
                result,
                moves: t.game.moves().len(),
                score: seat_score(result, seat),
            };
            return Ok((played, t.config.clone(), replaced));
        }
        if t.status == RoomStatus::Playing && t.game.to_move() == Some(seat) && !pending {
            let cell = mover.choose(room, t).await?;
            ws.send(&ClientMessage::Move {
                row: i64::from(cell.row),
                col: i64::from(cell.col),
            })
            .await?;
            pending = true;
        }
    }
}

/// The player of every game: a bot (taken while it thinks), or an engine on the bridge.
pub(crate) enum Mover {
    Bot {
        player: Option<Box<dyn Player>>,
        stop: Arc<AtomicBool>,
    },
    Engine(Box<Bridged>),
}

impl Mover {
    /// The options' bot, or their engine started.
    pub(crate) async fn new(options: &PlayOptions) -> Result<Mover, ClientError> {
        match &options.contestant {
            Contestant::Bot(spec) => {
                let mut player = spec.build_with(options.seed, options.classic.clone());
                let stop = Arc::new(AtomicBool::new(false));
                player.set_stop(stop.clone());
                Ok(Mover::Bot {
                    player: Some(player),
                    stop,
                })
            }
            Contestant::Engine(seat) => Bridged::start(seat.clone(), options.seed)
                .await
                .map(|engine| Mover::Engine(Box::new(engine)))
                .map_err(ClientError::Engine),
        }
    }

    /// Its move in room `room`.
    async fn choose(&mut self, room: &str, t: &Tracker) -> Result<Cell, ClientError> {
        match self {
            Mover::Bot { player, stop } => choose(player, stop, t).await,
            Mover::Engine(engine) => engine
                .choose(room, &t.game, t.config.move_time_ms)
                .await
                .map_err(ClientError::Engine),
        }
    }
}

/// Chooses a move on a blocking thread (the engine's [`think`]), raising the stop flag with
/// three tenths of the room's move timer left (a margin for the network).
async fn choose(
    slot: &mut Option<Box<dyn Player>>,
    stop: &Arc<AtomicBool>,
    t: &Tracker,
) -> Result<Cell, ClientError> {
    let player = slot.take().ok_or(ClientError::BotLost)?;
    // The turn starts: a flag raised by the turn before is lowered.
    stop.store(false, std::sync::atomic::Ordering::Relaxed);
    let stop = Stop {
        flag: Arc::clone(stop),
        at: t
            .config
            .move_time_ms
            .map(|ms| Instant::now() + Duration::from_millis(ms * 7 / 10)),
    };
    let thought = think(player, *t.game.config(), *t.game.position(), Some(stop)).await;
    *slot = thought.player;
    match thought.outcome {
        Outcome::Chose(cell) => Ok(cell),
        Outcome::Passed => Err(ClientError::NoSelection),
        Outcome::Panicked => Err(ClientError::BotPanicked),
    }
}

/// Reconnects and resumes the seat, retrying with growing pauses.
async fn resume(options: &PlayOptions, token: &str) -> Result<Connection, ClientError> {
    match jchomp_protocol::connection::resume(&options.url, token, options.reconnects.max(1))
        .await
        .map_err(ClientError::Reconnect)?
    {
        Resumed::Seat(conn, _joined) => Ok(conn),
        Resumed::Refused(_, refused) => Err(ClientError::ResumeRefused(refused)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_reads_as_words_without_internal_codes() {
        let e = ClientError::Refused {
            code: ErrorCode::NoSuchRoom,
            message: "no room \"r9\"".into(),
        };
        assert_eq!(
            e.to_string(),
            "There is no room with that id (it may have closed)."
        );
    }
}
