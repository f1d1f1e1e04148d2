//! Who plays game number `i`: the groups of bots (round robin or gauntlet), the seat orders
//! of each group (its cyclic rotations, or every order), and the seeds derived from the game
//! index.
//!
//! Games are numbered round by round; within a round, group by group; within a group, one game
//! per seat order. All games of a round share one start configuration, so each group plays
//! it in every seat order and the first-move advantage cancels out.
//!
//! With three or four seats, rotations keep the cyclic order of the bots: who moves right after
//! whom never changes, and in JChomp that decides much (a seat's immediate win makes the *next*
//! seat lose). [`Seating::All`] plays every order, so each bot follows each other bot equally
//! often.

pub use jchomp_engine::rng::derive_seed;
use serde::{Deserialize, Serialize};

/// Which seat orders each group plays per start configuration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seating {
    /// The cyclic rotations of the group's order: one per seat (2, 3 or 4 games).
    #[default]
    Rotations,
    /// Every order of the group's bots: 2, 6 or 24 games. The same as rotations for two seats.
    All,
}

impl Seating {
    /// Parses `rotations` or `all`.
    pub fn parse(text: &str) -> Result<Seating, String> {
        match text {
            "rotations" => Ok(Seating::Rotations),
            "all" => Ok(Seating::All),
            _ => Err(format!("seating must be rotations or all, got {text:?}")),
        }
    }

    /// The seat orders of a group of `n` bots: each a list of positions in the group, seat 0
    /// first; the group's own order comes first.
    fn orders(self, n: usize) -> Vec<Vec<usize>> {
        match self {
            Seating::Rotations => (0..n)
                .map(|r| (0..n).map(|s| (s + r) % n).collect())
                .collect(),
            Seating::All => permutations(n),
        }
    }
}

/// Every order of `0..n`, in lexicographic order (the identity first).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for first in 0..n {
        for rest in permutations(n - 1) {
            let mut order = vec![first];
            order.extend(rest.into_iter().map(|x| if x >= first { x + 1 } else { x }));
            out.push(order);
        }
    }
    out
}

/// One game of the schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The game's index, from 0.
    pub index: u64,
    /// Its round (which start configuration it uses).
    pub round: u64,
    /// Its group of bots (index into [`Schedule::groups`]).
    pub group: usize,
    /// Its seat order within the group (0 = the group's own order; with two seats, 1 = the
    /// swapped order).
    pub rotation: usize,
    /// The bot (index into the tournament's bots) in each seat, seat 0 first.
    pub seats: Vec<usize>,
}

/// The groups of bots that meet, and the numbering of games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    groups: Vec<Vec<usize>>,
    orders: Vec<Vec<usize>>,
    /// Every game in index order, when the games were listed (by a server that ran the
    /// tournament) rather than numbered by rule.
    listed: Option<Vec<Slot>>,
}

/// Every `k`-element subset of `items`, in lexicographic order.
fn combinations(items: &[usize], k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        if items.len() - i < k {
            break;
        }
        for mut rest in combinations(&items[i + 1..], k - 1) {
            rest.insert(0, first);
            out.push(rest);
        }
    }
    out
}

impl Schedule {
    /// The schedule of `bots` bots in `players`-seat games: round robin (every combination of
    /// `players` bots) or gauntlet (bot 0 with every combination of `players - 1` others), each
    /// group in its seat rotations.
    pub fn new(bots: usize, players: u8, gauntlet: bool) -> Schedule {
        Schedule::with_seating(bots, players, gauntlet, Seating::Rotations)
    }

    /// The same with the seat orders of `seating`.
    pub(crate) fn with_seating(
        bots: usize,
        players: u8,
        gauntlet: bool,
        seating: Seating,
    ) -> Schedule {
        let players = usize::from(players).max(1);
        let groups = if gauntlet {
            let others: Vec<usize> = (1..bots).collect();
            combinations(&others, players - 1)
                .into_iter()
                .map(|mut g| {
                    g.insert(0, 0);
                    g
                })
                .collect()
        } else {
            combinations(&(0..bots).collect::<Vec<_>>(), players)
        };
        Schedule {
            groups,
            orders: seating.orders(players),
            listed: None,
        }
    }

