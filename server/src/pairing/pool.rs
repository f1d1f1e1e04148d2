//! One pool's matching, pure: who waits ([`Waiter`]) and which groups a wave makes of them
//! ([`wave`]). Players are grouped by rating, each accepting a difference that widens the longer
//! they wait; one who allows bots and has waited past the patience is seated with bots.

use std::time::Duration;
use tokio::time::Instant;

/// The rules of a wave.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rules {
    /// The rating difference every waiter accepts at once.
    pub base: f64,
    /// How much that grows per second waited.
    pub widen_per_sec: f64,
    /// The most it grows to.
    pub widest: f64,
    /// How long a waiter who allows bots waits before bots take the empty seats.
    pub bot_patience: Duration,
}

impl Rules {
    /// ±100 at once (about a third of a newcomer's deviation: close games), widening by 25 a
    /// second to ±500 after 16 s: on a quiet server anyone is paired with anyone after a short
    /// wait rather than not at all. Bots after `bot_patience`.
    pub(crate) fn new(bot_patience: Duration) -> Rules {
        Rules {
            base: 100.0,
            widen_per_sec: 25.0,
            widest: 500.0,
            bot_patience,
        }
    }
}

/// One player waiting, as the wave sees them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Waiter {
    /// The rating on the pairing scale ([`super::scale`]).
    pub rating: f64,
    /// Since when they wait.
    pub since: Instant,
    /// Whether bots may take the seats nobody took.
    pub bots: bool,
}

impl Waiter {
    /// The rating difference this waiter accepts at `now`.
    fn window(&self, now: Instant, rules: &Rules) -> f64 {
        let waited = now.saturating_duration_since(self.since).as_secs_f64();
        (rules.base + rules.widen_per_sec * waited).min(rules.widest)
    }

    /// Whether bots may be seated with this waiter now.
    fn out_of_patience(&self, now: Instant, rules: &Rules) -> bool {
        self.bots && now.saturating_duration_since(self.since) >= rules.bot_patience
    }
}

/// A group a wave makes: the waiters it seats (indices into the pool) and how many seats bots
/// take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    /// The waiters, by index into the slice given to [`wave`], lowest rating first.
    pub waiters: Vec<usize>,
    /// Seats left for bots.
    pub bots: usize,
}

/// The groups one wave makes of `pool` for games of `players` seats at `now`: first whole
/// tables of people, neighbours by rating, whose spread every member accepts; then, of those
/// left who allow bots and have waited past the patience, neighbours that accept each other,
/// the rest of each table bots. Nobody is in two groups.
pub(crate) fn wave(pool: &[Waiter], players: usize, now: Instant, rules: &Rules) -> Vec<Group> {
    let players = players.max(1);
    let mut order: Vec<usize> = (0..pool.len()).collect();
    order.sort_by(|&a, &b| pool[a].rating.total_cmp(&pool[b].rating));
    let accepts = |members: &[usize]| {
        let (Some(&lo), Some(&hi)) = (members.first(), members.last()) else {
            return true;
        };
        let spread = pool[hi].rating - pool[lo].rating;
        members
            .iter()
            .all(|&m| spread <= pool[m].window(now, rules))
    };
    let mut groups = Vec::new();
    let mut left = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let end = i + players;
        if end <= order.len() && accepts(&order[i..end]) {
            groups.push(Group {
                waiters: order[i..end].to_vec(),
                bots: 0,
            });
            i = end;
        } else {
            left.push(order[i]);
            i += 1;
        }
    }
    let mut table: Vec<usize> = Vec::new();
    for w in left
        .into_iter()
        .filter(|&w| pool[w].out_of_patience(now, rules))
    {
        table.push(w);
        if table.len() > 1 && !accepts(&table) {
            table.pop();
            groups.push(with_bots(std::mem::take(&mut table), players));
            table.push(w);
        }
        if table.len() == players {
            groups.push(with_bots(std::mem::take(&mut table), players));
        }
    }
    if !table.is_empty() {
        groups.push(with_bots(table, players));
    }
    groups
}

/// A table of `waiters` with bots in the other seats.
fn with_bots(waiters: Vec<usize>, players: usize) -> Group {
    let bots = players.saturating_sub(waiters.len());
    Group { waiters, bots }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiter(rating: f64, waited_secs: u64, bots: bool, now: Instant) -> Waiter {
        Waiter {
            rating,
            since: now - Duration::from_secs(waited_secs),
            bots,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn close_ratings_meet_at_once_and_far_ones_once_they_have_waited() {
        let now = Instant::now() + Duration::from_secs(60);
        let rules = Rules::new(Duration::from_secs(20));
        let pool = [
            waiter(1500.0, 0, false, now),
            waiter(1900.0, 0, false, now),
            waiter(1550.0, 0, false, now),
        ];
        let groups = wave(&pool, 2, now, &rules);
        assert_eq!(
            groups,
            [Group {
                waiters: vec![0, 2],
                bots: 0
            }]
        );
        // 400 apart: neither accepts it at once; both do after 12 s (100 + 25 × 12).
        let pool = [waiter(1500.0, 0, false, now), waiter(1900.0, 0, false, now)];
        assert!(wave(&pool, 2, now, &rules).is_empty());
        let pool = [
            waiter(1500.0, 12, false, now),
            waiter(1900.0, 11, false, now),
        ];
        assert!(
            wave(&pool, 2, now, &rules).is_empty(),
            "one of them still refuses"
        );
        let pool = [
            waiter(1500.0, 12, false, now),
            waiter(1900.0, 12, false, now),
        ];
        assert_eq!(wave(&pool, 2, now, &rules).len(), 1);
        // Never more than the widest window.
        let pool = [
            waiter(1000.0, 600, false, now),
            waiter(1600.0, 600, false, now),
        ];
        assert!(wave(&pool, 2, now, &rules).is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn bots_fill_only_for_those_who_allowed_them_after_the_patience() {
        let now = Instant::now() + Duration::from_secs(60);
        let rules = Rules::new(Duration::from_secs(20));
        let pool = [
            waiter(1500.0, 25, true, now),
            waiter(2400.0, 25, false, now),
            waiter(1000.0, 5, true, now),
        ];
        let groups = wave(&pool, 4, now, &rules);
        assert_eq!(
            groups,
            [Group {
                waiters: vec![0],
                bots: 3
            }]
        );
        // Two who allow bots and accept each other share a table.
        let pool = [waiter(1500.0, 25, true, now), waiter(1560.0, 30, true, now)];
        assert_eq!(
            wave(&pool, 3, now, &rules),
            [Group {
                waiters: vec![0, 1],
                bots: 1
            }]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_crowd_is_seated_in_whole_tables_each_waiter_once() {
        let now = Instant::now() + Duration::from_secs(60);
        let rules = Rules::new(Duration::from_secs(20));
        let pool: Vec<Waiter> = (0..11)
            .map(|i| waiter(1400.0 + 20.0 * f64::from(i), 0, false, now))
            .collect();
        let groups = wave(&pool, 4, now, &rules);
        assert_eq!(groups.len(), 2);
        let mut seated: Vec<usize> = groups.iter().flat_map(|g| g.waiters.clone()).collect();
        seated.sort_unstable();
        seated.dedup();
        assert_eq!(seated.len(), 8);
        assert!(groups.iter().all(|g| g.bots == 0 && g.waiters.len() == 4));
    }
}
