//! [`run`] and [`resume`]: a tournament from its settings to its standings, writing the output
//! directory as games finish, in game-index order.

use super::engines::{EngineRefused, Engines, Kept};
use super::output::{self, OutDir, OutputError};
use super::play::Clock;
use super::progress::Progress;
use super::results::Results;
use super::runner::{End, Flow, Pool};
use super::schedule::{Schedule, Slot, derive_seed};
use super::seats::{Seated, give_back};
use super::server::{RoomError, play_on_server};
use super::settings::{Settings, SettingsError};
use super::standings::Standings;
use jchomp_engine::arena::{Failure, Limits, Played, play_timed};
use jchomp_engine::classic::{ClassicLibrary, answers_for};
use jchomp_engine::player::Player;
use jchomp_engine::search::Budget;
use jchomp_engine::spec::{BotSpec, MAX_LEVEL};
use jchomp_rules::{Config, ConfigError, GameResult, Seat};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// How often `games.jsonl` is flushed while games finish.
const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// Why a tournament stopped short. Each message is whole: it includes the message of the error
/// it wraps, which is therefore not given as a source.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// The settings do not make a tournament.
    #[error("{0}")]
    Settings(SettingsError),
    /// The output directory could not be written or read back.
    #[error("{0}")]
    Output(OutputError),
    /// A game's start configuration is refused.
    #[error("game {index}: {error}")]
    Start {
        /// The game.
        index: u64,
        /// Why the rules refuse its configuration.
        error: ConfigError,
    },
    /// A game could not be played through the server.
    #[error("game {index} on {url}: {error}")]
    Server {
        /// The game.
        index: u64,
        /// The server.
        url: String,
        /// What went wrong.
        error: RoomError,
    },
    /// An engine cannot take part.
    #[error("{0}")]
    Engine(EngineRefused),
    /// The directory of a tournament read from a server lacks games, which are not played here.
    #[error(
        "games.jsonl holds {have} of the {want} games of a tournament read from a server; \
         export it again with --from-server"
    )]
    Incomplete {
        /// Games in the directory.
        have: u64,
        /// Games the server played.
        want: u64,
    },
    /// No runtime could be started for a game through the server.
    #[error("game {index} on {url}: {error}")]
    Runtime {
        /// The game.
        index: u64,
        /// The server.
        url: String,
        /// What went wrong.
        error: std::io::Error,
    },
}

impl From<OutputError> for TournamentError {
    fn from(e: OutputError) -> TournamentError {
        TournamentError::Output(e)
    }
}

/// How a tournament is run (as opposed to what it is, which [`Settings`] say).
#[derive(Clone, Debug)]
pub struct Options {
    /// Games played at once.
    pub concurrency: usize,
    /// The output directory of a new tournament, if any.
    pub out: Option<PathBuf>,
    /// Show the live progress line (only ever drawn on a terminal).
    pub progress: bool,
    /// Raised from outside to stop after writing what is done (Ctrl-C).
    pub interrupt: Arc<AtomicBool>,
    /// The classic database `level:5` plays from in classic two-player games with the poison
    /// at 0,0 (read before the first game when such games are scheduled); none: it searches.
    pub classic: Option<Arc<ClassicLibrary>>,
    /// Echo every line between the runner and its engines to standard error.
    pub debug: bool,
}

/// Why a tournament ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Every scheduled game was played.
    Finished,
    /// The SPRT decided.
    Decided,
    /// It was interrupted; `--resume` continues it.
    Interrupted,
}

impl Stop {
    /// The status written to `results.json`.
    pub const fn status(self) -> &'static str {
        match self {
            Stop::Finished => "finished",
            Stop::Decided => "decided",
            Stop::Interrupted => "interrupted",
        }
    }
}

/// A tournament's end: its settings, standings, why it ended and how long this run took.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The settings it ran with.
    pub settings: Settings,
    /// The final standings.
    pub standings: Standings,
    /// Why it ended.
    pub stop: Stop,
    /// Games played by this run (not counting those resumed from disk).
    pub played: u64,
    /// Wall-clock time of this run.
    pub elapsed: Duration,
}

/// A game played, ready to be counted and written.
#[derive(Debug)]
pub struct Finished {
    /// Its result.
    pub result: GameResult,
    /// The seat that lost by failing, and how.
    pub failure: Option<(Seat, Failure)>,
    /// Its `games.jsonl` line, when an output directory is written.
    pub line: Option<String>,
}

/// The time limit of each bot's moves: its time budget plus the margin; none for others.
fn limits(settings: &Settings) -> Vec<Option<Duration>> {
    settings
        .bots
        .iter()
        .map(|p| match p.bot().and_then(BotSpec::budget) {
            Some(Budget::Time(t)) => Some(t + Duration::from_millis(settings.margin_ms)),
            _ => None,
        })
        .collect()
}

