//! Tournaments the server runs: one task per tournament ([`task`]) owns its state
//! ([`state::Tournament`]) and the start configurations its games play ([`starts`]), takes
//! accounts' entries until its start ([`entry`]), seats its entrants in rooms made full from the
//! start (an account's seat held for its connection, which is handed the seat), follows each
//! game to its end ([`follow`]), writes every change to the store before telling its watchers,
//! and starts what comes next; who meets whom ([`schedule`]) and the standings ([`standings`])
//! are pure. [`Tournaments`] is the handle every connection holds; the tournaments of the
//! server's own file are read by [`file`].

mod entries;
mod entry;
mod event;
mod file;
mod follow;
mod keep;
mod remote;
mod schedule;
mod standings;
mod starts;
mod state;
mod task;

use crate::accounts::Accounts;
use crate::cluster::{Ask, Cluster};
use crate::game::outbox::Peer;
use crate::game::refusal::Refusal;
use crate::game::room::RoomContext;
use crate::ratings::{category, initial};
pub(crate) use event::Link;
use event::{Event, Line};
pub(crate) use file::read_file;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::wire::{
    ErrorCode, Start, TournamentFormat, TournamentSpec, TournamentStatus, TournamentSummary,
    TournamentView, check_name,
};
use keep::Keep;
use remote::Remote;
use state::{Entrant, Kind, Tournament};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Entrants a tournament takes at most.
pub(crate) const MAX_ENTRANTS: usize = 64;
/// Rounds a Swiss tournament plays at most.
pub(crate) const MAX_ROUNDS: u32 = 50;
/// Tournaments open or played at once at most (each plays up to [`MAX_ENTRANTS`] / 2 games at
/// once).
pub(crate) const MAX_PLAYING: usize = 8;
/// Open or playing tournaments one account may have made at once, so that no one account
/// holds every one of the server's [`MAX_PLAYING`] (an open tournament may wait a week).
pub(crate) const MAX_PER_ACCOUNT: usize = 2;
/// The latest start time a tournament may be given, from its creation (a week).
pub(crate) const MAX_START_MS: u64 = 7 * 24 * 60 * 60 * 1000;
/// The longest arena, in milliseconds (a day).
pub(crate) const MAX_ARENA_MS: u64 = 24 * 60 * 60 * 1000;
/// How often a node of a cluster looks for the tournaments it is to run (its own, and those of
/// dead nodes it takes over).
const LOOK: Duration = Duration::from_secs(1);

/// What tournaments need of the server, set once it is built ([`Tournaments::start`]).
#[derive(Clone, Debug)]
struct Parts {
    ctx: RoomContext,
    accounts: Accounts,
    keep: Keep,
}

/// The handle to every tournament's task. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tournaments {
    tasks: Arc<Mutex<BTreeMap<String, mpsc::Sender<Event>>>>,
    parts: Arc<OnceLock<Parts>>,
    /// In a cluster, the tournaments of other nodes watched from this one.
    remote: Remote,
    /// In a cluster, other nodes' entrants in this node's tournaments, and this node's
    /// entrants in other nodes'.
    entries: entries::Entries,
}

/// The refusal for an unknown tournament id.
fn no_such(id: &str) -> Refusal {
    Refusal::new(
        ErrorCode::NoSuchTournament,
        format!("no tournament has id {id:?}"),
    )
}

