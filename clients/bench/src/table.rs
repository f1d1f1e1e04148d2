//! One room's worth of connections playing games one after another against a JChomp server:
//! seat 0 creates a room, the others join, the seat to move sends a random valid move (from
//! its own copy of the game), and every `moved` on every connection is checked against the
//! moves sent. Latency is from sending a move to its mover receiving the `moved`.

use super::codec::{Incoming, code_name, parse, send_json};
use super::plan::{Live, Stage, StageWatch, Window, off_owner};
use super::socket::{Ws, next_any};
use super::stats::Tally;
use jchomp_engine::{Player, RandomPlayer};
use jchomp_protocol::json::{ConfigJson, ResultJson};
use jchomp_protocol::rules::{Config, Game};
use jchomp_protocol::wire::{ClientMessage, ErrorCode, Moved, RoomStatus, ServerMessage};
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

/// Where the current game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Seat 0 asked for a room.
    Creating,
    /// Seat `k` asked to join.
    Joining(usize),
    /// Every seat joined; moves go on until every seat saw the end.
    Playing,
}

/// What to do after a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    Nothing,
    Create,
    Join(usize),
    /// Ask again to join (after [`JOIN_AGAIN`]): the room is not yet known on this seat's node.
    JoinAgain(usize),
    Move(usize),
    GameOver,
    Fail,
}

/// Time before a seat asks again to join a room its node does not know yet.
const JOIN_AGAIN: Duration = Duration::from_millis(2);
/// Times a seat asks again to join one room before the `no_such_room` counts as an error.
const JOINS_AGAIN: u32 = 100;

/// A move sent and not yet seen by every seat.
#[derive(Clone, Copy, Debug)]
struct Sent {
    seat: u8,
    row: u8,
    col: u8,
    at: Instant,
}

/// What a game table needs from the run.
pub(crate) struct TableRun<'a> {
    /// The table's number (names and seeds).
    pub ix: usize,
    /// The game configuration.
    pub config: Config,
    /// The same, as sent in `create_room`.
    pub json: &'a ConfigJson,
    /// Shared counters.
    pub live: &'a Live,
    /// Time between two moves of the room, if paced, and when its first move may go.
    pub pace: Option<(Duration, Instant)>,
    /// Seeds the players.
    pub seed: u64,
    /// The nodes the run's seats are split across (1: one server); seats off the room's
    /// node ([`off_owner`]) have their latencies kept apart.
    pub nodes: usize,
}

/// Plays games on `conns` (one per seat) until the stage says stop, then finishes the game in
/// progress (or stops at once on [`Stage::Halt`]).
pub(crate) async fn play(
    run: TableRun<'_>,
    conns: Vec<Ws>,
    window: Window,
    stage: &mut StageWatch,
    tally: &mut Tally,
) {
    let seats = conns.len();
    let mut conns = conns;
    let mut from = 0;
    let mut t = Table::new(run, window, seats, tally);
    let mut pending: Option<usize> = None;
    let mut stopping = !matches!(stage.now(), Stage::Run(_));
    // One timer for the paced moves, reset for each (not a new one for every message read).
    let timer = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(timer);
    let mut next = if stopping { Next::Fail } else { Next::Create };
    loop {
        match next {
            Next::Nothing => {}
            Next::Fail => break,
            Next::Join(k) | Next::JoinAgain(k) => {
                if next == Next::JoinAgain(k) {
                    tokio::time::sleep(JOIN_AGAIN).await;
                }
                let msg = ClientMessage::JoinRoom {
                    seat: None,
                    room: t.room.clone(),
                    name: format!("t{}s{k}", t.run.ix),
                };
                if !t.send(&mut conns[k], &msg).await {
                    break;
                }
            }
            Next::Move(seat) => {
                let at = t.next_allowed;
                if t.run.pace.is_some() && at > Instant::now() {
                    pending = Some(seat);
                    timer.as_mut().reset(at);
                } else if !t.send_move(&mut conns[seat], seat).await {
                    break;
                }
            }
            Next::GameOver => {
                t.tally.games_finished += 1;
                t.end_game();
                if stopping || !t.create(&mut conns[0]).await {
                    break;
                }
            }
            Next::Create => {
                if !t.create(&mut conns[0]).await {
                    break;
                }
            }
        }
        next = Next::Nothing;
        tokio::select! {
            (i, item) = next_any(&mut conns, &mut from) => match item {
                Some(Ok(Message::Text(text))) => next = t.on_text(i, &text),
                Some(Ok(Message::Close(frame))) => {
                    let why = frame.map(|f| f.reason.to_string()).unwrap_or_default();
                    t.fail("closed by server", why);
                    next = Next::Fail;
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    t.fail("connection broke", e);
                    next = Next::Fail;
                }
                None => next = Next::Fail,
            },
            _ = &mut timer, if pending.is_some() => {
                if let Some(seat) = pending.take()
                    && !t.send_move(&mut conns[seat], seat).await
                {
                    break;
                }
            }
            now = stage.changed() => {
                match now {
                    Stage::Halt => break,
                    Stage::Stop => stopping = true,
                    _ => {}
                }
            }
        }
    }
    t.end_game();
    for ws in &mut conns {
        let _ = tokio::time::timeout(Duration::from_millis(500), ws.close(None)).await;
    }
}

