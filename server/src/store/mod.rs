//! Storage: games in play and finished games, made durable before a room tells anyone about
//! them. Rooms hold a [`StoreHandle`]; one writer task ([`writer`]) appends their writes to the
//! journal ([`journal`]), copies them to a [`Replica`] when there is one, and takes them into the
//! database ([`db`]) at checkpoints; finished records may go on to PostgreSQL ([`postgres`]).
//! Accounts and their tokens are in the same database ([`accounts`]), and so are ratings,
//! updated with each rated game's record, once ([`schema`], [`ratings`]).
//! Nothing here knows about rooms, connections or the cluster.

pub(crate) mod accounts;
mod db;
mod error;
mod handle;
mod journal;
pub(crate) mod live;
mod postgres;
pub(crate) mod ratings;
mod replica;
mod schema;
mod writer;

pub use db::DB_FILE;
pub(crate) use db::Store;
pub use error::StoreError;
pub(crate) use handle::{StoreHandle, StoreOptions, StoreTimings};
pub use postgres::PgError;
pub(crate) use postgres::PgRecords;
pub(crate) use postgres::redacted;
pub(crate) use replica::Replica;
