//! Exact plies of a normal-play game on the safe selections (a poison that can never be cut
//! off, [`regions::unkillable`]): null-window tests "does the seat to move win (lose) within
//! `d` selections?", stepped up from a lower bound, over sums of regions keyed by their shapes,
//! with a table of bounds shared between the tests. No value search is needed first: the first
//! test that succeeds gives the value and the distance together. A large root's tests can run
//! on several threads that share the tables ([`solve`]).
//!
//! Each safe selection is an impartial move that removes every safe selection it overlaps; the
//! game ends when the seat to move has none left (it then eats poison). The winner makes the
//! last safe selection and hurries, the loser delays, so the length `F` of the game under
//! optimal play is odd when the seat to move wins and even when it loses, and the plies to the
//! end are `F + 1`.

use super::key::{cover, mix, shape_hash, spread};
use super::limits::Limits;
use super::regions::{self, RegionSolver, SharedValues, overlap_reach};
use jchomp_rules::{Bits, Cell, Config};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A connected set of safe selections, with its shape's key and a lower and an upper bound on
/// the selections that can still be made in it.
#[derive(Clone, Copy, Debug)]
struct Region {
    anchors: Bits,
    hash: u64,
    fewest: u32,
    most: u32,
}

/// A sum of regions: the slice `start..end` of the solver's region stack, its key (the
/// multiset of the regions' shapes), and a lower and an upper bound on the selections left.
#[derive(Clone, Copy, Debug)]
struct Node {
    start: usize,
    end: usize,
    key: u64,
    fewest: u32,
    most: u32,
}

/// A lower bound in the table meaning "never": the test fails whatever the budget.
const NEVER: u8 = u8::MAX;

/// Sums with fewer selections are tested without asking the region solver for their value
/// (they are cheaper to search than to value).
const ORACLE_MIN_MOVES: u32 = 6;

/// No selection recorded.
const NO_MOVE: u8 = u8::MAX;

/// What the table knows of a sum (for the seat to move): tests to win within fewer than
/// `win_from` selections fail, and so do tests to lose within fewer than `lose_from`; when
/// `upto` is not 0 the game lasts at most that many selections under optimal play (odd: a
/// win, even: a loss). `mv` is the selection that decided the last test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Known {
    win_from: u8,
    lose_from: u8,
    upto: u8,
    mv: u8,
}

impl Known {
    const NONE: Known = Known {
        win_from: 0,
        lose_from: 0,
        upto: 0,
        mv: NO_MOVE,
    };

    fn pack(self) -> u32 {
        u32::from(self.win_from)
            | u32::from(self.lose_from) << 8
            | u32::from(self.upto) << 16
            | u32::from(self.mv) << 24
    }

    fn unpack(x: u32) -> Known {
        Known {
            win_from: x as u8,
            lose_from: (x >> 8) as u8,
            upto: (x >> 16) as u8,
            mv: (x >> 24) as u8,
        }
    }

    /// The answer to "does the seat to move win (`win`) or lose within `d` selections?", if
    /// known.
    fn answer(self, d: u32, win: bool) -> Option<bool> {
        let from = if win { self.win_from } else { self.lose_from };
        if d < u32::from(from) {
            return Some(false);
        }
        if self.upto != 0 {
            let upto = u32::from(self.upto);
            if (upto % 2 == 1) != win {
                // The value is the other one.
                return Some(false);
            }
            if upto <= d {
                return Some(true);
            }
        }
        None
    }

    /// Records the result of a test.
    fn record(&mut self, d: u32, win: bool, result: bool, mv: u8) {
        let d8 = d.min(u32::from(NEVER) - 1) as u8;
        match (win, result) {
            (true, true) => {
                self.upto = if self.upto == 0 {
                    d8
                } else {
                    self.upto.min(d8)
                };
                self.lose_from = NEVER;
            }
            (false, true) => {
                self.upto = if self.upto == 0 {
                    d8
                } else {
                    self.upto.min(d8)
                };
                self.win_from = NEVER;
            }
            (true, false) => self.win_from = self.win_from.max(d8 + 1),
            (false, false) => self.lose_from = self.lose_from.max(d8 + 1),
        }
        if mv != NO_MOVE {
            self.mv = mv;
        }
    }
}

