//! Reviewing a stored two-player game: the position before each move, and whether the move
//! threw away a win or a tie (a blunder, marked `?!`), judged by the same hints as the board's
//! annotations. A move whose position was not proven is never marked.

use crate::hint::{HintJob, Hints};
use jchomp_engine::classic::{ClassicLibrary, answers_for};
use jchomp_protocol::record::{Record, ReplayError};
use jchomp_protocol::rules::{Cell, Config, Game, Position};
use std::sync::Arc;
use std::time::Duration;

/// A move that threw something away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blunder {
    /// A winning selection was available; the move loses or ties.
    ThrewAwayWin,
    /// A tying selection was available (and no winning one); the move loses.
    ThrewAwayTie,
}

impl Blunder {
    /// The blunder in words, with its mark (`?! blunder: threw away a win`).
    pub fn words(self) -> &'static str {
        match self {
            Blunder::ThrewAwayWin => "?! blunder: threw away a win",
            Blunder::ThrewAwayTie => "?! blunder: threw away a tie",
        }
    }
}

/// Whether choosing `chosen` in the position `hints` describes was a blunder: some selection
/// was proven better (a win, or a tie) than the proven value of the one chosen. An unproven
/// choice is never a blunder.
pub fn judge(hints: &Hints, chosen: Cell) -> Option<Blunder> {
    let got = hints.verdict(chosen)?.rank()?;
    let best = hints
        .selections
        .iter()
        .filter_map(|(_, v)| v.rank())
        .max()?;
    match (best > got, best) {
        (true, 2) => Some(Blunder::ThrewAwayWin),
        (true, _) => Some(Blunder::ThrewAwayTie),
        (false, _) => None,
    }
}

/// The moves of a stored game with the position each was played in; empty unless the game has
/// two players (the analysis handles two).
pub fn moves(record: &Record) -> Result<(Config, Vec<(Position, Cell)>), ReplayError> {
    let full = record.replay()?;
    let config = *full.config();
    if config.players() != 2 {
        return Ok((config, Vec::new()));
    }
    let mut game = Game::new(config);
    let mut out = Vec::with_capacity(record.moves.len());
    for m in &record.moves {
        let before = *game.position();
        // The whole record replayed, so every move does.
        if game.select(m.row, m.col).is_err() {
            break;
        }
        if let Some(last) = game.moves().last() {
            out.push((before, last.cell));
        }
    }
    Ok((config, out))
}

/// The blunders of a stored game, move by move (each position analysed in turn, at most
/// about `limit` each), for printing a replay. The classic database, if given and the game is
/// one it answers for, is read (or built) first, on this thread.
pub fn blunders(
    record: &Record,
    library: Option<Arc<ClassicLibrary>>,
    limit: Option<Duration>,
) -> Result<Vec<Option<Blunder>>, ReplayError> {
    let (config, moves) = moves(record)?;
    let library = library.filter(|l| answers_for(&config) && !moves.is_empty() && l.wait().is_ok());
    let mut out = vec![None; record.moves.len()];
    for (i, (position, cell)) in moves.into_iter().enumerate() {
        let job = HintJob {
            key: i as u64,
            config,
            position,
            limit,
            library: library.clone(),
        };
        out[i] = job.run().ok().and_then(|h| judge(&h, cell));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{blundered, perfect, record};
    use crate::hint::Verdict;

    fn hints(list: &[((u8, u8), Verdict)]) -> Hints {
        Hints {
            selections: list
                .iter()
                .map(|&((r, c), v)| (Cell::new(r, c), v))
                .collect(),
            ..Hints::default()
        }
    }

    #[test]
    fn a_blunder_throws_away_a_proven_win_or_tie() {
        let h = hints(&[
            ((0, 0), Verdict::Loss(1)),
            ((0, 1), Verdict::Win(4)),
            ((1, 0), Verdict::Tie),
            ((1, 1), Verdict::Unknown),
            ((2, 2), Verdict::Win(8)),
        ]);
        assert_eq!(judge(&h, Cell::new(0, 0)), Some(Blunder::ThrewAwayWin));
        assert_eq!(judge(&h, Cell::new(1, 0)), Some(Blunder::ThrewAwayWin));
        // A slower win is still a win; an unproven choice is not judged.
        assert_eq!(judge(&h, Cell::new(2, 2)), None);
        assert_eq!(judge(&h, Cell::new(1, 1)), None);
        let h = hints(&[((0, 0), Verdict::Loss(1)), ((1, 0), Verdict::Tie)]);
        assert_eq!(judge(&h, Cell::new(0, 0)), Some(Blunder::ThrewAwayTie));
        let h = hints(&[((0, 0), Verdict::Loss(1)), ((1, 0), Verdict::Loss(5))]);
        assert_eq!(judge(&h, Cell::new(0, 0)), None, "nothing better was there");
    }

    #[test]
    fn the_blunder_of_a_stored_game_is_found_and_a_perfect_game_has_none() {
        let marks = blunders(&blundered(), None, None).unwrap();
        assert_eq!(marks, vec![Some(Blunder::ThrewAwayWin), None, None]);
        let marks = blunders(&perfect(), None, None).unwrap();
        assert_eq!(marks, vec![None; 8]);
        // Three players: nothing is judged.
        let mut three = record("4x4 variant classic poison 0,0 players 3", &[(1, 1)]);
        three.seats.push("cy".into());
        assert!(moves(&three).is_ok_and(|(_, m)| m.is_empty()));
    }
}
