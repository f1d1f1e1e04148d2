//! Two-sided search: negamax with alpha-beta, a transposition table, table-move-first then
//! history ordering, proven scores with distances, and the heuristic at the horizon.
//!
//! With two players the sides are the two seats. With three or four it is the *paranoid*
//! search: the searching seat against a coalition of all the others, which wants it to lose.
//!
//! Every call also says whether its score is *proven*: true when no horizon evaluation lay
//! under it, so a proven tie is told apart from a heuristic 0. Proven results are stored with
//! depth [`PROVEN`] and never searched again.

use super::eval;
use super::key::{config_salt, seat_salt};
use super::key::{cover, hash};
use super::limits::Limits;
use super::plies::{Ctx, PliesSolver};
use super::regions::{self, RegionSolver};
use super::root::RootSearch;
use super::score::PROVEN_WIN;
use super::score::{INF, WIN};
use super::trivial::cannot_reach_poison;
use super::tt::{NO_MOVE, Table};
use jchomp_rules::{Bits, Cell, Config, Position, Seat, Status};
use std::ops::ControlFlow;

/// Largest number of selections a position can have (15 × 15 board, 1 × 1 eat).
pub const MAX_MOVES: usize = 225;

/// The anchors of `set` as move indices in `buffer`, with `tt_move` (the table's best move, if
/// it is among them) first.
pub(super) fn table_move_first(set: Bits, tt_move: u8, buffer: &mut [u8; MAX_MOVES]) -> &mut [u8] {
    let mut n = 0;
    for i in set.iter() {
        buffer[n] = i as u8;
        n += 1;
    }
    let moves = &mut buffer[..n];
    if let Some(k) = moves.iter().position(|&m| m == tt_move) {
        moves.swap(0, k);
    }
    moves
}

/// Positions with fewer safe selections are searched without asking the region solver: they
/// are cheaper to search than to reduce.
const ORACLE_MIN_MOVES: u32 = 6;

/// Nodes this close to the horizon skip the table (their probes cost more than they save).
const TABLE_MIN_DEPTH: u32 = 2;

/// A negamax searcher over one configuration, borrowing a table and limits.
pub struct Negamax<'a> {
    config: &'a Config,
    tt: &'a mut Table,
    limits: &'a mut Limits,
    history: [u32; 256],
    /// The searching seat in a paranoid search; `None` with two players.
    paranoid: Option<Seat>,
    /// The searching seat.
    root: Seat,
    /// How much worse than 0 a tie is for the searching side (and better for the other).
    contempt: i32,
    salt: u64,
    /// Exact win / tie / loss values from the region solver, for exact solving.
    oracle: Option<&'a mut RegionSolver>,
    /// Exact distances of positions where a poison can never be cut off.
    plies: Option<&'a mut PliesSolver>,
}

impl<'a> Negamax<'a> {
    /// A searcher for `config`. With more than two players it searches paranoid for `seat`.
    pub fn new(config: &'a Config, tt: &'a mut Table, limits: &'a mut Limits, seat: Seat) -> Self {
        Negamax {
            config,
            tt,
            limits,
            history: [0; 256],
            paranoid: (config.players() > 2).then_some(seat),
            root: seat,
            contempt: 0,
            salt: config_salt(config),
            oracle: None,
            plies: None,
        }
    }

    /// Consults the region solver at every node: ties return at once, and the window shrinks
    /// to the proven outcome, so only distances are left to search (two players only). A
    /// position where a poison can no longer be cut off goes to the distance solver `plies`
    /// (normal play on the safe selections), which needs no search below it here.
    pub fn with_oracle(mut self, oracle: &'a mut RegionSolver, plies: &'a mut PliesSolver) -> Self {
        if self.paranoid.is_none() {
            self.oracle = Some(oracle);
            self.plies = Some(plies);
        }
        self
    }

    /// Scores ties `-contempt` for the searching side (`+contempt` for the other), so that a
    /// bot prefers playing on for a win over a certain tie against a weaker opponent. Exact
    /// solving uses 0.
    pub fn with_contempt(mut self, contempt: i32) -> Self {
        self.contempt = contempt;
        self
    }

    /// The table key of a position with `mover` to move, and its safe selections `safe` less
    /// those that cannot lead anywhere new: in exact solving, the selections of a poison-free
    /// region whose shape an earlier region of the position repeats (the two lead to the same
    /// sums of regions).
    #[inline]
    fn key(&self, position: &Position, mover: Seat, safe: Bits) -> (u64, Bits) {
        let (cells, safe) = if self.oracle.is_some() {
            // Exact solving: positions that are the same sum of regions share one entry.
            regions::sum_key(self.config, position.selections(), safe)
        } else {
            (hash(cover(self.config, position.selections())), safe)
        };
        let mut key = cells ^ self.salt;
        if let Some(root) = self.paranoid {
            key ^= seat_salt(mover, 0) ^ seat_salt(root, 1);
        } else if self.contempt != 0 {
            key ^= seat_salt(u8::from(mover == self.root), 3);
        }
        (key, safe)
    }

