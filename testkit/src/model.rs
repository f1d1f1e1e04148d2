//! The one brute-force model of the JChomp rules, and of classic Chomp, edge breaks, normal play
//! and the ban on square bites beside them: cells in a set, every check done cell by cell, no
//! bit tricks. The tests, benchmarks and fuzz checks hold
//! the fast engine against it, and the exact solver ([`crate::brute`]) plays on it.
//!
//! A model game may start from a [`Config`], but only reads its numbers: nothing of the engine
//! (`Position`, `Bits`) decides anything here.

use jchomp_rules::{Config, Play, Variant};
use std::cmp::Ordering::{Equal, Greater, Less};
use std::collections::BTreeSet;

/// What one selection at (r, c) eats in the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eats {
    /// JChomp: the rectangle of (rows, cols) cells whose top-left cell is (r, c); every one of
    /// them must be on the board and uneaten.
    Rectangle(i64, i64),
    /// Classic Chomp: (r, c), which must be on the board and uneaten, and every cell of the
    /// board in a row ≥ r and a column ≥ c.
    Corner,
    /// Edge breaks (one poison cell): (r, c) must be uneaten and share a row or a column with
    /// the poison; it eats every uneaten cell on its side of the poison: rows ≥ r when below
    /// it, rows ≤ r when above, columns likewise, every cell when it is the poison.
    Break,
}

/// How a model game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// This seat ate poison.
    Poisoned(i64),
    /// Normal play: this seat ate a marked cell and won.
    Won(i64),
    /// No valid selection was left.
    Tie,
}

/// A game in the model.
#[derive(Clone, Debug)]
pub struct Model {
    /// Board rows.
    pub rows: i64,
    /// Board columns.
    pub cols: i64,
    /// Number of seats.
    pub players: i64,
    /// What a selection eats.
    pub eats: Eats,
    /// The poison cells as (row, col).
    pub poison: BTreeSet<(i64, i64)>,
    /// Normal play: eating a poison (marked) cell wins instead of losing.
    pub normal: bool,
    /// Selections that would eat a k×k square of cells are refused.
    pub no_squares: bool,
    /// The cells eaten so far.
    pub eaten: BTreeSet<(i64, i64)>,
    /// The seat to move (meaningless once the game is over).
    pub to_move: i64,
    /// How the game ended, once it has.
    pub outcome: Option<Outcome>,
}

impl Model {
    /// A fresh JChomp game; the caller passes a configuration the engine accepted.
    pub fn new(rows: i64, cols: i64, players: i64, eat: (i64, i64), poison: &[(i64, i64)]) -> Self {
        Model::with(rows, cols, players, Eats::Rectangle(eat.0, eat.1), poison)
    }

    /// A fresh classic Chomp game; the caller passes a configuration the engine accepted.
    pub fn classic(rows: i64, cols: i64, players: i64, poison: &[(i64, i64)]) -> Self {
        Model::with(rows, cols, players, Eats::Corner, poison)
    }

    /// A fresh edge-breaks game around one poison cell.
    pub fn breaks(rows: i64, cols: i64, players: i64, poison: (i64, i64)) -> Self {
        Model::with(rows, cols, players, Eats::Break, &[poison])
    }

    /// The same game in normal play (`normal`) and with square bites banned (`no_squares`).
    pub fn options(self, normal: bool, no_squares: bool) -> Self {
        Model {
            normal,
            no_squares,
            ..self
        }
    }

    fn with(rows: i64, cols: i64, players: i64, eats: Eats, poison: &[(i64, i64)]) -> Self {
        Model {
            rows,
            cols,
            players,
            eats,
            normal: false,
            no_squares: false,
            poison: poison.iter().copied().collect(),
            eaten: BTreeSet::new(),
            to_move: 0,
            outcome: None,
        }
    }

    /// A fresh game on the board of a configuration (its sizes, players, variant, eat and
    /// poison only).
    pub fn start(config: &Config) -> Self {
        let poison: Vec<(i64, i64)> = config
            .poison()
            .iter()
            .map(|c| (i64::from(c.row), i64::from(c.col)))
            .collect();
        let eats = match (config.variant(), config.eat()) {
            (Variant::Classic, _) => Eats::Corner,
            (Variant::Breaks, _) => Eats::Break,
            (Variant::JChomp, Some((er, ec))) => Eats::Rectangle(er.into(), ec.into()),
            (Variant::JChomp, None) => panic!("a JChomp configuration without an eat size"),
        };
        Model::with(
            config.rows().into(),
            config.cols().into(),
            config.players().into(),
            eats,
            &poison,
        )
        .options(config.play() == Play::Normal, config.no_square_bites())
    }

    /// The cells that must all be on the board and uneaten for (r, c) to be valid.
    fn needed(&self, r: i64, c: i64) -> Vec<(i64, i64)> {
        match self.eats {
            Eats::Rectangle(rows, cols) => {
                let mut cells = Vec::new();
                for dr in 0..rows {
                    for dc in 0..cols {
                        cells.push((r + dr, c + dc));
                    }
                }
                cells
            }
            Eats::Corner | Eats::Break => vec![(r, c)],
        }
    }

