//! The pentanomial model of a two-bot match: the games are grouped into pairs that share a start
//! configuration with the seats swapped, each pair is classed by the first bot's points in it
//! (0, 1/2, 1, 3/2 or 2), and Elo, normalized Elo, LOS and the SPRT's log-likelihood ratio are
//! computed from the pairs, whose variance keeps what the start configuration decides out of the
//! error bars.
//!
//! The figures are those of fastchess (`elo_pentanomial.cpp`): with `N` pairs, `x = points/2`
//! a pair's mean score per game, `s` the mean of `x` and `v` its variance,
//! - Elo `= −400·log10(1/s − 1)`, and its 95% interval is `s ± 1.96·sqrt(v/N)` mapped the same way;
//! - normalized Elo (M. Van den Bergh, "Normalized Elo", "Comments on normalized Elo") is
//!   `nElo = (s − 1/2) / sqrt(2v) · 800/ln 10`: the score's distance from even in standard
//!   deviations of one game (a pair counts as two), so that it measures how few games tell the
//!   bots apart, whatever the start configurations' share in the result; its interval is
//!   `± 1.96 · 800/ln 10 / sqrt(2N)`;
//! - the likelihood of superiority `LOS = Φ((s − 1/2) / sqrt(v/N))`, the normal approximation of
//!   the chance that the first bot is the stronger one;
//! - the SPRT's log-likelihood ratio is the normal approximation of the generalized LLR (M. Van
//!   den Bergh, "A GSPRT approximation"), see [`Pentanomial::llr`].

use super::elo::{self, Estimate, Samples, Z95};
use serde::Serialize;
use std::f64::consts::LN_10;

/// Pseudo-pairs every class starts with in the SPRT's log-likelihood ratio (one even pair in
/// all), so that a handful of identical pairs, of variance near 0, cannot decide the test.
const PRIOR: f64 = 0.2;

/// Pairs of games, counted by the first bot's points in each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Pentanomial {
    /// Pairs in which the first bot scored 0, 1/2, 1, 3/2 and 2 points.
    pub counts: [u64; 5],
}

/// The mean score per game and the variance of the pairs' mean scores, over `weights[k]` pairs of
/// mean score `k/4` (`None` without any weight).
fn moments(weights: [f64; 5]) -> Option<(f64, f64, f64)> {
    let n: f64 = weights.iter().sum();
    if n <= 0.0 {
        return None;
    }
    let value = |k: usize| k as f64 / 4.0;
    let mean = (0..5).map(|k| weights[k] * value(k)).sum::<f64>() / n;
    let variance = (0..5)
        .map(|k| weights[k] * (value(k) - mean).powi(2))
        .sum::<f64>()
        / n;
    Some((n, mean, variance))
}

