//! The JSON-over-WebSocket transport both browser protocols share (the DevTools protocol and
//! WebDriver BiDi): commands numbered by `id` and answered by the reply with that `id`, and
//! every other message (an event) handed to a callback.

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

use super::WAIT;

type Replies = Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>;

/// One connection to a browser's remote-control endpoint.
pub struct Rpc {
    out: mpsc::UnboundedSender<String>,
    replies: Replies,
    next: AtomicU64,
}

impl Rpc {
    /// Connects to `endpoint`; `on_event` sees every message that is not a reply.
    pub async fn connect(endpoint: &str, on_event: impl Fn(&Value) + Send + 'static) -> Rpc {
        let (ws, _) = tokio_tungstenite::connect_async(endpoint)
            .await
            .unwrap_or_else(|e| panic!("the browser's endpoint {endpoint} answers: {e}"));
        let (mut sink, mut stream) = ws.split();
        let (out, mut rx) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(text) = rx.recv().await {
                if sink.send(Message::text(text)).await.is_err() {
                    break;
                }
            }
        });
        let replies: Replies = Arc::default();
        let r = replies.clone();
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let Message::Text(text) = msg else { continue };
                let Ok(v) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                let waiting = v["id"]
                    .as_u64()
                    .and_then(|id| r.lock().unwrap().remove(&id));
                match waiting {
                    Some(tx) => {
                        let _ = tx.send(v);
                    }
                    None => on_event(&v),
                }
            }
        });
        Rpc {
            out,
            replies,
            next: AtomicU64::new(1),
        }
    }

    /// Sends `msg` (its `method`, `params` and whatever else the protocol wants) with a fresh
    /// `id`, and returns the whole reply.
    pub async fn call(&self, mut msg: Value) -> Value {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        msg["id"] = id.into();
        let (tx, rx) = oneshot::channel();
        self.replies.lock().unwrap().insert(id, tx);
        self.out.send(msg.to_string()).unwrap();
        tokio::time::timeout(WAIT, rx)
            .await
            .unwrap_or_else(|_| panic!("no answer to {}", msg["method"]))
            .unwrap()
    }
}
