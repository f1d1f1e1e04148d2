//! Tournaments the server runs: one task per tournament ([`task`]) owns its state
//! ([`state::Tournament`]) and the start configurations its games play ([`starts`]), takes
//! accounts' entries until its start ([`entry`]), seats its entrants in rooms made full from the
//! start (an account's seat held for its connection, which is handed the seat), follows each
//! game to its end ([`follow`]), writes every change to the store before telling its watchers,
//! and starts what comes next; who meets whom ([`schedule`]) and the standings ([`standings`])
//! are pure. [`Tournaments`] is the handle every connection holds; the tournaments of the
//! server's own file are read by [`file`].

mod entry;
mod event;
mod file;
mod follow;
mod schedule;
mod standings;
mod starts;
mod state;
mod task;

use crate::accounts::Accounts;
use crate::game::outbox::Peer;
use crate::game::refusal::Refusal;
use crate::game::room::RoomContext;
use crate::ratings::{category, initial};
use crate::store::TournamentStore;
pub(crate) use event::Link;
use event::{Event, Line};
pub(crate) use file::read_file;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::wire::{
    ErrorCode, Start, TournamentFormat, TournamentSpec, TournamentStatus, TournamentSummary,
    TournamentView, check_name,
};
use state::{Entrant, Kind, Tournament};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};
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

/// What tournaments need of the server, set once it is built ([`Tournaments::start`]).
#[derive(Clone, Debug)]
struct Parts {
    ctx: RoomContext,
    accounts: Accounts,
    store: TournamentStore,
}

/// The handle to every tournament's task. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tournaments {
    tasks: Arc<Mutex<BTreeMap<String, mpsc::Sender<Event>>>>,
    parts: Arc<OnceLock<Parts>>,
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
    /// of. Call once rooms in play are restored.
    pub(crate) async fn start(
        &self,
        ctx: RoomContext,
        accounts: Accounts,
        from_file: Vec<(TournamentSpec, Vec<ConfigJson>)>,
    ) {
        let store = ctx.store.tournaments();
        let parts = Parts {
            ctx,
            accounts,
            store,
        };
        if self.parts.set(parts.clone()).is_err() {
            return;
        }
        let stored = match parts.store.all().await {
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
            let name = spec.name.clone();
            match self.make(&parts, spec, configs, None).await {
                Ok(id) => {
                    tracing::info!(tournament = %id, name = %name, "tournament made from the tournaments file")
                }
                Err(r) => {
                    tracing::error!(name = %name, error = %r.message, "a tournament of the tournaments file could not be made")
                }
            }
        }
    }

    fn spawn(&self, parts: &Parts, t: Tournament) {
        let id = t.id.clone();
        let tx = task::spawn(parts.ctx.clone(), parts.store.clone(), t);
        if let Ok(mut tasks) = self.tasks.lock() {
            tasks.insert(id, tx);
        }
    }

    fn sender(&self, id: &str) -> Option<mpsc::Sender<Event>> {
        self.tasks.lock().ok()?.get(id).cloned()
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
                "this server runs no tournaments (a node of a cluster does not yet)",
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
        let id = self.make(parts, spec, configs, Some(by)).await?;
        self.watch(&id, creator, false).await?;
        Ok(id)
    }

    /// Makes a tournament of `spec` (checked) playing `configs`, stores it and starts it: the
    /// account `creator`'s, or (none) the server's own from its tournaments file.
    async fn make(
        &self,
        parts: &Parts,
        spec: TournamentSpec,
        configs: Vec<ConfigJson>,
        creator: Option<String>,
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
        let id = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
        let mut t = Tournament::new(id.clone(), spec, entrants, crate::clock::now_ms());
        t.configs = configs;
        t.from_file = creator.is_none();
        t.creator = creator;
        let json = serde_json::to_string(&t)
            .map_err(|e| Refusal::new(ErrorCode::Internal, e.to_string()))?;
        parts.store.save(&id, json).await.map_err(|e| {
            Refusal::new(
                ErrorCode::Internal,
                format!("the tournament could not be stored: {e}"),
            )
        })?;
        tracing::info!(tournament = %id, entrants = t.entrants.len(), "tournament created");
        self.spawn(parts, t);
        Ok(id)
    }

    /// Has `peer` watch tournament `id`: its view now and whenever it changes.
    pub(crate) async fn watch(&self, id: &str, peer: Peer, all_games: bool) -> Result<(), Refusal> {
        let tx = self.sender(id).ok_or_else(|| no_such(id))?;
        let ev = Event::Watch { peer, all_games };
        tx.send(ev).await.map_err(|_| no_such(id))
    }

    /// Enters the account `name` (a bot account when `bot`) in tournament `id`, playing through
    /// `link`, which watches it from then on.
    pub(crate) async fn join(
        &self,
        id: &str,
        name: &str,
        bot: bool,
        link: Link,
    ) -> Result<(), Refusal> {
        let tx = self.sender(id).ok_or_else(|| no_such(id))?;
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
    pub(crate) async fn withdraw(&self, id: &str, name: &str, peer: Peer) -> Result<(), Refusal> {
        let tx = self.sender(id).ok_or_else(|| no_such(id))?;
        let (reply, rx) = oneshot::channel();
        let name = name.to_string();
        let ev = Event::Withdraw { name, peer, reply };
        tx.send(ev).await.map_err(|_| no_such(id))?;
        rx.await.map_err(|_| no_such(id))?
    }

    /// Tournament `id`'s view now.
    pub(crate) async fn view(&self, id: &str) -> Option<TournamentView> {
        let tx = self.sender(id)?;
        let (reply, rx) = oneshot::channel();
        tx.send(Event::View(reply)).await.ok()?;
        rx.await.ok()
    }

    /// Every tournament's line, newest first.
    pub(crate) async fn list(&self) -> Vec<TournamentSummary> {
        let lines = self.lines().await;
        lines.into_iter().map(|l| l.summary).collect()
    }

    /// Every tournament's line with its creator, newest first.
    async fn lines(&self) -> Vec<Line> {
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
        out.sort_by(|a, b| (b.started_ms.cmp(&a.started_ms)).then(a.summary.id.cmp(&b.summary.id)));
        out
    }
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
