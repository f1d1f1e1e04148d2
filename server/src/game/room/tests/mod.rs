//! Unit tests of a room, without sockets: a [`Harness`] builds a room context over a temporary
//! store, [`TestPeer`]s record what the room sends them, and a [`Driven`] room is handled event
//! by event the way its task handles them. Timers run on tokio's paused clock.

mod analysis;
mod bots;
mod durable;
mod requests;
mod timers;

use super::state::Room;
use super::{LeaveOutcome, Refusal, RoomContext, RoomEvent, RoomSettings};
use crate::game::analysis::Subject;
use crate::game::lobby::Lobby;
use crate::game::outbox::{ConnId, Outgoing, Peer, PeerSignal, next_conn_id};
use crate::metrics::Metrics;
use crate::settings::Settings;
use crate::store::{Store, StoreHandle, StoreOptions};
use jchomp_engine::classic::ClassicLibrary;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::{Config, Play, Seat, Variant};
use jchomp_testkit::temp::TempDir;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, mpsc, oneshot, watch};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// Longest a test waits for a message on the (paused) clock.
const WAIT: Duration = Duration::from_secs(600);

/// A room context over a temporary store (and a classic database of a 6×6 box, built when first
/// asked for), and the handles a test needs to look inside.
pub(super) struct Harness {
    pub ctx: RoomContext,
    shutdown: watch::Sender<bool>,
    _done: mpsc::Receiver<()>,
    _dir: TempDir,
}

impl Harness {
    /// A harness with the default settings.
    pub fn new() -> Harness {
        Harness::with(|_| {})
    }

    /// A harness with the default settings changed by `change`.
    pub fn with(change: impl FnOnce(&mut RoomSettings)) -> Harness {
        let mut settings = RoomSettings::from(&Settings::default());
        change(&mut settings);
        let dir = TempDir::new("room");
        let store = Store::open(dir.path()).unwrap();
        let (store, _writer) =
            StoreHandle::start(store, None, None, StoreOptions::default(), |_, _| {});
        let (shutdown, shutdown_rx) = watch::channel(false);
        let (done, done_rx) = mpsc::channel(1);
        let ctx = RoomContext {
            settings,
            lobby: Arc::new(Lobby::default()),
            metrics: Arc::new(Metrics::default()),
            bot_slots: Arc::new(Semaphore::new(2)),
            classic: ClassicLibrary::with_box(None, 6, 6),
            store,
            shutdown: shutdown_rx,
            _done: done,
        };
        Harness {
            ctx,
            shutdown,
            _done: done_rx,
            _dir: dir,
        }
    }

    /// A new connection whose outgoing queue the test reads.
    pub fn peer(&self) -> TestPeer {
        TestPeer::new(64)
    }

    /// A registered room with `creator` ("a") in seat 0, greeted, not running as a task.
    pub fn open(&self, config: &ConfigJson, creator: &TestPeer) -> Driven {
        self.try_open(config, creator).unwrap()
    }

    /// A room of `config` with its host ("a") in seat 0, who has read its greeting.
    pub fn hosted(&self, config: &ConfigJson) -> (Driven, TestPeer) {
        let mut a = self.peer();
        let room = self.open(config, &a);
        a.take("joined");
        a.take("room");
        (room, a)
    }

    /// [`Harness::open`], or why the room was refused.
    pub fn try_open(&self, config: &ConfigJson, creator: &TestPeer) -> Result<Driven, Refusal> {
        let (config, json) = validated(config);
        let peer = creator.peer.clone();
        let (mut room, rx) = super::open(self.ctx.clone(), config, json, peer, "a".into())?;
        room.start();
        Ok(Driven { room, rx })
    }

    /// A registered room with `creator` ("a") in seat 0 whose task runs; returns its id and
    /// channel.
    pub fn create(&self, config: &ConfigJson, creator: &TestPeer) -> (String, Running) {
        let (config, json) = validated(config);
        let (id, tx) = super::create(
            self.ctx.clone(),
            config,
            json,
            creator.peer.clone(),
            "a".into(),
        )
        .unwrap();
        (id, Running { tx })
    }

    /// The value of one metric line (name with labels).
    pub fn metric(&self, name: &str) -> u64 {
        let text = self.ctx.metrics.render(self.ctx.lobby.counts());
        text.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("no metric {name} in\n{text}"))
            .parse()
            .unwrap()
    }

    /// Starts the server's shutdown.
    pub fn shut_down(&self) {
        self.shutdown.send(true).unwrap();
    }
}

