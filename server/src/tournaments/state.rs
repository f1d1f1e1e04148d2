//! One tournament's state as stored ([`Tournament`]): its spec, entrants, byes, whether it is
//! open or was cancelled, and every game started with the room it is played in and, once over,
//! its result; and, pure, what to start next ([`Tournament::plan`]) and what watchers are shown
//! ([`Tournament::view`]). Entering and withdrawing are in `entry.rs`.

use super::schedule::{byes, groups, round_robin, seat_order};
use super::standings::{Finished, crosstable, standings};
use jchomp_protocol::json::{ConfigJson, ResultJson};
use jchomp_protocol::wire::{
    Start, TournamentFormat, TournamentGame, TournamentSpec, TournamentStatus, TournamentSummary,
    TournamentView,
};
use serde::{Deserialize, Serialize};

/// What an entrant is, and so who plays its seats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Kind {
    /// A built-in level the server plays (every entrant of a tournament stored before
    /// accounts could enter).
    #[default]
    Level,
    /// A person's account, playing through its connections.
    Person,
    /// A bot account, playing through its connections.
    BotAccount,
}

impl Kind {
    /// Whether it is a bot (a built-in level or a bot account).
    pub(crate) fn bot(self) -> bool {
        self != Kind::Person
    }
}

/// One entrant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Entrant {
    /// Its name (for a built-in level, its spec: `level:2`; for an account, its name).
    pub name: String,
    /// Its rating in the games' category when it entered.
    pub rating: f64,
    /// A built-in level or an account.
    #[serde(default)]
    pub kind: Kind,
    /// Whether it withdrew after the start (it is paired no more).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withdrawn: bool,
}

/// One game started.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Game {
    /// The room it is played in (its first game's id is the room's).
    pub room: String,
    /// Its round (from 1); in an arena, the order it was started in.
    pub round: u32,
    /// Entrant indices in seat order.
    pub seats: Vec<usize>,
    /// Which of the tournament's start configurations it plays (0 in rows stored before
    /// tournaments had several).
    #[serde(default)]
    pub config: usize,
    /// How it ended; `None` while it is played.
    pub result: Option<ResultJson>,
}

/// A tournament as stored, written before anyone is told of a change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Tournament {
    /// Its id.
    pub id: String,
    /// What it was asked to be.
    pub spec: TournamentSpec,
    /// The start configurations `spec.starts` names, whole; empty when every game plays
    /// `spec.config`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<ConfigJson>,
    /// Whether the server made it from its tournaments file (`--tournaments`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_file: bool,
    /// The account that made it; none for the server's own (from its tournaments file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creator: Option<String>,
    /// Entrants, in the order they entered.
    pub entrants: Vec<Entrant>,
    /// When it began (while open: when it was created), milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// Whether it takes entrants and has not begun.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
    /// Why it was called off, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<String>,
    /// The round being played (0 before the first).
    pub round: u32,
    /// Every game started, in order.
    pub games: Vec<Game>,
    /// Byes each entrant has had.
    pub byes: Vec<u32>,
    /// Whether every game is over and none is to come.
    pub finished: bool,
}

impl Tournament {
    /// A tournament of `entrants` made at `started_ms`, nothing played: begun at once when its
    /// spec has no start, else open for entry.
    pub(crate) fn new(
        id: String,
        spec: TournamentSpec,
        entrants: Vec<Entrant>,
        started_ms: u64,
    ) -> Self {
        let byes = vec![0; entrants.len()];
        let open = spec.start.is_some();
        Tournament {
            id,
            spec,
            configs: Vec::new(),
            from_file: false,
            creator: None,
            entrants,
            started_ms,
            open,
            cancelled: None,
            round: 0,
            games: Vec::new(),
            byes,
            finished: false,
        }
    }

    /// Seats per game.
    pub(crate) fn k(&self) -> usize {
        usize::try_from(self.spec.config.players).unwrap_or(2)
    }

    /// Which start configuration the games of round `round` play (in an arena, the game
    /// started `round`-th).
    pub(crate) fn start_for(&self, round: u32) -> usize {
        super::starts::index(round, self.configs.len())
    }

    /// The configuration game `game` plays.
    pub(crate) fn config_of(&self, game: usize) -> &ConfigJson {
        self.games
            .get(game)
            .and_then(|g| self.configs.get(g.config))
            .unwrap_or(&self.spec.config)
    }

