//! Server-side bots: building one from a spec, and computing its move on a blocking thread so
//! that no room task waits for it.

use super::{BotOutcome, RoomEvent};
use jchomp_bot::{BotSpec, Player, RandomPlayer};
use jchomp_protocol::rules::{Config, Position, Seat};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::{Semaphore, mpsc};
use tokio::time::Instant;

/// The spec used when `add_bot` names none.
pub(crate) const DEFAULT_SPEC: &str = "random";

/// Builds the bot a spec names (`jchomp_bot::BotSpec` syntax) with a random seed; returns its
/// canonical name and the player, whose stop flag is `stop`.
pub(crate) fn build(
    spec: &str,
    stop: Arc<AtomicBool>,
) -> Result<(String, Box<dyn Player>), String> {
    let spec = BotSpec::parse(spec).map_err(|e| e.to_string())?;
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
