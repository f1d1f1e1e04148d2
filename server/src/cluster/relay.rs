//! Relaying a room between nodes. On the client's node, a room of another node is a channel
//! like a local room's ([`Cluster::relay`]): its events become requests to the owner, whose
//! answers complete them. On the owner, each remote client is a stand-in [`Peer`] (a proxy)
//! whose queue is forwarded to the client's node, frame by frame in order
//! ([`Cluster::serve`]).

use super::wire::{Envelope, Frame, Op, ReplyBody};
use super::{ANSWER, Cluster, RoomTx, lock};
use crate::lobby::Lobby;
use crate::outbox::{ConnId, Outgoing, Peer, PeerSignal, next_conn_id};
use crate::room::{LeaveOutcome, Refusal, RoomEvent};
use jchomp_protocol::rules::Seat;
use jchomp_protocol::wire::ErrorCode;
use std::collections::HashSet;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};
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

/// A request waiting for the owner's answer.
pub(super) struct Pending {
    /// Who waits.
    pub reply: Waiting,
    /// When it was sent (for the answer-time metric).
    pub sent: Instant,
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
    /// The channel of `room`, owned by `owner` (another node): its events go to the owner as
    /// requests, and a request unanswered within a few seconds fails as if the room had
    /// closed.
    pub(crate) fn relay(self: &Arc<Self>, room: String, owner: String, queue: usize) -> RoomTx {
        let (tx, mut rx) = mpsc::channel::<RoomEvent>(queue.max(1));
        let cluster = self.clone();
        tokio::spawn(async move {
            while let Some(ev) = rx.recv().await {
                let Some((conn, op, reply)) = cluster.request(ev) else {
                    continue;
                };
                let req = match reply {
                    Some(reply) => {
                        let req = cluster.next_req();
                        let pending = Pending {
                            reply,
                            sent: Instant::now(),
                        };
                        lock(&cluster.pending).insert(req, pending);
                        let waiting = cluster.clone();
                        tokio::spawn(async move {
                            tokio::time::sleep(ANSWER).await;
                            // Dropping the sender tells the client the room is gone.
                            lock(&waiting.pending).remove(&req);
                        });
                        req
                    }
                    None => 0,
                };
                let envelope = Envelope::Request {
                    from: cluster.node.clone(),
                    conn,
                    room: room.clone(),
                    req,
                    op,
                };
                cluster.send(&owner, &envelope).await;
            }
        });
        tx
    }

    /// A room event as a request: the connection, the operation and what waits for the
    /// answer. The client's peer is registered so that the room's frames reach it.
    fn request(&self, ev: RoomEvent) -> Option<(ConnId, Op, Option<Waiting>)> {
        let register = |peer: &Peer| {
            lock(&self.local).insert(peer.id, peer.clone());
            peer.id
        };
        Some(match ev {
            RoomEvent::Join { peer, name, reply } => (
                register(&peer),
                Op::Join { name },
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
            RoomEvent::AddBot { peer, spec } => (register(&peer), Op::AddBot { spec }, None),
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
                (conn, Op::Disconnected, None)
            }
            RoomEvent::Analyze { reply, .. } => {
                let _ = reply.send(Err(Refusal::new(
                    ErrorCode::AnalysisUnavailable,
                    "this room is played on another node of the cluster, which does not analyse it for this one",
                )));
                return None;
            }
            RoomEvent::BotMoved { .. } => return None,
        })
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
        let Some(tx) = self.lobby.room(&room) else {
            let gone = Refusal::new(ErrorCode::NoSuchRoom, format!("room {room} has closed"));
            let body = match op {
                Op::Join { .. } | Op::Resume { .. } => Some(ReplyBody::Seat(Err(gone))),
                Op::Spectate => Some(ReplyBody::Done(Err(gone))),
                Op::Leave { .. } => Some(ReplyBody::Leave(LeaveOutcome::Left)),
                _ => None,
            };
            if let Some(body) = body {
                self.send(&from, &Envelope::Reply { req, body }).await;
            }
            return;
        };
        let peer = self.proxy(&from, conn, &room);
        let (ev, answer) = match op {
            Op::Join { name } => {
                let (reply, rx) = oneshot::channel();
                let answer = Box::pin(async move { rx.await.ok().map(ReplyBody::Seat) });
                (
                    RoomEvent::Join { peer, name, reply },
                    Some(answer_of(answer)),
                )
            }
            Op::Resume { token } => {
                let (reply, rx) = oneshot::channel();
                let answer = Box::pin(async move { rx.await.ok().map(ReplyBody::Seat) });
                (
                    RoomEvent::Resume { peer, token, reply },
                    Some(answer_of(answer)),
                )
            }
            Op::Spectate => {
                let (reply, rx) = oneshot::channel();
                let answer = Box::pin(async move { rx.await.ok().map(ReplyBody::Done) });
                (RoomEvent::Spectate { peer, reply }, Some(answer_of(answer)))
            }
            Op::Leave { keep_active_seat } => {
                let (reply, rx) = oneshot::channel();
                let answer = Box::pin(async move { rx.await.ok().map(ReplyBody::Leave) });
                let ev = RoomEvent::Leave {
                    conn: peer.id,
                    keep_active_seat,
                    reply,
                };
                (ev, Some(answer_of(answer)))
            }
            Op::Move { row, col } => (RoomEvent::Move { peer, row, col }, None),
            Op::AddBot { spec } => (RoomEvent::AddBot { peer, spec }, None),
            Op::Sync => (RoomEvent::Sync { peer }, None),
            Op::Rematch => (RoomEvent::Rematch { peer }, None),
            // Handled above.
            Op::Disconnected => return,
        };
        if tx.send(ev).await.is_err() {
            return;
        }
        if let Some(answer) = answer {
            tokio::spawn(async move {
                if let Some(body) = answer.await {
                    if body == ReplyBody::Leave(LeaveOutcome::Left) {
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
    pub(crate) fn forget(&self, conn: ConnId) {
        lock(&self.local).remove(&conn);
    }

    /// The proxy of a remote client (made on its first request), noting the room.
    fn proxy(self: &Arc<Self>, node: &str, conn: u64, room: &str) -> Peer {
        let mut proxies = lock(&self.proxies);
        let proxy = proxies
            .entry((node.to_string(), conn))
            .or_insert_with(|| Proxy {
                peer: self.forwarder(node.to_string(), conn),
                rooms: HashSet::new(),
            });
        proxy.rooms.insert(room.to_string());
        proxy.peer.clone()
    }

    /// A peer whose queue is forwarded, in order, to connection `conn` of `node`.
    fn forwarder(self: &Arc<Self>, node: String, conn: u64) -> Peer {
        let (tx, mut rx) =
            mpsc::channel::<Outgoing>(crate::settings::Settings::default().outgoing_queue);
        let peer = Peer::new(next_conn_id(), tx, Arc::new(PeerSignal::default()));
        let cluster = self.clone();
        tokio::spawn(async move {
            let mut frames = Vec::new();
            while let Some(first) = rx.recv().await {
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
                    .send(&node, &Envelope::Out { conn, frames: out })
                    .await;
            }
        });
        peer
    }
}

/// A boxed answer future.
type Answer = std::pin::Pin<Box<dyn std::future::Future<Output = Option<ReplyBody>> + Send>>;

fn answer_of(f: Answer) -> Answer {
    f
}
