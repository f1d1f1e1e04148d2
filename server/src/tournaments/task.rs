//! One tournament's task: it owns the tournament's state and handles a closed set of
//! [`Event`]s; it takes entries until the start, opens a room for each game planned (an
//! account's seat held for the grace and handed to its connection), follows it to its end,
//! writes every change to the store before its watchers are told, and plans what comes next.

use super::entry::Withdrawn;
use super::event::{Event, Line, Link};
use super::follow::follow;
use super::keep::{Keep, Unsaved};
use super::state::{Entrant, Game, Kind, Tournament};
use crate::game::outbox::{Peer, encode};
use crate::game::refusal::Refusal;
use crate::game::room::{RoomContext, Seated, open_paired};
use crate::pairing::Found;
use jchomp_protocol::json::ResultJson;
use jchomp_protocol::tournament::VIEW_GAMES;
use jchomp_protocol::wire::{ServerMessage, TournamentFormat};
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::sync::mpsc;

/// Events waiting for a tournament's task at most.
const QUEUE: usize = 256;

/// How often games whose room could not be made (a full server) are tried again.
const RETRY: Duration = Duration::from_secs(1);

/// The least time between two views pushed to the watchers: changes within it are shown
/// together at its end. A view holds every game, so in a long arena of quick games one view a
/// change would be megabytes a second to each watcher.
const SHOW_EVERY: Duration = Duration::from_millis(100);

/// How long, in a cluster, a game's room may be found nowhere (neither in play nor with a
/// record) before the game is played again: longer than a node's lease, the takeover of its
/// rooms and the delivery of its records.
const GONE: Duration = Duration::from_secs(15);

/// Where a game's room is played.
enum Place {
    /// On this node.
    Here(mpsc::Sender<crate::game::event::RoomEvent>),
    /// On another node of the cluster: a relay to it.
    There(mpsc::Sender<crate::game::event::RoomEvent>),
    /// Nowhere now.
    Nowhere,
}

/// Events handled at most before the results among them are stored and shown: game ends that
/// arrive together are written in one store commit and one view.
const BATCH: usize = 64;

/// The task's state.
struct Task {
    t: Tournament,
    ctx: RoomContext,
    keep: Keep,
    me: mpsc::Sender<Event>,
    /// Set when this node no longer runs the tournament (a cluster's node whose write was
    /// refused): the task stops without a word more.
    lost: bool,
    /// Games whose room was not found, neither in play nor with a record (in a cluster it may
    /// be between two nodes), with when that was first seen: looked for again, and played
    /// again once [`GONE`] has passed.
    missing: Vec<(usize, tokio::time::Instant)>,
    /// The leading games finished and written already (which never change again): the next
    /// write starts after them.
    saved: usize,
    /// Each watcher, with the number of the last change it was shown.
    watchers: Vec<(Peer, u64)>,
    /// Changes made so far (each call of [`Task::broadcast`]).
    changes: u64,
    /// Each account entrant's connection, by name (not stored: after a restart an entrant
    /// joins again to be handed the seats of games started from then on).
    links: BTreeMap<String, Link>,
    /// Account seats of games in play: the game, the entrant, and the seat's token (not
    /// stored, as tokens are kept only as hashes: the seats of games in play at a restart are
    /// taken back with `resume` alone).
    held: Vec<(usize, usize, String)>,
    /// When the watchers were last sent the view.
    shown: tokio::time::Instant,
    /// Whether the state changed since (a view is due at `shown` + [`SHOW_EVERY`]).
    unshown: bool,
}

/// Starts the task of `t`; returns its channel.
pub(super) fn spawn(ctx: RoomContext, keep: Keep, t: Tournament) -> mpsc::Sender<Event> {
    let (me, rx) = mpsc::channel(QUEUE);
    let task = Task {
        t,
        ctx,
        keep,
        me: me.clone(),
        lost: false,
        missing: Vec::new(),
        saved: 0,
        watchers: Vec::new(),
        changes: 0,
        links: BTreeMap::new(),
        held: Vec::new(),
        shown: tokio::time::Instant::now(),
        unshown: false,
    };
    tokio::spawn(run(task, rx));
    me
}

