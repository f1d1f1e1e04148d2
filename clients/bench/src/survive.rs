//! One room's worth of connections playing games through a fault (`--fault`), as the project's
//! clients do: a seat whose connection closes (1012), breaks or goes silent reconnects to the
//! next node and `resume`s with its token (again after a short wait while refused), goes on
//! from the snapshot (asking `sync` when a `moved` skips a version), and every `moved` and
//! snapshot any seat is shown goes into the room's [`Ledger`], which counts what was lost or
//! forked. A table that loses its room before the game starts (a waiting room on the dead
//! node) starts again with fresh connections.

use super::codec::{Incoming, code_name, parse, send_json};
use super::ledger::{Finding, Ledger, Stalls};
use super::plan::{Live, Stage, StageWatch, Window};
use super::socket::{Target, Ws, connect, next_any};
use super::stats::Tally;
use jchomp_engine::{Player, RandomPlayer};
use jchomp_protocol::json::{ConfigJson, MoveJson};
use jchomp_protocol::rules::{Config, Game};
use jchomp_protocol::wire::{ClientMessage, ErrorCode, Moved, RoomStatus, ServerMessage, Snapshot};
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

/// Time one reconnection attempt may take (a paused node accepts TCP but never answers).
const RECONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// Time a seat keeps trying to reconnect before the table gives up.
const RECONNECT_FOR: Duration = Duration::from_secs(60);
/// Wait before asking again after `unavailable` or a refused connection to every node.
const AGAIN: Duration = Duration::from_millis(300);
/// A room that made no move for this long has each seat ask `sync`.
const IDLE: Duration = Duration::from_secs(2);
/// A seat whose `sync` gets no answer (and hears nothing) for this long reconnects (a `sync`
/// relayed to a dead owner is never answered).
const SYNC_PATIENCE: Duration = Duration::from_secs(3);
/// The same for a `resume` (answered once a takeover is done, within about 13 s).
const RESUME_PATIENCE: Duration = Duration::from_secs(15);
/// A room not yet in play after this long is given up and started again (a request to a
/// waiting room whose node died is answered `no_such_room` within about 5 s).
const SETUP_PATIENCE: Duration = Duration::from_secs(8);
/// Times a seat asks again to join a room its node does not know (yet).
const JOINS_AGAIN: u32 = 250;
/// How often the table looks for silent seats and due retries.
const TICK: Duration = Duration::from_millis(250);

/// A request a seat sends (again).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ask {
    Create,
    Join,
    Resume,
    Sync,
}

/// Where the table's current room is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Creating,
    Joining(usize),
    Playing,
}

/// One seat: its connection's node, its token and its view of the room.
#[derive(Debug)]
struct Chair {
    node: usize,
    token: Option<String>,
    /// Moves of the room this seat has been shown (by index).
    view: usize,
    version: u64,
    /// A `moved` skipped a version: its view is behind until a snapshot.
    stale: bool,
    finished: bool,
    heard: Instant,
    /// When it last asked `sync` because the room stopped moving.
    synced: Instant,
    /// A `sync` or `resume` awaiting its snapshot: when sent, and how long it may take.
    asked: Option<(Instant, Duration)>,
    /// The move sent and not yet seen: its index and when.
    sent: Option<(usize, Instant)>,
    retry: Option<(Instant, Ask)>,
}

/// What a fault-run table needs from the run.
pub(crate) struct SurviveRun<'a> {
    /// The table's number (names and seeds).
    pub ix: usize,
    /// The game configuration.
    pub config: Config,
    /// The same, as sent in `create_room`.
    pub json: &'a ConfigJson,
    /// Shared counters.
    pub live: &'a Live,
    /// Seeds the players.
    pub seed: u64,
    /// The nodes; a seat reconnects to the next one.
    pub targets: &'a [Target],
    /// The node each seat connected to first.
    pub nodes: Vec<usize>,
    /// When the fault strikes.
    pub fault_at: Option<Instant>,
}

/// What the table does next, besides sending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    Nothing,
    GameOver,
    Restart,
}

