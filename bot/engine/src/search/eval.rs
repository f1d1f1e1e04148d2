//! The heuristic evaluation at the search horizon.
//!
//! JChomp is a parity game: when the seat to move has no selection without poison it must eat
//! poison (if a poisoned selection is left) and loses. So what matters is who makes the last safe
//! selection. The estimate of the safe selections left is the number of cells that some safe
//! selection covers, divided by the cells one selection eats.

use super::key::cover;
use jchomp_rules::{Config, Position, Seat};

/// Size of a heuristic score; proven results are far larger.
pub const UNIT: i32 = 100;

/// Estimated number of safe selections left before someone is stuck (in classic Chomp, where a
/// selection eats at least its own cell, the number of safe cells).
#[inline]
pub fn safe_moves_left(config: &Config, position: &Position) -> u32 {
    let (er, ec) = config.fit();
    cover(config, position.safe_selections(config)).count() / (er as u32 * ec as u32)
}

/// Two players: the score for the seat to move (+[`UNIT`] if it is expected to make the last
/// safe selection, −[`UNIT`] otherwise).
#[inline]
pub fn two_player(config: &Config, position: &Position) -> i32 {
    if safe_moves_left(config, position) % 2 == 1 {
        UNIT
    } else {
        -UNIT
    }
}

/// The seat expected to be stuck with only poison to eat, with `mover` to move.
#[inline]
pub fn expected_loser(config: &Config, position: &Position, mover: Seat) -> Seat {
    let left = safe_moves_left(config, position);
    ((u32::from(mover) + left) % u32::from(config.players())) as Seat
}
