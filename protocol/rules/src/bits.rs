//! `Bits`: a 256-bit set of board cells, the bitboard every rule is computed on.
//!
//! Layout: cell (row, col) is bit `row * 16 + col`. Each row owns a 16-bit lane, so four rows fit
//! in one `u64` and fifteen rows in four. Column 15 of every lane is never part of a board (boards
//! are at most 15 columns wide); this always-empty padding column is what stops horizontal shifts
//! from leaking one row into the next.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

/// Width of one row's lane in bits.
pub(crate) const STRIDE: u32 = 16;

/// `FROM_ROW[r]`: every bit of rows `r` to 14 (all 16 columns of each lane; row 15 is never on
/// a board).
const FROM_ROW: [Bits; 16] = {
    let mut t = [Bits::EMPTY; 16];
    let mut r = 0;
    while r < 16 {
        let start = r as u32 * STRIDE;
        let mut k = 0;
        while k < 4 {
            let low = k as u32 * 64;
            t[r].0[k] = if start <= low {
                u64::MAX
            } else if start >= low + 64 {
                0
            } else {
                u64::MAX << (start - low)
            };
            k += 1;
        }
        t[r].0[3] &= (1 << (15 * STRIDE - 192)) - 1;
        r += 1;
    }
    t
};

/// `FROM_COL[c]`: columns `c` to 14 of each of the four lanes of a word (never column 15).
const FROM_COL: [u64; 16] = {
    let mut t = [0u64; 16];
    let mut c = 0;
    while c < 16 {
        let lane = (0x7fff_u64 >> c) << c;
        t[c] = lane * 0x0001_0001_0001_0001;
        c += 1;
    }
    t
};

/// A set of cells on a board of at most 15 × 15, as a 256-bit bitboard.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bits(pub(crate) [u64; 4]);

impl Bits {
    /// The empty set.
    pub const EMPTY: Bits = Bits([0; 4]);

    /// The bit index of cell (row, col). Both must be below 16.
    #[inline]
    pub const fn index(row: u8, col: u8) -> u32 {
        row as u32 * STRIDE + col as u32
    }

    /// The set holding the single cell with this bit index (below 256).
    #[inline]
    pub const fn single(index: u32) -> Bits {
        // Built word by word rather than through an indexed array, which would go through
        // memory on the hot path.
        let bit = 1 << (index % 64);
        Bits(match index / 64 {
            0 => [bit, 0, 0, 0],
            1 => [0, bit, 0, 0],
            2 => [0, 0, bit, 0],
            _ => [0, 0, 0, bit],
        })
    }

    /// The rectangle of `height` rows and `width` columns whose top-left cell is (row, col).
    ///
    /// Cells past row 14 or column 14 are dropped (no board has them): callers check ranges.
    #[inline]
    pub fn rect(row: u8, col: u8, height: u8, width: u8) -> Bits {
        let lane = (((1u32 << width) - 1) << col) as u64 & 0x7fff;
        let mut words = [0u64; 4];
        let mut r = row as usize;
        let end = (row as usize + height as usize).min(15);
        while r < end {
            words[r / 4] |= lane << ((r % 4) as u32 * STRIDE);
            r += 1;
        }
        Bits(words)
    }

    /// A pattern of up to eight stacked lanes (bit `16 * i + j` for row `i`, col `j` of the
    /// pattern) placed so that its bit 0 lands on bit index `at`; a negative `at` drops the
    /// pattern's cells that would fall below bit 0. Bits pushed past bit 255 are dropped.
    /// One shift across at most three words: no loop on the hot path of every move.
    #[inline]
    pub fn placed(pattern: u128, at: i32) -> Bits {
        let (pattern, at) = if at < 0 {
            (pattern.checked_shr(at.unsigned_abs()).unwrap_or(0), 0)
        } else {
            (pattern, at as u32)
        };
        let k = (at / 64) as usize;
        let s = at % 64;
        let low = pattern << s;
        let high = if s == 0 {
            0
        } else {
            (pattern >> (128 - s)) as u64
        };
        // Built word by word rather than through an indexed array: the array would go through
        // memory and stall the loads after it (twice as slow, measured).
        let (a, b) = (low as u64, (low >> 64) as u64);
        Bits(match k {
            0 => [a, b, high, 0],
            1 => [0, a, b, high],
            2 => [0, 0, a, b],
            _ => [0, 0, 0, a],
        })
    }