/// The exact length of a normal-play game on safe selections, as found by [`PliesSolver`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plies {
    /// Whether the seat to move wins.
    pub win: bool,
    /// Safe selections made under optimal play (the winner makes the last; the loser then
    /// eats poison, one ply more).
    pub moves: u32,
    /// An optimal selection (`None` when no safe selection is left).
    pub best: Option<u32>,
}

/// The distance solver for normal-play games on safe selections, for one configuration.
#[derive(Debug)]
pub struct PliesSolver {
    /// For each anchor, the anchors whose rectangle overlaps its own (itself included).
    near: Vec<Bits>,
    reach: u32,
    area: u32,
    fit: (u32, u32),
    square: bool,
    keys: Vec<u64>,
    known: Vec<u32>,
    mask: usize,
    stack: Vec<Region>,
    /// The table shared with solvers on other threads, used instead of `keys` and `known`.
    shared: Option<Arc<SharedKnown>>,
}

/// What [`PliesSolver`]s on several threads know of sums: two words per entry, the packed
/// [`Known`] and the whole key XORed with it, so that a read checks all 64 bits of the key and
/// never takes half of one write with half of another (the two would not XOR to the key). An
/// update may lose another thread's at the same time, which only forgets a fact.
#[derive(Debug)]
struct SharedKnown {
    words: Vec<AtomicU64>,
    mask: usize,
}

impl SharedKnown {
    fn new(bits: u32) -> Arc<SharedKnown> {
        Arc::new(SharedKnown {
            words: (0..2usize << bits).map(|_| AtomicU64::new(0)).collect(),
            mask: (1 << bits) - 1,
        })
    }

    fn get(&self, key: u64) -> Known {
        let slot = 2 * (key as usize & self.mask);
        let check = self.words[slot].load(Ordering::Relaxed);
        let data = self.words[slot + 1].load(Ordering::Relaxed);
        // A stored entry's data is never 0 (a recorded test always sets one of its bounds).
        if data != 0 && check ^ data == key {
            Known::unpack(data as u32)
        } else {
            Known::NONE
        }
    }

    fn set(&self, key: u64, k: Known) {
        let slot = 2 * (key as usize & self.mask);
        let data = u64::from(k.pack());
        self.words[slot].store(key ^ data, Ordering::Relaxed);
        self.words[slot + 1].store(data, Ordering::Relaxed);
    }
}

/// What a search borrows: the configuration, the region solver (values of normal-play games:
/// a test whose seat to move has the other value fails at once) and the limits.
pub struct Ctx<'a> {
    /// The configuration.
    pub config: &'a Config,
    /// The region solver.
    pub oracle: &'a mut RegionSolver,
    /// Node count and stop.
    pub limits: &'a mut Limits,
}

impl PliesSolver {
    /// A solver for `config` whose table holds `1 << bits` entries.
    pub fn new(config: &Config, bits: u32) -> PliesSolver {
        let near = (0..256)
            .map(|a| {
                let cell = Cell::from_index(a);
                if u32::from(cell.row) < 16 && u32::from(cell.col) < 16 {
                    spread(config, config.rect(cell), Bits::shr)
                } else {
                    Bits::EMPTY
                }
            })
            .collect();
        let (er, ec) = config.fit();
        PliesSolver {
            near,
            reach: overlap_reach(config),
            area: u32::from(er) * u32::from(ec),
            fit: (u32::from(er), u32::from(ec)),
            square: er == ec,
            keys: vec![0; 1 << bits],
            known: vec![0; 1 << bits],
            mask: (1 << bits) - 1,
            stack: Vec::with_capacity(4096),
            shared: None,
        }
    }

    /// A region of `anchors`: its shape's key and the fewest and most selections it can still
    /// take (selections that do not overlap eat disjoint cells: at most the cells over the
    /// eat's area).
    fn region(&self, config: &Config, anchors: Bits) -> Region {
        Region {
            anchors,
            hash: shape_hash(anchors, self.square),
            fewest: self.fewest(anchors),
            most: cover(config, anchors).count() / self.area,
        }
    }

