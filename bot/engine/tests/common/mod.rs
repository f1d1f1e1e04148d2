//! Helpers shared by the engine's brute-force comparisons: outcomes side by side and random
//! positions in both models.

// Helpers outside `#[test]` functions panic on purpose when a check fails; not every test file
// uses every helper.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use jchomp_engine::Rng;
use jchomp_engine::search::Outcome;
use jchomp_rules::{Bits, Config, Position};
use jchomp_testkit::brute;
use jchomp_testkit::model::Model;

/// Whether the engine's outcome is the brute-force solver's.
pub fn same(o: Outcome, b: brute::Outcome) -> bool {
    matches!(
        (o, b),
        (Outcome::Win, brute::Outcome::Win)
            | (Outcome::Tie, brute::Outcome::Tie)
            | (Outcome::Loss, brute::Outcome::Loss)
    )
}

/// −1, 0 or 1 for a brute-force loss, tie or win.
pub fn sign(b: brute::Outcome) -> i8 {
    match b {
        brute::Outcome::Win => 1,
        brute::Outcome::Tie => 0,
        brute::Outcome::Loss => -1,
    }
}

/// The position after up to `plies` random safe selections from the start, in both models;
/// stops early when no safe selection is left or the game ends.
pub fn random_position(c: &Config, rng: &mut Rng, plies: u64) -> (Model, Position) {
    let mut model = Model::start(c);
    let mut position = Position::start(c);
    for _ in 0..plies {
        let safe: Vec<brute::Selection> = model
            .valid()
            .into_iter()
            .filter(|&(r, c)| !model.after(r, c).poisoned())
            .collect();
        if safe.is_empty() {
            break;
        }
        let m = safe[rng.below(safe.len() as u64) as usize];
        let next = model.after(m.0, m.1);
        if next.outcome.is_some() {
            break;
        }
        model = next;
        position.play(c, brute::cell(m));
    }
    (model, position)
}

/// A position where each cell but poison is eaten with probability `percent` / 100, not
/// necessarily reachable by play, with seat 0 to move, in both models; `None` when it leaves
/// no valid selection.
pub fn random_eaten(c: &Config, rng: &mut Rng, percent: u64) -> Option<(Model, Position)> {
    let mut model = Model::start(c);
    let mut uneaten = c.board();
    for index in c.board().without(c.poison_mask()).iter() {
        if rng.below(100) < percent {
            uneaten = uneaten.without(Bits::single(index));
            let cell = jchomp_rules::Cell::from_index(index);
            model
                .eaten
                .insert((i64::from(cell.row), i64::from(cell.col)));
        }
    }
    let position = Position::from_uneaten(c, uneaten, 0);
    (position.to_move().is_some() && !model.valid().is_empty()).then_some((model, position))
}
