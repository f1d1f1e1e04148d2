//! The bridge: an external engine seated on a server by the bot client (`jchomp-bot play
//! --engine`). [`EngineSeat`] says how the engine is started and timed; [`Bridged`] is the
//! engine started once and kept for every game (its `Seed`, `newgame` and `isready` before
//! each), asked each move with the whole game and the room's timer on tokio's blocking pool.
//! Every failure is a [`BridgeError`] naming it, with the engine's last lines.

use crate::jep::Rule;
use crate::jep_runner::{EngineInfo, EnginePlayer, EngineSetup};
use crate::tournament::schedule::derive_seed;
use jchomp_engine::player::Player;
use jchomp_engine::think::Outcome;
use jchomp_engine::turn::{Failure, Fault, Turn};
use jchomp_rules::{Cell, Game, Options, Variant};
use std::time::Duration;

/// How an engine is started and timed on a server.
#[derive(Clone, Debug)]
pub struct EngineSeat {
    /// Its name in messages.
    pub name: String,
    /// How it is started, set up and logged.
    pub setup: EngineSetup,
    /// Its `movetime` in a room without a move timer.
    pub move_time_default: Duration,
    /// Taken from the room's move timer for the network: `movetime` is the timer minus this
    /// (at most half the timer).
    pub margin: Duration,
}

impl EngineSeat {
    /// The `movetime` of a move in a room whose timer is `room_ms` (none: no timer), and how
    /// long the answer may take before the engine has failed (`overtime`): the whole timer, or
    /// the default move time plus the margin.
    pub fn timing(&self, room_ms: Option<u64>) -> (Duration, Duration) {
        match room_ms {
            Some(ms) => {
                let timer = Duration::from_millis(ms);
                (timer - self.margin.min(timer / 2), timer)
            }
            None => (self.move_time_default, self.move_time_default + self.margin),
        }
    }
}

/// Why an engine on the bridge stopped playing.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// It failed: how, and its last lines.
    #[error(
        "engine {name} failed ({}); why, then its last lines:\n  {}",
        .fault.failure.name(), .fault.lines.join("\n  ")
    )]
    Failed {
        /// The engine's name.
        name: String,
        /// The failure and the last lines.
        fault: Fault,
    },
    /// It does not play the room's game.
    #[error(
        "engine {name} does not play {variant}{} with {players} players (it says: {})",
        Rule::under(*.options), .info.plays_words()
    )]
    Unplayable {
        /// The engine's name.
        name: String,
        /// The room's variant.
        variant: Variant,
        /// The room's rule options.
        options: Options,
        /// The room's player count.
        players: u8,
        /// What the engine said it plays.
        info: Box<EngineInfo>,
    },
}

/// An engine started for the bridge, kept from game to game.
#[derive(Debug)]
pub struct Bridged {
    seat: EngineSeat,
    seed: u64,
    info: EngineInfo,
    /// `None` only while it thinks on the blocking pool (or after it was lost there).
    player: Option<Box<EnginePlayer>>,
    /// The room whose game it was last told of, and the games begun so far.
    room: Option<String>,
    games: u64,
}

impl Bridged {
    /// Starts the engine (handshake, options, `isready`); its games' seeds derive from `seed`.
    pub async fn start(seat: EngineSeat, seed: u64) -> Result<Bridged, BridgeError> {
        let mut player = Box::new(EnginePlayer::new(seat.setup.clone(), None));
        let (player, info) = blocking(&seat.name, move || {
            let info = player.start();
            (player, info)
        })
        .await?;
        let info = info.map_err(|fault| failed(&seat.name, fault))?;
        Ok(Bridged {
            seat,
            seed,
            info,
            player: Some(player),
            room: None,
            games: 0,
        })
    }

    /// The engine's move in `game`, the game of `room` whose move timer is `room_ms`; the first
    /// move asked in a room begins a new game for the engine. A move that is not a valid
    /// selection is the engine's failure (`illegal`).
    pub async fn choose(
        &mut self,
        room: &str,
        game: &Game,
        room_ms: Option<u64>,
    ) -> Result<Cell, BridgeError> {
        let config = *game.config();
        let new_game = self.room.as_deref() != Some(room);
        if new_game {
            if !self
                .info
                .plays(config.variant(), config.options(), config.players())
            {
                return Err(BridgeError::Unplayable {
                    name: self.seat.name.clone(),
                    variant: config.variant(),
                    options: config.options(),
                    players: config.players(),
                    info: Box::new(self.info.clone()),
                });
            }
            self.room = Some(room.to_string());
            self.games += 1;
        }
        let seed = derive_seed(self.seed, self.games, 0);
        let (movetime, limit) = self.seat.timing(room_ms);
        let mut player = self.player.take().ok_or_else(|| lost(&self.seat.name))?;
        let game = game.clone();
        let (player, answer) = blocking(&self.seat.name, move || {
            let answer = ask(
                &mut player,
                &game,
                new_game.then_some(seed),
                movetime,
                limit,
            );
            (player, answer)
        })
        .await?;
        self.player = Some(player);
        answer.map_err(|fault| failed(&self.seat.name, fault))
    }
}

/// One move of `player` in `game` (a new game for it if `seed` is given), judged against the
/// rules.
fn ask(
    player: &mut EnginePlayer,
    game: &Game,
    seed: Option<u64>,
    movetime: Duration,
    limit: Duration,
) -> Result<Cell, Fault> {
    if let Some(seed) = seed {
        player.set_seed(Some(seed));
        player.start_game(game.config())?;
    }
    let turn = Turn {
        game,
        clocks: &[],
        inc: Duration::ZERO,
        movetime: Some(movetime),
        limit: Some(limit),
    };
    let answer = Outcome::from(player.play(&turn)?);
    Failure::judge(answer, game.config(), game.position()).map_err(|failure| {
        let mut lines = vec![format!(
            "{}: the move is not a valid selection",
            failure.name()
        )];
        lines.extend(player.last_lines());
        player.kill_engine();
        Fault { failure, lines }
    })
}

/// Runs `work` on tokio's blocking pool; a panic there loses the engine.
async fn blocking<T: Send + 'static>(
    name: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, BridgeError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|_| lost(name))
}

fn failed(name: &str, fault: Fault) -> BridgeError {
    BridgeError::Failed {
        name: name.to_string(),
        fault,
    }
}

/// The engine lost to a panic of the runner's thread.
fn lost(name: &str) -> BridgeError {
    failed(
        name,
        Fault {
            failure: Failure::Crash,
            lines: vec!["crash: the thread asking the engine panicked".into()],
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_room_timer_less_the_margin_is_the_move_time() {
        let seat = EngineSeat {
            name: "e".into(),
            setup: EngineSetup {
                launch: crate::jep_runner::Launch::from_command_line("e", None).unwrap(),
                options: Vec::new(),
                io: Default::default(),
            },
            move_time_default: Duration::from_secs(1),
            margin: Duration::from_millis(200),
        };
        let ms = Duration::from_millis;
        assert_eq!(seat.timing(Some(5000)), (ms(4800), ms(5000)));
        // A short timer keeps half of itself.
        assert_eq!(seat.timing(Some(300)), (ms(150), ms(300)));
        assert_eq!(seat.timing(None), (ms(1000), ms(1200)));
    }
}
