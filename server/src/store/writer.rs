//! The store's writer task: gathers the rooms' [`Write`]s into batches, makes each batch
//! durable in the journal ([`Writer::durable`], the one place where writes become durable and
//! their rooms are answered), and takes the journal into the database at checkpoints, in the
//! background, while the next batches are appended.

use super::db::{Store, coalesce};
use super::error::StoreError;
use super::journal::{self, Journal};
use super::live::Write;
use super::postgres::PgRecords;
use super::replica::Replica;
use crate::settings::Durability;
use crate::sync::lock;
use jchomp_protocol::record::Record;
use prometheus_client::metrics::histogram::Histogram;
use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// Writes made durable by one append at most: everything queued (up to this), so that when
/// many rooms move or end at once they share one `fdatasync`.
const BATCH: usize = 8192;

/// How often the journal is taken into the database (when it holds anything). Seconds apart,
/// so that most games short enough to start and end between two checkpoints never put their
/// moves in the database at all ([`coalesce`]): each checkpoint costs CPU and a burst of page
/// writes that the journal's `fdatasync` waits behind.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(10);

/// Writes after which the journal is taken into the database sooner, bounding the memory they
/// hold and the time a restart takes to read them back.
const CHECKPOINT_WRITES: usize = 100_000;

/// How long a batch ending games waits for PostgreSQL to take their records at once before it
/// leaves them to the outbox.
const EARLY: Duration = Duration::from_secs(2);

/// How long the writer waits before delivering the outbox again after PostgreSQL failed.
const RETRY: Duration = Duration::from_millis(500);

/// What the writer calls with the number of finished games stored (or not) at once.
pub(crate) type OnCommit = dyn Fn(usize, Result<(), &StoreError>) + Send + Sync;

/// When the writer's batches count as durable, and where its appends are timed.
pub(crate) struct Policy {
    /// After each batch's `fdatasync`, or after its `write` with an `fdatasync` at least every
    /// `sync_every`.
    pub durability: Durability,
    /// With [`Durability::Periodic`], the longest the journal holds writes not on disk.
    pub sync_every: Duration,
    /// Where each append's duration is counted.
    pub append_seconds: Option<Histogram>,
    /// Where each `fdatasync`'s duration is counted.
    pub sync_seconds: Option<Histogram>,
}

/// Puts `journal` on disk, counting how long that took in `counted`.
fn sync_timed(journal: &Journal, counted: Option<&Histogram>) -> std::io::Result<()> {
    let started = std::time::Instant::now();
    let res = journal.sync();
    if let Some(h) = counted {
        h.observe(started.elapsed().as_secs_f64());
    }
    res
}

/// What the writer is asked to do.
pub(crate) enum Job {
    /// Make these writes durable, then answer.
    Writes(Vec<Write>, oneshot::Sender<()>),
    /// Take the journal into the database now, then answer (tests read the database).
    #[cfg(test)]
    Checkpoint(oneshot::Sender<()>),
}

/// Finished records durable in the journal but not yet in the database (or, with PostgreSQL,
/// not yet delivered there), oldest first: `list_games` and `get_game` answer from here first,
/// so a game a player has seen end is listed at once.
#[derive(Debug, Default)]
pub(crate) struct Unfolded(Mutex<VecDeque<Record>>);

impl Unfolded {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Record>> {
        lock(&self.0)
    }

    /// The newest `limit` records, newest first.
    pub(crate) fn newest(&self, limit: usize) -> Vec<Record> {
        self.lock().iter().rev().take(limit).cloned().collect()
    }

    /// The newest record with this id.
    pub(crate) fn get(&self, id: &str) -> Option<Record> {
        self.lock()
            .iter()
            .rev()
            .find(|r| r.id.as_deref() == Some(id))
            .cloned()
    }

    fn push(&self, records: impl IntoIterator<Item = Record>) {
        self.lock().extend(records);
    }

    /// Forgets the `n` oldest (now in the database).
    fn forget(&self, n: usize) {
        let mut held = self.lock();
        let n = n.min(held.len());
        held.drain(..n);
    }
}

/// What a background checkpoint hands back: its outcome, the writes it applied and the
/// segments it was to remove (both kept for the next one if it failed).
type Folded = (Result<(), StoreError>, Vec<Write>, Vec<PathBuf>);

