//! One TCP connection: its HTTP requests (`http.rs`), then, once one upgrades, the WebSocket
//! loop — one task per connection — that rate-limits and hands frames to the [`Session`], has
//! its [`Link`] write what rooms queue, pings, times out idle and stalled clients, and closes.

use crate::game::outbox::{ConnId, Outgoing, Peer, PeerSignal, next_conn_id};
use crate::net::http;
use crate::net::link::{Event, Link};
use crate::net::rate::TokenBucket;
use crate::net::session::Session;
use crate::net::shared::Shared;
use jchomp_protocol::wire::{ErrorCode, ServerMessage};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::time::{Instant, timeout};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// Time a closing connection has to finish the close handshake.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// Serves one accepted TCP connection: its HTTP requests, then, if one upgrades, the
/// WebSocket. The connection holds one slot of the connection cap for its whole life.
pub(crate) async fn serve_tcp(mut stream: TcpStream, addr: SocketAddr, ctx: Arc<Shared>) {
    let Ok(_permit) = ctx.conn_slots.clone().try_acquire_owned() else {
        ctx.metrics.connections_refused.inc();
        tracing::warn!(%addr, "connection refused: connection limit reached");
        http::refuse_busy(&mut stream).await;
        return;
    };
    let Ok(_address_slot) = ctx.address_caps.admit(addr.ip()) else {
        ctx.metrics.connections_refused_address.inc();
        tracing::warn!(%addr, "connection refused: per-address connection limit reached");
        let body = format!(
            "this address holds its limit of {} connections\n",
            ctx.settings.max_connections_per_address
        );
        http::refuse(&mut stream, "429 Too Many Requests", &body).await;
        return;
    };
    let _ = stream.set_nodelay(true);
    let Some(up) = http::serve(stream, addr, &ctx).await else {
        return;
    };
    let ws = WebSocketStream::from_partially_read(
        up.stream,
        up.read_ahead,
        Role::Server,
        Some(ctx.ws_config),
    )
    .await;
    serve_ws(ws, addr, ctx, up.echo).await;
}

/// How a WebSocket connection ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// The client closed or the socket failed.
    Closed,
    /// Dropped at once: a full queue, a stalled or failed write.
    Dropped,
    /// The server shuts down.
    Shutdown,
    /// Nothing arrived for the idle timeout.
    Idle,
    /// Too many messages.
    RateLimited,
    /// A message or frame over the size limit.
    TooBig,
    /// The client broke the WebSocket protocol.
    Protocol,
}

/// One WebSocket connection's state besides its socket: who it is, its session of requests,
/// its rate limit and when it was last heard from.
struct Conn {
    id: ConnId,
    addr: SocketAddr,
    started: Instant,
    ctx: Arc<Shared>,
    peer: Peer,
    signal: Arc<PeerSignal>,
    session: Session,
    bucket: TokenBucket,
    last_seen: Instant,
    /// The test-only echo path: messages are sent back instead of played.
    echo: bool,
}

/// Serves one WebSocket connection until it ends. With `echo` (the test-only echo path) text
/// and binary messages are sent back as they came instead of being played; everything else —
/// limits, rate limit, queue, pings, closing — is the same.
async fn serve_ws(ws: WebSocketStream<TcpStream>, addr: SocketAddr, ctx: Arc<Shared>, echo: bool) {
    let (tx, rx) = mpsc::channel(ctx.settings.outgoing_queue.max(1));
    let mut link = Link::new(ws, rx);
    let mut conn = Conn::open(addr, ctx, tx, echo);
    let end = conn.serve(&mut link).await;
    conn.close(end, link).await;
}

