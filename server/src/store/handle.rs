//! [`StoreHandle`], the rooms' way to the writer task ([`super::writer`]) that makes their
//! writes durable in batches, and reads finished games.
//!
//! A write is durable once it is in the journal ([`super::journal`]: one append and one
//! `fdatasync` per batch); the database ([`Store`]) takes the journal's writes in at
//! checkpoints, in one transaction, and a restart first takes in what the journal holds
//! ([`Store::recover`]). Finished records in the journal but not yet in the database are answered
//! from memory ([`Unfolded`]).
//!
//! With `--database postgres://…` finished records go to PostgreSQL ([`PgRecords`]) instead:
//! the writer first commits them to redb's outbox (with the rest of the batch, so a game a
//! player has seen end is durable at once, whatever PostgreSQL is doing), then delivers the
//! outbox to PostgreSQL and empties it. While PostgreSQL is unreachable the outbox grows and is
//! delivered, each record once, when it is back.

use super::account_store::AccountStore;
use super::db::{Store, summary, summary_of};
use super::error::StoreError;
#[cfg(test)]
use super::live::Stored;
use super::live::Write;
use super::postgres::PgRecords;
use super::replica::Replica;
use super::writer::{self, Job, Policy, Unfolded};
use crate::settings::Durability;
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::GameSummary;
use prometheus_client::metrics::histogram::Histogram;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// Where the store reports how long durability takes (the server's metrics).
#[derive(Clone, Debug)]
pub(crate) struct StoreTimings {
    /// Seconds a room waited for its writes to be durable.
    pub wait: Histogram,
    /// Seconds one journal append took.
    pub append: Histogram,
    /// Seconds one `fdatasync` of the journal took.
    pub sync: Histogram,
}

/// How the store makes writes durable and where it reports how long that takes.
#[derive(Clone, Debug, Default)]
pub(crate) struct StoreOptions {
    /// When a batch's rooms are answered: after its `fdatasync`, or after its `write` with an
    /// `fdatasync` at least every `sync_every`.
    pub durability: Durability,
    /// With [`Durability::Periodic`], the longest the journal holds writes not on disk.
    pub sync_every: Duration,
    /// Where durability's timings are counted.
    pub timings: Option<StoreTimings>,
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
    replica: Option<Arc<dyn Replica>>,
    /// Where a room's wait for durability is counted.
    wait: Option<Histogram>,
}

impl StoreHandle {
    /// Starts the writer task. It ends, after making everything queued durable and taking the
    /// journal into the database, once every handle is dropped; `on_commit` is called with the
    /// number of finished games of every batch (or delivery to PostgreSQL) and its outcome.
    /// With `records`, finished games go through the outbox to PostgreSQL.
    /// `options` say when writes count as durable, and where the rooms' waits and the
    /// journal's appends are counted.
    pub(crate) fn start(
        store: Store,
        records: Option<PgRecords>,
        replica: Option<Arc<dyn Replica>>,
        options: StoreOptions,
        on_commit: impl Fn(usize, Result<(), &StoreError>) + Send + Sync + 'static,
    ) -> (StoreHandle, JoinHandle<()>) {
        let store = Arc::new(store);
        let (tx, rx) = mpsc::channel::<Job>(QUEUE);
        let unfolded = Arc::new(Unfolded::default());
        let writer = tokio::spawn(writer::run(
            store.clone(),
            records.clone(),
            replica.clone(),
            unfolded.clone(),
            Arc::new(on_commit),
            Policy {
                durability: options.durability,
                sync_every: options.sync_every,
                append_seconds: options.timings.as_ref().map(|t| t.append.clone()),
                sync_seconds: options.timings.as_ref().map(|t| t.sync.clone()),
            },
            rx,
        ));
        let handle = StoreHandle {
            tx,
            store,
            unfolded,
            records,
            replica,
            wait: options.timings.map(|t| t.wait),
        };
        (handle, writer)
    }

