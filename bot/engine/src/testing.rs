//! Players that misbehave on purpose, and a small board, for tests only: the engine's own tests,
//! and (feature `testing`) other crates' tests of the code that runs bots.

// Helpers for tests panic on purpose when their fixed inputs are refused.
#![allow(clippy::unwrap_used)]

use crate::player::{Player, RandomPlayer};
use jchomp_rules::{Cell, Config, Position};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a [`Stubborn`] player waits for its stop flag at most.
pub(crate) const STUBBORN_CAP: Duration = Duration::from_secs(10);

/// A two-player 5×6 board, eating 1×2, poison in the corner.
pub fn config() -> Config {
    "5x6 eat 1x2 poison 0,0".parse().unwrap()
}

/// Always panics.
#[derive(Clone, Copy, Debug)]
pub struct Panics;

impl Player for Panics {
    fn choose(&mut self, _: &Config, _: &Position) -> Option<Cell> {
        panic!("this bot always panics (on purpose, in a test)")
    }
}

/// Always answers no selection.
#[derive(Clone, Copy, Debug)]
pub struct Passes;

impl Player for Passes {
    fn choose(&mut self, _: &Config, _: &Position) -> Option<Cell> {
        None
    }
}

/// Always answers a cell off any board.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cheats;

#[cfg(test)]
impl Player for Cheats {
    fn choose(&mut self, _: &Config, _: &Position) -> Option<Cell> {
        Some(Cell::new(14, 14))
    }
}

/// Sleeps this long, then plays at random.
#[derive(Clone, Copy, Debug)]
pub struct Sleeps(pub Duration);

impl Player for Sleeps {
    fn choose(&mut self, c: &Config, p: &Position) -> Option<Cell> {
        std::thread::sleep(self.0);
        RandomPlayer::new(0).choose(c, p)
    }
}

/// Thinks until its stop flag is raised (10 s at most), then plays at random.
#[derive(Clone, Debug, Default)]
pub struct Stubborn(Option<Arc<AtomicBool>>);

impl Player for Stubborn {
    fn choose(&mut self, c: &Config, p: &Position) -> Option<Cell> {
        let started = Instant::now();
        while !self.0.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
            && started.elapsed() < STUBBORN_CAP
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        RandomPlayer::new(0).choose(c, p)
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.0 = Some(stop);
    }
}