impl Conn {
    /// A new connection's state, counted and logged.
    fn open(addr: SocketAddr, ctx: Arc<Shared>, tx: mpsc::Sender<Outgoing>, echo: bool) -> Conn {
        let id = next_conn_id();
        ctx.metrics.connections_open.inc();
        ctx.metrics.connections_total.inc();
        tracing::info!(conn = id, %addr, "connection opened");
        let signal = Arc::new(PeerSignal::default());
        let peer = Peer::new(id, tx, signal.clone());
        let s = &ctx.settings;
        let bucket = TokenBucket::new(
            s.rate_limit_per_sec,
            s.rate_limit_burst,
            std::time::Instant::now(),
        );
        Conn {
            id,
            addr,
            started: Instant::now(),
            session: Session::new(peer.clone(), ctx.clone(), addr.ip()),
            ctx,
            peer,
            signal,
            bucket,
            last_seen: Instant::now(),
            echo,
        }
    }

    /// Reads frames and plays them, pings, and watches the timers until the connection ends.
    async fn serve(&mut self, link: &mut Link) -> End {
        let ctx = self.ctx.clone();
        let s = &ctx.settings;
        let mut shutdown = ctx.shutdown.clone();
        // The kick and shutdown waiters and the timers live as long as the loop: registering a
        // waiter or a timer afresh for every frame cost more than reading the frame. One timer
        // serves both the ping and the idle timeout: it wakes at whichever is due first, and is
        // moved forward only when it fires early (something arrived since it was set). The
        // stall timer is armed only while a write waits on the client.
        let signal = self.signal.clone();
        let kick = signal.kicked();
        let stop = crate::shutdown::shutting_down(&mut shutdown);
        let ping_every = s.ping_interval.max(Duration::from_millis(10));
        let mut next_ping = crate::clock::after(ping_every);
        let chores =
            tokio::time::sleep_until(next_ping.min(idle_deadline(self.last_seen, s.idle_timeout)));
        let stall = tokio::time::sleep(Duration::ZERO);
        let mut stall_armed = false;
        tokio::pin!(kick, stop, chores, stall);
        // Frames are read only while the queue has this many free slots: a client's own answers
        // never overflow its queue (a client that does not read is then dropped by a room's
        // broadcast or by the write timeout).
        let headroom = (s.outgoing_queue / 4).max(1);
        loop {
            tokio::select! {
                biased;
                _ = &mut kick => return End::Dropped,
                _ = &mut stop => return self.shutting_down(),
                _ = &mut stall, if stall_armed => match link.stalled_since() {
                    None => stall_armed = false,
                    Some(t) if t + s.write_timeout <= Instant::now() => {
                        self.signal.kick_slow();
                        return End::Dropped;
                    }
                    Some(t) => stall.as_mut().reset(t + s.write_timeout),
                },
                _ = &mut chores => {
                    let now = Instant::now();
                    let idle_due = idle_deadline(self.last_seen, s.idle_timeout);
                    if idle_due <= now {
                        self.peer.close(CloseCode::Away, "idle timeout");
                        return End::Idle;
                    }
                    if next_ping <= now {
                        link.ping();
                        next_ping = crate::clock::after(ping_every);
                    }
                    chores.as_mut().reset(next_ping.min(idle_due));
                }
                // A wave (perhaps in a room of another node) or a tournament the account
                // entered seated the connection.
                found = self.session.seated() => self.session.take_up(found).await,
                event = link.next(headroom) => match event {
                    Event::WriteBlocked => {
                        if let Some(t) = link.stalled_since() {
                            stall.as_mut().reset(t + s.write_timeout);
                            stall_armed = true;
                        }
                    }
                    Event::WriteFailed => return End::Dropped,
                    // A close frame queued by a room (a seat resumed elsewhere) went out: wait
                    // for the client's answer as after any close.
                    Event::Closed | Event::ReadEnd => return End::Closed,
                    Event::ReadError(e) => return self.read_failed(e),
                    Event::Frame(msg) => {
                        if let Some(end) = self.frame(msg).await {
                            return end;
                        }
                    }
                },
            }
        }
    }

    /// The server shuts down: the client is told why and closed.
    fn shutting_down(&self) -> End {
        self.peer.send_msg(&ServerMessage::Error {
            code: ErrorCode::ShuttingDown,
            message: "the server is shutting down".to_string(),
        });
        self.peer.close(CloseCode::Away, "server shutting down");
        End::Shutdown
    }