struct Survivor<'a, 't> {
    run: SurviveRun<'a>,
    window: Window,
    players: Vec<RandomPlayer>,
    chairs: Vec<Chair>,
    room: String,
    /// The node the room was created on (latencies of seats there are kept apart).
    room_node: usize,
    phase: Phase,
    phase_since: Instant,
    game: Game,
    ledger: Ledger,
    stalls: Stalls,
    /// When the room last moved (or its game began).
    progress: Instant,
    joins_again: u32,
    in_game: bool,
    /// A seat dropped before the game began: the room is given up.
    room_lost: bool,
    outbox: VecDeque<(usize, ClientMessage)>,
    tally: &'t mut Tally,
}

/// Plays games on `conns` until the stage says stop, living through closes and drops.
pub(crate) async fn play(
    run: SurviveRun<'_>,
    conns: Vec<Ws>,
    window: Window,
    stage: &mut StageWatch,
    tally: &mut Tally,
) {
    let mut conns = conns;
    let mut from = 0;
    let mut t = Survivor::new(run, window, tally);
    let mut stopping = !matches!(stage.now(), Stage::Run(_));
    let mut tick = tokio::time::interval(TICK);
    let mut after = After::Nothing;
    if !stopping {
        t.new_game();
    }
    'run: while !stopping || t.in_game {
        if std::mem::take(&mut t.room_lost) {
            after = After::Restart;
        }
        match after {
            After::Nothing => {}
            After::GameOver if stopping => break,
            After::GameOver => t.new_game(),
            After::Restart => {
                if !t.restart(&mut conns).await {
                    break;
                }
            }
        }
        after = After::Nothing;
        while let Some((i, msg)) = t.outbox.pop_front() {
            if let Err(e) = send_json(&mut conns[i], &msg).await {
                t.tally.errors.add("send failed (reconnecting)", e);
                if !t.reopen(i, &mut conns).await {
                    break 'run;
                }
            }
        }
        tokio::select! {
            (i, item) = next_any(&mut conns, &mut from) => match item {
                Some(Ok(Message::Text(text))) => after = t.on_text(i, &text),
                Some(Ok(Message::Close(_)) | Err(_)) | None => {
                    if !t.reopen(i, &mut conns).await {
                        break;
                    }
                }
                Some(Ok(_)) => {}
            },
            _ = tick.tick() => match t.on_tick(Instant::now()) {
                Some(silent) => {
                    for i in silent {
                        if !t.reopen(i, &mut conns).await {
                            break 'run;
                        }
                    }
                }
                None => after = After::Restart,
            },
            now = stage.changed() => match now {
                Stage::Halt => break,
                Stage::Stop => stopping = true,
                _ => {}
            },
        }
    }
    t.end_game();
    t.stalls.end(Instant::now());
    t.tally.survival.longest_stall = t.stalls.longest;
    match t.stalls.recovery {
        Some(d) => t.tally.survival.recoveries.push(d),
        None if t.run.fault_at.is_some() => t.tally.survival.unrecovered += 1,
        None => {}
    }
    for ws in &mut conns {
        let _ = tokio::time::timeout(Duration::from_millis(500), ws.close(None)).await;
    }
}

impl<'a, 't> Survivor<'a, 't> {
    fn new(run: SurviveRun<'a>, window: Window, tally: &'t mut Tally) -> Self {
        let now = Instant::now();
        let players = (0..run.nodes.len())
            .map(|s| RandomPlayer::new(run.seed ^ ((run.ix as u64) << 8) ^ s as u64))
            .collect();
        let chairs = run
            .nodes
            .iter()
            .map(|&node| Chair {
                node,
                token: None,
                view: 0,
                version: 0,
                stale: false,
                finished: false,
                heard: now,
                synced: now,
                asked: None,
                sent: None,
                retry: None,
            })
            .collect();
        Survivor {
            game: Game::new(run.config),
            stalls: Stalls::new((window.start, window.end), run.fault_at),
            run,
            window,
            players,
            chairs,
            room: String::new(),
            room_node: 0,
            phase: Phase::Creating,
            phase_since: now,
            ledger: Ledger::default(),
            progress: now,
            joins_again: 0,
            in_game: false,
            room_lost: false,
            outbox: VecDeque::new(),
            tally,
        }
    }

    /// Seat 0 asks for a new room; every seat's view starts afresh.
    fn new_game(&mut self) {
        self.end_game();
        for c in &mut self.chairs {
            c.token = None;
            c.view = 0;
            c.version = 0;
            c.stale = false;
            c.finished = false;
            c.asked = None;
            c.sent = None;
            c.retry = None;
        }
        self.room.clear();
        self.ledger = Ledger::default();
        self.game = Game::new(self.run.config);
        self.set_phase(Phase::Creating);
        self.ask(0, Ask::Create);
    }

