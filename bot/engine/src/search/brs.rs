//! Best-Reply Search+ for any number of seats (Schadd and Winands' BRS with the BRS+ ordering of
//! Esser et al.): the searching seat against one best-replying opponent at a time.
//!
//! **Layers.** The tree alternates two kinds of layer. In a *max* layer the searching seat (the
//! root) moves. A *min* layer stands for one whole round of the other seats, in turn order: each
//! opponent in turn may be the one that replies with every one of its safe selections, while each
//! other opponent plays its *ordered move* (BRS+): the immediate win if it has one, else the
//! selection the history heuristic ranks first (lowest cell on equal counts). The min layer takes
//! the reply worst for the root. Unlike plain BRS, where the other opponents pass, every seat
//! still moves in its turn, so the parity the game turns on is kept. With two seats a min layer is
//! the opponent's move and the search is plain alpha-beta.
//!
//! **Scores** are the root's: a loss `p` plies away `-(WIN - p)`, any other seat's loss (worth a
//! whole point to the root, as a win is) `WIN - p`, a tie [`TIE`], the horizon estimate ±100
//! ([`eval::expected_loser`]). *Proven* means no horizon lay below, within this tree: the other
//! opponents' ordered moves are real moves, so a proven loss is a line the opponents can really
//! play (the root loses against every seat together), while a proven win may rest on an opponent
//! playing its ordered move.
//!
//! **Depth** counts layers: depth 1 sees the root's selections, depth 2 also the round of
//! replies after each (so every line where a single opponent's reply, the others playing their
//! ordered moves, leaves the root stuck), and so on. Iterative deepening, a transposition table
//! and the history heuristic as in [`super::two`].

use super::eval;
use super::key::{config_salt, cover, hash, seat_salt};
use super::limits::Limits;
use super::mcts::immediate_win;
use super::root::RootSearch;
use super::score::{INF, WIN};
use super::trivial::decided;
use super::tt::{NO_MOVE, Table};
use super::two::MAX_MOVES;
use jchomp_rules::{Bits, Cell, Config, Position, Seat};
use std::ops::ControlFlow;

/// The root's score of a certain tie: a little below an unclear position (±100), so the search
/// plays on for a win against weaker seats rather than settle, but far above a loss.
pub const TIE: i32 = -50;

/// A Best-Reply Search+ searcher for one root seat, borrowing a table and limits.
pub struct Brs<'a> {
    config: &'a Config,
    tt: &'a mut Table,
    limits: &'a mut Limits,
    root: Seat,
    players: u8,
    history: [u32; 256],
    salt: u64,
}

/// The root's score of `position`, `ply` plies from the root, when it is [`decided`] whatever
/// anyone plays: a seat left with only poison loses one ply later, when it eats it.
fn decided_score(config: &Config, position: &Position, root: Seat, ply: u32) -> Option<i32> {
    let Some(loser) = decided(config, position)? else {
        return Some(TIE);
    };
    let plies = if position.to_move().is_some() {
        ply + 1
    } else {
        ply
    };
    let magnitude = WIN - plies as i32;
    Some(if loser == root { -magnitude } else { magnitude })
}

impl<'a> Brs<'a> {
    /// A searcher for `config` playing for `root`.
    pub fn new(config: &'a Config, tt: &'a mut Table, limits: &'a mut Limits, root: Seat) -> Self {
        Brs {
            config,
            tt,
            limits,
            root,
            players: config.players(),
            history: [0; 256],
            salt: config_salt(config) ^ seat_salt(root, 5),
        }
    }

    /// The root's score after it plays `mv` at a max layer `ply` plies deep.
    fn after_root_move(
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
        self.limits.tick();
        match decided_score(self.config, &child, self.root, ply + 1) {
            Some(s) => (s, true),
            None => self.min_layer(&child, depth - 1, ply + 1, alpha, beta),
        }
    }

    /// The table key of a position (its mover is implied by the layer: the root at a max layer,
    /// the seat after it at a min layer).
    #[inline]
    fn key(&self, position: &Position, max_layer: bool) -> u64 {
        hash(cover(self.config, position.selections()))
            ^ self.salt
            ^ seat_salt(u8::from(max_layer), 6)
    }

