//! [`Connection`]: the client side of the protocol — one WebSocket connection to a JChomp
//! server, speaking typed [`ClientMessage`]s and [`ServerMessage`]s, and [`resume`] to take a
//! seat back after a drop. Shared by the `jchomp` client, the bot client and tournaments; built
//! only with the `client` feature, so the rules and message types stay free of any runtime.

use crate::wire::{ClientMessage, ErrorCode, ServerMessage};
use futures_util::{SinkExt, StreamExt};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The largest message the client accepts (a room snapshot of a 15×15 board is a few KiB; a
/// long list of rooms or games stays well below this).
pub const MAX_MESSAGE: usize = 1 << 20;

/// How long [`Connection::request`] waits for an answer.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Why talking to the server failed.
#[derive(Debug, thiserror::Error)]
pub enum ConnectionError {
    /// The server could not be reached or refused the WebSocket handshake.
    #[error("cannot reach the server at {url}: {source} ({})", connect_hint(.source))]
    Connect {
        /// The address tried.
        url: String,
        /// What went wrong.
        #[source]
        source: Box<WsError>,
    },
    /// The connection broke while sending or receiving.
    #[error("the connection to the server broke: {0}")]
    Broken(#[source] Box<WsError>),
    /// The server closed the connection.
    #[error("the server closed the connection{}", closed_suffix(.code, .reason))]
    Closed {
        /// The close code, if the server gave one.
        code: Option<u16>,
        /// The close reason, if the server gave one.
        reason: String,
    },
    /// The server sent something that is not a message this client knows.
    #[error("the server sent a message this client does not understand ({detail})")]
    Garbled {
        /// What was wrong with it.
        detail: String,
    },
    /// No answer came in time.
    #[error("the server did not answer within {} s", .0.as_secs())]
    Timeout(Duration),
}

/// What to check when the handshake fails: the path when the server answered HTTP 404 (its
/// WebSocket is at `/ws`), else whether a server runs there at all.
fn connect_hint(e: &WsError) -> &'static str {
    match e {
        WsError::Http(response) if response.status().as_u16() == 404 => {
            "the server's WebSocket path is /ws, as in ws://HOST:PORT/ws"
        }
        _ => "is jchomp-server running there?",
    }
}

fn closed_suffix(code: &Option<u16>, reason: &str) -> String {
    match (code, reason.is_empty()) {
        (_, false) => format!(": {reason}"),
        (Some(c), true) => format!(" (code {c})"),
        (None, true) => String::new(),
    }
}

/// The close code with which the server ends a connection whose seat another connection
/// resumed.
pub const CLOSE_RESUMED_ELSEWHERE: u16 = 4001;

/// The close code with which the server ends a connection that sent too much.
pub const CLOSE_RATE_LIMITED: u16 = 1008;

impl ConnectionError {
    /// Whether the connection is gone (as opposed to the server not understanding us).
    pub fn is_drop(&self) -> bool {
        matches!(
            self,
            ConnectionError::Broken(_) | ConnectionError::Closed { .. }
        )
    }

    /// Whether reconnecting may help: the connection dropped, and not because the seat was
    /// resumed elsewhere or the client was flooding.
    pub fn should_reconnect(&self) -> bool {
        match self {
            ConnectionError::Broken(_) => true,
            ConnectionError::Closed { code, .. } => {
                !matches!(code, Some(CLOSE_RESUMED_ELSEWHERE | CLOSE_RATE_LIMITED))
            }
            _ => false,
        }
    }
}

/// One WebSocket connection to a JChomp server.
///
/// [`Connection::recv`] is cancel-safe: it can be used in a `tokio::select!` loop without
/// losing messages.
#[derive(Debug)]
pub struct Connection {
    url: String,
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server on an ephemeral port that answers each `resume` in turn with the next of
    /// `answers`, and counts the resumes it read.
    async fn scripted(answers: Vec<&'static str>) -> (String, tokio::task::JoinHandle<usize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/ws", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
            let mut resumes = 0;
            for answer in answers {
                let Some(Ok(Message::Text(text))) = ws.next().await else {
                    break;
                };
                assert!(text.contains("\"resume\""), "{text}");
                resumes += 1;
                ws.send(Message::text(answer)).await.unwrap();
            }
            resumes
        });
        (url, server)
    }

    const UNAVAILABLE: &str =
        r#"{"type":"error","code":"unavailable","message":"the cluster cannot say"}"#;

    #[tokio::test]
    async fn an_unavailable_resume_is_asked_again_and_other_refusals_are_final() {
        let joined = r#"{"type":"joined","room":"r1","seat":1,"token":"t"}"#;
        let (url, server) = scripted(vec![UNAVAILABLE, UNAVAILABLE, joined]).await;
        let resumed = resume(&url, "t", 1).await.unwrap();
        assert!(matches!(resumed, Resumed::Seat(..)), "{resumed:?}");
        assert_eq!(server.await.unwrap(), 3);

        let gone = r#"{"type":"error","code":"bad_token","message":"no seat"}"#;
        let (url, server) = scripted(vec![gone, joined]).await;
        let resumed = resume(&url, "t", 1).await.unwrap();
        assert!(
            matches!(&resumed, Resumed::Refused(_, e) if e.code == ErrorCode::BadToken),
            "{resumed:?}"
        );
        drop(resumed);
        assert_eq!(server.await.unwrap(), 1);
    }

    #[test]
    fn errors_read_as_words_with_the_servers_detail() {
        assert_eq!(
            describe_error(ErrorCode::InvalidConfig, "rows must be 4–15, got 3"),
            "That game setup is not allowed: rows must be 4–15, got 3"
        );
        assert_eq!(
            describe_error(ErrorCode::RoomFull, ""),
            "That room is full."
        );
        assert!(!describe_error(ErrorCode::BadRequest, "").contains('{'));
        // Words that say it all are not repeated.
        assert_eq!(
            describe_error(ErrorCode::ShuttingDown, "the server is shutting down"),
            "The server is shutting down."
        );
        assert_eq!(
            describe_error(ErrorCode::NoSuchGame, "no stored game has id \"zzz\""),
            "There is no stored game with that id."
        );
    }

    #[test]
    fn a_seat_taken_elsewhere_or_a_flood_is_not_retried() {
        let closed = |code| ConnectionError::Closed {
            code,
            reason: String::new(),
        };
        assert!(closed(None).should_reconnect());
        assert!(closed(Some(1001)).should_reconnect());
        assert!(!closed(Some(CLOSE_RESUMED_ELSEWHERE)).should_reconnect());
        assert!(!closed(Some(CLOSE_RATE_LIMITED)).should_reconnect());
        assert!(closed(Some(CLOSE_RATE_LIMITED)).is_drop());
        let garbled = ConnectionError::Garbled {
            detail: String::new(),
        };
        assert!(!garbled.should_reconnect() && !garbled.is_drop());
        assert_eq!(
            closed(Some(4001)).to_string(),
            "the server closed the connection (code 4001)"
        );
    }
}

