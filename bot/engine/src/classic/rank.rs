//! Ranking the classic positions inside an R×C box: a bijection between the down-sets of the
//! box and `0 .. C(R+C, R)`.
//!
//! Row `i` of length `a_i` maps to the number `s_i = a_i + (R-1-i)`; the `s_i` are distinct
//! numbers below `R+C`, and the rank is their colex rank, `Σ C(s_i, R-i)`. Growing a row never
//! lowers the rank, so a position's rank is larger than the rank of every position it can move
//! to: processing ranks in order visits every child before its parents.

use super::shape::{MAX_SIDE, Shape};

/// Binomial coefficients `C(n, k)` for `n, k ≤ 2 * MAX_SIDE`.
const fn binomials() -> [[u64; 2 * MAX_SIDE + 1]; 2 * MAX_SIDE + 1] {
    let mut t = [[0u64; 2 * MAX_SIDE + 1]; 2 * MAX_SIDE + 1];
    let mut n = 0;
    while n <= 2 * MAX_SIDE {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
}

/// `BINOMIAL[n][k]` = C(n, k).
const BINOMIAL: [[u64; 2 * MAX_SIDE + 1]; 2 * MAX_SIDE + 1] = binomials();

/// The box whose positions are ranked: `rows` × `cols`, each 1–[`MAX_SIDE`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranker {
    rows: usize,
    cols: usize,
    /// `weight[i][v]`: what row `i` of length `v` adds to the rank.
    weight: [[u64; MAX_SIDE + 1]; MAX_SIDE],
}

impl Ranker {
    /// The ranker of the `rows` × `cols` box; `None` outside 1–15.
    pub fn new(rows: usize, cols: usize) -> Option<Ranker> {
        if !(1..=MAX_SIDE).contains(&rows) || !(1..=MAX_SIDE).contains(&cols) {
            return None;
        }
        let mut weight = [[0u64; MAX_SIDE + 1]; MAX_SIDE];
        for (i, w) in weight.iter_mut().enumerate().take(rows) {
            for (v, slot) in w.iter_mut().enumerate().take(cols + 1) {
                *slot = BINOMIAL[v + rows - 1 - i][rows - i];
            }
        }
        Some(Ranker { rows, cols, weight })
    }

    /// Rows of the box.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns of the box.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The number of positions in the box, the empty one included: C(rows + cols, rows).
    pub fn count(&self) -> u64 {
        BINOMIAL[self.rows + self.cols][self.rows]
    }

    /// What row `i` of length `len` adds to a rank.
    #[inline]
    pub(crate) fn weight(&self, i: usize, len: usize) -> u64 {
        self.weight[i][len]
    }

    /// Whether the shape fits in the box.
    pub(crate) fn fits(&self, shape: &Shape) -> bool {
        shape.height() <= self.rows && shape.width() <= self.cols
    }

    /// The rank of a shape that fits in the box.
    pub fn rank(&self, shape: &Shape) -> u64 {
        shape
            .rows()
            .iter()
            .enumerate()
            .map(|(i, &len)| self.weight[i][len as usize])
            .sum()
    }

    /// The shape of a rank below [`Ranker::count`].
    pub fn unrank(&self, mut rank: u64) -> Shape {
        let mut lengths = [0u8; MAX_SIDE];
        for (i, len) in lengths.iter_mut().enumerate().take(self.rows) {
            // The longest length whose weight still fits: weights grow with the length.
            let mut v = self.cols;
            while v > 0 && self.weight[i][v] > rank {
                v -= 1;
            }
            *len = v as u8;
            rank -= self.weight[i][v];
        }
        Shape::from_rows(&lengths[..self.rows]).unwrap_or(Shape::EMPTY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_a_bijection_that_respects_inclusion() {
        for (r, c) in [(1, 1), (2, 3), (4, 4), (5, 3), (3, 6)] {
            let ranker = Ranker::new(r, c).unwrap();
            let mut seen = vec![false; ranker.count() as usize];
            for rank in 0..ranker.count() {
                let shape = ranker.unrank(rank);
                assert!(ranker.fits(&shape));
                assert_eq!(ranker.rank(&shape), rank, "{shape}");
                seen[rank as usize] = true;
                // Every move leads to a smaller rank.
                for row in 0..shape.height() {
                    for col in 0..shape.row(row) as usize {
                        let child = shape.select(row, col).unwrap();
                        assert!(ranker.rank(&child) < rank);
                    }
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
        assert_eq!(Ranker::new(15, 15).unwrap().count(), 155_117_520);
        assert_eq!(Ranker::new(0, 4), None);
        assert_eq!(Ranker::new(4, 16), None);
    }
}
