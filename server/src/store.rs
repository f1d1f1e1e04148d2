//! [`Store`]: finished game records and the games in play in an embedded database, and
//! [`StoreHandle`], the rooms' way to the writer task ([`crate::writer`]) that makes their
//! writes durable in batches.
//!
//! The database is [redb](https://www.redb.org): pure Rust (no C toolchain), ACID, crash-safe
//! copy-on-write B-trees, and every commit is fsynced before it returns (its default
//! `Durability::Immediate`). A record is visible to `list_games`/`get_game` only once its
//! commit returned, so a game a client has seen listed survives a restart and a `kill -9`.
//! Records are stored as the foundation's JSON record format. A game in play is its state
//! ([`LiveRoom`], JSON) and its moves, one small row each.
//!
//! A write is durable once it is in the journal ([`crate::journal`]: one append and one
//! `fdatasync` per batch); the database takes the journal's writes in at checkpoints, about once
//! a second, in one transaction, and a restart first takes in what the journal holds
//! ([`Store::recover`]). Finished records in the journal but not yet in the database are answered
//! from memory ([`Unfolded`]).
//!
//! With `--database postgres://…` finished records go to PostgreSQL ([`PgRecords`]) instead:
//! the writer first commits them to redb's outbox (with the rest of the batch, so a game a
//! player has seen end is durable at once, whatever PostgreSQL is doing), then delivers the
//! outbox to PostgreSQL and empties it. While PostgreSQL is unreachable the outbox grows and is
//! delivered, each record once, when it is back.

use crate::cluster::Mirror;
use crate::journal;
use crate::live::{LiveMove, LiveRoom, Stored, Write};
use crate::postgres::{PgError, PgRecords};
use crate::writer::{self, Job, Unfolded};
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::GameSummary;
use prometheus_client::metrics::histogram::Histogram;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
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

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The data directory could not be created.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The database failed.
    #[error("{0}")]
    Db(#[from] redb::Error),
    /// A stored record is not valid JSON.
    #[error("corrupt record: {0}")]
    Json(#[from] serde_json::Error),
    /// The blocking task reading the database failed.
    #[error("{0}")]
    Task(#[from] tokio::task::JoinError),
    /// PostgreSQL failed or is unreachable.
    #[error("PostgreSQL: {0}")]
    Postgres(#[from] PgError),
}

macro_rules! db_err {
    ($($t:ty),*) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> Self {
                StoreError::Db(e.into())
            }
        }
    )*};
}
db_err!(
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError
);

/// The game database, and the directory its journal segments are in.
#[derive(Debug)]
pub(crate) struct Store {
    db: Database,
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
fn summary(seq: u64, json: &str) -> Option<GameSummary> {
    match serde_json::from_str(json) {
        Ok(record) => Some(summary_of(seq, record)),
        Err(e) => {
            tracing::warn!(seq, error = %e, "skipping a corrupt game record");
            None
        }
    }
}

/// The `list_games` line of a record (`seq` names a record without an id).
fn summary_of(seq: u64, record: Record) -> GameSummary {
    GameSummary {
        game: record.id.unwrap_or_else(|| format!("game-{seq}")),
        config: record.config,
        seats: record.seats,
        result: record.result,
        moves: record.moves.len(),
        finished_ms: record.finished_ms,
    }
}

/// What the writer calls with the number of finished games stored (or not) at once.
pub(crate) type OnCommit = dyn Fn(usize, Result<(), &StoreError>) + Send + Sync;

/// Where the store reports how long durability takes (the server's metrics).
#[derive(Clone, Debug)]
pub(crate) struct StoreTimings {
    /// Seconds a room waited for its writes to be durable.
    pub wait: Histogram,
    /// Seconds one journal append took.
    pub append: Histogram,
}

/// Jobs queued for the writer at most; a room's `commit` waits while the queue is full.
const QUEUE: usize = 4096;

/// The rooms' way to the store: a bounded queue to one writer task, and shared read access.
#[derive(Clone, Debug)]
pub(crate) struct StoreHandle {
    tx: mpsc::Sender<Job>,
    store: Arc<Store>,
    /// Finished records durable in the journal, not yet in the database.
    unfolded: Arc<Unfolded>,
    /// Where finished records go, when not in `store`.
    records: Option<PgRecords>,
    /// In a cluster, where every batch is also written (Redis), for another node to take the
    /// games in play over.
    mirror: Option<Mirror>,
    /// Where a room's wait for durability is counted.
    wait: Option<Histogram>,
}

impl StoreHandle {
    /// Starts the writer task. It ends, after making everything queued durable and taking the
    /// journal into the database, once every handle is dropped; `on_commit` is called with the
    /// number of finished games of every batch (or delivery to PostgreSQL) and its outcome.
    /// With `records`, finished games go through the outbox to PostgreSQL.
    /// With `timings`, the rooms' waits and the journal's appends are counted there.
    pub(crate) fn start(
        store: Store,
        records: Option<PgRecords>,
        mirror: Option<Mirror>,
        timings: Option<StoreTimings>,
        on_commit: impl Fn(usize, Result<(), &StoreError>) + Send + Sync + 'static,
    ) -> (StoreHandle, JoinHandle<()>) {
        let store = Arc::new(store);
        let (tx, rx) = mpsc::channel::<Job>(QUEUE);
        let unfolded = Arc::new(Unfolded::default());
        let writer = tokio::spawn(writer::run(
            store.clone(),
            records.clone(),
            mirror.clone(),
            unfolded.clone(),
            Arc::new(on_commit),
            timings.as_ref().map(|t| t.append.clone()),
            rx,
        ));
        let handle = StoreHandle {
            tx,
            store,
            unfolded,
            records,
            mirror,
            wait: timings.map(|t| t.wait),
        };
        (handle, writer)
    }

