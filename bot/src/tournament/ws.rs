//! A minimal typed WebSocket client for tournament games on a server: one connection per seat,
//! [`ClientMessage`] out, [`ServerMessage`] in, with small WebSocket limits. (The `jchomp`
//! client's connection lives in a crate that depends on this one, so it cannot be used here.)

use futures_util::{SinkExt, StreamExt};
use jchomp_protocol::wire::{ClientMessage, ServerMessage};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Largest message accepted from the server.
const MAX_MESSAGE: usize = 1 << 20;

/// One seat's connection.
#[derive(Debug)]
pub struct WsClient {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

fn config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE))
        .read_buffer_size(16 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(256 * 1024)
}

impl WsClient {
    /// Connects to `url` (`ws://HOST:PORT/ws`).
    pub async fn connect(url: &str) -> Result<WsClient, String> {
        let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config()), true)
            .await
            .map_err(|e| format!("cannot connect to {url}: {e}"))?;
        Ok(WsClient { ws })
    }

    /// Sends one message.
    pub async fn send(&mut self, msg: &ClientMessage) -> Result<(), String> {
        let text = serde_json::to_string(msg).map_err(|e| e.to_string())?;
        self.ws
            .send(Message::text(text))
            .await
            .map_err(|e| format!("the server connection broke: {e}"))
    }

    /// The next message, waiting at most `wait`. Pings are answered underneath.
    pub async fn recv(&mut self, wait: Duration) -> Result<ServerMessage, String> {
        loop {
            let frame = tokio::time::timeout(wait, self.ws.next())
                .await
                .map_err(|_| format!("the server sent nothing for {} s", wait.as_secs()))?;
            match frame {
                None => return Err("the server closed the connection".into()),
                Some(Err(e)) => return Err(format!("the server connection broke: {e}")),
                Some(Ok(Message::Text(text))) => {
                    return serde_json::from_str(&text)
                        .map_err(|e| format!("the server sent an unknown message ({e}): {text}"));
                }
                Some(Ok(Message::Close(frame))) => {
                    return Err(format!("the server closed the connection: {frame:?}"));
                }
                Some(Ok(_)) => {}
            }
        }
    }

    /// Closes the connection politely (without waiting long for the answer).
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(1), self.ws.close(None)).await;
    }
}
