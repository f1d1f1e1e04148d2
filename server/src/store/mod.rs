//! Storage: games in play and finished games, made durable before a room tells anyone about
//! them. Rooms hold a [`StoreHandle`]; one writer task ([`writer`]) appends their writes to the
//! journal ([`journal`]), copies them to a [`Replica`] when there is one, and takes them into the
//! database ([`db`]) at checkpoints; finished records may go on to PostgreSQL ([`postgres`]).
//! Accounts, their tokens and ratings are where the finished games are ([`AccountStore`]): in
//! the same database ([`accounts`], [`schema`], [`ratings`]), or with PostgreSQL there
//! ([`pg_accounts`], [`pg_ratings`]); a rated game's ratings are updated with its record, once.
//! Nothing here knows about rooms, connections or the cluster.

mod account_store;
pub(crate) mod accounts;
mod db;
mod error;
mod handle;
mod journal;
pub(crate) mod live;
mod pg_accounts;
mod pg_error;
mod pg_ratings;
mod pg_rows;
mod pg_throttle;
mod postgres;
pub(crate) mod ratings;
mod replica;
mod schema;
mod tournaments;
mod writer;

pub(crate) use account_store::AccountStore;
pub use db::DB_FILE;
pub(crate) use db::Store;
pub use error::StoreError;
pub(crate) use handle::{StoreHandle, StoreOptions, StoreTimings};
pub use pg_error::PgError;
pub(crate) use postgres::PgRecords;
pub(crate) use postgres::redacted;
pub(crate) use replica::Replica;
pub(crate) use tournaments::TournamentStore;