impl Tournaments {
    /// Starts the task of every tournament the store holds (finished ones too, to show them),
    /// unfinished ones going on where they were; then makes each of `from_file` (the
    /// server's tournaments file, checked) that no tournament made from the file has the name
    /// of. Call once rooms in play are restored. On a node of a `cluster`, tournaments are kept
    /// in Redis: this node runs those Redis gives it and takes over those of dead nodes
    /// ([`Tournaments::keep_running`]), and a file's tournament is made by one node only.
    pub(crate) async fn start(
        &self,
        ctx: RoomContext,
        accounts: Accounts,
        from_file: Vec<(TournamentSpec, Vec<ConfigJson>)>,
        cluster: Option<Arc<Cluster>>,
    ) {
        let keep = match &cluster {
            Some(c) => Keep::Cluster(c.clone()),
            None => Keep::Local(ctx.store.tournaments()),
        };
        let parts = Parts {
            ctx,
            accounts,
            keep,
        };
        if self.parts.set(parts.clone()).is_err() {
            return;
        }
        if let Some(cluster) = cluster {
            self.serve_entries(&cluster, parts.ctx.shutdown.clone());
            self.make_from_file_once(&parts, &cluster, from_file).await;
            tokio::spawn(self.clone().keep_running(parts, cluster));
            return;
        }
        let Keep::Local(store) = &parts.keep else {
            return;
        };
        let stored = match store.all().await {
            Ok(rows) => rows,
            Err(e) => {
                tracing::error!(error = %e, "the tournaments cannot be read; none is resumed or made from the file");
                return;
            }
        };
        let mut made_from_file = Vec::new();
        for (id, json) in stored {
            match serde_json::from_str::<Tournament>(&json) {
                Ok(t) => {
                    if t.from_file {
                        made_from_file.push(t.spec.name.clone());
                    }
                    self.spawn(&parts, t);
                }
                Err(e) => {
                    tracing::error!(tournament = %id, error = %e, "a stored tournament does not read")
                }
            }
        }
        for (spec, configs) in from_file {
            if made_from_file.contains(&spec.name) {
                continue;
            }
            self.make_from_file(&parts, spec, configs, None).await;
        }
    }

    /// Makes the tournament of the tournaments file `spec` (as `id`, if given); whether it was
    /// made.
    async fn make_from_file(
        &self,
        parts: &Parts,
        spec: TournamentSpec,
        configs: Vec<ConfigJson>,
        id: Option<String>,
    ) -> bool {
        let name = spec.name.clone();
        match self.make(parts, spec, configs, None, id).await {
            Ok(id) => {
                tracing::info!(tournament = %id, name = %name, "tournament made from the tournaments file");
                true
            }
            Err(r) => {
                tracing::error!(name = %name, error = %r.message, "a tournament of the tournaments file could not be made");
                false
            }
        }
    }

    /// In a cluster: makes each tournament of the file that no node has made yet (the first
    /// node to claim its name makes it).
    async fn make_from_file_once(
        &self,
        parts: &Parts,
        cluster: &Arc<Cluster>,
        from_file: Vec<(TournamentSpec, Vec<ConfigJson>)>,
    ) {
        for (spec, configs) in from_file {
            let id = new_id();
            let name = spec.name.clone();
            match cluster.claim_file_name(&name, &id).await {
                Ok(true) => {
                    if !self
                        .make_from_file(parts, spec, configs, Some(id.clone()))
                        .await
                        && let Err(e) = cluster.release_file_name(&name, &id).await
                    {
                        tracing::warn!(name = %name, error = %e, "a file tournament's name stays claimed");
                    }
                }
                Ok(false) => {}
                Err(e) => {
                    tracing::error!(name = %spec.name, error = %e, "a tournament of the tournaments file could not be made: Redis did not answer")
                }
            }
        }
    }

