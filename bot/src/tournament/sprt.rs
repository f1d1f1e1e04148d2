//! The sequential probability ratio test that stops a two-bot match once it has decided whether
//! the first bot is `elo0` or `elo1` Elo stronger than the second (logistic Elo).
//!
//! It decides on the pentanomial model: the log-likelihood ratio of the pairs of games
//! (`Pentanomial::llr`, the normal approximation of the generalized SPRT that Fishtest uses,
//! M. Van den Bergh, "A GSPRT approximation"). The test accepts H1 once `LLR ≥ ln((1 − β)/α)`
//! and H0 once `LLR ≤ ln(β/(1 − α))`, as fastchess and Fishtest do.

use super::elo::to_score;
use super::pentanomial::Pentanomial;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why `--sprt` parameters are refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    /// A part is not `KEY=VALUE`.
    #[error("expected KEY=VALUE in --sprt, got {0:?}")]
    NotKeyValue(String),
    /// A value is not a number.
    #[error("--sprt {key} must be a number, got {value:?}")]
    NotANumber {
        /// The key, as given.
        key: String,
        /// The value, as given.
        value: String,
    },
    /// A key the test does not have.
    #[error("unknown --sprt key {0:?} (elo0, elo1, alpha, beta)")]
    UnknownKey(String),
    /// `elo0` is not below `elo1` (or one is not finite).
    #[error("--sprt needs elo0 < elo1, got {elo0} and {elo1}")]
    EloOrder {
        /// Elo difference under H0.
        elo0: f64,
        /// Elo difference under H1.
        elo1: f64,
    },
    /// An error rate outside (0, 1), or rates that add up to 1 or more.
    #[error(
        "--sprt alpha and beta must lie in (0, 1) with alpha + beta < 1, got {alpha} and {beta}"
    )]
    Rates {
        /// Chance of accepting H1 when H0 holds.
        alpha: f64,
        /// Chance of accepting H0 when H1 holds.
        beta: f64,
    },
}

/// The test's hypotheses and error rates: `--sprt elo0=0,elo1=10,alpha=0.05,beta=0.05`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtParams {
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1.
    pub elo1: f64,
    /// Chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Chance of accepting H0 when H1 holds.
    pub beta: f64,
}

impl Default for SprtParams {
    fn default() -> Self {
        SprtParams {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        }
    }
}

impl SprtParams {
    /// Parses `elo0=0,elo1=10,alpha=0.05,beta=0.05`; keys left out keep these defaults.
    pub fn parse(text: &str) -> Result<SprtParams, SprtError> {
        let mut p = SprtParams::default();
        for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| SprtError::NotKeyValue(part.to_string()))?;
            let value: f64 = value.trim().parse().map_err(|_| SprtError::NotANumber {
                key: key.to_string(),
                value: value.to_string(),
            })?;
            match key.trim() {
                "elo0" => p.elo0 = value,
                "elo1" => p.elo1 = value,
                "alpha" => p.alpha = value,
                "beta" => p.beta = value,
                other => return Err(SprtError::UnknownKey(other.to_string())),
            }
        }
        p.validate()?;
        Ok(p)
    }

    /// Checks `elo0 < elo1` and error rates in (0, 1) with `alpha + beta < 1`.
    pub fn validate(&self) -> Result<(), SprtError> {
        if !self.elo0.is_finite() || !self.elo1.is_finite() || self.elo0 >= self.elo1 {
            return Err(SprtError::EloOrder {
                elo0: self.elo0,
                elo1: self.elo1,
            });
        }
        let rate = |x: f64| x > 0.0 && x < 1.0;
        if !rate(self.alpha) || !rate(self.beta) || self.alpha + self.beta >= 1.0 {
            return Err(SprtError::Rates {
                alpha: self.alpha,
                beta: self.beta,
            });
        }
        Ok(())
    }

    /// The (lower, upper) LLR bounds: `ln(β/(1−α))` and `ln((1−β)/α)`.
    pub(crate) fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }
}

impl fmt::Display for SprtParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={},elo1={},alpha={},beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// What the test decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Verdict {
    /// The first bot is not `elo1` stronger: H0 (`elo0`) accepted.
    H0,
    /// The first bot is `elo1` stronger: H1 accepted.
    H1,
}

