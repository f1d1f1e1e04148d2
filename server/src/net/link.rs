//! [`Link`]: one WebSocket and its bounded outgoing queue, driven from the connection's own
//! task. Each poll first writes what is queued (several messages, one flush), then reads the
//! next frame; so a connection is one task, and a message a room queues costs one wake-up of
//! that task, not a second writer task and a lock around a split socket.

use crate::game::outbox::Outgoing;
use futures_util::{Sink, Stream};
use std::future::poll_fn;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// Messages handed to the socket between two flushes at most; more waiting are written on the
/// task's next turn, so that reading and the other connections are not starved.
const WRITE_BATCH: usize = 64;

/// What happened on a link.
#[derive(Debug)]
pub(crate) enum Event {
    /// A frame arrived.
    Frame(Message),
    /// Reading failed; the socket is unusable for reading.
    ReadError(WsError),
    /// The client's side ended (closed or gone).
    ReadEnd,
    /// A write could not finish at once: the client is not reading fast enough. The caller
    /// times the stall from [`Link::stalled_since`].
    WriteBlocked,
    /// Writing failed; the client is gone.
    WriteFailed,
    /// The close frame queued has been written; nothing more will be.
    Closed,
}

/// A server-side WebSocket and the queue of what to send on it.
pub(crate) struct Link {
    ws: WebSocketStream<TcpStream>,
    rx: mpsc::Receiver<Outgoing>,
    /// Frames handed to tungstenite and not yet flushed to the socket.
    unflushed: bool,
    /// Since when a flush has been waiting for the socket, if it is.
    stalled_since: Option<Instant>,
    /// A ping is to be sent.
    ping_due: bool,
    /// A close frame was taken from the queue: nothing after it is sent.
    close_taken: bool,
    /// The close frame has been written.
    close_sent: bool,
    /// The write side failed.
    write_failed: bool,
}

impl Link {
    /// A link writing what arrives on `rx` to `ws`.
    pub(crate) fn new(ws: WebSocketStream<TcpStream>, rx: mpsc::Receiver<Outgoing>) -> Self {
        Link {
            ws,
            rx,
            unflushed: false,
            stalled_since: None,
            ping_due: false,
            close_taken: false,
            close_sent: false,
            write_failed: false,
        }
    }

    /// Sends a ping with the next write.
    pub(crate) fn ping(&mut self) {
        self.ping_due = true;
    }

    /// Since when writing has been blocked by the client, if it is.
    pub(crate) fn stalled_since(&self) -> Option<Instant> {
        self.stalled_since
    }

    /// Writes what is queued and waits for the next thing that happens. Frames are read only
    /// while the queue has `headroom` free slots: a client's own answers never overflow its
    /// queue, and a client that does not read stops being read.
    pub(crate) async fn next(&mut self, headroom: usize) -> Event {
        poll_fn(|cx| self.poll_event(cx, headroom)).await
    }

    /// Writes everything still queued and the close frame (once queued), then reads and
    /// discards until the client ends the connection, so that it sees the server's last words
    /// before the socket goes. The caller bounds the time.
    pub(crate) async fn finish(&mut self) {
        loop {
            match self.next(0).await {
                Event::Frame(_) | Event::WriteBlocked => {}
                Event::Closed => break,
                Event::ReadError(_) | Event::ReadEnd | Event::WriteFailed => return,
            }
        }
        while let Event::Frame(_) | Event::WriteBlocked = self.next(0).await {}
    }

    fn poll_event(&mut self, cx: &mut Context<'_>, headroom: usize) -> Poll<Event> {
        if !self.write_failed && !self.close_sent {
            match self.poll_write(cx) {
                Err(_) => {
                    self.write_failed = true;
                    return Poll::Ready(Event::WriteFailed);
                }
                Ok(Some(event)) => return Poll::Ready(event),
                Ok(None) => {}
            }
        }
        if self.rx.capacity() < headroom {
            return Poll::Pending;
        }
        match Pin::new(&mut self.ws).poll_next(cx) {
            Poll::Ready(Some(Ok(msg))) => Poll::Ready(Event::Frame(msg)),
            Poll::Ready(Some(Err(e))) => Poll::Ready(Event::ReadError(e)),
            Poll::Ready(None) => Poll::Ready(Event::ReadEnd),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Hands queued messages to tungstenite and flushes them. Returns an event when the close
    /// frame went out or a flush started to wait on the client.
    fn poll_write(&mut self, cx: &mut Context<'_>) -> Result<Option<Event>, WsError> {
        let mut handed = 0;
        while !self.close_taken && handed < WRITE_BATCH {
            if self.unflushed && Pin::new(&mut self.ws).poll_ready(cx)?.is_pending() {
                break;
            }
            let msg = if self.ping_due {
                self.ping_due = false;
                Message::Ping(Default::default())
            } else {
                match self.rx.poll_recv(cx) {
                    Poll::Ready(Some(out)) => self.frame(out),
                    Poll::Ready(None) | Poll::Pending => break,
                }
            };
            Pin::new(&mut self.ws).start_send(msg)?;
            self.unflushed = true;
            handed += 1;
        }
        if handed == WRITE_BATCH {
            // More may be queued: come back after the other work of this turn.
            cx.waker().wake_by_ref();
        }
        if !self.unflushed {
            return Ok(None);
        }
        match Pin::new(&mut self.ws).poll_flush(cx)? {
            Poll::Ready(()) => {
                self.unflushed = false;
                self.stalled_since = None;
                if self.close_taken {
                    self.close_sent = true;
                    return Ok(Some(Event::Closed));
                }
                Ok(None)
            }
            Poll::Pending if self.stalled_since.is_none() => {
                self.stalled_since = Some(Instant::now());
                Ok(Some(Event::WriteBlocked))
            }
            Poll::Pending => Ok(None),
        }
    }

    /// The frame for a queued message.
    fn frame(&mut self, out: Outgoing) -> Message {
        match out {
            Outgoing::Text(t) => Message::Text(t),
            Outgoing::Binary(b) => Message::Binary(b),
            Outgoing::Close(code, reason) => {
                self.close_taken = true;
                Message::Close(Some(CloseFrame {
                    code,
                    reason: reason.into(),
                }))
            }
        }
    }
}
