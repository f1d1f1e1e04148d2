//! Independent regions and the region solver for two players.
//!
//! A *region* is a set of valid selections whose rectangles are connected through shared cells;
//! no rectangle spans two regions, so a move in one never changes another. A region without
//! poison is an impartial game under normal play (whoever cannot move there simply moves
//! elsewhere), so by the Sprague–Grundy theorem it is worth a Nim heap of its Grundy value.
//! Replacing every poison-free region by one heap (the XOR of their values) keeps the win / tie /
//! loss value of the whole position; the proof is in `docs/BOTS.md`. What is left to search is
//! the regions holding poison plus one heap, which is far smaller than the board. Distances in
//! plies are not kept by this reduction, so it answers win, tie or loss only.
//!
//! In classic Chomp a position is a single region (every selection's cells overlap those of the
//! top-left cell, uneaten while anything is), so the solver is a memoised exact search there.

use super::key::{config_salt, cover, hash, spread};
use super::limits::Limits;
use super::score::Outcome;
use jchomp_rules::{Bits, Config, Position};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast hasher for board keys (the default one is built to resist attacks, which a private
/// memory does not need).
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = super::key::mix(self.0 ^ x);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<MixHasher>>;

/// The anchors whose rectangle touches a cell of `cells` (before masking with valid anchors).
#[inline]
fn touching(config: &Config, cells: Bits) -> Bits {
    spread(config, cells, Bits::shr)
}

/// Splits a set of valid anchors into regions, calling `f` with each region's anchors. In
/// classic Chomp the whole set is one region.
#[inline]
pub fn split(config: &Config, mut anchors: Bits, mut f: impl FnMut(Bits)) {
    if !config.variant().is_jchomp() {
        // A classic selection eats everything below and right of it; the top-left uneaten cell
        // (0, 0) eats every other, so all selections overlap it.
        if !anchors.is_empty() {
            f(anchors);
        }
        return;
    }
    while let Some(first) = anchors.first() {
        let mut region = Bits::single(first);
        loop {
            let grown = touching(config, cover(config, region)) & anchors;
            if grown == region {
                break;
            }
            region = grown;
        }
        anchors = anchors.without(region);
        f(region);
    }
}

/// Moves a set of cells to the top-left corner (same shape, so the same game).
fn normalize(cells: Bits) -> Bits {
    let Some(first) = cells.first() else {
        return cells;
    };
    // `Bits::shr` takes fewer than 64 places; whole rows go up in steps.
    let mut cells = cells;
    let mut rows = first / 16;
    while rows > 0 {
        let step = rows.min(3);
        cells = cells.shr(16 * step);
        rows -= step;
    }
    let lanes = cells
        .words()
        .iter()
        .fold(0u64, |acc, w| acc | w | w >> 16 | w >> 32 | w >> 48)
        & 0xffff;
    cells.shr(lanes.trailing_zeros())
}

/// The position's cells split into the regions holding poison (`poisoned`, as cells) and the
/// Grundy value of all the others together (`heap`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reduced {
    /// Cells of the regions whose selections can reach poison.
    pub poisoned: Bits,
    /// XOR of the Grundy values of the poison-free regions.
    pub heap: u8,
}

/// Grundy values of poison-free regions and win / tie / loss values of reduced positions,
/// with their memories. One solver serves one eat size and poison set at a time.
#[derive(Debug)]
pub struct RegionSolver {
    grundy: FastMap<Bits, u8>,
    /// Keys of the value table (zeroed memory on creation, so creating one costs nothing).
    keys: Vec<u64>,
    values: Vec<i8>,
    mask: usize,
    salt: u64,
    dirty: bool,
    /// Most Grundy values remembered before that memory is emptied.
    grundy_cap: usize,
}

impl RegionSolver {
    /// A solver whose value table holds `1 << bits` entries and which remembers at most as many
    /// Grundy values.
    pub fn new(bits: u32) -> RegionSolver {
        RegionSolver {
            grundy: FastMap::default(),
            keys: vec![0; 1 << bits],
            values: vec![0; 1 << bits],
            mask: (1 << bits) - 1,
            salt: 0,
            dirty: false,
            grundy_cap: 1 << bits,
        }
    }

    fn prepare(&mut self, config: &Config) {
        let salt = config_salt(config);
        if salt != self.salt {
            self.salt = salt;
            self.grundy.clear();
            if self.dirty {
                self.keys.fill(0);
                self.dirty = false;
            }
        }
    }

    /// The Grundy value of a poison-free region given by its anchors; `None` if stopped.
    fn grundy(&mut self, config: &Config, region: Bits, limits: &mut Limits) -> Option<u8> {
        let cells = cover(config, region);
        let key = normalize(cells);
        if let Some(&g) = self.grundy.get(&key) {
            return Some(g);
        }
        if limits.tick() {
            return None;
        }
        let mut seen: [u64; 4] = [0; 4];
        for a in region.iter() {
            // Read the stop flag and the clock often: one region can take many moves.
            if limits.poll() {
                return None;
            }
            let rest = cells.without(config.rect(jchomp_rules::Cell::from_index(a)));
            let mut g = 0u8;
            let mut stopped = false;
            split(config, config.selections_in(rest), |r| {
                if !stopped {
                    match self.grundy(config, r, limits) {
                        Some(x) => g ^= x,
                        None => stopped = true,
                    }
                }
            });
            if stopped {
                return None;
            }
            seen[g as usize / 64] |= 1 << (g % 64);
        }
        let mut mex = 0u8;
        while seen[mex as usize / 64] >> (mex % 64) & 1 == 1 {
            mex += 1;
        }
        if self.grundy.len() >= self.grundy_cap {
            self.grundy.clear();
        }
        self.grundy.insert(key, mex);
        Some(mex)
    }