    /// The pattern for [`Bits::placed`] of a `height` × `width` rectangle (height up to 8).
    pub const fn rect_pattern(height: u8, width: u8) -> u128 {
        let lane = ((1u128 << width) - 1) & 0x7fff;
        let mut pattern = 0;
        let mut i = 0;
        while i < height as u32 && i < 8 {
            pattern |= lane << (i * STRIDE);
            i += 1;
        }
        pattern
    }

    /// Every cell at or below `row` and at or right of `col` on a 15 × 15 board: what a classic
    /// Chomp selection at (row, col) eats, before clipping to the board. Two table lookups
    /// and four ANDs; both must be below 16.
    #[inline]
    pub const fn below_right(row: u8, col: u8) -> Bits {
        let rows = FROM_ROW[row as usize & 15].0;
        let cols = FROM_COL[col as usize & 15];
        Bits([
            rows[0] & cols,
            rows[1] & cols,
            rows[2] & cols,
            rows[3] & cols,
        ])
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }

    /// Whether the set holds the cell with this bit index.
    #[inline]
    pub const fn contains(self, index: u32) -> bool {
        self.0[(index / 64) as usize] >> (index % 64) & 1 == 1
    }

    /// Whether the two sets share a cell.
    #[inline]
    pub const fn intersects(self, other: Bits) -> bool {
        ((self.0[0] & other.0[0])
            | (self.0[1] & other.0[1])
            | (self.0[2] & other.0[2])
            | (self.0[3] & other.0[3]))
            != 0
    }

    /// The number of cells in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0[0].count_ones()
            + self.0[1].count_ones()
            + self.0[2].count_ones()
            + self.0[3].count_ones()
    }

    /// The cells of `self` that are not in `other`.
    #[inline]
    pub const fn without(self, other: Bits) -> Bits {
        Bits([
            self.0[0] & !other.0[0],
            self.0[1] & !other.0[1],
            self.0[2] & !other.0[2],
            self.0[3] & !other.0[3],
        ])
    }

    /// Moves every bit `n` places towards bit 0 (`n` below 64): bit `i + n` lands on bit `i`.
    #[inline]
    pub const fn shr(self, n: u32) -> Bits {
        if n == 0 {
            return self;
        }
        let w = self.0;
        Bits([
            (w[0] >> n) | (w[1] << (64 - n)),
            (w[1] >> n) | (w[2] << (64 - n)),
            (w[2] >> n) | (w[3] << (64 - n)),
            w[3] >> n,
        ])
    }

    /// Moves every bit `n` places away from bit 0 (`n` below 64): bit `i` lands on bit `i + n`.
    #[inline]
    pub const fn shl(self, n: u32) -> Bits {
        if n == 0 {
            return self;
        }
        let w = self.0;
        Bits([
            w[0] << n,
            (w[1] << n) | (w[0] >> (64 - n)),
            (w[2] << n) | (w[1] >> (64 - n)),
            (w[3] << n) | (w[2] >> (64 - n)),
        ])
    }

    /// The lowest bit index in the set, if any.
    #[inline]
    pub const fn first(self) -> Option<u32> {
        let mut i = 0;
        while i < 4 {
            if self.0[i] != 0 {
                return Some(i as u32 * 64 + self.0[i].trailing_zeros());
            }
            i += 1;
        }
        None
    }

    /// The bit indices in the set, lowest first.
    #[inline]
    pub fn iter(self) -> BitsIter {
        BitsIter {
            words: self.0,
            word: 0,
        }
    }

    /// The four 64-bit words of the set, lowest bits first (for hashing and tables).
    #[inline]
    pub const fn words(self) -> [u64; 4] {
        self.0
    }
}

impl std::fmt::Debug for Bits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|i| (i / STRIDE, i % STRIDE)))
            .finish()
    }
}

impl BitAnd for Bits {
    type Output = Bits;
    #[inline]
    fn bitand(self, o: Bits) -> Bits {
        Bits([
            self.0[0] & o.0[0],
            self.0[1] & o.0[1],
            self.0[2] & o.0[2],
            self.0[3] & o.0[3],
        ])
    }
}