/// The writer's state.
struct Writer {
    store: Arc<Store>,
    /// PostgreSQL, when finished records go there (through the outbox).
    pg: Option<PgRecords>,
    /// Where every batch is also written before its rooms are answered (in a cluster, Redis).
    replica: Option<Arc<dyn Replica>>,
    unfolded: Arc<Unfolded>,
    on_commit: Arc<OnCommit>,
    /// The segment appended to (created at the first append after a checkpoint started).
    journal: Option<Journal>,
    /// The generation of the next segment to create.
    next_segment: u64,
    /// Writes durable in the journal and not yet in the database, in order.
    unapplied: Vec<Write>,
    /// Segments whose writes are all in `unapplied`, to remove once those are in the database.
    sealed: Vec<PathBuf>,
    /// The checkpoint running in the background, if any.
    folding: Option<JoinHandle<Folded>>,
    /// When the last checkpoint started.
    last_checkpoint: Instant,
    /// Whether the outbox may hold records PostgreSQL does not have yet.
    backlog: bool,
    /// Ids of finished records durable in the journal that PostgreSQL took at once.
    delivered: HashSet<String>,
    /// When batches count as durable, and where appends are timed.
    policy: Policy,
    /// When the journal was last put on disk (an `fdatasync` started).
    last_sync: Instant,
    /// Whether the journal holds writes not yet on disk (only with [`Durability::Periodic`]).
    dirty: bool,
}

/// The writer task: runs until every [`super::StoreHandle`] is dropped, then makes
/// everything queued durable, takes the journal into the database and (with PostgreSQL)
/// delivers the outbox.
pub(crate) async fn run(
    store: Arc<Store>,
    pg: Option<PgRecords>,
    replica: Option<Arc<dyn Replica>>,
    unfolded: Arc<Unfolded>,
    on_commit: Arc<OnCommit>,
    policy: Policy,
    mut rx: mpsc::Receiver<Job>,
) {
    let next_segment = store.next_segment();
    let backlog = pg.is_some();
    let mut w = Writer {
        store,
        pg,
        replica,
        unfolded,
        on_commit,
        journal: None,
        next_segment,
        unapplied: Vec::new(),
        sealed: Vec::new(),
        folding: None,
        last_checkpoint: Instant::now(),
        backlog,
        delivered: HashSet::new(),
        policy,
        last_sync: Instant::now(),
        dirty: false,
    };
    loop {
        let due = w.last_checkpoint + CHECKPOINT_EVERY;
        let idle_checkpoint = w.folding.is_none() && !w.unapplied.is_empty();
        let job = tokio::select! {
            job = rx.recv() => job,
            folded = finished(&mut w.folding) => {
                w.folding = None;
                w.folded(folded).await;
                continue;
            }
            _ = tokio::time::sleep_until(due), if idle_checkpoint => {
                w.checkpoint();
                continue;
            }
            _ = tokio::time::sleep_until(w.last_sync + w.policy.sync_every), if w.dirty => {
                w.sync().await;
                continue;
            }
            _ = tokio::time::sleep(RETRY), if w.backlog && w.folding.is_none() => {
                w.deliver().await;
                continue;
            }
        };
        let Some(first) = job else {
            break;
        };
        let (mut batch, mut waiters) = (Vec::new(), Vec::new());
        #[cfg_attr(not(test), allow(unused_mut))] // only tests ask for a checkpoint
        let mut asked: Vec<oneshot::Sender<()>> = Vec::new();
        let mut next = Some(first);
        while let Some(job) = next.take() {
            match job {
                Job::Writes(writes, done) => {
                    let ends = writes.iter().any(Write::is_finished);
                    batch.extend(writes);
                    waiters.push((done, ends));
                }
                #[cfg(test)]
                Job::Checkpoint(done) => asked.push(done),
            }
            if batch.len() < BATCH {
                next = rx.try_recv().ok();
            }
        }
        w.durable(batch, waiters).await;
        if !asked.is_empty() {
            w.checkpoint_now().await;
            for done in asked {
                let _ = done.send(());
            }
        } else if w.folding.is_none()
            && (w.unapplied.len() >= CHECKPOINT_WRITES
                || (!w.unapplied.is_empty() && Instant::now() >= due))
        {
            w.checkpoint();
        }
    }
    w.checkpoint_now().await;
    if w.backlog && !w.deliver().await {
        tracing::warn!(
            "finished games wait in the outbox for PostgreSQL; they are delivered at the next start"
        );
    }
}

/// Answers the rooms waiting for a batch whose job is `now(ended a game)`; returns the others.
fn answer(
    waiters: Vec<(oneshot::Sender<()>, bool)>,
    now: impl Fn(bool) -> bool,
) -> Vec<(oneshot::Sender<()>, bool)> {
    let mut later = Vec::new();
    for (done, ends) in waiters {
        if now(ends) {
            let _ = done.send(());
        } else {
            later.push((done, ends));
        }
    }
    later
}

