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
//!
//! With `--database postgres://…` finished records go to PostgreSQL ([`PgRecords`]) instead:
//! the writer first commits them to redb's outbox (with the rest of the batch, so a game a
//! player has seen end is durable at once, whatever PostgreSQL is doing), then delivers the
//! outbox to PostgreSQL and empties it. While PostgreSQL is unreachable the outbox grows and is
//! delivered, each record once, when it is back.

use crate::cluster::Mirror;
use crate::live::{LiveMove, LiveRoom, Stored, Write};
use crate::postgres::{PgError, PgRecords};
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
/// Game id → record JSON, finished games waiting to be delivered to PostgreSQL.
const OUTBOX: TableDefinition<&str, &str> = TableDefinition::new("records_outbox");

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
        txn.open_table(OUTBOX)?;
        txn.commit()?;
        Ok(Store { db })
    }

    /// Makes writes durable in one transaction, in order. A record whose id is already stored
    /// replaces the old one; a finished game's state in play and moves are removed with it.
    /// With `outbox`, records go to the outbox (for PostgreSQL) instead of the games table.
    pub(crate) fn apply(&self, writes: &[Write], outbox: bool) -> Result<(), StoreError> {
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
                        if outbox {
                            waiting.insert(id.as_str(), json.as_str())?;
                        } else {
                            if let Some(old) = ids.remove(id.as_str())? {
                                games.remove(old.value())?;
                            }
                            games.insert(next, json.as_str())?;
                            ids.insert(id.as_str(), next)?;
                            next += 1;
                        }
                        live.remove(room.as_str())?;
                        for ply in 0..record.moves.len() {
                            let ply = u32::try_from(ply).unwrap_or(u32::MAX);
                            moves.remove((room.as_str(), ply))?;
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

    /// The records waiting for PostgreSQL (id, JSON).
    fn outbox(&self) -> Result<Vec<(String, String)>, StoreError> {
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
    fn delivered(&self, ids: &[String]) -> Result<(), StoreError> {
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

/// Commits one batch to redb off the async threads; returns how many finished games it held.
async fn commit(
    store: &Arc<Store>,
    batch: Vec<Write>,
    outbox: bool,
    on_commit: &OnCommit,
) -> usize {
    let n = batch.len();
    let games = batch.iter().filter(|w| w.is_finished()).count();
    let store = store.clone();
    let joined = tokio::task::spawn_blocking(move || {
        let started = std::time::Instant::now();
        let res = store.apply(&batch, outbox);
        if res.is_ok() {
            tracing::debug!(
                writes = n,
                games,
                secs = started.elapsed().as_secs_f64(),
                "committed"
            );
        }
        (res, batch)
    })
    .await;
    match joined {
        Ok((Ok(()), batch)) => {
            if games > 0 && !outbox {
                on_commit(games, Ok(()));
            }
            for w in &batch {
                if let Write::Finished { record: r, .. } = w {
                    tracing::info!(game = r.id.as_deref().unwrap_or("?"), "game stored");
                }
            }
        }
        Ok((Err(e), _)) => {
            if games > 0 {
                on_commit(games, Err(&e));
            }
            tracing::error!(error = %e, writes = n, games, "storing failed");
        }
        Err(e) => tracing::error!(error = %e, writes = n, "store writer panicked"),
    }
    games
}

/// Delivers the outbox to PostgreSQL and empties it of what was delivered; returns whether the
/// outbox is empty now (`false`: PostgreSQL failed, try again later).
async fn deliver(
    store: &Arc<Store>,
    records: Option<&PgRecords>,
    mirror: Option<&Mirror>,
    on_commit: &OnCommit,
) -> bool {
    let Some(records) = records else {
        return true;
    };
    let reader = store.clone();
    let waiting = match tokio::task::spawn_blocking(move || reader.outbox()).await {
        Ok(Ok(w)) => w,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "reading the outbox failed");
            return false;
        }
        Err(e) => {
            tracing::error!(error = %e, "reading the outbox panicked");
            return false;
        }
    };
    if waiting.is_empty() {
        return true;
    }
    match records.insert(&waiting).await {
        Ok(_) => {
            on_commit(waiting.len(), Ok(()));
            let ids: Vec<String> = waiting.into_iter().map(|(id, _)| id).collect();
            let ids_delivered = ids.clone();
            let n = ids.len();
            let writer = store.clone();
            match tokio::task::spawn_blocking(move || writer.delivered(&ids)).await {
                Ok(Ok(())) => {
                    tracing::debug!(games = n, "delivered to PostgreSQL");
                    if let Some(m) = mirror {
                        m.delivered(&ids_delivered).await;
                    }
                    true
                }
                // Delivered again later: PostgreSQL keeps each id once.
                _ => false,
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, games = waiting.len(), "PostgreSQL is unreachable; finished games wait in the outbox");
            false
        }
    }
}

/// The `list_games` line of a stored record, or `None` (logged) if it does not parse.
fn summary(seq: u64, json: &str) -> Option<GameSummary> {
    let record: Record = match serde_json::from_str(json) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(seq, error = %e, "skipping a corrupt game record");
            return None;
        }
    };
    Some(GameSummary {
        game: record.id.unwrap_or_else(|| format!("game-{seq}")),
        config: record.config,
        seats: record.seats,
        result: record.result,
        moves: record.moves.len(),
        finished_ms: record.finished_ms,
    })
}

