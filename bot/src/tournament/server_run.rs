//! [`ServerRun`]: a tournament a server ran, as `--from-server` read it (the server's address and
//! its `tournament` view), kept in `tournament.json` as the tournament's start configurations:
//! its configurations (one, or those its `starts` named), and the games listed as the server
//! played them instead of scheduled.

use super::schedule::Schedule;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::tournament::{TournamentStatus, TournamentView};
use jchomp_rules::ConfigError;
use serde::{Deserialize, Serialize};

/// Why a tournament read from a server cannot be written or read as this program's own.
#[derive(Debug, thiserror::Error)]
pub enum ServerRunError {
    /// Games are still being played.
    #[error(
        "tournament {id} is still being played ({over} of {started} games started are over); \
         export it once it has finished"
    )]
    Playing {
        /// The tournament.
        id: String,
        /// Games over.
        over: usize,
        /// Games started.
        started: usize,
    },
    /// Its configuration is refused (by these rules, or for its player count).
    #[error("tournament {id}: {error}")]
    Config {
        /// The tournament.
        id: String,
        /// Why.
        error: ConfigError,
    },
    /// One of its start configurations is refused; `number` counts from 1.
    #[error("tournament {id}, start configuration {number}: {error}")]
    StartConfig {
        /// The tournament.
        id: String,
        /// Which configuration.
        number: usize,
        /// Why.
        error: ConfigError,
    },
    /// A game names a start configuration the tournament does not list.
    #[error("tournament {id}, game {game}: plays configuration {config}, which it does not list")]
    GameConfig {
        /// The tournament.
        id: String,
        /// The game's id.
        game: String,
        /// The index the game names.
        config: usize,
    },
    /// Its games are not of the tournament's player count.
    #[error("tournament {id} plays {expected}-player games, but the settings say {got}")]
    Players {
        /// The tournament.
        id: String,
        /// Seats per game on the server.
        expected: i64,
        /// Seats per game in the settings.
        got: u8,
    },
    /// Fewer than two entrants, or one named twice.
    #[error("tournament {id} has entrants {entrants:?}: two or more, each named once, are needed")]
    Entrants {
        /// The tournament.
        id: String,
        /// Its entrants.
        entrants: Vec<String>,
    },
    /// A game seats someone who is not an entrant, or the wrong number of seats.
    #[error("tournament {id}, game {game}: seats {seats:?} are not {players} of its entrants")]
    Seats {
        /// The tournament.
        id: String,
        /// The game's id.
        game: String,
        /// Its seats.
        seats: Vec<String>,
        /// Seats per game.
        players: i64,
    },
}

/// A tournament a server ran, read from it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRun {
    /// The server it was read from (`ws://…`).
    pub server: String,
    /// Its view when it was read: spec, standings (a Swiss's byes counted in its points),
    /// crosstable and every game with its server id, round, seats and result.
    pub view: TournamentView,
}

impl ServerRun {
    /// Its entrants, in the order they entered: the participants' names.
    pub fn entrants(&self) -> &[String] {
        &self.view.entrants
    }

    /// Its start configurations: those its `starts` named, else its one configuration.
    pub fn configs(&self) -> &[ConfigJson] {
        if self.view.configs.is_empty() {
            std::slice::from_ref(&self.view.spec.config)
        } else {
            &self.view.configs
        }
    }

    /// Games played.
    pub fn games(&self) -> u64 {
        self.view.games.len() as u64
    }

    /// Its games as this program schedules them: listed in the order started, seats as
    /// entrants' indices (an unknown name as index 0, which [`ServerRun::validate`] refuses).
    pub fn schedule(&self, players: u8) -> Schedule {
        let games: Vec<Vec<usize>> = self
            .view
            .games
            .iter()
            .map(|g| {
                g.seats
                    .iter()
                    .map(|name| self.entrants().iter().position(|e| e == name).unwrap_or(0))
                    .collect()
            })
            .collect();
        Schedule::listed(players, &games)
    }

