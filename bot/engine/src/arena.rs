//! Playing one whole game between [`Player`]s: the one game loop of the benches and of
//! in-process tournaments. A player that panics, answers no valid selection, overruns its time
//! limit or its clock, or reports a [`Fault`] of its own loses the game ([`Failure`]); a [`Timer`]
//! arms each move's limit and may call the game off ([`Untimed`] for none).

use crate::player::Player;
use crate::think::take_turn;
pub use crate::turn::Failure;
use crate::turn::{Fault, TimeControl, Turn};
use jchomp_rules::{Config, Game, Seat};
use std::time::{Duration, Instant};

/// A finished game and, if a player failed, which seat and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The game, over.
    pub game: Game,
    /// The seat that failed, if one did.
    pub failure: Option<(Seat, Failure)>,
    /// The failed player's last lines (an engine's; empty otherwise).
    pub lines: Vec<String>,
}

impl Played {
    /// The game ended by `seat` failing this way.
    fn forfeit(mut game: Game, seat: Seat, fault: Fault) -> Played {
        game.end(fault.failure.result(seat));
        Played {
            game,
            failure: Some((seat, fault.failure)),
            lines: fault.lines,
        }
    }
}

/// The game ended by `seat` failing as the arena judged, with the player's last lines.
fn forfeit(game: Game, seat: Seat, failure: Failure, player: &dyn Player) -> Played {
    let lines = player.last_lines();
    Played::forfeit(game, seat, Fault { failure, lines })
}

/// The time limits of a game's moves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Each seat's own limit per move (a bot's time budget plus the margin); none if `None` or
    /// missing.
    pub per_move: Vec<Option<Duration>>,
    /// The game's time control, if any.
    pub control: Option<TimeControl>,
    /// How far past its clock or its move time an answer may come before it loses.
    pub margin: Duration,
}

/// The clocks of a game in play.
struct Clocks<'a> {
    limits: &'a Limits,
    /// Time left per seat; empty without a clock.
    left: Vec<Duration>,
}

