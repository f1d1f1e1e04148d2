//! Ratings in the embedded store: [`Store::rate`] rates finished rated games at once (in one
//! transaction, each once: see [`rate_in`]), and the reads of ratings and their history for
//! profiles and leaderboards.

use super::db::Store;
use super::error::StoreError;
use super::schema::{HISTORY, RATINGS, rate_in};
use crate::ratings::{Point, Rating};
use jchomp_protocol::record::Record;
use redb::{ReadableDatabase, ReadableTable};

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

/// The reads of ratings, blocking (called off the async workers, through
/// [`super::AccountStore`]).
impl Store {
    /// Every rating of the account `key`, by category.
    pub(super) fn ratings_of(&self, key: &str) -> Result<Vec<(String, Rating)>, StoreError> {
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

    /// The history of `key`'s rating in `category`, oldest first.
    pub(super) fn history(&self, key: &str, category: &str) -> Result<Vec<Point>, StoreError> {
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

    /// Every account's rating in `category`, by account key.
    pub(super) fn ratings_in(&self, category: &str) -> Result<Vec<(String, Rating)>, StoreError> {
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
        assert_eq!(history[0].outcome, crate::ratings::Outcome::Loss);
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