impl BitAndAssign for Bits {
    #[inline]
    fn bitand_assign(&mut self, o: Bits) {
        *self = *self & o;
    }
}

impl BitOr for Bits {
    type Output = Bits;
    #[inline]
    fn bitor(self, o: Bits) -> Bits {
        Bits([
            self.0[0] | o.0[0],
            self.0[1] | o.0[1],
            self.0[2] | o.0[2],
            self.0[3] | o.0[3],
        ])
    }
}

impl BitOrAssign for Bits {
    #[inline]
    fn bitor_assign(&mut self, o: Bits) {
        *self = *self | o;
    }
}

impl Not for Bits {
    type Output = Bits;
    #[inline]
    fn not(self) -> Bits {
        Bits([!self.0[0], !self.0[1], !self.0[2], !self.0[3]])
    }
}

/// Iterator over the bit indices of a [`Bits`], lowest first.
#[derive(Clone, Debug)]
pub struct BitsIter {
    words: [u64; 4],
    word: usize,
}

impl Iterator for BitsIter {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.word < 4 {
            let w = self.words[self.word];
            if w != 0 {
                self.words[self.word] = w & (w - 1);
                return Some(self.word as u32 * 64 + w.trailing_zeros());
            }
            self.word += 1;
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.words[self.word..]
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum::<usize>();
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitsIter {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_cross_word_boundaries() {
        let b = Bits::single(63);
        assert_eq!(b.shl(1), Bits::single(64));
        assert_eq!(b.shl(1).shr(1), b);
        assert_eq!(Bits::single(200).shr(40), Bits::single(160));
        assert_eq!(Bits::single(3).shr(4), Bits::EMPTY);
        assert_eq!(Bits::single(255).shl(1), Bits::EMPTY);
    }

    #[test]
    fn rect_covers_exactly_its_cells() {
        let r = Bits::rect(3, 13, 3, 2);
        let cells: Vec<u32> = r.iter().collect();
        assert_eq!(
            cells,
            vec![
                Bits::index(3, 13),
                Bits::index(3, 14),
                Bits::index(4, 13),
                Bits::index(4, 14),
                Bits::index(5, 13),
                Bits::index(5, 14)
            ]
        );
        assert_eq!(Bits::rect(14, 14, 3, 3).count(), 1);
        // A placed pattern equals the rectangle built lane by lane, wherever it lands.
        for row in 0..15u8 {
            for col in 0..15u8 {
                for (h, w) in [(1, 1), (2, 3), (3, 3), (5, 5), (3, 1), (1, 3)] {
                    let at = Bits::index(row, col) as i32;
                    let expected = Bits::rect(row, col, h, w.min(15 - col));
                    let got = Bits::placed(Bits::rect_pattern(h, w), at);
                    // Columns past 14 would wrap into the next row; callers never place there.
                    if col + w <= 15 && row + h <= 15 {
                        assert_eq!(got, expected, "({row},{col}) {h}x{w}");
                    }
                }
            }
        }
        // Negative positions drop what falls below bit 0; cells left of column 0 wrap onto
        // the right end of the row above.
        assert_eq!(
            Bits::placed(Bits::rect_pattern(3, 3), -16),
            Bits::rect(0, 0, 2, 3)
        );
        assert_eq!(
            Bits::placed(Bits::rect_pattern(3, 3), -17),
            Bits::rect(0, 0, 2, 2) | Bits::single(Bits::index(0, 15))
        );
    }

    #[test]
    fn below_right_is_the_rectangle_to_the_far_corner() {
        for row in 0..15u8 {
            for col in 0..15u8 {
                let expected = Bits::rect(row, col, 15 - row, 15 - col);
                assert_eq!(Bits::below_right(row, col), expected, "({row},{col})");
            }
        }
        assert_eq!(Bits::below_right(15, 0), Bits::EMPTY);
        assert_eq!(Bits::below_right(0, 15), Bits::EMPTY);
    }

    #[test]
    fn iter_and_count_agree() {
        let b = Bits::single(0) | Bits::single(64) | Bits::single(130) | Bits::single(255);
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![0, 64, 130, 255]);
        assert_eq!(b.iter().len(), 4);
        assert_eq!(b.count(), 4);
        assert_eq!(b.first(), Some(0));
        assert!(b.contains(130) && !b.contains(131));
    }
}