    /// Whether a game is still being played.
    fn in_play(&self) -> bool {
        self.games.iter().any(|g| g.result.is_none())
    }

    /// Decides what starts now (`now_ms`, for an arena's end): the groups of entrants, in seat
    /// order, of the games to start, with their round. Advances the round and hands out byes;
    /// marks the tournament finished when nothing is in play and nothing is to come.
    pub(crate) fn plan(&mut self, now_ms: u64) -> Vec<Vec<usize>> {
        if self.finished || self.open || self.cancelled.is_some() {
            return Vec::new();
        }
        let next = match self.spec.format {
            TournamentFormat::RoundRobin => self.next_round_robin(),
            TournamentFormat::Swiss { rounds } => self.next_swiss(rounds),
            TournamentFormat::Arena { duration_ms } => {
                self.next_arena(now_ms < self.started_ms.saturating_add(duration_ms))
            }
        };
        if next.is_empty() && !self.in_play() {
            self.finished = true;
        }
        next
    }

    /// Entrants still paired (not withdrawn), in entry order.
    fn active(&self) -> Vec<usize> {
        (0..self.entrants.len())
            .filter(|&e| !self.entrants[e].withdrawn)
            .collect()
    }

    /// The next round of the round robin with a game between entrants still paired (a
    /// withdrawn entrant's games are not played).
    fn next_round_robin(&mut self) -> Vec<Vec<usize>> {
        if self.in_play() {
            return Vec::new();
        }
        let rounds = round_robin(self.entrants.len(), self.k());
        for (i, round) in rounds.into_iter().enumerate().skip(self.round as usize) {
            let games: Vec<Vec<usize>> = round
                .into_iter()
                .filter(|g| g.iter().all(|&e| !self.entrants[e].withdrawn))
                .collect();
            if !games.is_empty() {
                self.round = i as u32 + 1;
                return games;
            }
        }
        Vec::new()
    }

    fn next_swiss(&mut self, rounds: u32) -> Vec<Vec<usize>> {
        let active = self.active();
        if self.in_play() || self.round >= rounds || active.len() < self.k() {
            return Vec::new();
        }
        self.round += 1;
        let ranked = self.ranked(&active);
        let out = byes(&ranked, self.k(), &|e| self.byes[e] > 0);
        for &e in &out {
            self.byes[e] += 1;
        }
        let playing: Vec<usize> = ranked.into_iter().filter(|e| !out.contains(e)).collect();
        self.seated(groups(&playing, self.k(), &|a, b| self.met(a, b)))
    }

    fn next_arena(&mut self, open: bool) -> Vec<Vec<usize>> {
        if !open {
            return Vec::new();
        }
        let busy: Vec<usize> = self
            .games
            .iter()
            .filter(|g| g.result.is_none())
            .flat_map(|g| g.seats.iter().copied())
            .collect();
        let free: Vec<usize> = self
            .active()
            .into_iter()
            .filter(|e| !busy.contains(e))
            .collect();
        let ranked = self.ranked(&free);
        let next = self.seated(groups(&ranked, self.k(), &|a, b| self.last_met(a, b)));
        self.round += next.len() as u32;
        next
    }

    /// `groups` with each one's seats in a fair order.
    fn seated(&self, mut groups: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
        let mut firsts = vec![0u32; self.entrants.len()];
        for g in &self.games {
            if let Some(&e) = g.seats.first() {
                firsts[e] += 1;
            }
        }
        for g in &mut groups {
            seat_order(g, &firsts);
        }
        groups
    }

    /// `entrants` by points, best first (ties by entry order).
    fn ranked(&self, entrants: &[usize]) -> Vec<usize> {
        let rows = self.standing_rows();
        let points = |e: usize| {
            rows.iter()
                .find(|r| r.name == self.entrants[e].name)
                .map_or(0.0, |r| r.points.0)
        };
        let mut out = entrants.to_vec();
        out.sort_by(|&a, &b| points(b).total_cmp(&points(a)).then(a.cmp(&b)));
        out
    }

    /// Whether `a` and `b` have played a game together.
    fn met(&self, a: usize, b: usize) -> bool {
        self.games
            .iter()
            .any(|g| g.seats.contains(&a) && g.seats.contains(&b))
    }

