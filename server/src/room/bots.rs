//! Server-side bots: building one from a spec, and computing its move on a blocking thread so
//! that no room task waits for it.

use super::{BotOutcome, RoomEvent};
use jchomp_bot::{Player, RandomPlayer};
use jchomp_protocol::rules::{Config, Position, Seat};
use std::sync::Arc;
use tokio::sync::{Semaphore, mpsc};

/// The spec used when `add_bot` names none.
pub(crate) const DEFAULT_SPEC: &str = "random";

/// Builds the bot a spec names, with a random seed.
pub(crate) fn build(spec: &str) -> Result<Box<dyn Player>, String> {
    let seed = uuid::Uuid::new_v4().as_u128() as u64;
    if spec.trim().is_empty() {
        return Err("the bot spec is empty".to_string());
    }
    Ok(Box::new(RandomPlayer::new(seed)))
}

/// A random player to stand in for a bot that failed.
pub(crate) fn fallback() -> Box<dyn Player> {
    Box::new(RandomPlayer::new(uuid::Uuid::new_v4().as_u128() as u64))
}

/// Computes the bot's move on a blocking thread (at most `slots` at once) and sends the
/// outcome to the room as [`RoomEvent::BotMoved`].
pub(crate) fn think(
    slots: Arc<Semaphore>,
    room: mpsc::Sender<RoomEvent>,
    seat: Seat,
    ply: usize,
    config: Config,
    position: Position,
    mut player: Box<dyn Player>,
) {
    tokio::spawn(async move {
        let Ok(_permit) = slots.acquire_owned().await else {
            return;
        };
        let joined = tokio::task::spawn_blocking(move || {
            let cell = player.choose(&config, &position);
            (player, cell)
        })
        .await;
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
