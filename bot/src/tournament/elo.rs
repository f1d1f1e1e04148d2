//! Elo from a score, with a 95% error bar, as cutechess-cli reports it: the mean score `s` of
//! `n` games gives `Elo = -400·log10(1/s − 1)`; the standard error of the mean,
//! `sqrt(var/n)` with the games' own variance, gives the interval `s ± 1.96·se`, and the error
//! bar is half the width of that interval in Elo.

/// The two-sided 95% quantile of the normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Elo difference at which the stronger side's expected score is `score` (0 < score < 1).
pub fn from_score(score: f64) -> Option<f64> {
    // `+ 0.0` turns the −0 of an even score into 0, which prints as `+0.0`.
    (score > 0.0 && score < 1.0).then(|| -400.0 * (1.0 / score - 1.0).log10() + 0.0)
}

/// The expected score at an Elo difference of `elo` (the logistic curve).
pub fn to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Per-game scores (1, 1/2 or 0), summed as they arrive.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Samples {
    /// Number of games.
    pub n: u64,
    /// Sum of the scores.
    pub sum: f64,
    /// Sum of the squared scores.
    pub sum_sq: f64,
}

impl Samples {
    /// Adds one game's score.
    pub fn add(&mut self, score: f64) {
        self.n += 1;
        self.sum += score;
        self.sum_sq += score * score;
    }

    /// The mean score, if any game was played.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
}

/// An Elo estimate: the difference, and half the width of its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The Elo difference; `None` when the score is 0% or 100% (unbounded).
    pub elo: Option<f64>,
    /// Half the width of the 95% interval; `None` when an end of it is unbounded.
    pub error: Option<f64>,
}

/// The Elo estimate of a side that scored `samples`.
pub fn estimate(samples: &Samples) -> Estimate {
    let Some(mean) = samples.mean() else {
        return Estimate {
            elo: None,
            error: None,
        };
    };
    let n = samples.n as f64;
    let variance = (samples.sum_sq / n - mean * mean).max(0.0);
    let margin = Z95 * (variance / n).sqrt();
    let error = match (from_score(mean - margin), from_score(mean + margin)) {
        (Some(lo), Some(hi)) => Some((hi - lo) / 2.0),
        _ => None,
    };
    Estimate {
        elo: from_score(mean),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-2
    }

    #[test]
    fn scores_and_elo_are_inverse() {
        assert_eq!(from_score(0.5), Some(0.0));
        assert!(close(from_score(0.75).unwrap(), 190.85));
        assert!(close(from_score(0.25).unwrap(), -190.85));
        assert_eq!(from_score(1.0), None);
        assert_eq!(from_score(0.0), None);
        assert!((to_score(from_score(0.64).unwrap()) - 0.64).abs() < 1e-12);
    }

    #[test]
    fn hand_computed_estimate() {
        // 60 wins, 20 ties, 20 losses: s = 0.7, var = 0.65 - 0.49 = 0.16, se = 0.04,
        // interval 0.7 ± 0.078399 = [0.621601, 0.778399];
        // Elo(0.7) = 147.19, Elo(0.621601) = 86.23, Elo(0.778399) = 218.25, error 66.01.
        let mut s = Samples::default();
        for x in [1.0; 60].iter().chain(&[0.5; 20]).chain(&[0.0; 20]) {
            s.add(*x);
        }
        let e = estimate(&s);
        assert!(close(e.elo.unwrap(), 147.19), "{e:?}");
        assert!(close(e.error.unwrap(), 66.01), "{e:?}");
    }

    #[test]
    fn perfect_scores_have_no_finite_elo() {
        let mut s = Samples::default();
        s.add(1.0);
        s.add(1.0);
        assert_eq!(
            estimate(&s),
            Estimate {
                elo: None,
                error: None
            }
        );
        assert_eq!(estimate(&Samples::default()).elo, None);
    }
}