    /// The one poison cell of an edge-breaks game.
    fn the_poison(&self) -> (i64, i64) {
        *self.poison.first().expect("edge breaks have a poison cell")
    }

    /// The cells a valid selection at (r, c) eats now (none of them eaten before).
    fn eaten_by(&self, r: i64, c: i64) -> Vec<(i64, i64)> {
        match self.eats {
            Eats::Rectangle(..) => self.needed(r, c),
            Eats::Corner => self.uneaten_where(|row, col| row >= r && col >= c),
            Eats::Break => {
                let (pr, pc) = self.the_poison();
                match (r.cmp(&pr), c.cmp(&pc)) {
                    (Equal, Equal) => self.uneaten_where(|_, _| true),
                    (Greater, Equal) => self.uneaten_where(|row, _| row >= r),
                    (Less, Equal) => self.uneaten_where(|row, _| row <= r),
                    (Equal, Greater) => self.uneaten_where(|_, col| col >= c),
                    (Equal, Less) => self.uneaten_where(|_, col| col <= c),
                    _ => Vec::new(),
                }
            }
        }
    }

    /// Every uneaten cell of the board for which `keep(row, col)` holds, row by row.
    fn uneaten_where(&self, keep: impl Fn(i64, i64) -> bool) -> Vec<(i64, i64)> {
        let mut cells = Vec::new();
        for row in 0..self.rows {
            for col in 0..self.cols {
                if keep(row, col) && !self.eaten.contains(&(row, col)) {
                    cells.push((row, col));
                }
            }
        }
        cells
    }

    /// Whether `cells` are exactly the k×k square below and right of their top-left cell.
    fn is_square(cells: &[(i64, i64)]) -> bool {
        let Some(top) = cells.iter().map(|&(r, _)| r).min() else {
            return false;
        };
        let left = cells.iter().map(|&(_, c)| c).min().unwrap_or(0);
        let k = (1..=15).find(|k| k * k >= cells.len() as i64).unwrap_or(0);
        let set: BTreeSet<&(i64, i64)> = cells.iter().collect();
        k * k == cells.len() as i64
            && (0..k).all(|i| (0..k).all(|j| set.contains(&(top + i, left + j))))
    }

    fn on_board(&self, (r, c): (i64, i64)) -> bool {
        r >= 0 && c >= 0 && r < self.rows && c < self.cols
    }

    /// Why selecting (r, c) is refused, as the wire's reason code, or `None` if it is valid.
    pub fn refusal(&self, r: i64, c: i64) -> Option<&'static str> {
        if self.outcome.is_some() {
            return Some("not_playing");
        }
        let needed = self.needed(r, c);
        if needed.iter().any(|&cell| !self.on_board(cell)) {
            return Some("out_of_range");
        }
        if needed.iter().any(|cell| self.eaten.contains(cell)) {
            return Some("already_eaten");
        }
        let eaten = self.eaten_by(r, c);
        if self.eats == Eats::Break && eaten.is_empty() {
            return Some("not_a_break");
        }
        if self.no_squares && Model::is_square(&eaten) {
            return Some("square_bite");
        }
        None
    }

    /// Every valid selection, row by row.
    pub fn valid(&self) -> Vec<(i64, i64)> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                if self.refusal(r, c).is_none() {
                    out.push((r, c));
                }
            }
        }
        out
    }

    /// Makes a selection, or returns the refusal code and changes nothing.
    pub fn select(&mut self, r: i64, c: i64) -> Result<(), &'static str> {
        if let Some(why) = self.refusal(r, c) {
            return Err(why);
        }
        let eaten = self.eaten_by(r, c);
        let poisoned = eaten.iter().any(|cell| self.poison.contains(cell));
        self.eaten.extend(eaten);
        if poisoned && self.normal {
            self.outcome = Some(Outcome::Won(self.to_move));
        } else if poisoned {
            self.outcome = Some(Outcome::Poisoned(self.to_move));
        } else if self.valid().is_empty() {
            self.outcome = Some(Outcome::Tie);
        } else {
            self.to_move = (self.to_move + 1) % self.players;
        }
        Ok(())
    }

    /// The game after a selection that must be valid.
    pub fn after(&self, r: i64, c: i64) -> Model {
        let mut next = self.clone();
        if let Err(why) = next.select(r, c) {
            panic!("({r}, {c}) is not a valid selection: {why}");
        }
        next
    }

    /// Whether the game ended with a seat eating poison (in either play).
    pub fn poisoned(&self) -> bool {
        matches!(self.outcome, Some(Outcome::Poisoned(_) | Outcome::Won(_)))
    }

    /// perft as the foundation defines it.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 || self.outcome.is_some() {
            return 1;
        }
        self.valid()
            .into_iter()
            .map(|(r, c)| {
                let mut child = self.clone();
                let _ = child.select(r, c);
                child.perft(depth - 1)
            })
            .sum()
    }
}