    /// A lower bound on the selections made in a region before none is left: each removes at
    /// most `reach` selections, and one in row `r` (column `c`) removes only selections in
    /// the rows (columns) less than an eat's height (width) away, so the rows and the columns
    /// holding selections must each be covered by windows of `2·rows − 1` (`2·cols − 1`).
    fn fewest(&self, anchors: Bits) -> u32 {
        let words = anchors.words();
        let mut rows = 0u16;
        let mut cols = 0u16;
        for r in 0..16 {
            let lane = (words[r / 4] >> (16 * (r % 4))) as u16;
            if lane != 0 {
                rows |= 1 << r;
                cols |= lane;
            }
        }
        let windows = |mut mask: u16, w: u32| {
            let mut n = 0;
            let span = ((1u32 << w) - 1) as u16;
            while mask != 0 {
                let t = mask.trailing_zeros();
                mask &= !(span << t);
                n += 1;
            }
            n
        };
        anchors
            .count()
            .div_ceil(self.reach)
            .max(windows(rows, 2 * self.fit.0 - 1))
            .max(windows(cols, 2 * self.fit.1 - 1))
    }

    /// Pushes the regions of `anchors` onto the stack and returns the sum of their mixed
    /// keys and of their bounds.
    fn push_split(&mut self, config: &Config, anchors: Bits) -> (u64, u32, u32) {
        let mut found = [Bits::EMPTY; 64];
        let mut n = 0;
        let mut overflow = Bits::EMPTY;
        regions::split(config, anchors, |r| {
            if n < found.len() {
                found[n] = r;
                n += 1;
            } else {
                overflow |= r;
            }
        });
        debug_assert!(overflow.is_empty());
        let (mut key, mut fewest, mut most) = (0u64, 0u32, 0u32);
        for &r in &found[..n] {
            let region = self.region(config, r);
            key = key.wrapping_add(mix(region.hash));
            fewest += region.fewest;
            most += region.most;
            self.stack.push(region);
        }
        (key, fewest, most)
    }

    /// The sum of regions of a set of safe selections, alone on the stack (a new search's
    /// root).
    fn root(&mut self, config: &Config, safe: Bits) -> Node {
        self.stack.clear();
        let (key, fewest, most) = self.push_split(config, safe);
        Node {
            start: 0,
            end: self.stack.len(),
            key,
            fewest,
            most,
        }
    }

    fn probe(&self, key: u64) -> Known {
        if let Some(t) = &self.shared {
            return t.get(key);
        }
        let slot = key as usize & self.mask;
        if self.keys[slot] == key {
            Known::unpack(self.known[slot])
        } else {
            Known::NONE
        }
    }

    fn store(&mut self, key: u64, d: u32, win: bool, result: bool, mv: u8) {
        if let Some(t) = &self.shared {
            let mut k = t.get(key);
            k.record(d, win, result, mv);
            t.set(key, k);
            return;
        }
        let slot = key as usize & self.mask;
        let mut k = if self.keys[slot] == key {
            Known::unpack(self.known[slot])
        } else {
            Known::NONE
        };
        k.record(d, win, result, mv);
        self.keys[slot] = key;
        self.known[slot] = k.pack();
    }

    /// The exact length of the game, searched only as far as `cap`: `Ok` with the length if it
    /// is at most `cap`, `Err(n)` with a lower bound `n > cap` on it otherwise (in either
    /// parity allowed by `value`). `None` if stopped.
    pub fn length_within(
        &mut self,
        cx: &mut Ctx<'_>,
        safe: Bits,
        value: Option<bool>,
        cap: u32,
    ) -> Option<Result<u32, u32>> {
        if safe.is_empty() {
            return Some(Ok(0));
        }
        let node = self.root(cx.config, safe);
        let mut d = node.fewest.max(1);
        if let Some(win) = value
            && (d % 2 == 1) != win
        {
            d += 1;
        }
        while d <= cap {
            let win = d % 2 == 1;
            if self.test(cx, node, d, win)?.0 {
                return Some(Ok(d));
            }
            d += if value.is_some() { 2 } else { 1 };
        }
        Some(Err(d))
    }

    /// For a sum won (lost) in exactly `d` selections, a selection that keeps to it: after it
    /// the opponent loses within `d − 1`, or (a loss) needs all `d − 1` to win.
    fn best_reply(&mut self, cx: &mut Ctx<'_>, node: Node, d: u32, win: bool) -> Option<u8> {
        let mut first = NO_MOVE;
        for i in node.start..node.end {
            let region = self.stack[i];
            for a in region.anchors.iter() {
                let child = self.child(cx.config, node, i, a);
                if first == NO_MOVE {
                    first = a as u8;
                }
                let keeps = if win {
                    self.test(cx, child, d - 1, false)?.0
                } else {
                    !(d >= 3 && self.test(cx, child, d - 3, true)?.0)
                };
                self.stack.truncate(child.start);
                if keeps {
                    return Some(a as u8);
                }
            }
        }
        Some(first)
    }

