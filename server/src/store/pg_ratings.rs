//! Ratings in PostgreSQL: a rated game's record is rated in the transaction that inserts it
//! into `games` ([`rate_record`], called by [`PgRecords::insert`] for new records only, and
//! guarded by `rated_games`), so that whichever node delivers it, however often, it counts
//! once; and the reads of ratings and their history for profiles and leaderboards.

use super::pg_accounts::{from_sql_ms, parsed, text, to_sql_ms};
use super::postgres::{PgError, PgRecords};
use super::ratings::RatedGame;
use crate::ratings::{self, Point, Rating};
use deadpool_postgres::Transaction;
use jchomp_protocol::record::Record;
use std::collections::HashMap;
use tokio_postgres::Row;

/// The columns of a rating, in the order [`rating_of`] reads them.
const RATING_COLUMNS: &str = "rating, deviation, volatility, wins, losses, ties, last_ms";

/// A rating from a row starting with [`RATING_COLUMNS`].
fn rating_of(row: &Row) -> Result<Rating, PgError> {
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

/// Rates the game whose record is `json` inside `txn`, if it is a finished rated game not
/// rated yet; returns whether it did.
pub(super) async fn rate_record(txn: &Transaction<'_>, json: &str) -> Result<bool, PgError> {
    let record: Record = match serde_json::from_str(json) {
        Ok(record) => record,
        Err(e) => {
            tracing::error!(error = %e, "a record that does not parse is stored unrated");
            return Ok(false);
        }
    };
    match RatedGame::of(&record) {
        Some(game) => rate_in(txn, &game).await,
        None => Ok(false),
    }
}

/// Rates `game` inside `txn` unless `rated_games` has it: each seat's rating (its row locked,
/// seats in key order so that concurrent games lock alike), its history, and the game's id.
async fn rate_in(txn: &Transaction<'_>, game: &RatedGame) -> Result<bool, PgError> {
    let first = txn
        .execute(
            "INSERT INTO rated_games (game, category) VALUES ($1, $2) ON CONFLICT (game) DO NOTHING",
            &[&game.id, &game.category],
        )
        .await?;
    if first == 0 {
        return Ok(false);
    }
    let before = locked(txn, game).await?;
    let before: Vec<Rating> = game.keys.iter().map(|k| before[k].clone()).collect();
    let update = txn
        .prepare_cached(&format!(
            "UPDATE ratings SET ({RATING_COLUMNS}) = ($3, $4, $5, $6, $7, $8, $9) \
             WHERE account = $1 AND category = $2"
        ))
        .await?;
    let history = txn
        .prepare_cached(
            "INSERT INTO rating_history \
             (account, category, when_ms, game, rating, deviation, outcome) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
        )
        .await?;
    for (key, (r, point)) in game.keys.iter().zip(game.after(&before)) {
        let counts = [r.wins, r.losses, r.ties].map(i64::from);
        txn.execute(
            &update,
            &[
                key,
                &game.category,
                &r.rating,
                &r.deviation,
                &r.volatility,
                &counts[0],
                &counts[1],
                &counts[2],
                &to_sql_ms(r.last_ms),
            ],
        )
        .await?;
        let outcome = text(&point.outcome)?;
        let when = to_sql_ms(point.when_ms);
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] = [
            key,
            &game.category,
            &when,
            &game.id,
            &point.rating,
            &point.deviation,
            &outcome,
        ];
        txn.execute(&history, &params).await?;
    }
    Ok(true)
}

/// The seats' ratings in the game's category, each row made (at the start) if missing and
/// locked until `txn` ends, by account key.
async fn locked(
    txn: &Transaction<'_>,
    game: &RatedGame,
) -> Result<HashMap<String, Rating>, PgError> {
    let upsert = txn
        .prepare_cached(&format!(
            "INSERT INTO ratings (account, category, {RATING_COLUMNS}) \
             VALUES ($1, $2, $3, $4, $5, 0, 0, 0, 0) \
             ON CONFLICT (account, category) DO UPDATE SET account = ratings.account \
             RETURNING {RATING_COLUMNS}"
        ))
        .await?;
    let start = ratings::initial(&game.category);
    let mut keys = game.keys.clone();
    keys.sort();
    keys.dedup();
    let mut out = HashMap::new();
    for key in keys {
        let row = txn
            .query_one(
                &upsert,
                &[
                    &key,
                    &game.category,
                    &start.rating,
                    &start.deviation,
                    &start.volatility,
                ],
            )
            .await?;
        out.insert(key, rating_of(&row)?);
    }
    Ok(out)
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