/// A configuration and its canonical JSON, as a session validates them.
fn validated(config: &ConfigJson) -> (Config, ConfigJson) {
    let valid = config.validate().unwrap();
    (valid, config.canonical(&valid))
}

/// A board with one poisoned corner and 1×1 bites.
pub(super) fn config(rows: i64, cols: i64, players: i64) -> ConfigJson {
    ConfigJson {
        rows,
        cols,
        players,
        variant: Variant::JChomp,
        eat: Some([1, 1]),
        poison: vec![[0, 0]],
        move_time_ms: None,
        analysis: false,
        rated: false,
        play: Play::Misere,
        no_square_bites: false,
    }
}

/// The same board with a turn timer.
pub(super) fn timed(rows: i64, cols: i64, players: i64, move_time_ms: u64) -> ConfigJson {
    ConfigJson {
        move_time_ms: Some(move_time_ms),
        ..config(rows, cols, players)
    }
}

/// A connection as a room sees it, and the receiving side of its outgoing queue.
pub(super) struct TestPeer {
    pub peer: Peer,
    pub signal: Arc<PeerSignal>,
    rx: mpsc::Receiver<Outgoing>,
}

impl TestPeer {
    /// A peer whose queue holds `capacity` messages.
    pub fn new(capacity: usize) -> TestPeer {
        let (tx, rx) = mpsc::channel(capacity);
        let signal = Arc::new(PeerSignal::default());
        let peer = Peer::new(next_conn_id(), tx, signal.clone());
        TestPeer { peer, signal, rx }
    }

    /// The connection's id.
    pub fn id(&self) -> ConnId {
        self.peer.id
    }

    /// What was queued next, if anything.
    pub fn try_next(&mut self) -> Option<Outgoing> {
        self.rx.try_recv().ok()
    }

    /// The next message already queued, which must be of type `kind`.
    pub fn take(&mut self, kind: &str) -> Value {
        let out = self
            .try_next()
            .unwrap_or_else(|| panic!("nothing queued; expected {kind}"));
        expect_kind(out, kind)
    }

    /// The next message, waiting for it on the paused clock; it must be of type `kind`.
    pub async fn recv(&mut self, kind: &str) -> Value {
        let out = tokio::time::timeout(WAIT, self.rx.recv())
            .await
            .unwrap_or_else(|_| panic!("no {kind} in time"))
            .unwrap_or_else(|| panic!("queue closed; expected {kind}"));
        expect_kind(out, kind)
    }

    /// The `error` queued next, with this code.
    pub fn take_error(&mut self, code: &str) -> Value {
        let e = self.take("error");
        assert_eq!(e["code"], code, "{e}");
        e
    }

    /// The `move_rejected` queued next, with this reason.
    pub fn take_rejected(&mut self, reason: &str) -> Value {
        let r = self.take("move_rejected");
        assert_eq!(r["reason"], reason, "{r}");
        r
    }

    /// The close frame queued next.
    pub fn take_close(&mut self) -> (CloseCode, &'static str) {
        match self.try_next() {
            Some(Outgoing::Close(code, reason)) => (code, reason),
            other => panic!("expected a close, got {other:?}"),
        }
    }

    /// Empties the queue; returns how many messages were in it.
    pub fn drain(&mut self) -> usize {
        std::iter::from_fn(|| self.try_next()).count()
    }

    /// Asserts nothing is queued.
    pub fn assert_silent(&mut self) {
        if let Some(out) = self.try_next() {
            panic!("unexpected {out:?}");
        }
    }
}

/// A queued message as JSON, checked to be of type `kind`.
fn expect_kind(out: Outgoing, kind: &str) -> Value {
    let Outgoing::Text(text) = out else {
        panic!("expected {kind}, got {out:?}");
    };
    let v: Value = serde_json::from_str(text.as_str()).unwrap();
    assert_eq!(v["type"], kind, "{v}");
    v
}

/// A room handled event by event in the test's task, as its own task would.
pub(super) struct Driven {
    pub room: Room,
    /// The room's own channel, on which its bots' moves arrive.
    pub rx: mpsc::Receiver<RoomEvent>,
}

impl Driven {
    /// The room's id.
    pub fn id(&self) -> String {
        self.room.id.clone()
    }

    /// Handles an event as the task does; returns whether the room would close.
    pub async fn handle(&mut self, ev: RoomEvent) -> bool {
        self.room.handle(ev);
        self.room.settle().await
    }

    /// Fires the timers due at the (paused) clock's now; returns whether the room would close.
    pub async fn fire_timers(&mut self) -> bool {
        self.room.on_timers(tokio::time::Instant::now());
        self.room.settle().await
    }

