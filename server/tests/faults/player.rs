//! A client that behaves as the project's clients do through faults, and keeps the history of
//! what it was shown: a seat plays its turns (after a short think), a spectator watches; a
//! `moved` whose version skips one is not applied but answered with `sync` (as the web and
//! terminal clients do); on a close or a dropped connection it goes to the next node and sends
//! `resume` (or `spectate`) again, and again a second later while that is refused (or answered
//! `unavailable`: the cluster could not say where the seat is); after a move
//! answered `unavailable` it tries again half a second later (as the bot does) with another
//! cell, so that the record tells which attempt was played. Like the project's clients it has no
//! timer of its own on a game that does not move (a node must tell its clients to go
//! elsewhere), unless its [`Clock`] gives it a patience: then, hearing nothing that long while
//! the game is in play, it goes to the next node. It stops once it has seen the game finished,
//! or at its deadline.

use crate::common::Client;
use futures_util::{SinkExt, StreamExt};
use jchomp_protocol::rules::{Cell, Game};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// How long a seat thinks before it moves.
const THINK: Duration = Duration::from_millis(150);
/// How long after an `unavailable` a seat tries again.
const RETRY: Duration = Duration::from_millis(500);
/// How long after a refused `resume` (or `spectate`) the client asks again.
const ASK_AGAIN: Duration = Duration::from_secs(1);
/// Requests (resume, spectate) refused in a row before the client gives up.
const REFUSALS: usize = 8;

/// A move as the protocol shows it: (seat, row, col).
pub type Move = (u64, u64, u64);

/// What the client is in a game.
#[derive(Debug, Clone)]
pub enum Role {
    /// Seat `seat`, which `token` resumes.
    Seat {
        /// The seat.
        seat: u64,
        /// Its secret.
        token: String,
    },
    /// A spectator.
    Spectator,
}

/// One thing the client was shown or told, `at` since the scenario started.
#[derive(Debug, Clone)]
pub enum Seen {
    /// A `moved`, placed as move `index` of the game the client was shown (`None`: its
    /// version skipped one; the client asked `sync` instead of applying it).
    Moved {
        /// When it arrived.
        at: Duration,
        /// Its version.
        version: u64,
        /// Its place in the client's view (the moves shown before it).
        index: Option<usize>,
        /// The move.
        mv: Move,
        /// Its result (null while playing).
        result: Value,
    },
    /// A `room` snapshot.
    Snapshot {
        /// When it arrived.
        at: Duration,
        /// Its version.
        version: u64,
        /// Its moves.
        moves: Vec<Move>,
        /// Its status.
        status: String,
        /// Its result.
        result: Value,
    },
    /// A move of this seat answered `unavailable`: it was `index` of the game.
    Unavailable {
        /// When the answer came.
        at: Duration,
        /// The move's place.
        index: usize,
        /// The move.
        mv: Move,
    },
    /// A move of this seat refused (`move_rejected`).
    Rejected {
        /// When.
        at: Duration,
        /// The reason given (`not_your_turn`, `not_seated`, …).
        reason: String,
    },
    /// The client went to node `node` (its connection was lost or closed).
    Went {
        /// When.
        at: Duration,
        /// The node's index.
        node: usize,
        /// Why.
        why: String,
    },
}

/// A client's whole history of one game.
#[derive(Debug, Clone)]
pub struct History {
    /// Its room.
    pub room: String,
    /// Who the client was.
    pub who: String,
    /// The node it was connected to at first.
    pub node: usize,
    /// What it saw, in order.
    pub seen: Vec<Seen>,
    /// Whether it saw the game finished.
    pub finished: bool,
}

/// A scenario's clock, the same for all its clients.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    /// The scenario's start.
    pub t0: Instant,
    /// When clients give up.
    pub deadline: Instant,
    /// How long a client hears nothing in a game in play before it goes to the next node
    /// (`None`: it waits to be told, as the project's clients do).
    pub patience: Option<Duration>,
}

/// A client's plan: where it starts (an open connection, already joined or watching) and
/// what it plays.
pub struct Plan {
    /// The game's room.
    pub room: String,
    /// Seat or spectator.
    pub role: Role,
    /// The configuration (to choose moves by the rules).
    pub config: Value,
    /// Every node's address.
    pub nodes: Vec<SocketAddr>,
    /// The node of `client`.
    pub node: usize,
    /// The open connection.
    pub client: Client,
    /// The scenario's clock.
    pub clock: Clock,
}

/// The client's state while it runs.
struct Player {
    plan_room: String,
    role: Role,
    config: Value,
    nodes: Vec<SocketAddr>,
    node: usize,
    clock: Clock,
    /// When the client last heard anything.
    heard_at: Instant,
    history: History,
    moves: Vec<Move>,
    version: u64,
    to_move: Option<u64>,
    /// A move sent and not yet answered: its place and cell.
    awaiting: Option<(usize, Move)>,
    /// Cells answered `unavailable`, with their place: not tried again there.
    refused: Vec<(usize, Move)>,
    next_move_at: Instant,
    /// When to send `resume` (or `spectate`) again after a refusal.
    ask_again_at: Option<Instant>,
    refusals: usize,
    /// A `resume` (or `spectate`) sent and not yet answered: an `unavailable` then answers it
    /// ("not now"), not a move.
    rejoining: bool,
}

