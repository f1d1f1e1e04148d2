//! The shape of a load run ([`Shape`], [`Load`]) and what its tasks share while it runs: the
//! [`Stage`] every table follows and the [`Live`] counters the sampler reads each second.

use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::Config;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// What the connections do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Load {
    /// Rooms of `config.players()` seats playing games of this configuration, one after
    /// another, against a JChomp server.
    Game {
        /// The validated configuration (the local copy of each game is played with it); boxed,
        /// as it is far larger than the other variant.
        config: Box<Config>,
        /// The same configuration as sent in `create_room`.
        json: ConfigJson,
    },
    /// Groups of `seats` connections taking turns sending a move-sized message to an echo
    /// server and waiting for it to come back: the same shape without a game.
    Echo {
        /// Connections per group (as many as a room has seats).
        seats: usize,
        /// Each message goes to every connection of its group (as a move goes to every seat
        /// of its room), not only back to its sender.
        fanout: bool,
    },
}

impl Load {
    /// A game load for a configuration.
    pub fn game(config: Config) -> Load {
        Load::Game {
            json: ConfigJson::new(&config, None),
            config: Box::new(config),
        }
    }

    /// Connections per room (or echo group).
    pub fn seats(&self) -> usize {
        match self {
            Load::Game { config, .. } => usize::from(config.players()),
            Load::Echo { seats, .. } => *seats,
        }
    }

    /// `game` or `echo`.
    pub fn name(&self) -> &'static str {
        match self {
            Load::Game { .. } => "game",
            Load::Echo { fanout: false, .. } => "echo",
            Load::Echo { fanout: true, .. } => "fan-out echo",
        }
    }
}

/// How much load, for how long.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    /// Connections to open (rounded down to whole rooms).
    pub connections: usize,
    /// Time measured, after the warm-up.
    pub duration: Duration,
    /// Time played before measuring starts.
    pub warmup: Duration,
    /// Moves per second per seat at most; `None` sends each move as soon as it is the seat's
    /// turn.
    pub rate: Option<f64>,
    /// Connections being opened at once.
    pub connect_parallel: usize,
    /// Time the whole connect phase may take.
    pub connect_deadline: Duration,
    /// Time tables get after the end to finish the game they are in.
    pub drain: Duration,
    /// Seeds the scripted players' choices.
    pub seed: u64,
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            connections: 100,
            duration: Duration::from_secs(10),
            warmup: Duration::from_secs(2),
            rate: None,
            connect_parallel: 256,
            connect_deadline: Duration::from_secs(120),
            drain: Duration::from_secs(10),
            seed: 1,
        }
    }
}

impl Shape {
    /// The time between two moves of one seat under `rate`.
    pub fn pause(&self) -> Option<Duration> {
        self.rate
            .filter(|r| r.is_finite() && *r > 0.0)
            .map(|r| Duration::from_secs_f64(1.0 / r))
    }
}

/// The measurement window: moves answered in `[start, end)` count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Measuring starts (after the warm-up).
    pub start: Instant,
    /// Measuring ends.
    pub end: Instant,
}

impl Window {
    /// Whether `t` falls inside the window.
    pub fn contains(&self, t: Instant) -> bool {
        self.start <= t && t < self.end
    }
}

/// Where a run is; tables watch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Connections are being opened; tables wait once connected.
    Connecting,
    /// Play (or echo); the window says what is measured.
    Run(Window),
    /// No new games; finish the current one.
    Stop,
    /// Stop now, whatever the state.
    Halt,
}

/// A table's view of the [`Stage`]: the stage now, and one waiter for the next change that
/// lives across the table's messages (a fresh `watch` waiter for every message read cost two
/// lock round-trips each). Waiting is cancel-safe: a wait cut short resumes where it was.
pub struct StageWatch {
    now: Stage,
    next: Pin<Box<dyn Future<Output = (Stage, watch::Receiver<Stage>)> + Send>>,
}

impl StageWatch {
    /// Watches `rx` from its current stage.
    pub fn new(mut rx: watch::Receiver<Stage>) -> Self {
        let now = *rx.borrow_and_update();
        StageWatch {
            now,
            next: Self::wait(rx),
        }
    }

    /// The stage now.
    pub fn now(&self) -> Stage {
        self.now
    }

    /// Waits for the next stage and returns it ([`Stage::Halt`] once the run is gone).
    pub async fn changed(&mut self) -> Stage {
        let (stage, rx) = (&mut self.next).await;
        self.now = stage;
        self.next = Self::wait(rx);
        stage
    }

    fn wait(
        mut rx: watch::Receiver<Stage>,
    ) -> Pin<Box<dyn Future<Output = (Stage, watch::Receiver<Stage>)> + Send>> {
        Box::pin(async move {
            let stage = match rx.changed().await {
                Ok(()) => *rx.borrow_and_update(),
                Err(_) => Stage::Halt,
            };
            (stage, rx)
        })
    }
}

/// Counters shared by every table, read by the sampler.
#[derive(Debug, Default)]
pub struct Live {
    /// Connections opened.
    pub connected: AtomicUsize,
    /// Connections that failed to open.
    pub connect_failed: AtomicUsize,
    /// Connections open now.
    pub open: AtomicUsize,
    /// Moves (or echoes) answered so far.
    pub answered: AtomicU64,
    /// Rooms with a game in play now.
    pub playing: AtomicUsize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stage_watch_sees_every_change_even_after_a_wait_was_cut_short() {
        let (tx, rx) = watch::channel(Stage::Connecting);
        let mut w = StageWatch::new(rx);
        assert_eq!(w.now(), Stage::Connecting);
        // A wait cut short (as when another branch of a select wins) loses nothing.
        let cut = tokio::time::timeout(Duration::from_millis(10), w.changed()).await;
        assert!(cut.is_err());
        tx.send(Stage::Stop).unwrap();
        assert_eq!(w.changed().await, Stage::Stop);
        assert_eq!(w.now(), Stage::Stop);
        drop(tx);
        assert_eq!(w.changed().await, Stage::Halt);
        assert_eq!(w.now(), Stage::Halt);
    }
}
