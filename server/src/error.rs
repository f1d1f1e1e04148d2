//! [`ServerError`]: why the server could not start or run: in words, the cause included, and
//! kept as its [`source`](std::error::Error::source).

use crate::store::StoreError;
use std::path::PathBuf;

/// Why [`crate::run`] failed.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The game database could not be opened.
    #[error("cannot open the game store in {path}: {source}")]
    Store {
        /// The data directory.
        path: PathBuf,
        /// What went wrong.
        source: StoreError,
    },
    /// The built-in levels' accounts could not be made.
    #[error("cannot prepare the accounts: {0}")]
    Accounts(String),
    /// PostgreSQL (`--database`) could not be reached or migrated.
    #[error("cannot use the database {url}: {source}")]
    Database {
        /// The database URL, its password hidden.
        url: String,
        /// What went wrong.
        source: crate::store::PgError,
    },
    /// Redis (`--cluster`) could not be reached.
    #[error("cannot join the cluster at {url}: {source}")]
    Cluster {
        /// The Redis URL, its password hidden.
        url: String,
        /// What went wrong.
        source: crate::cluster::ClusterError,
    },
    /// The tournaments file (`--tournaments`) is refused.
    #[error("cannot use the tournaments file {path}: {why}")]
    Tournaments {
        /// The file.
        path: PathBuf,
        /// Which entry is refused, and why (or why the file cannot be read).
        why: String,
    },
    /// The listener failed.
    #[error("the listener failed: {0}")]
    Io(#[from] std::io::Error),
}
