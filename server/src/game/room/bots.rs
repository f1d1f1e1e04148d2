//! Server-side bots: building one from a spec, and computing its move on a blocking thread so
//! that no room task waits for it.

use super::{BotOutcome, RoomEvent};
use jchomp_engine::classic::{ClassicLibrary, answers_for};
use jchomp_engine::spec::MAX_LEVEL;
use jchomp_engine::think::{Stop, Thought, think as engine_think};
use jchomp_engine::{BotSpec, Player, RandomPlayer, SpecError};
use jchomp_protocol::rules::{Config, Position, Seat};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::{Semaphore, mpsc};
use tokio::time::Instant;

/// The spec used when `add_bot` names none.
pub(crate) const DEFAULT_SPEC: &str = "random";

/// Builds the bot a spec names for a game of `config`: `jchomp_engine::BotSpec` syntax, with a
/// random seed, or followed by `,seed=N` to play the same moves in the same positions every
/// time (with a budget of depth or nodes, not of time). Returns its canonical name (with the
/// seed, if one was given) and the player, whose stop flag is `stop`. A `level:5` bot plays
/// perfectly from the classic database where it answers (the standard classic game), and
/// starts loading it now if that is this game, so that it is likely ready by the bot's first
/// turn (until then the bot searches).
pub(crate) fn build(
    spec: &str,
    stop: Arc<AtomicBool>,
    config: &Config,
    classic: &Arc<ClassicLibrary>,
) -> Result<(String, Box<dyn Player>), SpecError> {
    let (bot, seed) = seeded(spec)?;
    let parsed = BotSpec::parse(bot).map_err(|e| SpecError {
        given: spec.to_string(),
        ..e
    })?;
    let mut player = parsed.build_with(
        seed.unwrap_or_else(|| uuid::Uuid::new_v4().as_u128() as u64),
        Some(classic.clone()),
    );
    if parsed == BotSpec::Level(MAX_LEVEL) && answers_for(config) {
        let _ = classic.get();
    }
    player.set_stop(stop);
    let name = match seed {
        Some(seed) => format!("{parsed},seed={seed}"),
        None => parsed.to_string(),
    };
    Ok((name, player))
}

/// Splits a `,seed=N` off a spec: the bot's spec and the seed, if one was given.
pub(crate) fn seeded(spec: &str) -> Result<(&str, Option<u64>), SpecError> {
    let Some((bot, seed)) = spec.trim().rsplit_once(",seed=") else {
        return Ok((spec, None));
    };
    match seed.parse::<u64>() {
        Ok(seed) => Ok((bot, Some(seed))),
        Err(_) => Err(SpecError {
            given: spec.to_string(),
            reason: format!(
                "the seed must be a whole number 0–{}, got {seed:?}",
                u64::MAX
            ),
        }),
    }
}

/// A random player to stand in for a bot that failed.
pub(crate) fn fallback() -> Box<dyn Player> {
    Box::new(RandomPlayer::new(uuid::Uuid::new_v4().as_u128() as u64))
}

/// A bot's turn to think about.
pub(crate) struct Turn {
    /// The bot's seat.
    pub seat: Seat,
    /// Games the room finished before this one (a move meant for an earlier game is stale).
    pub game: u32,
    /// Moves played so far.
    pub ply: usize,
    /// The rules.
    pub config: Config,
    /// The position to move in.
    pub position: Position,
    /// When to raise the stop flag (ahead of the turn timer), if ever.
    pub stop_at: Option<Instant>,
}