struct Table<'a, 't> {
    run: TableRun<'a>,
    window: Window,
    players: Vec<RandomPlayer>,
    room: String,
    phase: Phase,
    game: Game,
    sent: Vec<Sent>,
    /// Each move's `moved` as first received (its text and what it says): every seat receives
    /// the same bytes, so later copies are compared rather than parsed again.
    moved: Vec<(String, Moved)>,
    cursor: Vec<usize>,
    last_version: Vec<u64>,
    finished_seen: Vec<bool>,
    /// When the room's next move may go (paced runs).
    next_allowed: Instant,
    /// Times the seat joining now has asked again.
    joins_again: u32,
    in_game: bool,
    tally: &'t mut Tally,
}

impl<'a, 't> Table<'a, 't> {
    /// A table of `seats` seats, before its first room.
    fn new(run: TableRun<'a>, window: Window, seats: usize, tally: &'t mut Tally) -> Self {
        let players = (0..seats)
            .map(|s| RandomPlayer::new(run.seed ^ ((run.ix as u64) << 8) ^ s as u64))
            .collect();
        let first = run.pace.map_or_else(Instant::now, |(_, first)| first);
        Table {
            game: Game::new(run.config),
            run,
            window,
            players,
            room: String::new(),
            phase: Phase::Creating,
            sent: Vec::new(),
            moved: Vec::new(),
            cursor: vec![0; seats],
            last_version: vec![0; seats],
            finished_seen: vec![false; seats],
            next_allowed: first,
            joins_again: 0,
            in_game: false,
            tally,
        }
    }

    /// Seat 0 asks for a new room.
    async fn create(&mut self, sink: &mut Ws) -> bool {
        self.phase = Phase::Creating;
        let msg = ClientMessage::CreateRoom {
            bots: None,
            name: format!("t{}s0", self.run.ix),
            config: self.run.json.clone(),
        };
        self.send(sink, &msg).await
    }

    /// The game in play (if any) no longer counts as playing.
    fn end_game(&mut self) {
        if self.in_game {
            self.in_game = false;
            self.run.live.playing.fetch_sub(1, Ordering::Relaxed);
        }
    }

    fn fail(&mut self, kind: &str, detail: impl std::fmt::Display) {
        self.tally.errors.add(kind, detail);
    }

    async fn send(&mut self, sink: &mut Ws, msg: &ClientMessage) -> bool {
        match send_json(sink, msg).await {
            Ok(()) => true,
            Err(e) => {
                self.fail("send failed", e);
                false
            }
        }
    }

