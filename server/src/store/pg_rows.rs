//! The server's values as PostgreSQL keeps them: kinds and outcomes as their text, times as
//! signed milliseconds, and an account or a rating from its row.

use super::accounts::Account;
use super::pg_error::PgError;
use crate::ratings::Rating;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_postgres::Row;

/// The columns of an account, in the order [`account_of`] reads them.
pub(super) const ACCOUNT_COLUMNS: &str = "name, kind, owner, password, created_ms, deleted";

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
pub(super) fn account_of(row: &Row) -> Result<Account, PgError> {
    Ok(Account {
        name: row.try_get(0)?,
        kind: parsed(row.try_get(1)?)?,
        owner: row.try_get(2)?,
        password: row.try_get(3)?,
        created_ms: from_sql_ms(row.try_get(4)?),
        deleted: row.try_get(5)?,
    })
}

/// The columns of a rating, in the order [`rating_of`] reads them.
pub(super) const RATING_COLUMNS: &str =
    "rating, deviation, volatility, wins, losses, ties, last_ms";

/// A rating from a row starting with [`RATING_COLUMNS`].
pub(super) fn rating_of(row: &Row) -> Result<Rating, PgError> {
    let count = |i: usize| -> Result<u32, PgError> {
        Ok(u32::try_from(row.try_get::<_, i64>(i)?).unwrap_or(u32::MAX))
    };
    Ok(Rating {
        rating: row.try_get(0)?,
        deviation: row.try_get(1)?,
        volatility: row.try_get(2)?,
        wins: count(3)?,
        losses: count(4)?,
        ties: count(5)?,
        last_ms: from_sql_ms(row.try_get(6)?),
    })
}
