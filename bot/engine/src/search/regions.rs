//! Independent regions and the region solver for two players.
//!
//! A *region* is a set of valid selections whose rectangles are connected through shared cells;
//! no rectangle spans two regions, so a move in one never changes another. A region without
//! poison is an impartial game under normal play (whoever cannot move there simply moves
//! elsewhere), so by the Sprague–Grundy theorem it is worth a Nim heap of its Grundy value.
//! Replacing every poison-free region by one heap (the XOR of their values) keeps the win / tie /
//! loss value of the whole position; the proof is in `docs/BOTS.md`. What is left to search is
//! the regions holding poison (and poison-free regions too large to value at once) plus one
//! heap, which is far smaller than the board. Distances in plies are not kept by this
//! reduction, so it answers win, tie or loss only.
//!
//! The value search is alpha-beta over the three values with a table of bounds: a question
//! such as "does this selection lose?" stops at the first reply that ties. A seat that can make
//! every poisoned selection invalid in one safe selection ties at once, which settles most
//! positions without valuing a single region.
//!
//! In classic Chomp a position is a single region (every selection's cells overlap those of the
//! top-left cell, uneaten while anything is), so the solver is a memoised exact search there.

use super::key::{config_salt, cover, hash, mix, shape_hash, spread};
use super::limits::Limits;
use super::score::Outcome;
use jchomp_rules::{Bits, Config, Position};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A fast hasher for board keys (the default one is built to resist attacks, which a private
/// memory does not need).
#[derive(Default)]
pub(crate) struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        super::key::mix(self.0)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        // One multiply per word; `finish` mixes the whole once.
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<MixHasher>>;

/// The anchors whose rectangle touches a cell of `cells` (before masking with valid anchors).
#[inline]
fn touching(config: &Config, cells: Bits) -> Bits {
    spread(config, cells, Bits::shr)
}

/// The key of a poison-free region's cells by their shape alone: mirror images of a region are
/// the same game, and so are its transposes when the eat is square.
fn region_shape(config: &Config, cells: Bits) -> u64 {
    let (er, ec) = config.fit();
    shape_hash(cells, er == ec)
}

/// The most valid selections one selection can make invalid, itself included: those whose
/// rectangle overlaps its own, (2·rows − 1) × (2·cols − 1) of them with a JChomp eat size.
pub(super) fn overlap_reach(config: &Config) -> u32 {
    let (er, ec) = config.fit();
    (2 * u32::from(er) - 1) * (2 * u32::from(ec) - 1)
}

/// Splits a set of valid anchors into regions, calling `f` with each region's anchors. In
/// classic Chomp the whole set is one region.
#[inline]
pub fn split(config: &Config, anchors: Bits, mut f: impl FnMut(Bits)) {
    if !config.variant().is_jchomp() {
        // A classic selection eats everything below and right of it; the top-left uneaten cell
        // (0, 0) eats every other, so all selections overlap it.
        if !anchors.is_empty() {
            f(anchors);
        }
        return;
    }
    let (er, ec) = config.fit();
    if er == 1 {
        // Selections one row high overlap only within a row, where two overlap when fewer than
        // the eat's width apart: the regions are runs of such anchors, in board order.
        runs(anchors, 1, u32::from(ec), f);
        return;
    }
    if ec == 1 {
        // The same down the columns.
        runs(anchors, 16, u32::from(er), f);
        return;
    }
    flood(config, anchors, f);
}

/// [`split`] for any eat size: each region grown from its first anchor until it stops.
fn flood(config: &Config, mut anchors: Bits, mut f: impl FnMut(Bits)) {
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

/// The regions of anchors lying along lines (rows when `step` is 1, columns when it is 16),
/// where two anchors of one line are linked when fewer than `reach` places apart.
fn runs(anchors: Bits, step: u32, reach: u32, mut f: impl FnMut(Bits)) {
    // The run being built on each line (by column for rows: one line at a time).
    let mut open = [Bits::EMPTY; 16];
    let mut last = [0u32; 16];
    for a in anchors.iter() {
        let (line, place) = if step == 1 {
            (0, a)
        } else {
            ((a % 16) as usize, a / 16)
        };
        let linked = !open[line].is_empty()
            && place - last[line] < reach
            && (step != 1 || a / 16 == last[line] / 16);
        if !linked && !open[line].is_empty() {
            f(open[line]);
            open[line] = Bits::EMPTY;
        }
        open[line] |= Bits::single(a);
        last[line] = place;
    }
    for run in open {
        if !run.is_empty() {
            f(run);
        }
    }
}

/// A key for the game a set of valid anchors leaves, the same for every position that is the
/// same sum of regions: each poison-free region counts by its shape wherever it lies and
/// however it is mirrored ([`shape_hash`]; a region's game depends on its shape alone), each region holding poison by its cells, and the
/// regions are added up as a multiset, so rows swapped or a region moved across the board give
/// one key. Also returns `safe` (selections among `valid`) less the selections of every
/// poison-free region whose shape an earlier one repeats (a selection there leads to the same
/// sum as the same selection in the earlier region) and, with one-row or one-column eats, the
/// second half of each poison-free run (the mirror images of the first half's).
///
/// When a poisoned selection can no longer be made invalid ([`unkillable`]) the game is normal
/// play on the safe selections alone, and the key is the multiset of the shapes of their
/// regions, the poisoned selections left out.
pub fn sum_key(config: &Config, valid: Bits, safe: Bits) -> (u64, Bits) {
    let (zone, valid, mut key) = if unkillable(config, valid, safe) {
        (Bits::EMPTY, safe, NORMAL_SALT)
    } else {
        (config.poison_zone(), valid, 0u64)
    };
    let line = is_line(config);
    let mut shapes = [0u64; 32];
    let mut seen = 0;
    let mut moves = safe;
    split(config, valid, |r| {
        let cells = cover(config, r);
        let h = if r.intersects(zone) {
            hash(cells) ^ 0x5851_f42d_4c95_7f2d
        } else {
            // A run's shape is its length.
            let h = if line {
                mix(u64::from(cells.count()) ^ 0x2f1d_7c3a_95e4_b860)
            } else {
                region_shape(config, cells)
            };
            if shapes[..seen].contains(&h) {
                moves = moves.without(r);
            } else {
                if seen < shapes.len() {
                    shapes[seen] = h;
                    seen += 1;
                }
                if line {
                    // A run of anchors along a line is the same game read backwards: the
                    // selection `j` places from one end leaves the same sum as the one `j`
                    // places from the other, so only the first half is played.
                    let n = r.count();
                    for (i, a) in r.iter().enumerate() {
                        if i as u32 >= n.div_ceil(2) {
                            moves = moves.without(Bits::single(a));
                        }
                    }
                }
            }
            h
        };
        key = key.wrapping_add(mix(h));
    });
    (key, moves)
}

/// Poison-free regions with more selections than this are searched with the rest of the
/// position rather than valued by their Grundy value: deciding whether the sum is won stops at
/// the first winning selection, where a Grundy value needs every selection's exact value, and
/// the shapes of a large region are too many to remember.
pub const GRUNDY_MAX_ANCHORS: u32 = 24;

/// In a normal-play sum ([`RegionSolver::normal`]) regions with more selections than this are
/// searched: there the search stops at the first winning selection, which is cheaper than a
/// Grundy value over larger regions (measured on 9×9 and 10×10 boards with eat 2×2).
const NORMAL_GRUNDY_MAX_ANCHORS: u32 = 12;

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

/// The position's cells split into the regions searched directly (`searched`, as cells: those
/// holding poison, and poison-free ones too large to value by their Grundy value at once) and
/// the Grundy value of all the others together (`heap`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reduced {
    /// Cells of the regions whose selections can reach poison, and of the poison-free regions
    /// with more than [`GRUNDY_MAX_ANCHORS`] selections.
    pub searched: Bits,
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
    /// The selection that decided each entry plus one (0, which is [`NO_MOVE`] + 1, if none
    /// did: a new table is zeroed memory, handed over lazily), tried first when the entry is
    /// searched again.
    moves: Vec<u8>,
    mask: usize,
    salt: u64,
    dirty: bool,
    /// Most Grundy values remembered before that memory is emptied.
    grundy_cap: usize,
    /// With a one-row or one-column eat every poison-free region is a run of cells along a
    /// line, whose game depends on its length alone: Grundy values by length ([`UNKNOWN`]
    /// until found), without moving shapes to the corner or hashing them.
    line: bool,
    runs: [u8; 16],
    /// The selection that last won a normal-play sum at each depth, tried early at the next.
    killers: [u8; 64],
    /// Normal-play values shared with region solvers on other threads, if any.
    shared: Option<Arc<SharedValues>>,
}

/// Normal-play values shared between region solvers on several threads: one word per entry,
/// the key's upper 48 bits beside the value, so that a read never mixes two entries (the slot
/// gives the key's lower bits).
#[derive(Debug)]
pub struct SharedValues {
    words: Vec<AtomicU64>,
    mask: usize,
}

impl SharedValues {
    /// A table of `1 << bits` entries (filled with zeros at once: 8 bytes an entry).
    pub fn new(bits: u32) -> Arc<SharedValues> {
        Arc::new(SharedValues {
            words: (0..1usize << bits).map(|_| AtomicU64::new(0)).collect(),
            mask: (1 << bits) - 1,
        })
    }

    /// Whether the seat to move wins the sum filed under `key`, if known.
    fn get(&self, key: u64) -> Option<bool> {
        let w = self.words[key as usize & self.mask].load(Ordering::Relaxed);
        (w != 0 && (w ^ key) >> 16 == 0).then_some(w >> 8 & 0xff == 2)
    }

    fn set(&self, key: u64, win: bool) {
        let w = (key & !0xffff) | (1 + u64::from(win)) << 8;
        self.words[key as usize & self.mask].store(w, Ordering::Relaxed);
    }
}

/// A normal-play game reduced by [`RegionSolver::normal_sum`].
#[derive(Clone, Copy, Debug)]
struct NormalSum {
    /// The key of its searched regions (without the heap).
    key: u64,
    /// The selections of the regions searched, one region of each shape.
    searched: Bits,
    /// The Nim heap beside them: the Grundy values of the small regions and the heap given.
    heap: u8,
}

impl NormalSum {
    /// The table key of the searched regions beside a heap of `heap`.
    fn key_with(&self, heap: u8) -> u64 {
        self.key ^ (u64::from(heap) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

/// Mixed into the keys of normal-play sums, so that they never meet the keys of positions.
const NORMAL_SALT: u64 = 0x6a09_e667_f3bc_c909;

/// No selection recorded in a table entry (no board has a cell at bit 255).
const NO_MOVE: u8 = u8::MAX;

/// A run length whose Grundy value is not known yet.
const UNKNOWN: u8 = u8::MAX;

/// Whether a configuration's eat is one row high or one column wide (JChomp), so that its
/// regions are runs along lines.
fn is_line(config: &Config) -> bool {
    let (er, ec) = config.fit();
    config.variant().is_jchomp() && (er == 1 || ec == 1)
}

impl RegionSolver {
    /// A solver whose value table holds `1 << bits` entries and which remembers at most as many
    /// Grundy values.
    pub fn new(bits: u32) -> RegionSolver {
        RegionSolver {
            grundy: FastMap::default(),
            keys: vec![0; 1 << bits],
            values: vec![0; 1 << bits],
            moves: vec![0; 1 << bits],
            mask: (1 << bits) - 1,
            salt: 0,
            dirty: false,
            grundy_cap: 1 << bits,
            line: false,
            runs: [UNKNOWN; 16],
            killers: [NO_MOVE; 64],
            shared: None,
        }
    }

    /// Shares the values of normal-play games with the other solvers given `shared`.
    pub(crate) fn with_shared(mut self, shared: Arc<SharedValues>) -> RegionSolver {
        self.shared = Some(shared);
        self
    }

    fn prepare(&mut self, config: &Config) {
        let salt = config_salt(config);
        if salt != self.salt {
            self.salt = salt;
            self.grundy.clear();
            self.line = is_line(config);
            self.runs = [UNKNOWN; 16];
            if self.dirty {
                self.keys.fill(0);
                self.dirty = false;
            }
        }
    }

    /// The Grundy value of a poison-free region given by its anchors; `None` if stopped.
    fn grundy(&mut self, config: &Config, region: Bits, limits: &mut Limits) -> Option<u8> {
        let cells = cover(config, region);
        let run = self.line.then(|| cells.count() as usize);
        if let Some(n) = run
            && self.runs[n] != UNKNOWN
        {
            return Some(self.runs[n]);
        }
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
        if let Some(n) = run {
            self.runs[n] = mex;
        }
        Some(mex)
    }

    /// Splits a set of valid anchors into the cells searched directly and one heap.
    fn reduce(
        &mut self,
        config: &Config,
        valid: Bits,
        mut heap: u8,
        limits: &mut Limits,
    ) -> Option<Reduced> {
        let zone = config.poison_zone();
        let mut searched = Bits::EMPTY;
        let mut stopped = false;
        split(config, valid, |r| {
            if stopped {
            } else if r.intersects(zone) || r.count() > GRUNDY_MAX_ANCHORS {
                searched |= cover(config, r);
            } else {
                match self.grundy(config, r, limits) {
                    Some(g) => heap ^= g,
                    None => stopped = true,
                }
            }
        });
        (!stopped).then_some(Reduced { searched, heap })
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
        if !position.selections().intersects(config.poison_zone()) {
            return Some(Outcome::Tie);
        }
        self.prepare(config);
        self.value(config, position.uneaten(), 0, -1, 1, limits)
            .map(to_outcome)
    }

    /// The value of a position for the seat to move (two players) as far as the window
    /// `(alpha, beta)` of values −1 (loss), 0 (tie), 1 (win) needs it: exact when strictly
    /// inside, an upper bound at or below `alpha`, a lower bound at or above `beta`; `None` if
    /// stopped first or the game is over.
    pub fn solve_window(
        &mut self,
        config: &Config,
        position: &Position,
        alpha: i8,
        beta: i8,
        limits: &mut Limits,
    ) -> Option<i8> {
        position.to_move()?;
        self.prepare(config);
        self.value(config, position.uneaten(), 0, alpha, beta, limits)
    }

    /// The exact value of a position for the seat to move and an optimal selection (a safe
    /// one while any is left), by alpha-beta over its selections: selections that tie at once
    /// first, then the others only as far as they might do better. `None` if stopped first or
    /// the game is over.
    pub fn best(
        &mut self,
        config: &Config,
        position: &Position,
        limits: &mut Limits,
    ) -> Option<(Outcome, u32)> {
        position.to_move()?;
        self.prepare(config);
        let valid = position.selections();
        let safe = position.safe_selections(config);
        let Some(first) = safe.first() else {
            return Some((Outcome::Loss, valid.first()?));
        };
        if !valid.intersects(config.poison_zone()) {
            return Some((Outcome::Tie, first));
        }
        let kills = killing(config, valid, safe);
        let (mut best, mut best_move) = match kills.first() {
            Some(k) => (0, k),
            None => (-2, first),
        };
        let layers = order_layers(
            config,
            valid & config.poison_zone(),
            safe.without(kills),
            NO_MOVE,
        );
        for a in layers.iter().flat_map(|l| l.iter()) {
            if best >= 1 {
                break;
            }
            if limits.poll() {
                return None;
            }
            let rest = position
                .uneaten()
                .without(config.rect(jchomp_rules::Cell::from_index(a)));
            let v = -self.value(config, rest, 0, -1, -best.max(-1), limits)?;
            if v > best {
                (best, best_move) = (v, a);
            }
        }
        Some((to_outcome(best), best_move))
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
            let v = if child.to_move().is_none()
                || !child.selections().intersects(config.poison_zone())
            {
                // Over, or no poison can be reached any more: a tie (found without valuing
                // the poison-free regions, which can be large).
                0
            } else {
                -self.value(config, child.uneaten(), 0, -1, 1, limits)?
            };
            out.push((a, to_outcome(v)));
        }
        Some(out)
    }

    /// Whether the seat to move wins the normal-play game (the last to move wins) on the safe
    /// selections `anchors` alone (each an impartial move removing every selection it
    /// overlaps); `None` if stopped.
    pub(crate) fn normal_play(
        &mut self,
        config: &Config,
        anchors: Bits,
        limits: &mut Limits,
    ) -> Option<bool> {
        self.prepare(config);
        self.normal(config, anchors, 0, limits)
    }

    /// Whether the seat to move wins the normal-play game (the last to move wins) on the safe
    /// selections `anchors` (each an impartial move removing every selection it overlaps)
    /// beside a Nim heap of `heap`; `None` if stopped.
    fn normal(
        &mut self,
        config: &Config,
        anchors: Bits,
        heap: u8,
        limits: &mut Limits,
    ) -> Option<bool> {
        let sum = self.normal_sum(config, anchors, heap, limits)?;
        self.normal_value(config, &sum, 0, limits)
    }

    /// The reduced form of a normal-play game on `anchors` beside a heap: regions of at most
    /// [`NORMAL_GRUNDY_MAX_ANCHORS`] selections count by their Grundy value, two larger
    /// regions of one shape cancel (their sum is worth 0), and the rest is keyed by its shapes
    /// (mirror images alike). `None` if stopped.
    fn normal_sum(
        &mut self,
        config: &Config,
        anchors: Bits,
        mut heap: u8,
        limits: &mut Limits,
    ) -> Option<NormalSum> {
        let mut large: [(u64, Bits); 16] = [(0, Bits::EMPTY); 16];
        let mut n = 0;
        let mut stopped = false;
        let mut overflow = Bits::EMPTY;
        split(config, anchors, |r| {
            if stopped {
            } else if r.count() <= NORMAL_GRUNDY_MAX_ANCHORS {
                match self.grundy(config, r, limits) {
                    Some(g) => heap ^= g,
                    None => stopped = true,
                }
            } else {
                let h = region_shape(config, cover(config, r));
                if let Some(k) = large[..n].iter().position(|&(x, _)| x == h) {
                    // G + G = 0.
                    large[k] = large[n - 1];
                    n -= 1;
                } else if n < large.len() {
                    large[n] = (h, r);
                    n += 1;
                } else {
                    overflow |= r;
                }
            }
        });
        if stopped {
            return None;
        }
        let mut searched = overflow;
        let mut key = NORMAL_SALT ^ self.salt;
        for &(h, r) in &large[..n] {
            searched |= r;
            key = key.wrapping_add(mix(h));
        }
        if !overflow.is_empty() {
            key ^= hash(overflow);
        }
        Some(NormalSum {
            key,
            searched,
            heap,
        })
    }

    /// Whether the seat to move wins a reduced normal-play game; `None` if stopped. Every
    /// selection's result is reduced and looked up before any is searched, so that a reply
    /// already known to lose settles the position at once; the others are searched the one
    /// that won here before first, then the one that won last at this depth, then by how few
    /// selections they leave (the fewer, the more often they win and the cheaper they are).
    fn normal_value(
        &mut self,
        config: &Config,
        sum: &NormalSum,
        ply: usize,
        limits: &mut Limits,
    ) -> Option<bool> {
        if sum.searched.is_empty() {
            return Some(sum.heap != 0);
        }
        let key = sum.key_with(sum.heap);
        let slot = key as usize & self.mask;
        let mut first = NO_MOVE;
        if let Some(t) = &self.shared {
            // Normal-play values live in the shared table alone.
            if let Some(win) = t.get(key) {
                return Some(win);
            }
        } else if self.keys[slot] == key {
            let (lo, hi) = unpack_bounds(self.values[slot]);
            if lo == hi {
                return Some(lo > 0);
            }
            first = self.moves[slot].wrapping_sub(1);
        }
        if limits.tick() {
            return None;
        }
        let killer = self.killers.get(ply).copied().unwrap_or(NO_MOVE);
        let mut win = false;
        let mut best_move = NO_MOVE;
        for h in 0..sum.heap {
            let child = NormalSum { heap: h, ..*sum };
            if !self.normal_value(config, &child, ply + 1, limits)? {
                win = true;
                break;
            }
        }
        let mut children = Vec::new();
        if !win {
            // Moves of the first region of each shape only (another of the same shape leads to
            // the same sum): `searched` holds one of each.
            for a in sum.searched.iter() {
                if limits.poll() {
                    return None;
                }
                let rest = sum.searched.without(touching(
                    config,
                    config.rect(jchomp_rules::Cell::from_index(a)),
                ));
                let child = self.normal_sum(config, rest, sum.heap, limits)?;
                let known = if child.searched.is_empty() {
                    Some(child.heap != 0)
                } else {
                    self.known(child.key_with(child.heap))
                };
                match known {
                    Some(false) => {
                        win = true;
                        best_move = a as u8;
                        break;
                    }
                    Some(true) => {}
                    None => {
                        let rank = if a == u32::from(first) {
                            0
                        } else if a == u32::from(killer) {
                            1
                        } else {
                            2 + child.searched.count()
                        };
                        children.push((rank, a as u8, child));
                    }
                }
            }
        }
        if !win {
            children.sort_unstable_by_key(|&(rank, a, _)| (rank, a));
            for (_, a, child) in &children {
                if !self.normal_value(config, child, ply + 1, limits)? {
                    win = true;
                    best_move = *a;
                    if let Some(k) = self.killers.get_mut(ply) {
                        *k = *a;
                    }
                    break;
                }
            }
        }
        if let Some(t) = &self.shared {
            t.set(key, win);
        } else {
            let v = if win { 1 } else { -1 };
            self.keys[slot] = key;
            self.values[slot] = pack_bounds(v, v);
            self.moves[slot] = best_move.wrapping_add(1);
            self.dirty = true;
        }
        Some(win)
    }

    /// The exact normal-play result stored under `key`, if any.
    fn known(&self, key: u64) -> Option<bool> {
        if let Some(t) = &self.shared {
            return t.get(key);
        }
        let slot = key as usize & self.mask;
        if self.keys[slot] != key {
            return None;
        }
        let (lo, hi) = unpack_bounds(self.values[slot]);
        (lo == hi).then_some(lo > 0)
    }

    /// +1 win, 0 tie, −1 loss for the seat to move with `cells` uneaten (only the cells of
    /// selections matter) and a Nim heap of `heap` beside them, searched within the window
    /// `(alpha, beta)` (fail-soft: a result at or below `alpha` is an upper bound of the value,
    /// one at or above `beta` a lower bound). The poison-free regions are valued only when the
    /// cheap checks do not settle the window.
    fn value(
        &mut self,
        config: &Config,
        cells: Bits,
        heap: u8,
        mut alpha: i8,
        mut beta: i8,
        limits: &mut Limits,
    ) -> Option<i8> {
        let zone = config.poison_zone();
        let valid = config.selections_in(cells);
        if !valid.intersects(zone) {
            return Some(0);
        }
        let safe = valid.without(zone);
        if safe.is_empty() && heap == 0 {
            return Some(-1);
        }
        if unkillable(config, valid, safe) {
            // The game cannot tie any more: whoever runs out of safe selections eats poison.
            return self
                .normal(config, safe, heap, limits)
                .map(|win| if win { 1 } else { -1 });
        }
        // A safe selection after which no poison can be reached ties the game at once.
        let kills = killing(config, valid, safe);
        let floor = if kills.is_empty() { -1 } else { 0 };
        if floor >= beta {
            return Some(floor);
        }
        let r = self.reduce(config, valid, heap, limits)?;
        let safe = config.selections_in(r.searched).without(zone);
        let key = hash(r.searched)
            ^ self.salt
            ^ (u64::from(r.heap) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = key as usize & self.mask;
        let (mut lo, mut hi) = (floor, 1);
        let mut first = NO_MOVE;
        if self.keys[slot] == key {
            let (l, h) = unpack_bounds(self.values[slot]);
            (lo, hi) = (lo.max(l), h);
            if lo >= beta || lo == hi {
                return Some(lo);
            }
            if hi <= alpha {
                return Some(hi);
            }
            first = self.moves[slot].wrapping_sub(1);
        }
        if limits.tick() {
            return None;
        }
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        let alpha0 = alpha;
        let mut best = floor;
        let mut best_move = NO_MOVE;
        // Nim moves first: cheap, and often enough.
        for h in 0..r.heap {
            if best >= beta {
                break;
            }
            let v = -self.value(config, r.searched, h, -beta, -alpha, limits)?;
            best = best.max(v);
            alpha = alpha.max(v);
        }
        // Selections that tie at once are worth `floor`, already counted. The others in
        // layers around the poison: the one that decided this position before, then those
        // that disable a poisoned selection, then those that overlap one of these (they block
        // or spoil them), then the rest.
        let moves = safe.without(kills);
        let layers = order_layers(config, valid & zone, moves, first);
        'layers: for layer in layers {
            for a in layer.iter() {
                if best >= beta {
                    break 'layers;
                }
                if limits.poll() {
                    return None;
                }
                let rest = r
                    .searched
                    .without(config.rect(jchomp_rules::Cell::from_index(a)));
                let v = -self.value(config, rest, r.heap, -beta, -alpha, limits)?;
                if v > best {
                    best = v;
                    best_move = a as u8;
                }
                alpha = alpha.max(v);
            }
        }
        if best >= beta {
            lo = lo.max(best);
        } else if best <= alpha0 {
            hi = hi.min(best);
        } else {
            (lo, hi) = (best, best);
        }
        self.keys[slot] = key;
        self.values[slot] = pack_bounds(lo, hi.max(lo));
        self.moves[slot] = best_move.wrapping_add(1);
        self.dirty = true;
        Some(best)
    }
}

/// Whether some valid poisoned selection overlaps no safe one among `safe` (JChomp). Such a
/// selection stays valid until poison is eaten (only poisoned selections can eat its cells, and
/// eating poison ends the game), so the game cannot tie: the seat left without a safe selection
/// must eat poison and loses, and the value is that of normal play on the safe selections
/// alone. The condition holds in every later position (selections only ever become invalid).
pub fn unkillable(config: &Config, valid: Bits, safe: Bits) -> bool {
    config.variant().is_jchomp()
        && (valid & config.poison_zone()).iter().any(|p| {
            !touching(config, config.rect(jchomp_rules::Cell::from_index(p))).intersects(safe)
        })
}

/// The safe selections after which no selection holding poison is valid any more (JChomp: those
/// whose rectangle overlaps that of every valid poisoned selection; none are looked for in
/// classic Chomp).
fn killing(config: &Config, valid: Bits, safe: Bits) -> Bits {
    if !config.variant().is_jchomp() {
        return Bits::EMPTY;
    }
    let mut kills = safe;
    for p in (valid & config.poison_zone()).iter() {
        kills &= touching(config, config.rect(jchomp_rules::Cell::from_index(p)));
        if kills.is_empty() {
            break;
        }
    }
    kills
}

/// The selections `moves` in the order the value search tries them, as disjoint layers: `first`
/// (if among them); those that disable the *most endangered* valid poisoned selection (of
/// `poisoned`, the one the fewest of `moves` can disable: the race to disable every poisoned
/// selection turns on it); those that overlap one of these (they block them); those that
/// disable any other poisoned selection; those overlapping one of these; then the rest. The
/// moves that settle a race near the poison are mostly found in the first layers.
fn order_layers(config: &Config, poisoned: Bits, moves: Bits, first: u8) -> [Bits; 6] {
    let first = if first != NO_MOVE && moves.contains(u32::from(first)) {
        Bits::single(u32::from(first))
    } else {
        Bits::EMPTY
    };
    let rest = moves.without(first);
    let mut urgent = Bits::EMPTY;
    let mut fewest = u32::MAX;
    for p in poisoned.iter() {
        let killers = touching(config, config.rect(jchomp_rules::Cell::from_index(p))) & rest;
        if killers.count() < fewest {
            (urgent, fewest) = (killers, killers.count());
        }
    }
    let rest = rest.without(urgent);
    let blocks = touching(config, cover(config, urgent)) & rest;
    let rest = rest.without(blocks);
    let near = touching(config, cover(config, poisoned)) & rest;
    let rest = rest.without(near);
    let next = touching(config, cover(config, near)) & rest;
    [first, urgent, blocks, near, next, rest.without(next)]
}

/// A lower and an upper bound of a value in one byte.
fn pack_bounds(lo: i8, hi: i8) -> i8 {
    (lo + 1) | (hi + 1) << 2
}

/// The inverse of [`pack_bounds`].
fn unpack_bounds(x: i8) -> (i8, i8) {
    ((x & 3) - 1, (x >> 2 & 3) - 1)
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
    fn sum_keys_count_regions_as_a_multiset_of_shapes() {
        let c = board("6x8 eat 1x2 poison 0,0");
        let key = |eaten: &[(u8, u8)]| {
            let mut uneaten = c.board();
            for &(r, col) in eaten {
                uneaten = uneaten.without(Bits::single(Bits::index(r, col)));
            }
            let p = Position::from_uneaten(&c, uneaten, 0);
            sum_key(&c, p.selections(), p.safe_selections(&c))
        };
        // The same segments in other rows, or elsewhere in their rows: one key.
        let (a, _) = key(&[(1, 2), (3, 5)]);
        assert_eq!(a, key(&[(3, 2), (1, 5)]).0);
        assert_eq!(a, key(&[(1, 5), (3, 2)]).0);
        assert_eq!(key(&[(2, 0)]).0, key(&[(2, 7)]).0);
        // A different multiset, or the poisoned row changed instead: other keys.
        assert_ne!(a, key(&[(1, 2), (3, 4)]).0);
        assert_ne!(key(&[(2, 7)]).0, key(&[(0, 7)]).0);
        assert_ne!(key(&[(1, 2), (1, 5)]).0, a);
        // Moves: the poisoned row, and one region of each shape (row 3 repeats row 1's two
        // segments, rows 4 and 5 repeat row 2).
        let (_, moves) = key(&[(1, 2), (3, 5)]);
        let rows: Vec<u32> = (0..6)
            .filter(|&r| moves.intersects(Bits::rect(r, 0, 1, 16)))
            .map(u32::from)
            .collect();
        assert_eq!(rows, vec![0, 1, 2]);
        // And of each poison-free run its first half: the poisoned row keeps every safe one.
        let cols = |r: u8| -> Vec<u8> {
            (0..16)
                .filter(|&col| moves.contains(Bits::index(r, col)))
                .collect()
        };
        assert_eq!(cols(0), vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(cols(1), vec![0, 3, 4]);
        assert_eq!(cols(2), vec![0, 1, 2, 3]);
    }

    #[test]
    fn runs_along_rows_and_columns_are_the_flooded_regions() {
        // The flood (any eat) against the runs (one-row and one-column eats) on random sets of
        // anchors.
        let mut rng = crate::Rng::new(3);
        for notation in [
            "15x15 eat 1x2 poison 0,0",
            "15x15 eat 1x3 poison 0,0",
            "15x15 eat 2x1 poison 0,0",
            "15x15 eat 3x1 poison 0,0",
        ] {
            let c = board(notation);
            for _ in 0..50 {
                let mut anchors = Bits::EMPTY;
                for i in c.selections_in(c.board()).iter() {
                    if rng.below(3) > 0 {
                        anchors |= Bits::single(i);
                    }
                }
                let mut fast = Vec::new();
                split(&c, anchors, |r| fast.push(r.words()));
                let mut flooded = Vec::new();
                flood(&c, anchors, |r| flooded.push(r.words()));
                fast.sort_unstable();
                flooded.sort_unstable();
                assert_eq!(fast, flooded, "{notation}");
            }
        }
    }

    #[test]
    fn order_layers_split_the_moves_most_endangered_poison_first() {
        // Poison in two corners; a selection at 6,9 leaves the bottom-right poisoned selection
        // (9,10) one selection (9,9) that can still disable it: that one comes first.
        let c = board("12x12 eat 3x2 poison 0,0 poison 11,11");
        let mut p = Position::start(&c);
        p.play(&c, jchomp_rules::Cell::new(6, 9));
        let valid = p.selections();
        let moves = p.safe_selections(&c);
        let first = Bits::index(5, 5) as u8;
        let layers = order_layers(&c, valid & c.poison_zone(), moves, first);
        assert_eq!(layers[0], Bits::single(u32::from(first)));
        assert_eq!(layers[1], Bits::single(Bits::index(9, 9)));
        // Disjoint, and together every move once.
        let mut all = Bits::EMPTY;
        for l in layers {
            assert!(!l.intersects(all));
            all |= l;
        }
        assert_eq!(all, moves);
        // The top-left poisoned selection's disablers come before the far moves.
        assert!(layers[3].contains(Bits::index(0, 1)));
        assert!(layers[5].contains(Bits::index(5, 0)));
    }

    #[test]
    fn normal_play_sums_are_won_when_their_grundy_values_differ_from_the_heap() {
        // Random sets of selections on a 2×2 and a 2×3 board, some with a mirrored copy of
        // themselves beside them (the two cancel), beside random heaps: the search (regions
        // above the Grundy size searched, pairs of one shape cancelled, heaps played) against
        // the Grundy values of every region.
        let mut rng = crate::Rng::new(9);
        for notation in ["13x13 eat 2x2 poison 12,12", "13x13 eat 2x3 poison 12,12"] {
            let c = board(notation);
            let mut solver = RegionSolver::new(16);
            solver.prepare(&c);
            let mut limits = Limits::unlimited(None);
            let mut wins = [0; 2];
            let mut large = 0;
            for round in 0..24 {
                let mut cells = Bits::EMPTY;
                for r in 0..6 {
                    for col in 0..6 {
                        if rng.below(20) < 19 {
                            cells |= Bits::single(Bits::index(r, col));
                        }
                    }
                }
                if round % 2 == 0 {
                    // The same cells mirrored left to right, seven columns further.
                    for i in cells.iter() {
                        let (r, col) = ((i / 16) as u8, (i % 16) as u8);
                        cells |= Bits::single(Bits::index(r, 12 - col));
                    }
                }
                let anchors = c.selections_in(cells);
                let heap = rng.below(8) as u8;
                let mut g = heap;
                split(&c, anchors, |r| {
                    g ^= solver.grundy(&c, r, &mut limits).expect("not stopped");
                    large += usize::from(r.count() > NORMAL_GRUNDY_MAX_ANCHORS);
                });
                let win = solver.normal(&c, anchors, heap, &mut limits);
                assert_eq!(win, Some(g != 0), "{notation} round {round}");
                wins[usize::from(g != 0)] += 1;
            }
            assert!(wins.iter().all(|&n| n > 0), "{notation}: {wins:?}");
            assert!(large > 12, "{notation}: {large} regions searched");
        }
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
