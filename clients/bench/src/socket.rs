//! The load generator's WebSocket connections: [`Target`] (where to connect and from which
//! loopback source addresses) and `connect`.
//!
//! The load generator does not use [`jchomp_protocol::connection::Connection`]: it must bind
//! each socket to one of several 127.0.0.0/8 source addresses before connecting (one address
//! runs out of ephemeral ports after a few runs of 10,000 connections), one task reads every
//! seat of a room at once, and it keeps per-connection buffers smaller because it holds
//! thousands of them. The message types and the other WebSocket limits are still the protocol
//! crate's. One task drives every connection of a room, unsplit (`next_any` reads whichever
//! has a message).

use futures_util::Stream;
use std::future::poll_fn;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// One load-generator connection.
pub(crate) type Ws = WebSocketStream<TcpStream>;

/// Time one connection (TCP and WebSocket handshake) may take.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// Where the load goes: a `ws://` URL on a loopback address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The WebSocket URL, e.g. `ws://127.0.0.1:7777/ws`.
    pub url: String,
    /// The server's socket address (resolved from the URL).
    pub addr: SocketAddr,
    /// How many source addresses (127.0.0.1, 127.0.0.2, …) connections are spread over; 1
    /// lets the kernel choose.
    pub source_addrs: u8,
}

/// Why a target is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TargetError {
    /// Not `ws://HOST:PORT/PATH`.
    #[error("expected a URL like ws://127.0.0.1:7777/ws, got {0:?}")]
    BadUrl(String),
    /// The host is not a loopback address (the load generator only loads this machine).
    #[error("{0} is not a loopback address; jchomp-bench only loads servers on this machine")]
    NotLoopback(String),
}

impl Target {
    /// Parses `ws://IP:PORT/PATH` (a literal loopback IP, or `localhost`).
    pub fn parse(url: &str, source_addrs: u8) -> Result<Target, TargetError> {
        let bad = || TargetError::BadUrl(url.to_owned());
        let rest = url.strip_prefix("ws://").ok_or_else(bad)?;
        let hostport = rest.split('/').next().ok_or_else(bad)?;
        let hostport = hostport.replace("localhost", "127.0.0.1");
        let addr: SocketAddr = hostport.parse().map_err(|_| bad())?;
        if !addr.ip().is_loopback() {
            return Err(TargetError::NotLoopback(addr.ip().to_string()));
        }
        Ok(Target {
            url: url.to_owned(),
            addr,
            source_addrs: source_addrs.max(1),
        })
    }

    /// The source address for the `n`th connection: 127.0.0.(1 + n mod k), or `None` to let
    /// the kernel choose when one address is asked for (or the server is on IPv6).
    fn source(&self, n: usize) -> Option<SocketAddr> {
        if self.source_addrs <= 1 || !self.addr.is_ipv4() {
            return None;
        }
        let last = 1 + (n % usize::from(self.source_addrs)) as u8;
        Some(SocketAddr::new(
            IpAddr::V4(Ipv4Addr::new(127, 0, 0, last)),
            0,
        ))
    }
}

/// The client's WebSocket limits ([`jchomp_protocol::connection::ws_config`]: messages up to
/// 1 MiB, small write buffers), with a 1 KiB read buffer: the load generator holds thousands
/// of connections, and tungstenite zero-fills the buffer before every read (a server message
/// is a few hundred bytes; a longer one grows the buffer).
pub(crate) fn ws_config() -> WebSocketConfig {
    jchomp_protocol::connection::ws_config().read_buffer_size(1024)
}

/// Why a load-generator connection did not open.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConnectError {
    /// No socket could be made.
    #[error("socket: {0}")]
    Socket(#[source] io::Error),
    /// The socket could not take its source address.
    #[error("bind {ip}: {error}")]
    Bind {
        /// The source address.
        ip: IpAddr,
        /// Why.
        #[source]
        error: io::Error,
    },
    /// The TCP connection failed.
    #[error("connect: {0}")]
    Connect(#[source] io::Error),
    /// The WebSocket handshake failed.
    #[error("handshake: {0}")]
    Handshake(#[source] Box<WsError>),
    /// Nothing within [`CONNECT_TIMEOUT`].
    #[error("no connection within {} s", CONNECT_TIMEOUT.as_secs())]
    Timeout,
    /// The run was given no server to connect to.
    #[error("no server to connect to")]
    NoServer,
    /// The run stopped handing out connect slots.
    #[error("connect slots closed")]
    SlotsClosed,
}

/// Opens the `n`th connection to the target (TCP from its source address, then the WebSocket
/// handshake), within [`CONNECT_TIMEOUT`].
pub(crate) async fn connect(target: &Target, n: usize) -> Result<Ws, ConnectError> {
    let go = async {
        let socket = if target.addr.is_ipv4() {
            TcpSocket::new_v4()
        } else {
            TcpSocket::new_v6()
        }
        .map_err(ConnectError::Socket)?;
        if let Some(src) = target.source(n) {
            socket.bind(src).map_err(|error| ConnectError::Bind {
                ip: src.ip(),
                error,
            })?;
        }
        let stream = socket
            .connect(target.addr)
            .await
            .map_err(ConnectError::Connect)?;
        let _ = stream.set_nodelay(true);
        let (ws, _) = tokio_tungstenite::client_async_with_config(
            target.url.as_str(),
            stream,
            Some(ws_config()),
        )
        .await
        .map_err(|e| ConnectError::Handshake(Box::new(e)))?;
        Ok(ws)
    };
    tokio::time::timeout(CONNECT_TIMEOUT, go)
        .await
        .unwrap_or(Err(ConnectError::Timeout))
}

/// The next thing read on any of `conns`, with its index: a message, an error, or `None` once
/// that connection has ended. Connections are tried in turn from `*from`, which moves past the
/// one that answered, so that a busy connection does not starve the others.
pub(crate) async fn next_any(
    conns: &mut [Ws],
    from: &mut usize,
) -> (usize, Option<Result<Message, WsError>>) {
    poll_fn(|cx| {
        let n = conns.len();
        for k in 0..n {
            let i = (*from + k) % n;
            if let Poll::Ready(item) = Pin::new(&mut conns[i]).poll_next(cx) {
                *from = (i + 1) % n;
                return Poll::Ready((i, item));
            }
        }
        Poll::Pending
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_loopback_urls_only() {
        let t = Target::parse("ws://127.0.0.1:7777/ws", 4).unwrap();
        assert_eq!(t.addr, "127.0.0.1:7777".parse().unwrap());
        assert_eq!(t.source(0), Some("127.0.0.1:0".parse().unwrap()));
        assert_eq!(t.source(5), Some("127.0.0.2:0".parse().unwrap()));
        let t = Target::parse("ws://localhost:1/ws", 1).unwrap();
        assert_eq!(t.source(3), None);
        assert!(matches!(
            Target::parse("ws://10.0.0.1:1/ws", 1),
            Err(TargetError::NotLoopback(_))
        ));
        assert!(matches!(
            Target::parse("http://127.0.0.1:1/ws", 1),
            Err(TargetError::BadUrl(_))
        ));
    }
}