    /// The schedule of games listed one by one, each the participants (by index) in seat
    /// order, all of one start configuration: their groups are the sets of participants that
    /// met, in order of their first game, and a game's seat order is its place among every
    /// order of its group (so, with two seats, 0 or 1 as in a numbered schedule).
    pub(crate) fn listed(players: u8, games: &[Vec<usize>]) -> Schedule {
        let orders = Seating::All.orders(usize::from(players).max(1));
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut slots = Vec::with_capacity(games.len());
        for (index, seats) in games.iter().enumerate() {
            let mut members = seats.clone();
            members.sort_unstable();
            let group = match groups.iter().position(|g| *g == members) {
                Some(g) => g,
                None => {
                    groups.push(members.clone());
                    groups.len() - 1
                }
            };
            let order: Vec<usize> = seats
                .iter()
                .map(|b| members.iter().position(|m| m == b).unwrap_or(0))
                .collect();
            slots.push(Slot {
                index: index as u64,
                round: 0,
                group,
                rotation: orders.iter().position(|o| *o == order).unwrap_or(0),
                seats: seats.clone(),
            });
        }
        Schedule {
            groups,
            orders,
            listed: Some(slots),
        }
    }

    /// The groups of bots, each listed in its rotation-0 seat order.
    pub fn groups(&self) -> &[Vec<usize>] {
        &self.groups
    }

    /// Games each group plays per start configuration: one per seat order.
    pub(crate) fn orders_per_group(&self) -> u64 {
        self.orders.len() as u64
    }

    /// Games in one round: one per group and seat order.
    pub(crate) fn games_per_round(&self) -> u64 {
        (self.groups.len() * self.orders.len()) as u64
    }

