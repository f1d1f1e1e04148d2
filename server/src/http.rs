//! The HTTP side of the single port: reading a request head, answering `GET /healthz`,
//! `GET /metrics` and errors, and completing the WebSocket upgrade on `/ws`.

use std::io;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;

/// Longest request head accepted, in bytes.
const MAX_HEAD: usize = 8 * 1024;
/// Most headers accepted.
const MAX_HEADERS: usize = 32;

/// The parts of a request head the server routes on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Head {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path without the query string.
    pub path: String,
    /// `Upgrade` header contains `websocket`.
    pub upgrade_websocket: bool,
    /// `Connection` header contains `upgrade`.
    pub connection_upgrade: bool,
    /// The `Sec-WebSocket-Version` header.
    pub ws_version: Option<String>,
    /// The `Sec-WebSocket-Key` header.
    pub ws_key: Option<String>,
}

/// Why no request head was read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HeadError {
    /// The client closed before sending a whole head.
    #[error("closed before a request head")]
    Closed,
    /// The head is longer than the limit.
    #[error("request head too large")]
    TooLarge,
    /// Not HTTP.
    #[error("malformed request head")]
    Malformed,
    /// A read failed.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// Reads one request head; returns it with the bytes read past its end.
pub(crate) async fn read_head(stream: &mut TcpStream) -> Result<(Head, Vec<u8>), HeadError> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(HeadError::Closed);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some((head, len)) = parse_head(&buf)? {
            return Ok((head, buf.split_off(len)));
        }
        if buf.len() > MAX_HEAD {
            return Err(HeadError::TooLarge);
        }
    }
}

/// Parses a complete head and its length, or `None` if more bytes are needed.
fn parse_head(buf: &[u8]) -> Result<Option<(Head, usize)>, HeadError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    let len = match req.parse(buf) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => return Err(HeadError::TooLarge),
        Err(_) => return Err(HeadError::Malformed),
    };
    let path = req.path.unwrap_or("/");
    let mut head = Head {
        method: req.method.unwrap_or("").to_string(),
        path: path.split('?').next().unwrap_or(path).to_string(),
        ..Head::default()
    };
    for h in req.headers.iter() {
        let value = String::from_utf8_lossy(h.value).trim().to_string();
        let lower = value.to_ascii_lowercase();
        if h.name.eq_ignore_ascii_case("upgrade") {
            head.upgrade_websocket = lower.split(',').any(|v| v.trim() == "websocket");
        } else if h.name.eq_ignore_ascii_case("connection") {
            head.connection_upgrade = lower.split(',').any(|v| v.trim() == "upgrade");
        } else if h.name.eq_ignore_ascii_case("sec-websocket-version") {
            head.ws_version = Some(value);
        } else if h.name.eq_ignore_ascii_case("sec-websocket-key") {
            head.ws_key = Some(value);
        }
    }
    Ok(Some((head, len)))
}

impl Head {
    /// The `Sec-WebSocket-Key` of a valid upgrade request, or the status line and message
    /// to refuse it with.
    pub(crate) fn websocket_key(&self) -> Result<&str, (&'static str, &'static str)> {
        if self.method != "GET" {
            return Err(("405 Method Not Allowed", "use GET to open a WebSocket\n"));
        }
        if !self.upgrade_websocket || !self.connection_upgrade {
            return Err((
                "426 Upgrade Required",
                "this endpoint speaks WebSocket only\n",
            ));
        }
        if self.ws_version.as_deref() != Some("13") {
            return Err(("426 Upgrade Required", "Sec-WebSocket-Version must be 13\n"));
        }
        match self.ws_key.as_deref() {
            Some(k) if !k.is_empty() => Ok(k),
            _ => Err(("400 Bad Request", "Sec-WebSocket-Key is missing\n")),
        }
    }
}

/// The `101 Switching Protocols` answer to an upgrade with this key.
pub(crate) fn switching_protocols(key: &str) -> String {
    format!(
        "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Accept: {}\r\n\r\n",
        derive_accept_key(key.as_bytes())
    )
}

/// Writes a complete response and closes the connection's write side.
pub(crate) async fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &str,
) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\nCache-Control: no-store\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.flush().await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_an_upgrade_request() {
        let req = b"GET /ws?x=1 HTTP/1.1\r\nHost: a\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n\
Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\nrest";
        let (head, len) = parse_head(req).unwrap().unwrap();
        assert_eq!(&req[len..], b"rest");
        assert_eq!(head.path, "/ws");
        assert_eq!(head.websocket_key(), Ok("dGhlIHNhbXBsZSBub25jZQ=="));
        // The RFC 6455 example key.
        assert!(
            switching_protocols("dGhlIHNhbXBsZSBub25jZQ==")
                .contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        );
    }

    #[test]
    fn partial_and_bad_heads() {
        assert!(
            parse_head(b"GET /healthz HTTP/1.1\r\nHost")
                .unwrap()
                .is_none()
        );
        assert!(matches!(
            parse_head(b"\x16\x03\x01 garbage\r\n\r\n"),
            Err(HeadError::Malformed)
        ));
        let (plain, _) = parse_head(b"GET /ws HTTP/1.1\r\n\r\n").unwrap().unwrap();
        assert_eq!(plain.websocket_key().unwrap_err().0, "426 Upgrade Required");
    }
}