/// Computes the bot's move on a blocking thread (at most `slots` at once, through the engine's
/// [`think`]) and sends the outcome to the room as [`RoomEvent::BotMoved`]. `stop` is lowered
/// now and raised at `turn.stop_at`; a turn the room calls off (raising `stop`) while it waits
/// for a thread is answered at once, without thinking.
pub(crate) fn think(
    slots: Arc<Semaphore>,
    room: mpsc::Sender<RoomEvent>,
    turn: Turn,
    stop: Arc<AtomicBool>,
    player: Box<dyn Player>,
) {
    let Turn {
        seat,
        game,
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
        let Thought { player, outcome } = if stop.load(Ordering::Relaxed) {
            Thought {
                player: Some(player),
                outcome: BotOutcome::Passed,
            }
        } else {
            let stop = Stop {
                flag: stop,
                at: stop_at.map(Instant::into_std),
            };
            engine_think(player, config, position, Some(stop)).await
        };
        let _ = room
            .send(RoomEvent::BotMoved {
                seat,
                game,
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
    use jchomp_engine::classic::Availability;
    use jchomp_engine::testing::{Panics, Passes};
    use jchomp_protocol::rules::Cell;

    async fn outcome_of(player: Box<dyn Player>) -> (bool, BotOutcome) {
        let config: Config = "4x4 poison 0,0".parse().unwrap();
        let (tx, mut rx) = mpsc::channel(1);
        let turn = Turn {
            seat: 0,
            game: 0,
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
                game: 0,
                ply: 0,
                player,
                outcome,
            }) => (player.is_some(), outcome),
            _ => panic!("no BotMoved"),
        }
    }

    #[tokio::test]
    async fn a_panicking_bot_is_reported_not_fatal() {
        let (kept, outcome) = outcome_of(Box::new(Panics)).await;
        assert!(!kept);
        assert!(matches!(outcome, BotOutcome::Panicked));
    }

    #[tokio::test]
    async fn a_bot_that_passes_is_reported() {
        let (kept, outcome) = outcome_of(Box::new(Passes)).await;
        assert!(kept);
        assert!(matches!(outcome, BotOutcome::Passed));
    }

    /// Builds a bot for a 4×4 board with a library that is never asked.
    fn build(spec: &str, stop: Arc<AtomicBool>) -> Result<(String, Box<dyn Player>), SpecError> {
        let config: Config = "4x4 poison 0,0".parse().unwrap();
        super::build(spec, stop, &config, &ClassicLibrary::with_box(None, 4, 4))
    }

    /// The moves a bot of `spec` chooses over a game against itself on a 7×7 board.
    fn game_of(spec: &str) -> Vec<Cell> {
        let config: Config = "7x7 poison 3,3".parse().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let library = ClassicLibrary::with_box(None, 4, 4);
        let (_, mut player) = super::build(spec, stop, &config, &library).unwrap();
        let mut game = jchomp_protocol::rules::Game::new(config);
        let mut moves = Vec::new();
        while game.to_move().is_some() {
            let cell = player.choose(&config, game.position()).unwrap();
            game.select(cell.row.into(), cell.col.into()).unwrap();
            moves.push(cell);
        }
        moves
    }

    #[test]
    fn a_seed_in_the_spec_makes_a_bot_replay_its_moves() {
        let stop = Arc::new(AtomicBool::new(false));
        let (name, _) = build("random,seed=7", stop.clone()).unwrap();
        assert_eq!(name, "random,seed=7");
        let (name, _) = build("level:3,seed=0", stop.clone()).unwrap();
        assert_eq!(name, "level:3,seed=0");
        assert_eq!(game_of("random,seed=7"), game_of("random,seed=7"));
        assert_eq!(game_of("level:2,seed=9"), game_of("level:2,seed=9"));
        // Another seed plays another game (the first of these seeds that differs is found
        // within a few: a random bot on 48 cells has many games).
        assert!((8..16).any(|s| game_of(&format!("random,seed={s}")) != game_of("random,seed=7")));
        for bad in [
            "random,seed=",
            "random,seed=x",
            "random,seed=-1",
            "nobot,seed=3",
        ] {
            let e = build(bad, stop.clone()).err().unwrap();
            assert_eq!(e.given, bad);
        }
    }

    #[test]
    fn a_perfect_bot_starts_loading_the_classic_database_for_its_game_only() {
        let stop = Arc::new(AtomicBool::new(false));
        let classic: Config = "6x6 variant classic poison 0,0".parse().unwrap();
        let library = ClassicLibrary::with_box(None, 4, 4);
        let idle = |l: &Arc<ClassicLibrary>| matches!(l.availability(), Availability::Idle);
        super::build("level:4", stop.clone(), &classic, &library).unwrap();
        assert!(idle(&library));
        let jchomp: Config = "6x6 eat 1x1 poison 0,0".parse().unwrap();
        super::build("level:5", stop.clone(), &jchomp, &library).unwrap();
        assert!(idle(&library));
        super::build("level:5", stop, &classic, &library).unwrap();
        assert!(!idle(&library));
        assert!(library.wait().is_ok());
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
