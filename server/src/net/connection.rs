//! One TCP connection: its HTTP requests (`http.rs`), then, once one upgrades, the WebSocket
//! loop — one task per connection — that rate-limits and hands frames to the [`Session`], has
//! its [`Link`] write what rooms queue, pings, times out idle and stalled clients, and closes.

use crate::game::outbox::{Peer, PeerSignal, next_conn_id};
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

/// Serves one WebSocket connection until it ends. With `echo` (the test-only echo path) text
/// and binary messages are sent back as they came instead of being played; everything else —
/// limits, rate limit, queue, pings, closing — is the same.
async fn serve_ws(ws: WebSocketStream<TcpStream>, addr: SocketAddr, ctx: Arc<Shared>, echo: bool) {
    let id = next_conn_id();
    let started = Instant::now();
    ctx.metrics.connections_open.inc();
    ctx.metrics.connections_total.inc();
    tracing::info!(conn = id, %addr, "connection opened");
    let s = &ctx.settings;
    let (tx, rx) = mpsc::channel(s.outgoing_queue.max(1));
    let signal = Arc::new(PeerSignal::default());
    let peer = Peer::new(id, tx, signal.clone());
    let mut link = Link::new(ws, rx);
    let mut session = Session::new(peer.clone(), ctx.clone());
    let mut bucket = TokenBucket::new(
        s.rate_limit_per_sec,
        s.rate_limit_burst,
        std::time::Instant::now(),
    );
    let mut shutdown = ctx.shutdown.clone();
    let mut last_seen = Instant::now();
    // The kick and shutdown waiters and the timers live as long as the loop: registering a
    // waiter or a timer afresh for every frame cost more than reading the frame. One timer
    // serves both the ping and the idle timeout: it wakes at whichever is due first, and is
    // moved forward only when it fires early (something arrived since it was set). The stall
    // timer is armed only while a write waits on the client.
    let kick = signal.kicked();
    let stop = crate::shutdown::shutting_down(&mut shutdown);
    let ping_every = s.ping_interval.max(Duration::from_millis(10));
    let mut next_ping = crate::clock::after(ping_every);
    let chores = tokio::time::sleep_until(next_ping.min(idle_deadline(last_seen, s.idle_timeout)));
    let stall = tokio::time::sleep(Duration::ZERO);
    let mut stall_armed = false;
    tokio::pin!(kick, stop, chores, stall);
    // Frames are read only while the queue has this many free slots: a client's own answers
    // never overflow its queue (a client that does not read is then dropped by a room's
    // broadcast or by the write timeout).
    let headroom = (s.outgoing_queue / 4).max(1);
    let end = loop {
        tokio::select! {
            biased;
            _ = &mut kick => break End::Dropped,
            _ = &mut stop => {
                peer.send_msg(&ServerMessage::Error {
                    code: ErrorCode::ShuttingDown,
                    message: "the server is shutting down".to_string(),
                });
                peer.close(CloseCode::Away, "server shutting down");
                break End::Shutdown;
            }
            _ = &mut stall, if stall_armed => {
                match link.stalled_since() {
                    None => stall_armed = false,
                    Some(t) if t + s.write_timeout <= Instant::now() => {
                        signal.kick_slow();
                        break End::Dropped;
                    }
                    Some(t) => stall.as_mut().reset(t + s.write_timeout),
                }
            }
            _ = &mut chores => {
                let now = Instant::now();
                let idle_due = idle_deadline(last_seen, s.idle_timeout);
                if idle_due <= now {
                    peer.close(CloseCode::Away, "idle timeout");
                    break End::Idle;
                }
                if next_ping <= now {
                    link.ping();
                    next_ping = crate::clock::after(ping_every);
                }
                chores.as_mut().reset(next_ping.min(idle_due));
            }
            event = link.next(headroom) => match event {
                Event::WriteBlocked => {
                    if let Some(t) = link.stalled_since() {
                        stall.as_mut().reset(t + s.write_timeout);
                        stall_armed = true;
                    }
                }
                Event::WriteFailed => break End::Dropped,
                // A close frame queued by a room (a seat resumed elsewhere) went out: wait for
                // the client's answer as after any close.
                Event::Closed => break End::Closed,
                Event::ReadEnd => break End::Closed,
                Event::ReadError(WsError::Capacity(e)) => {
                    peer.send_msg(&ServerMessage::Error {
                        code: ErrorCode::BadRequest,
                        message: format!("message too big ({e}); the limit is {} bytes", s.max_message_size),
                    });
                    peer.close(CloseCode::Size, "message too big");
                    break End::TooBig;
                }
                Event::ReadError(WsError::Utf8(e)) => {
                    tracing::debug!(conn = id, error = %e, "text frame is not UTF-8");
                    peer.close(CloseCode::Invalid, "text frames must be UTF-8");
                    break End::Protocol;
                }
                Event::ReadError(WsError::Protocol(e)) => {
                    tracing::debug!(conn = id, error = %e, "WebSocket protocol error");
                    peer.close(CloseCode::Protocol, "protocol error");
                    break End::Protocol;
                }
                Event::ReadError(_) => break End::Closed,
                Event::Frame(msg) => {
                    last_seen = Instant::now();
                    if matches!(msg, Message::Close(_)) {
                        continue;
                    }
                    if !bucket.take(std::time::Instant::now()) {
                        ctx.metrics.rate_limited.inc();
                        peer.send_msg(&ServerMessage::Error {
                            code: ErrorCode::RateLimited,
                            message: format!(
                                "more than {} messages a second (burst {}); closing",
                                s.rate_limit_per_sec, s.rate_limit_burst
                            ),
                        });
                        peer.close(CloseCode::Policy, "rate limited");
                        break End::RateLimited;
                    }
                    match msg {
                        Message::Text(text) => {
                            ctx.metrics.messages_in.inc();
                            if echo {
                                peer.send(&text);
                            } else {
                                session.handle_text(&text).await;
                            }
                        }
                        Message::Binary(data) => {
                            ctx.metrics.messages_in.inc();
                            if echo {
                                peer.send_binary(data);
                            } else {
                                session.handle_binary();
                            }
                        }
                        _ => {}
                    }
                }
            },
        }
    };
    session.disconnect().await;
    drop(session);
    let slow = signal.slow.load(Ordering::Relaxed);
    if end == End::Dropped && slow {
        ctx.metrics.slow_disconnects.inc();
    } else if end == End::Closed {
        peer.close(CloseCode::Normal, "");
    }
    drop(peer);
    // Send what is queued and the close frame, then read until the client answers the close,
    // so that it sees our last words before the socket goes.
    if end != End::Dropped {
        let _ = timeout(CLOSE_WAIT, link.finish()).await;
    }
    ctx.metrics.connections_open.dec();
    let reason = if slow { "slow reader" } else { end.as_str() };
    tracing::info!(conn = id, %addr, reason, secs = started.elapsed().as_secs_f64(), "connection closed");
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