    fn set_phase(&mut self, phase: Phase) {
        self.phase = phase;
        self.phase_since = Instant::now();
    }

    /// The game in play (if any) no longer counts as playing.
    fn end_game(&mut self) {
        if self.in_game {
            self.in_game = false;
            self.run.live.playing.fetch_sub(1, Ordering::Relaxed);
        }
    }

    fn start_game(&mut self) {
        self.set_phase(Phase::Playing);
        self.progress = Instant::now();
        self.tally.games_started += 1;
        self.in_game = true;
        self.run.live.playing.fetch_add(1, Ordering::Relaxed);
    }

    /// Queues seat `i`'s request.
    fn ask(&mut self, i: usize, ask: Ask) {
        let msg = match ask {
            Ask::Create => ClientMessage::CreateRoom {
                bots: None,
                name: format!("t{}s0", self.run.ix),
                config: self.run.json.clone(),
            },
            Ask::Join => ClientMessage::JoinRoom {
                seat: None,
                room: self.room.clone(),
                name: format!("t{}s{i}", self.run.ix),
            },
            Ask::Resume => match &self.chairs[i].token {
                Some(token) => ClientMessage::Resume {
                    token: token.clone(),
                },
                None => return,
            },
            Ask::Sync => ClientMessage::Sync,
        };
        let c = &mut self.chairs[i];
        match ask {
            Ask::Sync => c.asked = Some((Instant::now(), SYNC_PATIENCE)),
            Ask::Resume => c.asked = Some((Instant::now(), RESUME_PATIENCE)),
            Ask::Create | Ask::Join => {}
        }
        c.retry = None;
        self.outbox.push_back((i, msg));
    }

    /// Whether seat `i`, its connection lost, can take its place back: not in a waiting room
    /// (which frees a dropped seat at once, and is gone with its node), nor in a game whose
    /// `joined` (and so the seat's token) was lost with the seat's node.
    fn can_come_back(&mut self, i: usize) -> bool {
        if self.phase != Phase::Playing {
            return false;
        }
        if self.chairs[i].token.is_none() {
            self.tally.survival.joined_unheard += 1;
            return false;
        }
        true
    }

    /// Opens seat `i`'s connection again on the next node that answers and resumes its seat
    /// (or asks again for what it was asking); false if no node answers for a long time.
    async fn reopen(&mut self, i: usize, conns: &mut [Ws]) -> bool {
        if !self.can_come_back(i) {
            self.room_lost = true;
            return true;
        }
        self.tally.survival.reconnects += 1;
        if !self.connect_next(i, conns).await {
            return false;
        }
        let c = &mut self.chairs[i];
        c.sent = None;
        c.asked = None;
        c.retry = None;
        self.outbox.retain(|(s, _)| *s != i);
        if self.chairs[i].token.is_some() {
            self.ask(i, Ask::Resume);
        } else {
            match self.phase {
                Phase::Creating if i == 0 => self.ask(0, Ask::Create),
                Phase::Joining(k) if i == k => self.ask(k, Ask::Join),
                _ => {}
            }
        }
        true
    }

    /// Replaces seat `i`'s connection with one to the next node that answers.
    async fn connect_next(&mut self, i: usize, conns: &mut [Ws]) -> bool {
        let nodes = self.run.targets.len().max(1);
        let give_up = Instant::now() + RECONNECT_FOR;
        let n = self.run.ix * self.chairs.len() + i;
        for attempt in 1.. {
            let c = &mut self.chairs[i];
            c.node = (c.node + 1) % nodes;
            let Some(target) = self.run.targets.get(c.node) else {
                return false;
            };
            if let Ok(Ok(ws)) = tokio::time::timeout(RECONNECT_TIMEOUT, connect(target, n)).await {
                conns[i] = ws;
                self.chairs[i].heard = Instant::now();
                return true;
            }
            if Instant::now() >= give_up {
                self.tally.errors.add(
                    "cannot reconnect",
                    format!("no node answered for {} s", RECONNECT_FOR.as_secs()),
                );
                return false;
            }
            if attempt % nodes == 0 {
                tokio::time::sleep(AGAIN).await;
            }
        }
        false
    }

