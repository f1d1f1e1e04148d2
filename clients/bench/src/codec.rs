//! Reading and writing the protocol's messages on a load-generator connection: [`parse`] with a
//! fast path for `moved` (the bulk of the traffic), [`send_json`], and [`code_name`] for error
//! kinds; [`Garbled`] and [`SendError`] say what went wrong.

use futures_util::{Sink, SinkExt};
use jchomp_protocol::wire::{ClientMessage, Moved, ServerMessage, Snapshot};
use serde::Serialize;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// A server message as the load generator sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[expect(
    clippy::large_enum_variant,
    reason = "a parsed message lives only until it is matched, on the stack; boxing the rare \
              variant would buy nothing"
)]
pub enum Incoming {
    /// An accepted move.
    Moved(Moved),
    /// Anything else.
    Other(ServerMessage),
}

/// How every `moved` the server sends begins (serde writes the tag first).
const MOVED_PREFIX: &str = r#"{"type":"moved","#;
/// How every `room` snapshot begins.
const ROOM_PREFIX: &str = r#"{"type":"room","#;

/// A text frame that is not a server message.
#[derive(Debug, thiserror::Error)]
#[error("{error}: {text}")]
pub struct Garbled {
    /// What serde found wrong.
    #[source]
    pub error: serde_json::Error,
    /// The frame's text.
    pub text: String,
}

impl PartialEq for Garbled {
    /// The same text refused for the same reason at the same place.
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
            && self.error.classify() == other.error.classify()
            && (self.error.line(), self.error.column())
                == (other.error.line(), other.error.column())
    }
}

/// Parses a server message. A `moved` or `room` (the bulk of the traffic) is read straight
/// into [`Moved`] or [`Snapshot`] (the `type` field is ignored), which skips the buffering an
/// internally tagged enum needs; anything else goes through [`ServerMessage`].
pub fn parse(text: &str) -> Result<Incoming, Garbled> {
    let garbled = |error| Garbled {
        error,
        text: text.to_owned(),
    };
    if text.starts_with(MOVED_PREFIX) {
        return serde_json::from_str::<Moved>(text)
            .map(Incoming::Moved)
            .map_err(garbled);
    }
    if text.starts_with(ROOM_PREFIX) {
        return serde_json::from_str::<Snapshot>(text)
            .map(|s| Incoming::Other(ServerMessage::Room(s)))
            .map_err(garbled);
    }
    match serde_json::from_str::<ServerMessage>(text).map_err(garbled)? {
        ServerMessage::Moved(m) => Ok(Incoming::Moved(m)),
        other => Ok(Incoming::Other(other)),
    }
}

/// Why a client message could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// It does not serialize.
    #[error(transparent)]
    Encode(#[from] serde_json::Error),
    /// The connection refused it.
    #[error(transparent)]
    Ws(#[from] WsError),
}

/// Sends one client message as a JSON text frame.
pub async fn send_json<S>(sink: &mut S, msg: &ClientMessage) -> Result<(), SendError>
where
    S: Sink<Message, Error = WsError> + Unpin,
{
    let text = serde_json::to_string(msg)?;
    Ok(sink.send(Message::text(text)).await?)
}

/// The wire name of a reason or error code (`already_eaten`, `rate_limited`, …).
pub fn code_name<T: Serialize>(code: &T) -> String {
    match serde_json::to_value(code) {
        Ok(serde_json::Value::String(s)) => s,
        _ => "unknown".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_protocol::wire::RejectReason;
    use jchomp_testkit::fixtures::{moved, snapshot};

    #[test]
    fn moved_takes_the_fast_path_and_equals_the_full_parse() {
        let m = moved("abc", 7, 1, (2, 3));
        let text = serde_json::to_string(&ServerMessage::Moved(m.clone())).unwrap();
        assert!(text.starts_with(MOVED_PREFIX));
        assert_eq!(parse(&text), Ok(Incoming::Moved(m.clone())));
        // The same message with its fields in another order takes the slow path.
        let shuffled =
            text.replacen(r#""type":"moved","#, "", 1)
                .replacen('}', r#","type":"moved"}"#, 1);
        assert_eq!(parse(&shuffled), Ok(Incoming::Moved(m)));
        assert!(parse("{").is_err());
        let snap = snapshot("abc", "4x4 poison 0,0");
        let text = serde_json::to_string(&ServerMessage::Room(snap.clone())).unwrap();
        assert!(text.starts_with(ROOM_PREFIX));
        assert_eq!(parse(&text), Ok(Incoming::Other(ServerMessage::Room(snap))));
        assert_eq!(code_name(&RejectReason::AlreadyEaten), "already_eaten");
    }
}