    /// Where accounts, tokens and ratings are: beside the finished games (in PostgreSQL if
    /// records go there, else in the embedded database).
    pub(crate) fn accounts(&self) -> AccountStore {
        match &self.records {
            Some(pg) => AccountStore::Postgres(pg.clone()),
            None => AccountStore::Embedded(self.store.clone()),
        }
    }

    /// Where the tournaments the server runs are kept (the embedded database, whatever holds
    /// the finished games).
    pub(crate) fn tournaments(&self) -> super::TournamentStore {
        super::TournamentStore(self.store.clone())
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
        self.replica.as_ref().is_some_and(|m| m.lost(room))
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
    use crate::store::db::coalesce;
    use crate::store::live::{LiveMove, LiveRoom};
    use jchomp_protocol::json::ResultJson;
    use jchomp_testkit::config_json;
    use jchomp_testkit::fixtures::{Fixture, RecordFixture, record};
    use jchomp_testkit::temp::TempDir;

    /// The record of game `id`, abandoned by seat 1 before the first move.
    fn abandoned(id: &str) -> Record {
        record("4x4 poison 0,0")
            .id(id)
            .seats(["a", "b"])
            .result(ResultJson::Abandoned { loser: 1 })
            .started(1)
            .finished(2)
    }

    fn finished(id: &str) -> Write {
        Write::Finished {
            room: id.to_string(),
            record: Box::new(abandoned(id)),
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
        assert_eq!(store.get("b").unwrap(), Some(abandoned("b")));
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
        let mut older = crate::store::journal::Journal::create(dir, 4).unwrap();
        older
            .append(&[live("r1", 0), mv("r1", 0, 3), live("r2", 0), mv("r2", 0, 2)])
            .unwrap();
        let mut newer = crate::store::journal::Journal::create(dir, 5).unwrap();
        newer
            .append(&[mv("r1", 1, 2), finished("r2"), mv("r1", 2, 1)])
            .unwrap();
        // A crash in the middle of the next append: half a record.
        let mut torn = Vec::new();
        crate::store::journal::encode(&mv("r1", 3, 0), &mut torn).unwrap();
        let path = newer.path().to_path_buf();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(&torn[..torn.len() / 2]);
        std::fs::write(&path, bytes).unwrap();

        let store = Store::open(dir).unwrap();
        assert_eq!(store.next_segment(), 6);
        assert_eq!(store.recover(false).unwrap(), 7);
        assert!(crate::store::journal::segments(dir).unwrap().is_empty());
        let in_play = store.games_in_play().unwrap();
        assert_eq!(in_play.len(), 1);
        assert_eq!(in_play[0].room.room, "r1");
        let rows: Vec<u8> = in_play[0].moves.iter().map(|m| m.row).collect();
        assert_eq!(rows, [3, 2, 1]);
        assert_eq!(store.get("r2").unwrap(), Some(abandoned("r2")));
        // Taking the same journal in twice (a crash after a checkpoint's commit, before its
        // segments were removed) leaves the same state.
        let mut again = crate::store::journal::Journal::create(dir, 6).unwrap();
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
        let (handle, writer) =
            StoreHandle::start(store, None, None, StoreOptions::default(), |_, _| {});
        handle.commit(vec![finished("a")]).await;
        handle.commit(vec![live("b", 0), finished("b")]).await;
        let ids = |games: Vec<GameSummary>| -> Vec<String> {
            games.into_iter().map(|g| g.game).collect()
        };
        assert_eq!(ids(handle.list(10).await.unwrap()), ["b", "a"]);
        assert_eq!(handle.get("a".into()).await.unwrap(), Some(abandoned("a")));
        assert!(handle.games_in_play().await.unwrap().is_empty());
        assert_eq!(ids(handle.list(10).await.unwrap()), ["b", "a"]);
        assert_eq!(ids(handle.list(1).await.unwrap()), ["b"]);
        assert_eq!(handle.get("a".into()).await.unwrap(), Some(abandoned("a")));
        drop(handle);
        writer.await.unwrap();
        assert!(
            crate::store::journal::segments(tmp.path())
                .unwrap()
                .is_empty()
        );
    }
}