async fn run(mut task: Task, mut rx: mpsc::Receiver<Event>) {
    let mut shutdown = task.ctx.shutdown.clone();
    let stop = crate::shutdown::shutting_down(&mut shutdown);
    tokio::pin!(stop);
    task.resume().await;
    task.begin_if_due().await;
    task.advance().await;
    let mut retry = tokio::time::interval(RETRY);
    retry.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let end = tokio::time::sleep(task.arena_left());
    let start = tokio::time::sleep(task.start_left());
    tokio::pin!(end, start);
    let mut ended = task.t.open;
    while !task.lost {
        let was_open = task.t.open;
        tokio::select! {
            biased;
            _ = &mut stop => break,
            ev = rx.recv() => match ev {
                Some(ev) => task.handle_batch(ev, &mut rx).await,
                None => break,
            },
            _ = &mut start, if task.t.open && task.start_left() < Duration::MAX => {
                task.begin_if_due().await;
                // Woken before the wall clock's time (the two clocks drift): wait again.
                start.as_mut().reset(tokio::time::Instant::now() + task.start_left().min(RETRY));
            }
            _ = &mut end, if !ended => {
                ended = true;
                task.advance().await;
            }
            _ = tokio::time::sleep_until(task.shown + SHOW_EVERY), if task.unshown => task.show(),
            _ = retry.tick(), if task.unopened().next().is_some() || !task.missing.is_empty() => {
                task.look_again().await;
                let games: Vec<usize> = task.unopened().collect();
                task.open(games).await;
            }
        }
        if was_open && !task.t.open {
            // Begun now: the arena's time runs from here.
            end.as_mut()
                .reset(tokio::time::Instant::now() + task.arena_left());
            ended = false;
        }
    }
}

impl Task {
    /// Handles `first` and the events already queued behind it (up to [`BATCH`]), in order.
    /// Game results among them are recorded as they come and stored, shown and planned from
    /// once, before any other event and at the end; so a burst of game ends costs one store
    /// commit and one view, not one each.
    async fn handle_batch(&mut self, first: Event, rx: &mut mpsc::Receiver<Event>) {
        let mut results = false;
        let mut next = Some(first);
        let mut handled = 0;
        while let Some(ev) = next.take() {
            if !matches!(ev, Event::Ended { .. }) && std::mem::take(&mut results) {
                self.settle().await;
            }
            results |= self.handle(ev).await;
            handled += 1;
            if handled < BATCH {
                next = rx.try_recv().ok();
            }
        }
        if results {
            self.settle().await;
        }
    }

    /// Handles one event; whether it recorded a game's result, which [`Task::settle`] must
    /// then store and show.
    async fn handle(&mut self, ev: Event) -> bool {
        match ev {
            Event::Watch { peer, all_games } => {
                if all_games {
                    let all = ServerMessage::Tournament(Box::new(self.t.view()));
                    peer.send_msg(&all);
                    self.add_watcher(peer);
                } else {
                    self.watch(peer);
                }
            }
            Event::View(reply) => {
                let _ = reply.send(self.t.view());
            }
            Event::Summary(reply) => {
                let _ = reply.send(Line::of(&self.t));
            }
            Event::Ended { game, result } => return self.record(game, result),
            Event::Join {
                entrant,
                link,
                reply,
            } => {
                let _ = reply.send(self.join(entrant, link).await);
            }
            Event::Withdraw { name, peer, reply } => {
                let answer = self.withdraw(&name).await;
                // The answer is the view, now (the other watchers see it with the next ones).
                if answer.is_ok() {
                    self.watch(peer);
                }
                let _ = reply.send(answer);
            }
        }
        false
    }

    /// Enters `entrant`, or, entered already with no live connection (it left, or the server
    /// restarted), plays on through `link` (handed the seats it holds now); the connection
    /// watches from then on. Begins the
    /// tournament if that entry was the last it waited for.
    async fn join(&mut self, entrant: Entrant, link: Link) -> Result<(), Refusal> {
        let name = entrant.name.clone();
        let relink =
            self.t.entrant(&name).is_some() && self.links.get(&name).is_none_or(Link::is_gone);
        if relink {
            self.links.insert(name.clone(), link.clone());
            self.watch(link.peer);
            self.hand_seats(&name);
            return Ok(());
        }
        self.t.join(entrant)?;
        self.links.insert(name, link.clone());
        self.save().await;
        self.broadcast();
        // The entry's answer is the view, now, whenever the watchers are shown it.
        self.watch(link.peer);
        self.begin_if_due().await;
        Ok(())
    }

    /// Withdraws entrant `name`; stores and shows the change.
    async fn withdraw(&mut self, name: &str) -> Result<(), Refusal> {
        let done = self.t.withdraw(name)?;
        if done == Withdrawn::Removed {
            self.links.remove(name);
        }
        self.save().await;
        self.broadcast();
        if done == Withdrawn::Stopped {
            self.advance().await;
        }
        Ok(())
    }