/// The background checkpoint's outcome, once it is over (never, when none runs).
async fn finished(folding: &mut Option<JoinHandle<Folded>>) -> Option<Folded> {
    match folding {
        Some(handle) => match handle.await {
            Ok(folded) => Some(folded),
            Err(e) => {
                tracing::error!(error = %e, "a checkpoint panicked; the journal keeps its writes until the next start");
                None
            }
        },
        None => std::future::pending().await,
    }
}

impl Writer {
    /// Makes one batch durable — one append and one `fdatasync` to the journal (with
    /// [`Durability::Periodic`], the `fdatasync` only when one is due) and, in a cluster, at the
    /// same time one round trip to Redis — then answers every room waiting for
    /// it (`waiters`, each marked with whether its writes end a game: those rooms are answered
    /// after PostgreSQL took the records, the others at once). This is the one place where
    /// writes become durable. If the append fails (logged and counted), the rooms are answered
    /// all the same, as they were when a database commit failed, and the writes still go to
    /// the database at the next checkpoint.
    ///
    /// The writes of rooms the replica did not take (their rooms are another node's now, or
    /// this node's lease could not be proved) are kept and delivered nowhere; a batch that ends
    /// a game goes to the replica first, so that a record it refused is not even journaled.
    async fn durable(
        &mut self,
        mut batch: Vec<Write>,
        mut waiters: Vec<(oneshot::Sender<()>, bool)>,
    ) {
        let outbox = self.pg.is_some();
        let mut replicated = self
            .replica
            .as_ref()
            .and_then(|m| m.prepare(&batch, outbox));
        if batch.iter().any(Write::is_finished)
            && let Some(send) = replicated.take()
        {
            let refused = send.await;
            drop_rooms(&mut batch, &refused);
        }
        let games = batch.iter().filter(|w| w.is_finished()).count();
        let journal = self.journal.take();
        let dir = self.store.dir().to_path_buf();
        let generation = self.next_segment;
        let counted = self.policy.append_seconds.clone();
        let sync_counted = self.policy.sync_seconds.clone();
        let sync = self.policy.durability == Durability::Always
            || self.last_sync.elapsed() >= self.policy.sync_every;
        if sync {
            self.last_sync = Instant::now();
        }
        let append = tokio::task::spawn_blocking(move || {
            let started = std::time::Instant::now();
            let res = match journal {
                Some(j) => Ok(j),
                None => Journal::create(&dir, generation),
            }
            .and_then(|mut j| j.append(&batch).map(|()| j))
            .and_then(|j| match sync {
                true => sync_timed(&j, sync_counted.as_ref()).map(|()| j),
                false => Ok(j),
            });
            let secs = started.elapsed().as_secs_f64();
            if let Some(h) = counted {
                h.observe(secs);
            }
            tracing::debug!(writes = batch.len(), secs, "journal append");
            (res, batch)
        });
        let (joined, refused) = tokio::join!(append, async {
            match replicated {
                Some(send) => send.await,
                None => Vec::new(),
            }
        });
        match joined {
            Ok((Ok(journal), mut batch)) => {
                drop_rooms(&mut batch, &refused);
                self.next_segment = journal.generation() + 1;
                self.journal = Some(journal);
                self.dirty = !sync;
                // Rooms that ended no game are answered at once; those that did wait for
                // PostgreSQL to take the records first (below), so that every node lists a game
                // once its end is announced.
                waiters = answer(waiters, |ends| !ends);
                if games > 0 && !outbox {
                    (self.on_commit)(games, Ok(()));
                }
                if games > 0 {
                    self.deliver_now(&batch).await;
                    self.rate_now(&batch).await;
                }
                self.accept(batch);
            }
            Ok((Err(e), mut batch)) => {
                drop_rooms(&mut batch, &refused);
                // A segment that failed mid-append may end in a torn record: the next batch
                // goes to a new segment, and this one is removed once its writes (all still
                // here) are in the database.
                let failed = self.store.dir().join(journal::segment_name(generation));
                if failed.exists() {
                    self.sealed.push(failed);
                }
                self.next_segment = generation + 1;
                let e = StoreError::Io(e);
                if games > 0 {
                    (self.on_commit)(games, Err(&e));
                }
                tracing::error!(error = %e, writes = batch.len(), games, "appending to the journal failed");
                self.accept(batch);
            }
            Err(e) => tracing::error!(error = %e, "the journal writer panicked"),
        }
        answer(waiters, |_| true);
    }