    /// The score of a tie for `mover`.
    #[inline]
    fn tie(&self, mover: Seat) -> i32 {
        if self.same_side(mover, self.root) {
            -self.contempt
        } else {
            self.contempt
        }
    }

    /// Whether two seats are on the same side.
    #[inline]
    fn same_side(&self, a: Seat, b: Seat) -> bool {
        match self.paranoid {
            None => a == b,
            Some(root) => (a == root) == (b == root),
        }
    }

    /// The score of playing `mv` (a safe selection) at a node `ply` plies from the root.
    #[inline]
    fn child(
        &mut self,
        position: &Position,
        mv: u8,
        depth: u32,
        ply: u32,
        alpha: i32,
        beta: i32,
    ) -> (i32, bool) {
        let mut child = *position;
        child.play(self.config, Cell::from_index(u32::from(mv)));
        match child.status() {
            // A safe selection never poisons: the game can only end in a tie here.
            Status::Over(_) => {
                self.limits.tick();
                (self.tie(position.to_move().unwrap_or(self.root)), true)
            }
            Status::ToMove(next) => {
                let mover = position.to_move().unwrap_or(next);
                if self.same_side(mover, next) {
                    self.negamax(&child, depth - 1, ply + 1, alpha, beta)
                } else {
                    let (v, p) = self.negamax(&child, depth - 1, ply + 1, -beta, -alpha);
                    (-v, p)
                }
            }
        }
    }

    /// The value of `position` for the seat to move, `ply` plies from the root, searched
    /// `depth` more plies, and whether it is proven.
    pub fn negamax(
        &mut self,
        position: &Position,
        depth: u32,
        ply: u32,
        mut alpha: i32,
        mut beta: i32,
    ) -> (i32, bool) {
        if self.limits.tick() {
            return (0, false);
        }
        let config = self.config;
        let all_safe = position.safe_selections(config);
        if all_safe.is_empty() {
            // Only poisoned selections are left: the seat to move eats poison next ply.
            return (-(WIN - ply as i32 - 1), true);
        }
        let mover = position.to_move().unwrap_or(0);
        if cannot_reach_poison(config, position) {
            // No selection can ever reach poison again: the game will tie.
            return (self.tie(mover), true);
        }
        // Just above the horizon a table probe (a likely cache miss) costs more than it saves.
        let use_table = depth >= TABLE_MIN_DEPTH;
        let (key, safe) = if use_table {
            self.key(position, mover, all_safe)
        } else {
            (0, all_safe)
        };
        let (tt_move, settled) = if use_table {
            self.tt.lookup(key, depth, ply, (alpha, beta))
        } else {
            (NO_MOVE, None)
        };
        if let Some(scored) = settled {
            return scored;
        }
        let known = match self.ask_oracle(position, safe, mover, (&mut alpha, &mut beta)) {
            ControlFlow::Break(scored) => return scored,
            ControlFlow::Continue(known) => known,
        };
        if let Some(win) = known
            && regions::unkillable(config, position.selections(), all_safe)
            && let Some(scored) = self.distance(all_safe, win, ply, (alpha, beta))
        {
            return scored;
        }
        if depth == 0 {
            return (self.horizon(position, mover), false);
        }
        let mut buffer = [0u8; MAX_MOVES];
        let moves = self.ordered(safe, tt_move, depth, &mut buffer);
        let Some((best, best_move, proven)) =
            self.best_child(position, moves, depth, ply, (alpha, beta))
        else {
            return (0, false);
        };
        if use_table {
            self.tt
                .record(key, depth, ply, (alpha, beta), best, best_move, proven);
        }
        (best, proven)
    }

