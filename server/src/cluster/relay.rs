//! Relaying a room between nodes. On the client's node, a room of another node is a channel
//! like a local room's ([`Cluster::relay`]): its events become requests to the owner, whose
//! answers complete them. On the owner, each remote client is a stand-in [`Peer`] (a proxy)
//! whose queue is forwarded to the client's node, frame by frame in order
//! ([`Cluster::serve`]).

use super::state::CLOSED;
use super::wire::{Envelope, Frame, Leaving, Op, Refused, ReplyBody};
use super::{ANSWER, Cluster, RoomTx, Sent, TAKEOVER_WAIT, lock};
use crate::game::event::{LeaveOutcome, RoomEvent};
use crate::game::lobby::Lobby;
use crate::game::outbox::{ConnId, Outgoing, Peer, PeerSignal, next_conn_id};
use crate::game::refusal::Refusal;
use jchomp_protocol::rules::Seat;
use jchomp_protocol::wire::{ErrorCode, ServerMessage};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Utf8Bytes;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// What a request waits for.
pub(super) enum Waiting {
    /// A seat (join, resume).
    Seat(oneshot::Sender<Result<Seat, Refusal>>),
    /// Done (spectate).
    Done(oneshot::Sender<Result<(), Refusal>>),
    /// A leave's outcome.
    Leave(oneshot::Sender<LeaveOutcome>),
}

/// A request of another node's client for a room this node is restoring, served once it is
/// back.
#[derive(Debug)]
pub(super) struct Deferred {
    from: String,
    conn: u64,
    req: u64,
    op: Op,
}

/// A request waiting for the owner's answer.
pub(super) struct Pending {
    /// Who waits.
    pub reply: Waiting,
    /// When it was sent (for the answer-time metric).
    pub sent: Instant,
    /// The client asking.
    pub conn: ConnId,
    /// The room asked.
    pub room: String,
}

/// What a client of this node is in a room of another node, once the owner said so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// It holds this seat.
    Seat(Seat),
    /// It watches.
    Spectator,
}

/// A client of another node, as this node's rooms see it.
pub(super) struct Proxy {
    /// The stand-in peer.
    pub peer: Peer,
    /// The rooms it has asked something of.
    pub rooms: HashSet<String>,
}

/// Frames queued for a proxy that are sent to its node in one message at most.
const FRAMES: usize = 64;

/// Hands one relayed frame to a local client.
pub(super) fn deliver(peer: &Peer, frame: Frame) {
    match frame {
        Frame::Text(text) => peer.send(&Utf8Bytes::from(text)),
        Frame::Close(code) => peer.close(CloseCode::from(code), "closed by the room's node"),
    }
}

/// Tells a room that a connection is gone.
pub(super) async fn disconnect(lobby: &Lobby, room: &str, conn: ConnId) {
    if let Some(tx) = lobby.room(room) {
        let _ = tx.send(RoomEvent::Disconnected { conn }).await;
    }
}

impl Cluster {
    /// The channel of `room` in the cluster: this node's own (waited for while it is being
    /// restored here), or a relay to the live node that plays it (then `true`); `None` if no
    /// node plays it; the error if Redis cannot be asked.
    pub(crate) async fn room_channel(
        self: &Arc<Self>,
        room: &str,
        queue: usize,
    ) -> Result<Option<(RoomTx, bool)>, redis::RedisError> {
        let Some(owner) = self.owner_of(room).await? else {
            return Ok(None);
        };
        if owner == self.node {
            return Ok(self.own_room(room).await.map(|tx| (tx, false)));
        }
        Ok(Some((self.relay(room.to_string(), owner, queue), true)))
    }