    /// The game with this index (of a listed schedule, past its last game: one with no seats).
    pub fn slot(&self, index: u64) -> Slot {
        if let Some(listed) = &self.listed {
            let past = || Slot {
                index,
                round: 0,
                group: 0,
                rotation: 0,
                seats: Vec::new(),
            };
            return usize::try_from(index)
                .ok()
                .and_then(|i| listed.get(i).cloned())
                .unwrap_or_else(past);
        }
        let per_round = self.games_per_round().max(1);
        let within = (index % per_round) as usize;
        let orders = self.orders.len().max(1);
        let group = within / orders;
        let rotation = within % orders;
        let members = &self.groups[group.min(self.groups.len().saturating_sub(1))];
        let seats = self.orders[rotation].iter().map(|&k| members[k]).collect();
        Slot {
            index,
            round: index / per_round,
            group,
            rotation,
            seats,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_and_gauntlet_groups() {
        assert_eq!(
            Schedule::new(3, 2, false).groups(),
            &[vec![0, 1], vec![0, 2], vec![1, 2]]
        );
        assert_eq!(Schedule::new(4, 3, false).groups().len(), 4);
        assert_eq!(Schedule::new(5, 4, false).groups().len(), 5);
        assert_eq!(
            Schedule::new(4, 2, true).groups(),
            &[vec![0, 1], vec![0, 2], vec![0, 3]]
        );
        assert_eq!(
            Schedule::new(4, 3, true).groups(),
            &[vec![0, 1, 2], vec![0, 1, 3], vec![0, 2, 3]]
        );
    }

    #[test]
    fn every_rotation_puts_each_bot_in_each_seat_once() {
        let s = Schedule::new(4, 4, false);
        let seats: Vec<Vec<usize>> = (0..4).map(|i| s.slot(i).seats).collect();
        assert_eq!(
            seats,
            vec![
                vec![0, 1, 2, 3],
                vec![1, 2, 3, 0],
                vec![2, 3, 0, 1],
                vec![3, 0, 1, 2]
            ]
        );
        for seat in 0..4 {
            let mut bots: Vec<usize> = seats.iter().map(|g| g[seat]).collect();
            bots.sort();
            assert_eq!(bots, vec![0, 1, 2, 3]);
        }
        let two = Schedule::new(3, 2, false);
        let slots: Vec<Slot> = (0..7).map(|i| two.slot(i)).collect();
        assert_eq!(slots[0].seats, vec![0, 1]);
        assert_eq!(slots[1].seats, vec![1, 0]);
        assert_eq!(slots[5].seats, vec![2, 1]);
        assert_eq!(
            (slots[5].round, slots[5].group, slots[5].rotation),
            (0, 2, 1)
        );
        assert_eq!(
            (slots[6].round, slots[6].group, slots[6].seats.clone()),
            (1, 0, vec![0, 1])
        );
    }

    #[test]
    fn every_order_puts_each_bot_after_each_other_bot_equally_often() {
        let s = Schedule::with_seating(3, 3, false, Seating::All);
        assert_eq!(s.games_per_round(), 6);
        let seats: Vec<Vec<usize>> = (0..6).map(|i| s.slot(i).seats).collect();
        assert_eq!(seats[0], vec![0, 1, 2]);
        let mut sorted = seats.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 6, "six distinct orders: {seats:?}");
        // Rotations never seat bot 0 right after bot 1; every order does, in half the games.
        let follows = |seats: &[Vec<usize>], a: usize, b: usize| {
            seats
                .iter()
                .filter(|g| (0..3).any(|i| g[i] == b && g[(i + 1) % 3] == a))
                .count()
        };
        let rotations: Vec<Vec<usize>> = (0..3)
            .map(|i| Schedule::new(3, 3, false).slot(i).seats)
            .collect();
        assert_eq!(follows(&rotations, 0, 1), 0);
        assert_eq!(follows(&rotations, 1, 0), 3);
        for (a, b) in [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)] {
            assert_eq!(follows(&seats, a, b), 3);
        }
        let four = Schedule::with_seating(5, 4, false, Seating::All);
        assert_eq!(four.games_per_round(), 5 * 24);
        assert_eq!(four.slot(24).group, 1);
        // Two seats: both seatings are the same two games.
        assert_eq!(
            Schedule::with_seating(3, 2, false, Seating::All),
            Schedule::new(3, 2, false)
        );
        assert_eq!(Seating::parse("all"), Ok(Seating::All));
        assert!(
            Seating::parse("cyclic")
                .unwrap_err()
                .contains("rotations or all")
        );
    }

    #[test]
    fn listed_games_keep_their_seats_and_are_grouped_by_who_met() {
        let s = Schedule::listed(2, &[vec![0, 1], vec![2, 0], vec![1, 0], vec![0, 2]]);
        assert_eq!(s.groups(), &[vec![0, 1], vec![0, 2]]);
        let slots: Vec<Slot> = (0..4).map(|i| s.slot(i)).collect();
        assert_eq!(slots[1].seats, vec![2, 0]);
        assert_eq!(
            slots
                .iter()
                .map(|s| (s.group, s.rotation))
                .collect::<Vec<_>>(),
            vec![(0, 0), (1, 1), (0, 1), (1, 0)]
        );
        assert!(slots.iter().all(|s| s.round == 0));
        assert_eq!(s.orders_per_group(), 2);
        assert!(s.slot(4).seats.is_empty());
        let three = Schedule::listed(3, &[vec![2, 0, 1], vec![0, 1, 3]]);
        assert_eq!(three.groups(), &[vec![0, 1, 2], vec![0, 1, 3]]);
        assert_eq!(three.slot(0).seats, vec![2, 0, 1]);
        assert_ne!(three.slot(0).rotation, three.slot(1).rotation);
    }

    #[test]
    fn seeds_depend_on_every_input_only() {
        assert_eq!(derive_seed(1, 2, 3), derive_seed(1, 2, 3));
        assert_ne!(derive_seed(1, 2, 3), derive_seed(1, 3, 2));
        assert_ne!(derive_seed(1, 2, 3), derive_seed(2, 2, 3));
    }
}
