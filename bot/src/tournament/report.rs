//! The standings table printed at the end: rank, bot, games, wins, ties, losses, score, score
//! percentage, and Elo relative to the first bot with its 95% error bar; the pairings; and, for
//! a two-bot match, the pentanomial line and the SPRT's line.

use super::elo::Estimate;
use super::sprt::{Sprt, Verdict};
use super::standings::Standings;
use std::fmt::Write;

fn elo_text(e: Estimate) -> (String, String) {
    let elo = match e.elo {
        Some(x) => format!("{x:+.1}"),
        None => "n/a".to_string(),
    };
    let error = match e.error {
        Some(x) => format!("{x:.1}"),
        None => "n/a".to_string(),
    };
    (elo, error)
}

/// The table, best score percentage first (ties keep the order the bots were given).
pub fn table(standings: &Standings) -> String {
    let mut order: Vec<usize> = (0..standings.bots.len()).collect();
    order.sort_by(|&a, &b| {
        let fa = standings.bots[a].tally.fraction();
        let fb = standings.bots[b].tally.fraction();
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    let width = standings
        .bots
        .iter()
        .map(|b| b.name.chars().count())
        .max()
        .unwrap_or(3)
        .max(3);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>4}  {:<width$}  {:>7}  {:>7}  {:>7}  {:>7}  {:>9}  {:>6}  {:>8}  {:>6}",
        "rank", "bot", "games", "wins", "ties", "losses", "score", "score%", "elo", "±95%"
    );
    for (rank, &i) in order.iter().enumerate() {
        let b = &standings.bots[i];
        let (elo, error) = elo_text(b.elo(i == 0));
        let t = &b.tally;
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:>7}  {:>7}  {:>7}  {:>7}  {:>9.1}  {:>6.1}  {:>8}  {:>6}",
            rank + 1,
            b.name,
            t.games,
            t.wins,
            t.ties,
            t.losses,
            t.score,
            100.0 * t.fraction(),
            elo,
            error
        );
    }
    let failed: Vec<String> = standings
        .bots
        .iter()
        .filter(|b| b.failures.crash + b.failures.illegal + b.failures.overtime > 0)
        .map(|b| {
            format!(
                "{}: {} crash, {} illegal, {} overtime",
                b.name, b.failures.crash, b.failures.illegal, b.failures.overtime
            )
        })
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(out, "games lost by failing: {}", failed.join("; "));
    }
    let _ = writeln!(out, "elo is relative to {}", standings.bots[0].name);
    out
}

/// One line per group of bots that met, with each bot's wins, ties, losses and score there:
/// `greedy 30 +18 =4 -8 (20.0) vs random 30 +8 =4 -18 (10.0)`. Empty with a single group (the
/// table says it all).
pub fn pairings(standings: &Standings) -> String {
    if standings.groups.len() < 2 {
        return String::new();
    }
    let mut out = String::from("pairings:\n");
    for g in &standings.groups {
        let members: Vec<String> = g
            .bots
            .iter()
            .zip(&g.tallies)
            .map(|(&b, t)| {
                format!(
                    "{} {} +{} ={} -{} ({:.1})",
                    standings.bots[b].name, t.games, t.wins, t.ties, t.losses, t.score
                )
            })
            .collect();
        let _ = writeln!(out, "  {}", members.join(" vs "));
    }
    out
}

/// `+12.3 ± 4.5`, `+12.3` (unbounded interval) or `n/a`.
fn estimate_text(e: Estimate) -> String {
    match (e.elo, e.error) {
        (Some(x), Some(err)) => format!("{x:+.1} ± {err:.1}"),
        (Some(x), None) => format!("{x:+.1}"),
        _ => "n/a".to_string(),
    }
}

/// The pentanomial figures of a two-bot match, from the first bot's side: the pairs by its
/// points, Elo and normalized Elo with their 95% error bars, and the likelihood of superiority.
/// `None` with more than two bots.
pub fn pentanomial_line(standings: &Standings) -> Option<String> {
    let p = standings.pentanomial()?;
    let (a, b) = (&standings.bots[0].name, &standings.bots[1].name);
    let [c0, c1, c2, c3, c4] = p.counts;
    let nelo = p.nelo().map_or_else(|| "n/a".to_string(), estimate_text);
    let los = p
        .los()
        .map_or_else(|| "n/a".to_string(), |x| format!("{:.2}%", 100.0 * x));
    Some(format!(
        "pentanomial {a} vs {b}: pairs [{c0}, {c1}, {c2}, {c3}, {c4}] ({a} scoring 0, 1/2, 1, \
         3/2, 2), elo {}, nelo {nelo}, los {los}",
        estimate_text(p.elo())
    ))
}

