//! Plays one tournament game in a real room of a running server: every seat is its own
//! WebSocket connection; seat 0 creates the room with the game's configuration, the others join
//! in seat order, and each bot's selections go through the protocol. The room's turn timer
//! (`move_time_ms`) is the longest time limit among its bots, so the server judges overtime; a
//! bot that panics or has no valid selection leaves the game, which the server ends `abandoned`.
//! A bot thinks on a blocking thread (the engine's [`think`]) while every connection goes on
//! being read (answering the server's pings), and the messages read early are kept in order.

use super::play::Clock;
use jchomp_engine::arena::{Failure, Played, Timer};
use jchomp_engine::player::{Player, RandomPlayer};
use jchomp_engine::think::think;
use jchomp_protocol::connection::{Connection, ConnectionError};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::wire::{ClientMessage, ErrorCode, MAX_NAME, RoomStatus, ServerMessage};
use jchomp_rules::{Config, Game, GameResult, Rejection, Seat};
use std::collections::VecDeque;
use std::time::Duration;

/// Why a game through the server could not be played. Each message is whole: it includes the
/// message of the error it wraps, which is therefore not given as a source.
#[derive(Debug, thiserror::Error)]
pub enum RoomError {
    /// Talking to the server failed.
    #[error("{0}")]
    Connection(ConnectionError),
    /// The server finished the room without saying how the game ended.
    #[error("the server finished the room without a result")]
    NoResult,
    /// The server refused a request.
    #[error("the server refused a request: {}", jchomp_protocol::connection::describe_error(*.code, .message))]
    Refused {
        /// The error code.
        code: ErrorCode,
        /// The server's explanation.
        message: String,
    },
    /// The server refused a move the rules accept.
    #[error("the server refused a move: {0}")]
    MoveRefused(String),
    /// The server refused to seat a bot.
    #[error("the server refused to seat a bot: {}", jchomp_protocol::connection::describe_error(*.code, .message))]
    SeatRefused {
        /// The error code.
        code: ErrorCode,
        /// The server's explanation.
        message: String,
    },
    /// The server seated a bot elsewhere than in the seat it was scheduled for.
    #[error("the server gave seat {given} to the bot for seat {scheduled}")]
    WrongSeat {
        /// The seat the server gave.
        given: Seat,
        /// The seat scheduled.
        scheduled: usize,
    },
    /// The server accepted a move the rules refuse.
    #[error("the server accepted a move the rules refuse: {0}")]
    RulesRefuse(Rejection),
    /// The server and the rules disagree on how the game ended.
    #[error("the server ended the game {server:?}, the rules {rules:?}")]
    ResultDiffers {
        /// The server's result.
        server: Option<GameResult>,
        /// The rules' result.
        rules: Option<GameResult>,
    },
}

impl From<ConnectionError> for RoomError {
    fn from(e: ConnectionError) -> RoomError {
        RoomError::Connection(e)
    }
}

/// How long to wait for the server's answer beyond the turn timer.
const ANSWER: Duration = Duration::from_secs(30);

/// What a server message says about the game, for the seat waiting on it.
enum Seen {
    /// A move (by any seat).
    Moved {
        row: i64,
        col: i64,
        result: Option<GameResult>,
    },
    /// The game ended without a move (timeout, abandonment).
    Ended(GameResult),
    /// Nothing that matters here.
    Other,
}

fn seen(msg: ServerMessage) -> Result<Seen, RoomError> {
    Ok(match msg {
        ServerMessage::Moved(m) => Seen::Moved {
            row: m.row,
            col: m.col,
            result: m.result.map(Into::into),
        },
        ServerMessage::Room(s) if s.status == RoomStatus::Finished => match s.result {
            Some(r) => Seen::Ended(r.into()),
            None => return Err(RoomError::NoResult),
        },
        ServerMessage::Error { code, message } => return Err(RoomError::Refused { code, message }),
        ServerMessage::MoveRejected { message, .. } => return Err(RoomError::MoveRefused(message)),
        _ => Seen::Other,
    })
}

/// Every seat's connection, with the messages read early (while a bot was thinking) kept in
/// order for later.
struct Seats {
    conns: Vec<Connection>,
    inbox: Vec<VecDeque<ServerMessage>>,
}

impl Seats {
    /// Seat `i`'s next message: a kept one first, else one from its connection.
    async fn next(&mut self, i: usize, wait: Duration) -> Result<ServerMessage, RoomError> {
        match self.inbox[i].pop_front() {
            Some(msg) => Ok(msg),
            None => Ok(self.conns[i].recv_within(wait).await?),
        }
    }

