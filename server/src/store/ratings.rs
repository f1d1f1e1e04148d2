//! Ratings in the embedded store: each account's rating per category, its history, and the
//! rated games already counted. A rated game's record is rated inside the transaction that
//! counts it ([`rate_in`]), once: the game's id is kept with the new ratings, so rating it
//! again (after the journal is taken in twice, or live and then at a checkpoint) changes
//! nothing, and a record whose rating a crash cut off is rated when the journal is taken in.

use super::accounts::key_of;
use super::db::{Store, StoreError};
use crate::ratings::{self, Rating};
use jchomp_protocol::record::Record;
use redb::{ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};
use serde::{Deserialize, Serialize};

/// (account key, category) → [`Rating`] as JSON.
const RATINGS: TableDefinition<(&str, &str), &str> = TableDefinition::new("ratings");
/// (account key, category, game end ms, game id) → [`Point`] as JSON: a rating's history.
const HISTORY: TableDefinition<(&str, &str, u64, &str), &str> =
    TableDefinition::new("rating_history");
/// Game id → category: the rated games already counted.
const RATED: TableDefinition<&str, &str> = TableDefinition::new("rated_games");

/// One point of a rating's history: the rating after one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Point {
    /// The game.
    pub game: String,
    /// When it ended, milliseconds since the epoch.
    pub when_ms: u64,
    /// The rating after it.
    pub rating: f64,
    /// The deviation after it.
    pub deviation: f64,
    /// What the game was for this player.
    pub outcome: ratings::Outcome,
}

/// Creates the rating tables (at opening).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(RATINGS)?;
    txn.open_table(HISTORY)?;
    txn.open_table(RATED)?;
    Ok(())
}

/// Rates `record` inside `txn` if it is a finished rated game not rated yet; returns whether
/// it did.
pub(super) fn rate_in(txn: &WriteTransaction, record: &Record) -> Result<bool, StoreError> {
    let (Some(id), Some(result)) = (&record.id, &record.result) else {
        return Ok(false);
    };
    if !record.config.rated {
        return Ok(false);
    }
    let mut rated = txn.open_table(RATED)?;
    if rated.get(id.as_str())?.is_some() {
        return Ok(false);
    }
    let category = ratings::category(&record.config);
    let keys: Vec<String> = record.seats.iter().map(|s| key_of(s)).collect();
    let mut table = txn.open_table(RATINGS)?;
    let mut before = Vec::new();
    for key in &keys {
        before.push(match table.get((key.as_str(), category.as_str()))? {
            Some(json) => serde_json::from_str(json.value())?,
            None => ratings::initial(&category),
        });
    }
    let outcomes = ratings::outcomes(result, keys.len());
    let when = record.finished_ms.unwrap_or_default();
    let after = ratings::rate(&category, &before, &outcomes, when);
    let mut history = txn.open_table(HISTORY)?;
    for ((key, r), outcome) in keys.iter().zip(&after).zip(&outcomes) {
        table.insert(
            (key.as_str(), category.as_str()),
            serde_json::to_string(r)?.as_str(),
        )?;
        let point = Point {
            game: id.clone(),
            when_ms: when,
            rating: r.rating,
            deviation: r.deviation,
            outcome: *outcome,
        };
        history.insert(
            (key.as_str(), category.as_str(), when, id.as_str()),
            serde_json::to_string(&point)?.as_str(),
        )?;
    }
    rated.insert(id.as_str(), category.as_str())?;
    Ok(true)
}

impl Store {
    /// Rates the rated games among `records` not rated yet, in one transaction; returns how
    /// many it rated.
    pub(crate) fn rate(&self, records: &[&Record]) -> Result<usize, StoreError> {
        let txn = self.db.begin_write()?;
        let mut n = 0;
        for record in records {
            n += usize::from(rate_in(&txn, record)?);
        }
        txn.commit()?;
        Ok(n)
    }
}

