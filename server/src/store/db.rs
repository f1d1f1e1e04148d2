//! [`Store`]: finished game records and the games in play in an embedded database.
//!
//! The database is [redb](https://www.redb.org): pure Rust (no C toolchain), ACID, crash-safe
//! copy-on-write B-trees, and every commit is fsynced before it returns (its default
//! `Durability::Immediate`). A record is visible to `list_games`/`get_game` only once its
//! commit returned, so a game a client has seen listed survives a restart and a `kill -9`.
//! Records are stored as the foundation's JSON record format. A game in play is its state
//! ([`LiveRoom`], JSON) and its moves, one small row each.

use super::error::StoreError;
use super::journal;
use super::live::{LiveMove, LiveRoom, Stored, Write};
use super::schema;
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::GameSummary;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Sequence number → record JSON; newest has the highest number.
const GAMES: TableDefinition<u64, &str> = TableDefinition::new("games");
/// Game id → sequence number.
const IDS: TableDefinition<&str, u64> = TableDefinition::new("game_ids");
/// Room id → the state of its game in play ([`LiveRoom`] as JSON).
const LIVE: TableDefinition<&str, &str> = TableDefinition::new("live_rooms");
/// (room id, move index) → (row, column, the room's version after the move).
const LIVE_MOVES: TableDefinition<(&str, u32), (u8, u8, u64)> = TableDefinition::new("live_moves");
/// Game id → record JSON, finished games waiting to be delivered to PostgreSQL.
const OUTBOX: TableDefinition<&str, &str> = TableDefinition::new("records_outbox");

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "games.redb";

/// The game database, and the directory its journal segments are in.
#[derive(Debug)]
pub(crate) struct Store {
    pub(super) db: Database,
    dir: PathBuf,
    /// The generation of the next journal segment (after every one found at opening).
    next_segment: u64,
}

