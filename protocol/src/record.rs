//! Game records: the one JSON format in which the server, the bots and tournaments store games,
//! and replaying a record through the rules. The format is described in `docs/RECORDS.md`.

use crate::json::{ConfigJson, MoveJson, ResultJson};
use crate::rules::{ConfigError, Game, GameResult, Rejection};
use serde::{Deserialize, Serialize};

/// A stored game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Identifier given by whoever stored the game (the server uses the room id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The configuration the game was played with.
    pub config: ConfigJson,
    /// Names of the seats, seat 0 first.
    pub seats: Vec<String>,
    /// The seats a bot took (a server's bot or a bot account), by index; absent when none
    /// did, and in records written before this field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bots: Vec<u8>,
    /// The accepted moves, in order.
    pub moves: Vec<MoveJson>,
    /// How the game ended; `null` for a game that was not finished.
    pub result: Option<ResultJson>,
    /// When the game started, in milliseconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_ms: Option<u64>,
    /// When the game ended, in milliseconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_ms: Option<u64>,
    /// How the result's loser failed, when it lost by failing in a tournament (`crash`,
    /// `illegal`, `overtime`, `hung`, `malformed`, `flood`, `start`, `handshake`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// When an engine failed: the reason, then its last lines both ways (`> ` the runner's,
    /// `< ` the engine's), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failure_lines: Vec<String>,
}

/// What is wrong with one move of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveProblem {
    /// The move names a seat other than the one to move.
    #[error("seat {got} moved but seat {expected} was to move")]
    WrongSeat {
        /// The seat to move.
        expected: i64,
        /// The seat the record names.
        got: i64,
    },
    /// The rules refuse the selection.
    #[error("{0} ({code})", code = .0.code())]
    Rejected(Rejection),
}

/// Why a record does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The configuration is invalid.
    #[error("invalid config: {0}")]
    Config(#[from] ConfigError),
    /// The number of seat names differs from the number of players.
    #[error("the record names {got} seats for {expected} players")]
    Seats {
        /// Players in the configuration.
        expected: usize,
        /// Names given.
        got: usize,
    },
    /// A move is not legal; `index` counts from 0.
    #[error("move {index} ({row},{col}) is invalid: {problem}")]
    BadMove {
        /// Position of the first bad move in `moves`.
        index: usize,
        /// Its row.
        row: i64,
        /// Its column.
        col: i64,
        /// What is wrong with it.
        problem: MoveProblem,
    },
    /// The recorded result is not what the moves lead to.
    #[error("the record says {recorded:?} but its moves lead to {replayed:?}")]
    Result {
        /// The recorded result.
        recorded: Option<ResultJson>,
        /// The result the moves produce (`None`: the game is still going on).
        replayed: Option<ResultJson>,
    },
}

impl Record {
    /// The record of a game, with the given seat names.
    pub fn from_game(game: &Game, seats: Vec<String>, move_time_ms: Option<u64>) -> Record {
        Record {
            id: None,
            config: ConfigJson::new(game.config(), move_time_ms),
            seats,
            bots: Vec::new(),
            moves: game.moves().iter().map(|&m| m.into()).collect(),
            result: game.result().map(Into::into),
            started_ms: None,
            finished_ms: None,
            failure: None,
            failure_lines: Vec::new(),
        }
    }

