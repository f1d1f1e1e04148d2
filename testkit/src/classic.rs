//! Classic Chomp solved by its definition, for tests: a position is its row lengths (top row
//! first, the poison at the top-left cell 0,0), a selection (r, c) eats that cell and every cell
//! below and to the right of it, and [`Solver`] finds the value and plies of a position by plain
//! recursion over every selection, memoised (by the row lengths packed four bits a row). It
//! shares no code with the engine's database that it checks.
//!
//! Plies count every selection up to and including the one that eats the poison: the player
//! left with the poison alone loses in 1 ply. A win takes the fastest win, a loss the longest
//! delay.

use crate::brute::Outcome;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The most rows, and the most cells in a row, of a position here.
pub const SIDE: usize = 15;

/// A position: the length of each row, top row first, never growing downwards; zeros after the
/// last row. All zeros is the empty board (the poison eaten).
pub type Rows = [u8; SIDE];

/// A selection (row, column) with what it brings the player making it and the plies to the end,
/// this selection included.
pub type Choice = ((usize, usize), Outcome, u32);

/// The position with these row lengths (top row first); panics if they are not one.
pub fn rows(lengths: &[u8]) -> Rows {
    assert!(lengths.len() <= SIDE, "at most {SIDE} rows: {lengths:?}");
    let mut out = [0u8; SIDE];
    for (i, &len) in lengths.iter().enumerate() {
        assert!(
            usize::from(len) <= SIDE,
            "at most {SIDE} columns: {lengths:?}"
        );
        assert!(i == 0 || len <= lengths[i - 1], "rows grow: {lengths:?}");
        out[i] = len;
    }
    out
}

/// The cells of a position, row by row from the top, each row from the left.
pub fn cells(position: &Rows) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (r, &len) in position.iter().enumerate() {
        for c in 0..usize::from(len) {
            out.push((r, c));
        }
    }
    out
}

/// The position after selecting cell (r, c), which must be there.
pub fn after(position: &Rows, r: usize, c: usize) -> Rows {
    assert!(c < usize::from(position[r]), "({r},{c}) is already eaten");
    let k = cut(pack(position), r, c as u64);
    std::array::from_fn(|i| row(k, i) as u8)
}

/// The same position seen across its diagonal: column c becomes row c.
pub fn transpose(position: &Rows) -> Rows {
    let mut out = [0u8; SIDE];
    for (c, len) in out.iter_mut().enumerate() {
        *len = position.iter().filter(|&&l| usize::from(l) > c).count() as u8;
    }
    out
}

/// Every position inside a `height` × `width` box (each 1–15) that still holds the poison.
pub fn inside(height: usize, width: usize) -> Vec<Rows> {
    fn grow(row: usize, cap: u8, height: usize, current: &mut Rows, out: &mut Vec<Rows>) {
        if row == height {
            if current[0] > 0 {
                out.push(*current);
            }
            return;
        }
        for len in 0..=cap {
            current[row] = len;
            grow(row + 1, len, height, current, out);
        }
        current[row] = 0;
    }
    assert!((1..=SIDE).contains(&height) && (1..=SIDE).contains(&width));
    let mut out = Vec::new();
    grow(0, width as u8, height, &mut [0; SIDE], &mut out);
    out
}

/// A position drawn uniformly among those inside a `height` × `width` box that still hold the
/// poison, from the generator state `seed` (advanced).
pub fn random_inside(seed: &mut u64, height: usize, width: usize) -> Rows {
    loop {
        // The border of a position is a path of `height` steps down and `width` steps left:
        // every arrangement of the steps is one position.
        let mut steps: Vec<bool> = (0..height + width).map(|i| i < height).collect();
        for i in (1..steps.len()).rev() {
            let j = (next(seed) % (i as u64 + 1)) as usize;
            steps.swap(i, j);
        }
        let mut out = [0u8; SIDE];
        let (mut row, mut len) = (0, width as u8);
        for down in steps {
            if down {
                out[row] = len;
                row += 1;
            } else {
                len -= 1;
            }
        }
        if out[0] > 0 {
            return out;
        }
    }
}

