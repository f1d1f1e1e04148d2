//! [`Replica`]: a second copy of every batch the writer makes durable, kept elsewhere (in a
//! cluster, Redis, so that another node can take the games in play over). The writer sends
//! each batch to the replica while it appends the batch to the journal.

use super::live::Write;
use futures_util::future::BoxFuture;

/// Where the writer also sends every batch of writes.
pub(crate) trait Replica: Send + Sync + std::fmt::Debug {
    /// One batch's writes (in the store's order) ready to send, or `None` if none is for the
    /// replica. With `records`, finished records are kept there until [`Replica::delivered`]
    /// (they go on to PostgreSQL). The future gives up by itself after its own patience, and
    /// gives the rooms whose writes the replica did not take: those writes are not this
    /// node's to keep, deliver or acknowledge (the rooms are [`Replica::lost`]).
    fn prepare(&self, batch: &[Write], records: bool) -> Option<BoxFuture<'static, Vec<String>>>;

    /// Finished records PostgreSQL holds now need no copy in the replica.
    fn delivered<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, ()>;

    /// Whether `room` belongs to someone else now (a write for it was refused), so that this
    /// node must stop running it. Asking forgets the answer.
    fn lost(&self, room: &str) -> bool;
}
