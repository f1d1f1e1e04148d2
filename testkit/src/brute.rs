//! An independent brute-force model of JChomp for the tests: cells in a set, rectangles checked
//! cell by cell, no bitboards, plus a memoised exact solver for two players.

use std::collections::{BTreeSet, HashMap};

/// Outcome for the seat to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The seat to move can force a win.
    Win,
    /// Best play ties.
    Tie,
    /// The seat to move loses whatever it does.
    Loss,
}

/// A board described plainly.
#[derive(Clone, Debug)]
pub struct Model {
    pub rows: u8,
    pub cols: u8,
    pub eat: (u8, u8),
    pub poison: Vec<(u8, u8)>,
}

/// The cells not yet eaten.
pub type Cells = BTreeSet<(u8, u8)>;

impl Model {
    pub fn new(rows: u8, cols: u8, eat: (u8, u8), poison: &[(u8, u8)]) -> Model {
        Model {
            rows,
            cols,
            eat,
            poison: poison.to_vec(),
        }
    }

    /// Every cell of the board.
    pub fn start(&self) -> Cells {
        let mut s = Cells::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                s.insert((r, c));
            }
        }
        s
    }

    /// The cells of the rectangle anchored at (r, c), or `None` if it leaves the board.
    pub fn rect(&self, r: u8, c: u8) -> Option<Vec<(u8, u8)>> {
        if r + self.eat.0 > self.rows || c + self.eat.1 > self.cols {
            return None;
        }
        let mut v = Vec::new();
        for i in 0..self.eat.0 {
            for j in 0..self.eat.1 {
                v.push((r + i, c + j));
            }
        }
        Some(v)
    }

    /// Valid selections, row by row.
    pub fn moves(&self, cells: &Cells) -> Vec<(u8, u8)> {
        let mut out = Vec::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                if let Some(rect) = self.rect(r, c)
                    && rect.iter().all(|x| cells.contains(x))
                {
                    out.push((r, c));
                }
            }
        }
        out
    }

    /// Makes a selection: the cells left and whether it ate poison.
    pub fn play(&self, cells: &Cells, m: (u8, u8)) -> (Cells, bool) {
        let mut next = cells.clone();
        let mut poisoned = false;
        for x in self.rect(m.0, m.1).unwrap_or_default() {
            next.remove(&x);
            poisoned |= self.poison.contains(&x);
        }
        (next, poisoned)
    }

    /// perft as issue 2 defines it.
    pub fn perft(&self, cells: &Cells, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves(cells);
        if moves.is_empty() {
            return 1;
        }
        moves
            .into_iter()
            .map(|m| {
                let (next, poisoned) = self.play(cells, m);
                if poisoned {
                    1
                } else {
                    self.perft(&next, depth - 1)
                }
            })
            .sum()
    }

    /// Exact two-player value for the seat to move and plies to the end (winners hurry, losers
    /// delay; for a tie the plies are whatever line was found first).
    pub fn solve(
        &self,
        cells: &Cells,
        memo: &mut HashMap<Cells, (Outcome, u32)>,
    ) -> (Outcome, u32) {
        if let Some(&v) = memo.get(cells) {
            return v;
        }
        let moves = self.moves(cells);
        let mut best: Option<(Outcome, u32)> = None;
        for m in moves {
            let (next, poisoned) = self.play(cells, m);
            let mine = if poisoned {
                (Outcome::Loss, 1)
            } else if self.moves(&next).is_empty() {
                (Outcome::Tie, 1)
            } else {
                let (o, p) = self.solve(&next, memo);
                let flipped = match o {
                    Outcome::Win => Outcome::Loss,
                    Outcome::Tie => Outcome::Tie,
                    Outcome::Loss => Outcome::Win,
                };
                (flipped, p + 1)
            };
            best = Some(match best {
                None => mine,
                Some(b) => better(b, mine),
            });
        }
        let v = best.unwrap_or((Outcome::Tie, 0));
        memo.insert(cells.clone(), v);
        v
    }

    /// Value of every valid selection for the seat to move, in board order.
    pub fn analyze(
        &self,
        cells: &Cells,
        memo: &mut HashMap<Cells, (Outcome, u32)>,
    ) -> Vec<((u8, u8), Outcome, u32)> {
        self.moves(cells)
            .into_iter()
            .map(|m| {
                let (next, poisoned) = self.play(cells, m);
                if poisoned {
                    (m, Outcome::Loss, 1)
                } else if self.moves(&next).is_empty() {
                    (m, Outcome::Tie, 1)
                } else {
                    let (o, p) = self.solve(&next, memo);
                    let o = match o {
                        Outcome::Win => Outcome::Loss,
                        Outcome::Tie => Outcome::Tie,
                        Outcome::Loss => Outcome::Win,
                    };
                    (m, o, p + 1)
                }
            })
            .collect()
    }
}

/// The better of two results for the seat choosing.
fn better(a: (Outcome, u32), b: (Outcome, u32)) -> (Outcome, u32) {
    let rank = |(o, p): (Outcome, u32)| -> i64 {
        match o {
            Outcome::Win => 2_000 - p as i64,
            Outcome::Tie => 0,
            Outcome::Loss => -2_000 + p as i64,
        }
    };
    if rank(b) > rank(a) { b } else { a }
}

/// The engine's configuration for the same board (two players), so that tests can set the
/// engine and the model side by side. The model itself uses nothing of the engine.
pub fn engine_config(m: &Model) -> jchomp_protocol::rules::Config {
    let setup = jchomp_protocol::rules::Setup {
        rows: m.rows as i64,
        cols: m.cols as i64,
        players: 2,
        eat: [m.eat.0 as i64, m.eat.1 as i64],
        poison: m
            .poison
            .iter()
            .map(|&(r, c)| [r as i64, c as i64])
            .collect(),
    };
    match jchomp_protocol::rules::Config::new(&setup) {
        Ok(config) => config,
        Err(e) => panic!("the model's board is not a valid configuration: {e}"),
    }
}
