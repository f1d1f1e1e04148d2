//! The server's HTTP API on the game's port, as `jchomp leaderboard` and `jchomp player` read
//! it: one `GET` with hyper, the JSON answer, and the server's `{"error": …}` in words when it
//! refuses. The API address is the WebSocket address with `http://` and without its `/ws`.

use crate::connection::REQUEST_TIMEOUT;
use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde::de::DeserializeOwned;

/// The largest answer read (a leaderboard of 100 players is a few KiB; a profile's history
/// grows with its games).
const MAX_BODY: usize = 8 << 20;

/// Why an API request failed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The address is not one this client can reach over plain HTTP.
    #[error("cannot use {0} for the HTTP API: only ws:// and http:// servers are supported")]
    Address(String),
    /// The server could not be reached or the exchange broke.
    #[error("cannot reach the server's HTTP API at {url}: {detail}")]
    Http {
        /// The URL asked.
        url: String,
        /// What went wrong.
        detail: String,
    },
    /// No answer came in time.
    #[error("the server's HTTP API did not answer within {} s", REQUEST_TIMEOUT.as_secs())]
    Timeout,
    /// The server refused the request: its status and message.
    #[error("{message} (the server answered {status})")]
    Refused {
        /// The HTTP status code.
        status: u16,
        /// The server's `error`, or the body.
        message: String,
    },
    /// The answer is not the JSON expected.
    #[error("the server's answer does not read: {0}")]
    Garbled(String),
}

/// `host:port` and the path prefix of the HTTP side of a WebSocket address
/// (`ws://h:7777/ws` → `("h:7777", "")`).
fn http_base(server: &str) -> Result<(&str, &str), ApiError> {
    let rest = server
        .strip_prefix("ws://")
        .or_else(|| server.strip_prefix("http://"))
        .ok_or_else(|| ApiError::Address(server.to_owned()))?;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let path = path
        .strip_suffix("ws")
        .unwrap_or(path)
        .trim_end_matches('/');
    Ok((authority, path))
}

/// Escapes `text` for a URL's path or query: letters, digits and `-._~:+` stay, every other
/// byte is `%XX`.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:+".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `GET`s `path` (with its query, starting `/api/`) from the server at `server` and reads the
/// JSON answer as `T`.
pub(crate) async fn get_json<T: DeserializeOwned>(server: &str, path: &str) -> Result<T, ApiError> {
    let (authority, prefix) = http_base(server)?;
    let target = if prefix.is_empty() {
        path.to_owned()
    } else {
        format!("/{prefix}{path}")
    };
    let url = format!("http://{authority}{target}");
    let (status, body) = tokio::time::timeout(REQUEST_TIMEOUT, get(authority, &target))
        .await
        .map_err(|_| ApiError::Timeout)?
        .map_err(|detail| ApiError::Http { url, detail })?;
    if status != 200 {
        return Err(ApiError::Refused {
            status,
            message: refusal(&body),
        });
    }
    serde_json::from_slice(&body).map_err(|e| ApiError::Garbled(e.to_string()))
}

/// The server's words for a refusal: the `error` of its JSON, else the body as text.
fn refusal(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Refusal {
        error: String,
    }
    match serde_json::from_slice::<Refusal>(body) {
        Ok(r) => r.error,
        Err(_) => String::from_utf8_lossy(body).trim().to_owned(),
    }
}

/// One HTTP/1.1 `GET` of `target` from `authority`: the status and the body.
async fn get(authority: &str, target: &str) -> Result<(u16, Bytes), String> {
    let stream = tokio::net::TcpStream::connect(authority)
        .await
        .map_err(|e| e.to_string())?;
    let (mut sender, link) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    // The link runs until the answer is read; its own error shows in the request's.
    let link = tokio::spawn(link);
    let request = hyper::Request::get(target)
        .header(hyper::header::HOST, authority)
        .body(Empty::<Bytes>::new())
        .map_err(|e| e.to_string())?;
    let answer = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = answer.status().as_u16();
    let body = Limited::new(answer.into_body(), MAX_BODY)
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    link.abort();
    Ok((status, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_is_on_the_websockets_host_and_port() {
        assert_eq!(http_base("ws://h:7777/ws").unwrap(), ("h:7777", ""));
        assert_eq!(http_base("ws://h:1/game/ws").unwrap(), ("h:1", "game"));
        assert_eq!(http_base("http://h:1").unwrap(), ("h:1", ""));
        assert!(matches!(http_base("wss://h/ws"), Err(ApiError::Address(_))));
    }

    #[test]
    fn names_and_categories_are_escaped_but_stay_readable() {
        assert_eq!(escape("level:1"), "level:1");
        assert_eq!(escape("jchomp+normal:2"), "jchomp+normal:2");
        assert_eq!(escape("a b/&#"), "a%20b%2F%26%23");
        assert_eq!(escape("é"), "%C3%A9");
    }

    #[test]
    fn refusals_are_the_servers_words() {
        assert_eq!(
            refusal(br#"{"error":"no account is named \"x\""}"#),
            "no account is named \"x\""
        );
        assert_eq!(refusal(b" not json \n"), "not json");
    }
}
