//! perft: counting the leaves of the game tree to a fixed depth, to test and time move making.

use super::config::{Cell, Config};
use super::position::Position;

/// perft(d) = 1 if d = 0 or the game is over, otherwise the sum over every valid selection of
/// perft(position after it, d − 1). Every position visited is made and its selections generated.
pub fn perft(config: &Config, position: &Position, depth: u32) -> u64 {
    if depth == 0 || position.to_move().is_none() {
        return 1;
    }
    let mut nodes = 0;
    for index in position.selections().iter() {
        let mut child = *position;
        child.play(config, Cell::from_index(index));
        nodes += perft(config, &child, depth - 1);
    }
    nodes
}

/// perft split by first selection, in board order (row by row, left to right).
pub fn divide(config: &Config, position: &Position, depth: u32) -> Vec<(Cell, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    position
        .selections()
        .iter()
        .map(|index| {
            let cell = Cell::from_index(index);
            let mut child = *position;
            child.play(config, cell);
            (cell, perft(config, &child, depth - 1))
        })
        .collect()
}
