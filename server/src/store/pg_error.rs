//! [`PgError`]: why PostgreSQL failed, for every part of the store that uses it.

/// Why PostgreSQL failed (the URL's password never appears): in words, the driver's error
/// included, and kept as its [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    /// The `--database` URL does not parse.
    #[error("bad database URL: {0}")]
    Url(#[source] tokio_postgres::Error),
    /// The connection pool could not be built.
    #[error("cannot build the connection pool: {0}")]
    Pool(#[from] deadpool_postgres::BuildError),
    /// No connection could be had from the pool (PostgreSQL unreachable, or every connection
    /// busy for too long).
    #[error("cannot get a connection: {0}")]
    Connect(#[from] deadpool_postgres::PoolError),
    /// A statement failed.
    #[error("{0}")]
    Query(#[from] tokio_postgres::Error),
    /// A stored kind or outcome is not one the server writes.
    #[error("corrupt value: {0}")]
    Corrupt(#[from] serde_json::Error),
}