    /// Gives up the room: every seat connects afresh and seat 0 creates a new one.
    async fn restart(&mut self, conns: &mut [Ws]) -> bool {
        self.tally.survival.restarts += 1;
        self.end_game();
        for i in 0..conns.len() {
            let _ = tokio::time::timeout(Duration::from_millis(200), conns[i].close(None)).await;
            // The same node again first: `connect_next` moves on from the one before.
            let nodes = self.run.targets.len().max(1);
            self.chairs[i].node = (self.chairs[i].node + nodes - 1) % nodes;
            if !self.connect_next(i, conns).await {
                return false;
            }
        }
        self.outbox.clear();
        self.new_game();
        true
    }

    fn found(&mut self, f: Finding) -> After {
        match f {
            Finding::Lost(d) => {
                self.tally.survival.lost += 1;
                self.tally
                    .errors
                    .add("lost", format!("room {}: {d}", self.room));
            }
            Finding::Fork(d) => {
                self.tally.survival.forks += 1;
                self.tally
                    .errors
                    .add("fork", format!("room {}: {d}", self.room));
            }
        }
        After::Restart
    }

    fn on_text(&mut self, i: usize, text: &str) -> After {
        self.chairs[i].heard = Instant::now();
        match parse(text) {
            Ok(Incoming::Moved(m)) => self.on_moved(i, &m),
            Ok(Incoming::Other(ServerMessage::Joined { room, seat, token })) => {
                self.on_joined(i, room, usize::from(seat), token)
            }
            Ok(Incoming::Other(ServerMessage::Room(snap))) => self.on_snapshot(i, &snap),
            Ok(Incoming::Other(ServerMessage::MoveRejected { .. })) => {
                // A move sent again after a snapshot that did not show it yet: a fresh view
                // says whose turn it is.
                self.tally.survival.refused += 1;
                self.chairs[i].sent = None;
                self.ask(i, Ask::Sync);
                After::Nothing
            }
            Ok(Incoming::Other(ServerMessage::Error { code, message })) => {
                self.on_error(i, code, message)
            }
            Ok(Incoming::Other(_)) => After::Nothing,
            Err(e) => {
                self.tally.errors.add("garbled message", e);
                After::Restart
            }
        }
    }

    fn on_joined(&mut self, i: usize, room: String, seat: usize, token: String) -> After {
        if seat != i {
            self.tally.errors.add(
                "unexpected joined",
                format!("connection {i} got seat {seat}"),
            );
            return After::Restart;
        }
        match self.phase {
            Phase::Creating if i == 0 => {
                self.room = room;
                self.room_node = self.chairs[0].node;
                self.chairs[0].token = Some(token);
                if self.chairs.len() > 1 {
                    self.set_phase(Phase::Joining(1));
                    self.joins_again = 0;
                    self.ask(1, Ask::Join);
                }
                After::Nothing
            }
            _ if room != self.room => {
                self.tally.errors.add(
                    "unexpected joined",
                    format!("connection {i} joined {room}, not {}", self.room),
                );
                After::Restart
            }
            Phase::Joining(k) if i == k && k + 1 < self.chairs.len() => {
                self.chairs[i].token = Some(token);
                self.set_phase(Phase::Joining(k + 1));
                self.joins_again = 0;
                self.ask(k + 1, Ask::Join);
                After::Nothing
            }
            Phase::Joining(k) if i == k => {
                self.chairs[i].token = Some(token);
                self.start_game();
                After::Nothing
            }
            // A resume's answer, or the last join's once a snapshot showed the game begun.
            _ => {
                self.chairs[i].token = Some(token);
                After::Nothing
            }
        }
    }

