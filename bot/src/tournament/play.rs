//! Plays one game in-process between boxed [`Player`]s. A bot that panics, answers with no
//! valid selection, or overruns its time limit loses that game; nothing else is disturbed.

use super::watchdog::{Alarm, Watchdog};
use jchomp_engine::player::Player;
use jchomp_rules::{Config, Game, GameResult, Seat};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// How a bot failed, costing it the game.
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
    /// The name used in `results.json`.
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
}

/// A finished game and, if a bot failed, which seat and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The game, over.
    pub game: Game,
    /// The seat that failed, if one did.
    pub failure: Option<(Seat, Failure)>,
}

/// Where a worker's moves are timed: the watchdog and the worker's alarm.
#[derive(Clone, Copy, Debug)]
pub struct Clock<'a> {
    /// The tournament's watchdog.
    pub watchdog: &'a Watchdog,
    /// This worker's alarm.
    pub alarm: &'a Alarm,
}

/// Plays `config` from its start, seat `s` played by `players[s]`, whose moves may take at most
/// `limits[s]` (no limit if `None`). Returns `None` if the tournament stopped meanwhile.
pub fn play_game(
    config: &Config,
    players: &mut [Box<dyn Player>],
    limits: &[Option<Duration>],
    clock: Clock<'_>,
) -> Option<Played> {
    let mut game = Game::new(*config);
    while let Some(seat) = game.to_move() {
        if clock.watchdog.aborted() {
            return None;
        }
        let s = usize::from(seat);
        let limit = limits.get(s).copied().flatten();
        let started = match limit {
            Some(l) => {
                clock.watchdog.arm(clock.alarm, l);
                Some(Instant::now())
            }
            None => {
                clock.watchdog.ready(clock.alarm);
                None
            }
        };
        let position = *game.position();
        let player = &mut players[s];
        let choice = catch_unwind(AssertUnwindSafe(|| player.choose(config, &position)));
        if let Some(started) = started {
            clock.watchdog.disarm(clock.alarm);
            if clock.watchdog.aborted() {
                return None;
            }
            if limit.is_some_and(|l| started.elapsed() > l) {
                return Some(forfeit(game, seat, Failure::Overtime));
            }
        }
        let failure = match choice {
            Err(_) => Failure::Crash,
            Ok(None) => Failure::Illegal,
            Ok(Some(cell)) => match game.select(i64::from(cell.row), i64::from(cell.col)) {
                Ok(_) => continue,
                Err(_) => Failure::Illegal,
            },
        };
        return Some(forfeit(game, seat, failure));
    }
    Some(Played {
        game,
        failure: None,
    })
}

fn forfeit(mut game: Game, seat: Seat, failure: Failure) -> Played {
    game.end(failure.result(seat));
    Played {
        game,
        failure: Some((seat, failure)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_engine::player::{GreedyPlayer, RandomPlayer};
    use jchomp_rules::{Cell, Position};
    use jchomp_testkit::board;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    fn config() -> Config {
        board("5x6 eat 1x2 poison 0,0")
    }

    struct Panics;
    impl Player for Panics {
        fn choose(&mut self, _: &Config, _: &Position) -> Option<Cell> {
            panic!("this bot always panics (on purpose, in a test)")
        }
    }

    struct Cheats;
    impl Player for Cheats {
        fn choose(&mut self, _: &Config, _: &Position) -> Option<Cell> {
            Some(Cell::new(14, 14))
        }
    }

    struct Sleeps;
    impl Player for Sleeps {
        fn choose(&mut self, c: &Config, p: &Position) -> Option<Cell> {
            std::thread::sleep(Duration::from_millis(30));
            RandomPlayer::new(0).choose(c, p)
        }
    }

    fn play(players: Vec<Box<dyn Player>>, limits: &[Option<Duration>]) -> Played {
        let dog = Watchdog::new(1, Arc::new(AtomicBool::new(false)));
        let alarm = dog.alarm(0);
        let mut players = players;
        play_game(
            &config(),
            &mut players,
            limits,
            Clock {
                watchdog: &dog,
                alarm: &alarm,
            },
        )
        .unwrap()
    }

    #[test]
    fn a_normal_game_ends_by_the_rules() {
        let p = play(
            vec![
                Box::new(RandomPlayer::new(1)),
                Box::new(GreedyPlayer::new(2)),
            ],
            &[None, None],
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
            vec![Box::new(RandomPlayer::new(1)), Box::new(Sleeps)],
            &[None, Some(Duration::from_millis(1))],
        );
        assert_eq!(p.failure, Some((1, Failure::Overtime)));
        assert_eq!(p.game.result(), Some(GameResult::Timeout { loser: 1 }));
    }
}