    /// On a node of a cluster, until shutdown: every [`LOOK`], forgets the entrants of dead
    /// nodes and starts the task of each tournament this node is to run and does not (its own
    /// after a restart or a lapse, or one it took over from a dead node), from its state in
    /// Redis.
    async fn keep_running(self, parts: Parts, cluster: Arc<Cluster>) {
        let mut shutdown = parts.ctx.shutdown.clone();
        let mut tick = tokio::time::interval(LOOK);
        loop {
            tokio::select! {
                _ = crate::shutdown::shutting_down(&mut shutdown) => return,
                _ = tick.tick() => {}
            }
            self.entries.forget_dead(&cluster).await;
            let ids = match cluster.tournaments_to_run().await {
                Ok(ids) => ids,
                Err(e) => {
                    tracing::debug!(error = %e, "the tournaments to run could not be read");
                    continue;
                }
            };
            for id in ids {
                if self.sender(&id).is_some() {
                    continue;
                }
                match cluster.tournament_state(&id).await {
                    Ok(Some(kept)) => match keep::assemble(kept) {
                        Ok(t) => {
                            tracing::info!(tournament = %id, "running a tournament kept in Redis");
                            self.spawn(&parts, t);
                        }
                        Err(e) => {
                            tracing::error!(tournament = %id, error = %e, "a tournament kept in Redis does not read")
                        }
                    },
                    Ok(None) => {}
                    Err(e) => {
                        tracing::debug!(tournament = %id, error = %e, "a tournament could not be read")
                    }
                }
            }
        }
    }

    /// Starts `t`'s task, unless one runs already (checked and noted under one lock, so that
    /// a tournament made here and found in Redis at once gets one task).
    fn spawn(&self, parts: &Parts, t: Tournament) {
        let Ok(mut tasks) = self.tasks.lock() else {
            return;
        };
        if tasks.get(&t.id).is_some_and(|tx| !tx.is_closed()) {
            return;
        }
        let id = t.id.clone();
        tasks.insert(id, task::spawn(parts.ctx.clone(), parts.keep.clone(), t));
    }

    /// The channel of tournament `id`'s task on this node, if it runs here.
    fn sender(&self, id: &str) -> Option<mpsc::Sender<Event>> {
        let mut tasks = self.tasks.lock().ok()?;
        // A task that stopped (its node lost the tournament) is forgotten.
        if tasks.get(id).is_some_and(mpsc::Sender::is_closed) {
            tasks.remove(id);
        }
        tasks.get(id).cloned()
    }

    /// In a cluster, tournament `id` as Redis holds it, with its count of writes (`None`: no
    /// such tournament, or not a cluster, or Redis cannot be read).
    async fn kept(&self, id: &str) -> Option<(Tournament, u64)> {
        let cluster = self.parts.get()?.keep.cluster()?;
        let kept = cluster.tournament_state(id).await.ok()??;
        let version = kept.version;
        let t = keep::assemble(kept).ok()?;
        Some((t, version))
    }

    /// In a cluster, the node that runs tournament `id` (not this one); or why it cannot be
    /// asked: `no_such` for an unknown id, `unavailable` while no live node runs it or Redis
    /// cannot be read.
    async fn runner(&self, id: &str) -> Result<(Arc<Cluster>, String), Refusal> {
        let cluster = self
            .parts
            .get()
            .and_then(|p| p.keep.cluster())
            .ok_or_else(|| no_such(id))?;
        let unavailable = |why: &str| {
            Refusal::new(
                ErrorCode::Unavailable,
                format!("tournament {id} {why}; send it again in a few seconds"),
            )
        };
        match cluster.tournament_owner(id).await {
            Ok(Some(owner)) if owner != cluster.node => Ok((cluster.clone(), owner)),
            Ok(Some(_)) => Err(unavailable("is being started again on this node")),
            Ok(None) if self.kept(id).await.is_some() => {
                Err(unavailable("is being taken over by another node"))
            }
            Ok(None) => Err(no_such(id)),
            Err(e) => {
                tracing::warn!(tournament = %id, error = %e, "a tournament's node cannot be looked up");
                Err(unavailable("cannot be reached now"))
            }
        }
    }

