//! Position keys: the playable cells (the only cells that still matter) and a cheap 64-bit hash
//! of them.
//!
//! An uneaten cell that no valid selection covers can never be eaten, so it cannot change the
//! rest of the game. Hashing only the cells covered by some valid selection makes positions that
//! differ in such dead cells share one table entry. In classic Chomp every uneaten cell is a
//! selection, so the key cells are the uneaten cells themselves.

pub(crate) use crate::rng::mix;
use jchomp_rules::{Bits, Config, Seat};

/// The cells covered by at least one selection anchored in `anchors`.
///
/// In classic Chomp a selection eats every uneaten cell below and right of it, all of them
/// selections too: the cells eaten by a set of uneaten cells closed downwards and rightwards
/// (the valid selections, the safe ones, a region) are the set itself, which is what this
/// returns there.
#[inline]
pub fn cover(config: &Config, anchors: Bits) -> Bits {
    spread(config, anchors, Bits::shl)
}

/// `bits` spread over the block a selection needs ([`Config::fit`]: the eat size in JChomp, one
/// cell in classic Chomp): each bit and the bits `step` moves it to by up to block-width − 1
/// columns and block-height − 1 rows (`Bits::shl` spreads down and right, from anchors to the
/// cells they eat; `Bits::shr` up and left, from cells to the anchors that eat them).
#[inline]
pub fn spread(config: &Config, bits: Bits, step: impl Fn(Bits, u32) -> Bits) -> Bits {
    let (er, ec) = config.fit();
    let mut row = bits;
    for j in 1..ec as u32 {
        row |= step(bits, j);
    }
    let mut out = row;
    for i in 1..er as u32 {
        out |= step(row, 16 * i);
    }
    out
}

/// A 64-bit hash of a set of cells: the four words chained through [`mix`].
#[inline]
pub fn hash(bits: Bits) -> u64 {
    hash_words(bits.words())
}

/// [`hash`] of a set of cells given by its words.
#[inline]
fn hash_words(w: [u64; 4]) -> u64 {
    let mut h = 0x2545_f491_4f6c_dd1d_u64;
    for x in w {
        h = mix(h ^ x);
    }
    h
}

/// One hash for a shape of cells wherever it lies and however it is mirrored: the [`hash`] of
/// the least of its images (compared as words of row lanes) moved to the top-left corner,
/// flipped left–right, up–down or both, and with `transpose` also mirrored in the diagonal.
/// Shapes with one key are the same game when the selections are rectangles that these mirrors
/// map onto one another (any eat size for the flips, square eats for the diagonal).
pub fn shape_hash(cells: Bits, transpose: bool) -> u64 {
    // The rows of the shape as 16-bit lanes, moved up to row 0 and left to column 0.
    let words = cells.words();
    let mut rows = [0u16; 16];
    let mut top = 16;
    let mut bottom = 0;
    let mut lanes = 0u16;
    for (r, row) in rows.iter_mut().enumerate() {
        *row = (words[r / 4] >> (16 * (r % 4))) as u16;
        if *row != 0 {
            top = top.min(r);
            bottom = r;
            lanes |= *row;
        }
    }
    if top == 16 {
        return hash(cells);
    }
    let left = lanes.trailing_zeros();
    let width = 15 - lanes.leading_zeros() - left;
    let height = bottom - top;
    let mut moved = [0u16; 16];
    for (m, &x) in moved.iter_mut().zip(&rows[top..=bottom]) {
        *m = x >> left;
    }
    let rows = moved;
    let pack = |row: &dyn Fn(usize) -> u16, n: usize| {
        let mut w = [0u64; 4];
        for r in 0..n {
            w[r / 4] |= u64::from(row(r)) << (16 * (r % 4));
        }
        w
    };
    // Left–right: each lane's bits reversed within the width.
    let flip = |x: u16| x.reverse_bits() >> (15 - width);
    let n = height + 1;
    let mut best = pack(&|r| rows[r], n)
        .min(pack(&|r| flip(rows[r]), n))
        .min(pack(&|r| rows[height - r], n))
        .min(pack(&|r| flip(rows[height - r]), n));
    if transpose {
        // The diagonal mirror: column c becomes row c.
        let mut cols = [0u16; 16];
        for (r, &row) in rows.iter().enumerate() {
            let mut bits = row;
            while bits != 0 {
                let c = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                cols[c] |= 1 << r;
            }
        }
        let (h, w) = (width as usize, height as u32);
        let flip = |x: u16| x.reverse_bits() >> (15 - w);
        best = best
            .min(pack(&|r| cols[r], h + 1))
            .min(pack(&|r| flip(cols[r]), h + 1))
            .min(pack(&|r| cols[h - r], h + 1))
            .min(pack(&|r| flip(cols[h - r]), h + 1));
    }
    hash_words(best)
}