    /// Replays the record through the rules and returns the game it describes.
    ///
    /// A `poisoned` or `tie` result must be what the moves produce. A `timeout` must blame the
    /// seat to move after the last move, and `timeout` or `abandoned` may only end a game the
    /// moves left unfinished. A `null` result means the moves leave the game unfinished.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        let config = self.config.validate()?;
        if self.seats.len() != config.players() as usize {
            return Err(ReplayError::Seats {
                expected: config.players() as usize,
                got: self.seats.len(),
            });
        }
        let mut game = Game::new(config);
        for (index, m) in self.moves.iter().enumerate() {
            let bad = |problem| ReplayError::BadMove {
                index,
                row: m.row,
                col: m.col,
                problem,
            };
            let to_move = game
                .to_move()
                .ok_or(bad(MoveProblem::Rejected(Rejection::GameOver)))?;
            if m.seat != to_move as i64 {
                return Err(bad(MoveProblem::WrongSeat {
                    expected: to_move as i64,
                    got: m.seat,
                }));
            }
            game.select(m.row, m.col)
                .map_err(|r| bad(MoveProblem::Rejected(r)))?;
        }
        let replayed = game.result().map(ResultJson::from);
        let mismatch = || ReplayError::Result {
            recorded: self.result,
            replayed,
        };
        match (self.result, game.to_move()) {
            (None, Some(_)) => {}
            (Some(ResultJson::Timeout { loser }), Some(to_move)) if loser == to_move => {
                game.end(GameResult::Timeout { loser })
            }
            (Some(ResultJson::Abandoned { loser }), Some(_)) if loser < config.players() => {
                game.end(GameResult::Abandoned { loser })
            }
            (Some(recorded), None) if Some(recorded) == replayed => {}
            _ => return Err(mismatch()),
        }
        Ok(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::board;

    fn game() -> Game {
        let mut g = Game::new(board("4x5 eat 1x2 poison 0,0"));
        for (r, c) in [(3, 3), (1, 1), (2, 0), (0, 3)] {
            g.select(r, c).unwrap();
        }
        g
    }

    fn names() -> Vec<String> {
        vec!["alice".into(), "bob".into()]
    }

    #[test]
    fn json_has_the_documented_shape() {
        let mut g = game();
        g.select(0, 0).unwrap();
        let json = serde_json::to_value(Record::from_game(&g, names(), None)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "config": {"rows": 4, "cols": 5, "players": 2, "eat": [1, 2], "poison": [[0, 0]]},
                "seats": ["alice", "bob"],
                "moves": [
                    {"seat": 0, "row": 3, "col": 3}, {"seat": 1, "row": 1, "col": 1},
                    {"seat": 0, "row": 2, "col": 0}, {"seat": 1, "row": 0, "col": 3},
                    {"seat": 0, "row": 0, "col": 0}
                ],
                "result": {"kind": "poisoned", "loser": 0}
            })
        );
    }

    #[test]
    fn a_jchomp_record_is_byte_identical_to_before_variants() {
        let mut g = game();
        g.select(0, 0).unwrap();
        let mut record = Record::from_game(&g, names(), Some(5000));
        record.id = Some("k3v9x2mq7a".into());
        record.started_ms = Some(1);
        record.finished_ms = Some(2);
        let text = concat!(
            r#"{"id":"k3v9x2mq7a","config":{"rows":4,"cols":5,"players":2,"eat":[1,2],"#,
            r#""poison":[[0,0]],"move_time_ms":5000},"seats":["alice","bob"],"moves":["#,
            r#"{"seat":0,"row":3,"col":3},{"seat":1,"row":1,"col":1},{"seat":0,"row":2,"col":0},"#,
            r#"{"seat":1,"row":0,"col":3},{"seat":0,"row":0,"col":0}],"#,
            r#""result":{"kind":"poisoned","loser":0},"started_ms":1,"finished_ms":2}"#
        );
        assert_eq!(serde_json::to_string(&record).unwrap(), text);
        let read: Record = serde_json::from_str(text).unwrap();
        assert_eq!(read, record);
        assert_eq!(read.replay().unwrap(), g);
    }

    #[test]
    fn a_classic_record_round_trips_and_replays() {
        let mut g = Game::new(board("4x5 variant classic poison 0,0 poison 1,3 players 3"));
        for (r, c) in [(3, 4), (2, 2), (0, 4), (3, 0), (1, 0)] {
            g.select(r, c).unwrap();
        }
        assert_eq!(g.result(), Some(GameResult::Poisoned { loser: 1 }));
        let seats = vec!["a".to_string(), "b".into(), "c".into()];
        let record = Record::from_game(&g, seats, None);
        let json = serde_json::to_value(&record).unwrap();
        assert_eq!(
            json["config"],
            serde_json::json!({"rows": 4, "cols": 5, "players": 3, "variant": "classic",
                "poison": [[0, 0], [1, 3]]})
        );
        let back: Record = serde_json::from_str(&json.to_string()).unwrap();
        assert_eq!(back, record);
        assert_eq!(back.replay().unwrap(), g);
        // The classic checks, in order, name the first bad move: the cell off the board, then
        // the cell eaten.
        let mut bad = record.clone();
        bad.result = None;
        for ((row, col), reason) in [
            (
                (4, 0),
                "the selection reaches outside the board (out_of_range)",
            ),
            (
                (3, 4),
                "part of the selection is already eaten (already_eaten)",
            ),
        ] {
            bad.moves.truncate(1);
            bad.moves.push(MoveJson { seat: 1, row, col });
            assert_eq!(
                bad.replay().unwrap_err().to_string(),
                format!("move 1 ({row},{col}) is invalid: {reason}")
            );
        }
        // A classic game cannot end in a tie.
        bad.moves.truncate(1);
        bad.result = Some(ResultJson::Tie);
        assert!(matches!(bad.replay(), Err(ReplayError::Result { .. })));
    }

    #[test]
    fn replay_reproduces_the_game() {
        let mut g = game();
        g.select(0, 0).unwrap();
        let record = Record::from_game(&g, names(), Some(5000));
        let text = serde_json::to_string(&record).unwrap();
        let back: Record = serde_json::from_str(&text).unwrap();
        assert_eq!(back, record);
        assert_eq!(back.replay().unwrap(), g);
    }

    #[test]
    fn the_first_bad_move_is_named_with_its_reason() {
        let mut record = Record::from_game(&game(), names(), None);
        record.moves.push(MoveJson {
            seat: 0,
            row: 3,
            col: 4,
        });
        record.moves.push(MoveJson {
            seat: 1,
            row: 9,
            col: 9,
        });
        assert_eq!(
            record.replay().unwrap_err().to_string(),
            "move 4 (3,4) is invalid: the selection reaches outside the board (out_of_range)"
        );
        record.moves[4] = MoveJson {
            seat: 0,
            row: 1,
            col: 0,
        };
        assert_eq!(
            record.replay().unwrap_err(),
            ReplayError::BadMove {
                index: 4,
                row: 1,
                col: 0,
                problem: MoveProblem::Rejected(Rejection::AlreadyEaten)
            }
        );
        record.moves[4] = MoveJson {
            seat: 1,
            row: 3,
            col: 0,
        };
        assert_eq!(
            record.replay().unwrap_err().to_string(),
            "move 4 (3,0) is invalid: seat 1 moved but seat 0 was to move"
        );
    }

    #[test]
    fn moves_after_the_end_and_wrong_results_are_refused() {
        let mut g = game();
        g.select(0, 0).unwrap();
        let mut record = Record::from_game(&g, names(), None);
        record.moves.push(MoveJson {
            seat: 1,
            row: 3,
            col: 0,
        });
        assert!(matches!(
            record.replay(),
            Err(ReplayError::BadMove {
                index: 5,
                problem: MoveProblem::Rejected(Rejection::GameOver),
                ..
            })
        ));
        record.moves.pop();
        record.result = Some(ResultJson::Tie);
        assert!(matches!(record.replay(), Err(ReplayError::Result { .. })));
        record.result = None;
        assert!(matches!(record.replay(), Err(ReplayError::Result { .. })));
    }

    #[test]
    fn timeout_and_abandonment_end_an_unfinished_game() {
        let mut record = Record::from_game(&game(), names(), None);
        record.result = Some(ResultJson::Timeout { loser: 0 });
        assert_eq!(
            record.replay().unwrap().result(),
            Some(GameResult::Timeout { loser: 0 })
        );
        record.result = Some(ResultJson::Timeout { loser: 1 });
        assert!(
            record.replay().is_err(),
            "only the seat to move can time out"
        );
        record.result = Some(ResultJson::Abandoned { loser: 1 });
        assert_eq!(
            record.replay().unwrap().result(),
            Some(GameResult::Abandoned { loser: 1 })
        );
        record.result = Some(ResultJson::Abandoned { loser: 2 });
        assert!(record.replay().is_err());
        record.result = None;
        assert_eq!(record.replay().unwrap().to_move(), Some(0));
    }

    #[test]
    fn bad_configs_and_seat_counts_are_refused() {
        let mut record = Record::from_game(&game(), names(), None);
        record.seats.pop();
        assert_eq!(
            record.replay().unwrap_err().to_string(),
            "the record names 1 seats for 2 players"
        );
        record.seats = names();
        record.config.rows = 16;
        assert_eq!(
            record.replay().unwrap_err().to_string(),
            "invalid config: rows must be 4–15, got 16"
        );
    }
}
