//! [`Subject`]: the position an `analyze` asks about — a game's position after some of its
//! moves — with the checks on what can be analysed.

use crate::game::refusal::Refusal;
use jchomp_protocol::rules::{Config, Game, Position};
use jchomp_protocol::wire::ErrorCode;
use std::fmt;

/// What an analysis is about: a room, or a stored game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum About {
    /// A room, by id.
    Room(String),
    /// A stored game, by id.
    Game(String),
    /// A position given outright (its rules and the moves that reach it).
    Position,
}

impl fmt::Display for About {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            About::Room(id) => write!(f, "room {id}"),
            About::Game(id) => write!(f, "game {id}"),
            About::Position => write!(f, "the position given"),
        }
    }
}

/// One position to analyse.
#[derive(Clone, Debug)]
pub(crate) struct Subject {
    /// The room or game it comes from.
    pub about: About,
    /// The moves played before it.
    pub index: usize,
    /// The rules.
    pub config: Config,
    /// The position, as the rules reach it from the start through `index` moves.
    pub position: Position,
}

impl Subject {
    /// A position given outright: `config`'s game after `moves` (each checked by the rules,
    /// in order), analysed after `index` of them (all when `None`); or why not, in words.
    pub(crate) fn given(
        config: Config,
        moves: &[[i64; 2]],
        index: Option<i64>,
    ) -> Result<Subject, Refusal> {
        let cells = usize::from(config.rows()) * usize::from(config.cols());
        if moves.len() > cells {
            return Err(Refusal::new(
                ErrorCode::BadRequest,
                format!(
                    "moves must be at most {cells} on this board, got {}",
                    moves.len()
                ),
            ));
        }
        let mut game = Game::new(config);
        for (i, [row, col]) in moves.iter().enumerate() {
            if game.to_move().is_none() {
                return Err(Refusal::new(
                    ErrorCode::BadRequest,
                    format!("move {i} ({row},{col}) comes after the game is over"),
                ));
            }
            if let Err(why) = game.select(*row, *col) {
                return Err(Refusal::new(
                    ErrorCode::BadRequest,
                    format!(
                        "move {i} ({row},{col}) is refused: {}",
                        why.explain(&config, *row, *col)
                    ),
                ));
            }
        }
        Subject::of(About::Position, &game, index)
    }

    /// The position of `game` after `index` of its moves (all of them when `None`), or why it
    /// cannot be analysed: not two players (`analysis_unavailable`), or an index out of range
    /// (`bad_request`).
    pub(crate) fn of(about: About, game: &Game, index: Option<i64>) -> Result<Subject, Refusal> {
        let config = *game.config();
        if config.players() != 2 {
            return Err(Refusal::new(
                ErrorCode::AnalysisUnavailable,
                format!(
                    "analysis covers two-player games only; {about} has {} players",
                    config.players()
                ),
            ));
        }
        let moves = game.moves();
        let index = match index {
            None => moves.len(),
            Some(i) => match usize::try_from(i) {
                Ok(i) if i <= moves.len() => i,
                _ => {
                    return Err(Refusal::new(
                        ErrorCode::BadRequest,
                        format!(
                            "index must be 0–{n} (the moves played in {about}), got {i}",
                            n = moves.len()
                        ),
                    ));
                }
            },
        };
        // Replayed from the start, by the rules alone: a game ended by a timeout or an
        // abandonment is analysed where its moves left it.
        let mut position = Position::start(&config);
        for m in &moves[..index] {
            position.play(&config, m.cell);
        }
        Ok(Subject {
            about,
            index,
            config,
            position,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_protocol::rules::{Cell, GameResult};
    use jchomp_testkit::board;

    fn game(notation: &str, moves: &[(i64, i64)]) -> Game {
        let mut g = Game::new(board(notation));
        for &(r, c) in moves {
            g.select(r, c).unwrap();
        }
        g
    }

    #[test]
    fn the_position_after_some_moves() {
        let mut g = game("4x5 eat 1x1 poison 0,0", &[(3, 4), (3, 3), (2, 4)]);
        let about = || About::Game("g".into());
        let last = Subject::of(about(), &g, None).unwrap();
        assert_eq!(last.index, 3);
        assert_eq!(last.position, *g.position());
        let first = Subject::of(about(), &g, Some(1)).unwrap();
        assert_eq!(first.index, 1);
        assert_eq!(first.position.uneaten().count(), 19);
        assert!(first.position.uneaten().contains(Cell::new(3, 3).index()));
        assert_eq!(first.position.to_move(), Some(1));
        let start = Subject::of(about(), &g, Some(0)).unwrap();
        assert_eq!(start.position, Position::start(g.config()));
        // A game ended outside the rules is analysed where its moves left it.
        g.end(GameResult::Timeout { loser: 1 });
        let timed_out = Subject::of(about(), &g, None).unwrap();
        assert_eq!(timed_out.position.to_move(), Some(1));
    }

    #[test]
    fn indexes_out_of_range_and_more_players_are_refused_in_words() {
        let g = game("4x4 eat 1x1 poison 0,0", &[(3, 3)]);
        for bad in [-1, 2, i64::MAX, i64::MIN] {
            let r = Subject::of(About::Room("r".into()), &g, Some(bad)).unwrap_err();
            assert_eq!(r.code, ErrorCode::BadRequest);
            assert_eq!(
                r.message,
                format!("index must be 0–1 (the moves played in room r), got {bad}")
            );
        }
        let three = game("4x4 eat 1x1 poison 0,0 players 3", &[]);
        let r = Subject::of(About::Game("g".into()), &three, Some(0)).unwrap_err();
        assert_eq!(r.code, ErrorCode::AnalysisUnavailable);
        assert_eq!(
            r.message,
            "analysis covers two-player games only; game g has 3 players"
        );
    }
}