/// The WebSocket limits the client uses: messages up to [`MAX_MESSAGE`], small buffers.
pub fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE))
        .read_buffer_size(16 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(256 * 1024)
}

impl Connection {
    /// Connects to a server, e.g. `ws://127.0.0.1:7777/ws`.
    pub async fn connect(url: &str) -> Result<Connection, ConnectionError> {
        let (ws, _response) =
            tokio_tungstenite::connect_async_with_config(url, Some(ws_config()), true)
                .await
                .map_err(|e| ConnectionError::Connect {
                    url: url.to_owned(),
                    source: Box::new(e),
                })?;
        Ok(Connection {
            url: url.to_owned(),
            ws,
        })
    }

    /// The address this connection was made to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends one message.
    pub async fn send(&mut self, msg: &ClientMessage) -> Result<(), ConnectionError> {
        let text = serde_json::to_string(msg).map_err(|e| ConnectionError::Garbled {
            detail: e.to_string(),
        })?;
        self.ws
            .send(Message::text(text))
            .await
            .map_err(|e| ConnectionError::Broken(Box::new(e)))
    }

    /// Receives the next message from the server. Pings and pongs are handled underneath; a
    /// close (or the end of the stream) is [`ConnectionError::Closed`].
    pub async fn recv(&mut self) -> Result<ServerMessage, ConnectionError> {
        loop {
            let frame = match self.ws.next().await {
                None => {
                    return Err(ConnectionError::Closed {
                        code: None,
                        reason: String::new(),
                    });
                }
                Some(Err(WsError::ConnectionClosed | WsError::AlreadyClosed)) => {
                    return Err(ConnectionError::Closed {
                        code: None,
                        reason: String::new(),
                    });
                }
                Some(Err(e)) => return Err(ConnectionError::Broken(Box::new(e))),
                Some(Ok(frame)) => frame,
            };
            match frame {
                Message::Text(text) => {
                    return serde_json::from_str(text.as_str()).map_err(|e| {
                        ConnectionError::Garbled {
                            detail: e.to_string(),
                        }
                    });
                }
                Message::Close(frame) => {
                    return Err(ConnectionError::Closed {
                        code: frame.as_ref().map(|f| u16::from(f.code)),
                        reason: frame.map(|f| f.reason.to_string()).unwrap_or_default(),
                    });
                }
                Message::Binary(_) => {
                    return Err(ConnectionError::Garbled {
                        detail: "a binary frame".to_owned(),
                    });
                }
                Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
            }
        }
    }