    /// The seat's player chooses a valid move, the local game makes it, and it is sent.
    async fn send_move(&mut self, sink: &mut Ws, seat: usize) -> bool {
        let position = *self.game.position();
        let Some(cell) = self.players[seat].choose(&self.run.config, &position) else {
            self.fail("no move", "the local game has no valid move while playing");
            return false;
        };
        if let Err(e) = self.game.select(cell.row.into(), cell.col.into()) {
            self.fail("local game refused", e);
            return false;
        }
        let now = Instant::now();
        if let Some((every, _)) = self.run.pace {
            // On schedule; a room that fell behind starts again from now rather than bursting.
            self.next_allowed = (self.next_allowed + every).max(now);
        }
        self.sent.push(Sent {
            seat: seat as u8,
            row: cell.row,
            col: cell.col,
            at: now,
        });
        let msg = ClientMessage::Move {
            row: cell.row.into(),
            col: cell.col.into(),
        };
        self.send(sink, &msg).await
    }

    fn on_text(&mut self, i: usize, text: &str) -> Next {
        // A copy of a `moved` another seat already received: the same bytes say the same.
        let k = self.cursor[i];
        if self.moved.get(k).is_some_and(|(first, _)| first == text) {
            let moved = std::mem::take(&mut self.moved);
            let next = self.on_moved(i, &moved[k].1);
            self.moved = moved;
            return next;
        }
        let msg = match parse(text) {
            Ok(m) => m,
            Err(e) => {
                self.fail("garbled message", e);
                return Next::Fail;
            }
        };
        match msg {
            Incoming::Moved(m) => {
                if self.cursor[i] == self.moved.len() {
                    self.moved.push((text.to_owned(), m.clone()));
                }
                self.on_moved(i, &m)
            }
            Incoming::Other(ServerMessage::Joined { room, seat, .. }) => {
                self.on_joined(i, room, usize::from(seat))
            }
            Incoming::Other(ServerMessage::Room(snap)) => {
                if self.phase != Phase::Playing
                    || snap.room != self.room
                    || snap.status != RoomStatus::Finished
                {
                    return Next::Nothing;
                }
                let expected = self.game.result().map(ResultJson::from);
                if snap.result != expected || snap.moves.len() != self.sent.len() {
                    self.fail(
                        "wrong final state",
                        format!(
                            "server {:?} after {} moves, local {expected:?} after {}",
                            snap.result,
                            snap.moves.len(),
                            self.sent.len()
                        ),
                    );
                    return Next::Fail;
                }
                if self.cursor[i] != self.sent.len() {
                    self.fail(
                        "missed moved",
                        format!(
                            "seat {i} saw {} of {} moves",
                            self.cursor[i],
                            self.sent.len()
                        ),
                    );
                    return Next::Fail;
                }
                self.finished_seen[i] = true;
                if self.finished_seen.iter().all(|&f| f) {
                    Next::GameOver
                } else {
                    Next::Nothing
                }
            }
            Incoming::Other(ServerMessage::MoveRejected { reason, message }) => {
                self.fail(&format!("move_rejected: {}", code_name(&reason)), message);
                Next::Fail
            }
            Incoming::Other(ServerMessage::Error { code, message }) => {
                // Against several nodes, a room just created on one node reaches the others'
                // directory a moment later: a seat of another node asks again, counted apart.
                if let Phase::Joining(k) = self.phase
                    && i == k
                    && code == ErrorCode::NoSuchRoom
                    && off_owner(k, self.run.nodes)
                    && self.joins_again < JOINS_AGAIN
                {
                    self.joins_again += 1;
                    self.tally.joins_again += 1;
                    return Next::JoinAgain(k);
                }
                self.fail(&format!("error: {}", code_name(&code)), message);
                Next::Fail
            }
            Incoming::Other(_) => Next::Nothing,
        }
    }