impl Pentanomial {
    /// Counts a pair in which the first bot scored `points` (0, 0.5, 1, 1.5 or 2).
    pub(crate) fn add_pair(&mut self, points: f64) {
        let class = (points * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[class] += 1;
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Pairs, mean score per game and the pairs' variance, as counted (no pseudo-pairs).
    fn observed(&self) -> Option<(f64, f64, f64)> {
        moments(self.counts.map(|c| c as f64))
    }

    /// The first bot's Elo over the second, with the 95% error bar of the pairs' variance.
    pub fn elo(&self) -> Estimate {
        let mut samples = Samples::default();
        for (class, &count) in self.counts.iter().enumerate() {
            let x = class as f64 / 4.0;
            samples.n += count;
            samples.sum += count as f64 * x;
            samples.sum_sq += count as f64 * x * x;
        }
        elo::estimate(&samples)
    }

    /// The first bot's normalized Elo over the second, with half the width of its 95% interval;
    /// `None` without pairs or when every pair scored the same (no variance).
    pub fn nelo(&self) -> Option<Estimate> {
        let (n, mean, variance) = self.observed()?;
        let scale = 800.0 / LN_10;
        let sigma = (2.0 * variance).sqrt();
        (sigma > 0.0).then(|| Estimate {
            elo: Some((mean - 0.5) / sigma * scale),
            error: Some(Z95 * scale / (2.0 * n).sqrt()),
        })
    }

    /// The likelihood of superiority of the first bot, in [0, 1]; `None` without pairs or when
    /// every pair scored the same (no variance).
    pub fn los(&self) -> Option<f64> {
        let (n, mean, variance) = self.observed()?;
        let se = (variance / n).sqrt();
        (se > 0.0).then(|| 0.5 * libm::erfc(-(mean - 0.5) / (se * std::f64::consts::SQRT_2)))
    }

    /// The log-likelihood ratio of "the first bot's expected score is `s1`" against "it is
    /// `s0`" (0 before any pair). With `N` pairs (each class holding [`PRIOR`] pseudo-pairs
    /// more), of mean `m` and variance `v`, the likelihood of a normal distribution whose mean is
    /// fixed at `s` and whose variance is free is largest at variance `v + (m − s)²`, so
    /// `LLR = N/2 · ln((v + (m − s0)²) / (v + (m − s1)²))`. Fastchess solves for the exact
    /// maximum-likelihood distributions instead (M. Van den Bergh, "Comparing the approximations
    /// for the generalized log likelihood ratio of a multinomial distribution"); the two agree
    /// closely near the bounds.
    pub(crate) fn llr(&self, s0: f64, s1: f64) -> f64 {
        if self.pairs() == 0 {
            return 0.0;
        }
        let Some((n, mean, variance)) = moments(self.counts.map(|c| c as f64 + PRIOR)) else {
            return 0.0;
        };
        let r0 = variance + (mean - s0).powi(2);
        let r1 = variance + (mean - s1).powi(2);
        n / 2.0 * (r0 / r1).ln()
    }
}

/// The pairing of a two-bot match's games: a game waits for the other seat order of its start
/// configuration, and the pair is counted once both are in. Games arrive in index order, so at
/// most one game waits; a pair not yet complete (a tournament stopped between its two games) is
/// not counted, and completes when the game after it is played (on `--resume` too).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Pairs {
    /// The complete pairs.
    pub counts: Pentanomial,
    /// The waiting game: its round (start configuration), seat order and the first bot's points.
    open: Option<(u64, usize, f64)>,
}

impl Pairs {
    /// Adds a game of round `round` in seat order `rotation` in which the first bot scored
    /// `points`.
    pub(crate) fn add(&mut self, round: u64, rotation: usize, points: f64) {
        match self.open.take() {
            Some((r, o, before)) if r == round && o != rotation => {
                self.counts.add_pair(before + points);
            }
            _ => self.open = Some((round, rotation, points)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-3
    }

    fn of(counts: [u64; 5]) -> Pentanomial {
        Pentanomial { counts }
    }

    /// Figures computed independently by a python3 one-off (math.log10, math.erf) from the
    /// formulas of the module comment: `(counts, elo, elo error, nElo, nElo error, LOS, LLR of
    /// elo1 = 10 against elo0 = 0)`. The first two count lists are fastchess's own tests
    /// (`elo_test.cpp`, "EloPentanomial 1" and "2", with WL and DD added up), whose published
    /// figures (55.58 ± 27.65, nElo 57.94 ± 28.28, LOS 100.00%; −8.64 ± 10.33, nElo −9.17 ±
    /// 10.96, LOS 5.05%) these agree with.
    const CASES: [([u64; 5], [f64; 6]); 5] = [
        (
            [34, 54, 63, 64, 75],
            [
                55.579780, 27.653430, 57.935600, 28.275376, 0.999970, 2.540887,
            ],
        ),
        (
            [332, 433, 498, 333, 334],
            [
                -8.642667, 10.334194, -9.172914, 10.960459, 0.050470, -4.895121,
            ],
        ),
        (
            [12, 20, 33, 10, 5],
            [
                -52.511566, 41.701192, -69.180329, 53.834712, 0.005890, -1.209162,
            ],
        ),
        (
            [8, 12, 30, 14, 10],
            [
                14.092951, 45.774392, 17.352509, 55.974669, 0.728274, 0.166191,
            ],
        ),
        (
            [5, 10, 30, 30, 25],
            [107.538125, 41.921127, 132.373090, 48.151231, 1.0, 2.091183],
        ),
    ];

    #[test]
    fn hand_computed_figures() {
        let (s0, s1) = (elo::to_score(0.0), elo::to_score(10.0));
        for (counts, [e, ee, n, ne, los, llr]) in CASES {
            let p = of(counts);
            let elo = p.elo();
            let nelo = p.nelo().unwrap();
            let got = [
                elo.elo.unwrap(),
                elo.error.unwrap(),
                nelo.elo.unwrap(),
                nelo.error.unwrap(),
                p.los().unwrap(),
                p.llr(s0, s1),
            ];
            for (g, want) in got.iter().zip([e, ee, n, ne, los, llr]) {
                assert!((g - want).abs() < 1e-5, "{counts:?}: {got:?}");
            }
        }
    }

    #[test]
    fn no_pairs_or_no_variance_have_no_normalized_figures() {
        let none = Pentanomial::default();
        assert_eq!(
            (none.elo().elo, none.nelo(), none.los()),
            (None, None, None)
        );
        assert_eq!(none.llr(0.5, 0.6), 0.0);
        // Every pair 3/2 points: a score of 0.75 (+190.8 Elo, no error) but no deviation to
        // normalize by.
        let same = of([0, 0, 0, 7, 0]);
        let e = same.elo();
        assert!(
            close(e.elo.unwrap(), 190.849) && e.error == Some(0.0),
            "{e:?}"
        );
        assert_eq!((same.nelo(), same.los()), (None, None));
    }

    #[test]
    fn hand_computed_elo() {
        // Pairs [5, 10, 30, 30, 25]: m = 0.65, v = 0.0775, se = sqrt(v/100) = 0.027839;
        // Elo(0.65) = 107.54; Elo(0.65 ± 1.96·se) = 67.14 and 150.98: error 41.92.
        let e = of([5, 10, 30, 30, 25]).elo();
        assert!(close(e.elo.unwrap(), 107.538), "{e:?}");
        assert!(close(e.error.unwrap(), 41.921), "{e:?}");
        assert_eq!(Pentanomial::default().elo().elo, None);
    }

    #[test]
    fn pairs_are_classed_by_points() {
        let mut p = Pentanomial::default();
        for points in [0.0, 0.5, 1.0, 1.0, 1.5, 2.0] {
            p.add_pair(points);
        }
        assert_eq!(p.counts, [1, 1, 2, 1, 1]);
        assert_eq!(p.pairs(), 6);
    }

    /// The first bot's points in each game of a two-bot match, as (round, seat order, points).
    fn feed(pairs: &mut Pairs, games: &[(u64, usize, f64)]) {
        for &(round, rotation, points) in games {
            pairs.add(round, rotation, points);
        }
    }

    #[test]
    fn games_pair_up_by_start_configuration_and_seat_order() {
        let games = [
            (0, 0, 1.0),
            (0, 1, 1.0),
            (1, 0, 0.0),
            (1, 1, 0.5),
            (2, 0, 0.5),
        ];
        let mut pairs = Pairs::default();
        feed(&mut pairs, &games);
        // Rounds 0 and 1 are pairs (2 and 1/2 points); round 2 waits for its second game.
        assert_eq!(pairs.counts.counts, [0, 1, 0, 0, 1]);
        // A stop and resume reads the same games back and goes on: the open pair completes.
        let mut resumed = Pairs::default();
        feed(&mut resumed, &games[..3]);
        assert_eq!(resumed.counts.counts, [0, 0, 0, 0, 1]);
        feed(&mut resumed, &games[3..]);
        assert_eq!(resumed, pairs);
        feed(&mut resumed, &[(2, 1, 1.0)]);
        assert_eq!(resumed.counts.counts, [0, 1, 0, 1, 1]);
        // Games of different start configurations, or of the same seat order, are no pair.
        let mut odd = Pairs::default();
        feed(
            &mut odd,
            &[(0, 0, 1.0), (1, 1, 1.0), (1, 1, 1.0), (2, 0, 0.0)],
        );
        assert_eq!(odd.counts.pairs(), 0);
    }
}
