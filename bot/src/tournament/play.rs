//! The clock of a tournament's games: a worker's alarm on the tournament's watchdog, as the
//! engine's [`Timer`]. Games in-process are the engine's one game loop ([`play_game`]) on this
//! clock; a bot that panics, answers with no valid selection, or overruns its time limit loses
//! that game ([`Failure`]), and nothing else is disturbed.

use super::watchdog::{Alarm, Watchdog};
use jchomp_engine::arena::Timer;
#[cfg(doc)]
use jchomp_engine::arena::{Failure, play_game};
use std::time::Duration;

/// Where a worker's moves are timed: the watchdog and the worker's alarm.
#[derive(Clone, Copy, Debug)]
pub struct Clock<'a> {
    /// The tournament's watchdog.
    pub watchdog: &'a Watchdog,
    /// This worker's alarm.
    pub alarm: &'a Alarm,
}

impl Timer for Clock<'_> {
    /// Whether the tournament is stopping.
    fn aborted(&self) -> bool {
        self.watchdog.aborted()
    }

    /// Arms the alarm for a move with a limit; lowers its stop flag for any move.
    fn start(&self, limit: Option<Duration>) {
        match limit {
            Some(l) => self.watchdog.arm(self.alarm, l),
            None => self.watchdog.ready(self.alarm),
        }
    }

    /// Disarms the alarm.
    fn stop(&self) {
        self.watchdog.disarm(self.alarm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_engine::arena::{Failure, Played, play_game};
    use jchomp_engine::player::{Player, RandomPlayer};
    use jchomp_engine::testing::{Stubborn, config};
    use jchomp_rules::GameResult;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    /// Plays one game on a watching watchdog (whose tournament is stopping if `abort`), the
    /// bots' stop flag being the alarm's.
    fn play(
        players: [Box<dyn Player>; 2],
        limits: &[Option<Duration>],
        abort: bool,
    ) -> Option<Played> {
        let dog = Watchdog::new(1, Arc::new(AtomicBool::new(abort)));
        let alarm = dog.alarm(0);
        let clock = Clock {
            watchdog: &dog,
            alarm: &alarm,
        };
        let mut players = Vec::from(players);
        for p in &mut players {
            p.set_stop(alarm.stop_flag());
        }
        std::thread::scope(|s| {
            s.spawn(|| dog.watch());
            let played = play_game(&config(), &mut players, limits, &clock);
            dog.finish();
            played
        })
    }

    #[test]
    fn the_watchdog_stops_an_overrunning_bot_which_then_loses() {
        let players: [Box<dyn Player>; 2] = [
            Box::new(RandomPlayer::new(1)),
            Box::new(Stubborn::default()),
        ];
        let limits = [None, Some(Duration::from_millis(20))];
        let p = play(players, &limits, false).unwrap();
        assert_eq!(p.failure, Some((1, Failure::Overtime)));
        assert_eq!(p.game.result(), Some(GameResult::Timeout { loser: 1 }));
    }

    #[test]
    fn a_stopping_tournament_gives_the_game_up() {
        let players: [Box<dyn Player>; 2] = [
            Box::new(RandomPlayer::new(1)),
            Box::new(RandomPlayer::new(2)),
        ];
        assert_eq!(play(players, &[], true), None);
    }
}