    /// Makes `writes` durable, in order, and returns once they are (or their journal append
    /// has failed, which is logged). Waits while the queue is full; writes queued together
    /// share one append and one `fdatasync`.
    pub(crate) async fn commit(&self, writes: Vec<Write>) {
        if writes.is_empty() {
            return;
        }
        let started = std::time::Instant::now();
        let (done, committed) = oneshot::channel();
        if self.tx.send(Job::Writes(writes, done)).await.is_err() {
            tracing::error!("the store writer is gone; a game's progress is lost");
            return;
        }
        let _ = committed.await;
        if let Some(wait) = &self.wait {
            wait.observe(started.elapsed().as_secs_f64());
        }
    }

    /// In a cluster: whether another node owns `room` now, so that it must stop here (asking
    /// forgets the answer).
    pub(crate) fn lost(&self, room: &str) -> bool {
        self.mirror.as_ref().is_some_and(|m| m.lost(room))
    }

    /// Every game in play, off the async threads, once the journal is taken into the
    /// database.
    #[cfg(test)]
    pub(crate) async fn games_in_play(&self) -> Result<Vec<Stored>, StoreError> {
        let (done, checkpointed) = oneshot::channel();
        if self.tx.send(Job::Checkpoint(done)).await.is_ok() {
            let _ = checkpointed.await;
        }
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.games_in_play()).await?
    }

    /// The newest games: those still in the journal first, then from PostgreSQL if records go
    /// there, else off the async threads from redb.
    pub(crate) async fn list(&self, limit: usize) -> Result<Vec<GameSummary>, StoreError> {
        let recent = self.unfolded.newest(limit);
        let ids: HashSet<String> = recent.iter().filter_map(|r| r.id.clone()).collect();
        let mut out: Vec<GameSummary> = recent.into_iter().map(|r| summary_of(0, r)).collect();
        let older = if let Some(records) = &self.records {
            let newest = records.newest(limit).await?;
            newest
                .iter()
                .filter_map(|(seq, json)| summary(*seq, json))
                .collect()
        } else {
            let store = self.store.clone();
            tokio::task::spawn_blocking(move || store.list(limit)).await??
        };
        out.extend(older.into_iter().filter(|g| !ids.contains(&g.game)));
        out.truncate(limit);
        Ok(out)
    }