    /// Splits a set of valid anchors into the poisoned cells and one heap.
    fn reduce(
        &mut self,
        config: &Config,
        valid: Bits,
        mut heap: u8,
        limits: &mut Limits,
    ) -> Option<Reduced> {
        let zone = config.poison_zone();
        let mut poisoned = Bits::EMPTY;
        let mut stopped = false;
        split(config, valid, |r| {
            if stopped {
            } else if r.intersects(zone) {
                poisoned |= cover(config, r);
            } else {
                match self.grundy(config, r, limits) {
                    Some(g) => heap ^= g,
                    None => stopped = true,
                }
            }
        });
        (!stopped).then_some(Reduced { poisoned, heap })
    }

    /// The reduced form of a position; `None` if stopped.
    pub fn reduce_position(
        &mut self,
        config: &Config,
        position: &Position,
        limits: &mut Limits,
    ) -> Option<Reduced> {
        self.prepare(config);
        self.reduce(config, position.selections(), 0, limits)
    }

    /// The win / tie / loss value of a position for the seat to move (two players); `None` if
    /// stopped first.
    pub fn solve(
        &mut self,
        config: &Config,
        position: &Position,
        limits: &mut Limits,
    ) -> Option<Outcome> {
        position.to_move()?;
        let r = self.reduce_position(config, position, limits)?;
        self.value(config, r, limits).map(to_outcome)
    }

    /// The value of each safe selection for the seat making it, in board order; `None` if
    /// stopped first.
    pub fn solve_moves(
        &mut self,
        config: &Config,
        position: &Position,
        limits: &mut Limits,
    ) -> Option<Vec<(u32, Outcome)>> {
        position.to_move()?;
        self.prepare(config);
        let mut out = Vec::new();
        for a in position.safe_selections(config).iter() {
            if limits.poll() {
                return None;
            }
            let mut child = *position;
            child.play(config, jchomp_rules::Cell::from_index(a));
            let v = if child.to_move().is_none() {
                0
            } else {
                let r = self.reduce(config, child.selections(), 0, limits)?;
                -self.value(config, r, limits)?
            };
            out.push((a, to_outcome(v)));
        }
        Some(out)
    }

    /// +1 win, 0 tie, −1 loss for the seat to move in a reduced position.
    fn value(&mut self, config: &Config, r: Reduced, limits: &mut Limits) -> Option<i8> {
        let zone = config.poison_zone();
        let valid = config.selections_in(r.poisoned);
        if !valid.intersects(zone) {
            return Some(0);
        }
        let safe = valid.without(zone);
        if safe.is_empty() && r.heap == 0 {
            return Some(-1);
        }
        let key = hash(r.poisoned)
            ^ self.salt
            ^ (u64::from(r.heap) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = key as usize & self.mask;
        if self.keys[slot] == key {
            return Some(self.values[slot]);
        }
        if limits.tick() {
            return None;
        }
        let mut best = -1i8;
        // Nim moves first: cheap, and often enough.
        for h in 0..r.heap {
            let v = -self.value(config, Reduced { heap: h, ..r }, limits)?;
            best = best.max(v);
            if best == 1 {
                break;
            }
        }
        if best < 1 {
            for a in safe.iter() {
                if limits.poll() {
                    return None;
                }
                let rest = r
                    .poisoned
                    .without(config.rect(jchomp_rules::Cell::from_index(a)));
                let child = self.reduce(config, config.selections_in(rest), r.heap, limits)?;
                let v = if child.poisoned.is_empty() && child.heap == 0 {
                    // Nothing left anywhere that can reach poison: a tie.
                    0
                } else {
                    -self.value(config, child, limits)?
                };
                best = best.max(v);
                if best == 1 {
                    break;
                }
            }
        }
        self.keys[slot] = key;
        self.values[slot] = best;
        self.dirty = true;
        Some(best)
    }
}

fn to_outcome(v: i8) -> Outcome {
    match v {
        1 => Outcome::Win,
        0 => Outcome::Tie,
        _ => Outcome::Loss,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_rules::anchors;
    use jchomp_testkit::board;

    #[test]
    fn rows_are_regions_for_horizontal_eats() {
        let c = board("5x6 eat 1x2 poison 0,0");
        let mut n = 0;
        split(&c, Position::start(&c).selections(), |r| {
            assert_eq!(r.count(), 5);
            n += 1;
        });
        assert_eq!(n, 5);
        let c = board("5x6 eat 2x2 poison 0,0");
        let mut n = 0;
        split(&c, Position::start(&c).selections(), |_| n += 1);
        assert_eq!(n, 1);
    }

    #[test]
    fn normalize_moves_shapes_to_the_corner() {
        let shape = Bits::rect(3, 4, 2, 3);
        assert_eq!(normalize(shape), Bits::rect(0, 0, 2, 3));
        assert_eq!(normalize(Bits::rect(13, 12, 2, 2)), Bits::rect(0, 0, 2, 2));
        assert_eq!(normalize(Bits::EMPTY), Bits::EMPTY);
    }

    #[test]
    fn dawson_kayles_grundy_values() {
        // A row of n cells with 1×2 eats is Dawson's Kayles: 0 0 1 1 2 0 3 1 1 0 3 3 2 2 4.
        let expected = [0u8, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4];
        let c = board("15x15 eat 1x2 poison 14,14");
        let mut solver = RegionSolver::new(10);
        solver.prepare(&c);
        let mut limits = Limits::unlimited(None);
        for (n, &g) in expected.iter().enumerate().skip(2) {
            let row = anchors(Bits::rect(0, 0, 1, n as u8), 1, 2);
            assert_eq!(solver.grundy(&c, row, &mut limits), Some(g), "n = {n}");
        }
    }
}
