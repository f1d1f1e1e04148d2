//! Server-side bots: building one from a spec, and computing its move on a blocking thread so
//! that no room task waits for it.

use super::{BotOutcome, RoomEvent};
use jchomp_engine::{BotSpec, Player, RandomPlayer, SpecError};
use jchomp_protocol::rules::{Config, Position, Seat};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::{Semaphore, mpsc};
use tokio::time::Instant;

/// The spec used when `add_bot` names none.
pub(crate) const DEFAULT_SPEC: &str = "random";

/// Builds the bot a spec names (`jchomp_engine::BotSpec` syntax) with a random seed; returns its
/// canonical name and the player, whose stop flag is `stop`.
pub(crate) fn build(
    spec: &str,
    stop: Arc<AtomicBool>,
) -> Result<(String, Box<dyn Player>), SpecError> {
    let spec = BotSpec::parse(spec)?;
    let mut player = spec.build(uuid::Uuid::new_v4().as_u128() as u64);
    player.set_stop(stop);
    Ok((spec.to_string(), player))
}

/// A random player to stand in for a bot that failed.
pub(crate) fn fallback() -> Box<dyn Player> {
    Box::new(RandomPlayer::new(uuid::Uuid::new_v4().as_u128() as u64))
}

/// A bot's turn to think about.
pub(crate) struct Turn {
    /// The bot's seat.
    pub seat: Seat,
    /// Moves played so far.
    pub ply: usize,
    /// The rules.
    pub config: Config,
    /// The position to move in.
    pub position: Position,
    /// When to raise the stop flag (ahead of the turn timer), if ever.
    pub stop_at: Option<Instant>,
}

/// Computes the bot's move on a blocking thread (at most `slots` at once) and sends the
/// outcome to the room as [`RoomEvent::BotMoved`]. `stop` is raised at `turn.stop_at`.
pub(crate) fn think(
    slots: Arc<Semaphore>,
    room: mpsc::Sender<RoomEvent>,
    turn: Turn,
    stop: Arc<AtomicBool>,
    mut player: Box<dyn Player>,
) {
    let Turn {
        seat,
        ply,
        config,
        position,
        stop_at,
    } = turn;
    stop.store(false, Ordering::Relaxed);
    tokio::spawn(async move {
        let Ok(_permit) = slots.acquire_owned().await else {
            return;
        };
        let mut handle = tokio::task::spawn_blocking(move || {
            let cell = player.choose(&config, &position);
            (player, cell)
        });
        let joined = tokio::select! {
            joined = &mut handle => joined,
            _ = super::sleep_until(stop_at) => {
                stop.store(true, Ordering::Relaxed);
                handle.await
            }
        };
        let (player, outcome) = match joined {
            Ok((p, Some(cell))) => (Some(p), BotOutcome::Chose(cell)),
            Ok((p, None)) => (Some(p), BotOutcome::Passed),
            Err(_) => (None, BotOutcome::Panicked),
        };
        let _ = room
            .send(RoomEvent::BotMoved {
                seat,
                ply,
                player,
                outcome,
            })
            .await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_protocol::rules::{Cell, Setup, Variant};

    struct Panicker;
    impl Player for Panicker {
        fn choose(&mut self, _: &Config, _: &Position) -> Option<Cell> {
            panic!("a bot bug");
        }
    }

    struct Passer;
    impl Player for Passer {
        fn choose(&mut self, _: &Config, _: &Position) -> Option<Cell> {
            None
        }
    }

    async fn outcome_of(player: Box<dyn Player>) -> (bool, BotOutcome) {
        let config = Config::new(&Setup {
            rows: 4,
            cols: 4,
            players: 2,
            variant: Variant::JChomp,
            eat: Some([1, 1]),
            poison: vec![[0, 0]],
        })
        .unwrap();
        let (tx, mut rx) = mpsc::channel(1);
        let turn = Turn {
            seat: 0,
            ply: 0,
            config,
            position: Position::start(&config),
            stop_at: None,
        };
        let stop = Arc::new(AtomicBool::new(false));
        think(Arc::new(Semaphore::new(1)), tx, turn, stop, player);
        match rx.recv().await {
            Some(RoomEvent::BotMoved {
                seat: 0,
                ply: 0,
                player,
                outcome,
            }) => (player.is_some(), outcome),
            _ => panic!("no BotMoved"),
        }
    }

    #[tokio::test]
    async fn a_panicking_bot_is_reported_not_fatal() {
        let (kept, outcome) = outcome_of(Box::new(Panicker)).await;
        assert!(!kept);
        assert!(matches!(outcome, BotOutcome::Panicked));
    }

    #[tokio::test]
    async fn a_bot_that_passes_is_reported() {
        let (kept, outcome) = outcome_of(Box::new(Passer)).await;
        assert!(kept);
        assert!(matches!(outcome, BotOutcome::Passed));
    }

    #[tokio::test]
    async fn a_real_bot_chooses_a_valid_cell() {
        let (_, player) = build("greedy", Arc::new(AtomicBool::new(false))).unwrap();
        let (kept, outcome) = outcome_of(player).await;
        assert!(kept);
        assert!(matches!(outcome, BotOutcome::Chose(c) if c != Cell::new(0, 0)));
    }

    #[test]
    fn specs_are_checked_and_named_canonically() {
        let stop = Arc::new(AtomicBool::new(false));
        assert_eq!(build(" random ", stop.clone()).unwrap().0, "random");
        let err = build("grandmaster", stop).err().unwrap().to_string();
        assert!(err.contains("level:"), "{err}");
    }
}