    /// Whether `a`'s last game had `b` in it.
    fn last_met(&self, a: usize, b: usize) -> bool {
        self.games
            .iter()
            .rev()
            .find(|g| g.seats.contains(&a))
            .is_some_and(|g| g.seats.contains(&b))
    }

    /// The finished games, for the standings.
    fn finished_games(&self) -> Vec<Finished<'_>> {
        self.games
            .iter()
            .filter_map(|g| {
                g.result.map(|result| Finished {
                    seats: &g.seats,
                    result,
                })
            })
            .collect()
    }

    fn standing_rows(&self) -> Vec<jchomp_protocol::wire::Standing> {
        let names: Vec<String> = self.entrants.iter().map(|e| e.name.clone()).collect();
        let ratings: Vec<f64> = self.entrants.iter().map(|e| e.rating).collect();
        let mut rows = standings(&names, &ratings, &self.byes, &self.finished_games());
        for row in &mut rows {
            if let Some(e) = self.entrants.iter().find(|e| e.name == row.name) {
                row.bot = e.kind.bot();
                row.withdrawn = e.withdrawn;
            }
        }
        rows
    }

    /// The whole view: every game (the API serves it, and `watch_tournament` with `all_games`).
    pub(crate) fn view(&self) -> TournamentView {
        self.view_from(0)
    }

    /// What watchers are pushed: the view with the last `recent` games and any older one still
    /// in play (so the games listed run on from `games_from` without a gap).
    pub(crate) fn view_recent(&self, recent: usize) -> TournamentView {
        let tail = self.games.len().saturating_sub(recent);
        let playing = self.games.iter().position(|g| g.result.is_none());
        self.view_from(playing.map_or(tail, |p| p.min(tail)))
    }

    /// The view, listing the games from index `from` on.
    fn view_from(&self, from: usize) -> TournamentView {
        let crosstable = match self.spec.format {
            TournamentFormat::RoundRobin => crosstable(self.entrants.len(), &self.finished_games()),
            _ => Vec::new(),
        };
        TournamentView {
            id: self.id.clone(),
            spec: self.spec.clone(),
            status: self.status(),
            cancelled: self.cancelled.clone(),
            starts_at_ms: match self.spec.start {
                Some(Start::AtMs(at)) if self.open => Some(at),
                _ => None,
            },
            round: self.round,
            standings: self.standing_rows(),
            crosstable,
            entrants: self.entrants.iter().map(|e| e.name.clone()).collect(),
            games_from: u32::try_from(from).unwrap_or(u32::MAX),
            games: self.games[from.min(self.games.len())..]
                .iter()
                .map(|g| TournamentGame {
                    game: g.room.clone(),
                    round: g.round,
                    seats: g
                        .seats
                        .iter()
                        .map(|&e| self.entrants[e].name.clone())
                        .collect(),
                    config: g.config,
                    result: g.result,
                })
                .collect(),
            configs: self.configs.clone(),
        }
    }

    /// Its line in the tournament list.
    pub(crate) fn summary(&self) -> TournamentSummary {
        TournamentSummary {
            id: self.id.clone(),
            name: self.spec.name.clone(),
            format: self.spec.format,
            status: self.status(),
            entrants: self.entrants.len() as u32,
            finished_games: self.games.iter().filter(|g| g.result.is_some()).count() as u32,
        }
    }

    /// Open, playing, finished or cancelled.
    pub(crate) fn status(&self) -> TournamentStatus {
        if self.cancelled.is_some() {
            TournamentStatus::Cancelled
        } else if self.finished {
            TournamentStatus::Finished
        } else if self.open {
            TournamentStatus::Open
        } else {
            TournamentStatus::Playing
        }
    }
}

