//! Exact values without search when every selection eats exactly one cell (JChomp with eat
//! 1×1): a pure parity game.
//!
//! Every uneaten cell is then a valid selection, so the game never ties while poison is left,
//! and each safe selection removes exactly one safe cell. With `s` safe cells left, the seat to
//! move wins exactly when `s` is odd, and the game lasts `s + 1` plies whatever the players do
//! short of eating poison early: the loser delays by eating safe cells, the winner cannot
//! hurry, and the last of the `s + 1` plies eats poison. A selection of poison loses in 1.

use super::score::Outcome;
use jchomp_rules::{Cell, Config, Position};

/// Whether `config` is a parity game (eat 1×1).
pub(super) fn applies(config: &Config) -> bool {
    config.eat() == Some((1, 1))
}

/// The value for the seat to move, the plies to the end and an optimal selection (a safe cell
/// while one is left, else poison); `None` when the game is over.
pub(super) fn solve(config: &Config, position: &Position) -> Option<(Outcome, u32, Cell)> {
    let first = position.selections().first()?;
    let safe = position.safe_selections(config);
    let s = safe.count();
    let outcome = if !s.is_multiple_of(2) {
        Outcome::Win
    } else {
        Outcome::Loss
    };
    let best = safe.first().unwrap_or(first);
    Some((outcome, s + 1, Cell::from_index(best)))
}

/// The value of `cell` for the seat selecting it, and the plies to the end, this one included.
pub(super) fn value_of(config: &Config, position: &Position, cell: Cell) -> (Outcome, u32) {
    let safe = position.safe_selections(config);
    if !safe.contains(cell.index()) {
        return (Outcome::Loss, 1);
    }
    // The opponent is left `s - 1` safe cells and loses when that is even.
    let s = safe.count();
    let outcome = if (s - 1).is_multiple_of(2) {
        Outcome::Win
    } else {
        Outcome::Loss
    };
    (outcome, s + 1)
}
