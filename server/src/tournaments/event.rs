//! [`Event`]: the closed set of messages a tournament's task reacts to, from connections, the
//! HTTP API and the followers of its games.

use super::state::{Entrant, Tournament};
use crate::game::outbox::Peer;
use crate::game::refusal::Refusal;
use crate::pairing::Found;
use jchomp_protocol::json::ResultJson;
use jchomp_protocol::wire::{TournamentSummary, TournamentView};
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

/// An account's connection that plays its tournament games.
#[derive(Clone, Debug)]
pub(crate) struct Link {
    /// The connection: it watches the tournament and is told of each game.
    pub peer: Peer,
    /// Where its session is handed each seat, which it takes up as a paired seat with a
    /// token is taken (`Found::Elsewhere`: a `resume`).
    pub seats: mpsc::Sender<Found>,
}

impl Link {
    /// Whether the connection is gone.
    pub(crate) fn is_gone(&self) -> bool {
        self.peer.is_gone() || self.seats.is_closed()
    }
}

/// A tournament's line in the list, with what the list is sorted and counted by (in a
/// cluster, kept in Redis as JSON).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Line {
    /// When it was made (Unix ms): the list is newest first.
    pub started_ms: u64,
    /// The line itself.
    pub summary: TournamentSummary,
    /// The account that made it (none for the server's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creator: Option<String>,
}

impl Line {
    /// Tournament `t`'s line.
    pub(crate) fn of(t: &Tournament) -> Line {
        Line {
            started_ms: t.started_ms,
            summary: t.summary(),
            creator: t.creator.clone(),
        }
    }
}

/// Everything a tournament's task reacts to.
pub(crate) enum Event {
    /// A connection watches: it is sent the view now and whenever it changes.
    Watch {
        /// The watcher.
        peer: Peer,
        /// Whether its first view lists every game (the pushed ones list the recent games).
        all_games: bool,
    },
    /// The view now.
    View(oneshot::Sender<TournamentView>),
    /// The tournament's line in the list, with when it began.
    Summary(oneshot::Sender<Line>),
    /// An account enters (or, entered already and without a live connection, plays on through
    /// this one); answered with a refusal, if any.
    Join {
        /// The entrant it would be.
        entrant: Entrant,
        /// Its connection.
        link: Link,
        /// The answer.
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    /// An entrant withdraws; answered with a refusal, if any.
    Withdraw {
        /// Its name.
        name: String,
        /// Its connection, shown the view.
        peer: Peer,
        /// The answer.
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    /// Game `game` (an index into its games) ended with `result`; `None` when its room went
    /// away without a result.
    Ended {
        /// The game's index.
        game: usize,
        /// How it ended.
        result: Option<ResultJson>,
    },
}
