//! [`Store`]: finished game records in an embedded database, and [`StoreHandle`], the writer
//! task that commits them in batches.
//!
//! The database is [redb](https://www.redb.org): pure Rust (no C toolchain), ACID, crash-safe
//! copy-on-write B-trees, and every commit is fsynced before it returns (its default
//! `Durability::Immediate`). A record is visible to `list_games`/`get_game` only once its
//! commit returned, so a game a client has seen listed survives a restart and a `kill -9`.
//! Records are stored as the foundation's JSON record format.

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

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "games.redb";

/// Records committed in one transaction at most: everything queued (up to the queue's size), so
/// that when many games end at once they share few durable commits. Measured with
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
        txn.commit()?;
        Ok(Store { db })
    }

    /// Commits records in one durable transaction. A record whose id is already stored
    /// replaces the old one.
    pub(crate) fn save(&self, records: &[Record]) -> Result<(), StoreError> {
        let txn = self.db.begin_write()?;
        {
            let mut games = txn.open_table(GAMES)?;
            let mut ids = txn.open_table(IDS)?;
            let first = games.last()?.map_or(0, |(k, _)| k.value() + 1);
            for (next, record) in (first..).zip(records) {
                let json = serde_json::to_string(record)?;
                let id = record.id.clone().unwrap_or_else(|| format!("game-{next}"));
                if let Some(old) = ids.remove(id.as_str())? {
                    games.remove(old.value())?;
                }
                games.insert(next, json.as_str())?;
                ids.insert(id.as_str(), next)?;
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

/// A record to commit, and who to tell once its commit is over.
type Job = (Record, oneshot::Sender<()>);

/// The rooms' way to the store: a bounded queue to one writer task, and shared read access.
#[derive(Clone, Debug)]
pub(crate) struct StoreHandle {
    tx: mpsc::Sender<Job>,
    store: Arc<Store>,
}

impl StoreHandle {
    /// Starts the writer task. It ends, after committing everything queued, once every handle
    /// is dropped; `on_commit` is called with the outcome of every batch.
    pub(crate) fn start(
        store: Store,
        on_commit: impl Fn(usize, Result<(), &StoreError>) + Send + Sync + 'static,
    ) -> (StoreHandle, JoinHandle<()>) {
        let store = Arc::new(store);
        let (tx, mut rx) = mpsc::channel::<Job>(1024);
        let writer_store = store.clone();
        let on_commit = Arc::new(on_commit);
        let writer = tokio::spawn(async move {
            while let Some(first) = rx.recv().await {
                let (mut batch, mut done) = (vec![first.0], vec![first.1]);
                while batch.len() < BATCH {
                    match rx.try_recv() {
                        Ok((r, d)) => {
                            batch.push(r);
                            done.push(d);
                        }
                        Err(_) => break,
                    }
                }
                let store = writer_store.clone();
                let on_commit = on_commit.clone();
                let n = batch.len();
                let joined = tokio::task::spawn_blocking(move || {
                    let started = std::time::Instant::now();
                    let res = store.save(&batch);
                    if res.is_ok() {
                        tracing::debug!(
                            games = n,
                            secs = started.elapsed().as_secs_f64(),
                            "committed"
                        );
                    }
                    on_commit(n, res.as_ref().map(|_| ()));
                    (res, batch)
                })
                .await;
                match joined {
                    Ok((Ok(()), batch)) => {
                        for r in &batch {
                            tracing::info!(game = r.id.as_deref().unwrap_or("?"), "game stored");
                        }
                    }
                    Ok((Err(e), _)) => {
                        tracing::error!(error = %e, games = n, "storing games failed")
                    }
                    Err(e) => tracing::error!(error = %e, games = n, "store writer panicked"),
                }
                for d in done {
                    let _ = d.send(());
                }
            }
        });
        (StoreHandle { tx, store }, writer)
    }

    /// Stores a finished game and returns once its commit is durable (or has failed, which
    /// is logged). Waits while the queue is full; records queued together share one commit.
    pub(crate) async fn save(&self, record: Record) {
        let (done, committed) = oneshot::channel();
        if self.tx.send((record, done)).await.is_err() {
            tracing::error!("the store writer is gone; a game record is lost");
            return;
        }
        let _ = committed.await;
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

    #[test]
    fn saves_lists_newest_first_and_reopens() {
        let tmp = TempDir::new("store-reopen");
        let dir = tmp.path();
        {
            let store = Store::open(dir).unwrap();
            store.save(&[record("a"), record("b")]).unwrap();
            store.save(&[record("c")]).unwrap();
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
        store.save(&[record("a")]).unwrap();
        let ids: Vec<String> = store
            .list(10)
            .unwrap()
            .into_iter()
            .map(|g| g.game)
            .collect();
        assert_eq!(ids, ["a", "c", "b"]);
    }
}
