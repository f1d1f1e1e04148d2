//! What nodes tell each other through Redis pub/sub ([`Envelope`], JSON): requests of a
//! client connected to one node for a room (or a tournament) of another, the owner's replies,
//! the frames the room (or tournament) sends back to that client, and tournament seats.

use crate::game::event::LeaveOutcome;
use crate::game::refusal::Refusal;
use jchomp_protocol::rules::Seat;
use jchomp_protocol::wire::{ErrorCode, RoomSummary};
use serde::{Deserialize, Serialize};

/// The pub/sub channel a node listens on.
pub(crate) fn channel(node: &str) -> String {
    format!("jchomp:to:{node}")
}

/// The pub/sub channel every node listens on too.
pub(crate) const ALL: &str = "jchomp:to:all";

/// One message between nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Envelope {
    /// A client's request for a room, to the room's owner.
    Request {
        /// The sending node.
        from: String,
        /// The client's connection id on the sending node.
        conn: u64,
        /// The room.
        room: String,
        /// Matches the reply (0: no reply expected).
        req: u64,
        /// What the client asks.
        op: Op,
    },
    /// The owner's answer to a request.
    Reply {
        /// The request answered.
        req: u64,
        /// The answer.
        body: ReplyBody,
    },
    /// Frames a room (or a tournament) sends to a client of the receiving node, in order.
    Out {
        /// The sending node (the room's owner, as far as it knows).
        from: String,
        /// The client's connection id on the receiving node.
        conn: u64,
        /// The frames.
        frames: Vec<Frame>,
        /// Whether they come from a tournament the sender runs (not from a room, so they are
        /// not held to the client's room's owner).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        tournament: bool,
    },
    /// A client's request for a tournament, to the node that runs it.
    Tournament {
        /// The sending node.
        from: String,
        /// The client's connection id on the sending node.
        conn: u64,
        /// The tournament.
        tournament: String,
        /// Matches the reply (0: no reply expected).
        req: u64,
        /// What the client asks.
        ask: Ask,
    },
    /// From the node that runs a tournament to an entrant's node: a seat of a tournament game
    /// for the entrant's connection to take with its token.
    TournamentSeat {
        /// The entrant's connection on the receiving node.
        conn: u64,
        /// The seat's token.
        token: String,
    },
    /// From a node to itself, once per lease renewal: its subscription still delivers (a
    /// silent network cut leaves a subscription that hears nothing without breaking it).
    Heartbeat,
    /// From the node that pairs the pools to a waiter's node: a seat in a room of the sender,
    /// for the waiter to take with its token.
    Seat(Offer),
    /// To every node ([`ALL`]): a room has a new owner (it took the room over from a dead
    /// node), so relays to the room go there now; or, with the owner `#closed`, the room closed
    /// with its dead node (it had no game in play), so relays to it end.
    Owner {
        /// The room.
        room: String,
        /// Its new owner, or `#closed`.
        owner: String,
    },
}

/// A client's request for a tournament another node runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ask", rename_all = "snake_case")]
pub(crate) enum Ask {
    /// The connection's account enters (or plays on through this connection).
    Join {
        /// The account.
        name: String,
        /// Whether it is a bot account.
        bot: bool,
    },
    /// The connection's account withdraws.
    Withdraw {
        /// The account.
        name: String,
    },
    /// The connection is gone (no reply).
    Left,
}

/// A seat in a room of another node for one of this node's waiters, taken with its token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Offer {
    /// The waiter's connection on this node.
    pub conn: u64,
    /// The room.
    pub room: String,
    /// The preset it waited for.
    pub preset: String,
    /// The seat's token.
    pub token: String,
}

/// A client's request, as the room's event without the connection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum Op {
    /// Take a free seat.
    Join {
        /// The display name.
        name: String,
        /// The seat asked for (the lowest free one if absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
    },
    /// Watch the room.
    Spectate,
    /// Take the seat of a token.
    Resume {
        /// The token.
        token: String,
    },
    /// A move.
    Move {
        /// Anchor row.
        row: i64,
        /// Anchor column.
        col: i64,
    },
    /// The host adds a bot.
    AddBot {
        /// Its spec.
        spec: Option<String>,
        /// The seat asked for (the lowest free one if absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
    },
    /// A snapshot, please.
    Sync,
    /// A seat of a finished game asks to play again.
    Rematch,
    /// Leave the room.
    Leave {
        /// Stay if seated in a game not over.
        keep_active_seat: bool,
    },
    /// The connection is gone.
    Disconnected,
    /// After a takeover: the connection held this seat on the room's old owner and takes it
    /// back on the new one (nodes trust each other; the seat must be free of any connection).
    Reattach {
        /// The seat.
        seat: Seat,
    },
}

