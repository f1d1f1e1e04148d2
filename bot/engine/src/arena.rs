//! Playing one whole game between [`Player`]s: the one game loop of the benches and of
//! in-process tournaments. A player that panics, answers no valid selection, or overruns its time
//! limit loses the game ([`Failure`]); a [`Timer`] arms each move's limit and may call the game
//! off ([`Untimed`] for none).

use crate::player::Player;
use crate::think::{Outcome, choose};
use jchomp_rules::{Cell, Config, Game, GameResult, Position, Seat};
use std::time::{Duration, Instant};

/// How a player failed, costing it the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Failure {
    /// It panicked (recorded as `abandoned`).
    Crash,
    /// It answered with no selection, or an invalid one (recorded as `abandoned`).
    Illegal,
    /// It answered after its time limit (recorded as `timeout`).
    Overtime,
}

impl Failure {
    /// The name used in tournament records and `results.json`.
    pub const fn name(self) -> &'static str {
        match self {
            Failure::Crash => "crash",
            Failure::Illegal => "illegal",
            Failure::Overtime => "overtime",
        }
    }

    /// The result of a game in which `seat` failed this way.
    pub const fn result(self, seat: Seat) -> GameResult {
        match self {
            Failure::Overtime => GameResult::Timeout { loser: seat },
            Failure::Crash | Failure::Illegal => GameResult::Abandoned { loser: seat },
        }
    }

    /// Judges a player's answer in `position`: the cell to play, or how it failed.
    pub fn judge(outcome: Outcome, config: &Config, position: &Position) -> Result<Cell, Failure> {
        match outcome {
            Outcome::Panicked => Err(Failure::Crash),
            Outcome::Chose(cell)
                if position
                    .check(config, i64::from(cell.row), i64::from(cell.col))
                    .is_ok() =>
            {
                Ok(cell)
            }
            Outcome::Chose(_) | Outcome::Passed => Err(Failure::Illegal),
        }
    }
}

/// A finished game and, if a player failed, which seat and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The game, over.
    pub game: Game,
    /// The seat that failed, if one did.
    pub failure: Option<(Seat, Failure)>,
}

impl Played {
    /// The game ended by `seat` failing this way.
    fn forfeit(mut game: Game, seat: Seat, failure: Failure) -> Played {
        game.end(failure.result(seat));
        Played {
            game,
            failure: Some((seat, failure)),
        }
    }
}

/// What times the moves of [`play_game`]: a tournament's watchdog, or [`Untimed`].
pub trait Timer {
    /// Whether the game should be given up now (the whole run is stopping).
    fn aborted(&self) -> bool;
    /// A move is about to start; it may take at most `limit` (no limit if `None`).
    fn start(&self, limit: Option<Duration>);
    /// The move started with a `limit` has been answered.
    fn stop(&self);
}

/// No time limits and no stopping: every game is played to its end.
#[derive(Clone, Copy, Debug, Default)]
pub struct Untimed;

impl Timer for Untimed {
    fn aborted(&self) -> bool {
        false
    }
    fn start(&self, _: Option<Duration>) {}
    fn stop(&self) {}
}

/// Plays `config` from its start, seat `s` played by `players[s]`, whose moves may take at most
/// `limits[s]` (no limit if `None` or missing). Returns `None` if the timer aborted meanwhile.
pub fn play_game(
    config: &Config,
    players: &mut [Box<dyn Player>],
    limits: &[Option<Duration>],
    timer: &impl Timer,
) -> Option<Played> {
    let mut game = Game::new(*config);
    while let Some(seat) = game.to_move() {
        if timer.aborted() {
            return None;
        }
        let s = usize::from(seat);
        let limit = limits.get(s).copied().flatten();
        timer.start(limit);
        let started = limit.map(|_| Instant::now());
        let position = *game.position();
        let outcome = choose(players[s].as_mut(), config, &position);
        if let (Some(limit), Some(started)) = (limit, started) {
            timer.stop();
            if timer.aborted() {
                return None;
            }
            if started.elapsed() > limit {
                return Some(Played::forfeit(game, seat, Failure::Overtime));
            }
        }
        let failure = match Failure::judge(outcome, config, &position) {
            Ok(cell) => match game.select(i64::from(cell.row), i64::from(cell.col)) {
                Ok(_) => continue,
                Err(_) => Failure::Illegal,
            },
            Err(failure) => failure,
        };
        return Some(Played::forfeit(game, seat, failure));
    }
    Some(Played {
        game,
        failure: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::{GreedyPlayer, RandomPlayer};
    use crate::testing::{Cheats, Panics, Sleeps, config};

    fn play(players: Vec<Box<dyn Player>>, limits: &[Option<Duration>]) -> Played {
        let mut players = players;
        play_game(&config(), &mut players, limits, &Untimed).unwrap()
    }

    #[test]
    fn a_normal_game_ends_by_the_rules() {
        let p = play(
            vec![
                Box::new(RandomPlayer::new(1)),
                Box::new(GreedyPlayer::new(2)),
            ],
            &[],
        );
        assert_eq!(p.failure, None);
        assert!(matches!(
            p.game.result(),
            Some(GameResult::Poisoned { .. } | GameResult::Tie)
        ));
    }

    #[test]
    fn panics_illegal_moves_and_overtime_lose_the_game() {
        let p = play(
            vec![Box::new(RandomPlayer::new(1)), Box::new(Panics)],
            &[None, None],
        );
        assert_eq!(p.failure, Some((1, Failure::Crash)));
        assert_eq!(p.game.result(), Some(GameResult::Abandoned { loser: 1 }));
        assert_eq!(p.game.moves().len(), 1);

        let p = play(
            vec![Box::new(Cheats), Box::new(RandomPlayer::new(1))],
            &[None, None],
        );
        assert_eq!(p.failure, Some((0, Failure::Illegal)));
        assert!(p.game.moves().is_empty());

        let p = play(
            vec![
                Box::new(RandomPlayer::new(1)),
                Box::new(Sleeps(Duration::from_millis(30))),
            ],
            &[None, Some(Duration::from_millis(1))],
        );
        assert_eq!(p.failure, Some((1, Failure::Overtime)));
        assert_eq!(p.game.result(), Some(GameResult::Timeout { loser: 1 }));
    }

    #[test]
    fn an_aborting_timer_gives_the_game_up() {
        struct Aborted;
        impl Timer for Aborted {
            fn aborted(&self) -> bool {
                true
            }
            fn start(&self, _: Option<Duration>) {}
            fn stop(&self) {}
        }
        let mut players: Vec<Box<dyn Player>> = vec![
            Box::new(RandomPlayer::new(1)),
            Box::new(RandomPlayer::new(2)),
        ];
        assert_eq!(play_game(&config(), &mut players, &[], &Aborted), None);
    }

    #[test]
    fn answers_are_judged_by_the_rules() {
        let c = config();
        let p = Position::start(&c);
        assert_eq!(
            Failure::judge(Outcome::Panicked, &c, &p),
            Err(Failure::Crash)
        );
        assert_eq!(
            Failure::judge(Outcome::Passed, &c, &p),
            Err(Failure::Illegal)
        );
        let off = Outcome::Chose(Cell::new(14, 14));
        assert_eq!(Failure::judge(off, &c, &p), Err(Failure::Illegal));
        let valid = Cell::from_index(p.safe_selections(&c).iter().next().unwrap());
        assert_eq!(Failure::judge(Outcome::Chose(valid), &c, &p), Ok(valid));
    }
}
