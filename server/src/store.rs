//! [`Store`]: finished game records and the games in play in an embedded database, and
//! [`StoreHandle`], the writer task that commits them in batches.
//!
//! The database is [redb](https://www.redb.org): pure Rust (no C toolchain), ACID, crash-safe
//! copy-on-write B-trees, and every commit is fsynced before it returns (its default
//! `Durability::Immediate`). A record is visible to `list_games`/`get_game` only once its
//! commit returned, so a game a client has seen listed survives a restart and a `kill -9`.
//! Records are stored as the foundation's JSON record format. A game in play is its state
//! ([`LiveRoom`], JSON) and its moves, one small row each, so that a move costs one row in the
//! next batch's commit.

use crate::live::{LiveMove, LiveRoom, Stored, Write};
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::GameSummary;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use std::path::Path;
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

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "games.redb";

/// Writes committed in one transaction at most: everything queued (up to the queue's size), so
/// that when many games move or end at once they share few durable commits. Measured with
/// `jchomp-bench` at 2,500 four-seat rooms: 64 per commit let game-ending moves wait 1.7 s
/// (median), 1,024 about 0.6 s.
const BATCH: usize = 1024;

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

/// The game database.
#[derive(Debug)]
pub(crate) struct Store {
    db: Database,
}

impl Store {
    /// Opens (or creates) the database in `dir`, creating the directory if needed.
    pub(crate) fn open(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir)?;
        let db = Database::create(dir.join(DB_FILE))?;
        let txn = db.begin_write()?;
        txn.open_table(GAMES)?;
        txn.open_table(IDS)?;
        txn.open_table(LIVE)?;
        txn.open_table(LIVE_MOVES)?;
        txn.commit()?;
        Ok(Store { db })
    }

    /// Makes writes durable in one transaction, in order. A record whose id is already stored
    /// replaces the old one; a finished game's state in play and moves are removed with it.
    pub(crate) fn apply(&self, writes: &[Write]) -> Result<(), StoreError> {
        let txn = self.db.begin_write()?;
        {
            let mut games = txn.open_table(GAMES)?;
            let mut ids = txn.open_table(IDS)?;
            let mut live = txn.open_table(LIVE)?;
            let mut moves = txn.open_table(LIVE_MOVES)?;
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
                    Write::Finished(record) => {
                        let json = serde_json::to_string(record)?;
                        let id = record.id.clone().unwrap_or_else(|| format!("game-{next}"));
                        if let Some(old) = ids.remove(id.as_str())? {
                            games.remove(old.value())?;
                        }
                        games.insert(next, json.as_str())?;
                        ids.insert(id.as_str(), next)?;
                        next += 1;
                        live.remove(id.as_str())?;
                        for ply in 0..record.moves.len() {
                            let ply = u32::try_from(ply).unwrap_or(u32::MAX);
                            moves.remove((id.as_str(), ply))?;
                        }
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
            let record: Record = match serde_json::from_str(json.value()) {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!(seq = seq.value(), error = %e, "skipping a corrupt game record");
                    continue;
                }
            };
            out.push(GameSummary {
                game: record.id.unwrap_or_else(|| format!("game-{}", seq.value())),
                config: record.config,
                seats: record.seats,
                result: record.result,
                moves: record.moves.len(),
                finished_ms: record.finished_ms,
            });
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

/// Writes to commit together, and who to tell once their commit is over.
type Job = (Vec<Write>, oneshot::Sender<()>);

/// The rooms' way to the store: a bounded queue to one writer task, and shared read access.
#[derive(Clone, Debug)]
pub(crate) struct StoreHandle {
    tx: mpsc::Sender<Job>,
    store: Arc<Store>,
}

impl StoreHandle {
    /// Starts the writer task. It ends, after committing everything queued, once every handle
    /// is dropped; `on_commit` is called with the number of finished games of every batch and
    /// its outcome.
    pub(crate) fn start(
        store: Store,
        on_commit: impl Fn(usize, Result<(), &StoreError>) + Send + Sync + 'static,
    ) -> (StoreHandle, JoinHandle<()>) {
        let store = Arc::new(store);
        let (tx, mut rx) = mpsc::channel::<Job>(BATCH);
        let writer_store = store.clone();
        let on_commit = Arc::new(on_commit);
        let writer = tokio::spawn(async move {
            while let Some((first, done_first)) = rx.recv().await {
                let (mut batch, mut done) = (first, vec![done_first]);
                while batch.len() < BATCH {
                    match rx.try_recv() {
                        Ok((w, d)) => {
                            batch.extend(w);
                            done.push(d);
                        }
                        Err(_) => break,
                    }
                }
                let store = writer_store.clone();
                let on_commit = on_commit.clone();
                let n = batch.len();
                let games = batch.iter().filter(|w| w.is_finished()).count();
                let joined = tokio::task::spawn_blocking(move || {
                    let started = std::time::Instant::now();
                    let res = store.apply(&batch);
                    if res.is_ok() {
                        tracing::debug!(
                            writes = n,
                            games,
                            secs = started.elapsed().as_secs_f64(),
                            "committed"
                        );
                    }
                    if games > 0 {
                        on_commit(games, res.as_ref().map(|_| ()));
                    }
                    (res, batch)
                })
                .await;
                match joined {
                    Ok((Ok(()), batch)) => {
                        for w in &batch {
                            if let Write::Finished(r) = w {
                                tracing::info!(
                                    game = r.id.as_deref().unwrap_or("?"),
                                    "game stored"
                                );
                            }
                        }
                    }
                    Ok((Err(e), _)) => {
                        tracing::error!(error = %e, writes = n, games, "storing failed")
                    }
                    Err(e) => tracing::error!(error = %e, writes = n, "store writer panicked"),
                }
                for d in done {
                    let _ = d.send(());
                }
            }
        });
        (StoreHandle { tx, store }, writer)
    }

    /// Makes `writes` durable, in order, and returns once their commit is over (or has failed,
    /// which is logged). Waits while the queue is full; writes queued together share one
    /// commit.
    pub(crate) async fn commit(&self, writes: Vec<Write>) {
        if writes.is_empty() {
            return;
        }
        let (done, committed) = oneshot::channel();
        if self.tx.send((writes, done)).await.is_err() {
            tracing::error!("the store writer is gone; a game's progress is lost");
            return;
        }
        let _ = committed.await;
    }

    /// Every game in play, off the async threads.
    #[cfg(test)]
    pub(crate) async fn games_in_play(&self) -> Result<Vec<Stored>, StoreError> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.games_in_play()).await?
    }

    /// The newest games, off the async threads.
    pub(crate) async fn list(&self, limit: usize) -> Result<Vec<GameSummary>, StoreError> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.list(limit)).await?
    }

    /// One record, off the async threads.
    pub(crate) async fn get(&self, id: String) -> Result<Option<Record>, StoreError> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.get(&id)).await?
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
        Write::Finished(Box::new(record(id)))
    }

    #[test]
    fn saves_lists_newest_first_and_reopens() {
        let tmp = TempDir::new("store-reopen");
        let dir = tmp.path();
        {
            let store = Store::open(dir).unwrap();
            store.apply(&[finished("a"), finished("b")]).unwrap();
            store.apply(&[finished("c")]).unwrap();
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
        store.apply(&[finished("a")]).unwrap();
        let ids: Vec<String> = store
            .list(10)
            .unwrap()
            .into_iter()
            .map(|g| g.game)
            .collect();
        assert_eq!(ids, ["a", "c", "b"]);
    }
}
