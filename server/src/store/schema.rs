//! The tables of accounts and ratings in the game database, made at opening
//! ([`create_tables`]); what a rated game does to its seats' ratings, whichever database keeps
//! them ([`RatedGame`]); and what a rated game's record does to the tables inside the
//! transaction that counts it ([`rate_in`]): each seat's rating, its history, and the game's
//! id, so that rating the same record again (after the journal is taken in twice, or live and
//! then at a checkpoint) changes nothing, and a record whose rating a crash cut off is rated
//! when the journal is taken in.

use super::error::StoreError;
use crate::ratings::{self, Outcome, Point, Rating};
use jchomp_protocol::record::Record;
use redb::{ReadableTable, TableDefinition, WriteTransaction};

/// Account key (the name in lower case) → [`Account`] as JSON.
pub(super) const ACCOUNTS: TableDefinition<&str, &str> = TableDefinition::new("accounts");
/// Token hash (SHA-256, hex) → [`Token`] as JSON.
pub(super) const TOKENS: TableDefinition<&str, &str> = TableDefinition::new("account_tokens");
/// (account key, token hash) → nothing: the tokens of each account, to revoke them together.
pub(super) const TOKENS_OF: TableDefinition<(&str, &str), ()> =
    TableDefinition::new("account_tokens_of");

/// (account key, category) → [`Rating`] as JSON.
pub(super) const RATINGS: TableDefinition<(&str, &str), &str> = TableDefinition::new("ratings");
/// (account key, category, game end ms, game id) → [`Point`] as JSON: a rating's history.
pub(super) const HISTORY: TableDefinition<(&str, &str, u64, &str), &str> =
    TableDefinition::new("rating_history");
/// Game id → category: the rated games already counted.
pub(super) const RATED: TableDefinition<&str, &str> = TableDefinition::new("rated_games");

/// The key an account is stored under: its name in lower case (names are unique ignoring
/// case).
pub(crate) fn key_of(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// A finished rated game, as the ratings see it.
#[derive(Debug)]
pub(super) struct RatedGame {
    /// The game's id (each is rated once).
    pub id: String,
    /// The category it counts in.
    pub category: String,
    /// The seats' account keys, by seat.
    pub keys: Vec<String>,
    /// Each seat's outcome.
    outcomes: Vec<Outcome>,
    /// When it ended, milliseconds since the epoch.
    when_ms: u64,
}

impl RatedGame {
    /// The game `record` holds, if it is a finished rated game with an id.
    pub(super) fn of(record: &Record) -> Option<RatedGame> {
        let (Some(id), Some(result)) = (&record.id, &record.result) else {
            return None;
        };
        if !record.config.rated {
            return None;
        }
        Some(RatedGame {
            id: id.clone(),
            category: ratings::category(&record.config),
            keys: record.seats.iter().map(|s| key_of(s)).collect(),
            outcomes: ratings::outcomes(result, record.seats.len()),
            when_ms: record.finished_ms.unwrap_or_default(),
        })
    }

    /// Each seat's rating after the game, given those `before` it (by seat), with the point
    /// its history gains.
    pub(super) fn after(&self, before: &[Rating]) -> Vec<(Rating, Point)> {
        let after = ratings::rate(&self.category, before, &self.outcomes, self.when_ms);
        after
            .into_iter()
            .zip(&self.outcomes)
            .map(|(r, outcome)| {
                let point = Point {
                    game: self.id.clone(),
                    when_ms: self.when_ms,
                    rating: r.rating,
                    deviation: r.deviation,
                    outcome: *outcome,
                };
                (r, point)
            })
            .collect()
    }
}

/// Creates the tables of accounts and ratings (at opening).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(ACCOUNTS)?;
    txn.open_table(TOKENS)?;
    txn.open_table(TOKENS_OF)?;
    txn.open_table(RATINGS)?;
    txn.open_table(HISTORY)?;
    txn.open_table(RATED)?;
    Ok(())
}

/// Rates `record` inside `txn` if it is a finished rated game not rated yet; returns whether
/// it did.
pub(super) fn rate_in(txn: &WriteTransaction, record: &Record) -> Result<bool, StoreError> {
    let Some(game) = RatedGame::of(record) else {
        return Ok(false);
    };
    let mut rated = txn.open_table(RATED)?;
    if rated.get(game.id.as_str())?.is_some() {
        return Ok(false);
    }
    let category = game.category.as_str();
    let mut table = txn.open_table(RATINGS)?;
    let mut before = Vec::new();
    for key in &game.keys {
        before.push(match table.get((key.as_str(), category))? {
            Some(json) => serde_json::from_str(json.value())?,
            None => ratings::initial(category),
        });
    }
    let mut history = txn.open_table(HISTORY)?;
    for (key, (rating, point)) in game.keys.iter().zip(game.after(&before)) {
        table.insert(
            (key.as_str(), category),
            serde_json::to_string(&rating)?.as_str(),
        )?;
        history.insert(
            (key.as_str(), category, point.when_ms, game.id.as_str()),
            serde_json::to_string(&point)?.as_str(),
        )?;
    }
    rated.insert(game.id.as_str(), category)?;
    Ok(true)
}
