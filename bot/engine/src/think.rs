//! One bot's turn: `choose` asks a [`Player`] for a selection on the calling thread and turns a
//! panic into [`Outcome::Panicked`]; `think` (feature `tokio`) does the same on a blocking
//! thread, raises the player's stop flag at a deadline, and hands the player back (unless it
//! panicked) with its [`Outcome`].
//!
//! `think` uses tokio's blocking pool and timer, behind the optional `tokio` feature, so the
//! engine's default build links no runtime. Every caller of `think` (the server's bots, the
//! bot client, tournaments through a server) already runs on tokio. Its blocking pool reuses
//! threads, and its timer is the one those callers' own deadlines run on. A std thread per move
//! with a hand-written waker would add a thread spawn per move and a second clock. In-process
//! games (the [`arena`](crate::arena)) stay on their own thread and use `choose`.

use crate::player::Player;
use crate::turn::{Fault, Turn};
use jchomp_rules::Cell;
#[cfg(any(feature = "tokio", test))]
use jchomp_rules::{Config, Position};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// What a player's turn came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It chose this cell (not checked against the rules here).
    Chose(Cell),
    /// It returned no selection.
    Passed,
    /// It panicked.
    Panicked,
}

/// Asks `player` for its selection on this thread; a panic is caught and reported as
/// [`Outcome::Panicked`] (the player may then be in any state and should not play again).
#[cfg(any(feature = "tokio", test))]
pub(crate) fn choose(player: &mut dyn Player, config: &Config, position: &Position) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| player.choose(config, position))) {
        Ok(answer) => Outcome::from(answer),
        Err(_) => Outcome::Panicked,
    }
}

/// Asks `player` to [`Player::play`] `turn` on this thread; a panic is caught as in [`choose`].
/// A fault the player reports is handed back as it is.
pub(crate) fn take_turn(player: &mut dyn Player, turn: &Turn<'_>) -> Result<Outcome, Fault> {
    match catch_unwind(AssertUnwindSafe(|| player.play(turn))) {
        Ok(answer) => answer.map(Outcome::from),
        Err(_) => Ok(Outcome::Panicked),
    }
}

impl From<Option<Cell>> for Outcome {
    fn from(answer: Option<Cell>) -> Outcome {
        match answer {
            Some(cell) => Outcome::Chose(cell),
            None => Outcome::Passed,
        }
    }
}

/// How `think` stops a player: the flag the player was handed ([`Player::set_stop`]), raised at
/// `at`. The caller lowers it when the turn starts, so that a turn called off before the
/// player runs (the flag raised meanwhile by its owner) stays called off.
#[derive(Clone, Debug)]
pub struct Stop {
    /// The player's stop flag.
    pub flag: Arc<AtomicBool>,
    /// When to raise it (ahead of any turn timer, to leave time to answer); never if `None`.
    pub at: Option<Instant>,
}

/// A player back from its turn.
pub struct Thought {
    /// The player, unless it panicked (a panicked player is dropped).
    pub player: Option<Box<dyn Player>>,
    /// What it chose.
    pub outcome: Outcome,
}

impl std::fmt::Debug for Thought {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Thought")
            .field("player", &self.player.as_ref().map(|_| "Player"))
            .field("outcome", &self.outcome)
            .finish()
    }
}