/// Whether a `level:5` bot may play a game the classic database answers for; the start
/// configurations are checked round by round, up to the first 1,000 rounds.
fn wants_classic(settings: &Settings) -> bool {
    settings
        .bots
        .iter()
        .any(|p| p.bot() == Some(&BotSpec::Level(MAX_LEVEL)))
        && (0..1_000).any(|round| {
            settings
                .starts
                .config(settings.players, settings.seed, round)
                .is_ok_and(|c| answers_for(&c))
        })
}

/// What every game is played with.
struct GameContext<'a> {
    settings: &'a Settings,
    schedule: &'a Schedule,
    names: &'a [String],
    limits: &'a [Option<Duration>],
    classic: Option<&'a Arc<ClassicLibrary>>,
    engines: &'a Engines,
    write: bool,
}

impl GameContext<'_> {
    /// The seats of game `index`, held by `participants` in seat order: bots built for it,
    /// engines taken from the worker's `kept`; their stop flag the worker's.
    fn seat(
        &self,
        index: u64,
        participants: &[usize],
        clock: Clock<'_>,
        kept: &mut Kept,
    ) -> Vec<Seated> {
        let stop = clock.alarm.stop_flag();
        participants
            .iter()
            .enumerate()
            .map(|(seat, &p)| {
                let seed = derive_seed(self.settings.seed, index, seat as u64);
                let entrant = self.engines.entrant(p);
                Seated::new(p, entrant, seed, &stop, self.classic, kept)
            })
            .collect()
    }

    /// The time limits of a game whose seats hold these participants.
    fn game_limits(&self, seats: &[usize]) -> Limits {
        Limits {
            per_move: seats.iter().map(|&b| self.limits[b]).collect(),
            control: self.settings.time_control.map(|t| t.control()),
            margin: Duration::from_millis(self.settings.margin_ms),
        }
    }
}

/// Plays game `index` in a room of the server at `url`: bots only (the settings refuse engines
/// with a server). `Ok(None)` if the tournament stopped meanwhile.
fn play_there(
    url: &str,
    index: u64,
    config: &Config,
    seat_names: &[String],
    seats: Vec<Seated>,
    limits: &Limits,
    clock: Clock<'_>,
) -> Result<Option<Played>, TournamentError> {
    let mut players: Vec<Box<dyn Player>> = seats
        .into_iter()
        .map(Seated::into_bot)
        .collect::<Option<_>>()
        .ok_or(TournamentError::Settings(SettingsError::OnServer))?;
    // On a runtime of its own.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| TournamentError::Runtime {
            index,
            url: url.to_string(),
            error,
        })?;
    rt.block_on(play_on_server(
        url,
        config,
        seat_names,
        &mut players,
        &limits.per_move,
        clock,
    ))
    .map_err(|error| TournamentError::Server {
        index,
        url: url.to_string(),
        error,
    })
}

/// Plays game `index` in-process, or on the server if the settings name one.
fn play_one(
    context: &GameContext<'_>,
    kept: &mut Kept,
    index: u64,
    clock: Clock<'_>,
) -> Option<Result<Finished, TournamentError>> {
    let GameContext {
        settings,
        schedule,
        names,
        write,
        ..
    } = *context;
    let slot = schedule.slot(index);
    let config = match settings
        .starts
        .config(settings.players, settings.seed, slot.round)
    {
        Ok(c) => c,
        Err(error) => return Some(Err(TournamentError::Start { index, error })),
    };
    let mut seats = context.seat(index, &slot.seats, clock, kept);
    let limits = context.game_limits(&slot.seats);
    let seat_names: Vec<String> = slot.seats.iter().map(|&b| names[b].clone()).collect();
    let played = match &settings.server {
        None => {
            let mut players: Vec<Box<dyn Player + '_>> =
                seats.iter_mut().map(Seated::lend).collect();
            let played = play_timed(&config, &mut players, &limits, &clock);
            drop(players);
            let failed = played
                .as_ref()
                .and_then(|p| p.failure)
                .map(|(seat, _)| seat);
            give_back(seats, failed, kept);
            played?
        }
        Some(url) => match play_there(url, index, &config, &seat_names, seats, &limits, clock) {
            Ok(played) => played?,
            Err(e) => return Some(Err(e)),
        },
    };
    let result = played.game.result()?;
    let line = if write {
        match output::record_line(
            index,
            &played.game,
            seat_names,
            played.failure,
            played.lines,
        ) {
            Ok(l) => Some(l),
            Err(e) => return Some(Err(e.into())),
        }
    } else {
        None
    };
    Some(Ok(Finished {
        result,
        failure: played.failure,
        line,
    }))
}

/// Runs a new tournament.
pub fn run(settings: Settings, options: &Options) -> Result<Outcome, TournamentError> {
    settings.validate().map_err(TournamentError::Settings)?;
    let out = match &options.out {
        Some(dir) => Some(OutDir::create(dir, &settings)?),
        None => None,
    };
    let standings = Standings::new(&settings.names(), &settings.schedule(), settings.sprt);
    drive(settings, out, standings, options)
}