    /// Makes a tournament of `spec` for the account `by`, stores it, starts it, and has
    /// `creator` (its connection) watch it.
    pub(crate) async fn create(
        &self,
        spec: TournamentSpec,
        creator: Peer,
        by: String,
    ) -> Result<String, Refusal> {
        let parts = self.parts.get().ok_or_else(|| {
            Refusal::new(
                ErrorCode::Unavailable,
                "this server runs no tournaments yet; try again in a moment",
            )
        })?;
        let (spec, configs) = checked(spec)?;
        let lines = self.lines().await;
        let live: Vec<&Line> = lines
            .iter()
            .filter(|l| {
                matches!(
                    l.summary.status,
                    TournamentStatus::Playing | TournamentStatus::Open
                )
            })
            .collect();
        let mine = live.iter().filter(|l| l.creator.as_deref() == Some(&by));
        if mine.count() >= MAX_PER_ACCOUNT {
            return Err(Refusal::new(
                ErrorCode::RateLimited,
                format!(
                    "an account may have {MAX_PER_ACCOUNT} open or playing tournaments at once; wait for one of yours to finish"
                ),
            ));
        }
        if live.len() >= MAX_PLAYING {
            return Err(Refusal::new(
                ErrorCode::ServerFull,
                format!(
                    "the server holds its maximum of {MAX_PLAYING} open or playing tournaments; try again later"
                ),
            ));
        }
        let id = self.make(parts, spec, configs, Some(by), None).await?;
        self.watch(&id, creator, false).await?;
        Ok(id)
    }

    /// Makes a tournament of `spec` (checked) playing `configs`, stores it and starts it: the
    /// account `creator`'s, or (none) the server's own from its tournaments file; as `id`, or
    /// a new one.
    async fn make(
        &self,
        parts: &Parts,
        spec: TournamentSpec,
        configs: Vec<ConfigJson>,
        creator: Option<String>,
        id: Option<String>,
    ) -> Result<String, Refusal> {
        let mut entrants = Vec::with_capacity(spec.bots.len());
        for name in &spec.bots {
            let rating = rating_of(&parts.accounts, name, &category(&spec.config)).await;
            entrants.push(Entrant {
                name: name.clone(),
                rating,
                kind: Kind::Level,
                withdrawn: false,
            });
        }
        let id = id.unwrap_or_else(new_id);
        let mut t = Tournament::new(id.clone(), spec, entrants, crate::clock::now_ms());
        t.configs = configs;
        t.from_file = creator.is_none();
        t.creator = creator;
        parts.keep.save(&mut t, 0).await.map_err(|e| {
            let why = match e {
                keep::Unsaved::Lost => "this node of the cluster cannot write now".to_string(),
                keep::Unsaved::Failed(e) => e,
            };
            Refusal::new(
                ErrorCode::Internal,
                format!("the tournament could not be stored: {why}"),
            )
        })?;
        tracing::info!(tournament = %id, entrants = t.entrants.len(), "tournament created");
        self.spawn(parts, t);
        Ok(id)
    }

    /// Has `peer` watch tournament `id`: its view now and whenever it changes.
    /// In a cluster, a tournament another node runs is shown from Redis ([`Remote`]).
    pub(crate) async fn watch(&self, id: &str, peer: Peer, all_games: bool) -> Result<(), Refusal> {
        if let Some(tx) = self.sender(id) {
            let ev = Event::Watch { peer, all_games };
            return tx.send(ev).await.map_err(|_| no_such(id));
        }
        let cluster = self.parts.get().and_then(|p| p.keep.cluster());
        match (cluster, self.kept(id).await) {
            (Some(cluster), Some(first)) => {
                self.remote.watch(cluster, id, first, peer, all_games);
                Ok(())
            }
            _ => Err(no_such(id)),
        }
    }

    /// Enters the account `name` (a bot account when `bot`) in tournament `id`, playing through
    /// `link`, which watches it from then on.
    /// In a cluster, the node that runs the tournament is asked, and hands the seats to `link`
    /// through this node.
    pub(crate) async fn join(
        &self,
        id: &str,
        name: &str,
        bot: bool,
        link: Link,
    ) -> Result<(), Refusal> {
        if self.sender(id).is_some() {
            return self.join_here(id, name, bot, link).await;
        }
        let (cluster, owner) = self.runner(id).await?;
        self.entries.entering(link.clone());
        let name = name.to_string();
        let ask = Ask::Join { name, bot };
        cluster.ask_tournament(&owner, &link.peer, id, ask).await
    }