    /// Begins an open tournament whose start has come (or calls it off), and plays.
    async fn begin_if_due(&mut self) {
        if !self.t.due(crate::clock::now_ms()) {
            return;
        }
        self.t.begin(crate::clock::now_ms());
        self.save().await;
        self.broadcast();
        match &self.t.cancelled {
            Some(why) => {
                tracing::info!(tournament = %self.t.id, reason = %why, "tournament cancelled")
            }
            None => {
                tracing::info!(tournament = %self.t.id, entrants = self.t.entrants.len(), "tournament begun");
                self.advance().await;
            }
        }
    }

    /// Has `peer` watch: the view now, and at every change after this one.
    fn watch(&mut self, peer: Peer) {
        peer.send_msg(&self.message());
        self.add_watcher(peer);
    }

    /// Adds `peer` to the watchers, as shown the state now.
    fn add_watcher(&mut self, peer: Peer) {
        self.watchers
            .retain(|(p, _)| !p.is_gone() && p.id != peer.id);
        self.watchers.push((peer, self.changes));
    }

    /// Hands entrant `name`'s connection, if live, each seat it holds in a game in play: a
    /// `tournament_game`, then its session takes the seat with its token (the room greets it
    /// with `joined`).
    fn hand_seats(&self, name: &str) {
        let Some(link) = self.links.get(name).filter(|l| !l.is_gone()) else {
            return;
        };
        for (game, entrant, token) in &self.held {
            if self.t.entrants[*entrant].name != name {
                continue;
            }
            let g = &self.t.games[*game];
            link.peer.send_msg(&ServerMessage::TournamentGame {
                tournament: self.t.id.clone(),
                room: g.room.clone(),
                round: g.round,
            });
            let found = Found::Elsewhere {
                token: token.clone(),
            };
            if link.seats.try_send(found).is_err() {
                tracing::warn!(tournament = %self.t.id, entrant = %name, "an entrant's connection could not be handed its seat");
            }
        }
    }

    /// Records game `game`'s result in memory; whether it was new (then [`Task::settle`] must
    /// follow before anyone is told).
    fn record(&mut self, game: usize, result: Option<ResultJson>) -> bool {
        let Some(result) = result else {
            if !self.ctx.shutting_down() {
                // In a cluster, its node may have died: it is looked for again.
                tracing::warn!(tournament = %self.t.id, game, "a tournament game's room went away without a result");
                if self.keep.cluster().is_some() {
                    self.still_missing(game);
                }
            }
            return false;
        };
        let Some(g) = self.t.games.get_mut(game) else {
            return false;
        };
        if g.result.is_some() {
            return false;
        }
        g.result = Some(result);
        self.held.retain(|(g, _, _)| *g != game);
        true
    }

    /// After results were recorded: plans and opens what follows them, storing the results
    /// with the plan in one write, and shows them; or, with nothing to start, stores and shows
    /// the results alone.
    async fn settle(&mut self) {
        if !self.advance().await {
            self.save().await;
            self.broadcast();
        }
    }

    /// Plans what starts now, stores the plan, and opens its rooms; stores and shows the end
    /// once nothing is left. Whether it stored and showed the state.
    async fn advance(&mut self) -> bool {
        let was_finished = self.t.finished;
        let planned = self.t.plan(crate::clock::now_ms());
        if planned.is_empty() {
            if self.t.finished && !was_finished {
                self.save().await;
                self.broadcast();
                tracing::info!(tournament = %self.t.id, "tournament finished");
                return true;
            }
            return false;
        }
        let first = self.t.games.len();
        let round = self.t.round;
        let arena = matches!(self.t.spec.format, TournamentFormat::Arena { .. });
        for (i, seats) in planned.into_iter().enumerate() {
            let round = if arena { (first + i + 1) as u32 } else { round };
            self.t.games.push(Game {
                room: String::new(),
                round,
                seats,
                config: self.t.start_for(round),
                result: None,
            });
        }
        self.open((first..self.t.games.len()).collect()).await;
        true
    }

