//! JSON shapes shared by game records and wire messages: configuration, result and move.

use crate::rules::{Config, ConfigError, GameResult, Move, Seat, Setup};
use serde::{Deserialize, Serialize};

/// A game configuration as JSON:
/// `{"rows":6,"cols":7,"players":2,"eat":[1,2],"poison":[[0,0]],"move_time_ms":30000}`.
///
/// Numbers are kept wide so that an out-of-range value reaches [`Config::new`] and is refused
/// with a message naming the field, the range and the value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigJson {
    /// Board rows (4–15).
    pub rows: i64,
    /// Board columns (4–15).
    pub cols: i64,
    /// Players (2–4).
    pub players: i64,
    /// Eat size `[rows, cols]` (each 1–3).
    pub eat: [i64; 2],
    /// Poison cells `[[row, col], …]`.
    pub poison: Vec<[i64; 2]>,
    /// Time each seat has for one move, in milliseconds; absent means no timer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_time_ms: Option<u64>,
}

impl ConfigJson {
    /// The JSON form of a validated configuration.
    pub fn new(config: &Config, move_time_ms: Option<u64>) -> ConfigJson {
        ConfigJson::from_setup(config.to_setup(), move_time_ms)
    }

    /// The JSON form of a setup, valid or not.
    pub fn from_setup(setup: Setup, move_time_ms: Option<u64>) -> ConfigJson {
        let Setup {
            rows,
            cols,
            players,
            eat,
            poison,
        } = setup;
        ConfigJson {
            rows,
            cols,
            players,
            eat,
            poison,
            move_time_ms,
        }
    }

    /// The unvalidated setup this JSON describes.
    pub fn setup(&self) -> Setup {
        Setup {
            rows: self.rows,
            cols: self.cols,
            players: self.players,
            eat: self.eat,
            poison: self.poison.clone(),
        }
    }

    /// Validates the configuration.
    pub fn validate(&self) -> Result<Config, ConfigError> {
        Config::new(&self.setup())
    }
}

/// A game result as JSON: `{"kind":"poisoned","loser":1}`, `{"kind":"tie"}`,
/// `{"kind":"timeout","loser":0}` or `{"kind":"abandoned","loser":2}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResultJson {
    /// The loser ate poison.
    Poisoned {
        /// The losing seat.
        loser: Seat,
    },
    /// No valid selection was left.
    Tie,
    /// The loser's move timer ran out.
    Timeout {
        /// The losing seat.
        loser: Seat,
    },
    /// The loser left and did not come back in time.
    Abandoned {
        /// The losing seat.
        loser: Seat,
    },
}

impl From<GameResult> for ResultJson {
    fn from(r: GameResult) -> Self {
        match r {
            GameResult::Poisoned { loser } => ResultJson::Poisoned { loser },
            GameResult::Tie => ResultJson::Tie,
            GameResult::Timeout { loser } => ResultJson::Timeout { loser },
            GameResult::Abandoned { loser } => ResultJson::Abandoned { loser },
        }
    }
}

impl From<ResultJson> for GameResult {
    fn from(r: ResultJson) -> Self {
        match r {
            ResultJson::Poisoned { loser } => GameResult::Poisoned { loser },
            ResultJson::Tie => GameResult::Tie,
            ResultJson::Timeout { loser } => GameResult::Timeout { loser },
            ResultJson::Abandoned { loser } => GameResult::Abandoned { loser },
        }
    }
}

/// One accepted move as JSON: `{"seat":0,"row":2,"col":3}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveJson {
    /// The seat that moved.
    pub seat: i64,
    /// Anchor row.
    pub row: i64,
    /// Anchor column.
    pub col: i64,
}

impl From<Move> for MoveJson {
    fn from(m: Move) -> Self {
        MoveJson {
            seat: m.seat as i64,
            row: m.cell.row as i64,
            col: m.cell.col as i64,
        }
    }
}
