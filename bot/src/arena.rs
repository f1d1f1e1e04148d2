//! Playing whole games between [`Player`]s: one game ([`play_game`]) and a series with the seats
//! rotated ([`play_series`]), scored with [`crate::scoring`].

use crate::player::Player;
use crate::scoring::seat_score;
use crate::spec::BotSpec;
use jchomp_protocol::rules::{Cell, Config, Game, GameResult, Rejection, Seat};

/// A player broke the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArenaError {
    /// A player answered nothing although it had to move.
    #[error("seat {seat} did not choose a selection")]
    NoChoice {
        /// The seat.
        seat: Seat,
    },
    /// A player chose a selection the rules refuse.
    #[error("seat {seat} chose {cell}, which is invalid: {reason}")]
    Invalid {
        /// The seat.
        seat: Seat,
        /// Its choice.
        cell: Cell,
        /// Why the rules refused it.
        reason: Rejection,
    },
}

/// Plays one game; `players[s]` sits in seat `s`.
pub fn play_game(config: &Config, players: &mut [Box<dyn Player>]) -> Result<Game, ArenaError> {
    let mut game = Game::new(*config);
    while let Some(seat) = game.to_move() {
        let player = &mut players[seat as usize % players.len()];
        let cell = player
            .choose(config, game.position())
            .ok_or(ArenaError::NoChoice { seat })?;
        game.select(i64::from(cell.row), i64::from(cell.col))
            .map_err(|reason| ArenaError::Invalid { seat, cell, reason })?;
    }
    Ok(game)
}

/// Totals of a series for each competitor.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// The competitor.
    pub spec: BotSpec,
    /// Sum of its scores (1 per game survived, 1/2 per tie).
    pub score: f64,
    /// Games it lost.
    pub losses: u32,
    /// Games it played.
    pub games: u32,
}

/// Plays `games` games between the competitors (one per seat), rotating seats every game
/// (competitor `i` sits in seat `(i + g) % n` in game `g`). Game `g` seeds bots with
/// `seed + g`.
pub fn play_series(
    config: &Config,
    specs: &[BotSpec],
    games: u32,
    seed: u64,
) -> Result<Vec<Standing>, ArenaError> {
    let n = specs.len();
    let mut out: Vec<Standing> = specs
        .iter()
        .map(|&spec| Standing {
            spec,
            score: 0.0,
            losses: 0,
            games: 0,
        })
        .collect();
    for g in 0..games as usize {
        // seat s holds competitor (s + n - g % n) % n
        let seats: Vec<usize> = (0..n).map(|s| (s + n - g % n) % n).collect();
        let mut players: Vec<Box<dyn Player>> = seats
            .iter()
            .enumerate()
            .map(|(s, &i)| specs[i].build(seed.wrapping_add((g * 8 + s) as u64)))
            .collect();
        let game = play_game(config, &mut players)?;
        let result = game.result().unwrap_or(GameResult::Tie);
        for (s, &i) in seats.iter().enumerate() {
            let score = seat_score(result, s as Seat);
            out[i].score += score;
            out[i].games += 1;
            if score == 0.0 {
                out[i].losses += 1;
            }
        }
    }
    Ok(out)
}
