//! Search scores: proven results count plies (winners hurry, losers delay), heuristic scores
//! stay far below them, and conversions for storing scores relative to a node.

/// A win at the root itself; a win `p` plies away scores `WIN - p`, a loss `-(WIN - p)`.
pub const WIN: i32 = 30_000;
/// Scores beyond ±`PROVEN_WIN` are proven wins or losses.
pub const PROVEN_WIN: i32 = WIN - 1_000;
/// Larger than any score.
pub const INF: i32 = 32_000;

/// What a proven score means, for the seat it is scored for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// A forced win.
    Win,
    /// Best play on both sides ties.
    Tie,
    /// A loss whatever this seat does.
    Loss,
}

impl Outcome {
    /// `win`, `tie` or `loss`.
    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Tie => "tie",
            Outcome::Loss => "loss",
        }
    }
}

/// Reads a proven score given at `ply` from the root: the outcome and plies to the end counted
/// from the root (`None` for a tie, whose length is not optimised).
pub fn read(score: i32) -> (Outcome, Option<u32>) {
    if score > PROVEN_WIN {
        (Outcome::Win, Some((WIN - score) as u32))
    } else if score < -PROVEN_WIN {
        (Outcome::Loss, Some((WIN + score) as u32))
    } else {
        (Outcome::Tie, None)
    }
}

/// A score given at `ply` from the root, made relative to its own node (for the table).
#[inline]
pub fn to_table(score: i32, ply: u32) -> i16 {
    let p = ply as i32;
    (if score > PROVEN_WIN {
        score + p
    } else if score < -PROVEN_WIN {
        score - p
    } else {
        score
    }) as i16
}

/// The inverse of [`to_table`].
#[inline]
pub fn from_table(score: i16, ply: u32) -> i32 {
    let (s, p) = (i32::from(score), ply as i32);
    if s > PROVEN_WIN {
        s - p
    } else if s < -PROVEN_WIN {
        s + p
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proven_scores_round_trip_through_the_table() {
        for ply in [0, 3, 40] {
            for s in [WIN - ply as i32 - 5, -(WIN - ply as i32 - 2), 0, 100, -100] {
                assert_eq!(from_table(to_table(s, ply), ply), s);
            }
        }
        assert_eq!(read(WIN - 7), (Outcome::Win, Some(7)));
        assert_eq!(read(-(WIN - 4)), (Outcome::Loss, Some(4)));
        assert_eq!(read(0), (Outcome::Tie, None));
    }
}
