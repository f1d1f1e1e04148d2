//! [`annotate`]: the value of every valid selection of a two-player position, from the classic
//! database when it answers, else by the engine's search within a deadline. Blocking: it runs on
//! a thread of the blocking pool, never on the async threads.

use jchomp_engine::classic::{ClassicLibrary, Value, answers_for, moves_in};
use jchomp_engine::search::{Budget, MoveValue, Outcome, Table, analyze};
use jchomp_protocol::rules::{Cell, Config, Position};
use jchomp_protocol::wire::{Annotation, Verdict};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Transposition table of one analysis, in MiB (allocated zeroed, so untouched pages cost
/// nothing).
const TABLE_MB: usize = 16;

/// Every valid selection of `position` (two players) with its value for the seat to move, row
/// by row; none when the game is over there.
///
/// The standard classic game (two players, poison at the top-left) is answered by the classic
/// database when it is ready and covers the position; asking starts loading it. Otherwise the
/// position is solved exactly until `stop` is raised (the caller raises it halfway to
/// `deadline`); failing that, the time left to `deadline` is shared out between the selections,
/// each searched by iterative deepening, and a selection not proven in its share is `unknown`.
pub(crate) fn annotate(
    config: &Config,
    position: &Position,
    library: &Arc<ClassicLibrary>,
    stop: Arc<AtomicBool>,
    deadline: Instant,
) -> Vec<Annotation> {
    if position.to_move().is_none() {
        return Vec::new();
    }
    if let Some(moves) = from_database(config, position, library) {
        return moves;
    }
    let mut table = Table::with_megabytes(TABLE_MB);
    if let Ok((values, _)) = analyze(config, position, &mut table, None, Some(stop)) {
        return values.iter().map(annotation).collect();
    }
    let selections = position.selections();
    let share = deadline.saturating_duration_since(Instant::now()) / selections.count().max(1);
    match analyze(
        config,
        position,
        &mut table,
        Some(Budget::Time(share)),
        None,
    ) {
        Ok((values, _)) => values.iter().map(annotation).collect(),
        // Only two-player positions in play reach here, which the engine always analyses.
        Err(_) => selections
            .iter()
            .map(|i| unknown(Cell::from_index(i)))
            .collect(),
    }
}

/// The database's values, if it is ready and answers for this position.
fn from_database(
    config: &Config,
    position: &Position,
    library: &Arc<ClassicLibrary>,
) -> Option<Vec<Annotation>> {
    if !answers_for(config) {
        return None;
    }
    let db = library.get()?;
    let moves = moves_in(&db, config, position)?;
    let annotated = moves.iter().map(|m| Annotation {
        row: m.row,
        col: m.col,
        value: match m.solved.value {
            Value::Win => Verdict::Win,
            Value::Loss => Verdict::Loss,
        },
        plies: Some(u32::from(m.solved.plies)),
    });
    Some(annotated.collect())
}

/// The engine's value of one selection as the protocol reports it.
fn annotation(v: &MoveValue) -> Annotation {
    let (value, plies) = match v.value {
        Some((Outcome::Win, plies)) => (Verdict::Win, plies),
        Some((Outcome::Loss, plies)) => (Verdict::Loss, plies),
        Some((Outcome::Tie, _)) => (Verdict::Tie, None),
        None => (Verdict::Unknown, None),
    };
    Annotation {
        row: v.cell.row,
        col: v.cell.col,
        value,
        plies,
    }
}

/// A selection whose value is not known.
fn unknown(cell: Cell) -> Annotation {
    Annotation {
        row: cell.row,
        col: cell.col,
        value: Verdict::Unknown,
        plies: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::board;
    use std::time::Duration;

    /// A library of a 6×6 box, already built.
    fn small_library() -> Arc<ClassicLibrary> {
        let library = ClassicLibrary::with_box(None, 6, 6);
        library.wait().unwrap();
        library
    }

    /// The engine's exact analysis, as the protocol reports it.
    fn exact(config: &Config, position: &Position) -> Vec<Annotation> {
        let mut table = Table::with_megabytes(1);
        let (values, _) = analyze(config, position, &mut table, None, None).unwrap();
        values.iter().map(annotation).collect()
    }

    fn played(config: &Config, moves: &[(i64, i64)]) -> Position {
        let mut p = Position::start(config);
        for &(r, c) in moves {
            p.select(config, r, c).unwrap();
        }
        p
    }

    fn in_time() -> (Arc<AtomicBool>, Instant) {
        let later = Instant::now() + Duration::from_secs(60);
        (Arc::new(AtomicBool::new(false)), later)
    }

    #[test]
    fn a_small_jchomp_position_is_solved_exactly() {
        let config = board("4x5 eat 1x2 poison 0,0");
        let position = played(&config, &[(3, 3), (2, 0)]);
        let (stop, deadline) = in_time();
        let moves = annotate(&config, &position, &small_library(), stop, deadline);
        assert_eq!(moves, exact(&config, &position));
        assert_eq!(moves.len() as u32, position.selections().count());
        assert!(moves.iter().all(|m| m.value != Verdict::Unknown));
    }

    #[test]
    fn ties_have_no_plies() {
        // With 2×2 bites, cells no bite fits in can be left over: a tie.
        let config = board("4x5 eat 2x2 poison 0,0");
        let position = Position::start(&config);
        let (stop, deadline) = in_time();
        let moves = annotate(&config, &position, &small_library(), stop, deadline);
        assert_eq!(moves, exact(&config, &position));
        assert!(moves.iter().any(|m| m.value == Verdict::Tie), "{moves:?}");
        for m in &moves {
            assert_eq!(m.plies.is_none(), m.value == Verdict::Tie, "{m:?}");
        }
    }

    #[test]
    fn the_classic_database_agrees_with_the_engine() {
        let library = small_library();
        let config = board("6x6 variant classic poison 0,0");
        for moves in [&[][..], &[(4, 2)], &[(5, 5), (2, 3), (1, 4)]] {
            let position = played(&config, moves);
            let from_db = from_database(&config, &position, &library).unwrap();
            assert_eq!(from_db, exact(&config, &position), "after {moves:?}");
            let (stop, deadline) = in_time();
            assert_eq!(
                annotate(&config, &position, &library, stop, deadline),
                from_db
            );
        }
        // A position of a larger board that fits in the box is in the database; one that
        // does not (a row of seven cells) is searched, and so is a game with another poison.
        let big = board("7x7 variant classic poison 0,0");
        let near_end = played(&big, &[(1, 2), (2, 1), (0, 3), (3, 0)]);
        assert_eq!(
            from_database(&big, &near_end, &library).unwrap(),
            exact(&big, &near_end)
        );
        let row = played(&big, &[(1, 0)]);
        assert_eq!(from_database(&big, &row, &library), None);
        let (stop, deadline) = in_time();
        assert_eq!(
            annotate(&big, &row, &library, stop, deadline),
            exact(&big, &row)
        );
        let other = board("6x6 variant classic poison 1,1");
        assert_eq!(
            from_database(&other, &Position::start(&other), &library),
            None
        );
    }

    #[test]
    fn a_classic_database_not_ready_yet_is_asked_for_and_search_answers() {
        let library = ClassicLibrary::with_box(None, 5, 5);
        let config = board("5x5 variant classic poison 0,0");
        let position = played(&config, &[(1, 1)]);
        let (stop, deadline) = in_time();
        let moves = annotate(&config, &position, &library, stop, deadline);
        assert_eq!(moves, exact(&config, &position));
        // Asking started the database.
        assert!(library.wait().is_ok());
    }

    #[test]
    fn out_of_time_the_unproven_selections_are_unknown() {
        // Eat 1×1 is a parity game answered without search: a 2×2 eat is not.
        let config = board("15x15 eat 2x2 poison 0,0");
        let position = Position::start(&config);
        let stop = Arc::new(AtomicBool::new(true));
        let moves = annotate(&config, &position, &small_library(), stop, Instant::now());
        assert_eq!(moves.len(), 196);
        let poison = moves.iter().find(|m| (m.row, m.col) == (0, 0)).unwrap();
        assert_eq!((poison.value, poison.plies), (Verdict::Loss, Some(1)));
        let unknown: Vec<_> = moves
            .iter()
            .filter(|m| m.value == Verdict::Unknown)
            .collect();
        assert!(unknown.len() >= 170, "{} unknown", unknown.len());
        assert!(unknown.iter().all(|m| m.plies.is_none()));
    }

    #[test]
    fn a_finished_position_has_no_selections() {
        let config = board("4x4 eat 1x1 poison 0,0");
        let position = played(&config, &[(0, 0)]);
        let (stop, deadline) = in_time();
        assert!(annotate(&config, &position, &small_library(), stop, deadline).is_empty());
    }
}