/// Runs the client to the end of its game (or its deadline); returns its history.
pub async fn run(plan: Plan) -> History {
    let who = match &plan.role {
        Role::Seat { seat, .. } => format!("seat {seat} from node {}", plan.node),
        Role::Spectator => format!("spectator from node {}", plan.node),
    };
    let mut p = Player {
        plan_room: plan.room.clone(),
        role: plan.role,
        config: plan.config,
        nodes: plan.nodes,
        node: plan.node,
        clock: plan.clock,
        heard_at: Instant::now(),
        history: History {
            room: plan.room,
            who,
            node: plan.node,
            seen: Vec::new(),
            finished: false,
        },
        moves: Vec::new(),
        version: 0,
        to_move: None,
        awaiting: None,
        refused: Vec::new(),
        next_move_at: Instant::now(),
        ask_again_at: None,
        refusals: 0,
        rejoining: false,
    };
    let mut client = Some(plan.client);
    while !p.history.finished && Instant::now() < p.clock.deadline && p.refusals < REFUSALS {
        let c = match client.as_mut() {
            Some(c) => c,
            None => {
                client = p.reconnect().await;
                continue;
            }
        };
        if !p.step(c).await {
            client = None;
        }
    }
    p.history
}

impl Player {
    /// Now, since the scenario started.
    fn at(&self) -> Duration {
        self.clock.t0.elapsed()
    }

    /// The seat this client holds, if any.
    fn seat(&self) -> Option<u64> {
        match &self.role {
            Role::Seat { seat, .. } => Some(*seat),
            Role::Spectator => None,
        }
    }

    /// One round: move if it is this seat's turn, ask again if a request was refused, read
    /// what comes for up to 100 ms and answer it. `false`: the connection is lost.
    async fn step(&mut self, c: &mut Client) -> bool {
        let mut out = Vec::new();
        if let Some(mv) = self.due_move() {
            out.push(json!({"type":"move","row":mv.1,"col":mv.2}));
            self.awaiting = Some((self.moves.len(), mv));
        }
        if self.ask_again_at.is_some_and(|t| Instant::now() >= t) {
            self.ask_again_at = None;
            self.rejoining = true;
            out.push(self.request());
        }
        match tokio::time::timeout(Duration::from_millis(100), c.ws.next()).await {
            Err(_) => {}
            Ok(Some(Ok(Message::Text(t)))) => match serde_json::from_str::<Value>(&t) {
                Ok(v) => {
                    self.heard_at = Instant::now();
                    out.extend(self.handle(&v));
                }
                Err(e) => panic!("not JSON from the server: {e}: {t}"),
            },
            Ok(Some(Ok(Message::Close(_)))) | Ok(Some(Err(_))) | Ok(None) => {
                self.went("connection closed");
                return false;
            }
            Ok(Some(Ok(_))) => {}
        }
        let impatient = self
            .clock
            .patience
            .is_some_and(|p| self.heard_at.elapsed() > p);
        if impatient && self.to_move.is_some() {
            self.went("heard nothing");
            return false;
        }
        for v in out {
            if c.ws.send(Message::text(v.to_string())).await.is_err() {
                self.went("connection lost while sending");
                return false;
            }
        }
        true
    }

    /// What the client sends to get (back) into its game: `resume` or `spectate`.
    fn request(&self) -> Value {
        match &self.role {
            Role::Seat { token, .. } => json!({"type":"resume","token":token}),
            Role::Spectator => json!({"type":"spectate","room":self.plan_room}),
        }
    }

    /// The move to send now, if it is this seat's turn, its think time is over and no move of
    /// it is under way.
    fn due_move(&self) -> Option<Move> {
        let seat = self.seat()?;
        if self.to_move != Some(seat) || self.awaiting.is_some() {
            return None;
        }
        if Instant::now() < self.next_move_at {
            return None;
        }
        let mut game = crate::common::local_game(&self.config);
        for (_, r, c) in &self.moves {
            game.select(*r as i64, *c as i64).ok()?;
        }
        if game.to_move() != Some(seat as u8) {
            return None;
        }
        let index = self.moves.len();
        candidates(&game)
            .into_iter()
            .map(|cell| (seat, u64::from(cell.row), u64::from(cell.col)))
            .find(|mv| !self.refused.contains(&(index, *mv)))
    }