    /// Reading failed: the client is told why where the WebSocket protocol lets it be.
    fn read_failed(&self, e: WsError) -> End {
        match e {
            WsError::Capacity(e) => {
                self.peer.send_msg(&ServerMessage::Error {
                    code: ErrorCode::BadRequest,
                    message: format!(
                        "message too big ({e}); the limit is {} bytes",
                        self.ctx.settings.max_message_size
                    ),
                });
                self.peer.close(CloseCode::Size, "message too big");
                End::TooBig
            }
            WsError::Utf8(e) => {
                tracing::debug!(conn = self.id, error = %e, "text frame is not UTF-8");
                self.peer
                    .close(CloseCode::Invalid, "text frames must be UTF-8");
                End::Protocol
            }
            WsError::Protocol(e) => {
                tracing::debug!(conn = self.id, error = %e, "WebSocket protocol error");
                self.peer.close(CloseCode::Protocol, "protocol error");
                End::Protocol
            }
            _ => End::Closed,
        }
    }

    /// One frame from the client: counted against the rate limit, then played (or echoed).
    /// Returns how the connection ends, if this frame ends it.
    async fn frame(&mut self, msg: Message) -> Option<End> {
        self.last_seen = Instant::now();
        if matches!(msg, Message::Close(_)) {
            return None;
        }
        if !self.bucket.take(std::time::Instant::now()) {
            return Some(self.rate_limited());
        }
        match msg {
            Message::Text(text) => {
                self.ctx.metrics.messages_in.inc();
                if self.echo {
                    self.peer.send(&text);
                } else {
                    self.session.handle_text(&text).await;
                }
            }
            Message::Binary(data) => {
                self.ctx.metrics.messages_in.inc();
                if self.echo {
                    self.peer.send_binary(data);
                } else {
                    self.session.handle_binary();
                }
            }
            _ => {}
        }
        None
    }

    /// Too many messages: the client is told and closed.
    fn rate_limited(&self) -> End {
        let s = &self.ctx.settings;
        self.ctx.metrics.rate_limited.inc();
        self.peer.send_msg(&ServerMessage::Error {
            code: ErrorCode::RateLimited,
            message: format!(
                "more than {} messages a second (burst {}); closing",
                s.rate_limit_per_sec, s.rate_limit_burst
            ),
        });
        self.peer.close(CloseCode::Policy, "rate limited");
        End::RateLimited
    }

    /// Leaves the rooms, sends what is queued and the close frame, and waits for the client's
    /// answer to the close (unless it was dropped), so that it sees our last words before the
    /// socket goes.
    async fn close(self, end: End, mut link: Link) {
        let Conn {
            id,
            addr,
            started,
            ctx,
            peer,
            signal,
            mut session,
            ..
        } = self;
        session.disconnect().await;
        drop(session);
        let slow = signal.slow.load(Ordering::Relaxed);
        if end == End::Dropped && slow {
            ctx.metrics.slow_disconnects.inc();
        } else if end == End::Closed {
            peer.close(CloseCode::Normal, "");
        }
        drop(peer);
        if end != End::Dropped {
            let _ = timeout(CLOSE_WAIT, link.finish()).await;
        }
        ctx.metrics.connections_open.dec();
        let reason = if slow { "slow reader" } else { end.as_str() };
        tracing::info!(conn = id, %addr, reason, secs = started.elapsed().as_secs_f64(), "connection closed");
    }
}

/// When a connection last heard from at `last_seen` times out.
fn idle_deadline(last_seen: Instant, idle: Duration) -> Instant {
    last_seen
        .checked_add(idle)
        .unwrap_or_else(|| crate::clock::after(idle))
}

impl End {
    fn as_str(self) -> &'static str {
        match self {
            End::Closed => "closed",
            End::Dropped => "dropped",
            End::Shutdown => "shutdown",
            End::Idle => "idle",
            End::RateLimited => "rate limited",
            End::TooBig => "message too big",
            End::Protocol => "protocol error",
        }
    }
}