    /// A bot's move, as it arrives on the room's channel.
    pub async fn next_bot_move(&mut self) -> RoomEvent {
        tokio::time::timeout(WAIT, self.rx.recv())
            .await
            .expect("a bot move in time")
            .expect("the room's channel is open")
    }
}

/// The channel of a room whose task runs.
pub(super) struct Running {
    pub tx: mpsc::Sender<RoomEvent>,
}

impl Running {
    /// Waits (on the paused clock) until the room's task has ended.
    pub async fn closed(&self) {
        tokio::time::timeout(WAIT, self.tx.closed())
            .await
            .expect("the room closes");
    }
}

/// Requests to a room, handled in the test's task ([`Driven`]) or sent to the room's own
/// ([`Running`]).
pub(super) trait Requests {
    /// Delivers one event.
    async fn deliver(&mut self, ev: RoomEvent);

    /// A `join` and its answer.
    async fn join(&mut self, peer: &TestPeer, name: &str) -> Result<Seat, Refusal> {
        self.join_seat(peer, name, None).await
    }

    /// A `join` asking for `seat`, and its answer.
    async fn join_seat(
        &mut self,
        peer: &TestPeer,
        name: &str,
        seat: Option<Seat>,
    ) -> Result<Seat, Refusal> {
        let (reply, rx) = oneshot::channel();
        let (peer, name) = (peer.peer.clone(), name.to_string());
        self.deliver(RoomEvent::Join {
            peer,
            name,
            seat,
            reply,
        })
        .await;
        rx.await.unwrap()
    }

    /// A `spectate` and its answer.
    async fn spectate(&mut self, peer: &TestPeer) -> Result<(), Refusal> {
        let (reply, rx) = oneshot::channel();
        let peer = peer.peer.clone();
        self.deliver(RoomEvent::Spectate { peer, reply }).await;
        rx.await.unwrap()
    }

    /// A `resume` and its answer.
    async fn resume(&mut self, peer: &TestPeer, token: &str) -> Result<Seat, Refusal> {
        let (reply, rx) = oneshot::channel();
        let (peer, token) = (peer.peer.clone(), token.to_string());
        self.deliver(RoomEvent::Resume { peer, token, reply }).await;
        rx.await.unwrap()
    }

    /// A move from `peer`.
    async fn play(&mut self, peer: &TestPeer, row: i64, col: i64) {
        let peer = peer.peer.clone();
        self.deliver(RoomEvent::Move { peer, row, col }).await;
    }

    /// A `rematch` from `peer`.
    async fn rematch(&mut self, peer: &TestPeer) {
        let peer = peer.peer.clone();
        self.deliver(RoomEvent::Rematch { peer }).await;
    }

    /// An `add_bot` from `peer`.
    async fn add_bot(&mut self, peer: &TestPeer, spec: Option<&str>) {
        self.add_bot_at(peer, spec, None).await;
    }

    /// An `add_bot` from `peer` asking for `seat`.
    async fn add_bot_at(&mut self, peer: &TestPeer, spec: Option<&str>, seat: Option<Seat>) {
        let (peer, spec) = (peer.peer.clone(), spec.map(str::to_string));
        self.deliver(RoomEvent::AddBot { peer, spec, seat }).await;
    }

    /// An `analyze` of the room at `index` and its answer.
    async fn analyze(&mut self, index: Option<i64>) -> Result<Subject, Refusal> {
        let (reply, rx) = oneshot::channel();
        self.deliver(RoomEvent::Analyze { index, reply }).await;
        rx.await.unwrap()
    }

    /// A `sync` from `peer`.
    async fn sync(&mut self, peer: &TestPeer) {
        let peer = peer.peer.clone();
        self.deliver(RoomEvent::Sync { peer }).await;
    }

    /// A `leave` and its answer.
    async fn leave(&mut self, peer: &TestPeer, keep_active_seat: bool) -> LeaveOutcome {
        let (reply, rx) = oneshot::channel();
        let conn = peer.id();
        let ev = RoomEvent::Leave {
            conn,
            keep_active_seat,
            reply,
        };
        self.deliver(ev).await;
        rx.await.unwrap()
    }

    /// `peer`'s connection drops.
    async fn disconnect(&mut self, peer: &TestPeer) {
        self.deliver(RoomEvent::Disconnected { conn: peer.id() })
            .await;
    }
}

impl Requests for Driven {
    async fn deliver(&mut self, ev: RoomEvent) {
        self.handle(ev).await;
    }
}

impl Requests for Running {
    async fn deliver(&mut self, ev: RoomEvent) {
        self.tx.send(ev).await.unwrap();
    }
}