/// What the writer calls with the number of finished games stored (or not) at once.
type OnCommit = dyn Fn(usize, Result<(), &StoreError>) + Send + Sync;

/// Writes to commit together, and who to tell once their commit is over.
type Job = (Vec<Write>, oneshot::Sender<()>);

/// The rooms' way to the store: a bounded queue to one writer task, and shared read access.
#[derive(Clone, Debug)]
pub(crate) struct StoreHandle {
    tx: mpsc::Sender<Job>,
    store: Arc<Store>,
    /// Where finished records go, when not in `store`.
    records: Option<PgRecords>,
    /// In a cluster, where every batch is also written (Redis), for another node to take the
    /// games in play over.
    mirror: Option<Mirror>,
}

/// How long the writer waits before delivering the outbox again after PostgreSQL failed.
const RETRY: std::time::Duration = std::time::Duration::from_millis(500);

impl StoreHandle {
    /// Starts the writer task. It ends, after committing everything queued, once every handle
    /// is dropped; `on_commit` is called with the number of finished games of every batch (or
    /// delivery to PostgreSQL) and its outcome. With `records`, finished games go through the
    /// outbox to PostgreSQL. With `mirror` (a cluster), every batch is also written to Redis,
    /// at the same time as the commit, and its waiters answered once both are done.
    pub(crate) fn start(
        store: Store,
        records: Option<PgRecords>,
        mirror: Option<Mirror>,
        on_commit: impl Fn(usize, Result<(), &StoreError>) + Send + Sync + 'static,
    ) -> (StoreHandle, JoinHandle<()>) {
        let store = Arc::new(store);
        let (tx, mut rx) = mpsc::channel::<Job>(BATCH);
        let writer_store = store.clone();
        let pg = records.clone();
        let on_commit: Arc<OnCommit> = Arc::new(on_commit);
        let writer_mirror = mirror.clone();
        let writer = tokio::spawn(async move {
            let mirror = writer_mirror;
            let outbox = pg.is_some();
            // What an earlier run left in the outbox is delivered first.
            let mut backlog = outbox;
            loop {
                let next = if backlog {
                    tokio::select! {
                        job = rx.recv() => job,
                        _ = tokio::time::sleep(RETRY) => {
                            backlog = !deliver(&writer_store, pg.as_ref(), mirror.as_ref(), &*on_commit).await;
                            continue;
                        }
                    }
                } else {
                    rx.recv().await
                };
                let Some((first, done_first)) = next else {
                    break;
                };
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
                let mirrored = mirror.as_ref().and_then(|m| m.prepare(&batch, outbox));
                let (games, ()) =
                    tokio::join!(commit(&writer_store, batch, outbox, &*on_commit), async {
                        if let Some(m) = mirrored {
                            m.send().await;
                        }
                    });
                if outbox && (games > 0 || backlog) {
                    backlog =
                        !deliver(&writer_store, pg.as_ref(), mirror.as_ref(), &*on_commit).await;
                }
                for d in done {
                    let _ = d.send(());
                }
            }
            if backlog && !deliver(&writer_store, pg.as_ref(), mirror.as_ref(), &*on_commit).await {
                tracing::warn!(
                    "finished games wait in the outbox for PostgreSQL; they are delivered at the next start"
                );
            }
        });
        (
            StoreHandle {
                tx,
                store,
                records,
                mirror,
            },
            writer,
        )
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

    /// In a cluster: whether another node owns `room` now, so that it must stop here (asking
    /// forgets the answer).
    pub(crate) fn lost(&self, room: &str) -> bool {
        self.mirror.as_ref().is_some_and(|m| m.lost(room))
    }

    /// Every game in play, off the async threads.
    #[cfg(test)]
    pub(crate) async fn games_in_play(&self) -> Result<Vec<Stored>, StoreError> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.games_in_play()).await?
    }

    /// The newest games: from PostgreSQL if records go there, else off the async threads from
    /// redb.
    pub(crate) async fn list(&self, limit: usize) -> Result<Vec<GameSummary>, StoreError> {
        if let Some(records) = &self.records {
            let newest = records.newest(limit).await?;
            return Ok(newest
                .iter()
                .filter_map(|(seq, json)| summary(*seq, json))
                .collect());
        }
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.list(limit)).await?
    }

    /// One record, from PostgreSQL if records go there, else off the async threads from redb.
    pub(crate) async fn get(&self, id: String) -> Result<Option<Record>, StoreError> {
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
            store.apply(&[finished("a"), finished("b")], false).unwrap();
            store.apply(&[finished("c")], false).unwrap();
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
        store.apply(&[finished("a")], false).unwrap();
        let ids: Vec<String> = store
            .list(10)
            .unwrap()
            .into_iter()
            .map(|g| g.game)
            .collect();
        assert_eq!(ids, ["a", "c", "b"]);
    }
}
