//! Fixtures shared by the unit tests: moves played in turn by two seats, and stored 4×4 classic
//! games, one with a known blunder and one played perfectly.

use jchomp_protocol::json::{MoveJson, ResultJson};
use jchomp_protocol::record::Record;
use jchomp_testkit::config_json;

/// Moves at `cells`, made in turn by seats 0 and 1.
pub(crate) fn moves_in_turn(cells: &[(i64, i64)]) -> Vec<MoveJson> {
    cells
        .iter()
        .enumerate()
        .map(|(i, &(row, col))| MoveJson {
            seat: (i % 2) as i64,
            row,
            col,
        })
        .collect()
}

/// A stored game of ann and bob on `board`, ending with `loser` poisoned.
pub(crate) fn record(board: &str, cells: &[(i64, i64)], loser: u8) -> Record {
    Record {
        id: Some("g1".into()),
        config: config_json(board),
        seats: vec!["ann".into(), "bob".into()],
        moves: moves_in_turn(cells),
        result: Some(ResultJson::Poisoned { loser }),
        started_ms: None,
        finished_ms: None,
    }
}

/// 4×4 classic: ann's 0,1 leaves bob the one column, and bob wins at once.
pub(crate) fn blundered() -> Record {
    record(
        "4x4 variant classic poison 0,0",
        &[(0, 1), (1, 0), (0, 0)],
        0,
    )
}

/// 4×4 classic: ann takes 1,1 and mirrors every move of bob's.
pub(crate) fn perfect() -> Record {
    record(
        "4x4 variant classic poison 0,0",
        &[
            (1, 1),
            (0, 3),
            (3, 0),
            (0, 2),
            (2, 0),
            (0, 1),
            (1, 0),
            (0, 0),
        ],
        1,
    )
}
