//! Standings: per bot games, wins, ties, losses, score and failures; per group of bots that met
//! (a pairing, for two players) the same tally; each bot's head-to-head scores against the first
//! bot, for Elo; and, in a two-bot match, the pairs of games of the pentanomial model (which the
//! SPRT decides on). Scores come from [`jchomp_engine::scoring`], the one definition.

use super::elo::{self, Estimate, Samples};
use super::pentanomial::{Pairs, Pentanomial};
use super::schedule::{Schedule, Slot};
use super::sprt::{Sprt, SprtParams};
use jchomp_engine::arena::Failure;
use jchomp_engine::scoring::seat_score;
use jchomp_rules::{GameResult, Seat};
use serde::Serialize;

/// Games, wins, ties, losses and score of one bot (overall or within one group). A win is a
/// game scored 1, a tie one scored 1/2, a loss one scored 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Games played.
    pub games: u64,
    /// Games scored 1.
    pub wins: u64,
    /// Games scored 1/2.
    pub ties: u64,
    /// Games scored 0.
    pub losses: u64,
    /// Sum of the scores.
    pub score: f64,
}

impl Tally {
    fn add(&mut self, score: f64) {
        self.games += 1;
        self.score += score;
        if score >= 1.0 {
            self.wins += 1;
        } else if score > 0.0 {
            self.ties += 1;
        } else {
            self.losses += 1;
        }
    }

    /// Score as a fraction of the games (0 with no game).
    pub fn fraction(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.score / self.games as f64
        }
    }
}

/// Games a participant lost by failing, by kind (named as [`Failure::name`] names them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Failures {
    /// Panics, or an engine that exited.
    pub crash: u64,
    /// No selection, or an invalid one.
    pub illegal: u64,
    /// Answers after the time limit.
    pub overtime: u64,
    /// `isready` unanswered.
    pub hung: u64,
    /// A `bestmove` that does not read.
    pub malformed: u64,
    /// Too long a line, or too much output in one search.
    pub flood: u64,
    /// An engine that could not be started.
    pub start: u64,
    /// An engine that did not complete its handshake.
    pub handshake: u64,
}

impl Failures {
    /// The count of one kind.
    fn count(&mut self, kind: Failure) -> &mut u64 {
        match kind {
            Failure::Crash => &mut self.crash,
            Failure::Illegal => &mut self.illegal,
            Failure::Overtime => &mut self.overtime,
            Failure::Hung => &mut self.hung,
            Failure::Malformed => &mut self.malformed,
            Failure::Flood => &mut self.flood,
            Failure::Start => &mut self.start,
            Failure::Handshake => &mut self.handshake,
        }
    }

