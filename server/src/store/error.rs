//! [`StoreError`]: why the store failed, for every part of it.

use super::pg_error::PgError;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The data directory could not be created.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The database failed.
    #[error("{0}")]
    Db(#[from] redb::Error),
    /// A stored record is not valid JSON.
    #[error("corrupt record: {0}")]
    Json(#[from] serde_json::Error),
    /// The blocking task reading the database failed.
    #[error("{0}")]
    Task(#[from] tokio::task::JoinError),
    /// PostgreSQL failed or is unreachable.
    #[error("PostgreSQL: {0}")]
    Postgres(#[from] PgError),
}

macro_rules! db_err {
    ($($t:ty),*) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> Self {
                StoreError::Db(e.into())
            }
        }
    )*};
}
db_err!(
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError
);
