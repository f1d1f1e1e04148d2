//! Turning a client's text frame into a [`ClientMessage`], with `bad_request` messages that say
//! what is wrong, and the checks on names, ids and tokens.

use jchomp_protocol::wire::{BadName, ClientMessage, check_name};

/// Longest room id, game id or token accepted.
pub(crate) const MAX_ID: usize = 64;

/// How a `move` begins when its tag comes first.
const MOVE_PREFIX: &str = r#"{"type":"move","#;

/// The fields of a `move`. The tag is a field too, so that a second `type` is refused as the
/// enum's own parse refuses it; other unknown fields are ignored by both.
#[derive(serde::Deserialize)]
struct MoveFields {
    #[serde(rename = "type")]
    _tag: serde::de::IgnoredAny,
    row: i64,
    col: i64,
}

/// Why a client's message is a bad request; the message is what the client is told.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BadRequest {
    /// The text is not JSON.
    #[error("not JSON: {0}")]
    NotJson(serde_json::Error),
    /// The JSON is not an object.
    #[error("every message is a JSON object with a \"type\"")]
    NotAnObject,
    /// The `type` is not a string.
    #[error("\"type\" must be a string")]
    TypeNotAString,
    /// There is no `type`.
    #[error("missing field `type`")]
    NoType,
    /// The type is unknown or its fields are wrong.
    #[error("{0}")]
    Fields(serde_json::Error),
}

/// Parses a client message, or says why it is a bad request.
///
/// A well-formed message is read straight into [`ClientMessage`] (one pass, no intermediate
/// tree); only a message that fails is read again as a JSON value, to say what is wrong.
pub(crate) fn parse(text: &str) -> Result<ClientMessage, BadRequest> {
    // A move (the bulk of the traffic) as clients write it, tag first, is read straight into
    // its fields: an internally tagged enum buffers every field before it knows the variant.
    if text.starts_with(MOVE_PREFIX)
        && let Ok(MoveFields { row, col, .. }) = serde_json::from_str(text)
    {
        return Ok(ClientMessage::Move { row, col });
    }
    parse_any(text)
}

/// Parses any client message through the enum, or says why it is a bad request.
fn parse_any(text: &str) -> Result<ClientMessage, BadRequest> {
    if let Ok(msg) = serde_json::from_str::<ClientMessage>(text) {
        return Ok(msg);
    }
    let value: serde_json::Value = serde_json::from_str(text).map_err(BadRequest::NotJson)?;
    let Some(obj) = value.as_object() else {
        return Err(BadRequest::NotAnObject);
    };
    match obj.get("type") {
        Some(serde_json::Value::String(_)) => {}
        Some(_) => return Err(BadRequest::TypeNotAString),
        None => return Err(BadRequest::NoType),
    }
    serde_json::from_value(value).map_err(BadRequest::Fields)
}

/// A trimmed display name by the protocol's one rule ([`check_name`]).
pub(crate) fn checked_name(name: &str) -> Result<String, BadName> {
    check_name(name).map(str::to_owned)
}

/// Whether an id or token is short enough to look up.
pub(crate) fn plausible_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_ID
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parse with the error as the client reads it.
    fn parse(text: &str) -> Result<ClientMessage, String> {
        super::parse(text).map_err(|e| e.to_string())
    }

    fn parse_any(text: &str) -> Result<ClientMessage, String> {
        super::parse_any(text).map_err(|e| e.to_string())
    }

    fn check_name(name: &str) -> Result<String, String> {
        super::checked_name(name).map_err(|e| e.to_string())
    }

    #[test]
    fn parses_the_contract_messages() {
        assert_eq!(
            parse(r#"{"type":"list_rooms"}"#),
            Ok(ClientMessage::ListRooms)
        );
        assert_eq!(
            parse(r#"{"type":"move","row":1,"col":-2}"#),
            Ok(ClientMessage::Move { row: 1, col: -2 })
        );
        assert_eq!(
            parse(r#"{"type":"add_bot"}"#),
            Ok(ClientMessage::AddBot {
                bot: None,
                seat: None
            })
        );
        assert_eq!(parse(r#"{"type":"rematch"}"#), Ok(ClientMessage::Rematch));
    }

    #[test]
    fn the_fast_path_for_moves_reads_what_the_enum_reads() {
        for text in [
            r#"{"type":"move","row":1,"col":-2}"#,
            r#"{"type":"move","col":3,"row":4,"extra":[1,{"a":2}]}"#,
            r#"{"type":"move","row":1,"col":2,"type":"list_rooms"}"#,
            r#"{"type":"move","row":1}"#,
            r#"{"type":"move","row":1.5,"col":2}"#,
            r#"{"type":"move","row":99999999999999999999,"col":2}"#,
            r#"{"type":"move","row":1,"col":2"#,
            r#"{"type":"move","row":null,"col":2}"#,
        ] {
            let fast = parse(text);
            assert_eq!(fast, parse_any(text), "{text}");
        }
    }

    #[test]
    fn explains_bad_requests() {
        assert!(parse("nope").unwrap_err().starts_with("not JSON"));
        assert!(parse("[1]").unwrap_err().contains("JSON object"));
        assert!(
            parse(r#"{"row":1}"#)
                .unwrap_err()
                .contains("missing field `type`")
        );
        assert!(
            parse(r#"{"type":7}"#)
                .unwrap_err()
                .contains("must be a string")
        );
        assert!(
            parse(r#"{"type":"fly"}"#)
                .unwrap_err()
                .contains("unknown variant `fly`")
        );
        assert!(
            parse(r#"{"type":"move","row":1}"#)
                .unwrap_err()
                .contains("missing field `col`")
        );
        assert!(
            parse(r#"{"type":"move","row":"a","col":1}"#)
                .unwrap_err()
                .contains("invalid type")
        );
    }

    #[test]
    fn names_are_checked() {
        assert_eq!(check_name("  bob "), Ok("bob".to_string()));
        assert_eq!(
            check_name(""),
            Err("name must be 1–32 characters, got 0".to_string())
        );
        assert!(check_name(&"x".repeat(33)).is_err());
        assert!(check_name("a\u{7}b").is_err());
    }
}
