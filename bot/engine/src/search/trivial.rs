//! Positions that need no search: [`Turn`], what a player answers at once before searching, and
//! [`decided`], the positions whose result no one can change any more.

use jchomp_rules::{Bits, Cell, Config, Position, Seat, Status};

/// What the seat to move faces, as a player sees it before searching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Turn {
    /// The game is over: there is nothing to choose.
    Over,
    /// Every selection holds poison: this one (the first) loses like any other.
    OnlyPoison(Cell),
    /// `seat` to move with the safe selections `safe`; `forced` is the one to play without a
    /// search when the choice cannot matter (only one is left, or no selection can reach poison
    /// any more and the game ties whatever anyone plays).
    Safe {
        /// The seat to move.
        seat: Seat,
        /// The selections without poison (never empty).
        safe: Bits,
        /// The selection to play at once, if the choice cannot matter.
        forced: Option<Cell>,
    },
}

impl Turn {
    /// What the seat to move faces at `position`.
    pub(super) fn of(config: &Config, position: &Position) -> Turn {
        let (Some(seat), Some(first)) = (position.to_move(), position.selections().first()) else {
            return Turn::Over;
        };
        let safe = position.safe_selections(config);
        let Some(first_safe) = safe.first() else {
            return Turn::OnlyPoison(Cell::from_index(first));
        };
        let settled = safe.count() == 1 || cannot_reach_poison(config, position);
        Turn::Safe {
            seat,
            safe,
            forced: settled.then(|| Cell::from_index(first_safe)),
        }
    }
}

/// Whether no selection of `position` can ever reach poison again (the game will tie, unless it
/// is over).
#[inline]
pub(super) fn cannot_reach_poison(config: &Config, position: &Position) -> bool {
    !position.selections().intersects(config.poison_zone())
}

/// Whether `position` is decided whatever anyone plays: the game is over, the mover has only
/// poisoned selections (it loses), or no selection can reach poison any more (a tie). Returns
/// the loser (`None` for a tie).
pub(super) fn decided(config: &Config, position: &Position) -> Option<Option<Seat>> {
    match position.status() {
        Status::Over(result) => Some(result.loser()),
        Status::ToMove(mover) => {
            if position.safe_selections(config).is_empty() {
                Some(Some(mover))
            } else if cannot_reach_poison(config, position) {
                Some(None)
            } else {
                None
            }
        }
    }
}