    /// [`Tournaments::join`] for a tournament this node runs.
    async fn join_here(&self, id: &str, name: &str, bot: bool, link: Link) -> Result<(), Refusal> {
        let Some(tx) = self.sender(id) else {
            return Err(moving(id));
        };
        let parts = self.parts.get().ok_or_else(|| no_such(id))?;
        let view = self.view(id).await.ok_or_else(|| no_such(id))?;
        let rating = rating_of(&parts.accounts, name, &category(&view.spec.config)).await;
        let entrant = Entrant {
            name: name.to_string(),
            rating,
            kind: if bot { Kind::BotAccount } else { Kind::Person },
            withdrawn: false,
        };
        let (reply, rx) = oneshot::channel();
        let ev = Event::Join {
            entrant,
            link,
            reply,
        };
        tx.send(ev).await.map_err(|_| no_such(id))?;
        rx.await.map_err(|_| no_such(id))?
    }

    /// Withdraws the entrant `name` from tournament `id`; `peer` is shown the view.
    /// In a cluster, the node that runs the tournament is asked.
    pub(crate) async fn withdraw(&self, id: &str, name: &str, peer: Peer) -> Result<(), Refusal> {
        if self.sender(id).is_some() {
            return self.withdraw_here(id, name, peer).await;
        }
        let (cluster, owner) = self.runner(id).await?;
        let ask = Ask::Withdraw {
            name: name.to_string(),
        };
        cluster.ask_tournament(&owner, &peer, id, ask).await
    }

    /// [`Tournaments::withdraw`] for a tournament this node runs.
    async fn withdraw_here(&self, id: &str, name: &str, peer: Peer) -> Result<(), Refusal> {
        let Some(tx) = self.sender(id) else {
            return Err(moving(id));
        };
        let (reply, rx) = oneshot::channel();
        let name = name.to_string();
        let ev = Event::Withdraw { name, peer, reply };
        tx.send(ev).await.map_err(|_| no_such(id))?;
        rx.await.map_err(|_| no_such(id))?
    }

    /// Tournament `id`'s view now.
    /// In a cluster, a tournament another node runs is read from Redis.
    pub(crate) async fn view(&self, id: &str) -> Option<TournamentView> {
        let Some(tx) = self.sender(id) else {
            return self.kept(id).await.map(|(t, _)| t.view());
        };
        let (reply, rx) = oneshot::channel();
        tx.send(Event::View(reply)).await.ok()?;
        rx.await.ok()
    }

    /// Every tournament's line, newest first.
    pub(crate) async fn list(&self) -> Vec<TournamentSummary> {
        let lines = self.lines().await;
        lines.into_iter().map(|l| l.summary).collect()
    }

    /// Every tournament's line with its creator, newest first: in a cluster, every node's, as
    /// Redis holds them (this node's alone if Redis cannot be read).
    async fn lines(&self) -> Vec<Line> {
        let mut out = match self.kept_lines().await {
            Some(lines) => lines,
            None => self.own_lines().await,
        };
        out.sort_by(|a, b| (b.started_ms.cmp(&a.started_ms)).then(a.summary.id.cmp(&b.summary.id)));
        out
    }

    /// In a cluster, every tournament's line as Redis holds it.
    async fn kept_lines(&self) -> Option<Vec<Line>> {
        let cluster = self.parts.get()?.keep.cluster()?;
        keep::lines(cluster).await
    }

    /// The lines of the tournaments this node runs.
    async fn own_lines(&self) -> Vec<Line> {
        let senders: Vec<mpsc::Sender<Event>> = match self.tasks.lock() {
            Ok(tasks) => tasks.values().cloned().collect(),
            Err(_) => return Vec::new(),
        };
        let mut out = Vec::with_capacity(senders.len());
        for tx in senders {
            let (reply, rx) = oneshot::channel();
            if tx.send(Event::Summary(reply)).await.is_ok()
                && let Ok(line) = rx.await
            {
                out.push(line);
            }
        }
        out
    }
}