    /// The channel of `room`, owned by `owner` (another node): its events go to the owner as
    /// requests, and a request unanswered within a few seconds fails as if the room had
    /// closed.
    ///
    /// When another node takes the room over (its owner died), the relay re-routes: the
    /// client's seat is taken back on the new owner (or it watches again there), and requests
    /// left unanswered by the dead owner are sent again.
    pub(crate) fn relay(self: &Arc<Self>, room: String, owner: String, queue: usize) -> RoomTx {
        let (tx, mut rx) = mpsc::channel::<RoomEvent>(queue.max(1));
        let cluster = self.clone();
        let mut route = self.route(&room, owner);
        tokio::spawn(async move {
            let mut owner = route.borrow_and_update().clone();
            let mut watching = true;
            // The client, once seen, and its requests still waiting for an answer.
            let mut client: Option<ConnId> = None;
            let mut unanswered: Vec<(u64, ConnId, Op)> = Vec::new();
            loop {
                tokio::select! {
                    ev = rx.recv() => {
                        let Some(ev) = ev else { break };
                        let Some((conn, op, reply)) = cluster.request(ev) else {
                            continue;
                        };
                        client = Some(conn);
                        let req = match reply {
                            Some(reply) => cluster.wait_for(reply, conn, &room, &owner),
                            None => 0,
                        };
                        if req != 0 {
                            unanswered.retain(|(r, _, _)| lock(&cluster.pending).contains_key(r));
                            unanswered.push((req, conn, op.clone()));
                        }
                        let unanswerable = req == 0 && op.tells_client();
                        match cluster.ask(&owner, conn, &room, req, op).await {
                            Sent::No if unanswerable => cluster.unreachable(conn),
                            // It may yet be done: the client is shown the room as it is once
                            // the owner can be asked, rather than told that nothing was done.
                            Sent::Unknown if unanswerable => {
                                cluster.clone().resync_later(owner.clone(), conn, room.clone());
                            }
                            _ => {}
                        }
                    }
                    changed = route.changed(), if watching => {
                        if changed.is_err() {
                            watching = false;
                            continue;
                        }
                        // A new owner, or the same one that restored the room after its lease
                        // lapsed: either way the client's place is asked back there.
                        let new = route.borrow_and_update().clone();
                        if new == CLOSED {
                            cluster.relay_closed(&room, client, &unanswered);
                            break;
                        }
                        tracing::info!(room = %room, from = %owner, to = %new, "a relayed room has a new owner");
                        owner = new;
                        let Some(conn) = client else { continue };
                        let role = lock(&cluster.roles)
                            .get(&conn)
                            .filter(|(r, _)| *r == room)
                            .map(|(_, role)| *role);
                        match role {
                            Some(Role::Seat(seat)) => {
                                cluster.ask(&owner, conn, &room, 0, Op::Reattach { seat }).await;
                            }
                            Some(Role::Spectator) => {
                                cluster.ask(&owner, conn, &room, 0, Op::Spectate).await;
                            }
                            None => {}
                        }
                        unanswered.retain(|(r, _, _)| lock(&cluster.pending).contains_key(r));
                        for (req, conn, op) in &unanswered {
                            cluster.ask(&owner, *conn, &room, *req, op.clone()).await;
                        }
                    }
                }
            }
        });
        tx
    }

    /// The relay of `room` learnt that the room closed on a node that died (a waiting room or
    /// a finished game, which no node takes over): its requests waiting for an answer fail as
    /// for a room that closed (`no_such_room`), or, with none waiting, a client still in the
    /// room is told so; its place in the room is forgotten.
    fn relay_closed(&self, room: &str, client: Option<ConnId>, unanswered: &[(u64, ConnId, Op)]) {
        tracing::info!(room = %room, "a relayed room closed with its node");
        let mut failed = false;
        {
            let mut pending = lock(&self.pending);
            for (req, _, _) in unanswered {
                // Dropping the sender tells the client the room is gone.
                failed |= pending.remove(req).is_some();
            }
        }
        let Some(conn) = client else { return };
        {
            let mut roles = lock(&self.roles);
            if roles.get(&conn).is_none_or(|(r, _)| r != room) {
                return;
            }
            roles.remove(&conn);
        }
        if failed {
            return;
        }
        if let Some(peer) = lock(&self.local).get(&conn) {
            peer.send_msg(&ServerMessage::Error {
                code: ErrorCode::NoSuchRoom,
                message: format!("room {room} has closed: the node that played it stopped"),
            });
        }
    }

    /// Registers a request waiting for an answer from `owner`; returns its id. Unanswered
    /// within a few seconds (or, if `owner` died meanwhile, once another node had the time to
    /// take the room over), the request fails as if the room had closed.
    pub(super) fn wait_for(
        self: &Arc<Self>,
        reply: Waiting,
        conn: ConnId,
        room: &str,
        owner: &str,
    ) -> u64 {
        let req = self.next_req();
        let pending = Pending {
            reply,
            sent: Instant::now(),
            conn,
            room: room.to_string(),
        };
        lock(&self.pending).insert(req, pending);
        let waiting = self.clone();
        let owner = owner.to_string();
        tokio::spawn(async move {
            tokio::time::sleep(ANSWER).await;
            if lock(&waiting.pending).contains_key(&req)
                && !waiting.alive(std::slice::from_ref(&owner)).await[0]
            {
                tokio::time::sleep(TAKEOVER_WAIT).await;
            }
            // Dropping the sender tells the client the room is gone.
            lock(&waiting.pending).remove(&req);
        });
        req
    }