    /// Checks that the tournament is over, its configurations valid for `players` seats, its
    /// entrants distinct, and every game seated with them and playing one of its
    /// configurations.
    pub fn validate(&self, players: u8) -> Result<(), ServerRunError> {
        let view = &self.view;
        let id = || view.id.clone();
        let over = view.games.iter().filter(|g| g.result.is_some()).count();
        if view.status != TournamentStatus::Finished || over < view.games.len() {
            return Err(ServerRunError::Playing {
                id: id(),
                over,
                started: view.games.len(),
            });
        }
        let config = &view.spec.config;
        config
            .validate()
            .map_err(|error| ServerRunError::Config { id: id(), error })?;
        for (i, start) in view.configs.iter().enumerate() {
            start
                .validate()
                .map_err(|error| ServerRunError::StartConfig {
                    id: id(),
                    number: i + 1,
                    error,
                })?;
        }
        if let Some(odd) = view.configs.iter().find(|c| c.players != config.players) {
            return Err(ServerRunError::Players {
                id: id(),
                expected: odd.players,
                got: players,
            });
        }
        if config.players != i64::from(players) {
            return Err(ServerRunError::Players {
                id: id(),
                expected: config.players,
                got: players,
            });
        }
        let entrants = self.entrants();
        let repeated = (1..entrants.len()).any(|i| entrants[..i].contains(&entrants[i]));
        if entrants.len() < 2 || repeated {
            return Err(ServerRunError::Entrants {
                id: id(),
                entrants: entrants.to_vec(),
            });
        }
        for game in &view.games {
            if view.config_of(game).is_none() {
                return Err(ServerRunError::GameConfig {
                    id: id(),
                    game: game.game.clone(),
                    config: game.config,
                });
            }
            let seated = game.seats.iter().all(|s| entrants.contains(s));
            if !seated || game.seats.len() != usize::from(players) {
                return Err(ServerRunError::Seats {
                    id: id(),
                    game: game.game.clone(),
                    seats: game.seats.clone(),
                    players: config.players,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished two-player tournament of three entrants as a server shows it.
    fn run() -> ServerRun {
        let view = serde_json::json!({
            "id": "t1",
            "spec": {"name": "cup", "format": {"kind": "round_robin"},
                     "config": {"rows": 4, "cols": 4, "players": 2, "eat": [1, 1],
                                "poison": [[0, 0]]},
                     "bots": ["a", "b", "c"]},
            "status": "finished", "round": 2, "standings": [], "entrants": ["a", "b", "c"],
            "games": [
                {"game": "g1", "round": 1, "seats": ["a", "b"], "result": {"kind": "tie"}},
                {"game": "g2", "round": 1, "seats": ["c", "a"], "result": {"kind": "tie"}},
                {"game": "g3", "round": 2, "seats": ["b", "a"], "result": {"kind": "tie"}}
            ]
        });
        ServerRun {
            server: "ws://h:1/ws".into(),
            view: serde_json::from_value(view).unwrap(),
        }
    }

    #[test]
    fn a_finished_tournament_is_listed_game_by_game() {
        let run = run();
        run.validate(2).unwrap();
        let schedule = run.schedule(2);
        assert_eq!(schedule.slot(1).seats, vec![2, 0]);
        assert_eq!(schedule.groups(), &[vec![0, 1], vec![0, 2]]);
        assert_eq!(run.games(), 3);
    }

    #[test]
    fn unfinished_or_inconsistent_tournaments_are_refused() {
        let refusal = |run: &ServerRun, players| run.validate(players).unwrap_err().to_string();
        let mut playing = run();
        playing.view.status = TournamentStatus::Playing;
        assert!(refusal(&playing, 2).contains("still being played (3 of 3"));
        let mut open = run();
        open.view.games[2].result = None;
        assert!(refusal(&open, 2).contains("(2 of 3 games"));
        assert!(refusal(&run(), 3).contains("plays 2-player games"));
        let mut stranger = run();
        stranger.view.games[0].seats[1] = "zed".into();
        assert!(refusal(&stranger, 2).contains("game g1: seats [\"a\", \"zed\"]"));
        let mut twice = run();
        twice.view.entrants[2] = "a".into();
        assert!(refusal(&twice, 2).contains("each named once"));
        let mut unlisted = run();
        unlisted.view.games[1].config = 1;
        assert!(
            refusal(&unlisted, 2)
                .contains("game g2: plays configuration 1, which it does not list")
        );
        let mut bad_start = run();
        let mut big = bad_start.view.spec.config.clone();
        big.rows = 16;
        bad_start.view.configs = vec![bad_start.view.spec.config.clone(), big];
        bad_start.view.games[1].config = 1;
        assert!(refusal(&bad_start, 2).contains("start configuration 2: rows must be"));
    }
}
