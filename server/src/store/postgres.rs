//! [`PgRecords`]: finished game records in PostgreSQL (`--database postgres://…`) — a pool of
//! connections, the schema migrations of `server/migrations/` applied at start, idempotent
//! inserts (a record delivered twice is stored once, and a rated game rated once, in the same
//! transaction: [`super::pg_ratings`]) and the reads `list_games` and `get_game` need.
//! Accounts, tokens and ratings are in the same database ([`super::pg_accounts`]).

use super::pg_error::PgError;
use super::pg_ratings::rate_record;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use std::time::Duration;
use tokio_postgres::NoTls;

/// The schema migrations, in order: (version, name, SQL). Each runs once, in a transaction,
/// recorded in `jchomp_migrations`; nodes starting together take turns (an advisory lock).
const MIGRATIONS: &[(i32, &str, &str)] = &[
    (1, "games", include_str!("../../migrations/0001_games.sql")),
    (
        2,
        "accounts",
        include_str!("../../migrations/0002_accounts.sql"),
    ),
    (
        3,
        "login_events",
        include_str!("../../migrations/0003_login_events.sql"),
    ),
];

/// The advisory lock key that serialises migrations between nodes.
const MIGRATION_LOCK: i64 = 0x6a63_686f_6d70;

/// Connections the pool holds at most: one writer and a few readers.
const POOL_SIZE: usize = 8;

/// Longest wait for a connection, a new connection or a recycled one.
const POOL_WAIT: Duration = Duration::from_secs(5);

/// The records database.
#[derive(Clone, Debug)]
pub(crate) struct PgRecords {
    pub(super) pool: Pool,
}

impl PgRecords {
    /// Connects to `url` (`postgres://user:password@host:port/database`) and applies the
    /// migrations not yet applied.
    pub(crate) async fn connect(url: &str) -> Result<PgRecords, PgError> {
        let config: tokio_postgres::Config = url.parse().map_err(PgError::Url)?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(POOL_WAIT))
            .create_timeout(Some(POOL_WAIT))
            .recycle_timeout(Some(POOL_WAIT))
            .build()?;
        let records = PgRecords { pool };
        records.migrate().await?;
        Ok(records)
    }

    /// Applies the migrations not yet applied, each once.
    async fn migrate(&self) -> Result<(), PgError> {
        let mut client = self.pool.get().await?;
        let txn = client.transaction().await?;
        txn.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        txn.batch_execute(
            "CREATE TABLE IF NOT EXISTS jchomp_migrations (\
             version INTEGER PRIMARY KEY, name TEXT NOT NULL, \
             applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
        )
        .await?;
        let applied: Vec<i32> = txn
            .query("SELECT version FROM jchomp_migrations", &[])
            .await?
            .iter()
            .map(|row| row.get(0))
            .collect();
        for (version, name, sql) in MIGRATIONS {
            if applied.contains(version) {
                continue;
            }
            txn.batch_execute(sql).await?;
            txn.execute(
                "INSERT INTO jchomp_migrations (version, name) VALUES ($1, $2)",
                &[version, name],
            )
            .await?;
            tracing::info!(version, name, "database migration applied");
        }
        txn.commit().await?;
        Ok(())
    }

    /// Stores records (id, JSON) in one transaction; an id already stored is left as it is.
    /// A new record of a rated game is rated in the same transaction. Returns how many were
    /// new.
    pub(crate) async fn insert(&self, records: &[(String, String)]) -> Result<u64, PgError> {
        let mut client = self.pool.get().await?;
        let txn = client.transaction().await?;
        let stmt = txn
            .prepare_cached(
                "INSERT INTO games (id, record) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
            )
            .await?;
        let mut new = 0;
        for (id, json) in records {
            if txn.execute(&stmt, &[id, json]).await? > 0 {
                new += 1;
                rate_record(&txn, json).await?;
            }
        }
        txn.commit().await?;
        Ok(new)
    }

    /// The newest `limit` records (sequence number, JSON), newest first.
    pub(crate) async fn newest(&self, limit: usize) -> Result<Vec<(u64, String)>, PgError> {
        let client = self.pool.get().await?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = client
            .query(
                "SELECT seq, record FROM games ORDER BY seq DESC LIMIT $1",
                &[&limit],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|row| (row.get::<_, i64>(0).unsigned_abs(), row.get(1)))
            .collect())
    }

    /// One record's JSON.
    pub(crate) async fn get(&self, id: &str) -> Result<Option<String>, PgError> {
        let client = self.pool.get().await?;
        let row = client
            .query_opt("SELECT record FROM games WHERE id = $1", &[&id])
            .await?;
        Ok(row.map(|r| r.get(0)))
    }

    /// Whether PostgreSQL answers a query now.
    pub(crate) async fn ping(&self) -> Result<(), PgError> {
        let client = self.pool.get().await?;
        client.simple_query("SELECT 1").await?;
        Ok(())
    }
}

/// A database URL with its password hidden, for logs and messages.
pub(crate) fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{}{user}:…{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error;

    #[tokio::test]
    async fn a_bad_url_is_refused_with_its_cause() {
        let Err(e) = PgRecords::connect("postgres://user:secret@host:notaport/db").await else {
            panic!("a URL with a bad port connected");
        };
        assert!(matches!(e, PgError::Url(_)), "{e:?}");
        assert!(e.to_string().starts_with("bad database URL: "), "{e}");
        assert!(e.source().is_some());
        assert!(!e.to_string().contains("secret"), "{e}");
    }

    #[test]
    fn passwords_are_hidden() {
        assert_eq!(
            redacted("postgres://jchomp:s3cret@db:5432/games"),
            "postgres://jchomp:…@db:5432/games"
        );
        assert_eq!(
            redacted("postgres://127.0.0.1/games"),
            "postgres://127.0.0.1/games"
        );
    }

    #[test]
    fn migrations_are_numbered_in_order() {
        for (i, (version, _, sql)) in MIGRATIONS.iter().enumerate() {
            assert_eq!(*version, i as i32 + 1);
            assert!(!sql.trim().is_empty());
        }
    }
}