    /// Reads every connection (which also answers the server's pings) until `work` is done,
    /// keeping the messages for [`Seats::next`].
    async fn pump_until<F: Future>(&mut self, work: F) -> Result<F::Output, RoomError> {
        let mut work = std::pin::pin!(work);
        let Seats { conns, inbox } = self;
        loop {
            let any = futures_util::future::select_all(
                conns.iter_mut().map(|c| Box::pin(c.recv_within(IDLE))),
            );
            tokio::select! {
                done = &mut work => return Ok(done),
                (msg, i, _) = any => inbox[i].push_back(msg?),
            }
        }
    }
}

/// How long a connection may stay silent while a bot thinks (the server pings every few seconds).
const IDLE: Duration = Duration::from_secs(24 * 60 * 60);

/// Waits on `conn` for the `joined` answer and returns the room and seat.
async fn joined(conn: &mut Connection) -> Result<(String, Seat), RoomError> {
    loop {
        match conn.recv_within(ANSWER).await? {
            ServerMessage::Joined { room, seat, .. } => return Ok((room, seat)),
            ServerMessage::Error { code, message } => {
                return Err(RoomError::SeatRefused { code, message });
            }
            _ => {}
        }
    }
}

/// Plays `config` on the server at `url`; seat `s` is played by `players[s]` named
/// `names[s]`, with the move limits `limits[s]`. `None` if the tournament stopped meanwhile.
pub async fn play_on_server(
    url: &str,
    config: &Config,
    names: &[String],
    players: &mut [Box<dyn Player>],
    limits: &[Option<Duration>],
    clock: Clock<'_>,
) -> Result<Option<Played>, RoomError> {
    let timer = limits.iter().flatten().max().copied();
    let mut conns = Vec::with_capacity(names.len());
    for _ in names {
        conns.push(Connection::connect(url).await?);
    }
    let mut seats = Seats {
        inbox: conns.iter().map(|_| VecDeque::new()).collect(),
        conns,
    };
    let result = seat_and_play(&mut seats, config, names, players, timer, clock).await;
    for conn in seats.conns {
        conn.close().await;
    }
    result
}

/// A bot's name as the server takes it: its first [`MAX_NAME`] characters.
fn seat_name(name: &str) -> String {
    name.chars().take(MAX_NAME).collect()
}

/// Seat 0 creates the room, the others join it in seat order.
async fn seat_bots(
    conns: &mut [Connection],
    config: &Config,
    names: &[String],
    move_time_ms: Option<u64>,
) -> Result<(), RoomError> {
    conns[0]
        .send(&ClientMessage::CreateRoom {
            bots: None,
            name: seat_name(&names[0]),
            config: ConfigJson::new(config, move_time_ms),
        })
        .await?;
    let (room, _) = joined(&mut conns[0]).await?;
    for (s, conn) in conns.iter_mut().enumerate().skip(1) {
        conn.send(&ClientMessage::JoinRoom {
            seat: None,
            room: room.clone(),
            name: seat_name(&names[s]),
        })
        .await?;
        let (_, seat) = joined(conn).await?;
        if usize::from(seat) != s {
            return Err(RoomError::WrongSeat {
                given: seat,
                scheduled: s,
            });
        }
    }
    Ok(())
}