    /// Opens a room for each of `games`, stores which room plays which game, then starts the
    /// rooms and follows them. A game whose room cannot be made now is tried again later.
    async fn open(&mut self, games: Vec<usize>) {
        let mut opened = Vec::new();
        for i in games {
            let (seats, tokens) = self.seats(i);
            let config = self.t.config_of(i);
            let made = config
                .validate()
                .map_err(|e| e.to_string())
                .and_then(|valid| {
                    open_paired(self.ctx.clone(), valid, config.clone(), seats)
                        .map_err(|r| r.message)
                });
            match made {
                Ok(room) => {
                    self.t.games[i].room = room.id().to_string();
                    self.held.extend(tokens);
                    opened.push((i, room));
                }
                Err(e) => {
                    tracing::warn!(tournament = %self.t.id, error = %e, "a tournament game's room cannot be made now")
                }
            }
        }
        self.save().await;
        let mut seated = Vec::new();
        for (i, room) in opened {
            // Followed before it starts, so the follower is its first spectator.
            follow(room.sender(), i, self.me.clone(), false);
            room.spawn();
            seated.extend(self.t.games[i].seats.iter().copied());
        }
        self.broadcast();
        // An entrant plays one game at a time, so the seats it holds are the new one's.
        for e in seated {
            if self.t.entrants[e].kind != Kind::Level {
                self.hand_seats(&self.t.entrants[e].name);
            }
        }
    }

    /// Who sits in game `i`, in seat order: a built-in level as a server bot, an account in a
    /// seat held for it; with the tokens of the accounts' seats (game, entrant, token).
    fn seats(&self, i: usize) -> (Vec<Seated>, Vec<(usize, usize, String)>) {
        let mut tokens = Vec::new();
        let seats = self.t.games[i]
            .seats
            .iter()
            .map(|&e| {
                let entrant = &self.t.entrants[e];
                if entrant.kind == Kind::Level {
                    return Seated::Bot(entrant.name.clone());
                }
                let token = crate::game::token::new_token();
                tokens.push((i, e, token.clone()));
                Seated::Reserved {
                    name: entrant.name.clone(),
                    token,
                    account_bot: entrant.kind == Kind::BotAccount,
                }
            })
            .collect();
        (seats, tokens)
    }

    /// After a restart or a takeover: looks for each unfinished game's room ([`Task::look_for`])
    /// and plays again those found nowhere.
    async fn resume(&mut self) {
        let games = (0..self.t.games.len())
            .filter(|&i| self.t.games[i].result.is_none() && !self.t.games[i].room.is_empty())
            .collect();
        let (again, _) = self.look_for(games).await;
        if !again.is_empty() {
            self.open(again).await;
        } else {
            self.save().await;
        }
    }

    /// Looks again for the games [`Task::missing`] holds; stores and shows the results found.
    async fn look_again(&mut self) {
        if self.missing.is_empty() {
            return;
        }
        let games = self.missing.iter().map(|(g, _)| *g).collect();
        let (again, results) = self.look_for(games).await;
        if !again.is_empty() {
            self.open(again).await;
        }
        if results {
            self.settle().await;
        }
    }

    /// Looks for the room of each of `games`: follows it if it is in play (on this node, or in
    /// a cluster on another), takes the result of one that finished from its stored record.
    /// Returns the games to play again (found nowhere: the room's start was never made durable)
    /// and whether a result was taken. In a cluster, a game found nowhere is looked for again
    /// until [`GONE`] has passed (its room may be passing to another node, its record on its way
    /// to PostgreSQL).
    async fn look_for(&mut self, games: Vec<usize>) -> (Vec<usize>, bool) {
        let (mut again, mut results) = (Vec::new(), false);
        for i in games {
            let room = self.t.games[i].room.clone();
            if self.t.games[i].result.is_some() {
                self.found(i);
                continue;
            }
            match self.find(&room).await {
                Some(Place::Here(tx)) => {
                    self.found(i);
                    follow(tx, i, self.me.clone(), false);
                    continue;
                }
                Some(Place::There(tx)) => {
                    self.found(i);
                    follow(tx, i, self.me.clone(), true);
                    continue;
                }
                Some(Place::Nowhere) => {}
                None => {
                    self.still_missing(i);
                    continue;
                }
            }
            match self.ctx.store.get(room.clone()).await {
                Ok(Some(record)) if record.result.is_some() => {
                    self.over(i);
                    self.t.games[i].result = record.result;
                    results = true;
                }
                found => {
                    if let Err(e) = found {
                        tracing::error!(tournament = %self.t.id, room = %room, error = %e, "a tournament game cannot be read");
                    }
                    if self.keep.cluster().is_some() && self.still_missing(i) {
                        continue;
                    }
                    self.over(i);
                    tracing::warn!(tournament = %self.t.id, room = %room, "a tournament game's room is gone without a result; it is played again");
                    again.push(i);
                }
            }
        }
        (again, results)
    }

