//! Accounts, their tokens and ratings in PostgreSQL (`server/migrations/0002_accounts.sql`),
//! on [`PgRecords`]: the same operations as the embedded store's, so that a session or bot
//! token made on one node of a cluster works on every node and every node shows the same
//! ratings. Each change is one statement or one transaction, committed before it returns.
//! Ratings change only with a rated game's record ([`super::pg_ratings`]).

use super::accounts::{Account, Token, TokenKind};
use super::pg_error::PgError;
use super::pg_rows::{
    ACCOUNT_COLUMNS, RATING_COLUMNS, account_of, from_sql_ms, parsed, rating_of, text, to_sql_ms,
};
use super::postgres::PgRecords;
use crate::ratings::{Point, Rating};

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

    /// The keys of the bot accounts `owner` made.
    pub(super) async fn bots_of(&self, owner: &str) -> Result<Vec<String>, PgError> {
        let client = self.pool.get().await?;
        let rows = client
            .query("SELECT key FROM accounts WHERE owner = $1", &[&owner])
            .await?;
        rows.iter().map(|row| Ok(row.try_get(0)?)).collect()
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

    /// Removes the tokens of account `key` that expired at or before `now_ms`.
    pub(super) async fn forget_expired(&self, key: &str, now_ms: u64) -> Result<usize, PgError> {
        let client = self.pool.get().await?;
        let n = client
            .execute(
                "DELETE FROM account_tokens WHERE account = $1 AND expires_ms <= $2",
                &[&key, &to_sql_ms(now_ms)],
            )
            .await?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
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

/// The reads of ratings in PostgreSQL.
impl PgRecords {
    /// Every rating of the account `key`, by category.
    pub(super) async fn ratings_of(&self, key: &str) -> Result<Vec<(String, Rating)>, PgError> {
        let client = self.pool.get().await?;
        let sql = format!(
            "SELECT {RATING_COLUMNS}, category FROM ratings WHERE account = $1 ORDER BY category"
        );
        let rows = client.query(&sql, &[&key]).await?;
        rows.iter()
            .map(|row| Ok((row.try_get(7)?, rating_of(row)?)))
            .collect()
    }

    /// The history of `key`'s rating in `category`, oldest first.
    pub(super) async fn history(&self, key: &str, category: &str) -> Result<Vec<Point>, PgError> {
        let client = self.pool.get().await?;
        let rows = client
            .query(
                "SELECT game, when_ms, rating, deviation, outcome FROM rating_history \
                 WHERE account = $1 AND category = $2 ORDER BY when_ms, game",
                &[&key, &category],
            )
            .await?;
        rows.iter()
            .map(|row| {
                Ok(Point {
                    game: row.try_get(0)?,
                    when_ms: from_sql_ms(row.try_get(1)?),
                    rating: row.try_get(2)?,
                    deviation: row.try_get(3)?,
                    outcome: parsed(row.try_get(4)?)?,
                })
            })
            .collect()
    }

    /// Every account's rating in `category`, by account key.
    pub(super) async fn ratings_in(
        &self,
        category: &str,
    ) -> Result<Vec<(String, Rating)>, PgError> {
        let client = self.pool.get().await?;
        let sql = format!("SELECT {RATING_COLUMNS}, account FROM ratings WHERE category = $1");
        let rows = client.query(&sql, &[&category]).await?;
        rows.iter()
            .map(|row| Ok((row.try_get(7)?, rating_of(row)?)))
            .collect()
    }
}
