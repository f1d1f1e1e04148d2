//! Hints (per-move annotations): the verdict on every valid selection of a position, behind
//! one job so that the screen does not depend on where it comes from — the classic database in
//! the standard classic game (two players, poison at 0,0) once it is ready, the bot engine's
//! `analyze` under a time cap everywhere else.

use crate::classic_db;
use jchomp_engine::classic::ClassicLibrary;
use jchomp_engine::search::{Budget, MoveValue, Outcome, SolveError, Table, analyze};
use jchomp_protocol::rules::{Cell, Config, Position};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The verdict on one selection, for the player making it, as the seed web app annotates it:
/// plies (half-moves) to the end under optimal play, this selection included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The mover wins; the game ends within this many plies (an even number).
    Win(u32),
    /// The mover loses; the longest defence ends the game after this many plies (odd).
    Loss(u32),
    /// Best play ends in a tie.
    Tie,
    /// Not proven within the time cap.
    Unknown,
}

/// The most plies a board cell shows as a number; longer lines show as `+…` / `-…`.
pub const MAX_SHOWN_PLIES: u32 = 99;

impl Verdict {
    /// A label of at most three characters for a board cell: `+4` (a win in 4 plies), `-7` (a
    /// loss delayed 7 plies at best), `=` (a tie), `?` (not proven); a distance past
    /// [`MAX_SHOWN_PLIES`] shows as `+…` or `-…`.
    pub fn label(self) -> String {
        let signed = |sign: char, n: u32| {
            if n > MAX_SHOWN_PLIES {
                format!("{sign}…")
            } else {
                format!("{sign}{n}")
            }
        };
        match self {
            Verdict::Win(n) => signed('+', n),
            Verdict::Loss(n) => signed('-', n),
            Verdict::Tie => "=".to_owned(),
            Verdict::Unknown => "?".to_owned(),
        }
    }

    /// The verdict in words, with its label (`wins in 4 half-moves (+4)`).
    pub fn words(self) -> String {
        let plies = |n: u32| {
            if n == 1 {
                "1 half-move".to_owned()
            } else {
                format!("{n} half-moves")
            }
        };
        match self {
            Verdict::Win(n) => format!("wins in {} ({})", plies(n), self.label()),
            Verdict::Loss(n) => format!("loses in {} ({})", plies(n), self.label()),
            Verdict::Tie => "ties (=)".to_owned(),
            Verdict::Unknown => "not proven in time (?)".to_owned(),
        }
    }

    /// How good the selection is for its mover: 2 a win, 1 a tie, 0 a loss; `None` if unknown.
    pub fn rank(self) -> Option<u8> {
        match self {
            Verdict::Win(_) => Some(2),
            Verdict::Tie => Some(1),
            Verdict::Loss(_) => Some(0),
            Verdict::Unknown => None,
        }
    }
}

/// Where a set of hints came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Source {
    /// The bot engine's analysis.
    #[default]
    Engine,
    /// The classic database (exact).
    Database,
    /// The bot engine's analysis, while the classic database is being prepared.
    EngineWhileDatabasePrepares,
}

/// The verdict on each valid selection of a position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    /// One entry per valid selection: its anchor and the verdict.
    pub selections: Vec<(Cell, Verdict)>,
    /// Where the verdicts came from.
    pub source: Source,
}

impl Hints {
    /// The verdict on the selection anchored at `cell`, if it was analysed.
    pub fn verdict(&self, cell: Cell) -> Option<Verdict> {
        self.selections
            .iter()
            .find(|(c, _)| *c == cell)
            .map(|&(_, v)| v)
    }

    /// Whether some selection is not proven.
    pub fn has_unknown(&self) -> bool {
        self.selections.iter().any(|(_, v)| *v == Verdict::Unknown)
    }

    /// Whether some selection's distance is too long to show as a number.
    pub fn has_long(&self) -> bool {
        self.selections
            .iter()
            .any(|(_, v)| matches!(v, Verdict::Win(n) | Verdict::Loss(n) if *n > MAX_SHOWN_PLIES))
    }
}

/// Why no hints can be given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HintError {
    /// The position is too large to analyse quickly.
    #[error(
        "this position is too large to analyse ({uneaten} cells left; hints need at most {max})"
    )]
    TooLarge {
        /// Uneaten cells.
        uneaten: u32,
        /// The most the analysis handles.
        max: u32,
    },
    /// The game is not in progress.
    #[error("there is nothing to analyse: the game is not in progress")]
    NotPlaying,
    /// The exact analysis did not finish in time.
    #[error("this position is still too large to analyse in {} s; try again later in the game", .0.as_secs_f32())]
    TooSlow(Duration),
    /// The engine failed on this position.
    #[error("the analysis failed on this position")]
    EngineFailed,
    /// The engine analyses two-player games only.
    #[error("hints are available in two-player games only")]
    Players,
}