    /// Asks the region solver (when there is one and the node has enough safe selections
    /// `safe`) for only as much of the node's value as the window needs: whether it beats a
    /// tie when a tie cannot raise alpha, whether it falls short of one when a tie reaches
    /// beta. Breaks with the node's score when that settles it (`(0, false)` once stopped);
    /// otherwise goes on with the proven outcome, if any (a win `true`), the window narrowed
    /// to it. Exact solving scores a tie 0: the oracle is used without contempt.
    #[inline]
    fn ask_oracle(
        &mut self,
        position: &Position,
        safe: Bits,
        mover: Seat,
        (alpha, beta): (&mut i32, &mut i32),
    ) -> ControlFlow<(i32, bool), Option<bool>> {
        let Some(oracle) = self
            .oracle
            .as_deref_mut()
            .filter(|_| safe.count() >= ORACLE_MIN_MOVES)
        else {
            return ControlFlow::Continue(None);
        };
        let low = if *alpha >= 0 { 0 } else { -1 };
        let high = if *beta <= 0 { 0 } else { 1 };
        match oracle.solve_window(self.config, position, low, high, self.limits) {
            None => ControlFlow::Break((0, false)),
            // A tie, or at least one when that reaches beta, or at most one when that cannot
            // raise alpha: 0 is the exact score or a bound on the right side.
            Some(0) => ControlFlow::Break((self.tie(mover), true)),
            Some(1) if *beta <= PROVEN_WIN => ControlFlow::Break((PROVEN_WIN + 1, true)),
            Some(1) => {
                *alpha = (*alpha).max(PROVEN_WIN);
                ControlFlow::Continue(Some(true))
            }
            Some(_) if *alpha >= -PROVEN_WIN => ControlFlow::Break((-PROVEN_WIN - 1, true)),
            Some(_) => {
                *beta = (*beta).min(-PROVEN_WIN);
                ControlFlow::Continue(Some(false))
            }
        }
    }

    /// The proven score of a node where no poison can be cut off any more, from the distance
    /// solver: normal play on the safe selections `safe`, `F` of them left under best play,
    /// scores `WIN − (ply + F + 1)` for a win (`win`), its negation for a loss. Only the
    /// lengths that keep the score inside the window are tested; a longer one is a bound.
    /// `(0, false)` once stopped; `None` without a distance solver.
    fn distance(
        &mut self,
        safe: Bits,
        win: bool,
        ply: u32,
        (alpha, beta): (i32, i32),
    ) -> Option<(i32, bool)> {
        let (Some(plies), Some(oracle)) = (self.plies.as_deref_mut(), self.oracle.as_deref_mut())
        else {
            return None;
        };
        let inside = WIN - ply as i32 - 2 + if win { -alpha } else { beta };
        let cap = inside.clamp(0, 255) as u32;
        let mut cx = Ctx {
            config: self.config,
            oracle,
            limits: self.limits,
        };
        let f = match plies.length_within(&mut cx, safe, Some(win), cap) {
            None => return Some((0, false)),
            Some(Ok(f) | Err(f)) => f as i32,
        };
        let s = WIN - (ply as i32 + f + 1);
        Some((if win { s } else { -s }, true))
    }

    /// The heuristic score of `position` at the horizon for `mover`.
    fn horizon(&self, position: &Position, mover: Seat) -> i32 {
        match self.paranoid {
            None => eval::two_player(self.config, position),
            Some(_) => {
                let loser = eval::expected_loser(self.config, position, mover);
                if self.same_side(loser, mover) {
                    -eval::UNIT
                } else {
                    eval::UNIT
                }
            }
        }
    }

    /// The selections `safe` in search order, in `buffer`: the table's move `tt_move` first,
    /// then (away from the horizon) by the history heuristic.
    #[inline]
    fn ordered<'b>(
        &self,
        safe: Bits,
        tt_move: u8,
        depth: u32,
        buffer: &'b mut [u8; MAX_MOVES],
    ) -> &'b [u8] {
        let moves = table_move_first(safe, tt_move, buffer);
        if depth >= 2 {
            let start = usize::from(tt_move != NO_MOVE && moves[0] == tt_move);
            let history = &self.history;
            moves[start..].sort_unstable_by_key(|&m| std::cmp::Reverse(history[m as usize]));
        }
        moves
    }

    /// Searches `moves` in order within the window `(alpha, beta)` until one reaches beta (it
    /// earns history): the best score, its move and whether every searched score is proven;
    /// `None` once stopped.
    #[inline]
    fn best_child(
        &mut self,
        position: &Position,
        moves: &[u8],
        depth: u32,
        ply: u32,
        (mut alpha, beta): (i32, i32),
    ) -> Option<(i32, u8, bool)> {
        let mut best = -INF;
        let mut best_move = NO_MOVE;
        let mut proven = true;
        for &mv in moves {
            let (s, p) = self.child(position, mv, depth, ply, alpha, beta);
            if self.limits.stopped() {
                return None;
            }
            proven &= p;
            if s > best {
                best = s;
                best_move = mv;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        self.history[mv as usize] += depth * depth;
                        break;
                    }
                }
            }
        }
        Some((best, best_move, proven))
    }
}

impl RootSearch for Negamax<'_> {
    fn limits(&mut self) -> &mut Limits {
        self.limits
    }

    fn score_move(&mut self, position: &Position, mv: u8, depth: u32, alpha: i32) -> (i32, bool) {
        self.child(position, mv, depth, 0, alpha, INF)
    }
}
