//! A depth-limited max^n search for any number of seats under the rule options: finished games
//! are scored by [`seat_score`], the horizon is neutral, and every seat maximises its own score.

use super::exact::ordered;
use crate::rng::Rng;
use crate::scoring::seat_score;
use crate::search::{Budget, Limits};
use jchomp_rules::{Cell, Config, Position, Status};

/// Scores of seats 0–3.
type Scores = [f64; 4];

/// The scores of `position` searched `depth` plies deep; `None` once `limits` stop.
fn scores(config: &Config, position: &Position, depth: u32, limits: &mut Limits) -> Option<Scores> {
    let mover = match position.status() {
        Status::Over(result) => return Some(std::array::from_fn(|s| seat_score(result, s as u8))),
        Status::ToMove(_) if depth == 0 => return Some([0.5; 4]),
        Status::ToMove(mover) => usize::from(mover),
    };
    if limits.tick() {
        return None;
    }
    let mut best: Option<Scores> = None;
    for cell in ordered(config, position) {
        let mut child = *position;
        child.play(config, cell);
        let v = scores(config, &child, depth - 1, limits)?;
        if best.is_none_or(|b| v[mover] > b[mover]) {
            best = Some(v);
        }
        if v[mover] >= 1.0 {
            break;
        }
    }
    best
}

/// The selections of `position` whose `depth`-ply score is the mover's best; `None` once
/// `limits` stop.
fn best_at(
    config: &Config,
    position: &Position,
    depth: u32,
    limits: &mut Limits,
) -> Option<Vec<Cell>> {
    let mover = usize::from(position.to_move()?);
    let mut top = f64::NEG_INFINITY;
    let mut best = Vec::new();
    for cell in position.selections().iter().map(Cell::from_index) {
        let mut child = *position;
        child.play(config, cell);
        let v = scores(config, &child, depth - 1, limits)?[mover];
        if v > top + 1e-9 {
            top = v;
            best.clear();
        }
        if v > top - 1e-9 {
            best.push(cell);
        }
    }
    Some(best)
}

/// A selection by iterative deepening within `budget` (a depth budget stops at that depth),
/// chosen at random among the best of the deepest finished iteration.
pub(super) fn choose(
    config: &Config,
    position: &Position,
    budget: Budget,
    limits: &mut Limits,
    rng: &mut Rng,
) -> Option<(Cell, u32)> {
    let cells = position.uneaten().count();
    let (first, last) = match budget {
        Budget::Depth(d) => (1, d.clamp(1, cells)),
        _ => (1, cells.max(1)),
    };
    let mut chosen = crate::player::pick(position.selections(), rng).map(|c| (c, 0));
    for depth in first..=last {
        let Some(best) = best_at(config, position, depth, limits) else {
            break;
        };
        if let Some(&pick) = best.get(rng.below(best.len() as u64) as usize) {
            chosen = Some((pick, depth));
        }
        if !limits.may_deepen() {
            break;
        }
    }
    chosen
}
