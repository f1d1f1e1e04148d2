//! What the optional rules add to a bite: the pieces of an edge break, and the test for a
//! perfect-square bite.

use super::bits::Bits;
use super::config::{Cell, Config};

/// The cells in the row or the column of the (one) poison cell of an edge-breaks board: the
/// cells that name a break.
pub(crate) fn cross(config: &Config) -> Bits {
    let p = config.poison()[0];
    (Bits::rect(p.row, 0, 1, config.cols()) | Bits::rect(0, p.col, config.rows(), 1))
        & config.board()
}

/// The cells of the whole board beyond the line an edge break at `cell` names, away from the
/// poison cell: rows from `cell` down (or up), columns from it rightwards (or leftwards), the
/// whole board at the poison cell, nothing off the poison's cross.
pub(crate) fn break_piece(config: &Config, cell: Cell) -> Bits {
    let p = config.poison()[0];
    let (rows, cols) = (config.rows(), config.cols());
    if cell == p {
        config.board()
    } else if cell.col == p.col && cell.row > p.row {
        Bits::rect(cell.row, 0, rows - cell.row, cols)
    } else if cell.col == p.col {
        Bits::rect(0, 0, cell.row + 1, cols)
    } else if cell.row == p.row && cell.col > p.col {
        Bits::rect(0, cell.col, rows, cols - cell.col)
    } else if cell.row == p.row {
        Bits::rect(0, 0, rows, cell.col + 1)
    } else {
        Bits::EMPTY
    }
}

/// The cells a selection at `cell` eats from `uneaten`, for the bites whose extent depends on
/// what is left: classic Chomp and edge breaks.
fn eaten(config: &Config, uneaten: Bits, cell: Cell) -> Bits {
    config.rect(cell) & uneaten
}

/// Whether `cells` form a k×k square (k ≥ 1).
pub(crate) fn is_square(cells: Bits) -> bool {
    let Some(first) = cells.first() else {
        return false;
    };
    let n = cells.count();
    let k = n.isqrt();
    let top_left = Cell::from_index(first);
    k * k == n && cells == Bits::rect(top_left.row, top_left.col, k as u8, k as u8)
}

/// The selections of `named` (classic Chomp or edge breaks) whose bite of `uneaten` is not a
/// perfect square.
pub(crate) fn without_squares(config: &Config, uneaten: Bits, named: Bits) -> Bits {
    named
        .iter()
        .filter(|&i| is_square(eaten(config, uneaten, Cell::from_index(i))))
        .fold(named, |left, i| left.without(Bits::single(i)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_are_full_k_by_k_blocks() {
        assert!(is_square(Bits::single(Bits::index(3, 4))));
        assert!(is_square(Bits::rect(2, 13, 2, 2)));
        assert!(is_square(Bits::rect(0, 0, 15, 15)));
        assert!(!is_square(Bits::EMPTY));
        assert!(!is_square(Bits::rect(0, 0, 1, 4)));
        assert!(!is_square(Bits::rect(0, 0, 2, 3)));
        // Four cells, but an L and a bent line, not 2×2.
        let l = Bits::rect(0, 0, 3, 1) | Bits::single(Bits::index(2, 1));
        assert!(!is_square(l));
        let bent = Bits::rect(0, 14, 1, 1) | Bits::rect(1, 0, 1, 1);
        assert!(!is_square(bent | Bits::rect(2, 0, 1, 2)));
    }

    #[test]
    fn breaks_eat_beyond_the_named_line() {
        let c: Config = "5x6 variant breaks poison 2,3".parse().unwrap();
        assert_eq!(cross(&c), Bits::rect(2, 0, 1, 6) | Bits::rect(0, 3, 5, 1));
        let at = |r, col| break_piece(&c, Cell::new(r, col));
        assert_eq!(at(3, 3), Bits::rect(3, 0, 2, 6));
        assert_eq!(at(1, 3), Bits::rect(0, 0, 2, 6));
        assert_eq!(at(2, 5), Bits::rect(0, 5, 5, 1));
        assert_eq!(at(2, 0), Bits::rect(0, 0, 5, 1));
        assert_eq!(at(2, 3), c.board());
        assert_eq!(at(0, 0), Bits::EMPTY);
    }
}
