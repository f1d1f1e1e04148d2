//! Accounts and their tokens in PostgreSQL (`server/migrations/0002_accounts.sql`), on
//! [`PgRecords`]: the same operations as the embedded store's, so that a session or bot token
//! made on one node of a cluster works on every node. Each change is one statement or one
//! transaction, committed before it returns.

use super::accounts::{Account, Token, TokenKind};
use super::postgres::{PgError, PgRecords};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_postgres::Row;

/// The columns of an account, in the order [`account_of`] reads them.
const ACCOUNT_COLUMNS: &str = "name, kind, owner, password, created_ms, deleted";

/// A kind or outcome as the text the server writes for it (its serde name).
pub(super) fn text<T: Serialize>(value: &T) -> Result<String, PgError> {
    Ok(match serde_json::to_value(value)? {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    })
}

/// A kind or outcome from its text.
pub(super) fn parsed<T: DeserializeOwned>(text: String) -> Result<T, PgError> {
    Ok(serde_json::from_value(serde_json::Value::String(text))?)
}

/// Milliseconds since the epoch as PostgreSQL keeps them.
pub(super) fn to_sql_ms(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// Milliseconds since the epoch as PostgreSQL kept them.
pub(super) fn from_sql_ms(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0)
}

/// An account from a row of [`ACCOUNT_COLUMNS`].
fn account_of(row: &Row) -> Result<Account, PgError> {
    Ok(Account {
        name: row.try_get(0)?,
        kind: parsed(row.try_get(1)?)?,
        owner: row.try_get(2)?,
        password: row.try_get(3)?,
        created_ms: from_sql_ms(row.try_get(4)?),
        deleted: row.try_get(5)?,
    })
}

/// Accounts and tokens in PostgreSQL.
impl PgRecords {
    /// Stores a new account under `key`; false (nothing changed) if the key is taken.
    pub(super) async fn create(&self, key: &str, account: &Account) -> Result<bool, PgError> {
        let client = self.pool.get().await?;
        let n = client
            .execute(
                "INSERT INTO accounts (key, name, kind, owner, password, created_ms, deleted) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (key) DO NOTHING",
                &[
                    &key,
                    &account.name,
                    &text(&account.kind)?,
                    &account.owner,
                    &account.password,
                    &to_sql_ms(account.created_ms),
                    &account.deleted,
                ],
            )
            .await?;
        Ok(n == 1)
    }

    /// The account under `key`.
    pub(super) async fn account(&self, key: &str) -> Result<Option<Account>, PgError> {
        let client = self.pool.get().await?;
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE key = $1");
        let row = client.query_opt(&sql, &[&key]).await?;
        row.as_ref().map(account_of).transpose()
    }

    /// Replaces the account under `key` (which must exist).
    pub(super) async fn update(&self, key: &str, account: &Account) -> Result<(), PgError> {
        let client = self.pool.get().await?;
        client
            .execute(
                "UPDATE accounts SET name = $2, kind = $3, owner = $4, password = $5, \
                 created_ms = $6, deleted = $7 WHERE key = $1",
                &[
                    &key,
                    &account.name,
                    &text(&account.kind)?,
                    &account.owner,
                    &account.password,
                    &to_sql_ms(account.created_ms),
                    &account.deleted,
                ],
            )
            .await?;
        Ok(())
    }

    /// Every account, by key.
    pub(super) async fn accounts(&self) -> Result<Vec<(String, Account)>, PgError> {
        let client = self.pool.get().await?;
        let sql = format!("SELECT {ACCOUNT_COLUMNS}, key FROM accounts");
        let rows = client.query(&sql, &[]).await?;
        rows.iter()
            .map(|row| Ok((row.try_get(6)?, account_of(row)?)))
            .collect()
    }

    /// Stores a token under its hash.
    pub(super) async fn add_token(&self, hash: &str, token: &Token) -> Result<(), PgError> {
        let client = self.pool.get().await?;
        client
            .execute(
                "INSERT INTO account_tokens (hash, account, kind, expires_ms) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (hash) DO UPDATE SET \
                 account = EXCLUDED.account, kind = EXCLUDED.kind, expires_ms = EXCLUDED.expires_ms",
                &[
                    &hash,
                    &token.account,
                    &text(&token.kind)?,
                    &token.expires_ms.map(to_sql_ms),
                ],
            )
            .await?;
        Ok(())
    }

    /// The token stored under `hash`.
    pub(super) async fn token(&self, hash: &str) -> Result<Option<Token>, PgError> {
        let client = self.pool.get().await?;
        let row = client
            .query_opt(
                "SELECT account, kind, expires_ms FROM account_tokens WHERE hash = $1",
                &[&hash],
            )
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        Ok(Some(Token {
            account: row.try_get(0)?,
            kind: parsed(row.try_get(1)?)?,
            expires_ms: row.try_get::<_, Option<i64>>(2)?.map(from_sql_ms),
        }))
    }

    /// Removes the token under `hash`; false if there was none.
    pub(super) async fn revoke(&self, hash: &str) -> Result<bool, PgError> {
        let client = self.pool.get().await?;
        let n = client
            .execute("DELETE FROM account_tokens WHERE hash = $1", &[&hash])
            .await?;
        Ok(n > 0)
    }

    /// Removes every token of `key` of the given kind (every kind if `None`); returns how many.
    pub(super) async fn revoke_all(
        &self,
        key: &str,
        kind: Option<TokenKind>,
    ) -> Result<usize, PgError> {
        let client = self.pool.get().await?;
        let kind = kind.as_ref().map(text).transpose()?;
        let n = client
            .execute(
                "DELETE FROM account_tokens WHERE account = $1 \
                 AND ($2::TEXT IS NULL OR kind = $2)",
                &[&key, &kind],
            )
            .await?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// Marks the account deleted, forgets its password and revokes its tokens, in one
    /// transaction.
    pub(super) async fn delete(&self, key: &str) -> Result<(), PgError> {
        let mut client = self.pool.get().await?;
        let txn = client.transaction().await?;
        txn.execute(
            "UPDATE accounts SET deleted = true, password = NULL WHERE key = $1",
            &[&key],
        )
        .await?;
        txn.execute("DELETE FROM account_tokens WHERE account = $1", &[&key])
            .await?;
        txn.commit().await?;
        Ok(())
    }
}