impl<'a> Clocks<'a> {
    fn new(limits: &'a Limits, seats: usize) -> Clocks<'a> {
        let left = match limits.control {
            Some(TimeControl::Clock { base, .. }) => vec![base; seats],
            _ => Vec::new(),
        };
        Clocks { limits, left }
    }

    /// Seat `s`'s move: when its stop flag is raised (its own limit, or its share of the time
    /// control) and when its answer loses on time (its own limit, or its clock or move time plus
    /// the margin).
    fn deadlines(&self, s: usize) -> (Option<Duration>, Option<Duration>) {
        let own = self.limits.per_move.get(s).copied().flatten();
        let (soft, hard) = match self.limits.control {
            None => (None, None),
            Some(control) => {
                let left = match control {
                    TimeControl::Clock { .. } => self.left.get(s).copied().unwrap_or_default(),
                    TimeControl::MoveTime(t) => t,
                };
                (
                    Some(control.allotted(left)),
                    Some(left + self.limits.margin),
                )
            }
        };
        let min = |a: Option<Duration>, b: Option<Duration>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        (min(own, soft), min(own, hard))
    }

    /// What seat `s` is told about its move.
    fn turn<'g>(&'g self, game: &'g Game, limit: Option<Duration>) -> Turn<'g> {
        let (inc, movetime) = match self.limits.control {
            Some(TimeControl::Clock { inc, .. }) => (inc, None),
            Some(TimeControl::MoveTime(t)) => (Duration::ZERO, Some(t)),
            None => (Duration::ZERO, None),
        };
        Turn {
            game,
            clocks: &self.left,
            inc,
            movetime,
            limit,
        }
    }

    /// Charges seat `s` the time its move took, and adds the increment.
    fn charge(&mut self, s: usize, took: Duration) {
        if let (Some(TimeControl::Clock { inc, .. }), Some(left)) =
            (self.limits.control, self.left.get_mut(s))
        {
            *left = left.saturating_sub(took) + inc;
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

/// Plays `config` from its start, seat `s` played by `players[s]` (owned, or borrowed for the
/// game: a tournament lends the engines its workers keep), whose moves may take at most
/// `limits[s]` (no limit if `None` or missing). Returns `None` if the timer aborted meanwhile.
pub fn play_game(
    config: &Config,
    players: &mut [Box<dyn Player + '_>],
    limits: &[Option<Duration>],
    timer: &impl Timer,
) -> Option<Played> {
    let limits = Limits {
        per_move: limits.to_vec(),
        ..Limits::default()
    };
    play_timed(config, players, &limits, timer)
}

/// [`play_game`] with a time control: every player is told of the game's start
/// ([`Player::start_game`]) and then plays its turns ([`Player::play`]) knowing the clocks.
pub fn play_timed(
    config: &Config,
    players: &mut [Box<dyn Player + '_>],
    limits: &Limits,
    timer: &impl Timer,
) -> Option<Played> {
    let mut game = Game::new(*config);
    for (seat, player) in players.iter_mut().enumerate() {
        if let Err(fault) = player.start_game(config) {
            return Some(Played::forfeit(game, seat as Seat, fault));
        }
    }
    let mut clocks = Clocks::new(limits, players.len());
    while let Some(seat) = game.to_move() {
        if timer.aborted() {
            return None;
        }
        let s = usize::from(seat);
        let (soft, hard) = clocks.deadlines(s);
        timer.start(soft);
        let started = Instant::now();
        let answer = take_turn(players[s].as_mut(), &clocks.turn(&game, hard));
        let took = started.elapsed();
        if soft.is_some() {
            timer.stop();
            if timer.aborted() {
                return None;
            }
        }
        let outcome = match answer {
            Err(fault) => return Some(Played::forfeit(game, seat, fault)),
            Ok(_) if hard.is_some_and(|h| took > h) => {
                return Some(forfeit(game, seat, Failure::Overtime, players[s].as_ref()));
            }
            Ok(outcome) => outcome,
        };
        clocks.charge(s, took);
        let failure = match Failure::judge(outcome, config, game.position()) {
            Ok(cell) => match game.select(i64::from(cell.row), i64::from(cell.col)) {
                Ok(_) => continue,
                Err(_) => Failure::Illegal,
            },
            Err(failure) => failure,
        };
        return Some(forfeit(game, seat, failure, players[s].as_ref()));
    }
    Some(Played {
        game,
        failure: None,
        lines: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::{GreedyPlayer, RandomPlayer};
    use crate::testing::{Cheats, Panics, Sleeps, config};
    use crate::think::Outcome;
    use jchomp_rules::{Cell, GameResult, Position};

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
    fn a_clock_runs_out_and_loses_on_time() {
        // Each move takes 10 ms; a 25 ms clock without increment lasts two or three moves.
        let limits = Limits {
            per_move: Vec::new(),
            control: Some(TimeControl::Clock {
                base: Duration::from_millis(25),
                inc: Duration::ZERO,
            }),
            margin: Duration::ZERO,
        };
        let mut players: Vec<Box<dyn Player>> = vec![
            Box::new(RandomPlayer::new(1)),
            Box::new(Sleeps(Duration::from_millis(10))),
        ];
        let p = play_timed(&config(), &mut players, &limits, &Untimed).unwrap();
        assert_eq!(p.failure, Some((1, Failure::Overtime)));
        assert!(p.game.moves().len() >= 4, "{:?}", p.game.moves());
        // With an increment that covers each move the clock never runs out.
        let limits = Limits {
            control: Some(TimeControl::Clock {
                base: Duration::from_millis(25),
                inc: Duration::from_millis(30),
            }),
            ..limits
        };
        let p = play_timed(&config(), &mut players, &limits, &Untimed).unwrap();
        assert_eq!(p.failure, None);
    }

    #[test]
    fn a_fault_at_the_start_loses_before_any_move() {
        struct Broken;
        impl Player for Broken {
            fn choose(&mut self, _: &Config, _: &Position) -> Option<Cell> {
                None
            }
            fn start_game(&mut self, _: &Config) -> Result<(), Fault> {
                Err(Fault {
                    failure: Failure::Start,
                    lines: vec!["no such file".into()],
                })
            }
        }
        let p = play(vec![Box::new(RandomPlayer::new(1)), Box::new(Broken)], &[]);
        assert_eq!(p.failure, Some((1, Failure::Start)));
        assert_eq!(p.game.result(), Some(GameResult::Abandoned { loser: 1 }));
        assert_eq!(p.lines, vec!["no such file".to_string()]);
        assert!(p.game.moves().is_empty());
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
