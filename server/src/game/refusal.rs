//! [`Refusal`]: why the game refused a client's request, as the `error` message the client
//! gets (a code and a sentence).

use jchomp_protocol::wire::ErrorCode;

/// Why a room refused a request (sent to the client as an `error`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The error code.
    pub code: ErrorCode,
    /// The message in words.
    pub message: String,
}

impl Refusal {
    /// A refusal with this code and message.
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Refusal {
            code,
            message: message.into(),
        }
    }
}