async fn seat_and_play(
    seats: &mut Seats,
    config: &Config,
    names: &[String],
    players: &mut [Box<dyn Player>],
    timer: Option<Duration>,
    clock: Clock<'_>,
) -> Result<Option<Played>, RoomError> {
    let move_time_ms = timer.map(|t| t.as_millis().max(1) as u64);
    seat_bots(&mut seats.conns, config, names, move_time_ms).await?;
    let wait = timer.unwrap_or_default() + ANSWER;
    let mut game = Game::new(*config);
    let mut failure = None;
    // Moves each connection has reported so far (every seat hears every move).
    let mut heard = vec![0usize; seats.conns.len()];
    while let Some(seat) = game.to_move() {
        if clock.aborted() {
            return Ok(None);
        }
        let s = usize::from(seat);
        clock.start(timer);
        let position = *game.position();
        let player = std::mem::replace(&mut players[s], Box::new(RandomPlayer::new(0)));
        // The watchdog raises the bot's stop flag: no stop for `think` to keep.
        let thought = seats
            .pump_until(think(player, *config, position, None))
            .await?;
        if let Some(player) = thought.player {
            players[s] = player;
        }
        if timer.is_some() {
            clock.stop();
        }
        match Failure::judge(thought.outcome, config, &position) {
            Ok(cell) => {
                seats.conns[s]
                    .send(&ClientMessage::Move {
                        row: i64::from(cell.row),
                        col: i64::from(cell.col),
                    })
                    .await?
            }
            Err(f) => {
                failure = Some((seat, f));
                seats.conns[s].send(&ClientMessage::Leave).await?;
            }
        }
        // Read the mover's messages up to its own move or the end of the game (after a leave,
        // the next seat's: the leaver is no longer told about the room).
        let reader = if failure.is_some() {
            (s + 1) % seats.conns.len()
        } else {
            s
        };
        let target = game.moves().len() + 1;
        while heard[reader] < target && game.result().is_none() {
            match seen(seats.next(reader, wait).await?)? {
                Seen::Moved {
                    row, col, result, ..
                } => {
                    heard[reader] += 1;
                    if heard[reader] <= game.moves().len() {
                        continue; // Another seat's move, already played from its own connection.
                    }
                    game.select(row, col).map_err(RoomError::RulesRefuse)?;
                    if result.is_some() && game.result() != result {
                        return Err(RoomError::ResultDiffers {
                            server: result,
                            rules: game.result(),
                        });
                    }
                }
                Seen::Ended(r) => game.end(r),
                Seen::Other => {}
            }
        }
    }
    if let Some(GameResult::Timeout { loser }) = game.result() {
        failure = Some((loser, Failure::Overtime));
    }
    Ok(Some(Played {
        game,
        failure,
        lines: Vec::new(),
    }))
}

#[cfg(test)]
mod tests {
    use super::super::watchdog::Watchdog;
    use super::*;
    use jchomp_engine::testing::{Panics, Sleeps};
    use jchomp_rules::{Cell, Position};
    use jchomp_testkit::board;
    use jchomp_testkit::server::TestServer;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    /// Plays one game on a fresh in-process server.
    fn play(first: Box<dyn Player>, limits: [Option<Duration>; 2]) -> Played {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let server = rt.block_on(TestServer::start());
        let url = server.url();
        let config = board("4x5 poison 0,0");
        let dog = Watchdog::new(1, Arc::new(AtomicBool::new(false)));
        let alarm = dog.alarm(0);
        let clock = Clock {
            watchdog: &dog,
            alarm: &alarm,
        };
        let names = ["a".to_string(), "b".to_string()];
        let mut players: Vec<Box<dyn Player>> = vec![first, Box::new(RandomPlayer::new(3))];
        let played = rt
            .block_on(play_on_server(
                &url,
                &config,
                &names,
                &mut players,
                &limits,
                clock,
            ))
            .unwrap()
            .unwrap();
        rt.block_on(server.shut_down()).unwrap();
        played
    }

    #[test]
    fn failing_bots_lose_on_the_server_too() {
        let p = play(Box::new(RandomPlayer::new(1)), [None, None]);
        assert_eq!(p.failure, None);
        assert!(matches!(
            p.game.result(),
            Some(GameResult::Poisoned { .. } | GameResult::Tie)
        ));

        let p = play(Box::new(Panics), [None, None]);
        assert_eq!(p.failure, Some((0, Failure::Crash)));
        assert_eq!(p.game.result(), Some(GameResult::Abandoned { loser: 0 }));

        let sleeps = Sleeps(Duration::from_millis(1000));
        let p = play(Box::new(sleeps), [Some(Duration::from_millis(20)), None]);
        assert_eq!(p.failure, Some((0, Failure::Overtime)));
        assert_eq!(p.game.result(), Some(GameResult::Timeout { loser: 0 }));
    }

    #[test]
    fn long_names_are_cut_to_what_the_server_takes() {
        assert_eq!(seat_name("random"), "random");
        let long = "search:nodes=18446744073709551615#12";
        assert_eq!(seat_name(long).chars().count(), 32);
        assert!(long.starts_with(&seat_name(long)));
    }

    #[test]
    fn an_invalid_selection_loses_on_the_server() {
        struct Repeats;
        impl Player for Repeats {
            fn choose(&mut self, _: &Config, _: &Position) -> Option<Cell> {
                Some(Cell::new(3, 4))
            }
        }
        // Its first move eats (3,4); its second names (3,4) again: already eaten.
        let p = play(Box::new(Repeats), [None, None]);
        assert_eq!(p.failure, Some((0, Failure::Illegal)));
        assert_eq!(p.game.result(), Some(GameResult::Abandoned { loser: 0 }));
    }
}
