//! Scoring, one definition for search, tournaments and docs: a game with a loser (poison,
//! timeout, abandonment) scores 0 for the loser and 1 for every other seat; a normal-play game
//! won by eating a marked cell scores 1 for the winner and 0 for every other seat; a tie scores
//! 1/2 for every seat.

use jchomp_rules::{GameResult, Seat};

/// The score of `seat` in a game that ended with `result`: 0, 1/2 or 1.
pub fn seat_score(result: GameResult, seat: Seat) -> f64 {
    match result.winner() {
        Some(winner) => f64::from(u8::from(winner == seat)),
        None => loser_score(result.loser(), seat),
    }
}

/// The score of `seat` in a game whose loser is `loser` (`None`: a tie): 0, 1/2 or 1.
pub(crate) fn loser_score(loser: Option<Seat>, seat: Seat) -> f64 {
    match loser {
        Some(loser) if loser == seat => 0.0,
        Some(_) => 1.0,
        None => 0.5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scores of every seat of a `players`-seat game, seat 0 first.
    fn scores(result: GameResult, players: u8) -> Vec<f64> {
        (0..players).map(|seat| seat_score(result, seat)).collect()
    }

    #[test]
    fn loser_scores_zero_others_one_tie_half() {
        assert_eq!(
            scores(GameResult::Poisoned { loser: 1 }, 3),
            vec![1.0, 0.0, 1.0]
        );
        assert_eq!(scores(GameResult::Timeout { loser: 0 }, 2), vec![0.0, 1.0]);
        assert_eq!(scores(GameResult::Tie, 4), vec![0.5; 4]);
        assert_eq!(
            scores(GameResult::Won { winner: 2 }, 4),
            vec![0.0, 0.0, 1.0, 0.0]
        );
    }
}
