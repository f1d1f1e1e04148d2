//! Hints: the bot engine's verdict on every valid selection of a small enough position, behind
//! one function so that the screen does not depend on how the engine computes it.

use jchomp_protocol::rules::{Cell, Config, Position};

/// The engine's verdict on one selection, for the player making it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The mover wins; the game ends within this many more moves.
    Win(u32),
    /// The mover loses; the game ends within this many more moves.
    Loss(u32),
    /// Best play ends in a tie.
    Tie,
}

impl Verdict {
    /// A label of at most three characters for the board (`W3`, `L12`, `T`).
    pub fn label(self) -> String {
        match self {
            Verdict::Win(n) => format!("W{}", n.min(99)),
            Verdict::Loss(n) => format!("L{}", n.min(99)),
            Verdict::Tie => "T".to_owned(),
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
    /// The bot engine's analysis is not available in this build.
    #[error("hints are not available yet: the bot engine has no analysis to offer")]
    Unavailable,
}

/// The most uneaten cells for which hints are computed.
pub const MAX_HINT_CELLS: u32 = 30;

/// Analyses every valid selection of `position` with the bot engine.
pub fn analyse(config: &Config, position: &Position) -> Result<Hints, HintError> {
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
    let _ = config;
    Err(HintError::Unavailable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_protocol::rules::Setup;

    #[test]
    fn labels_fit_three_columns() {
        assert_eq!(Verdict::Win(3).label(), "W3");
        assert_eq!(Verdict::Loss(250).label(), "L99");
        assert_eq!(Verdict::Tie.label(), "T");
    }

    #[test]
    fn large_positions_are_refused() {
        let config = Config::new(&Setup {
            rows: 15,
            cols: 15,
            players: 2,
            eat: [1, 1],
            poison: vec![[0, 0]],
        })
        .unwrap();
        let err = analyse(&config, &Position::start(&config)).unwrap_err();
        assert!(matches!(err, HintError::TooLarge { uneaten: 225, .. }));
    }
}