/// The refusal for a request that reached this node for a tournament it no longer runs.
fn moving(id: &str) -> Refusal {
    Refusal::new(
        ErrorCode::Unavailable,
        format!("tournament {id} is moving to another node; send it again in a few seconds"),
    )
}

/// A new tournament id.
fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_string()
}

/// `name`'s rating in `category`: its account's, else the category's starting one.
async fn rating_of(accounts: &Accounts, name: &str, category: &str) -> f64 {
    let start = initial(category).rating;
    match accounts.rating(name, category).await {
        Ok(Some(r)) => r.rating,
        _ => start,
    }
}

/// A start rule checked: a time within [`MAX_START_MS`] from now, or a number of entrants a
/// game can be made of and a tournament takes.
fn checked_start(start: Option<Start>, players: usize) -> Result<(), Refusal> {
    let bad = |m: String| Refusal::new(ErrorCode::BadRequest, m);
    match start {
        Some(Start::AtMs(at)) if at > crate::clock::now_ms().saturating_add(MAX_START_MS) => {
            Err(bad(format!(
                "a tournament starts within a week; at_ms {at} is later"
            )))
        }
        Some(Start::WhenJoined(n)) if !(players..=MAX_ENTRANTS).contains(&(n as usize)) => {
            Err(bad(format!(
                "when_joined must be {players}–{MAX_ENTRANTS} for {players}-player games, got {n}"
            )))
        }
        _ => Ok(()),
    }
}

/// `spec` checked, its configuration in canonical form, with the start configurations its
/// `starts` name; or why it is refused.
fn checked(mut spec: TournamentSpec) -> Result<(TournamentSpec, Vec<ConfigJson>), Refusal> {
    let bad = |m: String| Refusal::new(ErrorCode::BadRequest, m);
    spec.name = check_name(&spec.name)
        .map_err(|e| bad(format!("tournament {e}")))?
        .to_string();
    let valid = spec
        .config
        .validate()
        .map_err(|e| Refusal::new(ErrorCode::InvalidConfig, e.to_string()))?;
    spec.config = spec.config.canonical(&valid);
    let players = usize::from(valid.players());
    let n = spec.bots.len();
    let least = if spec.start.is_some() { 0 } else { players };
    if !(least..=MAX_ENTRANTS).contains(&n) {
        return Err(bad(format!(
            "a tournament of {players}-player games that starts at once needs {players}–{MAX_ENTRANTS} entrants, got {n}"
        )));
    }
    if n > 0 && !spec.entry.admits(true) {
        return Err(bad(
            "a tournament for people only takes no built-in levels".to_string()
        ));
    }
    checked_start(spec.start, players)?;
    for (i, name) in spec.bots.iter().enumerate() {
        if spec.bots[..i].contains(name) {
            return Err(bad(format!("entrant {name:?} is named twice")));
        }
        crate::game::room::seeded(name)
            .and_then(|(bot, _)| jchomp_engine::BotSpec::parse(bot))
            .map_err(|e| bad(format!("entrant {name:?} is no bot the server plays: {e}")))?;
    }
    match spec.format {
        TournamentFormat::Swiss { rounds } if !(1..=MAX_ROUNDS).contains(&rounds) => Err(bad(
            format!("a Swiss tournament plays 1–{MAX_ROUNDS} rounds, got {rounds}"),
        )),
        TournamentFormat::Arena { duration_ms } if !(1..=MAX_ARENA_MS).contains(&duration_ms) => {
            Err(bad(format!(
                "an arena lasts 1–{MAX_ARENA_MS} ms, got {duration_ms}"
            )))
        }
        _ => {
            let configs = starts::resolve(&spec, &crate::pairing::presets())?;
            Ok((spec, configs))
        }
    }
}