    /// The selections of a sum.
    fn anchors(&self, node: Node) -> Bits {
        self.stack[node.start..node.end]
            .iter()
            .fold(Bits::EMPTY, |acc, r| acc | r.anchors)
    }

    /// Pushes the child of `node` after the selection `a` in its region `i`.
    fn child(&mut self, config: &Config, node: Node, i: usize, a: u32) -> Node {
        let start = self.stack.len();
        for j in node.start..node.end {
            if j != i {
                let r = self.stack[j];
                self.stack.push(r);
            }
        }
        let region = self.stack[i];
        let rest = region.anchors.without(self.near[a as usize]);
        let (added, fewest, most) = self.push_split(config, rest);
        Node {
            start,
            end: self.stack.len(),
            key: node.key.wrapping_sub(mix(region.hash)).wrapping_add(added),
            fewest: node.fewest - region.fewest + fewest,
            most: node.most - region.most + most,
        }
    }

    /// Whether the seat to move in `node` wins (`win`, `d` odd) or loses (`d` even) within `d`
    /// selections, and the selection that decided it (the winning one, or the reply that
    /// refutes a loss within `d`). `None` if stopped.
    fn test(&mut self, cx: &mut Ctx<'_>, node: Node, d: u32, win: bool) -> Option<(bool, u8)> {
        self.test_share(cx, node, d, win, Share::ALL)
    }

    /// [`Self::test`] searching only the children this search claims in `share` (all of them
    /// are bounded and looked up); when those are exhausted without deciding, the answer is
    /// partial and
    /// not stored.
    fn test_share(
        &mut self,
        cx: &mut Ctx<'_>,
        node: Node,
        d: u32,
        win: bool,
        share: Share<'_>,
    ) -> Option<(bool, u8)> {
        if node.start == node.end {
            // No selection left: the seat to move has lost, in 0 selections.
            return Some((!win, NO_MOVE));
        }
        if node.fewest > d {
            return Some((false, NO_MOVE));
        }
        let known = self.probe(node.key);
        if let Some(r) = known.answer(d, win) {
            return Some((r, known.mv));
        }
        if cx.limits.tick() {
            return None;
        }
        if d >= node.most {
            // The budget no longer limits: the test asks for the value alone.
            let anchors = self.anchors(node);
            let value = cx.oracle.normal_play(cx.config, anchors, cx.limits)?;
            // The length has the value's parity and is at most `most`.
            let most = node.most - u32::from((node.most % 2 == 1) != value);
            let at = if value == win {
                most
            } else {
                u32::from(NEVER) - 1
            };
            self.store(node.key, at, win, value == win, NO_MOVE);
            return Some((value == win, NO_MOVE));
        }
        // Every selection's child is bounded and looked up first; those left open are
        // searched after, in order.
        let mut open: Vec<(u32, u32, usize, usize, u32)> = Vec::new();
        // Each child's place in an order fixed by the position alone (claims are by place).
        let mut place = 0;
        for i in node.start..node.end {
            let region = self.stack[i];
            if self.stack[node.start..i]
                .iter()
                .any(|r| r.hash == region.hash)
            {
                // The same shape as an earlier region: the same children.
                continue;
            }
            let base = node.key.wrapping_sub(mix(region.hash));
            for a in region.anchors.iter() {
                place += 1;
                let rest = region.anchors.without(self.near[a as usize]);
                let mark = self.stack.len();
                let (added, fewest, _) = self.push_split(cx.config, rest);
                let empty = self.stack.len() == mark && node.end - node.start == 1;
                self.stack.truncate(mark);
                if empty {
                    // The last selection: a win in one.
                    self.store(node.key, d, win, win, a as u8);
                    return Some((win, a as u8));
                }
                let fewest = node.fewest - region.fewest + fewest;
                let key = base.wrapping_add(added);
                // The opponent must lose (`win`) or win (`!win`) within d − 1.
                let answer = if fewest > d - 1 {
                    Some(false)
                } else {
                    self.probe(key).answer(d - 1, !win)
                };
                match (answer, win) {
                    (Some(true), true) => {
                        self.store(node.key, d, win, true, a as u8);
                        return Some((true, a as u8));
                    }
                    (Some(false), false) => {
                        self.store(node.key, d, win, false, a as u8);
                        return Some((false, a as u8));
                    }
                    (Some(_), _) => {}
                    (None, _) => {
                        let removed = (region.anchors & self.near[a as usize]).count();
                        let first = u32::from(a as u8 != known.mv);
                        // The winner first tries the selections removing the most, the loser
                        // those removing the fewest.
                        let rank = if win { 64 - removed } else { removed };
                        open.push((first, rank, place, i, a));
                    }
                }
            }
        }
        if open.is_empty() {
            self.store(node.key, d, win, !win, NO_MOVE);
            return Some((!win, NO_MOVE));
        }
        let anchors = self.anchors(node);
        if share.claims.is_none() && anchors.count() >= ORACLE_MIN_MOVES {
            let value = cx.oracle.normal_play(cx.config, anchors, cx.limits)?;
            if value != win {
                self.store(node.key, u32::from(NEVER) - 1, win, false, NO_MOVE);
                return Some((false, NO_MOVE));
            }
        }
        open.sort_unstable();
        for &(_, _, place, i, a) in &open {
            if share.other_decided() {
                return Some((!win, NO_MOVE));
            }
            if !share.claim(place) {
                continue;
            }
            let child = self.child(cx.config, node, i, a);
            let r = self.test(cx, child, d - 1, !win);
            self.stack.truncate(child.start);
            let (r, _) = r?;
            if r == win {
                // The winner found a selection that wins in time, or the loser one that lasts.
                self.store(node.key, d, win, win, a as u8);
                return Some((win, a as u8));
            }
        }
        if share.claims.is_none() {
            self.store(node.key, d, win, !win, NO_MOVE);
        }
        Some((!win, NO_MOVE))
    }
}