/// For tests: a spec named `t` of `format` on 4×4 boards of two players, no entrants, begun at
/// once.
#[cfg(test)]
pub(super) fn test_spec(format: TournamentFormat) -> TournamentSpec {
    let config =
        serde_json::from_str(r#"{"rows":4,"cols":4,"players":2,"eat":[1,1],"poison":[[0,0]]}"#)
            .unwrap_or_else(|e| panic!("{e}"));
    TournamentSpec {
        name: "t".into(),
        format,
        config,
        bots: Vec::new(),
        entry: Default::default(),
        start: None,
        starts: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tournament(format: TournamentFormat, n: usize) -> Tournament {
        let spec = test_spec(format);
        let entrants = (0..n)
            .map(|i| Entrant {
                name: format!("e{i}"),
                rating: 1500.0,
                kind: Kind::Level,
                withdrawn: false,
            })
            .collect();
        Tournament::new("T".into(), spec, entrants, 1_000)
    }

    #[test]
    fn a_row_stored_before_accounts_could_enter_reads_as_built_in_levels_begun() {
        let row = r#"{"id":"T","spec":{"name":"t","format":{"kind":"round_robin"},
            "config":{"rows":4,"cols":4,"players":2,"eat":[1,1],"poison":[[0,0]]},
            "bots":["level:1","random"]},
            "entrants":[{"name":"level:1","rating":1500.0},{"name":"random","rating":1400.0}],
            "started_ms":5,"round":0,"games":[],"byes":[0,0],"finished":false}"#;
        let mut t: Tournament = serde_json::from_str(row).unwrap();
        assert_eq!(t.status(), TournamentStatus::Playing);
        assert_eq!((t.spec.entry, t.spec.start), (Default::default(), None));
        assert!(
            t.entrants
                .iter()
                .all(|e| e.kind == Kind::Level && !e.withdrawn)
        );
        assert!(t.view().standings.iter().all(|s| s.bot && !s.withdrawn));
        assert_eq!(t.plan(5).len(), 1, "it plays on");
    }

    /// Starts `groups` and ends each with its first seat losing.
    fn play(t: &mut Tournament, groups: Vec<Vec<usize>>) {
        for seats in groups {
            let room = format!("R{}", t.games.len());
            t.games.push(Game {
                room,
                round: t.round,
                seats,
                config: 0,
                result: Some(ResultJson::Poisoned { loser: 0 }),
            });
        }
    }

    #[test]
    fn a_swiss_plays_its_rounds_without_repeats_and_gives_each_bye_once() {
        let mut t = tournament(TournamentFormat::Swiss { rounds: 3 }, 5);
        for _ in 0..3 {
            let next = t.plan(0);
            assert_eq!(next.len(), 2);
            play(&mut t, next);
        }
        assert!(t.plan(0).is_empty());
        assert!(t.finished);
        assert_eq!(t.byes.iter().sum::<u32>(), 3);
        assert!(t.byes.iter().all(|&b| b <= 1), "{:?}", t.byes);
        let mut pairs: Vec<Vec<usize>> = t
            .games
            .iter()
            .map(|g| {
                let mut s = g.seats.clone();
                s.sort();
                s
            })
            .collect();
        pairs.sort();
        pairs.dedup();
        assert_eq!(pairs.len(), 6, "no pair met twice");
    }

    #[test]
    fn a_round_robin_waits_for_its_round_to_end() {
        let mut t = tournament(TournamentFormat::RoundRobin, 3);
        let first = t.plan(0);
        assert_eq!(first.len(), 1);
        t.games.push(Game {
            room: "R".into(),
            round: 1,
            seats: first[0].clone(),
            config: 0,
            result: None,
        });
        assert!(t.plan(0).is_empty(), "round 1 is still in play");
        assert!(!t.finished);
        t.games[0].result = Some(ResultJson::Tie);
        let mut rounds = 1;
        loop {
            let next = t.plan(0);
            if next.is_empty() {
                break;
            }
            rounds += 1;
            play(&mut t, next);
        }
        assert_eq!(t.games.len(), 6);
        assert_eq!(rounds, 6);
        assert!(t.finished);
        assert_eq!(t.view().crosstable.len(), 3);
    }

    #[test]
    fn an_arena_pairs_the_free_until_its_time_is_up() {
        let mut t = tournament(TournamentFormat::Arena { duration_ms: 500 }, 5);
        let first = t.plan(1_000);
        assert_eq!(first.len(), 2, "four of five are paired");
        for seats in &first {
            t.games.push(Game {
                room: "R".into(),
                round: 1,
                seats: seats.clone(),
                config: 0,
                result: None,
            });
        }
        assert!(t.plan(1_100).is_empty(), "one entrant alone waits");
        t.games[0].result = Some(ResultJson::Poisoned { loser: 1 });
        let again = t.plan(1_200);
        assert_eq!(again.len(), 1);
        assert!(
            !again[0].contains(&t.games[1].seats[0]),
            "busy entrants wait"
        );
        play(&mut t, again);
        t.games[1].result = Some(ResultJson::Tie);
        assert!(t.plan(1_500).is_empty(), "time is up");
        assert!(t.finished);
    }
}