    fn on_snapshot(&mut self, i: usize, snap: &Snapshot) -> After {
        if snap.room != self.room {
            return After::Nothing;
        }
        let c = &mut self.chairs[i];
        c.asked = None;
        c.stale = false;
        c.version = snap.version;
        if matches!(self.phase, Phase::Joining(_)) && snap.status != RoomStatus::Waiting {
            self.start_game();
        }
        if self.phase != Phase::Playing {
            return After::Nothing;
        }
        let (added, found) = self.ledger.snapshot(&snap.moves, snap.version);
        if !found.is_empty() {
            for f in found {
                self.found(f);
            }
            return After::Restart;
        }
        let shown: Vec<MoveJson> = self
            .ledger
            .moves()
            .skip(self.ledger.len() - added)
            .collect();
        for mv in shown {
            if let Err(after) = self.first_seen(mv, None, None) {
                return after;
            }
        }
        self.chairs[i].view = snap.moves.len();
        if snap.status == RoomStatus::Finished {
            return self.finished(i);
        }
        if snap.to_move == Some(i as u8) && self.chairs[i].view == self.ledger.len() {
            // A move sent a moment ago may not be in this snapshot yet; one sent before a
            // fault got no answer and is sent again.
            let recent = self.chairs[i]
                .sent
                .is_some_and(|(ix, at)| ix == self.ledger.len() && at.elapsed() < IDLE);
            if !recent {
                return self.move_from(i);
            }
        }
        After::Nothing
    }

    fn on_moved(&mut self, i: usize, m: &Moved) -> After {
        if m.room != self.room || self.phase != Phase::Playing {
            return After::Nothing;
        }
        let mv = MoveJson {
            seat: m.seat.into(),
            row: m.row,
            col: m.col,
        };
        let c = &mut self.chairs[i];
        if c.stale || (c.version != 0 && m.version != c.version + 1) {
            // Something was missed: this move's index is not known until a snapshot says.
            self.ledger.floating(mv, m.version);
            c.version = m.version;
            if !c.stale {
                c.stale = true;
                self.ask(i, Ask::Sync);
            }
            return After::Nothing;
        }
        c.version = m.version;
        let index = c.view;
        match self.ledger.moved(index, mv, m.version) {
            Ok(true) => {
                let sent = self
                    .chairs
                    .get(usize::from(m.seat))
                    .and_then(|c| c.sent)
                    .and_then(|(ix, at)| (ix == index).then_some(at));
                if let Err(after) = self.first_seen(mv, Some(index), sent) {
                    return after;
                }
            }
            Ok(false) => {}
            Err(f) => return self.found(f),
        }
        let c = &mut self.chairs[i];
        c.view += 1;
        if usize::from(m.seat) == i
            && let Some((_, at)) = c.sent.take_if(|(ix, _)| *ix == index)
        {
            let now = Instant::now();
            if self.window.contains(now) {
                self.tally.latencies.record(now - at);
                if c.node == self.room_node {
                    self.tally.owner_node_latencies.record(now - at);
                } else {
                    self.tally.other_node_latencies.record(now - at);
                }
            }
        }
        if m.status == RoomStatus::Finished {
            return self.finished(i);
        }
        if m.to_move == Some(i as u8) && self.chairs[i].view == self.ledger.len() {
            return self.move_from(i);
        }
        After::Nothing
    }

    /// A move new to the room (sent at `sent`, if known): the local game makes it, and it
    /// counts as answered.
    fn first_seen(
        &mut self,
        mv: MoveJson,
        index: Option<usize>,
        sent: Option<Instant>,
    ) -> Result<(), After> {
        if i64::from(self.game.to_move().unwrap_or(u8::MAX)) != mv.seat
            || self.game.select(mv.row, mv.col).is_err()
        {
            self.tally.errors.add(
                "invalid move shown",
                format!("room {}: {mv:?} at {index:?} is not valid here", self.room),
            );
            return Err(After::Restart);
        }
        let now = Instant::now();
        self.stalls.moved(now, sent);
        self.progress = now;
        self.tally.answered += 1;
        self.run.live.answered.fetch_add(1, Ordering::Relaxed);
        if self.window.contains(now) {
            self.tally.in_window += 1;
        }
        Ok(())
    }

    /// Seat `i` saw the game end; once every seat has, the game is over.
    fn finished(&mut self, i: usize) -> After {
        self.chairs[i].finished = true;
        if self.chairs.iter().all(|c| c.finished) {
            self.tally.games_finished += 1;
            self.end_game();
            return After::GameOver;
        }
        After::Nothing
    }

    /// Seat `i` (to move, and seeing every move shown) sends its player's choice.
    fn move_from(&mut self, i: usize) -> After {
        let position = *self.game.position();
        let Some(cell) = self.players[i].choose(&self.run.config, &position) else {
            self.tally
                .errors
                .add("no move", "the local game has no valid move while playing");
            return After::Restart;
        };
        self.chairs[i].sent = Some((self.ledger.len(), Instant::now()));
        self.outbox.push_back((
            i,
            ClientMessage::Move {
                row: cell.row.into(),
                col: cell.col.into(),
            },
        ));
        After::Nothing
    }

