//! Fixtures shared by the unit tests: moves played in turn by two seats.

use jchomp_protocol::json::MoveJson;

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