    /// One record: from the journal's if it is there, else from PostgreSQL if records go
    /// there, else off the async threads from redb.
    pub(crate) async fn get(&self, id: String) -> Result<Option<Record>, StoreError> {
        if let Some(record) = self.unfolded.get(&id) {
            return Ok(Some(record));
        }
        if let Some(records) = &self.records {
            return match records.get(&id).await? {
                Some(json) => Ok(Some(serde_json::from_str(&json)?)),
                None => Ok(None),
            };
        }
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.get(&id)).await?
    }

    /// PostgreSQL, when finished records go there.
    pub(crate) fn postgres(&self) -> Option<&PgRecords> {
        self.records.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_protocol::json::ResultJson;
    use jchomp_testkit::config_json;
    use jchomp_testkit::temp::TempDir;

    fn record(id: &str) -> Record {
        Record {
            id: Some(id.to_string()),
            config: config_json("4x4 poison 0,0"),
            seats: vec!["a".into(), "b".into()],
            moves: vec![],
            result: Some(ResultJson::Abandoned { loser: 1 }),
            started_ms: Some(1),
            finished_ms: Some(2),
        }
    }

    fn finished(id: &str) -> Write {
        Write::Finished {
            room: id.to_string(),
            record: Box::new(record(id)),
        }
    }

    #[test]
    fn saves_lists_newest_first_and_reopens() {
        let tmp = TempDir::new("store-reopen");
        let dir = tmp.path();
        {
            let store = Store::open(dir).unwrap();
            store.apply(&[finished("a"), finished("b")], None).unwrap();
            store.apply(&[finished("c")], None).unwrap();
            let ids: Vec<String> = store
                .list(10)
                .unwrap()
                .into_iter()
                .map(|g| g.game)
                .collect();
            assert_eq!(ids, ["c", "b", "a"]);
            assert_eq!(store.list(2).unwrap().len(), 2);
        }
        let store = Store::open(dir).unwrap();
        assert_eq!(store.get("b").unwrap(), Some(record("b")));
        assert_eq!(store.get("zz").unwrap(), None);
        // Saving an id again replaces the record and makes it the newest.
        store.apply(&[finished("a")], None).unwrap();
        let ids: Vec<String> = store
            .list(10)
            .unwrap()
            .into_iter()
            .map(|g| g.game)
            .collect();
        assert_eq!(ids, ["a", "c", "b"]);
    }

    fn live(room: &str, games_played: u32) -> Write {
        Write::Live(Box::new(LiveRoom {
            room: room.to_string(),
            config: config_json("4x4 poison 0,0"),
            seats: vec![],
            host: Some(0),
            started_ms: Some(1),
            version: 1,
            moves: 0,
            time_left_ms: None,
            games_played,
        }))
    }

    fn mv(room: &str, ply: u32, row: u8) -> Write {
        Write::Move {
            room: room.to_string(),
            ply,
            mv: LiveMove {
                row,
                col: 1,
                version: u64::from(ply) + 2,
            },
        }
    }

    #[test]
    fn a_checkpoint_leaves_out_what_a_later_record_replaces() {
        let writes = [
            live("a", 0),
            mv("a", 0, 3),
            live("b", 0),
            mv("a", 1, 2),
            finished("a"),
            live("a", 1),
            mv("a", 0, 1),
            mv("b", 0, 3),
        ];
        let kept: Vec<Write> = coalesce(&writes).into_iter().cloned().collect();
        assert_eq!(
            kept,
            [
                live("b", 0),
                finished("a"),
                live("a", 1),
                mv("a", 0, 1),
                mv("b", 0, 3)
            ]
        );
    }

    #[test]
    fn the_journal_is_taken_in_at_the_next_start_and_a_torn_tail_ignored() {
        let tmp = TempDir::new("store-journal");
        let dir = tmp.path();
        drop(Store::open(dir).unwrap());
        let mut older = crate::journal::Journal::create(dir, 4).unwrap();
        older
            .append(&[live("r1", 0), mv("r1", 0, 3), live("r2", 0), mv("r2", 0, 2)])
            .unwrap();
        let mut newer = crate::journal::Journal::create(dir, 5).unwrap();
        newer
            .append(&[mv("r1", 1, 2), finished("r2"), mv("r1", 2, 1)])
            .unwrap();
        // A crash in the middle of the next append: half a record.
        let mut torn = Vec::new();
        crate::journal::encode(&mv("r1", 3, 0), &mut torn).unwrap();
        let path = newer.path().to_path_buf();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(&torn[..torn.len() / 2]);
        std::fs::write(&path, bytes).unwrap();

        let store = Store::open(dir).unwrap();
        assert_eq!(store.next_segment(), 6);
        assert_eq!(store.recover(false).unwrap(), 7);
        assert!(crate::journal::segments(dir).unwrap().is_empty());
        let in_play = store.games_in_play().unwrap();
        assert_eq!(in_play.len(), 1);
        assert_eq!(in_play[0].room.room, "r1");
        let rows: Vec<u8> = in_play[0].moves.iter().map(|m| m.row).collect();
        assert_eq!(rows, [3, 2, 1]);
        assert_eq!(store.get("r2").unwrap(), Some(record("r2")));
        // Taking the same journal in twice (a crash after a checkpoint's commit, before its
        // segments were removed) leaves the same state.
        let mut again = crate::journal::Journal::create(dir, 6).unwrap();
        again
            .append(&[mv("r1", 1, 2), finished("r2"), mv("r1", 2, 1)])
            .unwrap();
        store.recover(false).unwrap();
        assert_eq!(store.games_in_play().unwrap(), in_play);
        assert_eq!(store.list(10).unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_record_in_the_journal_is_listed_at_once_and_once_after_the_checkpoint() {
        let tmp = TempDir::new("store-unfolded");
        let store = Store::open(tmp.path()).unwrap();
        let (handle, writer) = StoreHandle::start(store, None, None, None, |_, _| {});
        handle.commit(vec![finished("a")]).await;
        handle.commit(vec![live("b", 0), finished("b")]).await;
        let ids = |games: Vec<GameSummary>| -> Vec<String> {
            games.into_iter().map(|g| g.game).collect()
        };
        assert_eq!(ids(handle.list(10).await.unwrap()), ["b", "a"]);
        assert_eq!(handle.get("a".into()).await.unwrap(), Some(record("a")));
        assert!(handle.games_in_play().await.unwrap().is_empty());
        assert_eq!(ids(handle.list(10).await.unwrap()), ["b", "a"]);
        assert_eq!(ids(handle.list(1).await.unwrap()), ["b"]);
        assert_eq!(handle.get("a".into()).await.unwrap(), Some(record("a")));
        drop(handle);
        writer.await.unwrap();
        assert!(crate::journal::segments(tmp.path()).unwrap().is_empty());
    }
}
