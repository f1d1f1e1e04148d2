//! Classic Chomp, exactly: positions as row lengths ([`Shape`]), their ranks inside a box
//! ([`Ranker`]), and the database of every position's value and plies to the end
//! ([`build`], kept and looked up as a [`ClassicDb`]).

mod build;
mod db;
mod library;
mod oracle;
mod rank;
mod shape;

pub use build::{Progress, build};
pub use db::{ClassicDb, DbError, MoveValue, Solved, Value};
pub use library::{Availability, ClassicLibrary, FILE_NAME};
pub use oracle::{PerfectPlayer, answers_for, best_cell, shape_of};
pub use rank::Ranker;
pub use shape::{MAX_SIDE, Shape, ShapeError};

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Plies by plain recursion over every move, memoised: the definition itself.
    fn solve(shape: Shape, memo: &mut HashMap<Shape, u8>) -> u8 {
        if let Some(&p) = memo.get(&shape) {
            return p;
        }
        let mut best_win: Option<u8> = None;
        let mut longest_loss = 1u8; // eating the poison ends the game in one ply
        for r in 0..shape.height() {
            for c in 0..shape.row(r) as usize {
                if r == 0 && c == 0 {
                    continue;
                }
                let child = shape.select(r, c).unwrap();
                let p = solve(child, memo);
                if p % 2 == 1 {
                    best_win = Some(best_win.map_or(p + 1, |b| b.min(p + 1)));
                } else {
                    longest_loss = longest_loss.max(p + 1);
                }
            }
        }
        let p = best_win.unwrap_or(longest_loss);
        memo.insert(shape, p);
        p
    }

    #[test]
    fn the_database_agrees_with_plain_recursion() {
        let mut memo = HashMap::new();
        for (r, c) in [(1, 1), (2, 2), (3, 5), (6, 6), (5, 8)] {
            let ranker = Ranker::new(r, c).unwrap();
            let plies = build(&ranker, &mut |_| {});
            for rank in 1..ranker.count() {
                let shape = ranker.unrank(rank);
                assert_eq!(plies[rank as usize], solve(shape, &mut memo), "{shape}");
            }
        }
    }

    #[test]
    fn p_positions_inside_squares() {
        let known = [1, 2, 5, 10, 23, 48, 129, 322, 867];
        for (n, &want) in known.iter().enumerate() {
            let ranker = Ranker::new(n + 1, n + 1).unwrap();
            let plies = build(&ranker, &mut |_| {});
            let p = plies.iter().filter(|&&p| p % 2 == 1).count();
            assert_eq!(p, want, "inside {0}x{0}", n + 1);
        }
    }
}
