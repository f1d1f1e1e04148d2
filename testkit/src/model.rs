//! The one brute-force model of the JChomp rules, and of classic Chomp beside them: cells in a
//! set, every check done cell by cell, no bit tricks. The tests, benchmarks and fuzz checks hold
//! the fast engine against it, and the exact solver ([`crate::brute`]) plays on it.
//!
//! A model game may start from a [`Config`], but only reads its numbers: nothing of the engine
//! (`Position`, `Bits`) decides anything here.

use jchomp_rules::{Config, Variant};
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
}

/// How a model game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// This seat ate poison.
    Poisoned(i64),
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

    fn with(rows: i64, cols: i64, players: i64, eats: Eats, poison: &[(i64, i64)]) -> Self {
        Model {
            rows,
            cols,
            players,
            eats,
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
            Eats::Corner => vec![(r, c)],
        }
    }

    /// The cells a valid selection at (r, c) eats now (none of them eaten before).
    fn eaten_by(&self, r: i64, c: i64) -> Vec<(i64, i64)> {
        match self.eats {
            Eats::Rectangle(..) => self.needed(r, c),
            Eats::Corner => {
                let mut cells = Vec::new();
                for row in r..self.rows {
                    for col in c..self.cols {
                        if !self.eaten.contains(&(row, col)) {
                            cells.push((row, col));
                        }
                    }
                }
                cells
            }
        }
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
        if poisoned {
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

    /// Whether the game ended with a seat eating poison.
    pub fn poisoned(&self) -> bool {
        matches!(self.outcome, Some(Outcome::Poisoned(_)))
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