impl Store {
    /// Opens (or creates) the database in `dir`, creating the directory if needed. What the
    /// journal holds is not taken in yet ([`Store::recover`]).
    pub(crate) fn open(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir)?;
        let db = Database::create(dir.join(DB_FILE))?;
        let txn = db.begin_write()?;
        txn.open_table(GAMES)?;
        txn.open_table(IDS)?;
        txn.open_table(LIVE)?;
        txn.open_table(LIVE_MOVES)?;
        txn.open_table(OUTBOX)?;
        schema::create_tables(&txn)?;
        txn.commit()?;
        let next_segment = journal::segments(dir)?
            .last()
            .map_or(0, |(generation, _)| generation + 1);
        Ok(Store {
            db,
            dir: dir.to_path_buf(),
            next_segment,
        })
    }

    /// Takes in what the journal holds (what a crash or a failed checkpoint left there), in
    /// order, in one transaction, then removes its segments. A torn or corrupt tail (a record
    /// cut short by a crash, never acknowledged) is logged and ignored. With `outbox`, finished
    /// records go to the outbox for PostgreSQL. Returns the number of writes taken in.
    pub(crate) fn recover(&self, outbox: bool) -> Result<usize, StoreError> {
        let segments = journal::segments(&self.dir)?;
        let mut writes = Vec::new();
        for (_, path) in &segments {
            let read = journal::read(path)?;
            if read.ignored > 0 {
                tracing::warn!(
                    segment = %path.display(),
                    bytes = read.ignored,
                    kept = read.writes.len(),
                    "ignoring the torn or corrupt tail of a journal segment"
                );
            }
            writes.extend(read.writes);
        }
        if !writes.is_empty() {
            self.apply(coalesce(&writes), outbox.then_some(&HashSet::new()))?;
            tracing::info!(writes = writes.len(), "journal taken into the database");
        }
        let paths: Vec<PathBuf> = segments.into_iter().map(|(_, p)| p).collect();
        journal::remove(&self.dir, &paths)?;
        Ok(writes.len())
    }

    /// The data directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The generation of the first journal segment to write.
    pub(crate) fn next_segment(&self) -> u64 {
        self.next_segment
    }

    /// Applies writes in one transaction, in order. A record whose id is already stored
    /// replaces the old one; a finished game's state in play and moves are removed with it.
    /// With `outbox` (PostgreSQL), records go to the outbox instead of the games table, but
    /// for those whose ids it lists as delivered already (PostgreSQL has them).
    /// A rated game's record stored here is rated in the same transaction, unless it was
    /// already (one sent to the outbox is rated by PostgreSQL as it takes it).
    /// Applying the same writes again leaves the same state (a checkpoint interrupted after its
    /// commit is taken in again at the next start).
    pub(crate) fn apply<'a>(
        &self,
        writes: impl IntoIterator<Item = &'a Write>,
        outbox: Option<&HashSet<String>>,
    ) -> Result<(), StoreError> {
        let txn = self.db.begin_write()?;
        {
            let mut games = txn.open_table(GAMES)?;
            let mut ids = txn.open_table(IDS)?;
            let mut live = txn.open_table(LIVE)?;
            let mut moves = txn.open_table(LIVE_MOVES)?;
            let mut waiting = txn.open_table(OUTBOX)?;
            let mut next = games.last()?.map_or(0, |(k, _)| k.value() + 1);
            for write in writes {
                match write {
                    Write::Live(room) => {
                        let json = serde_json::to_string(room)?;
                        live.insert(room.room.as_str(), json.as_str())?;
                    }
                    Write::Move { room, ply, mv } => {
                        moves.insert((room.as_str(), *ply), (mv.row, mv.col, mv.version))?;
                    }
                    Write::Finished { room, record } => {
                        let json = serde_json::to_string(record)?;
                        let id = record.id.clone().unwrap_or_else(|| format!("game-{next}"));
                        if let Some(delivered) = outbox {
                            if !delivered.contains(&id) {
                                waiting.insert(id.as_str(), json.as_str())?;
                            }
                        } else {
                            if let Some(old) = ids.remove(id.as_str())? {
                                games.remove(old.value())?;
                            }
                            games.insert(next, json.as_str())?;
                            ids.insert(id.as_str(), next)?;
                            next += 1;
                            // A rated game not rated yet (a crash cut its rating off) is rated
                            // with its record, in this transaction (with PostgreSQL, where the
                            // record goes: [`super::pg_ratings`]).
                            schema::rate_in(&txn, record)?;
                        }
                        live.remove(room.as_str())?;
                        // One range walk: usually the game's moves were never applied here
                        // (it started and ended between two checkpoints).
                        let room = room.as_str();
                        moves.retain_in((room, 0u32)..=(room, u32::MAX), |_, _| false)?;
                    }
                }
            }
        }
        txn.commit()?;
        Ok(())
    }

    /// Every game in play, with its moves in order. A state that does not parse is skipped
    /// (and logged, and left in the database) rather than hiding every other game.
    pub(crate) fn games_in_play(&self) -> Result<Vec<Stored>, StoreError> {
        let txn = self.db.begin_read()?;
        let live = txn.open_table(LIVE)?;
        let moves = txn.open_table(LIVE_MOVES)?;
        let mut out = Vec::new();
        for entry in live.iter()? {
            let (id, json) = entry?;
            let id = id.value();
            let room: LiveRoom = match serde_json::from_str(json.value()) {
                Ok(r) => r,
                Err(e) => {
                    tracing::error!(room = id, error = %e, "skipping a corrupt game in play");
                    continue;
                }
            };
            let mut played = Vec::new();
            for m in moves.range((id, 0u32)..=(id, u32::MAX))? {
                let (_, v) = m?;
                let (row, col, version) = v.value();
                played.push(LiveMove { row, col, version });
            }
            out.push(Stored {
                room,
                moves: played,
            });
        }
        Ok(out)
    }

    /// The records waiting for PostgreSQL (id, JSON).
    pub(crate) fn outbox(&self) -> Result<Vec<(String, String)>, StoreError> {
        let txn = self.db.begin_read()?;
        let waiting = txn.open_table(OUTBOX)?;
        let mut out = Vec::new();
        for entry in waiting.iter()? {
            let (id, json) = entry?;
            out.push((id.value().to_string(), json.value().to_string()));
        }
        Ok(out)
    }

    /// Empties the outbox of records PostgreSQL holds now.
    pub(crate) fn delivered(&self, ids: &[String]) -> Result<(), StoreError> {
        let txn = self.db.begin_write()?;
        {
            let mut waiting = txn.open_table(OUTBOX)?;
            for id in ids {
                waiting.remove(id.as_str())?;
            }
        }
        txn.commit()?;
        Ok(())
    }

    /// The newest `limit` games, newest first. A record that does not parse is skipped (and
    /// logged) rather than hiding every other game.
    pub(crate) fn list(&self, limit: usize) -> Result<Vec<GameSummary>, StoreError> {
        let txn = self.db.begin_read()?;
        let games = txn.open_table(GAMES)?;
        let mut out = Vec::new();
        for entry in games.iter()?.rev() {
            if out.len() == limit {
                break;
            }
            let (seq, json) = entry?;
            out.extend(summary(seq.value(), json.value()));
        }
        Ok(out)
    }

    /// One stored record.
    pub(crate) fn get(&self, id: &str) -> Result<Option<Record>, StoreError> {
        let txn = self.db.begin_read()?;
        let ids = txn.open_table(IDS)?;
        let Some(seq) = ids.get(id)? else {
            return Ok(None);
        };
        let games = txn.open_table(GAMES)?;
        let Some(json) = games.get(seq.value())? else {
            return Ok(None);
        };
        Ok(Some(serde_json::from_str(json.value())?))
    }
}

/// The writes a checkpoint applies, in order: a room's state and moves followed, later in
/// `writes`, by the end of its game are left out (the record replaces them), so that games
/// played and ended between two checkpoints cost the database one record each.
pub(crate) fn coalesce(writes: &[Write]) -> Vec<&Write> {
    let mut ended: HashSet<&str> = HashSet::new();
    let mut kept = Vec::with_capacity(writes.len());
    for write in writes.iter().rev() {
        match write {
            Write::Finished { room, .. } => {
                ended.insert(room);
                kept.push(write);
            }
            Write::Live(live) if ended.contains(live.room.as_str()) => {}
            Write::Move { room, .. } if ended.contains(room.as_str()) => {}
            _ => kept.push(write),
        }
    }
    kept.reverse();
    kept
}

/// The `list_games` line of a stored record, or `None` (logged) if it does not parse.
pub(super) fn summary(seq: u64, json: &str) -> Option<GameSummary> {
    match serde_json::from_str(json) {
        Ok(record) => Some(summary_of(seq, record)),
        Err(e) => {
            tracing::warn!(seq, error = %e, "skipping a corrupt game record");
            None
        }
    }
}

/// The `list_games` line of a record (`seq` names a record without an id).
pub(super) fn summary_of(seq: u64, record: Record) -> GameSummary {
    GameSummary {
        game: record.id.unwrap_or_else(|| format!("game-{seq}")),
        config: record.config,
        seats: record.seats,
        bots: record.bots,
        result: record.result,
        moves: record.moves.len(),
        finished_ms: record.finished_ms,
    }
}