    fn on_error(&mut self, i: usize, code: ErrorCode, message: String) -> After {
        let c = &mut self.chairs[i];
        match code {
            ErrorCode::Unavailable => {
                // Nothing was done: ask again (a move: see first whether it is still due).
                let ask = match (self.phase, c.token.is_some()) {
                    (Phase::Creating, false) if i == 0 => Ask::Create,
                    (Phase::Joining(k), false) if i == k => Ask::Join,
                    _ if c.asked.is_some_and(|(_, p)| p == RESUME_PATIENCE) => Ask::Resume,
                    _ => Ask::Sync,
                };
                c.sent = None;
                c.asked = None;
                c.retry = Some((Instant::now() + AGAIN, ask));
                After::Nothing
            }
            ErrorCode::NoSuchRoom
                if self.phase == Phase::Joining(i) && self.joins_again < JOINS_AGAIN =>
            {
                self.joins_again += 1;
                self.tally.joins_again += 1;
                c.retry = Some((Instant::now() + Duration::from_millis(20), Ask::Join));
                After::Nothing
            }
            _ if self.phase != Phase::Playing => After::Restart,
            // The game is over (every move of it shown): a room that closed since, or a seat
            // freed with it, has nothing more to show this seat.
            ErrorCode::BadToken | ErrorCode::NoSuchRoom if self.game.result().is_some() => {
                self.finished(i)
            }
            // The game was one move from its end (every move left eats poison): the move sent
            // as the node died ended it, and the finished room is gone for this seat, so the
            // table starts again in a new room (it cannot ask the gone room for a rematch).
            ErrorCode::BadToken | ErrorCode::NoSuchRoom
                if self
                    .game
                    .position()
                    .safe_selections(&self.run.config)
                    .is_empty() =>
            {
                self.tally.survival.ended_unseen += 1;
                After::Restart
            }
            // A game begun on a node that died before its start reached Redis: the room is
            // gone as a waiting room would be; nothing was played in it.
            ErrorCode::BadToken | ErrorCode::NoSuchRoom if self.ledger.len() == 0 => {
                self.tally.survival.vanished += 1;
                After::Restart
            }
            _ => {
                self.tally.errors.add(
                    format!("error in a game in play: {}", code_name(&code)),
                    format!(
                        "room {}, seat {i}, after {} moves shown: {message}",
                        self.room,
                        self.ledger.len()
                    ),
                );
                After::Restart
            }
        }
    }