    /// The safe selections of `position` as move indices, `first` (if among them) first, then by
    /// the history heuristic.
    fn ordered<'b>(&self, safe: Bits, first: u8, buffer: &'b mut [u8; MAX_MOVES]) -> &'b [u8] {
        let mut n = 0;
        for i in safe.iter() {
            buffer[n] = i as u8;
            n += 1;
        }
        let moves = &mut buffer[..n];
        let history = &self.history;
        moves.sort_by_key(|&m| (m != first, std::cmp::Reverse(history[usize::from(m)])));
        moves
    }

    /// The move an opponent plays when it is not the one replying: its immediate win if it has
    /// one, else the safe selection the history heuristic ranks first (the lowest cell on equal
    /// counts). `position` must have safe selections.
    fn ordered_move(&self, position: &Position) -> u32 {
        let safe = position.safe_selections(self.config);
        if let Some(win) = immediate_win(self.config, position, safe) {
            return win;
        }
        let mut best = (0u32, u32::MAX);
        for i in safe.iter() {
            let h = self.history[i as usize];
            if best.1 == u32::MAX || h > best.0 {
                best = (h, i);
            }
        }
        best.1
    }

    /// What every layer's node does first: counts itself, then answers with the horizon
    /// estimate at depth 0, or with the table's score when that settles the node within the
    /// window; otherwise goes on with its table key and the table's move.
    fn open_node(
        &mut self,
        position: &Position,
        depth: u32,
        ply: u32,
        max_layer: bool,
        window: (i32, i32),
    ) -> ControlFlow<(i32, bool), (u64, u8)> {
        if self.limits.tick() {
            return ControlFlow::Break((0, false));
        }
        if depth == 0 {
            return ControlFlow::Break((self.estimate(position), false));
        }
        let key = self.key(position, max_layer);
        match self.tt.lookup(key, depth, ply, window) {
            (_, Some(hit)) => ControlFlow::Break(hit),
            (tt_move, None) => ControlFlow::Continue((key, tt_move)),
        }
    }

    /// A max layer: the root to move at `position` (not decided), `depth` layers left.
    fn max_layer(
        &mut self,
        position: &Position,
        depth: u32,
        ply: u32,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, bool) {
        let (key, tt_move) = match self.open_node(position, depth, ply, true, (alpha, beta)) {
            ControlFlow::Break(scored) => return scored,
            ControlFlow::Continue(found) => found,
        };
        let (alpha0, beta0) = (alpha, beta);
        let safe = position.safe_selections(self.config);
        let mut buffer = [0u8; MAX_MOVES];
        let moves = self.ordered(safe, tt_move, &mut buffer).to_vec();
        let mut best = -INF;
        let mut best_move = NO_MOVE;
        let mut proven = true;
        for mv in moves {
            let (s, p) = self.after_root_move(position, mv, depth, ply, alpha, beta);
            if self.limits.stopped() {
                return (0, false);
            }
            proven &= p;
            if s > best {
                best = s;
                best_move = mv;
            }
            alpha = alpha.max(s);
            if alpha >= beta {
                self.history[usize::from(mv)] += depth * depth;
                break;
            }
        }
        self.tt
            .record(key, depth, ply, (alpha0, beta0), best, best_move, proven);
        (best, proven)
    }

    /// A min layer: the seat after the root to move at `position` (not decided), standing for
    /// one round of every opponent, one of them replying with each of its selections and the
    /// others playing their ordered moves.
    fn min_layer(
        &mut self,
        position: &Position,
        depth: u32,
        ply: u32,
        alpha: i32,
        mut beta: i32,
    ) -> (i32, bool) {
        let (key, tt_move) = match self.open_node(position, depth, ply, false, (alpha, beta)) {
            ControlFlow::Break(scored) => return scored,
            ControlFlow::Continue(found) => found,
        };
        let (alpha0, beta0) = (alpha, beta);
        let mut best = INF;
        let mut best_move = NO_MOVE;
        let mut proven = true;
        // `turn` is the position before the replying opponent moves: the opponents before it
        // have played their ordered moves.
        let mut turn = *position;
        let mut turn_ply = ply;
        'opponents: for k in 0..self.players - 1 {
            if k > 0 {
                let mv = self.ordered_move(&turn);
                turn.play(self.config, Cell::from_index(mv));
                self.limits.tick();
                turn_ply += 1;
                if let Some(s) = decided_score(self.config, &turn, self.root, turn_ply) {
                    // The game ends before this opponent moves: so it does for every later one.
                    if s < best {
                        best = s;
                        best_move = NO_MOVE;
                    }
                    break;
                }
            }
            let safe = turn.safe_selections(self.config);
            let first = if k == 0 { tt_move } else { NO_MOVE };
            let mut buffer = [0u8; MAX_MOVES];
            let moves = self.ordered(safe, first, &mut buffer).to_vec();
            for mv in moves {
                let (s, p) = self.reply(&turn, mv, k, depth, turn_ply, alpha, beta);
                if self.limits.stopped() {
                    return (0, false);
                }
                proven &= p;
                if s < best {
                    best = s;
                    best_move = if k == 0 { mv } else { NO_MOVE };
                }
                beta = beta.min(s);
                if alpha >= beta {
                    self.history[usize::from(mv)] += depth * depth;
                    break 'opponents;
                }
            }
        }
        self.tt
            .record(key, depth, ply, (alpha0, beta0), best, best_move, proven);
        (best, proven)
    }

    /// The root's score after opponent `k` (0 the seat after the root) replies `mv` at `turn`
    /// and the later opponents play their ordered moves.
    #[allow(clippy::too_many_arguments)]
    fn reply(
        &mut self,
        turn: &Position,
        mv: u8,
        k: u8,
        depth: u32,
        ply: u32,
        alpha: i32,
        beta: i32,
    ) -> (i32, bool) {
        let mut child = *turn;
        child.play(self.config, Cell::from_index(u32::from(mv)));
        self.limits.tick();
        let mut ply = ply + 1;
        for _ in k + 1..self.players - 1 {
            if let Some(s) = decided_score(self.config, &child, self.root, ply) {
                return (s, true);
            }
            let next = self.ordered_move(&child);
            child.play(self.config, Cell::from_index(next));
            self.limits.tick();
            ply += 1;
        }
        match decided_score(self.config, &child, self.root, ply) {
            Some(s) => (s, true),
            None => self.max_layer(&child, depth - 1, ply, alpha, beta),
        }
    }

    /// The horizon estimate for the root: −100 if it is expected to be stuck, else +100.
    fn estimate(&self, position: &Position) -> i32 {
        let mover = position.to_move().unwrap_or(self.root);
        if eval::expected_loser(self.config, position, mover) == self.root {
            -eval::UNIT
        } else {
            eval::UNIT
        }
    }
}

impl RootSearch for Brs<'_> {
    fn limits(&mut self) -> &mut Limits {
        self.limits
    }

    /// The root's score after `mv`, searched `depth` layers.
    fn score_move(&mut self, position: &Position, mv: u8, depth: u32, alpha: i32) -> (i32, bool) {
        self.after_root_move(position, mv, depth, 0, alpha, INF)
    }
}