    fn on_joined(&mut self, i: usize, room: String, seat: usize) -> Next {
        let seats = self.cursor.len();
        match self.phase {
            Phase::Creating if i == 0 && seat == 0 => {
                self.room = room;
                self.phase = Phase::Joining(1);
                Next::Join(1)
            }
            Phase::Joining(k) if i == k && seat == k && room == self.room => {
                self.joins_again = 0;
                if k + 1 < seats {
                    self.phase = Phase::Joining(k + 1);
                    return Next::Join(k + 1);
                }
                self.phase = Phase::Playing;
                self.game = Game::new(self.run.config);
                self.sent.clear();
                self.moved.clear();
                self.cursor.fill(0);
                self.last_version.fill(0);
                self.finished_seen.fill(false);
                self.tally.games_started += 1;
                self.in_game = true;
                self.run.live.playing.fetch_add(1, Ordering::Relaxed);
                Next::Move(0)
            }
            _ => {
                self.fail(
                    "unexpected joined",
                    format!("connection {i} got seat {seat} while {:?}", self.phase),
                );
                Next::Fail
            }
        }
    }

    fn on_moved(&mut self, i: usize, m: &Moved) -> Next {
        if self.phase != Phase::Playing || m.room != self.room {
            self.fail("unexpected moved", format!("connection {i}: {m:?}"));
            return Next::Fail;
        }
        let Some(&sent) = self.sent.get(self.cursor[i]) else {
            self.fail("moved not sent", format!("connection {i}: {m:?}"));
            return Next::Fail;
        };
        if (m.seat, m.row, m.col) != (sent.seat, sent.row.into(), sent.col.into())
            || m.version <= self.last_version[i]
        {
            self.fail(
                "moved does not match",
                format!("connection {i}: sent {sent:?}, got {m:?}"),
            );
            return Next::Fail;
        }
        self.cursor[i] += 1;
        self.last_version[i] = m.version;
        if usize::from(m.seat) != i {
            return Next::Nothing;
        }
        // The mover's own `moved`: the move was accepted. Only the latest move can be
        // outstanding, so the local game is exactly at the state after it.
        let now = Instant::now();
        self.tally.answered += 1;
        self.run.live.answered.fetch_add(1, Ordering::Relaxed);
        if self.window.contains(now) {
            self.tally.in_window += 1;
            self.tally.latencies.record(now - sent.at);
            if self.game.result().is_some() {
                self.tally.final_latencies.record(now - sent.at);
            }
            if self.run.nodes > 1 {
                if off_owner(i, self.run.nodes) {
                    self.tally.other_node_latencies.record(now - sent.at);
                } else {
                    self.tally.owner_node_latencies.record(now - sent.at);
                }
            }
        }
        let status = if self.game.result().is_some() {
            RoomStatus::Finished
        } else {
            RoomStatus::Playing
        };
        let result = self.game.result().map(ResultJson::from);
        if m.to_move != self.game.to_move() || m.status != status || m.result != result {
            self.fail(
                "moved does not match",
                format!(
                    "local to_move {:?} {status:?} {result:?}, got {m:?}",
                    self.game.to_move()
                ),
            );
            return Next::Fail;
        }
        match self.game.to_move() {
            Some(next) => Next::Move(usize::from(next)),
            None => Next::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::board;
    use jchomp_testkit::fixtures::moved;

    fn moved_text(m: &Moved) -> String {
        serde_json::to_string(&ServerMessage::Moved(m.clone())).unwrap()
    }

    fn no_such_room() -> String {
        serde_json::to_string(&ServerMessage::Error {
            code: ErrorCode::NoSuchRoom,
            message: "no room has id \"r\"".into(),
        })
        .unwrap()
    }

    #[test]
    fn a_seat_on_another_node_asks_again_to_join_a_room_its_node_does_not_know_yet() {
        let config = board("4x4 poison 0,0");
        let json = ConfigJson::new(&config, None);
        let live = Live::default();
        let now = Instant::now();
        let window = Window {
            start: now,
            end: now + Duration::from_secs(60),
        };
        for nodes in [1, 2] {
            let run = TableRun {
                ix: 0,
                config,
                json: &json,
                live: &live,
                pace: None,
                seed: 1,
                nodes,
            };
            let mut tally = Tally::default();
            let mut t = Table::new(run, window, 2, &mut tally);
            t.room = "r".into();
            assert_eq!(t.on_joined(0, "r".into(), 0), Next::Join(1));
            if nodes == 1 {
                // On one server the room exists as soon as it is created: an error.
                assert_eq!(t.on_text(1, &no_such_room()), Next::Fail);
                assert_eq!(t.tally.errors.total(), 1);
                continue;
            }
            for _ in 0..JOINS_AGAIN {
                assert_eq!(t.on_text(1, &no_such_room()), Next::JoinAgain(1));
            }
            // Not for ever: then it is an error.
            assert_eq!(t.on_text(1, &no_such_room()), Next::Fail);
            assert_eq!(t.tally.joins_again, u64::from(JOINS_AGAIN));
            assert_eq!(t.tally.errors.total(), 1);
            // Once joined, the next room's seats get their own tries; the creator's
            // `no_such_room` is never asked again.
            let mut tally = Tally::default();
            let run = TableRun {
                ix: 0,
                config,
                json: &json,
                live: &live,
                pace: None,
                seed: 1,
                nodes,
            };
            let mut t = Table::new(run, window, 2, &mut tally);
            t.room = "r".into();
            t.on_joined(0, "r".into(), 0);
            assert_eq!(t.on_text(1, &no_such_room()), Next::JoinAgain(1));
            assert_eq!(t.on_joined(1, "r".into(), 1), Next::Move(0));
            assert_eq!(t.joins_again, 0);
            assert_eq!(t.on_text(0, &no_such_room()), Next::Fail);
        }
    }

    #[test]
    fn every_copy_of_a_moved_is_checked_even_when_not_parsed_again() {
        let config = board("4x4 poison 0,0 players 3");
        let json = ConfigJson::new(&config, None);
        let live = Live::default();
        let now = Instant::now();
        let run = TableRun {
            ix: 0,
            config,
            json: &json,
            live: &live,
            pace: None,
            seed: 1,
            nodes: 1,
        };
        let window = Window {
            start: now,
            end: now + Duration::from_secs(60),
        };
        let mut tally = Tally::default();
        let mut t = Table::new(run, window, 3, &mut tally);
        t.room = "r".into();
        assert_eq!(t.on_joined(0, "r".into(), 0), Next::Join(1));
        assert_eq!(t.on_joined(1, "r".into(), 1), Next::Join(2));
        assert_eq!(t.on_joined(2, "r".into(), 2), Next::Move(0));
        // Seat 0 eats 3,3; the local game says seat 1 is next.
        t.game.select(3, 3).unwrap();
        t.sent.push(Sent {
            seat: 0,
            row: 3,
            col: 3,
            at: Instant::now(),
        });
        let good = moved("r", 5, 0, (3, 3));
        let text = moved_text(&good);
        // The mover's copy is parsed and checked; seat 1's identical copy is compared.
        assert_eq!(t.on_text(0, &text), Next::Move(1));
        assert_eq!(t.moved.len(), 1);
        assert_eq!(t.on_text(1, &text), Next::Nothing);
        assert_eq!(t.cursor, [1, 1, 0]);
        // Seat 2 gets different bytes saying another move: parsed, and refused.
        let wrong = moved_text(&Moved { col: 2, ..good });
        assert_eq!(t.on_text(2, &wrong), Next::Fail);
        assert_eq!(t.tally.errors.total(), 1);
        // The same bytes again on seat 1 (past its cursor) are not a copy: refused too.
        assert_eq!(t.on_text(1, &text), Next::Fail);
        assert_eq!(t.tally.errors.total(), 2);
    }
}
