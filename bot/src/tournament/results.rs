//! The contents of `results.json`: the settings, how the tournament ended, the standings with
//! Elo, every pairing's tally, a two-bot match's pentanomial figures, and the SPRT.

use super::pentanomial::Pentanomial;
use super::settings::Settings;
use super::sprt::{Sprt, Verdict};
use super::standings::{Failures, Standings, Tally};
use serde::Serialize;

/// One bot's line in `results.json`.
#[derive(Clone, Debug, Serialize)]
pub struct BotResult {
    /// Its name.
    pub name: String,
    /// Games, wins, ties, losses, score.
    #[serde(flatten)]
    pub tally: Tally,
    /// Elo relative to the first bot; `null` when unbounded (a 0% or 100% score).
    pub elo: Option<f64>,
    /// Half the width of the 95% interval; `null` when unbounded.
    pub elo_error: Option<f64>,
    /// Games lost by failing.
    pub failures: Failures,
}

/// One bot's results within a pairing.
#[derive(Clone, Debug, Serialize)]
pub struct Member {
    /// The bot's name.
    pub name: String,
    /// Its games, wins, ties, losses and score in this pairing.
    #[serde(flatten)]
    pub tally: Tally,
}

/// The pentanomial figures of a two-bot match in `results.json`, from the first bot's side.
#[derive(Clone, Debug, Serialize)]
pub struct PentanomialResult {
    /// Complete pairs of games.
    pub pairs: u64,
    /// Pairs in which the first bot scored 0, 1/2, 1, 3/2 and 2 points.
    pub counts: Pentanomial,
    /// The first bot's Elo over the second; `null` when unbounded.
    pub elo: Option<f64>,
    /// Half the width of its 95% interval (pentanomial variance); `null` when unbounded.
    pub elo_error: Option<f64>,
    /// Normalized Elo; `null` without pairs or variance.
    pub nelo: Option<f64>,
    /// Half the width of its 95% interval; `null` with `nelo`.
    pub nelo_error: Option<f64>,
    /// The likelihood of superiority of the first bot, in [0, 1]; `null` without pairs or
    /// variance.
    pub los: Option<f64>,
}

impl PentanomialResult {
    fn new(p: Pentanomial) -> PentanomialResult {
        let elo = p.elo();
        let nelo = p.nelo();
        PentanomialResult {
            pairs: p.pairs(),
            counts: p,
            elo: elo.elo,
            elo_error: elo.error,
            nelo: nelo.and_then(|e| e.elo),
            nelo_error: nelo.and_then(|e| e.error),
            los: p.los(),
        }
    }
}

/// The SPRT's state in `results.json`.
#[derive(Clone, Debug, Serialize)]
pub struct SprtResult {
    /// The test's parameters.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// The lower bound (H0 accepted at or below it).
    pub lower: f64,
    /// The upper bound (H1 accepted at or above it).
    pub upper: f64,
    /// Pairs in which the first bot scored 0, 1/2, 1, 3/2 and 2 points.
    pub pentanomial: [u64; 5],
    /// The first bot's Elo over the second from the pairs; `null` when unbounded.
    pub elo: Option<f64>,
    /// Half the width of its 95% interval (pentanomial variance); `null` when unbounded.
    pub elo_error: Option<f64>,
    /// `"H0"`, `"H1"`, or `null` while undecided.
    pub verdict: Option<Verdict>,
    /// The model the LLR is computed on: `"pentanomial"`.
    pub model: &'static str,
}

/// The contents of `results.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Results<'a> {
    /// The tournament's settings.
    pub settings: &'a Settings,
    /// `"finished"`, `"decided"` (by the SPRT) or `"interrupted"`.
    pub status: &'static str,
    /// Games played.
    pub games: u64,
    /// One line per bot, in the order given.
    pub standings: Vec<BotResult>,
    /// Every group of bots that met (a pairing, for two players), with each bot's tally.
    pub pairings: Vec<Vec<Member>>,
    /// The SPRT, if one ran.
    pub sprt: Option<SprtResult>,
    /// A two-bot match's pentanomial figures; `null` with more bots.
    pub pentanomial: Option<PentanomialResult>,
}

impl<'a> Results<'a> {
    /// The results of `standings`.
    pub fn new(settings: &'a Settings, status: &'static str, standings: &Standings) -> Self {
        Results {
            settings,
            status,
            games: standings.games,
            standings: standings
                .bots
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let e = b.elo(i == 0);
                    BotResult {
                        name: b.name.clone(),
                        tally: b.tally,
                        elo: e.elo,
                        elo_error: e.error,
                        failures: b.failures,
                    }
                })
                .collect(),
            pairings: standings
                .groups
                .iter()
                .map(|g| {
                    g.bots
                        .iter()
                        .zip(&g.tallies)
                        .map(|(&b, &tally)| Member {
                            name: standings.bots[b].name.clone(),
                            tally,
                        })
                        .collect()
                })
                .collect(),
            sprt: standings.sprt().map(|s| {
                let (lower, upper) = s.params.bounds();
                let elo = s.pentanomial.elo();
                SprtResult {
                    elo0: s.params.elo0,
                    elo1: s.params.elo1,
                    alpha: s.params.alpha,
                    beta: s.params.beta,
                    llr: s.llr(),
                    lower,
                    upper,
                    pentanomial: s.pentanomial.counts,
                    elo: elo.elo,
                    elo_error: elo.error,
                    verdict: s.verdict(),
                    model: Sprt::MODEL,
                }
            }),
            pentanomial: standings.pentanomial().map(PentanomialResult::new),
        }
    }
}
