//! [`Event`]: the closed set of messages a tournament's task reacts to, from connections, the
//! HTTP API and the followers of its games.

use crate::game::outbox::Peer;
use jchomp_protocol::json::ResultJson;
use jchomp_protocol::wire::{TournamentSummary, TournamentView};
use tokio::sync::oneshot;

/// Everything a tournament's task reacts to.
pub(crate) enum Event {
    /// A connection watches: it is sent the view now and whenever it changes.
    Watch(Peer),
    /// The view now.
    View(oneshot::Sender<TournamentView>),
    /// The tournament's line in the list, with when it began.
    Summary(oneshot::Sender<(u64, TournamentSummary)>),
    /// Game `game` (an index into its games) ended with `result`; `None` when its room went
    /// away without a result.
    Ended {
        /// The game's index.
        game: usize,
        /// How it ended.
        result: Option<ResultJson>,
    },
}
