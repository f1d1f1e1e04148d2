//! [`ServerError`]: why the server could not start or run.

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
    /// The listener failed.
    #[error("listener error: {0}")]
    Io(#[from] std::io::Error),
}