/// A value mixed into every key so that tables shared between configurations never confuse
/// them (the board itself is implied by the cells, the rest is not).
pub fn config_salt(config: &Config) -> u64 {
    let (er, ec) = config.fit();
    let classic = u64::from(!config.variant().is_jchomp());
    let shape =
        u64::from(er) | u64::from(ec) << 8 | u64::from(config.players()) << 16 | classic << 24;
    hash(config.poison_mask()) ^ shape.wrapping_mul(0xe703_7ed1_a0b4_28db)
}

/// A value mixed into a key to tell apart the same cells with a different seat (to move or
/// searching).
#[inline]
pub fn seat_salt(seat: Seat, kind: u64) -> u64 {
    (u64::from(seat) + 1 + 8 * kind).wrapping_mul(0xa076_1d64_78bd_642f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_rules::Position;
    use jchomp_testkit::board;

    #[test]
    fn cover_is_the_union_of_the_rectangles() {
        let c = board("5x5 eat 2x3 poison 0,0");
        let p = Position::start(&c);
        assert_eq!(cover(&c, p.selections()), c.board());
        let one = Bits::single(Bits::index(1, 1));
        assert_eq!(cover(&c, one), Bits::rect(1, 1, 2, 3));
    }

    #[test]
    fn classic_keys_are_the_uneaten_cells() {
        let c = board("5x5 variant classic poison 0,0");
        let mut p = Position::start(&c);
        p.play(&c, jchomp_rules::Cell::new(2, 3));
        assert_eq!(cover(&c, p.selections()), p.uneaten());
        assert_eq!(cover(&c, p.safe_selections(&c)), p.safe_selections(&c));
        let jchomp = board("5x5 poison 0,0");
        assert_ne!(config_salt(&c), config_salt(&jchomp));
    }

    #[test]
    fn shape_hashes_are_the_same_for_mirror_images_only() {
        // An L of cells with arms of three and two, and its images.
        let l = Bits::rect(2, 3, 3, 1) | Bits::single(Bits::index(4, 4));
        let flipped = Bits::rect(7, 9, 3, 1) | Bits::single(Bits::index(9, 8));
        let upside = Bits::rect(0, 0, 3, 1) | Bits::single(Bits::index(0, 1));
        let turned = Bits::rect(5, 5, 1, 3) | Bits::single(Bits::index(6, 5));
        assert_eq!(shape_hash(l, false), shape_hash(flipped, false));
        assert_eq!(shape_hash(l, false), shape_hash(upside, false));
        assert_eq!(shape_hash(l, true), shape_hash(turned, true));
        assert_ne!(shape_hash(l, false), shape_hash(turned, false));
        // A diagonal mirror is not an image without `transpose`; another shape never is.
        let tall = Bits::rect(0, 0, 3, 1);
        let wide = Bits::rect(0, 0, 1, 3);
        assert_ne!(shape_hash(tall, false), shape_hash(wide, false));
        assert_eq!(shape_hash(tall, true), shape_hash(wide, true));
        assert_ne!(shape_hash(l, true), shape_hash(l | Bits::single(0), true));
    }

    #[test]
    fn hash_separates_single_cells_and_words() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..240 {
            assert!(seen.insert(hash(Bits::single(i))));
            for j in 0..i {
                assert!(seen.insert(hash(Bits::single(i) | Bits::single(j))));
            }
        }
        assert!(seen.insert(hash(Bits::EMPTY)));
        assert_ne!(seat_salt(0, 0), seat_salt(1, 0));
        assert_ne!(seat_salt(0, 1), seat_salt(0, 0));
    }
}