/// The SPRT's line: parameters, the model it decides on, LLR with its bounds, and the verdict
/// (or "undecided").
pub fn sprt_line(standings: &Standings) -> Option<String> {
    let s = standings.sprt()?;
    let (lower, upper) = s.params.bounds();
    let names = (&standings.bots[0].name, &standings.bots[1].name);
    let verdict = match s.verdict() {
        Some(Verdict::H1) => format!(
            "H1 accepted: {} is stronger than {} (elo1={})",
            names.0, names.1, s.params.elo1
        ),
        Some(Verdict::H0) => format!(
            "H0 accepted: {} is not {} elo stronger than {} (elo0={})",
            names.0, s.params.elo1, names.1, s.params.elo0
        ),
        None => "undecided".to_string(),
    };
    Some(format!(
        "sprt {} on the {} model: llr {:.3} (bounds {:.3}, {:.3}) after {} pairs, elo {}: \
         {verdict}",
        s.params,
        Sprt::MODEL,
        s.llr(),
        lower,
        upper,
        s.pairs(),
        estimate_text(s.pentanomial.elo())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::schedule::Schedule;
    use jchomp_rules::GameResult;

    #[test]
    fn table_ranks_by_score_and_shows_elo() {
        let schedule = Schedule::new(2, 2, false);
        let names = vec!["random".to_string(), "greedy".to_string()];
        let mut st = Standings::new(&names, &schedule, None);
        st.add(&schedule.slot(0), GameResult::Poisoned { loser: 0 }, None);
        st.add(&schedule.slot(1), GameResult::Tie, None);
        let text = table(&st);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("rank") && lines[0].contains("±95%"));
        assert!(lines[1].contains("greedy") && lines[1].contains("75.0"));
        assert!(lines[2].contains("random") && lines[2].contains("+0.0"));
        // greedy scored 0.75 against random: +190.8 Elo.
        assert!(lines[1].contains("+190.8"), "{text}");
        assert!(text.ends_with("elo is relative to random\n"));
        assert_eq!(pairings(&st), "");
    }

    #[test]
    fn pairings_list_every_group() {
        let schedule = Schedule::new(3, 2, false);
        let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let mut st = Standings::new(&names, &schedule, None);
        st.add(&schedule.slot(2), GameResult::Poisoned { loser: 1 }, None);
        assert_eq!(
            pairings(&st),
            "pairings:\n  a 0 +0 =0 -0 (0.0) vs b 0 +0 =0 -0 (0.0)\n  \
             a 1 +1 =0 -0 (1.0) vs c 1 +0 =0 -1 (0.0)\n  \
             b 0 +0 =0 -0 (0.0) vs c 0 +0 =0 -0 (0.0)\n"
        );
    }

    #[test]
    fn the_pentanomial_line_is_for_two_bots() {
        let schedule = Schedule::new(2, 2, false);
        let names = vec!["random".to_string(), "greedy".to_string()];
        let mut st = Standings::new(&names, &schedule, None);
        assert_eq!(
            pentanomial_line(&st).unwrap(),
            "pentanomial random vs greedy: pairs [0, 0, 0, 0, 0] (random scoring 0, 1/2, 1, \
             3/2, 2), elo n/a, nelo n/a, los n/a"
        );
        assert_eq!(sprt_line(&st), None);
        // Random scores 1/2 + 0, 1 + 0 and 1 + 1/2 (it sits in seat 0 in even games): pairs of
        // 1/2, 1 and 3/2 points, m = 0.5, v = 1/24, se = sqrt(v/3) = 0.117851; Elo 0 ± 173.7
        // (Elo(0.5 ± 1.96·se) = ±173.65), nElo 0 ± 1.96·(800/ln 10)/sqrt(6) = 278.00, LOS 50%.
        let won = GameResult::Poisoned { loser: 1 };
        let games = [GameResult::Tie, won, won, won, won, GameResult::Tie];
        for (i, result) in games.into_iter().enumerate() {
            st.add(&schedule.slot(i as u64), result, None);
        }
        assert_eq!(
            pentanomial_line(&st).unwrap(),
            "pentanomial random vs greedy: pairs [0, 1, 1, 1, 0] (random scoring 0, 1/2, 1, \
             3/2, 2), elo +0.0 ± 173.7, nelo +0.0 ± 278.0, los 50.00%"
        );
        let three: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let st = Standings::new(&three, &Schedule::new(3, 2, false), None);
        assert_eq!(pentanomial_line(&st), None);
    }
}
