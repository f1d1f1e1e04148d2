//! [`Exact`]: the memoized two-player solver for configurations with rule options, on the
//! rules' own selections and results alone (nothing assumed of how a game ends).

use crate::scoring::seat_score;
use crate::search::limits::Limits;
use crate::search::regions::FastMap;
use crate::search::score::Outcome;
use jchomp_rules::{Bits, Cell, Config, Position, Status};

/// The most positions [`Exact`] holds in memory (about 500 MiB when full): a larger game is
/// refused rather than let run out of memory. Classic Chomp with square bites banned reaches
/// every staircase of its box, C(rows+cols, rows) of them: 12×12 (2.7 million) fits, 13×13
/// (10.4 million) does not.
pub const MAX_POSITIONS: usize = 1 << 22;

/// A proven value for the seat to move: the outcome and the plies to the end (winners hurry,
/// losers delay; a tie counts the shortest tying line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Value {
    /// Win, tie or loss.
    pub outcome: Outcome,
    /// Plies to the end.
    pub plies: u32,
}

impl Value {
    /// Whether `self` is better than `other` for the seat that gets it.
    pub(crate) fn beats(self, other: Value) -> bool {
        let rank = |o| match o {
            Outcome::Win => 2,
            Outcome::Tie => 1,
            Outcome::Loss => 0,
        };
        match rank(self.outcome).cmp(&rank(other.outcome)) {
            std::cmp::Ordering::Equal if self.outcome == Outcome::Loss => self.plies > other.plies,
            std::cmp::Ordering::Equal => self.plies < other.plies,
            order => order.is_gt(),
        }
    }

    /// The value one ply earlier for the other seat.
    fn back(self) -> Value {
        let outcome = match self.outcome {
            Outcome::Win => Outcome::Loss,
            Outcome::Loss => Outcome::Win,
            Outcome::Tie => Outcome::Tie,
        };
        Value {
            outcome,
            plies: self.plies + 1,
        }
    }

    /// The value of a finished game for `seat`, which made its last move.
    fn ended(status: Status, seat: u8) -> Value {
        let score = match status {
            Status::Over(result) => seat_score(result, seat),
            Status::ToMove(_) => 0.5,
        };
        let outcome = if score > 0.5 {
            Outcome::Win
        } else if score < 0.5 {
            Outcome::Loss
        } else {
            Outcome::Tie
        };
        Value { outcome, plies: 1 }
    }
}

/// The exact value of two-player positions under any options, memoized by the uneaten cells
/// (with two seats the value for the seat to move depends on nothing else).
pub(crate) struct Exact<'a> {
    config: &'a Config,
    memo: FastMap<Bits, Value>,
}

