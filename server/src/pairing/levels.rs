//! Which built-in level takes a seat nobody took: the one whose rating in the game's category
//! is nearest the rating of the people at the table. A level's own rating counts once it is no
//! longer provisional; until then it stands where [`LADDER`] puts it.

use super::scale;
use crate::accounts::Accounts;
use crate::ratings::provisional;
use jchomp_engine::spec::MAX_LEVEL;

/// Where each level (`level:1` first) stands on the pairing scale until its rating in the
/// category says otherwise: a newcomer (1500) meets `level:3`, the middle of the ladder.
const LADDER: [f64; MAX_LEVEL as usize] = [1000.0, 1250.0, 1500.0, 1750.0, 2000.0];

/// Each level's standing in `category` on the pairing scale: its own rating where it is
/// established, its place on the ladder where not (or where it cannot be read now).
pub(super) async fn standings(accounts: &Accounts, category: &str) -> [f64; MAX_LEVEL as usize] {
    let mut out = LADDER;
    for (i, slot) in out.iter_mut().enumerate() {
        let name = format!("level:{}", i + 1);
        if let Ok(Some(r)) = accounts.rating(&name, category).await
            && !provisional(category, &r)
        {
            *slot = scale(category, r.rating);
        }
    }
    out
}

/// The spec of the level whose standing is nearest `rating` (an unseeded level: such a bot may
/// sit in a rated room).
pub(super) fn nearest(standings: &[f64], rating: f64) -> String {
    let best = standings
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| (*a - rating).abs().total_cmp(&(*b - rating).abs()))
        .map_or(1, |(i, _)| i + 1);
    format!("level:{best}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_level_takes_the_seat() {
        assert_eq!(nearest(&LADDER, 1500.0), "level:3");
        assert_eq!(nearest(&LADDER, 400.0), "level:1");
        assert_eq!(nearest(&LADDER, 2600.0), "level:5");
        assert_eq!(nearest(&LADDER, 1800.0), "level:4");
        // An established level stands where its rating says.
        assert_eq!(
            nearest(&[1000.0, 1250.0, 1900.0, 1750.0, 2000.0], 1900.0),
            "level:3"
        );
    }
}