    /// Due retries are sent; seats of a room that stopped moving ask `sync` (at most once per
    /// [`IDLE`]); returns the seats that heard nothing back, to reconnect, or `None` when a
    /// room not yet in play is given up.
    fn on_tick(&mut self, now: Instant) -> Option<Vec<usize>> {
        for i in 0..self.chairs.len() {
            if let Some((at, ask)) = self.chairs[i].retry
                && at <= now
            {
                self.ask(i, ask);
            }
        }
        if self.phase != Phase::Playing {
            let stuck = now.saturating_duration_since(self.phase_since) >= SETUP_PATIENCE;
            return (!stuck).then(Vec::new);
        }
        let mut silent = Vec::new();
        if now.saturating_duration_since(self.progress) < IDLE {
            return Some(silent);
        }
        for i in 0..self.chairs.len() {
            let c = &mut self.chairs[i];
            match c.asked {
                Some((at, patience)) if now.saturating_duration_since(at) >= patience => {
                    if c.heard <= at {
                        silent.push(i);
                    } else {
                        c.asked = None;
                    }
                }
                Some(_) => {}
                None if c.retry.is_none() && now.saturating_duration_since(c.synced) >= IDLE => {
                    c.synced = now;
                    self.ask(i, Ask::Sync);
                }
                None => {}
            }
        }
        Some(silent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::board;
    use jchomp_testkit::fixtures::{SnapshotFixture, moved, snapshot};

    fn sent(t: &mut Survivor<'_, '_>) -> Vec<(usize, ClientMessage)> {
        t.outbox.drain(..).collect()
    }

    /// A two-seat table on a 4×4 board (`json`), its fault now, a minute's window, and seat 0
    /// asked to create its first room.
    fn survivor<'a, 't>(
        json: &'a ConfigJson,
        live: &'a Live,
        tally: &'t mut Tally,
    ) -> Survivor<'a, 't> {
        let now = Instant::now();
        let window = Window {
            start: now,
            end: now + Duration::from_secs(60),
        };
        let run = SurviveRun {
            ix: 0,
            config: board("4x4 poison 0,0"),
            json,
            live,
            seed: 1,
            targets: &[],
            nodes: vec![0, 1],
            fault_at: Some(now),
        };
        let mut t = Survivor::new(run, window, tally);
        t.new_game();
        t
    }

    #[test]
    fn a_seat_whose_joined_was_lost_cannot_come_back_and_the_room_is_given_up() {
        let json = ConfigJson::new(&board("4x4 poison 0,0"), None);
        let live = Live::default();
        let mut tally = Tally::default();
        let mut t = survivor(&json, &live, &mut tally);
        assert!(!t.can_come_back(0), "a room still waiting is given up");
        t.on_joined(0, "r".into(), 0, "a".into());
        // Seat 1's join was done, but its `joined` died with its node: seat 0's snapshot
        // shows the game begun.
        let playing = Snapshot {
            status: RoomStatus::Playing,
            to_move: Some(0),
            ..snapshot("r", "4x4 poison 0,0").version(2)
        };
        t.on_snapshot(0, &playing);
        assert_eq!(t.phase, Phase::Playing);
        assert!(t.can_come_back(0));
        assert!(!t.can_come_back(1));
        assert_eq!(t.tally.survival.joined_unheard, 1);
    }

    #[test]
    fn seats_go_on_from_snapshots_and_a_snapshot_lacking_an_acknowledged_move_is_a_loss() {
        let json = ConfigJson::new(&board("4x4 poison 0,0"), None);
        let live = Live::default();
        let mut tally = Tally::default();
        let mut t = survivor(&json, &live, &mut tally);
        assert!(matches!(
            sent(&mut t)[..],
            [(0, ClientMessage::CreateRoom { .. })]
        ));
        assert_eq!(t.on_joined(0, "r".into(), 0, "a".into()), After::Nothing);
        assert!(matches!(
            sent(&mut t)[..],
            [(1, ClientMessage::JoinRoom { .. })]
        ));
        assert_eq!(t.on_joined(1, "r".into(), 1, "b".into()), After::Nothing);
        assert_eq!(t.phase, Phase::Playing);
        // The snapshot of the game begun: seat 0 is to move, and moves.
        let playing = Snapshot {
            status: RoomStatus::Playing,
            to_move: Some(0),
            ..snapshot("r", "4x4 poison 0,0").version(2)
        };
        t.on_snapshot(0, &playing);
        t.on_snapshot(1, &playing);
        let moves = sent(&mut t);
        let [(0, ClientMessage::Move { row, col })] = moves[..] else {
            panic!("{moves:?}")
        };
        // Both seats are shown it; seat 1 moves next.
        let first = moved("r", 3, 0, (row, col));
        assert_eq!(t.on_moved(0, &first), After::Nothing);
        assert_eq!(t.on_moved(1, &first), After::Nothing);
        assert!(matches!(
            sent(&mut t)[..],
            [(1, ClientMessage::Move { .. })]
        ));
        assert_eq!((t.tally.answered, t.ledger.len()), (1, 1));
        assert_eq!(
            t.stalls.recovery.map(|d| d < Duration::from_secs(5)),
            Some(true)
        );
        // A moved skipping a version: seat 0 asks for a snapshot, and ignores what follows.
        assert_eq!(t.on_moved(0, &moved("r", 5, 1, (3, 3))), After::Nothing);
        assert!(matches!(sent(&mut t)[..], [(0, ClientMessage::Sync)]));
        assert_eq!(t.on_moved(0, &moved("r", 6, 0, (2, 3))), After::Nothing);
        assert_eq!(t.ledger.len(), 1);
        // A resumed seat's snapshot lacking the acknowledged first move (and the two moves
        // seat 0 was shown since): three lost.
        let empty = playing.clone().version(7);
        assert_eq!(t.on_snapshot(1, &empty), After::Restart);
        assert_eq!((t.tally.survival.lost, t.tally.survival.forks), (3, 0));
        assert_eq!(t.tally.errors.total(), 3);
    }
}