/// The running test: its parameters and the pairs counted so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// The hypotheses and error rates.
    pub params: SprtParams,
    /// The pairs of games, by the first bot's points.
    pub pentanomial: Pentanomial,
}

impl Sprt {
    /// The name of the model the test decides on, as the report and `results.json` give it.
    pub(crate) const MODEL: &'static str = "pentanomial";

    /// Pairs counted.
    pub(crate) fn pairs(&self) -> u64 {
        self.pentanomial.pairs()
    }

    /// The log-likelihood ratio of H1 against H0 (0 before any pair).
    pub(crate) fn llr(&self) -> f64 {
        self.pentanomial
            .llr(to_score(self.params.elo0), to_score(self.params.elo1))
    }

    /// The verdict, once the LLR has crossed a bound.
    pub(crate) fn verdict(&self) -> Option<Verdict> {
        let llr = self.llr();
        let (lower, upper) = self.params.bounds();
        if llr >= upper {
            Some(Verdict::H1)
        } else if llr <= lower {
            Some(Verdict::H0)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-3
    }

    fn sprt(elo1: f64, counts: [u64; 5]) -> Sprt {
        Sprt {
            params: SprtParams {
                elo1,
                ..SprtParams::default()
            },
            pentanomial: Pentanomial { counts },
        }
    }

    #[test]
    fn parses_with_defaults_and_refuses_nonsense() {
        assert_eq!(
            SprtParams::parse("elo0=0,elo1=10,alpha=0.05,beta=0.05").unwrap(),
            SprtParams::default()
        );
        assert_eq!(SprtParams::parse("elo1=5").unwrap().elo1, 5.0);
        assert!(SprtParams::parse("elo0=10,elo1=0").is_err());
        assert!(SprtParams::parse("alpha=1").is_err());
        assert!(
            SprtParams::parse("gamma=1")
                .unwrap_err()
                .to_string()
                .contains("unknown")
        );
        assert!(
            SprtParams::parse("elo1")
                .unwrap_err()
                .to_string()
                .contains("KEY=VALUE")
        );
        let (lo, hi) = SprtParams::default().bounds();
        // ln(0.05/0.95) and ln(0.95/0.05).
        assert!(close(lo, -2.944439) && close(hi, 2.944439));
    }

    #[test]
    fn hand_computed_llr() {
        // Pairs [5, 10, 30, 30, 25] plus 0.2 each: N = 101, m = 0.648515, v = 0.078191;
        // s0 = 0.5, s1(10) = 0.514387; LLR = 50.5 · ln((v + (m − s0)²) / (v + (m − s1)²))
        // = 2.0912.
        let s = sprt(10.0, [5, 10, 30, 30, 25]);
        assert!(close(s.llr(), 2.0912), "{}", s.llr());
        assert_eq!(s.verdict(), None);
        // With elo1 = 100 (s1 = 0.640065) the same pairs accept H1: LLR 12.5026.
        let s = sprt(100.0, [5, 10, 30, 30, 25]);
        assert!(close(s.llr(), 12.5026), "{}", s.llr());
        assert_eq!(s.verdict(), Some(Verdict::H1));
        // The mirror image leans to H0: LLR -2.2080.
        let s = sprt(10.0, [25, 30, 30, 10, 5]);
        assert!(close(s.llr(), -2.2080), "{}", s.llr());
        // Two even pairs decide nothing yet: N = 3, m = 0.5, v = 0.041667, LLR -0.5787.
        let s = sprt(100.0, [0, 0, 2, 0, 0]);
        assert!(close(s.llr(), -0.5787), "{}", s.llr());
        assert_eq!(s.verdict(), None);
        assert_eq!(sprt(10.0, [0; 5]).llr(), 0.0);
        assert_eq!(Sprt::MODEL, "pentanomial");
    }

    #[test]
    fn a_clear_loser_is_sent_to_h0() {
        let mut s = sprt(10.0, [0; 5]);
        for i in 0..400 {
            s.pentanomial.add_pair(if i % 4 == 0 { 1.0 } else { 0.0 });
        }
        assert_eq!(s.pairs(), 400);
        assert_eq!(s.verdict(), Some(Verdict::H0));
    }
}