    /// The kinds that happened, in words: `2 crash, 1 hung`; empty if none.
    pub fn describe(&self) -> String {
        let mut copy = *self;
        Failure::ALL
            .into_iter()
            .filter_map(|kind| {
                let n = *copy.count(kind);
                (n > 0).then(|| format!("{n} {}", kind.name()))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One bot's line of the standings.
#[derive(Clone, Debug, PartialEq)]
pub struct BotLine {
    /// Its name.
    pub name: String,
    /// Its results.
    pub tally: Tally,
    /// Games it lost by failing.
    pub failures: Failures,
    /// Its head-to-head scores against the first bot (empty for the first bot).
    pub vs_first: Samples,
}

impl BotLine {
    /// Its Elo relative to the first bot, with a 95% error bar (0 ± 0 for the first bot).
    pub fn elo(&self, is_first: bool) -> Estimate {
        if is_first {
            Estimate {
                elo: Some(0.0),
                error: Some(0.0),
            }
        } else {
            elo::estimate(&self.vs_first)
        }
    }
}

/// The results of one group of bots that met (for two players, a pairing).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupLine {
    /// The bots, by index.
    pub bots: Vec<usize>,
    /// Each bot's results within the group, in the order of `bots`.
    pub tallies: Vec<Tally>,
}

/// The running standings of a tournament.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    /// Games counted.
    pub games: u64,
    /// One line per bot, in the order the bots were given.
    pub bots: Vec<BotLine>,
    /// One line per group, in schedule order.
    pub groups: Vec<GroupLine>,
    /// The SPRT's parameters, if one runs.
    sprt: Option<SprtParams>,
    /// The pairs of games, in a two-bot match.
    pairs: Option<Pairs>,
}

impl Standings {
    /// Empty standings for these bots and schedule.
    pub fn new(names: &[String], schedule: &Schedule, sprt: Option<SprtParams>) -> Standings {
        Standings {
            games: 0,
            bots: names
                .iter()
                .map(|name| BotLine {
                    name: name.clone(),
                    tally: Tally::default(),
                    failures: Failures::default(),
                    vs_first: Samples::default(),
                })
                .collect(),
            groups: schedule
                .groups()
                .iter()
                .map(|g| GroupLine {
                    bots: g.clone(),
                    tallies: vec![Tally::default(); g.len()],
                })
                .collect(),
            sprt,
            // Two bots: one group, played in both seat orders per start configuration.
            pairs: (names.len() == 2 && schedule.orders_per_group() == 2).then(Pairs::default),
        }
    }

    /// The complete pairs of games of a two-bot match (`None` with more bots).
    pub fn pentanomial(&self) -> Option<Pentanomial> {
        self.pairs.map(|p| p.counts)
    }

    /// The SPRT, if one runs, on the pairs so far.
    pub fn sprt(&self) -> Option<Sprt> {
        Some(Sprt {
            params: self.sprt?,
            pentanomial: self.pentanomial().unwrap_or_default(),
        })
    }

    /// Counts one finished game. Games must be added in index order (the pairs are made of
    /// consecutive games).
    pub fn add(&mut self, slot: &Slot, result: GameResult, failure: Option<(Seat, Failure)>) {
        self.games += 1;
        let scores: Vec<f64> = (0..slot.seats.len())
            .map(|s| seat_score(result, s as Seat))
            .collect();
        let first_seat = slot.seats.iter().position(|&b| b == 0);
        for (seat, &bot) in slot.seats.iter().enumerate() {
            self.bots[bot].tally.add(scores[seat]);
            if let Some(group) = self.groups.get_mut(slot.group)
                && let Some(k) = group.bots.iter().position(|&b| b == bot)
            {
                group.tallies[k].add(scores[seat]);
            }
            if let Some(f) = first_seat
                && bot != 0
            {
                let h2h = match scores[seat].partial_cmp(&scores[f]) {
                    Some(std::cmp::Ordering::Greater) => 1.0,
                    Some(std::cmp::Ordering::Less) => 0.0,
                    _ => 0.5,
                };
                self.bots[bot].vs_first.add(h2h);
            }
        }
        if let Some((seat, kind)) = failure
            && let Some(&bot) = slot.seats.get(usize::from(seat))
        {
            *self.bots[bot].failures.count(kind) += 1;
        }
        if let (Some(pairs), Some(f)) = (&mut self.pairs, first_seat) {
            pairs.add(slot.round, slot.rotation, scores[f]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::sprt::SprtParams;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("bot{i}")).collect()
    }

    #[test]
    fn two_player_arithmetic() {
        let schedule = Schedule::new(2, 2, false);
        let mut st = Standings::new(&names(2), &schedule, Some(SprtParams::default()));
        // Game 0: bot0 in seat 0, bot1 eats poison. Game 1 (swapped): a tie.
        st.add(&schedule.slot(0), GameResult::Poisoned { loser: 1 }, None);
        st.add(&schedule.slot(1), GameResult::Tie, None);
        // Game 2: bot0 times out in seat 0. Game 3: bot1 (seat 0) crashes.
        st.add(
            &schedule.slot(2),
            GameResult::Timeout { loser: 0 },
            Some((0, Failure::Overtime)),
        );
        st.add(
            &schedule.slot(3),
            GameResult::Abandoned { loser: 0 },
            Some((0, Failure::Crash)),
        );
        let a = &st.bots[0];
        assert_eq!(
            (a.tally.games, a.tally.wins, a.tally.ties, a.tally.losses),
            (4, 2, 1, 1)
        );
        assert_eq!(a.tally.score, 2.5);
        assert_eq!(a.failures.overtime, 1);
        let b = &st.bots[1];
        assert_eq!((b.tally.wins, b.tally.ties, b.tally.losses), (1, 1, 2));
        assert_eq!(b.tally.score, 1.5);
        assert_eq!(b.failures.crash, 1);
        assert_eq!(b.vs_first.n, 4);
        assert_eq!(b.vs_first.sum, 1.5);
        assert_eq!(st.groups[0].tallies[0].score, 2.5);
        // Pairs: 1 + 0.5 = 1.5 points, then 0 + 1 = 1 point.
        assert_eq!(st.sprt().unwrap().pentanomial.counts, [0, 0, 1, 1, 0]);
        assert_eq!(st.bots[0].elo(true).elo, Some(0.0));
    }

    #[test]
    fn three_player_arithmetic() {
        let schedule = Schedule::new(4, 3, false);
        let mut st = Standings::new(&names(4), &schedule, None);
        // Group 0 = bots 0,1,2; rotation 1 seats 1,2,0; seat 2 (bot 0) eats poison.
        st.add(&schedule.slot(1), GameResult::Poisoned { loser: 2 }, None);
        // Group 3 = bots 1,2,3, rotation 0; a tie.
        st.add(&schedule.slot(9), GameResult::Tie, None);
        assert_eq!(st.bots[0].tally.losses, 1);
        assert_eq!(st.bots[1].tally.score, 1.5);
        assert_eq!(st.bots[3].tally.ties, 1);
        // Against the first bot: bots 1 and 2 each beat it once; bot 3 never met it.
        assert_eq!(st.bots[1].vs_first.sum, 1.0);
        assert_eq!(st.bots[2].vs_first.n, 1);
        assert_eq!(st.bots[3].vs_first.n, 0);
        assert_eq!(st.groups[3].tallies, vec![st.groups[3].tallies[0]; 3]);
        assert_eq!(st.games, 2);
    }

    #[test]
    fn pairs_are_counted_for_two_bots_only_and_once_complete() {
        let schedule = Schedule::new(2, 2, false);
        let mut st = Standings::new(&names(2), &schedule, None);
        assert_eq!(st.sprt(), None);
        st.add(&schedule.slot(0), GameResult::Poisoned { loser: 1 }, None);
        // The first game of a pair is not counted on its own.
        assert_eq!(st.pentanomial().unwrap().pairs(), 0);
        // Game 1 swaps the seats: bot 0 sits in seat 1 and wins again: 2 points.
        st.add(&schedule.slot(1), GameResult::Poisoned { loser: 0 }, None);
        st.add(&schedule.slot(2), GameResult::Tie, None);
        assert_eq!(st.pentanomial().unwrap().counts, [0, 0, 0, 0, 1]);
        // Three bots, in two seats or three: no pairs.
        for players in [2, 3] {
            let schedule = Schedule::new(3, players, false);
            let mut st = Standings::new(&names(3), &schedule, None);
            st.add(&schedule.slot(0), GameResult::Tie, None);
            st.add(&schedule.slot(1), GameResult::Tie, None);
            assert_eq!(st.pentanomial(), None);
        }
    }
}