/// Where ratings are read. Every method is blocking (call it off the async workers).
pub(crate) trait RatingStore {
    /// Every rating of the account `key`, by category.
    fn ratings_of(&self, key: &str) -> Result<Vec<(String, Rating)>, StoreError>;
    /// The history of `key`'s rating in `category`, oldest first.
    fn history(&self, key: &str, category: &str) -> Result<Vec<Point>, StoreError>;
    /// Every account's rating in `category`, by account key.
    fn ratings_in(&self, category: &str) -> Result<Vec<(String, Rating)>, StoreError>;
}

impl RatingStore for Store {
    fn ratings_of(&self, key: &str) -> Result<Vec<(String, Rating)>, StoreError> {
        let txn = self.db.begin_read()?;
        let table = txn.open_table(RATINGS)?;
        let mut out = Vec::new();
        for entry in table.range((key, "")..)? {
            let (k, json) = entry?;
            let (account, category) = k.value();
            if account != key {
                break;
            }
            out.push((category.to_string(), serde_json::from_str(json.value())?));
        }
        Ok(out)
    }

    fn history(&self, key: &str, category: &str) -> Result<Vec<Point>, StoreError> {
        let txn = self.db.begin_read()?;
        let table = txn.open_table(HISTORY)?;
        let mut out = Vec::new();
        for entry in table.range((key, category, 0u64, "")..)? {
            let (k, json) = entry?;
            let (account, cat, _, _) = k.value();
            if account != key || cat != category {
                break;
            }
            out.push(serde_json::from_str(json.value())?);
        }
        Ok(out)
    }

    fn ratings_in(&self, category: &str) -> Result<Vec<(String, Rating)>, StoreError> {
        let txn = self.db.begin_read()?;
        let table = txn.open_table(RATINGS)?;
        let mut out = Vec::new();
        for entry in table.iter()? {
            let (k, json) = entry?;
            let (account, cat) = k.value();
            if cat == category {
                out.push((account.to_string(), serde_json::from_str(json.value())?));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_protocol::json::ResultJson;
    use jchomp_testkit::fixtures::{Fixture, RecordFixture, record};
    use jchomp_testkit::temp::TempDir;

    fn rated(id: &str, seats: [&str; 2], loser: u8) -> Record {
        let mut r: Record = record("4x4 poison 0,0")
            .id(id)
            .seats(seats)
            .result(ResultJson::Poisoned { loser })
            .started(1)
            .finished(2);
        r.config.rated = true;
        r
    }

    #[test]
    fn a_game_is_rated_once_however_often_it_is_counted() {
        let dir = TempDir::new("ratings-once");
        let store = Store::open(dir.path()).unwrap();
        let game = rated("g1", ["Ann", "level:3"], 1);
        assert_eq!(store.rate(&[&game]).unwrap(), 1);
        let once = store.ratings_of("ann").unwrap();
        assert_eq!(store.rate(&[&game, &game]).unwrap(), 0);
        assert_eq!(store.ratings_of("ann").unwrap(), once);
        assert_eq!(once[0].0, "jchomp:2");
        assert!(once[0].1.rating > 1500.0 && once[0].1.wins == 1);
        let history = store.history("level:3", "jchomp:2").unwrap();
        assert_eq!(history.len(), 1);
        assert_eq!(history[0].outcome, ratings::Outcome::Loss);
    }

    #[test]
    fn unrated_and_unfinished_games_are_left_alone() {
        let dir = TempDir::new("ratings-unrated");
        let store = Store::open(dir.path()).unwrap();
        let mut game = rated("g1", ["Ann", "Bob"], 0);
        game.config.rated = false;
        assert_eq!(store.rate(&[&game]).unwrap(), 0);
        game.config.rated = true;
        game.result = None;
        assert_eq!(store.rate(&[&game]).unwrap(), 0);
        assert!(store.ratings_of("ann").unwrap().is_empty());
    }
}