/// Solves a normal-play game on the safe selections `safe` exactly: the value, the length under
/// optimal play and an optimal selection, and the nodes visited; `None` if stopped.
///
/// Tests to win come first, `d` rising by two from the lower bound (a test whose budget reaches
/// the most selections the game can take asks for the value alone); if none succeeds, the seat
/// to move loses, and tests to lose follow. They run on `threads` threads, each with a distance
/// solver and a region solver (tables of `1 << plies_bits` and `1 << oracle_bits` entries; with
/// several threads the distance table and the normal-play values are shared, the values in
/// `1 << (oracle_bits + 1)` entries, the distances in `1 << (plies_bits - 1)` of two words
/// each): every test at the root bounds and looks up all the root's
/// selections in each, the threads claim those left open one at a time, and once one decides
/// the test the others take no further selection.
pub fn solve(
    config: &Config,
    safe: Bits,
    threads: usize,
    (plies_bits, oracle_bits): (u32, u32),
    stop: Option<Arc<AtomicBool>>,
) -> Option<(Plies, u64)> {
    if safe.is_empty() {
        let none = Plies {
            win: false,
            moves: 0,
            best: None,
        };
        return Some((none, 0));
    }
    let threads = threads.max(1);
    // With several threads the values of normal-play games are shared (the slowest part, and
    // what the threads would otherwise repeat for one another), and so is the distance table.
    // The values' table is twice the size (10×10 2×2 poison 1,1: 68 s with 2^25 entries, 64 s
    // with 2^26, 65 s with 2^27). The distance table's entries take two words there, so half
    // as many fill the same memory (55.6 and 58.6 s against 61.7 and 60.1 s with as many).
    let shared = (threads > 1).then(|| SharedValues::new(oracle_bits + 1));
    let known = (threads > 1).then(|| SharedKnown::new(plies_bits - 1));
    let mut sides: Vec<(PliesSolver, RegionSolver)> = (0..threads)
        .map(|_| {
            let mut p = PliesSolver::new(config, if known.is_some() { 10 } else { plies_bits });
            p.shared = known.clone();
            let oracle = RegionSolver::new(oracle_bits);
            (
                p,
                match &shared {
                    Some(t) => oracle.with_shared(Arc::clone(t)),
                    None => oracle,
                },
            )
        })
        .collect();
    let (fewest, most) = {
        let p = &mut sides[0].0;
        let node = p.root(config, safe);
        (node.fewest, node.most)
    };
    let mut nodes = 0;
    let mut win = true;
    let mut d = fewest.max(1);
    loop {
        if (d % 2 == 1) != win {
            d += 1;
        }
        let decided = AtomicBool::new(false);
        // One claim per root selection (places count from 1).
        let claims: Vec<AtomicBool> = (0..=safe.count()).map(|_| AtomicBool::new(false)).collect();
        let results: Vec<Option<((bool, u8), u64)>> = std::thread::scope(|s| {
            let handles: Vec<_> = sides
                .iter_mut()
                .map(|(p, oracle)| {
                    let (decided, claims, stop) = (&decided, &claims, stop.clone());
                    s.spawn(move || {
                        let mut limits = Limits::unlimited(stop);
                        let mut cx = Ctx {
                            config,
                            oracle,
                            limits: &mut limits,
                        };
                        let node = p.root(config, safe);
                        let share = Share {
                            claims: Some(claims),
                            decided: Some(decided),
                        };
                        let r = p.test_share(&mut cx, node, d, win, share);
                        if r.is_some_and(|(x, _)| x == win) {
                            decided.store(true, Ordering::Relaxed);
                        }
                        r.map(|r| (r, limits.nodes))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
        // A test is decided by one selection: a win in time, or a loss refuted.
        let mut decisive = None;
        for r in results {
            let ((x, mv), n) = r?;
            nodes += n;
            if x == win {
                decisive = Some(mv);
            }
        }
        if decisive.is_some() == win {
            let best = match decisive {
                Some(mv) if mv != NO_MOVE => mv,
                _ => {
                    let (p, oracle) = &mut sides[0];
                    let mut limits = Limits::unlimited(stop.clone());
                    let mut cx = Ctx {
                        config,
                        oracle,
                        limits: &mut limits,
                    };
                    let node = p.root(config, safe);
                    let mv = p.best_reply(&mut cx, node, d, win);
                    nodes += limits.nodes;
                    mv?
                }
            };
            let plies = Plies {
                win,
                moves: d,
                best: (best != NO_MOVE).then_some(u32::from(best)),
            };
            return Some((plies, nodes));
        }
        if win && d >= most {
            win = false;
            d = fewest.max(1);
        } else {
            d += 2;
        }
    }
}

/// Which of the open children a test searches: all of them, or (searches sharing them) each
/// one whose claim by place it wins; such a search stops once `decided` says another decided
/// the test.
#[derive(Clone, Copy)]
struct Share<'a> {
    claims: Option<&'a [AtomicBool]>,
    decided: Option<&'a AtomicBool>,
}

impl Share<'_> {
    const ALL: Share<'static> = Share {
        claims: None,
        decided: None,
    };

    /// Whether this search takes the child at `place` (no other took it first).
    fn claim(self, place: usize) -> bool {
        self.claims
            .and_then(|c| c.get(place))
            .is_none_or(|f| !f.swap(true, Ordering::Relaxed))
    }

    fn other_decided(self) -> bool {
        self.decided.is_some_and(|f| f.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::board;
    use std::collections::HashMap;

    /// Value and length of the normal-play game on `anchors` by exhaustive minimax (the winner
    /// hurries, the loser delays), with overlaps taken from the rectangles themselves.
    fn brute(config: &Config, anchors: Bits, memo: &mut HashMap<Bits, (bool, u32)>) -> (bool, u32) {
        if anchors.is_empty() {
            return (false, 0);
        }
        if let Some(&v) = memo.get(&anchors) {
            return v;
        }
        let mut fastest_win = None::<u32>;
        let mut longest_loss = 0;
        for a in anchors.iter() {
            let rect = config.rect(Cell::from_index(a));
            let rest = anchors
                .iter()
                .filter(|&b| !config.rect(Cell::from_index(b)).intersects(rect))
                .fold(Bits::EMPTY, |acc, b| acc | Bits::single(b));
            let (child_wins, n) = brute(config, rest, memo);
            if child_wins {
                longest_loss = longest_loss.max(n + 1);
            } else {
                fastest_win = Some(fastest_win.map_or(n + 1, |f| f.min(n + 1)));
            }
        }
        let v = match fastest_win {
            Some(n) => (true, n),
            None => (false, longest_loss),
        };
        memo.insert(anchors, v);
        v
    }

    /// The game after the selection `a`: the selections whose rectangle misses its own.
    fn after(config: &Config, anchors: Bits, a: u32) -> Bits {
        let rect = config.rect(Cell::from_index(a));
        anchors
            .iter()
            .filter(|&b| !config.rect(Cell::from_index(b)).intersects(rect))
            .fold(Bits::EMPTY, |acc, b| acc | Bits::single(b))
    }

    #[test]
    fn lengths_values_and_best_selections_match_exhaustive_minimax() {
        // The selections of random sets of cells (often several regions, some of one shape) on
        // 2×2, 2×3, 1×2 and 3×1 eats, solved on one and two threads, and lengths capped with the
        // value given, against brute force.
        let mut rng = crate::Rng::new(77);
        let mut seen = [0; 2];
        for notation in [
            "12x12 eat 2x2 poison 11,11",
            "12x12 eat 2x3 poison 11,11",
            "12x12 eat 1x2 poison 11,11",
            "12x12 eat 3x1 poison 11,11",
        ] {
            let c = board(notation);
            let mut memo = HashMap::new();
            for round in 0..40 {
                // The selections of a random set of uneaten cells (a set of selections that a
                // position can have).
                let mut cells = Bits::EMPTY;
                let (rows, cols) = (4 + rng.below(3) as u8, 4 + rng.below(3) as u8);
                for r in 0..rows {
                    for col in 0..cols {
                        if rng.below(10) < 8 {
                            cells |= Bits::single(Bits::index(r, col));
                        }
                    }
                }
                let anchors = c.selections_in(cells);
                let (win, moves) = brute(&c, anchors, &mut memo);
                seen[usize::from(win)] += 1;
                let mut solver = PliesSolver::new(&c, 12);
                let mut oracle = RegionSolver::new(12);
                let mut limits = Limits::unlimited(None);
                let mut cx = Ctx {
                    config: &c,
                    oracle: &mut oracle,
                    limits: &mut limits,
                };
                for threads in [1, 2] {
                    let (p, _) = solve(&c, anchors, threads, (12, 12), None).unwrap();
                    assert_eq!(
                        (p.win, p.moves),
                        (win, moves),
                        "{notation} round {round} on {threads} threads"
                    );
                    if let Some(best) = p.best {
                        // The selection keeps the value and the length.
                        let (child_wins, n) = brute(&c, after(&c, anchors, best), &mut memo);
                        assert_eq!((!child_wins, n + 1), (win, moves), "{notation} {round}");
                    } else {
                        assert!(anchors.is_empty());
                    }
                }
                let capped = solver.length_within(&mut cx, anchors, Some(win), moves);
                assert_eq!(capped, Some(Ok(moves)));
                if moves >= 2 {
                    let short = solver.length_within(&mut cx, anchors, Some(win), moves - 2);
                    assert!(matches!(short, Some(Err(n)) if n > moves - 2));
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 10), "{seen:?}");
    }

    #[test]
    fn fewest_bounds_the_selections_of_any_game() {
        // The bound never exceeds the shortest game (every maximal set of selections that do
        // not overlap): held against brute force on random sets.
        fn shortest(c: &Config, anchors: Bits, memo: &mut HashMap<Bits, u32>) -> u32 {
            if let Some(&n) = memo.get(&anchors) {
                return n;
            }
            let n = anchors
                .iter()
                .map(|a| 1 + shortest(c, after(c, anchors, a), memo))
                .min()
                .unwrap_or(0);
            memo.insert(anchors, n);
            n
        }
        let mut rng = crate::Rng::new(5);
        for notation in ["12x12 eat 2x2 poison 11,11", "12x12 eat 2x3 poison 11,11"] {
            let c = board(notation);
            let solver = PliesSolver::new(&c, 10);
            let mut memo = HashMap::new();
            for _ in 0..30 {
                let mut anchors = Bits::EMPTY;
                for r in 0..4 {
                    for col in 0..5 {
                        if rng.below(10) < 6 {
                            anchors |= Bits::single(Bits::index(r, col));
                        }
                    }
                }
                // The bound holds on any set of selections, possible in a position or not.
                let mut bound = 0;
                regions::split(&c, anchors, |r| bound += solver.fewest(r));
                assert!(
                    bound <= shortest(&c, anchors, &mut memo),
                    "{notation} {anchors:?}"
                );
            }
        }
    }
}
