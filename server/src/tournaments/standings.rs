//! Standings, pure: each entrant's points (games scored by [`seat_score`], byes one point),
//! wins, ties and losses, its performance rating, and the crosstable of who took what from whom.

use jchomp_engine::scoring::seat_score;
use jchomp_protocol::json::ResultJson;
use jchomp_protocol::rules::{GameResult, Seat};
use jchomp_protocol::wire::{Points, Standing};

/// One finished game: its entrants in seat order and how it ended.
pub(crate) struct Finished<'a> {
    /// Entrant indices in seat order.
    pub seats: &'a [usize],
    /// The result.
    pub result: ResultJson,
}

/// Rating points that a score of 1 above an even one adds to a performance (lichess's and
/// FIDE's linear approximation: average opponent + 400 × (wins − losses) / games).
const SPREAD: f64 = 400.0;

/// The standings of entrants `names` (with `ratings` as they were when each entered,
/// and `byes` byes each), best first: by points, then performance, then name.
pub(crate) fn standings(
    names: &[String],
    ratings: &[f64],
    byes: &[u32],
    games: &[Finished<'_>],
) -> Vec<Standing> {
    let n = names.len();
    let mut rows: Vec<Standing> = names
        .iter()
        .enumerate()
        .map(|(i, name)| Standing {
            name: name.clone(),
            bot: false,
            withdrawn: false,
            points: Points(f64::from(byes.get(i).copied().unwrap_or(0))),
            games: 0,
            wins: 0,
            ties: 0,
            losses: 0,
            performance: 0,
        })
        .collect();
    let mut opponents = vec![0.0; n];
    for g in games {
        let result = GameResult::from(g.result);
        let k = g.seats.len();
        for (seat, &e) in g.seats.iter().enumerate() {
            let Some(row) = rows.get_mut(e) else { continue };
            let score = seat_score(result, seat as Seat);
            row.points.0 += score;
            row.games += 1;
            match score {
                s if s >= 1.0 => row.wins += 1,
                s if s > 0.0 => row.ties += 1,
                _ => row.losses += 1,
            }
            let others: f64 = g
                .seats
                .iter()
                .filter(|&&o| o != e)
                .map(|&o| ratings.get(o).copied().unwrap_or(0.0))
                .sum();
            opponents[e] += others / (k.max(2) - 1) as f64;
        }
    }
    for (i, row) in rows.iter_mut().enumerate() {
        let own = ratings.get(i).copied().unwrap_or(0.0);
        row.performance = performance(own, opponents[i], row).round() as i64;
    }
    rows.sort_by(|a, b| {
        b.points
            .0
            .total_cmp(&a.points.0)
            .then(b.performance.cmp(&a.performance))
            .then(a.name.cmp(&b.name))
    });
    rows
}

/// The average opponent's rating (its own rating when it has played nobody) plus
/// [`SPREAD`] × (wins − losses) / games.
fn performance(own: f64, opponents_sum: f64, row: &Standing) -> f64 {
    if row.games == 0 {
        return own;
    }
    let games = f64::from(row.games);
    opponents_sum / games + SPREAD * (f64::from(row.wins) - f64::from(row.losses)) / games
}

/// The crosstable of `n` entrants: cell `[i][j]` is what `i` scored in games with `j` (`None`
/// on the diagonal, and where they never met).
pub(crate) fn crosstable(n: usize, games: &[Finished<'_>]) -> Vec<Vec<Option<Points>>> {
    let mut table = vec![vec![None; n]; n];
    for g in games {
        let result = GameResult::from(g.result);
        for (seat, &i) in g.seats.iter().enumerate() {
            let score = seat_score(result, seat as Seat);
            for &j in g.seats.iter().filter(|&&j| j != i) {
                if let Some(cell) = table.get_mut(i).and_then(|r| r.get_mut(j)) {
                    cell.get_or_insert(Points(0.0)).0 += score;
                }
            }
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("e{i}")).collect()
    }

    #[test]
    fn points_and_tallies_follow_the_scores_and_byes() {
        let games = [
            Finished {
                seats: &[0, 1],
                result: ResultJson::Poisoned { loser: 1 },
            },
            Finished {
                seats: &[2, 0],
                result: ResultJson::Tie,
            },
        ];
        let rows = standings(&names(3), &[1500.0; 3], &[0, 1, 0], &games);
        let by = |n: &str| rows.iter().find(|r| r.name == n).unwrap().clone();
        assert_eq!(rows[0].name, "e0");
        assert_eq!(by("e0").points, Points(1.5));
        assert_eq!((by("e0").wins, by("e0").ties, by("e0").losses), (1, 1, 0));
        assert_eq!(by("e1").points, Points(1.0), "a bye is a point");
        assert_eq!(by("e1").games, 1);
        assert_eq!(by("e2").points, Points(0.5));
    }

    #[test]
    fn performance_is_the_average_opponent_plus_400_per_net_win() {
        let games = [
            Finished {
                seats: &[0, 1],
                result: ResultJson::Poisoned { loser: 1 },
            },
            Finished {
                seats: &[2, 0],
                result: ResultJson::Timeout { loser: 1 },
            },
        ];
        let rows = standings(&names(3), &[1500.0, 1600.0, 1800.0], &[0; 3], &games);
        let e0 = rows.iter().find(|r| r.name == "e0").unwrap();
        assert_eq!(e0.performance, 1700, "(1600 + 1800) / 2 + 400 × 0 / 2");
        let e1 = rows.iter().find(|r| r.name == "e1").unwrap();
        assert_eq!(e1.performance, 1500 - 400);
        assert_eq!(rows[0].name, "e2");
    }

    #[test]
    fn the_crosstable_holds_what_each_took_from_each() {
        let games = [
            Finished {
                seats: &[0, 1, 2],
                result: ResultJson::Poisoned { loser: 2 },
            },
            Finished {
                seats: &[1, 0],
                result: ResultJson::Poisoned { loser: 1 },
            },
        ];
        let t = crosstable(3, &games);
        assert_eq!(t[0][0], None);
        assert_eq!(t[0][1], Some(Points(1.0)));
        assert_eq!(t[1][0], Some(Points(2.0)));
        assert_eq!(t[2][0], Some(Points(0.0)));
    }
}