    /// With PostgreSQL: hands the batch's finished records to it at once (now that the journal
    /// holds them), so that every node lists a game as soon as its end is announced. What fails
    /// or takes longer than [`EARLY`] goes through the outbox at the next checkpoint instead;
    /// what succeeds is left out of the outbox (`delivered`).
    async fn deliver_now(&mut self, batch: &[Write]) {
        let Some(pg) = &self.pg else {
            return;
        };
        let records: Vec<(String, String)> = batch
            .iter()
            .filter_map(|w| match w {
                Write::Finished { room, record } => Some((
                    record.id.clone().unwrap_or_else(|| room.clone()),
                    serde_json::to_string(record).ok()?,
                )),
                _ => None,
            })
            .collect();
        match tokio::time::timeout(EARLY, pg.insert(&records)).await {
            Ok(Ok(_)) => {
                (self.on_commit)(records.len(), Ok(()));
                let ids: Vec<String> = records.into_iter().map(|(id, _)| id).collect();
                if let Some(m) = &self.replica {
                    m.delivered(&ids).await;
                }
                self.delivered.extend(ids);
            }
            Ok(Err(e)) => {
                tracing::warn!(error = %e, games = records.len(), "PostgreSQL is unreachable; finished games go through the outbox");
            }
            Err(_) => {
                tracing::warn!(
                    games = records.len(),
                    "PostgreSQL is slow; finished games go through the outbox"
                );
            }
        }
    }

    /// Rates the batch's rated games now that the journal holds them, before anyone is told
    /// they ended. If this fails (or the server dies first), the checkpoint that takes the
    /// records in rates them ([`Store::apply`]); a game is rated once either way. With
    /// PostgreSQL, records are rated there as it takes them ([`PgRecords::insert`]), not here.
    async fn rate_now(&self, batch: &[Write]) {
        if self.pg.is_some() {
            return;
        }
        let rated: Vec<Record> = batch
            .iter()
            .filter_map(|w| match w {
                Write::Finished { record, .. } if record.config.rated => Some((**record).clone()),
                _ => None,
            })
            .collect();
        if rated.is_empty() {
            return;
        }
        let store = self.store.clone();
        let outcome =
            tokio::task::spawn_blocking(move || store.rate(&rated.iter().collect::<Vec<_>>()))
                .await;
        match outcome {
            Ok(Ok(n)) => tracing::info!(games = n, "rated games counted"),
            Ok(Err(e)) => tracing::warn!(error = %e, "rating failed; the next checkpoint rates"),
            Err(e) => tracing::warn!(error = %e, "rating failed; the next checkpoint rates"),
        }
    }

    /// Keeps a batch for the next checkpoint and its finished records for readers.
    fn accept(&mut self, batch: Vec<Write>) {
        self.unfolded.push(batch.iter().filter_map(|w| match w {
            Write::Finished { record, .. } => {
                tracing::info!(game = record.id.as_deref().unwrap_or("?"), "game stored");
                Some((**record).clone())
            }
            _ => None,
        }));
        self.unapplied.extend(batch);
    }

    /// Starts a checkpoint in the background, unless one runs or there is nothing to take in:
    /// the segment appended to until now is sealed (the next batch starts a new one), and its
    /// writes are applied to the database in one transaction, then the sealed segments removed.
    fn checkpoint(&mut self) {
        if self.folding.is_some() || self.unapplied.is_empty() {
            return;
        }
        self.last_checkpoint = Instant::now();
        // A segment sealed with writes not on disk is synced first, in the background: its
        // writes are on disk before the database has them, as the policy promises.
        let unsynced = self.journal.take().and_then(|journal| {
            self.sealed.push(journal.path().to_path_buf());
            std::mem::take(&mut self.dirty).then_some(journal)
        });
        let writes = std::mem::take(&mut self.unapplied);
        let sealed = std::mem::take(&mut self.sealed);
        let store = self.store.clone();
        let sync_counted = self.policy.sync_seconds.clone();
        // Records PostgreSQL took at once skip the outbox; the ids are forgotten here, as every
        // one of them is among `writes` (delivered after its append, before the next checkpoint);
        // if this checkpoint fails, the next one sends them again (PostgreSQL keeps each id once).
        let delivered = self
            .pg
            .is_some()
            .then(|| std::mem::take(&mut self.delivered));
        self.folding = Some(tokio::task::spawn_blocking(move || {
            let started = std::time::Instant::now();
            if let Some(Err(e)) = unsynced.map(|j| sync_timed(&j, sync_counted.as_ref())) {
                tracing::error!(error = %e, "putting a sealed journal segment on disk failed");
            }
            let res = store
                .apply(coalesce(&writes), delivered.as_ref())
                .and_then(|()| Ok(journal::remove(store.dir(), &sealed)?));
            tracing::debug!(
                writes = writes.len(),
                secs = started.elapsed().as_secs_f64(),
                ok = res.is_ok(),
                "checkpoint"
            );
            (res, writes, sealed)
        }));
    }

