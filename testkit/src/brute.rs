//! The exact two-player solver, played out on the one brute-force model of the rules
//! ([`crate::model`]): every line tried, positions memoised by the cells eaten.

use crate::model::{self, Model};
use jchomp_rules::Cell;
use std::collections::{BTreeSet, HashMap};

/// Outcome for the seat to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The seat to move can force a win.
    Win,
    /// Best play ties.
    Tie,
    /// The seat to move loses whatever it does.
    Loss,
}

impl Outcome {
    /// The same result seen by the other seat.
    fn flip(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Tie => Outcome::Tie,
            Outcome::Loss => Outcome::Win,
        }
    }
}

/// A selection as (row, col), as the model takes it.
pub type Selection = (i64, i64);

/// Values already found on one board, by the cells eaten: outcome and plies to the end.
pub type Memo = HashMap<BTreeSet<(i64, i64)>, (Outcome, u32)>;

/// The engine's cell for a selection of the model, so that a test can set the two side by side.
pub fn cell((row, col): Selection) -> Cell {
    Cell::new(
        u8::try_from(row).expect("a row on the board"),
        u8::try_from(col).expect("a column on the board"),
    )
}

/// The value of the valid selection `m` for the seat making it.
fn value_of(game: &Model, m: Selection, memo: &mut Memo) -> (Outcome, u32) {
    let next = game.after(m.0, m.1);
    match next.outcome {
        Some(model::Outcome::Poisoned(_)) => (Outcome::Loss, 1),
        Some(model::Outcome::Won(_)) => (Outcome::Win, 1),
        Some(model::Outcome::Tie) => (Outcome::Tie, 1),
        None => {
            let (o, p) = solve(&next, memo);
            (o.flip(), p + 1)
        }
    }
}

/// Exact two-player value for the seat to move and plies to the end (winners hurry, losers
/// delay; for a tie the plies are whatever line was found first). A finished game is a tie in
/// no plies.
pub fn solve(game: &Model, memo: &mut Memo) -> (Outcome, u32) {
    assert_eq!(game.players, 2, "the brute-force solver plays two players");
    if let Some(&v) = memo.get(&game.eaten) {
        return v;
    }
    let v = game
        .valid()
        .into_iter()
        .map(|m| value_of(game, m, memo))
        .reduce(better)
        .unwrap_or((Outcome::Tie, 0));
    memo.insert(game.eaten.clone(), v);
    v
}

/// Value of every valid selection for the seat to move, in board order.
pub fn analyze(game: &Model, memo: &mut Memo) -> Vec<(Selection, Outcome, u32)> {
    assert_eq!(game.players, 2, "the brute-force solver plays two players");
    game.valid()
        .into_iter()
        .map(|m| {
            let (o, p) = value_of(game, m, memo);
            (m, o, p)
        })
        .collect()
}

/// The better of two results for the seat choosing (the first one when they are as good).
fn better(a: (Outcome, u32), b: (Outcome, u32)) -> (Outcome, u32) {
    let rank = |(o, p): (Outcome, u32)| -> i64 {
        match o {
            Outcome::Win => 2_000 - i64::from(p),
            Outcome::Tie => 0,
            Outcome::Loss => -2_000 + i64::from(p),
        }
    };
    if rank(b) > rank(a) { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board;

    #[test]
    fn eating_the_last_safe_cell_wins_and_poison_loses() {
        // 4×4, 1×1 eats, poison in the corner: 15 safe cells, so the first player eats the
        // last safe one and the second must take the poison.
        let game = Model::start(&board("4x4 poison 0,0"));
        let mut memo = Memo::new();
        assert_eq!(solve(&game, &mut memo), (Outcome::Win, 16));
        let values = analyze(&game, &mut memo);
        assert_eq!(values.len(), 16);
        assert_eq!(values[0], ((0, 0), Outcome::Loss, 1));
        assert!(
            values[1..]
                .iter()
                .all(|&(_, o, p)| (o, p) == (Outcome::Win, 16))
        );
    }
}