    /// Like [`Connection::recv`], but gives up with [`ConnectionError::Timeout`] after `wait`.
    /// Cancel-safe as well.
    pub async fn recv_within(&mut self, wait: Duration) -> Result<ServerMessage, ConnectionError> {
        tokio::time::timeout(wait, self.recv())
            .await
            .unwrap_or(Err(ConnectionError::Timeout(wait)))
    }

    /// Sends a request and returns the first answer that `pick` accepts, or the server's
    /// `error` if one comes first. Other messages (room events) are skipped. Waits at most
    /// [`REQUEST_TIMEOUT`].
    pub async fn request<T>(
        &mut self,
        msg: &ClientMessage,
        mut pick: impl FnMut(ServerMessage) -> Option<T>,
    ) -> Result<Result<T, ServerError>, ConnectionError> {
        self.send(msg).await?;
        let wait = async {
            loop {
                match self.recv().await? {
                    ServerMessage::Error { code, message } => {
                        return Ok(Err(ServerError { code, message }));
                    }
                    other => {
                        if let Some(t) = pick(other) {
                            return Ok(Ok(t));
                        }
                    }
                }
            }
        };
        tokio::time::timeout(REQUEST_TIMEOUT, wait)
            .await
            .unwrap_or(Err(ConnectionError::Timeout(REQUEST_TIMEOUT)))
    }

    /// Closes the connection politely.
    pub async fn close(mut self) {
        // The server may already be gone; nothing more to do then.
        let _ = self.ws.close(None).await;
    }
}

