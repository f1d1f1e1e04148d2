//! Ratings in PostgreSQL: a rated game's record is rated in the transaction that inserts it
//! into `games` ([`rate_record`], called by [`super::PgRecords::insert`] for new records only,
//! and guarded by `rated_games`), so that whichever node delivers it, however often, it counts
//! once.

use super::pg_error::PgError;
use super::pg_rows::{RATING_COLUMNS, rating_of, text, to_sql_ms};
use super::schema::RatedGame;
use crate::ratings::{self, Rating};
use deadpool_postgres::Transaction;
use jchomp_protocol::record::Record;
use std::collections::HashMap;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::PgRecords;
    use jchomp_protocol::json::ResultJson;
    use jchomp_testkit::engines::Postgres;
    use jchomp_testkit::fixtures::{Fixture, RecordFixture, record};

    /// A rated game `id` between Ann and Bob, Ann losing.
    fn rated(id: &str) -> (String, String) {
        let mut r: Record = record("4x4 poison 0,0")
            .id(id)
            .seats(["Ann", "Bob"])
            .result(ResultJson::Poisoned { loser: 0 })
            .started(1)
            .finished(2);
        r.config.rated = true;
        (id.to_string(), serde_json::to_string(&r).unwrap())
    }

    /// Two nodes on one PostgreSQL, started together (migrations applied once).
    async fn two_nodes(pg: &Postgres) -> (PgRecords, PgRecords) {
        let url = pg.url();
        let (a, b) = tokio::join!(PgRecords::connect(&url), PgRecords::connect(&url));
        (a.unwrap(), b.unwrap())
    }

    /// Ann's counts in `jchomp:2` and the length of her history.
    async fn ann(node: &PgRecords) -> (u32, u32, usize) {
        let ratings = node.ratings_of("ann").await.unwrap();
        assert_eq!(ratings.len(), 1, "{ratings:?}");
        let r = &ratings[0].1;
        let history = node.history("ann", "jchomp:2").await.unwrap();
        (r.wins, r.losses, history.len())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_record_delivered_again_or_by_two_nodes_at_once_is_rated_once() {
        let pg = Postgres::start();
        let (a, b) = two_nodes(&pg).await;
        let game = [rated("g1")];
        let (x, y) = tokio::join!(a.insert(&game), b.insert(&game));
        assert_eq!(x.unwrap() + y.unwrap(), 1);
        assert_eq!(
            a.insert(&[game[0].clone(), game[0].clone()]).await.unwrap(),
            0
        );
        assert_eq!(ann(&b).await, (0, 1, 1));
        let bob = b.ratings_of("bob").await.unwrap();
        assert_eq!((bob[0].1.wins, bob[0].1.losses), (1, 0));
        assert!(bob[0].1.rating > 1500.0 && bob[0].1.rating > ann_rating(&a).await);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn games_of_the_same_players_stored_at_once_by_two_nodes_all_count() {
        let pg = Postgres::start();
        let (a, b) = two_nodes(&pg).await;
        let deliver = |node: PgRecords, from: usize| async move {
            for i in from..from + 10 {
                assert_eq!(node.insert(&[rated(&format!("g{i}"))]).await.unwrap(), 1);
            }
        };
        tokio::join!(deliver(a.clone(), 0), deliver(b, 10));
        assert_eq!(ann(&a).await, (0, 20, 20));
        let board = a.ratings_in("jchomp:2").await.unwrap();
        assert_eq!(board.len(), 2, "{board:?}");
    }

    async fn ann_rating(node: &PgRecords) -> f64 {
        node.ratings_of("ann").await.unwrap()[0].1.rating
    }
}