/// Continues the tournament stored in `dir` from its last complete game.
pub fn resume(dir: &Path, options: &Options) -> Result<Outcome, TournamentError> {
    // Built from the stored settings when the first game is read back.
    let mut state: Option<(Schedule, Vec<String>, Standings)> = None;
    let (out, settings) = OutDir::resume(dir, |settings, index, line| {
        let (schedule, names, standings) = state.get_or_insert_with(|| {
            let schedule = settings.schedule();
            let names = settings.names();
            let standings = Standings::new(&names, &schedule, settings.sprt);
            (schedule, names, standings)
        });
        let slot = schedule.slot(index);
        let seat_names: Vec<String> = slot.seats.iter().map(|&b| names[b].clone()).collect();
        let game = output::parse_line(line, index, &seat_names)?;
        standings.add(&slot, game.result, game.failure);
        Ok(())
    })?;
    let standings = match state {
        Some((_, _, standings)) => standings,
        None => Standings::new(&settings.names(), &settings.schedule(), settings.sprt),
    };
    drive(settings, Some(out), standings, options)
}

fn drive(
    settings: Settings,
    mut out: Option<OutDir>,
    mut standings: Standings,
    options: &Options,
) -> Result<Outcome, TournamentError> {
    let schedule = settings.schedule();
    let names = settings.names();
    let limits = limits(&settings);
    let first = standings.games;
    let total = settings.total_games();
    let decided = |s: &Standings| s.sprt().is_some_and(|t| t.verdict().is_some());
    if let (Some(_), Some(want)) = (settings.starts.server_run(), total)
        && first < want
    {
        return Err(TournamentError::Incomplete { have: first, want });
    }
    let mut progress = Progress::new(options.progress, first, total);
    let mut error: Option<TournamentError> = None;
    let write = out.is_some();
    let engines = Engines::new(&settings, out.as_ref().map(OutDir::path), options.debug)
        .map_err(TournamentError::Engine)?;
    engines.check(&settings).map_err(TournamentError::Engine)?;
    let classic = options.classic.as_ref();
    if let Some(library) = classic
        && wants_classic(&settings)
    {
        // Read (or built) now, so that every game is played from it from its first move; if
        // it cannot be had, the bots search, and `availability` says why.
        let _ = library.wait();
    }
    let context = GameContext {
        settings: &settings,
        schedule: &schedule,
        names: &names,
        limits: &limits,
        classic,
        engines: &engines,
        write,
    };
    let (end, _) = if decided(&standings) || total.is_some_and(|t| first >= t) {
        (End::Finished, first)
    } else {
        let pool = Pool {
            start: first,
            end: total,
            concurrency: options.concurrency,
            interrupt: Arc::clone(&options.interrupt),
        };
        let play =
            |kept: &mut Kept, index: u64, clock: Clock<'_>| play_one(&context, kept, index, clock);
        let mut last_flush = Instant::now();
        let llr = std::cell::Cell::new(standings.sprt().map(|s| s.llr()));
        pool.run(
            play,
            |index, finished: Result<Finished, TournamentError>| {
                let finished = match finished {
                    Ok(f) => f,
                    Err(e) => {
                        error = Some(e);
                        return Flow::Stop;
                    }
                };
                let slot: Slot = schedule.slot(index);
                standings.add(&slot, finished.result, finished.failure);
                llr.set(standings.sprt().map(|s| s.llr()));
                if let (Some(out), Some(line)) = (&mut out, &finished.line) {
                    // Flushed about once a second, so that a hard stop loses little.
                    let flush = last_flush.elapsed() >= FLUSH_EVERY;
                    if flush {
                        last_flush = Instant::now();
                    }
                    let written = out
                        .append(line)
                        .and_then(|()| if flush { out.flush() } else { Ok(()) });
                    if let Err(e) = written {
                        error = Some(e.into());
                        return Flow::Stop;
                    }
                }
                if decided(&standings) {
                    Flow::Stop
                } else {
                    Flow::Continue
                }
            },
            |done| {
                let extra = llr.get().map(|l| format!("LLR {l:.2}")).unwrap_or_default();
                progress.update(done, &extra);
            },
        )
    };
    progress.finish();
    if let Some(e) = error {
        if let Some(out) = &mut out {
            let results = Results::new(&settings, Stop::Interrupted.status(), &standings);
            let _ = out.write_results(&results);
        }
        return Err(e);
    }
    let stop = if decided(&standings) {
        Stop::Decided
    } else if end == End::Interrupted {
        Stop::Interrupted
    } else {
        Stop::Finished
    };
    if let Some(out) = &mut out {
        out.write_results(&Results::new(&settings, stop.status(), &standings))?;
    }
    Ok(Outcome {
        played: standings.games - first,
        elapsed: progress.elapsed(),
        settings,
        standings,
        stop,
    })
}