impl Op {
    /// Whether the client sent it and waits for what it does (a move's `moved`, a snapshot, …)
    /// with no answer of its own coming back between the nodes: if it cannot be sent, the
    /// client is told at once.
    pub(crate) fn tells_client(&self) -> bool {
        matches!(
            self,
            Op::Move { .. } | Op::AddBot { .. } | Op::Sync | Op::Rematch
        )
    }
}

/// The answer to a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ReplyBody {
    /// A seat, or why not (join, resume).
    Seat(Result<Seat, Refused>),
    /// Done, or why not (spectate).
    Done(Result<(), Refused>),
    /// What a leave did.
    Leave(Leaving),
    /// Done, or why not (a tournament's entry or withdrawal).
    Entered(Result<(), Refused>),
}

/// A [`Refusal`] between nodes (the game's type knows nothing of the wire).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Refused {
    code: ErrorCode,
    message: String,
}

impl From<Refusal> for Refused {
    fn from(r: Refusal) -> Self {
        Refused {
            code: r.code,
            message: r.message,
        }
    }
}

impl From<Refused> for Refusal {
    fn from(r: Refused) -> Self {
        Refusal::new(r.code, r.message)
    }
}

/// A [`LeaveOutcome`] between nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Leaving {
    /// [`LeaveOutcome::Left`].
    Left,
    /// [`LeaveOutcome::Stayed`].
    Stayed(Seat),
}

impl From<LeaveOutcome> for Leaving {
    fn from(o: LeaveOutcome) -> Self {
        match o {
            LeaveOutcome::Left => Leaving::Left,
            LeaveOutcome::Stayed(seat) => Leaving::Stayed(seat),
        }
    }
}

impl From<Leaving> for LeaveOutcome {
    fn from(o: Leaving) -> Self {
        match o {
            Leaving::Left => LeaveOutcome::Left,
            Leaving::Stayed(seat) => LeaveOutcome::Stayed(seat),
        }
    }
}

/// A frame for a client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Frame {
    /// A text message, as the room serialised it.
    Text(String),
    /// A close frame with this code.
    Close(u16),
}

/// A room's line in the cluster's room directory: its owner, when it was created (to list
/// rooms oldest first on every node) and its summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct DirectoryEntry {
    /// The node that runs the room.
    pub owner: String,
    /// Creation order across the cluster: milliseconds since the epoch, then a node counter.
    pub order: (u64, u64),
    /// The room as `list_rooms` shows it.
    pub summary: RoomSummary,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_round_trip_as_json() {
        let refusal = Refusal::new(ErrorCode::RoomFull, "room x is full (2 seats)");
        for e in [
            Envelope::Request {
                from: "n1".into(),
                conn: 7,
                room: "abc".into(),
                req: 3,
                op: Op::Move { row: 2, col: -1 },
            },
            Envelope::Reply {
                req: 3,
                body: ReplyBody::Seat(Err(refusal.into())),
            },
            Envelope::Reply {
                req: 4,
                body: ReplyBody::Leave(LeaveOutcome::Stayed(1).into()),
            },
            Envelope::Out {
                from: "n2".into(),
                conn: 7,
                frames: vec![Frame::Text("{}".into()), Frame::Close(4001)],
                tournament: false,
            },
            Envelope::Tournament {
                from: "n1".into(),
                conn: 7,
                tournament: "t1".into(),
                req: 5,
                ask: Ask::Join {
                    name: "ann".into(),
                    bot: true,
                },
            },
            Envelope::Reply {
                req: 5,
                body: ReplyBody::Entered(Ok(())),
            },
            Envelope::TournamentSeat {
                conn: 7,
                token: "t0k3n".into(),
            },
            Envelope::Owner {
                room: "abc".into(),
                owner: "n2".into(),
            },
            Envelope::Heartbeat,
            Envelope::Seat(Offer {
                conn: 7,
                room: "abc".into(),
                preset: "duel".into(),
                token: "t0k3n".into(),
            }),
            Envelope::Request {
                from: "n1".into(),
                conn: 7,
                room: "abc".into(),
                req: 0,
                op: Op::Reattach { seat: 1 },
            },
        ] {
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(
                serde_json::from_str::<Envelope>(&json).unwrap(),
                e,
                "{json}"
            );
        }
        assert_eq!(channel("n1"), "jchomp:to:n1");
    }
}