/// SplitMix64: the next number of the generator state `seed`.
fn next(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A position packed into a number, four bits a row (row `i` in bits `4i .. 4i+4`): the
/// memo's key, and what the recursion works on.
type Packed = u64;

fn pack(position: &Rows) -> Packed {
    let mut k = 0;
    for (i, &len) in position.iter().enumerate() {
        k |= u64::from(len) << (4 * i);
    }
    k
}

/// The length of row `i` of a packed position.
fn row(k: Packed, i: usize) -> u64 {
    (k >> (4 * i)) & 15
}

/// [`after`] on a packed position: rows from `r` down cut to `c` cells while longer.
fn cut(mut k: Packed, r: usize, c: u64) -> Packed {
    let mut i = r;
    while i < SIDE && row(k, i) > c {
        k = (k & !(15 << (4 * i))) | (c << (4 * i));
        i += 1;
    }
    k
}

/// Spreads a key over the table (a plain multiplication): keys of a game differ in few bits.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        let h = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 29);
    }
}

/// Values and plies found so far, by position: the exact solver of classic Chomp.
#[derive(Default)]
pub struct Solver {
    memo: HashMap<Packed, (Outcome, u32), BuildHasherDefault<KeyHasher>>,
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Solver({} positions)", self.memo.len())
    }
}

impl Solver {
    /// A solver with nothing memoised.
    pub fn new() -> Solver {
        Solver::default()
    }

    /// Who wins `position` (the player to move) and in how many plies the game ends with best
    /// play. The empty board is not a position to move in: it panics.
    pub fn solve(&mut self, position: &Rows) -> (Outcome, u32) {
        assert!(position[0] > 0, "the poison is eaten: the game is over");
        self.solve_packed(pack(position))
    }

    /// Every selection of `position` (in the order of [`cells`]) with what it brings the player
    /// making it, and the plies to the end, this selection included.
    pub fn moves(&mut self, position: &Rows) -> Vec<Choice> {
        let k = pack(position);
        cells(position)
            .into_iter()
            .map(|(r, c)| {
                let (outcome, plies) = self.choice(k, r, c as u64);
                ((r, c), outcome, plies)
            })
            .collect()
    }

    fn solve_packed(&mut self, k: Packed) -> (Outcome, u32) {
        if let Some(&v) = self.memo.get(&k) {
            return v;
        }
        let mut fastest_win: Option<u32> = None;
        let mut longest_loss = 0;
        let mut r = 0;
        while r < SIDE && row(k, r) > 0 {
            for c in 0..row(k, r) {
                match self.choice(k, r, c) {
                    (Outcome::Win, plies) => {
                        fastest_win = Some(fastest_win.map_or(plies, |f| f.min(plies)));
                    }
                    (_, plies) => longest_loss = longest_loss.max(plies),
                }
            }
            r += 1;
        }
        let v = match fastest_win {
            Some(plies) => (Outcome::Win, plies),
            None => (Outcome::Loss, longest_loss),
        };
        self.memo.insert(k, v);
        v
    }

    /// What selecting (r, c) brings the player making it, and the plies to the end.
    fn choice(&mut self, k: Packed, r: usize, c: u64) -> (Outcome, u32) {
        if (r, c) == (0, 0) {
            // Eating the poison: lost, and the game ends with this selection.
            return (Outcome::Loss, 1);
        }
        let (theirs, plies) = self.solve_packed(cut(k, r, c));
        let mine = if theirs == Outcome::Loss {
            Outcome::Win
        } else {
            Outcome::Loss
        };
        (mine, plies + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_positions_by_hand() {
        let mut s = Solver::new();
        // The poison alone: eat it and lose.
        assert_eq!(s.solve(&rows(&[1])), (Outcome::Loss, 1));
        // Two cells: take the other one, the opponent eats the poison.
        assert_eq!(s.solve(&rows(&[2])), (Outcome::Win, 2));
        assert_eq!(s.solve(&rows(&[1, 1])), (Outcome::Win, 2));
        // An L of two arms of one cell each: every move leaves a win, the longest delay is 3.
        assert_eq!(s.solve(&rows(&[2, 1])), (Outcome::Loss, 3));
        assert_eq!(s.solve(&rows(&[2, 2])), (Outcome::Win, 4));
        assert_eq!(
            s.moves(&rows(&[2, 1]))[0],
            ((0, 0), Outcome::Loss, 1),
            "the poison first"
        );
    }

    #[test]
    fn boxes_hold_every_position_and_random_ones_fit() {
        // C(R+C, R) down-sets, less the empty board.
        assert_eq!(inside(2, 2).len(), 5);
        assert_eq!(inside(3, 4).len(), 34);
        assert_eq!(transpose(&rows(&[3, 1])), rows(&[2, 1, 1]));
        let mut seed = 7;
        for _ in 0..100 {
            let p = random_inside(&mut seed, 4, 6);
            assert!(p[0] > 0 && p[0] <= 6 && p[4] == 0);
            assert!(p.windows(2).all(|w| w[0] >= w[1]));
        }
    }
}