impl HintError {
    /// The error as the message the player reads (`No hints: …`).
    pub fn refusal(&self) -> String {
        format!("No hints: {self}.")
    }
}

/// The most uneaten cells for which an engine analysis is tried at all (the classic database
/// answers for any size).
pub const MAX_HINT_CELLS: u32 = 64;

/// The longest an analysis may take before it is given up.
pub const HINT_TIME: Duration = Duration::from_millis(1500);

/// The name of the thread the analysis runs on.
pub const ENGINE_THREAD: &str = "jchomp-hints";

/// Transposition table size for one analysis, in megabytes.
const TABLE_MB: usize = 16;

/// An analysis to run away from the screen's loop: the position, the time limit, the classic
/// database when the program has one, and a key that tells its answer apart from answers for
/// older positions.
#[derive(Clone, Debug)]
pub struct HintJob {
    /// Identifies the request.
    pub key: u64,
    /// The configuration.
    pub config: Config,
    /// The position to analyse.
    pub position: Position,
    /// The time limit (`None`: until solved).
    pub limit: Option<Duration>,
    /// The classic database, asked first in the standard classic game.
    pub library: Option<Arc<ClassicLibrary>>,
}

impl HintJob {
    /// Runs the analysis (blocking, at most about `limit`): the classic database where it
    /// answers and is ready, the engine otherwise. Under a time limit, selections the engine
    /// does not prove in time are [`Verdict::Unknown`].
    pub fn run(&self) -> Result<Hints, HintError> {
        let mut source = Source::Engine;
        if let Some(library) = &self.library {
            match classic_db::hints(library, &self.config, &self.position) {
                classic_db::Answer::Hints(hints) => return Ok(hints),
                classic_db::Answer::Preparing => source = Source::EngineWhileDatabasePrepares,
                classic_db::Answer::NotApplicable => {}
            }
        }
        let mut hints = match self.limit {
            None => analyse_within(&self.config, &self.position, None)?,
            Some(limit) => analyse_capped(&self.config, &self.position, limit)?,
        };
        hints.source = source;
        Ok(hints)
    }
}

/// Whether annotations can be given for `position` at all, so that `?` is offered only then:
/// two players, and a position the engine takes (at most [`MAX_HINT_CELLS`] uneaten cells) or
/// the standard classic game, which the classic database answers.
pub fn offered(config: &Config, position: &Position) -> bool {
    config.players() == 2
        && (position.uneaten().count() <= MAX_HINT_CELLS
            || jchomp_engine::classic::answers_for(config))
}

/// Analyses every valid selection of `position` with the bot engine, exactly, within `limit`
/// (`None`: until solved): exact, or [`HintError::TooSlow`].
pub fn analyse_within(
    config: &Config,
    position: &Position,
    limit: Option<Duration>,
) -> Result<Hints, HintError> {
    run_engine(config, position, limit, false)
}

/// Analyses within about `cap`: exactly if the engine finishes in the first half, and otherwise
/// each selection with a share of the second half, those not proven being
/// [`Verdict::Unknown`].
pub fn analyse_capped(
    config: &Config,
    position: &Position,
    cap: Duration,
) -> Result<Hints, HintError> {
    run_engine(config, position, Some(cap), true)
}

fn run_engine(
    config: &Config,
    position: &Position,
    limit: Option<Duration>,
    partial: bool,
) -> Result<Hints, HintError> {
    if position.to_move().is_none() {
        return Err(HintError::NotPlaying);
    }
    let uneaten = position.uneaten().count();
    if uneaten > MAX_HINT_CELLS {
        return Err(HintError::TooLarge {
            uneaten,
            max: MAX_HINT_CELLS,
        });
    }
    if config.players() != 2 {
        return Err(HintError::Players);
    }
    let exact_stop = Arc::new(AtomicBool::new(false));
    let partial_stop = Arc::new(AtomicBool::new(false));
    // The exact attempt gets the whole limit, or its first half when a partial answer follows.
    let exact_time = limit.map(|l| if partial { l / 2 } else { l });
    if let (Some(first), Some(limit)) = (exact_time, limit) {
        let (exact, rest) = (Arc::clone(&exact_stop), Arc::clone(&partial_stop));
        std::thread::spawn(move || {
            std::thread::sleep(first);
            exact.store(true, Ordering::Relaxed);
            std::thread::sleep(limit.saturating_sub(first));
            rest.store(true, Ordering::Relaxed);
        });
    }
    let slice = limit.map(|l| {
        let share = l.saturating_sub(l / 2) / position.selections().count().max(1);
        share.max(Duration::from_millis(1))
    });
    // The engine runs on its own thread so that a failure in it costs the hints, not the game.
    let (config, position) = (*config, *position);
    let engine = std::thread::Builder::new()
        .name(ENGINE_THREAD.to_owned())
        .spawn(move || {
            let mut table = Table::with_megabytes(TABLE_MB);
            let exact = analyze(&config, &position, &mut table, None, Some(exact_stop));
            match (exact, slice) {
                (Err(SolveError::Stopped), Some(slice)) if partial => analyze(
                    &config,
                    &position,
                    &mut table,
                    Some(Budget::Time(slice)),
                    Some(partial_stop),
                ),
                (exact, _) => exact,
            }
        })
        .map_err(|_| HintError::EngineFailed)?;
    let analysis = engine.join().map_err(|_| HintError::EngineFailed)?;
    let (values, _nodes) = analysis.map_err(|e| match e {
        SolveError::Players(_) => HintError::Players,
        SolveError::GameOver => HintError::NotPlaying,
        SolveError::Stopped => HintError::TooSlow(limit.unwrap_or_default()),
    })?;
    Ok(Hints {
        selections: values.into_iter().map(verdict_of).collect(),
        source: Source::Engine,
    })
}