/// An `error` from the server in plain words. The server's own message is added when it says
/// more than the code (e.g. which setting of a configuration is wrong).
pub fn describe_error(code: ErrorCode, message: &str) -> String {
    let base = match code {
        ErrorCode::BadRequest => "The server did not understand the request",
        ErrorCode::InvalidConfig => "That game setup is not allowed",
        ErrorCode::NoSuchRoom => "There is no room with that id (it may have closed)",
        ErrorCode::RoomFull => "That room is full",
        ErrorCode::Forbidden => "You are not allowed to do that here",
        ErrorCode::BadToken => "That seat can no longer be resumed",
        ErrorCode::RateLimited => "Too many messages too fast; the server is disconnecting you",
        ErrorCode::NoSuchGame => "There is no stored game with that id",
        ErrorCode::ServerFull => "The server is full right now; try again later",
        ErrorCode::ShuttingDown => "The server is shutting down",
        ErrorCode::Internal => "The server ran into a problem",
        ErrorCode::AnalysisUnavailable => "The server cannot analyse that position",
        ErrorCode::Unavailable => "The game cannot be reached right now; try again",
        ErrorCode::NameTaken => "That name is taken",
        ErrorCode::BadCredentials => "Wrong name or password",
        ErrorCode::TooManyAttempts => "Too many login attempts",
        ErrorCode::NoSuchTournament => "There is no tournament with that id",
        ErrorCode::AlreadyEntered => "You have entered that tournament already",
        ErrorCode::TournamentFull => "That tournament has all the entrants it takes",
        ErrorCode::NotOpen => "That tournament takes no entrants now",
        ErrorCode::EntryRefused => "That tournament does not admit you",
    };
    // Where the words say it all, the server's message would only repeat them ("The server is
    // shutting down: the server is shutting down").
    let says_it_all = matches!(
        code,
        ErrorCode::NoSuchRoom
            | ErrorCode::NoSuchGame
            | ErrorCode::NoSuchTournament
            | ErrorCode::ShuttingDown
            | ErrorCode::ServerFull
            | ErrorCode::RateLimited
    );
    let message = message.trim();
    if message.is_empty() || says_it_all {
        format!("{base}.")
    } else {
        format!("{base}: {message}")
    }
}

/// An `error` message from the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerError {
    /// The error code.
    pub code: ErrorCode,
    /// The server's explanation.
    pub message: String,
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&describe_error(self.code, &self.message))
    }
}

impl std::error::Error for ServerError {}

/// What a reconnect achieved.
#[derive(Debug)]
pub enum Resumed {
    /// The seat is ours again: the new connection and the server's `joined` answer (boxed:
    /// a message is much larger than the refusal).
    Seat(Connection, Box<ServerMessage>),
    /// The server refused the token (the seat is gone); the new connection is still usable.
    Refused(Connection, ServerError),
}

/// Connects to `url`, trying up to `attempts` times with a growing pause (from 200 ms,
/// doubling, at most 3 s) between tries.
pub async fn connect_retry(url: &str, attempts: u32) -> Result<Connection, ConnectionError> {
    let mut pause = Duration::from_millis(200);
    let mut attempt = 1;
    loop {
        match Connection::connect(url).await {
            Ok(conn) => return Ok(conn),
            Err(e) if attempt >= attempts => return Err(e),
            Err(_) => {}
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(3));
        attempt += 1;
    }
}

/// How long [`resume`] keeps asking while the server answers `unavailable` (the cluster cannot
/// say where the seat is now, as during a takeover or while Redis restarts).
pub const UNAVAILABLE_PATIENCE: Duration = Duration::from_secs(30);

/// The pause between two `resume`s answered `unavailable`.
const UNAVAILABLE_PAUSE: Duration = Duration::from_secs(1);

/// Reconnects to `url` (see [`connect_retry`]) and takes the seat that `token` belongs to
/// back. The server's `room` snapshot follows on the returned connection. An `unavailable`
/// answer is not final: the same request is sent again a second later, for up to
/// [`UNAVAILABLE_PATIENCE`]; any other refusal is.
pub async fn resume(url: &str, token: &str, attempts: u32) -> Result<Resumed, ConnectionError> {
    let mut conn = connect_retry(url, attempts).await?;
    let msg = ClientMessage::Resume {
        token: token.to_owned(),
    };
    let give_up = tokio::time::Instant::now() + UNAVAILABLE_PATIENCE;
    loop {
        let answer = conn
            .request(&msg, |m| {
                matches!(m, ServerMessage::Joined { .. }).then_some(m)
            })
            .await?;
        return Ok(match answer {
            Ok(joined) => Resumed::Seat(conn, Box::new(joined)),
            Err(refused)
                if refused.code == ErrorCode::Unavailable
                    && tokio::time::Instant::now() + UNAVAILABLE_PAUSE < give_up =>
            {
                tokio::time::sleep(UNAVAILABLE_PAUSE).await;
                continue;
            }
            Err(refused) => Resumed::Refused(conn, refused),
        });
    }
}
