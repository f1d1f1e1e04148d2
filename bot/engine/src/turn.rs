//! What a player is told about its move beyond the position (the whole game, the clocks and its
//! time), and how a turn can fail: [`Turn`], [`TimeControl`], [`Failure`] and [`Fault`].

use jchomp_rules::{Cell, Config, Game, GameResult, Position, Seat};
use std::time::Duration;

use crate::think::Outcome;

/// A game's time control, the same for every seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// A clock per seat starting at `base`, with `inc` added after each of the seat's moves.
    Clock {
        /// Each seat's time at the start.
        base: Duration,
        /// Added to a seat's clock after each of its moves.
        inc: Duration,
    },
    /// A fixed time for every move.
    MoveTime(Duration),
}

impl TimeControl {
    /// The time a built-in bot is given for one move, the share an engine is expected to take:
    /// a twentieth of its clock plus half the increment, or the move time.
    pub fn allotted(self, left: Duration) -> Duration {
        match self {
            TimeControl::Clock { inc, .. } => left / 20 + inc / 2,
            TimeControl::MoveTime(t) => t,
        }
    }
}

/// One move to choose: the game so far (the seat to move has a valid selection) and its clocks.
#[derive(Clone, Copy, Debug)]
pub struct Turn<'a> {
    /// The game so far.
    pub game: &'a Game,
    /// The time left on every seat's clock, seat 0 first; empty without a clock.
    pub clocks: &'a [Duration],
    /// Added to a seat's clock after each of its moves (zero without a clock).
    pub inc: Duration,
    /// The time for this move, exactly, under a fixed time per move.
    pub movetime: Option<Duration>,
    /// When an answer loses on time, counted from the start of the turn (margin included);
    /// `None`: never.
    pub limit: Option<Duration>,
}

/// How a player failed, costing it the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Failure {
    /// It panicked, or its process ended before `quit` (recorded as `abandoned`).
    Crash,
    /// It answered with no selection, or an invalid one (recorded as `abandoned`).
    Illegal,
    /// It answered after its time limit (recorded as `timeout`).
    Overtime,
    /// It left `isready` unanswered (recorded as `timeout`).
    Hung,
    /// Its answer could not be read (recorded as `abandoned`).
    Malformed,
    /// It printed too long a line, or too much in one search (recorded as `abandoned`).
    Flood,
    /// Its program could not be started (recorded as `abandoned`).
    Start,
    /// It did not complete the handshake (recorded as `abandoned`).
    Handshake,
}

impl Failure {
    /// Every failure, in the order of `results.json`.
    pub const ALL: [Failure; 8] = [
        Failure::Crash,
        Failure::Illegal,
        Failure::Overtime,
        Failure::Hung,
        Failure::Malformed,
        Failure::Flood,
        Failure::Start,
        Failure::Handshake,
    ];

    /// The name used in tournament records and `results.json`.
    pub const fn name(self) -> &'static str {
        match self {
            Failure::Crash => "crash",
            Failure::Illegal => "illegal",
            Failure::Overtime => "overtime",
            Failure::Hung => "hung",
            Failure::Malformed => "malformed",
            Failure::Flood => "flood",
            Failure::Start => "start",
            Failure::Handshake => "handshake",
        }
    }

    /// The failure of this name.
    pub fn from_name(name: &str) -> Option<Failure> {
        Failure::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The result of a game in which `seat` failed this way.
    pub const fn result(self, seat: Seat) -> GameResult {
        match self {
            Failure::Overtime | Failure::Hung => GameResult::Timeout { loser: seat },
            _ => GameResult::Abandoned { loser: seat },
        }
    }

    /// Judges a player's answer in `position`: the cell to play, or how it failed.
    pub fn judge(outcome: Outcome, config: &Config, position: &Position) -> Result<Cell, Failure> {
        match outcome {
            Outcome::Panicked => Err(Failure::Crash),
            Outcome::Chose(cell)
                if position
                    .check(config, i64::from(cell.row), i64::from(cell.col))
                    .is_ok() =>
            {
                Ok(cell)
            }
            Outcome::Chose(_) | Outcome::Passed => Err(Failure::Illegal),
        }
    }
}

/// A failure as a player reports it: what failed, and the last lines it exchanged (an engine's;
/// empty for a built-in bot), for the game's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// How it failed.
    pub failure: Failure,
    /// The last lines between runner and engine, oldest first.
    pub lines: Vec<String>,
}

impl From<Failure> for Fault {
    fn from(failure: Failure) -> Fault {
        Fault {
            failure,
            lines: Vec::new(),
        }
    }
}