/// The engine's value of one selection as a verdict.
fn verdict_of(v: MoveValue) -> (Cell, Verdict) {
    let verdict = match v.value {
        Some((Outcome::Win, plies)) => Verdict::Win(plies.unwrap_or(0)),
        Some((Outcome::Loss, plies)) => Verdict::Loss(plies.unwrap_or(0)),
        Some((Outcome::Tie, _)) => Verdict::Tie,
        None => Verdict::Unknown,
    };
    (v.cell, verdict)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::board;

    #[test]
    fn labels_fit_three_columns() {
        // The old `W3` / `L99` / `T` labels are now signed plies, as the seed app counts them.
        assert_eq!(Verdict::Win(4).label(), "+4");
        assert_eq!(Verdict::Loss(13).label(), "-13");
        assert_eq!(Verdict::Loss(250).label(), "-…");
        assert_eq!(Verdict::Tie.label(), "=");
        assert_eq!(Verdict::Unknown.label(), "?");
        for v in [Verdict::Win(98), Verdict::Loss(99), Verdict::Win(100)] {
            assert!(crate::style::text_width(&v.label()) <= 3, "{v:?}");
        }
        assert_eq!(Verdict::Loss(1).words(), "loses in 1 half-move (-1)");
        assert_eq!(Verdict::Win(4).words(), "wins in 4 half-moves (+4)");
    }

    #[test]
    fn a_small_position_gets_a_verdict_for_every_selection() {
        // 4×4 with poison in the corner, 1×1 eat: plain Chomp, a first-player win; eating the
        // poison loses at once.
        let c = board("4x4 poison 0,0");
        let pos = Position::start(&c);
        let hints = analyse_within(&c, &pos, None).unwrap();
        assert_eq!(hints.selections.len() as u32, pos.selections().count());
        assert_eq!(hints.verdict(Cell::new(0, 0)), Some(Verdict::Loss(1)));
        assert!(
            hints
                .selections
                .iter()
                .any(|(_, v)| matches!(v, Verdict::Win(_))),
            "{hints:?}"
        );
    }

    #[test]
    fn under_a_short_cap_what_is_not_proven_is_unknown_and_the_rest_is_exact() {
        let c = board("6x6 eat 1x2 poison 0,0");
        let pos = Position::start(&c);
        let capped = analyse_capped(&c, &pos, Duration::from_millis(4)).unwrap();
        let exact = analyse_within(&c, &pos, None).unwrap();
        assert_eq!(capped.selections.len(), exact.selections.len());
        assert_eq!(capped.verdict(Cell::new(0, 0)), Some(Verdict::Loss(1)));
        for ((cell, got), (_, want)) in capped.selections.iter().zip(&exact.selections) {
            assert!(
                *got == Verdict::Unknown || got == want,
                "{cell}: {got:?} vs {want:?}"
            );
        }
    }

    #[test]
    fn more_than_two_players_is_explained() {
        let c = board("4x4 poison 0,0 players 3");
        let err = analyse_within(&c, &Position::start(&c), Some(HINT_TIME)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "hints are available in two-player games only"
        );
    }

    #[test]
    fn large_positions_are_refused() {
        let config = board("15x15 poison 0,0");
        let err = analyse_within(&config, &Position::start(&config), Some(HINT_TIME)).unwrap_err();
        assert!(matches!(err, HintError::TooLarge { uneaten: 225, .. }));
        // Eat 1×1 is answered by parity at once; a 2×2 eat needs search.
        let config = board("8x8 eat 2x2 poison 0,0");
        let limit = Duration::from_millis(1);
        let err = analyse_within(&config, &Position::start(&config), Some(limit)).unwrap_err();
        assert_eq!(err, HintError::TooSlow(limit));
    }
}
