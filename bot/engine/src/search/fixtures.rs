//! Test positions shared by the searches' tests: random games played both on the engine and on
//! the test kit's brute-force model.

use crate::rng::Rng;
use jchomp_rules::{Cell, Config, Position};
use jchomp_testkit::model::Model;

/// Whether the game is decided at `position` whatever anyone plays (over, the mover has only
/// poison, or no selection reaches poison any more).
pub fn decided(config: &Config, position: &Position) -> bool {
    super::trivial::decided(config, position).is_some()
}

/// `plies` random safe selections from the start (fewer if the game is decided first or one
/// selection is left), as the engine's position and the brute-force model's game.
pub fn random_position(config: &Config, plies: u32, seed: u64) -> (Position, Model) {
    let mut rng = Rng::new(seed);
    let mut position = Position::start(config);
    let mut model = Model::start(config);
    for _ in 0..plies {
        let safe = position.safe_selections(config);
        if decided(config, &position) || safe.count() < 2 {
            break;
        }
        let k = rng.below(u64::from(safe.count())) as usize;
        let Some(index) = safe.iter().nth(k) else {
            break;
        };
        let cell = Cell::from_index(index);
        position.play(config, cell);
        model
            .select(i64::from(cell.row), i64::from(cell.col))
            .unwrap();
    }
    (position, model)
}
