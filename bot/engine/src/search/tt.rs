//! The transposition table: a fixed array of two-entry buckets keyed by a 64-bit position hash.
//! Slot 0 keeps the deeper search, slot 1 always takes the newest.

use super::score::{from_table, to_table};

/// What a stored score means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is the node's value.
    Exact,
    /// The value is at least the score.
    Lower,
    /// The value is at most the score.
    Upper,
}

/// One stored search result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Full hash of the position.
    pub key: u64,
    /// Score relative to the node (proven results count plies from the node).
    pub score: i16,
    /// Best move's bit index, or [`NO_MOVE`].
    pub mv: u8,
    /// Remaining depth searched; [`PROVEN`] when the subtree was searched to its end.
    pub depth: u8,
    /// How to read the score.
    pub bound: Bound,
}

/// `Entry::mv` when there is no move.
pub const NO_MOVE: u8 = 255;
/// `Entry::depth` of a result searched to the end of the game (exact, no horizon).
pub const PROVEN: u8 = 255;

/// A table with a power-of-two number of entries, each packed in a `u128` so that a new
/// table is zeroed memory the system hands over lazily (no time spent filling it).
#[derive(Clone, Debug)]
pub struct Table {
    entries: Vec<u128>,
    mask: usize,
}

#[inline]
fn pack(e: Entry) -> u128 {
    let bound = match e.bound {
        Bound::Exact => 0u128,
        Bound::Lower => 1,
        Bound::Upper => 2,
    };
    u128::from(e.key)
        | u128::from(e.score as u16) << 64
        | u128::from(e.mv) << 80
        | u128::from(e.depth) << 88
        | bound << 96
}

#[inline]
fn unpack(x: u128) -> Entry {
    Entry {
        key: x as u64,
        score: (x >> 64) as u16 as i16,
        mv: (x >> 80) as u8,
        depth: (x >> 88) as u8,
        bound: match (x >> 96) as u8 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        },
    }
}

impl Table {
    /// A table of about `megabytes` MiB (at least 1024 entries).
    pub fn with_megabytes(megabytes: usize) -> Table {
        let want = ((megabytes << 20) / std::mem::size_of::<u128>()).max(1024);
        let len = if want.is_power_of_two() {
            want
        } else {
            want.next_power_of_two() / 2
        };
        Table {
            entries: vec![0; len],
            mask: len - 1,
        }
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries.fill(0);
    }

    /// The entry stored for `key`, if any (depth 0 marks an empty slot).
    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<Entry> {
        let i = (key as usize) & self.mask & !1;
        let (a, b) = (unpack(self.entries[i]), unpack(self.entries[i + 1]));
        if a.key == key && a.depth > 0 {
            Some(a)
        } else if b.key == key && b.depth > 0 {
            Some(b)
        } else {
            None
        }
    }

    /// The stored move for `key` ([`NO_MOVE`] if none) and, when its entry (searched at least
    /// `depth` deep, or proven) settles the node within the window `(alpha, beta)`, the node's
    /// score `ply` plies from the root and whether it is proven.
    #[inline]
    pub(super) fn lookup(
        &self,
        key: u64,
        depth: u32,
        ply: u32,
        (alpha, beta): (i32, i32),
    ) -> (u8, Option<(i32, bool)>) {
        let Some(e) = self.probe(key) else {
            return (NO_MOVE, None);
        };
        let proven = e.depth == PROVEN;
        if proven || u32::from(e.depth) >= depth {
            let s = from_table(e.score, ply);
            let settles = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if settles {
                return (e.mv, Some((s, proven)));
            }
        }
        (e.mv, None)
    }

    /// Stores the result of a node `ply` plies from the root, searched `depth` deep with the
    /// window `(alpha, beta)`: its `score`, best move `mv` and whether the score is proven.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn record(
        &mut self,
        key: u64,
        depth: u32,
        ply: u32,
        (alpha, beta): (i32, i32),
        score: i32,
        mv: u8,
        proven: bool,
    ) {
        let bound = if score <= alpha {
            Bound::Upper
        } else if score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let depth = if proven { PROVEN } else { depth.min(254) as u8 };
        self.store(key, depth, bound, to_table(score, ply), mv);
    }

    /// Stores a result; `depth` must be at least 1 (depth 0 marks an empty slot).
    #[inline]
    pub(crate) fn store(&mut self, key: u64, depth: u8, bound: Bound, score: i16, mv: u8) {
        let i = (key as usize) & self.mask & !1;
        let e = pack(Entry {
            key,
            score,
            mv,
            depth,
            bound,
        });
        let first = unpack(self.entries[i]);
        if first.key == key || depth >= first.depth {
            self.entries[i] = e;
        } else {
            self.entries[i + 1] = e;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds_both_slots() {
        let mut t = Table::with_megabytes(1);
        assert!(t.len().is_power_of_two());
        let stride = t.len() as u64;
        t.store(5, 9, Bound::Exact, 7, 3);
        t.store(5 + stride, 2, Bound::Lower, -4, 1);
        assert_eq!(t.probe(5).map(|e| (e.score, e.depth)), Some((7, 9)));
        assert_eq!(
            t.probe(5 + stride).map(|e| (e.score, e.bound)),
            Some((-4, Bound::Lower))
        );
        assert_eq!(t.probe(6), None);
        t.store(9, PROVEN, Bound::Upper, -29_990, NO_MOVE);
        let e = t.probe(9).unwrap();
        assert_eq!(
            (e.score, e.mv, e.depth, e.bound),
            (-29_990, NO_MOVE, PROVEN, Bound::Upper)
        );
        t.clear();
        assert_eq!(t.probe(5), None);
    }
}
