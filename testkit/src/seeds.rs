//! The example games of the classic Chomp descriptions the project started from, in our
//! coordinates, so that the rules' tests and the server's play the same moves.
//!
//! Both descriptions put the poisoned counter at the top left and eat "below and to the right",
//! as we do: their top row is our row 0, their left column our column 0, and a bite at a
//! counter is our selection of that cell. Our sizes are ROWSxCOLS.

/// The standard classic bar: "a 3x5 rectangular chocolate bar with the distinguished counter at
/// the top left", read as 3 rows of 5 counters.
pub const STANDARD_BAR: &str = "3x5 variant classic poison 0,0";

/// The counters each bite of the standard bar's example game removes, in order: "First player
/// removes six counters. Second player removes two counters. First player removes four
/// counters. Second player removes remaining counters" (all but the poison, so two), after
/// which the first player must eat the poison.
pub const STANDARD_COUNTS: [usize; 4] = [6, 2, 4, 2];

/// The description shows its moves only as pictures and counts; these are the first (in board
/// order) of the games on [`STANDARD_BAR`] whose bites remove [`STANDARD_COUNTS`]: columns 3–4
/// (6), then (1,2) and (2,2) (2), then the rest of the top row right of the poison with (1,1)
/// and (2,1) (4), then (1,0) and (2,0) (2), leaving the poison alone; last, the first player
/// eats it.
pub const STANDARD_GAME: [(u8, u8); 5] = [(0, 3), (1, 2), (0, 1), (1, 0), (0, 0)];

/// The "5 × 4 bar" of the second description: the counts of its moves (2, 3, 11, 3 and the
/// poison, 20 in all) fit a bar 5 counters wide and 4 tall: "Player B eats three blocks from
/// the remaining column, leaving only the poisoned block", so the left column holds 4. In our
/// ROWSxCOLS that is 4x5. (The counts would also fit a bar 4 wide and 5 tall, B then eating
/// the whole bottom row; the rules' tests play that reading as well.)
pub const WIDE_BAR: &str = "4x5 variant classic poison 0,0";

/// The second description's game on [`WIDE_BAR`]: "Player A eats two blocks from the bottom
/// right corner" — (2,4) and (3,4), the two of the right column, since B must still find three
/// to eat in the bottom row; "Player B eats three from the bottom row" — (3,1) to (3,3); "Player
/// A picks the block to the right of the poisoned block and eats eleven blocks" — (0,1);
/// "Player B eats three blocks from the remaining column" — (1,0) to (3,0); "Player A must eat
/// the last block and so loses" — (0,0).
pub const WIDE_GAME: [(u8, u8); 5] = [(2, 4), (3, 1), (0, 1), (1, 0), (0, 0)];

/// The counters each move of [`WIDE_GAME`] eats, as the description tells them.
pub const WIDE_COUNTS: [usize; 5] = [2, 3, 11, 3, 1];
