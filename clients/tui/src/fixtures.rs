//! Fixtures shared by the unit tests: stored 4×4 classic games, one with a known blunder and one
//! played perfectly.

use jchomp_protocol::record::Record;
use jchomp_testkit::fixtures::{Fixture, RecordFixture};

/// A stored game g1 of ann and bob on `board`, the selections `cells` played in turn.
pub(crate) fn record(board: &str, cells: &[(u8, u8)]) -> Record {
    jchomp_testkit::fixtures::record(board)
        .id("g1")
        .seats(["ann", "bob"])
        .play(cells)
}

/// 4×4 classic: ann's 0,1 leaves bob the one column, and bob wins at once.
pub(crate) fn blundered() -> Record {
    record("4x4 variant classic poison 0,0", &[(0, 1), (1, 0), (0, 0)])
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
    )
}
