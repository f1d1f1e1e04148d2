//! The login throttle's events in PostgreSQL (`server/migrations/0003_login_events.sql`), on
//! [`PgRecords`]: every node of a cluster counts and reads the same failures and attempts, so a
//! guesser gains nothing by spreading over nodes.

use super::pg_error::PgError;
use super::pg_rows::to_sql_ms;
use super::postgres::PgRecords;

impl PgRecords {
    /// How many events of `kind` for `key` happened after `since_ms`.
    pub(crate) async fn login_events(
        &self,
        kind: &str,
        key: &str,
        since_ms: u64,
    ) -> Result<u64, PgError> {
        let client = self.pool.get().await?;
        let row = client
            .query_one(
                "SELECT count(*) FROM login_events WHERE kind = $1 AND key = $2 AND at_ms > $3",
                &[&kind, &key, &to_sql_ms(since_ms)],
            )
            .await?;
        let n: i64 = row.try_get(0)?;
        Ok(n.max(0) as u64)
    }

    /// Records an event of `kind` for `key` at `at_ms`, and deletes every event at or before
    /// `forget_before_ms` (older than any window).
    pub(crate) async fn add_login_event(
        &self,
        kind: &str,
        key: &str,
        at_ms: u64,
        forget_before_ms: u64,
    ) -> Result<(), PgError> {
        let client = self.pool.get().await?;
        client
            .execute(
                "INSERT INTO login_events (kind, key, at_ms) VALUES ($1, $2, $3)",
                &[&kind, &key, &to_sql_ms(at_ms)],
            )
            .await?;
        client
            .execute(
                "DELETE FROM login_events WHERE at_ms <= $1",
                &[&to_sql_ms(forget_before_ms)],
            )
            .await?;
        Ok(())
    }

    /// Forgets the events of `kind` for `key`.
    pub(crate) async fn clear_login_events(&self, kind: &str, key: &str) -> Result<(), PgError> {
        let client = self.pool.get().await?;
        client
            .execute(
                "DELETE FROM login_events WHERE kind = $1 AND key = $2",
                &[&kind, &key],
            )
            .await?;
        Ok(())
    }
}