/// Runs `player.choose(config, position)` on tokio's blocking pool, so that no async thread
/// waits for it. With `stop`, its flag is raised at `stop.at` (the caller lowered it when the
/// turn started); without it, the flag is left to the caller (a tournament's watchdog). A panic is caught: the player is then
/// dropped and the outcome is [`Outcome::Panicked`]. Needs a tokio runtime with the time driver.
///
/// A caller that bounds the threads thinking at once (the server) takes its slot before calling
/// and holds it until the future is done.
#[cfg(feature = "tokio")]
pub async fn think(
    mut player: Box<dyn Player>,
    config: Config,
    position: Position,
    stop: Option<Stop>,
) -> Thought {
    use std::sync::atomic::Ordering;
    let mut handle = tokio::task::spawn_blocking(move || {
        let outcome = choose(player.as_mut(), &config, &position);
        // A panicked player is dropped here, off the async threads.
        let player = (outcome != Outcome::Panicked).then_some(player);
        Thought { player, outcome }
    });
    let joined = match stop {
        Some(Stop { flag, at: Some(at) }) => {
            let at = tokio::time::Instant::from_std(at);
            match tokio::time::timeout_at(at, &mut handle).await {
                Ok(joined) => joined,
                Err(_) => {
                    flag.store(true, Ordering::Relaxed);
                    handle.await
                }
            }
        }
        _ => handle.await,
    };
    joined.unwrap_or(Thought {
        player: None,
        outcome: Outcome::Panicked,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Panics, Passes, STUBBORN_CAP, Stubborn, config};
    use std::time::Duration;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn choose_reports_cells_passes_and_panics() {
        let c = config();
        let p = Position::start(&c);
        assert_eq!(choose(&mut Passes, &c, &p), Outcome::Passed);
        assert_eq!(choose(&mut Panics, &c, &p), Outcome::Panicked);
        let mut stopped = Stubborn::default();
        stopped.set_stop(Arc::new(AtomicBool::new(true)));
        assert!(matches!(choose(&mut stopped, &c, &p), Outcome::Chose(_)));
    }

    #[test]
    fn a_slow_player_is_stopped_at_its_deadline_and_comes_back() {
        let c = config();
        let flag = Arc::new(AtomicBool::new(true));
        let mut player: Box<dyn Player> = Box::new(Stubborn::default());
        player.set_stop(Arc::clone(&flag));
        let rt = runtime();
        for _ in 0..2 {
            // The caller lowers the flag, raised by the turn before, as the turn starts.
            flag.store(false, std::sync::atomic::Ordering::Relaxed);
            let started = Instant::now();
            let stop = Stop {
                flag: Arc::clone(&flag),
                at: Some(started + Duration::from_millis(50)),
            };
            let thought = rt.block_on(think(player, c, Position::start(&c), Some(stop)));
            let took = started.elapsed();
            // The player thought till the deadline raised its flag.
            assert!(took >= Duration::from_millis(50), "{took:?}");
            assert!(took < STUBBORN_CAP / 2, "{took:?}");
            assert!(matches!(thought.outcome, Outcome::Chose(_)));
            player = thought.player.unwrap();
        }
    }

    #[test]
    fn a_turn_called_off_before_it_runs_stays_called_off() {
        // The owner raised the flag after the turn started (a game that ended meanwhile):
        // think does not lower it again, so the player answers at once.
        let c = config();
        let flag = Arc::new(AtomicBool::new(true));
        let mut player: Box<dyn Player> = Box::new(Stubborn::default());
        player.set_stop(Arc::clone(&flag));
        let started = Instant::now();
        let stop = Stop {
            flag,
            at: Some(started + STUBBORN_CAP),
        };
        let thought = runtime().block_on(think(player, c, Position::start(&c), Some(stop)));
        assert!(started.elapsed() < STUBBORN_CAP / 2);
        assert!(thought.player.is_some());
    }

    #[test]
    fn a_player_comes_back_with_its_state() {
        let c = config();
        let rt = runtime();
        let mut player: Box<dyn Player> = Box::new(crate::RandomPlayer::new(5));
        let mut twin = crate::RandomPlayer::new(5);
        let position = Position::start(&c);
        for _ in 0..3 {
            let thought = rt.block_on(think(player, c, position, None));
            assert_eq!(
                thought.outcome,
                choose(&mut twin, &c, &position),
                "the player's generator moved on between turns"
            );
            player = thought.player.unwrap();
        }
    }

    #[test]
    fn a_panicking_player_is_reported_and_dropped() {
        let c = config();
        let rt = runtime();
        let stop = Stop {
            flag: Arc::new(AtomicBool::new(false)),
            at: Some(Instant::now() + STUBBORN_CAP),
        };
        let p = Position::start(&c);
        let thought = rt.block_on(think(Box::new(Panics), c, p, Some(stop)));
        assert_eq!(thought.outcome, Outcome::Panicked);
        assert!(thought.player.is_none());
        let thought = rt.block_on(think(Box::new(Passes), c, p, None));
        assert_eq!(thought.outcome, Outcome::Passed);
        assert!(thought.player.is_some());
    }
}