    /// Takes in one message; returns what to answer (a `sync` after a gap).
    fn handle(&mut self, v: &Value) -> Option<Value> {
        match v["type"].as_str() {
            Some("room") if v["room"] == self.plan_room.as_str() => self.snapshot(v),
            Some("moved") if v["room"] == self.plan_room.as_str() => return self.moved(v),
            // The cluster could not be asked where the seat is: ask again in a while.
            Some("error") if v["code"] == "unavailable" && self.rejoining => {
                self.rejoining = false;
                self.ask_again_at = Some(Instant::now() + ASK_AGAIN);
            }
            Some("error") if v["code"] == "unavailable" => {
                if let Some((index, mv)) = self.awaiting.take() {
                    self.refused.push((index, mv));
                    let at = self.at();
                    self.history.seen.push(Seen::Unavailable { at, index, mv });
                }
                self.next_move_at = Instant::now() + RETRY;
            }
            Some("error") if v["code"] == "bad_token" || v["code"] == "no_such_room" => {
                self.rejoining = false;
                self.refusals += 1;
                self.awaiting = None;
                self.ask_again_at = Some(Instant::now() + ASK_AGAIN);
            }
            Some("move_rejected") => {
                self.awaiting = None;
                let reason = v["reason"].as_str().unwrap_or_default().to_string();
                let at = self.at();
                self.history.seen.push(Seen::Rejected { at, reason });
            }
            Some("joined") => {
                self.refusals = 0;
                self.rejoining = false;
            }
            _ => {}
        }
        None
    }

    fn snapshot(&mut self, v: &Value) {
        let moves = moves_of(&v["moves"]);
        self.moves = moves.clone();
        self.version = v["version"].as_u64().unwrap_or_default();
        self.to_move = v["to_move"].as_u64();
        self.awaiting = None;
        self.refusals = 0;
        self.rejoining = false;
        self.turn_started();
        let status = v["status"].as_str().unwrap_or_default().to_string();
        self.history.finished = status == "finished";
        self.history.seen.push(Seen::Snapshot {
            at: self.at(),
            version: v["version"].as_u64().unwrap_or_default(),
            moves,
            status,
            result: v["result"].clone(),
        });
    }

    /// Applies a `moved`, or asks `sync` if its version skips one.
    fn moved(&mut self, v: &Value) -> Option<Value> {
        let mv = (
            v["seat"].as_u64().unwrap_or(99),
            v["row"].as_u64().unwrap_or(99),
            v["col"].as_u64().unwrap_or(99),
        );
        let version = v["version"].as_u64().unwrap_or_default();
        let fits = version == self.version + 1;
        self.history.seen.push(Seen::Moved {
            at: self.at(),
            version,
            index: fits.then_some(self.moves.len()),
            mv,
            result: v["result"].clone(),
        });
        if !fits {
            return Some(json!({"type":"sync"}));
        }
        self.version = version;
        self.moves.push(mv);
        self.to_move = v["to_move"].as_u64();
        if self.awaiting.is_some_and(|(_, sent)| sent.0 == mv.0) {
            self.awaiting = None;
        }
        self.history.finished = v["status"] == "finished";
        self.turn_started();
        None
    }

    /// Starts this seat's think time if the turn is its own.
    fn turn_started(&mut self) {
        if self.to_move.is_some() && self.to_move == self.seat() {
            self.next_move_at = Instant::now() + THINK;
        }
    }

    /// Notes that the client leaves its node.
    fn went(&mut self, why: &str) {
        self.node = (self.node + 1) % self.nodes.len();
        let (at, node) = (self.at(), self.node);
        let why = why.to_string();
        self.history.seen.push(Seen::Went { at, node, why });
        self.awaiting = None;
        self.heard_at = Instant::now();
    }

    /// Connects to the current node and sends `resume` (a seat) or `spectate`; `None` (after
    /// a pause, the next node chosen) if it cannot connect.
    async fn reconnect(&mut self) -> Option<Client> {
        let addr = self.nodes[self.node];
        let url = format!("ws://{addr}/ws");
        let connect = tokio_tungstenite::connect_async(url);
        let ws = match tokio::time::timeout(Duration::from_secs(2), connect).await {
            Ok(Ok((ws, _))) => ws,
            _ => {
                self.went("cannot connect");
                tokio::time::sleep(Duration::from_millis(300)).await;
                return None;
            }
        };
        let mut client = Client { ws };
        self.rejoining = true;
        let request = self.request();
        client
            .ws
            .send(Message::text(request.to_string()))
            .await
            .ok()?;
        Some(client)
    }
}

/// The cells a seat tries, best first: the safe selections from the lowest rightmost (long
/// games), then any selection.
fn candidates(game: &Game) -> Vec<Cell> {
    let p = game.position();
    let mut cells: Vec<Cell> = p
        .safe_selections(game.config())
        .iter()
        .map(Cell::from_index)
        .collect();
    cells.reverse();
    cells.extend(p.selections().iter().map(Cell::from_index));
    cells
}

/// The moves of a snapshot or a record.
pub fn moves_of(moves: &Value) -> Vec<Move> {
    moves
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| {
                    (
                        m["seat"].as_u64().unwrap_or(99),
                        m["row"].as_u64().unwrap_or(99),
                        m["col"].as_u64().unwrap_or(99),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}