    /// Takes everything durable so far into the database and waits for it (a checkpoint
    /// already running covers only older writes: it is waited for first).
    async fn checkpoint_now(&mut self) {
        self.wait_checkpoint().await;
        self.checkpoint();
        self.wait_checkpoint().await;
    }

    /// Waits for the checkpoint running, if any, and takes its outcome.
    async fn wait_checkpoint(&mut self) {
        if self.folding.is_some() {
            let folded = finished(&mut self.folding).await;
            self.folding = None;
            self.folded(folded).await;
        }
    }

    /// After a background checkpoint: forgets what the database holds now, or keeps it all for
    /// the next one if it failed.
    async fn folded(&mut self, folded: Option<Folded>) {
        let Some((res, writes, sealed)) = folded else {
            return;
        };
        let games = writes.iter().filter(|w| w.is_finished()).count();
        match res {
            Ok(()) => {
                if self.pg.is_some() && games > 0 {
                    self.backlog = true;
                    self.deliver().await;
                }
                self.unfolded.forget(games);
            }
            Err(e) => {
                tracing::error!(error = %e, writes = writes.len(), "a checkpoint failed; the journal keeps its writes and the next checkpoint tries again");
                let mut writes = writes;
                writes.append(&mut self.unapplied);
                self.unapplied = writes;
                let mut sealed = sealed;
                sealed.append(&mut self.sealed);
                self.sealed = sealed;
            }
        }
    }

    /// With [`Durability::Periodic`]: puts the journal's writes on disk now (off the async
    /// threads). A failure is logged; the writes still reach the database at the next
    /// checkpoint.
    async fn sync(&mut self) {
        self.dirty = false;
        self.last_sync = Instant::now();
        let Some(journal) = self.journal.take() else {
            return;
        };
        let counted = self.policy.sync_seconds.clone();
        let synced = move || (sync_timed(&journal, counted.as_ref()), journal);
        match tokio::task::spawn_blocking(synced).await {
            Ok((res, journal)) => {
                if let Err(e) = res {
                    tracing::error!(error = %e, "putting the journal on disk failed");
                }
                self.journal = Some(journal);
            }
            Err(e) => tracing::error!(error = %e, "the journal's sync panicked"),
        }
    }

    /// Delivers the outbox to PostgreSQL; returns whether it is empty now.
    async fn deliver(&mut self) -> bool {
        self.backlog = !deliver(
            &self.store,
            self.pg.as_ref(),
            self.replica.as_deref(),
            &*self.on_commit,
        )
        .await;
        !self.backlog
    }
}

/// Drops the writes of `rooms` from a batch.
fn drop_rooms(batch: &mut Vec<Write>, rooms: &[String]) {
    if !rooms.is_empty() {
        batch.retain(|w| !rooms.iter().any(|r| r == w.room()));
    }
}

/// Delivers the outbox to PostgreSQL and empties it of what was delivered; returns whether the
/// outbox is empty now (`false`: PostgreSQL failed, try again later).
async fn deliver(
    store: &Arc<Store>,
    records: Option<&PgRecords>,
    replica: Option<&dyn Replica>,
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
            let n = ids.len();
            let writer = store.clone();
            match tokio::task::spawn_blocking(move || writer.delivered(&ids).map(|()| ids)).await {
                Ok(Ok(ids)) => {
                    tracing::debug!(games = n, "delivered to PostgreSQL");
                    if let Some(m) = replica {
                        m.delivered(&ids).await;
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

#[cfg(test)]
mod tests {
    use super::answer;
    use tokio::sync::oneshot;

    #[test]
    fn rooms_that_ended_no_game_are_answered_first() {
        let (moved, mut moved_rx) = oneshot::channel();
        let (ended, mut ended_rx) = oneshot::channel();
        let later = answer(vec![(moved, false), (ended, true)], |ends| !ends);
        assert_eq!(moved_rx.try_recv(), Ok(()));
        assert!(ended_rx.try_recv().is_err());
        assert!(answer(later, |_| true).is_empty());
        assert_eq!(ended_rx.try_recv(), Ok(()));
    }
}
