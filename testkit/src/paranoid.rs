//! What each seat can force in a game of any number of seats, played out on the one brute-force
//! model of the rules ([`crate::model`]): seat `s` against every other seat together (its
//! *paranoid* value), every line tried, positions memoised. With two seats it is the exact
//! game value of [`crate::brute`].

use crate::model::{Model, Outcome};
use std::collections::{BTreeSet, HashMap};

/// Scores in halves of a point: a loss, a tie, a win (some other seat ate poison).
pub const LOSS: u8 = 0;
/// A tie, in halves of a point.
pub const TIE: u8 = 1;
/// A win, in halves of a point.
pub const WIN: u8 = 2;

/// Values already found on one board, by the cells eaten and the seat to move.
pub type Memo = HashMap<(BTreeSet<(i64, i64)>, i64), [u8; 4]>;

/// For every seat, the score (in halves) it can force from `game` whatever the other seats do;
/// unused seats read [`WIN`]. A finished game gives every seat its score.
pub fn values(game: &Model, memo: &mut Memo) -> [u8; 4] {
    match game.outcome {
        Some(Outcome::Poisoned(loser)) => {
            let mut v = [WIN; 4];
            v[loser as usize] = LOSS;
            return v;
        }
        Some(Outcome::Won(winner)) => {
            let mut v = [WIN; 4];
            for (seat, value) in v.iter_mut().enumerate().take(game.players as usize) {
                if seat != winner as usize {
                    *value = LOSS;
                }
            }
            return v;
        }
        Some(Outcome::Tie) => return [TIE; 4],
        None => {}
    }
    let key = (game.eaten.clone(), game.to_move);
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mover = game.to_move as usize;
    let mut v = [WIN; 4];
    v[mover] = LOSS;
    for (r, c) in game.valid() {
        let child = values(&game.after(r, c), memo);
        for seat in 0..game.players as usize {
            if seat == mover {
                v[seat] = v[seat].max(child[seat]);
            } else {
                v[seat] = v[seat].min(child[seat]);
            }
        }
    }
    memo.insert(key, v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board;
    use crate::brute;

    #[test]
    fn two_seats_agree_with_the_exact_solver() {
        for notation in [
            "4x4 eat 1x2 poison 0,0",
            "4x4 eat 2x1 poison 1,2",
            "4x5 eat 2x2 poison 3,4",
        ] {
            let game = Model::start(&board(notation));
            let v = values(&game, &mut Memo::new());
            let (outcome, _) = brute::solve(&game, &mut brute::Memo::new());
            let expected = match outcome {
                brute::Outcome::Win => WIN,
                brute::Outcome::Tie => TIE,
                brute::Outcome::Loss => LOSS,
            };
            assert_eq!(v[0], expected, "{notation}");
            assert_eq!(v[1], WIN - expected, "{notation}");
        }
    }

    #[test]
    fn with_one_safe_cell_left_three_seats_know_the_loser() {
        // 4x4, 1x1 eats, poison at 0,0: seat 0 eats the last safe cell, seat 1 must eat poison.
        let mut game = Model::start(&board("4x4 players 3 poison 0,0"));
        for cell in 2..16 {
            game.select(cell / 4, cell % 4).unwrap();
        }
        assert_eq!(game.to_move, 14 % 3);
        let v = values(&game, &mut Memo::new());
        // Seat 2 to move eats (0,1); seat 0 eats poison.
        assert_eq!(v[..3], [LOSS, WIN, WIN]);
    }
}
