//! The JSON shapes of tournaments the server runs (docs/PROTOCOL.md, "Tournaments"): what a
//! tournament is asked to be ([`TournamentSpec`]), and what its watchers are shown
//! ([`TournamentView`], [`TournamentSummary`]).

use crate::json::{ConfigJson, ResultJson};
use serde::{Deserialize, Serialize};

/// Games a pushed view lists at most besides older ones still in play: a long arena plays
/// thousands, and a view is sent to every watcher at every change.
pub const VIEW_GAMES: usize = 200;

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// How a tournament pairs its entrants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TournamentFormat {
    /// Pair whoever is free, again and again, until the time is up (as lichess's arenas do);
    /// games in play then finish and count.
    Arena {
        /// How long new games are started, in milliseconds from the tournament's start.
        duration_ms: u64,
    },
    /// Every group of `players` entrants meets once per rotation of its seats.
    RoundRobin,
    /// `rounds` rounds; each pairs entrants of about the same points who have not met yet.
    Swiss {
        /// Rounds played.
        rounds: u32,
    },
}

/// A tournament as its creator asks for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentSpec {
    /// Its title (1–32 characters).
    pub name: String,
    /// Arena, round robin or Swiss.
    pub format: TournamentFormat,
    /// Every game's configuration: board, players per game (2–4), the clock (`move_time_ms`)
    /// and `rated`. With `starts`, the games' boards and rule options come from there, and
    /// their players, clock, `analysis` and `rated` from here.
    pub config: ConfigJson,
    /// Where each game's start configuration comes from; absent: every game plays `config`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts: Option<TournamentStarts>,
    /// Built-in levels the server plays as entrants (`level:1` … `level:5`, `random`,
    /// `greedy`, or a seeded spec such as `level:3,seed=7`), entered at creation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bots: Vec<String>,
    /// Who may enter with `join_tournament` (and which built-in levels `bots` may name).
    #[serde(default, skip_serializing_if = "Entry::is_anyone")]
    pub entry: Entry,
    /// When play begins; absent: at once, with the entrants named at creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Start>,
}

/// Where the start configurations of a tournament's games come from (docs/TOURNAMENTS.md):
/// game `k` (rounds of a round robin or Swiss, games in start order in an arena) plays
/// configuration `k` modulo their number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStarts {
    /// The board and rule options of the quick-pairing preset of this name (`list_presets`).
    Preset(String),
    /// These configurations (1–64), in order.
    List(Vec<ConfigJson>),
    /// Configurations drawn from a seed as `jchomp-bot tournament --seed` draws its rounds.
    Drawn(DrawnStarts),
}

/// Start configurations drawn from a seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawnStarts {
    /// The seed: the same seed draws the same configurations.
    pub seed: u64,
    /// How many are drawn (1–64).
    pub count: u32,
}

/// Who may enter a tournament.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Entry {
    /// People and bots.
    #[default]
    Anyone,
    /// People only (built-in levels and bot accounts are refused).
    People,
    /// Bots only: bot accounts and built-in levels.
    Bots,
}

impl Entry {
    /// Whether this is the default, [`Entry::Anyone`].
    pub fn is_anyone(&self) -> bool {
        *self == Entry::Anyone
    }

    /// Whether an entrant that is (`bot`) or is not a bot may enter.
    pub fn admits(self, bot: bool) -> bool {
        match self {
            Entry::Anyone => true,
            Entry::People => !bot,
            Entry::Bots => bot,
        }
    }
}

/// When a tournament that takes entrants begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// At this time, milliseconds since the Unix epoch.
    AtMs(u64),
    /// As soon as this many entrants have entered.
    WhenJoined(u32),
}

/// Points: a game scores 1, 1/2 or 0 (docs/TOURNAMENTS.md), so points are whole or halves.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Points(pub f64);

// Points are sums of halves, never NaN.
impl Eq for Points {}

/// Where a tournament is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    /// Taking entrants; not begun.
    Open,
    /// Games are being played or are yet to be started.
    Playing,
    /// Every game is over; the standings are final.
    Finished,
    /// It reached its start with too few entrants to make a game, and was called off (the
    /// view's `cancelled` says why).
    Cancelled,
}

/// One line of the standings, best first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// The entrant's name.
    pub name: String,
    /// Whether it is a bot (a built-in level or a bot account).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
    /// Whether it withdrew after the start: it is paired no more.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withdrawn: bool,
    /// The sum of its games' scores (and of its byes, one point each).
    pub points: Points,
    /// Games played (byes aside).
    pub games: u32,
    /// Games scored 1.
    pub wins: u32,
    /// Games scored 1/2.
    pub ties: u32,
    /// Games scored 0.
    pub losses: u32,
    /// Its performance rating within the tournament (docs/TOURNAMENTS.md), rounded.
    pub performance: i64,
}

/// One game of a tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentGame {
    /// The game's id (for `get_game`, and its room while it is played).
    pub game: String,
    /// The round it belongs to (from 1); in an arena, the order it was started in.
    pub round: u32,
    /// The entrants, in seat order.
    pub seats: Vec<String>,
    /// Which of the view's `configs` it plays (0 when the view lists none: `spec.config`).
    #[serde(default)]
    pub config: usize,
    /// How it ended; absent while it is played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ResultJson>,
}

/// Everything a watcher of a tournament is shown; sent again whenever it changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentView {
    /// The tournament's id.
    pub id: String,
    /// What it was asked to be.
    pub spec: TournamentSpec,
    /// Open, playing, finished or cancelled.
    pub status: TournamentStatus,
    /// Why it was cancelled; absent unless it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<String>,
    /// When it begins (milliseconds since the Unix epoch) while it is open with a start time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_at_ms: Option<u64>,
    /// The round being played (from 1); in an arena, games started so far.
    pub round: u32,
    /// Every entrant, best first.
    pub standings: Vec<Standing>,
    /// Round robin only: row `i`, column `j` holds the points entrant `i` (in the order of
    /// `entrants`) took from games with entrant `j`; `null` on the diagonal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crosstable: Vec<Vec<Option<Points>>>,
    /// The entrants in the order they entered (the crosstable's order).
    pub entrants: Vec<String>,
    /// The games started so far, in the order started: every one in an answer to
    /// `watch_tournament` with `all_games` and at `GET /api/tournaments/ID`; in the views
    /// pushed to watchers, the last [`VIEW_GAMES`] and any older one still in play, from
    /// `games_from` on.
    pub games: Vec<TournamentGame>,
    /// The index (in the order started) of the first game in `games`: the games before it are
    /// finished and left out of this view. Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub games_from: u32,
    /// The start configurations its `starts` name, each whole (with `config`'s players, clock
    /// and `rated`); absent when every game plays `spec.config`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<ConfigJson>,
}

impl TournamentView {
    /// The configuration `game` plays: its entry of `configs`, or `spec.config` when there are
    /// none; `None` for an index out of range.
    pub fn config_of(&self, game: &TournamentGame) -> Option<&ConfigJson> {
        if self.configs.is_empty() {
            return (game.config == 0).then_some(&self.spec.config);
        }
        self.configs.get(game.config)
    }
}

/// A line of the tournament list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentSummary {
    /// The tournament's id.
    pub id: String,
    /// Its title.
    pub name: String,
    /// Its format.
    pub format: TournamentFormat,
    /// Open, playing, finished or cancelled.
    pub status: TournamentStatus,
    /// How many entrants it has.
    pub entrants: u32,
    /// Games finished so far.
    pub finished_games: u32,
}