impl<'a> Exact<'a> {
    /// A solver for two-player games of `config`.
    pub(crate) fn new(config: &'a Config) -> Exact<'a> {
        Exact {
            config,
            memo: FastMap::default(),
        }
    }

    /// The value of playing `cell` at `position` for the seat playing it; `None` once
    /// `limits` stop the search or the memo is full.
    pub(crate) fn after(
        &mut self,
        position: &Position,
        cell: Cell,
        limits: &mut Limits,
    ) -> Option<Value> {
        let seat = position.to_move()?;
        // A selection that eats no marked cell leaves the uneaten cells less what it eats: a
        // position already valued is found without making the move (making it computes the
        // child's selections, which the ban on square bites makes costly).
        if !self.config.poison_zone().contains(cell.index()) {
            let uneaten = position.uneaten().without(self.config.rect(cell));
            if let Some(v) = self.memo.get(&uneaten) {
                return Some(v.back());
            }
        }
        let mut child = *position;
        child.play(self.config, cell);
        match child.status() {
            Status::ToMove(_) => self.value(&child, limits).map(Value::back),
            over => Some(Value::ended(over, seat)),
        }
    }

    /// The value of `position` (a seat to move) for that seat and an optimal selection.
    pub(crate) fn best(
        &mut self,
        position: &Position,
        limits: &mut Limits,
    ) -> Option<(Value, Cell)> {
        let mut best: Option<(Value, Cell)> = None;
        for cell in ordered(self.config, position) {
            let v = self.after(position, cell, limits)?;
            if best.is_none_or(|(b, _)| v.beats(b)) {
                best = Some((v, cell));
            }
            if v.outcome == Outcome::Win && v.plies == 1 {
                break;
            }
        }
        best
    }

    /// The value of `position` for the seat to move, from the memo or a search.
    pub(crate) fn value(&mut self, position: &Position, limits: &mut Limits) -> Option<Value> {
        if let Some(v) = self.memo.get(&position.uneaten()) {
            return Some(*v);
        }
        if limits.tick() {
            return None;
        }
        if self.memo.len() >= MAX_POSITIONS {
            return None;
        }
        let v = match tied(self.config, position) {
            Some(plies) => Value {
                outcome: Outcome::Tie,
                plies,
            },
            None => self.best(position, limits)?.0,
        };
        self.memo.insert(position.uneaten(), v);
        Some(v)
    }
}

/// The selections of `position`, those that end the game at once (eat a marked cell) first:
/// a win in one ply stops the search of the others.
pub(crate) fn ordered(config: &Config, position: &Position) -> impl Iterator<Item = Cell> {
    let zone = config.poison_zone();
    let selections = position.selections();
    let ending = selections & zone;
    ending
        .iter()
        .chain(selections.without(zone).iter())
        .map(Cell::from_index)
}

/// In JChomp, where eating only ever removes selections, a position none of whose selections
/// eats a marked cell ties whatever anyone plays: the plies of one line to the end (its first
/// selection each time). `None` elsewhere.
fn tied(config: &Config, position: &Position) -> Option<u32> {
    if !config.variant().is_jchomp() || position.selections().intersects(config.poison_zone()) {
        return None;
    }
    let mut line = *position;
    let mut plies = 0;
    while let Some(first) = line.selections().first() {
        line.play(config, Cell::from_index(first));
        plies += 1;
    }
    Some(plies)
}

/// Whether `position` surely holds more positions than [`MAX_POSITIONS`]: misère classic Chomp
/// with square bites banned has no early wins and reaches nearly every staircase inside the
/// uneaten one, so their count is what a solve would hold.
pub(super) fn beyond_reach(config: &Config, position: &Position) -> bool {
    config.variant() == jchomp_rules::Variant::Classic
        && config.play().is_misere()
        && staircases(config, position.uneaten()) > MAX_POSITIONS as u64
}

/// The staircases (row lengths never growing downwards) inside the classic position `uneaten`
/// that keep every poison cell, saturating.
fn staircases(config: &Config, uneaten: Bits) -> u64 {
    // ways[l]: staircases of the rows so far whose last row has length l.
    let mut ways = [0u64; 16];
    ways[usize::from(config.cols())] = 1;
    for r in 0..config.rows() {
        let len = (uneaten & Bits::rect(r, 0, 1, config.cols())).count() as usize;
        // The row must reach every poison cell in it or below it.
        let least = config
            .poison()
            .iter()
            .filter(|p| p.row >= r)
            .map(|p| usize::from(p.col) + 1)
            .max()
            .unwrap_or(0);
        let mut next = [0u64; 16];
        let mut longer = 0u64;
        for l in (0..16).rev() {
            longer = longer.saturating_add(ways[l]);
            if (least..=len).contains(&l) {
                next[l] = longer;
            }
        }
        ways = next;
    }
    ways.iter().fold(0u64, |a, &w| a.saturating_add(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::board;

    #[test]
    fn staircases_are_counted_with_their_poison_kept() {
        let count = |notation: &str| {
            let c = board(notation);
            staircases(&c, Position::start(&c).uneaten())
        };
        // C(rows + cols, rows) with the poison in the corner, less the empty staircase.
        assert_eq!(count("2x2 variant classic poison 0,0"), 5);
        assert_eq!(count("12x12 variant classic poison 0,0"), 2_704_155);
        assert_eq!(count("13x13 variant classic poison 0,0"), 10_400_599);
        // Poison in the far corner: the whole board alone keeps it.
        assert_eq!(count("13x13 variant classic poison 12,12"), 1);
        let far = board("13x13 variant classic poison 0,0 no_square_bites");
        assert!(beyond_reach(&far, &Position::start(&far)));
        let near = board("12x12 variant classic poison 0,0 no_square_bites");
        assert!(!beyond_reach(&near, &Position::start(&near)));
    }
}
