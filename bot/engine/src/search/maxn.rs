//! The max^n search for three and four players: every seat maximises its own score, a vector
//! with one entry per seat. Proven results count plies as in two-player search (a non-loser
//! hurries, the loser delays); horizon estimates are small.

use super::eval;
use super::key::{config_salt, cover, hash, seat_salt};
use super::limits::Limits;
use super::root::RootSearch;
use super::score::{PROVEN_WIN, WIN};
use super::trivial::cannot_reach_poison;
use super::two::{MAX_MOVES, table_move_first};
use jchomp_rules::{Cell, Config, Position, Status};

/// One score per seat (unused seats stay 0).
pub type Scores = [i32; 4];

#[derive(Clone, Copy, Debug)]
struct Slot {
    key: u64,
    scores: [i16; 4],
    mv: u8,
    depth: u8,
}

const EMPTY: Slot = Slot {
    key: 0,
    scores: [0; 4],
    mv: 255,
    depth: 0,
};

const PROVEN: u8 = 255;

/// The max^n transposition table: one slot per index, always replaced.
#[derive(Clone, Debug)]
pub struct VectorTable {
    slots: Vec<Slot>,
    mask: usize,
}

impl VectorTable {
    /// A table of `1 << bits` slots.
    pub fn new(bits: u32) -> VectorTable {
        VectorTable {
            slots: vec![EMPTY; 1 << bits],
            mask: (1 << bits) - 1,
        }
    }
}

/// A max^n searcher.
pub struct MaxN<'a> {
    config: &'a Config,
    tt: &'a mut VectorTable,
    limits: &'a mut Limits,
    salt: u64,
}

/// Scores proven or estimated `ply` plies from the root, with `loser` losing.
fn losing(loser: usize, magnitude: i32) -> Scores {
    let mut v = [magnitude; 4];
    v[loser] = -magnitude;
    v
}

impl<'a> MaxN<'a> {
    /// A searcher for `config`.
    pub fn new(config: &'a Config, tt: &'a mut VectorTable, limits: &'a mut Limits) -> Self {
        MaxN {
            config,
            tt,
            limits,
            salt: config_salt(config),
        }
    }

    #[inline]
    fn child(&mut self, position: &Position, mv: u8, depth: u32, ply: u32) -> (Scores, bool) {
        let mut child = *position;
        child.play(self.config, Cell::from_index(u32::from(mv)));
        match child.status() {
            Status::Over(_) => {
                self.limits.tick();
                ([0; 4], true)
            }
            Status::ToMove(_) => self.maxn(&child, depth - 1, ply + 1),
        }
    }

    /// Every seat's score of `position`, `ply` plies from the root, searched `depth` more
    /// plies, and whether it is proven.
    pub fn maxn(&mut self, position: &Position, depth: u32, ply: u32) -> (Scores, bool) {
        if self.limits.tick() {
            return ([0; 4], false);
        }
        let config = self.config;
        let Some(mover) = position.to_move() else {
            return ([0; 4], true);
        };
        let safe = position.safe_selections(config);
        if safe.is_empty() {
            return (losing(mover as usize, WIN - ply as i32 - 1), true);
        }
        if cannot_reach_poison(config, position) {
            return ([0; 4], true);
        }
        if depth == 0 {
            let loser = eval::expected_loser(config, position, mover);
            return (losing(loser as usize, eval::UNIT), false);
        }
        let key = hash(cover(config, position.selections())) ^ seat_salt(mover, 2) ^ self.salt;
        let slot = self.tt.slots[key as usize & self.tt.mask];
        let mut tt_move = 255;
        if slot.key == key && slot.depth > 0 {
            tt_move = slot.mv;
            if slot.depth == PROVEN || u32::from(slot.depth) >= depth {
                let mut v = [0; 4];
                for (out, &s) in v.iter_mut().zip(&slot.scores) {
                    *out = from_node(s, ply);
                }
                return (v, slot.depth == PROVEN);
            }
        }
        let mut buffer = [0u8; MAX_MOVES];
        let moves = table_move_first(safe, tt_move, &mut buffer);
        let me = mover as usize;
        let mut best: Option<(Scores, u8)> = None;
        let mut proven = true;
        for &mv in moves.iter() {
            let (v, p) = self.child(position, mv, depth, ply);
            if self.limits.stopped() {
                return ([0; 4], false);
            }
            proven &= p;
            if best.is_none_or(|(b, _)| v[me] > b[me]) {
                best = Some((v, mv));
                if v[me] > PROVEN_WIN && p {
                    // A proven non-loss for the mover: nothing else is worth looking at.
                    break;
                }
            }
        }
        let Some((v, mv)) = best else {
            return ([0; 4], true);
        };
        let mut stored = [0i16; 4];
        for (out, &s) in stored.iter_mut().zip(&v) {
            *out = to_node(s, ply);
        }
        self.tt.slots[key as usize & self.tt.mask] = Slot {
            key,
            scores: stored,
            mv,
            depth: if proven { PROVEN } else { depth.min(254) as u8 },
        };
        (v, proven)
    }
}

fn to_node(s: i32, ply: u32) -> i16 {
    super::score::to_table(s, ply)
}

fn from_node(s: i16, ply: u32) -> i32 {
    super::score::from_table(s, ply)
}

impl RootSearch for MaxN<'_> {
    fn limits(&mut self) -> &mut Limits {
        self.limits
    }

    /// The mover's own score: max^n keeps no window.
    fn score_move(&mut self, position: &Position, mv: u8, depth: u32, _alpha: i32) -> (i32, bool) {
        let mover = position.to_move().map_or(0, usize::from);
        let (v, proven) = self.child(position, mv, depth, 0);
        (v[mover], proven)
    }
}