    /// Sends a client's request to a room's owner: whether Redis took it.
    async fn ask(&self, owner: &str, conn: ConnId, room: &str, req: u64, op: Op) -> Sent {
        let envelope = Envelope::Request {
            from: self.node.clone(),
            conn,
            room: room.to_string(),
            req,
            op,
        };
        self.send(owner, &envelope).await
    }

    /// After a request of `conn` that Redis may or may not have passed on to `owner`: asks the
    /// owner, until Redis takes the question, to send the client the room as it is, so that the
    /// client learns whether its request was done. If Redis takes nothing for [`ANSWER`], the
    /// client is told to reconnect and resume, which shows it the room as it is then.
    fn resync_later(self: Arc<Self>, owner: String, conn: ConnId, room: String) {
        tokio::spawn(async move {
            let started = Instant::now();
            while started.elapsed() < ANSWER {
                if self.ask(&owner, conn, &room, 0, Op::Sync).await == Sent::Yes {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            let peer = lock(&self.local).get(&conn).cloned();
            if let Some(peer) = peer {
                peer.close(
                    CloseCode::Restart,
                    "the room's server cannot be reached; reconnect and resume",
                );
            }
        });
    }

    /// Tells a client of this node that its message for a room of another node could not be
    /// sent there (Redis is away): nothing was done, and it may send it again.
    fn unreachable(&self, conn: ConnId) {
        if let Some(peer) = lock(&self.local).get(&conn) {
            peer.send_msg(&ServerMessage::Error {
                code: ErrorCode::Unavailable,
                message: "the room is played on another node of the cluster, which cannot be reached now; nothing was done: send it again".into(),
            });
        }
    }

    /// The owner of `room` as relays see it: a watch shared by every relay to the room.
    fn route(&self, room: &str, owner: String) -> watch::Receiver<String> {
        let mut routes = lock(&self.routes);
        routes.retain(|_, tx| tx.receiver_count() > 0);
        let tx = routes
            .entry(room.to_string())
            .or_insert_with(|| watch::channel(owner.clone()).0);
        tx.send_if_modified(|o| {
            let changed = *o != owner;
            *o = owner;
            changed
        });
        tx.subscribe()
    }

    /// `room` has a new owner: its relays re-route. With `restored`, the room was just
    /// restored there (taken over, or brought back by its own node after a lapse): the relays
    /// ask their seats back even if the owner is the one they knew.
    pub(super) fn rerouted(&self, room: &str, owner: &str, restored: bool) {
        if let Some(tx) = lock(&self.routes).get(room) {
            tx.send_if_modified(|o| {
                let changed = o != owner;
                if changed {
                    *o = owner.to_string();
                }
                changed || restored
            });
        }
    }

    /// Relays to a dead owner learn the room's new owner from the directory, or that it
    /// closed (in case this node missed the notice).
    pub(super) async fn reroute_dead_owners(&self) {
        let routes: Vec<(String, String)> = lock(&self.routes)
            .iter()
            .map(|(room, tx)| (room.clone(), tx.borrow().clone()))
            .collect();
        let mut owners: Vec<String> = routes.iter().map(|(_, o)| o.clone()).collect();
        owners.sort();
        owners.dedup();
        let alive = self.alive(&owners).await;
        for (room, owner) in routes {
            let dead = owners
                .iter()
                .position(|o| *o == owner)
                .is_some_and(|i| !alive.get(i).copied().unwrap_or(true));
            if dead && let Some(new) = self.route_now(&room).await {
                self.rerouted(&room, &new, false);
            }
        }
    }

    /// A room event as a request: the connection, the operation and what waits for the
    /// answer. The client's peer is registered so that the room's frames reach it.
    fn request(&self, ev: RoomEvent) -> Option<(ConnId, Op, Option<Waiting>)> {
        let register = |peer: &Peer| {
            lock(&self.local).insert(peer.id, peer.clone());
            peer.id
        };
        Some(match ev {
            RoomEvent::Join {
                peer,
                name,
                seat,
                reply,
            } => (
                register(&peer),
                Op::Join { name, seat },
                Some(Waiting::Seat(reply)),
            ),
            RoomEvent::Spectate { peer, reply } => {
                (register(&peer), Op::Spectate, Some(Waiting::Done(reply)))
            }
            RoomEvent::Resume { peer, token, reply } => (
                register(&peer),
                Op::Resume { token },
                Some(Waiting::Seat(reply)),
            ),
            RoomEvent::Move { peer, row, col } => (register(&peer), Op::Move { row, col }, None),
            RoomEvent::AddBot { peer, spec, seat } => {
                (register(&peer), Op::AddBot { spec, seat }, None)
            }
            RoomEvent::Sync { peer } => (register(&peer), Op::Sync, None),
            RoomEvent::Rematch { peer } => (register(&peer), Op::Rematch, None),
            RoomEvent::Leave {
                conn,
                keep_active_seat,
                reply,
            } => (
                conn,
                Op::Leave { keep_active_seat },
                Some(Waiting::Leave(reply)),
            ),
            RoomEvent::Disconnected { conn } => {
                lock(&self.local).remove(&conn);
                lock(&self.roles).remove(&conn);
                (conn, Op::Disconnected, None)
            }
            RoomEvent::Analyze { reply, .. } => {
                let _ = reply.send(Err(Refusal::new(
                    ErrorCode::AnalysisUnavailable,
                    "this room is played on another node of the cluster, which does not analyse it for this one",
                )));
                return None;
            }
            RoomEvent::BotMoved { .. } | RoomEvent::Reattach { .. } | RoomEvent::Lost => {
                return None;
            }
        })
    }

    /// Serves, in order, the requests deferred while `room` was being restored here, then
    /// serves the room's requests as they come.
    pub(super) async fn adopted(self: &Arc<Self>, room: &str) {
        loop {
            let deferred = {
                let mut adopting = lock(&self.adopting);
                match adopting.get_mut(room).map(std::mem::take) {
                    Some(d) if !d.is_empty() => d,
                    _ => {
                        adopting.remove(room);
                        return;
                    }
                }
            };
            for d in deferred {
                self.clone()
                    .serve_now(d.from, d.conn, room.to_string(), d.req, d.op)
                    .await;
            }
        }
    }

    /// The owner's side: hands a remote client's request to the room, through the client's
    /// proxy, and answers the client's node.
    pub(super) async fn serve(
        self: Arc<Self>,
        from: String,
        conn: u64,
        room: String,
        req: u64,
        op: Op,
    ) {
        if op == Op::Disconnected {
            let gone = lock(&self.proxies).remove(&(from.clone(), conn));
            if let Some(proxy) = gone {
                for r in proxy.rooms {
                    disconnect(&self.lobby, &r, proxy.peer.id).await;
                }
            }
            return;
        }
        if let Some(waiting) = lock(&self.adopting).get_mut(&room) {
            waiting.push(Deferred {
                from,
                conn,
                req,
                op,
            });
            return;
        }
        self.serve_now(from, conn, room, req, op).await;
    }

    /// [`Cluster::serve`] for a room that is not being restored here.
    async fn serve_now(self: Arc<Self>, from: String, conn: u64, room: String, req: u64, op: Op) {
        let Some(tx) = self.lobby.room(&room) else {
            let gone = Refusal::new(ErrorCode::NoSuchRoom, format!("room {room} has closed"));
            let body = match op {
                Op::Join { .. } | Op::Resume { .. } => Some(ReplyBody::Seat(Err(gone.into()))),
                Op::Spectate => Some(ReplyBody::Done(Err(gone.into()))),
                Op::Leave { .. } => Some(ReplyBody::Leave(Leaving::Left)),
                _ => None,
            };
            if let Some(body) = body {
                self.send(&from, &Envelope::Reply { req, body }).await;
            }
            return;
        };
        let peer = self.proxy(&from, conn, &room);
        let (ev, answer) = match op {
            Op::Join { name, seat } => {
                let (reply, rx) = oneshot::channel();
                let answer = Box::pin(async move {
                    rx.await
                        .ok()
                        .map(|r: Result<Seat, Refusal>| ReplyBody::Seat(r.map_err(Refused::from)))
                });
                (
                    RoomEvent::Join {
                        peer,
                        name,
                        seat,
                        reply,
                    },
                    Some(answer_of(answer)),
                )
            }
            Op::Resume { token } => {
                let (reply, rx) = oneshot::channel();
                let answer = Box::pin(async move {
                    rx.await
                        .ok()
                        .map(|r: Result<Seat, Refusal>| ReplyBody::Seat(r.map_err(Refused::from)))
                });
                (
                    RoomEvent::Resume { peer, token, reply },
                    Some(answer_of(answer)),
                )
            }
            Op::Spectate => {
                let (reply, rx) = oneshot::channel();
                let answer = Box::pin(async move {
                    rx.await
                        .ok()
                        .map(|r: Result<(), Refusal>| ReplyBody::Done(r.map_err(Refused::from)))
                });
                (RoomEvent::Spectate { peer, reply }, Some(answer_of(answer)))
            }
            Op::Leave { keep_active_seat } => {
                let (reply, rx) = oneshot::channel();
                let answer = Box::pin(async move {
                    rx.await
                        .ok()
                        .map(|o: LeaveOutcome| ReplyBody::Leave(o.into()))
                });
                let ev = RoomEvent::Leave {
                    conn: peer.id,
                    keep_active_seat,
                    reply,
                };
                (ev, Some(answer_of(answer)))
            }
            Op::Move { row, col } => (RoomEvent::Move { peer, row, col }, None),
            Op::AddBot { spec, seat } => (RoomEvent::AddBot { peer, spec, seat }, None),
            Op::Sync => (RoomEvent::Sync { peer }, None),
            Op::Rematch => (RoomEvent::Rematch { peer }, None),
            Op::Reattach { seat } => (RoomEvent::Reattach { peer, seat }, None),
            // Handled above.
            Op::Disconnected => return,
        };
        if tx.send(ev).await.is_err() {
            return;
        }
        if let Some(answer) = answer {
            tokio::spawn(async move {
                if let Some(body) = answer.await {
                    if body == ReplyBody::Leave(Leaving::Left) {
                        self.left(&from, conn, &room);
                    }
                    self.send(&from, &Envelope::Reply { req, body }).await;
                }
            });
        }
    }

    /// A remote client left a room: its proxy forgets the room, and goes with its last one.
    fn left(&self, node: &str, conn: u64, room: &str) {
        let mut proxies = lock(&self.proxies);
        let key = (node.to_string(), conn);
        if let Some(proxy) = proxies.get_mut(&key) {
            proxy.rooms.remove(room);
            if proxy.rooms.is_empty() {
                proxies.remove(&key);
            }
        }
    }

    /// A client of this node is gone: the room frames relayed for it have nowhere to go.
    /// The nodes running tournaments it asked something of are told.
    pub(crate) async fn forget(&self, conn: ConnId) {
        lock(&self.local).remove(&conn);
        lock(&self.roles).remove(&conn);
        let nodes = lock(&self.entered).remove(&conn).unwrap_or_default();
        for node in nodes {
            self.tournament_left(&node, conn).await;
        }
    }

    /// The proxy of a remote client (made on its first request), noting the room.
    fn proxy(self: &Arc<Self>, node: &str, conn: u64, room: &str) -> Peer {
        let mut proxies = lock(&self.proxies);
        let proxy = proxies
            .entry((node.to_string(), conn))
            .or_insert_with(|| Proxy {
                peer: self.forwarder(node.to_string(), conn, false).0,
                rooms: HashSet::new(),
            });
        proxy.rooms.insert(room.to_string());
        proxy.peer.clone()
    }

    /// A peer whose queue is forwarded, in order, to connection `conn` of `node` (frames of a
    /// `tournament`, or of rooms), with the handle that stops it (then the peer is gone).
    pub(super) fn forwarder(
        self: &Arc<Self>,
        node: String,
        conn: u64,
        tournament: bool,
    ) -> (Peer, tokio::task::AbortHandle) {
        let (tx, mut rx) = mpsc::channel::<Outgoing>(self.outgoing_queue);
        let peer = Peer::new(next_conn_id(), tx, Arc::new(PeerSignal::default()));
        let cluster = self.clone();
        let task = tokio::spawn(async move {
            let mut frames = Vec::new();
            while let Some(first) = rx.recv().await {
                if !cluster.serving() {
                    // This node's rooms stopped at a lapse: what they say as they stop (a
                    // close) is not theirs to tell a client that keeps its place elsewhere.
                    continue;
                }
                frames.push(first);
                while frames.len() < FRAMES {
                    match rx.try_recv() {
                        Ok(o) => frames.push(o),
                        Err(_) => break,
                    }
                }
                let out = frames
                    .drain(..)
                    .filter_map(|o| match o {
                        Outgoing::Text(t) => Some(Frame::Text(t.as_str().to_string())),
                        Outgoing::Close(code, _) => Some(Frame::Close(code.into())),
                        Outgoing::Binary(_) => None,
                    })
                    .collect();
                cluster
                    .send(
                        &node,
                        &Envelope::Out {
                            from: cluster.node.clone(),
                            conn,
                            frames: out,
                            tournament,
                        },
                    )
                    .await;
            }
        });
        (peer, task.abort_handle())
    }
}

/// A boxed answer future.
type Answer = std::pin::Pin<Box<dyn std::future::Future<Output = Option<ReplyBody>> + Send>>;

fn answer_of(f: Answer) -> Answer {
    f
}