    /// Game `i` is missing no more.
    fn found(&mut self, i: usize) {
        self.missing.retain(|(g, _)| *g != i);
    }

    /// Game `i`'s room is over: it is missing no more, and its account seats are held no more.
    fn over(&mut self, i: usize) {
        self.found(i);
        self.held.retain(|(g, _, _)| *g != i);
    }

    /// Notes game `i` as missing (since now, if it was not already); whether it has been
    /// missing for less than [`GONE`].
    fn still_missing(&mut self, i: usize) -> bool {
        let now = tokio::time::Instant::now();
        let since = match self.missing.iter().find(|(g, _)| *g == i) {
            Some((_, since)) => *since,
            None => {
                self.missing.push((i, now));
                now
            }
        };
        now.duration_since(since) < GONE
    }

    /// Where `room` is played: here, on another node (a relay to it), nowhere; `None` if the
    /// cluster cannot be asked now.
    async fn find(&self, room: &str) -> Option<Place> {
        if let Some(tx) = self.ctx.lobby.room(room) {
            return Some(Place::Here(tx));
        }
        let Some(cluster) = self.keep.cluster() else {
            return Some(Place::Nowhere);
        };
        match cluster
            .room_channel(room, self.ctx.settings.room_queue)
            .await
        {
            Ok(Some((tx, false))) => Some(Place::Here(tx)),
            Ok(Some((tx, true))) => Some(Place::There(tx)),
            Ok(None) => Some(Place::Nowhere),
            Err(e) => {
                tracing::warn!(tournament = %self.t.id, error = %e, "a tournament game's node cannot be looked up now");
                None
            }
        }
    }

    /// Games planned whose room is not made yet.
    fn unopened(&self) -> impl Iterator<Item = usize> + '_ {
        self.t
            .games
            .iter()
            .enumerate()
            .filter(|(_, g)| g.room.is_empty() && g.result.is_none())
            .map(|(i, _)| i)
    }

    /// The time left before an open tournament starts whoever has entered (`Duration::MAX`
    /// for none).
    fn start_left(&self) -> Duration {
        match self.t.start_ms() {
            Some(at) if self.t.open => {
                Duration::from_millis(at.saturating_sub(crate::clock::now_ms()))
            }
            _ => Duration::MAX,
        }
    }

    /// The time left before an arena stops starting games (zero for other formats).
    fn arena_left(&self) -> Duration {
        match self.t.spec.format {
            TournamentFormat::Arena { duration_ms } => {
                let end = self.t.started_ms.saturating_add(duration_ms);
                Duration::from_millis(end.saturating_sub(crate::clock::now_ms()))
            }
            _ => Duration::ZERO,
        }
    }

    /// Writes the state to the store; returns once it is durable. A failed write is logged:
    /// the tournament goes on, and a restart takes up from the last write that succeeded.
    async fn save(&mut self) {
        if self.lost {
            return;
        }
        match self.keep.save(&mut self.t, self.saved).await {
            Ok(settled) => self.saved = settled,
            Err(Unsaved::Lost) => {
                tracing::warn!(tournament = %self.t.id, "this node no longer runs the tournament; its task stops");
                self.lost = true;
            }
            Err(Unsaved::Failed(e)) => {
                tracing::error!(tournament = %self.t.id, error = %e, "a tournament could not be stored");
            }
        }
    }

    /// The view pushed to watchers: the recent games only ([`VIEW_GAMES`]).
    fn message(&self) -> ServerMessage {
        ServerMessage::Tournament(Box::new(self.t.view_recent(VIEW_GAMES)))
    }

    /// Shows the state to the watchers: at once if none was shown in the last
    /// [`SHOW_EVERY`], else with whatever else changes meanwhile at its end.
    fn broadcast(&mut self) {
        if self.lost {
            return;
        }
        self.changes += 1;
        if self.shown.elapsed() >= SHOW_EVERY {
            self.show();
        } else {
            self.unshown = true;
        }
    }

    /// Sends the view to every watcher still there that was not shown this state yet.
    fn show(&mut self) {
        self.shown = tokio::time::Instant::now();
        self.unshown = false;
        let now = self.changes;
        self.watchers.retain(|(p, _)| !p.is_gone());
        if self.watchers.iter().all(|(_, seen)| *seen == now) {
            return;
        }
        let text = encode(&self.message());
        for (p, seen) in &mut self.watchers {
            if *seen != now {
                p.send(&text);
                *seen = now;
            }
        }
    }
}
