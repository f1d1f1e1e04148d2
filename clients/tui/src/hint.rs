//! Hints: the bot engine's verdict on every valid selection of a small enough position, behind
//! one function so that the screen does not depend on how the engine computes it.

use jchomp_engine::search::{Outcome, SolveError, Table, analyze};
use jchomp_protocol::rules::{Cell, Config, Position};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The engine's verdict on one selection, for the player making it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The mover wins; the game ends within this many more moves.
    Win(u32),
    /// The mover loses; the game ends within this many more moves.
    Loss(u32),
    /// Best play ends in a tie.
    Tie,
    /// The analysis ran out of budget before proving anything.
    Unknown,
}

impl Verdict {
    /// A label of at most three characters for the board (`W3`, `L12`, `T`).
    pub fn label(self) -> String {
        match self {
            Verdict::Win(n) => format!("W{}", n.min(99)),
            Verdict::Loss(n) => format!("L{}", n.min(99)),
            Verdict::Tie => "T".to_owned(),
            Verdict::Unknown => "?".to_owned(),
        }
    }
}

/// The verdict on each valid selection of a position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    /// One entry per valid selection: its anchor and the verdict.
    pub selections: Vec<(Cell, Verdict)>,
}

impl Hints {
    /// The verdict on the selection anchored at `cell`, if it was analysed.
    pub fn verdict(&self, cell: Cell) -> Option<Verdict> {
        self.selections
            .iter()
            .find(|(c, _)| *c == cell)
            .map(|&(_, v)| v)
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

/// The most uneaten cells for which an analysis is tried at all.
pub const MAX_HINT_CELLS: u32 = 64;

/// The longest an analysis may take before it is given up.
pub const HINT_TIME: Duration = Duration::from_millis(1500);

/// The name of the thread the analysis runs on.
pub const ENGINE_THREAD: &str = "jchomp-hints";

/// Transposition table size for one analysis, in megabytes.
const TABLE_MB: usize = 16;

/// Analyses every valid selection of `position` with the bot engine.
pub fn analyse(config: &Config, position: &Position) -> Result<Hints, HintError> {
    analyse_within(config, position, Some(HINT_TIME))
}

/// An analysis to run away from the screen's loop: the position, the time limit, and a key
/// that tells its answer apart from answers for older positions.
#[derive(Clone, Copy, Debug)]
pub struct HintJob {
    /// Identifies the request.
    pub key: u64,
    /// The configuration.
    pub config: Config,
    /// The position to analyse.
    pub position: Position,
    /// The time limit (`None`: until solved).
    pub limit: Option<Duration>,
}

impl HintJob {
    /// Runs the analysis (blocking, at most about `limit`).
    pub fn run(&self) -> Result<Hints, HintError> {
        analyse_within(&self.config, &self.position, self.limit)
    }
}

/// [`analyse`] with a time limit of `limit` (`None`: until solved).
pub fn analyse_within(
    config: &Config,
    position: &Position,
    limit: Option<Duration>,
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
    let stop = Arc::new(AtomicBool::new(false));
    if let Some(limit) = limit {
        let alarm = Arc::clone(&stop);
        std::thread::spawn(move || {
            std::thread::sleep(limit);
            alarm.store(true, Ordering::Relaxed);
        });
    }
    // The engine runs on its own thread so that a failure in it costs the hints, not the game.
    let (config, position) = (*config, *position);
    let engine = std::thread::Builder::new()
        .name(ENGINE_THREAD.to_owned())
        .spawn(move || {
            let mut table = Table::with_megabytes(TABLE_MB);
            analyze(&config, &position, &mut table, None, Some(stop))
        })
        .map_err(|_| HintError::EngineFailed)?;
    let analysis = engine.join().map_err(|_| HintError::EngineFailed)?;
    let (values, _nodes) = analysis.map_err(|e| match e {
        SolveError::Players(_) => HintError::Players,
        SolveError::GameOver => HintError::NotPlaying,
        SolveError::Stopped => HintError::TooSlow(limit.unwrap_or_default()),
    })?;
    let selections = values
        .into_iter()
        .map(|v| {
            let verdict = match v.value {
                Some((Outcome::Win, plies)) => Verdict::Win(plies.unwrap_or(0)),
                Some((Outcome::Loss, plies)) => Verdict::Loss(plies.unwrap_or(0)),
                Some((Outcome::Tie, _)) => Verdict::Tie,
                None => Verdict::Unknown,
            };
            (v.cell, verdict)
        })
        .collect();
    Ok(Hints { selections })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::board;

    #[test]
    fn labels_fit_three_columns() {
        assert_eq!(Verdict::Win(3).label(), "W3");
        assert_eq!(Verdict::Loss(250).label(), "L99");
        assert_eq!(Verdict::Tie.label(), "T");
        assert_eq!(Verdict::Unknown.label(), "?");
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
    fn more_than_two_players_is_explained() {
        let c = board("4x4 poison 0,0 players 3");
        let err = analyse(&c, &Position::start(&c)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "hints are available in two-player games only"
        );
    }

    #[test]
    fn large_positions_are_refused() {
        let config = board("15x15 poison 0,0");
        let err = analyse(&config, &Position::start(&config)).unwrap_err();
        assert!(matches!(err, HintError::TooLarge { uneaten: 225, .. }));
        let config = board("8x8 poison 0,0");
        let limit = Duration::from_millis(1);
        let err = analyse_within(&config, &Position::start(&config), Some(limit)).unwrap_err();
        assert_eq!(err, HintError::TooSlow(limit));
    }
}
