//! Who meets whom, pure: the rounds of a round robin (every group of entrants once per
//! rotation of its seats), groups of entrants of about the same points who have not met (Swiss
//! rounds and arena pairings), byes, and a fair seat order within a group.

/// The rounds of a round robin of `n` entrants, `k` a game: every `k`-combination once per
/// cyclic rotation of its seats (so each entrant sits in each seat once against each group),
/// put in rounds where nobody plays twice. Each game is its entrants in seat order.
pub(crate) fn round_robin(n: usize, k: usize) -> Vec<Vec<Vec<usize>>> {
    let mut games = Vec::new();
    for group in combinations(n, k) {
        for r in 0..k {
            let mut seats = group.clone();
            seats.rotate_left(r);
            games.push(seats);
        }
    }
    let mut rounds: Vec<Vec<Vec<usize>>> = Vec::new();
    while !games.is_empty() {
        let mut busy = vec![false; n];
        let mut round = Vec::new();
        games.retain(|g| {
            if g.iter().any(|&e| busy[e]) {
                return true;
            }
            g.iter().for_each(|&e| busy[e] = true);
            round.push(g.clone());
            false
        });
        rounds.push(round);
    }
    rounds
}

/// Every `k`-combination of `0..n`, in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::with_capacity(k);
    fn go(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..n {
            cur.push(i);
            go(i + 1, n, k, cur, out);
            cur.pop();
        }
    }
    if k > 0 && k <= n {
        go(0, n, k, &mut cur, &mut out);
    }
    out
}

/// Steps the search for groups without a repeat may take before it settles for repeats.
const BUDGET: usize = 20_000;

/// Splits `ranked` (entrants, best first) into groups of `k`, taking each group from the best
/// still free and, where possible, nobody with someone they `met`; entrants left over (fewer
/// than `k`, or all when no group can be made) are in no group. When no split avoids every
/// repeat, groups are taken in rank order.
pub(crate) fn groups(
    ranked: &[usize],
    k: usize,
    met: &dyn Fn(usize, usize) -> bool,
) -> Vec<Vec<usize>> {
    if k == 0 || ranked.len() < k {
        return Vec::new();
    }
    let used = ranked.len() - ranked.len() % k;
    let pool = &ranked[..used];
    let mut search = Search {
        pool,
        k,
        met,
        taken: vec![false; pool.len()],
        out: Vec::new(),
        budget: BUDGET,
    };
    if search.split() {
        return search.out;
    }
    pool.chunks(k).map(<[usize]>::to_vec).collect()
}

/// A depth-first search for a split of `pool` into groups of `k` without a repeat.
struct Search<'a> {
    pool: &'a [usize],
    k: usize,
    met: &'a dyn Fn(usize, usize) -> bool,
    /// Which entrants of `pool` are in a group.
    taken: Vec<bool>,
    /// The groups made so far.
    out: Vec<Vec<usize>>,
    /// Steps left.
    budget: usize,
}

impl Search<'_> {
    /// Splits the untaken entrants; true when a split was found (it is in `out`).
    fn split(&mut self) -> bool {
        let Some(first) = self.taken.iter().position(|t| !t) else {
            return true;
        };
        self.taken[first] = true;
        let mut group = vec![self.pool[first]];
        let found = self.fill(&mut group, first + 1);
        self.taken[first] = false;
        found
    }

    /// Completes `group` with untaken entrants after index `from` that met nobody in it, then
    /// splits the rest; backtracks when that fails.
    fn fill(&mut self, group: &mut Vec<usize>, from: usize) -> bool {
        if group.len() == self.k {
            self.out.push(group.clone());
            if self.split() {
                return true;
            }
            self.out.pop();
            return false;
        }
        for i in from..self.pool.len() {
            if self.budget == 0 {
                return false;
            }
            self.budget -= 1;
            let e = self.pool[i];
            if self.taken[i] || group.iter().any(|&g| (self.met)(g, e)) {
                continue;
            }
            self.taken[i] = true;
            group.push(e);
            let found = self.fill(group, i + 1);
            group.pop();
            self.taken[i] = false;
            if found {
                return true;
            }
        }
        false
    }
}

/// The entrants of `ranked` (best first) who sit out a Swiss round of `k`-seat games: as many
/// as do not make a whole group, taken from the bottom, passing over whoever `had_bye` while
/// someone who has not is left.
pub(crate) fn byes(ranked: &[usize], k: usize, had_bye: &dyn Fn(usize) -> bool) -> Vec<usize> {
    let count = if k == 0 { 0 } else { ranked.len() % k };
    let mut out: Vec<usize> = ranked
        .iter()
        .rev()
        .copied()
        .filter(|&e| !had_bye(e))
        .take(count)
        .collect();
    for &e in ranked.iter().rev() {
        if out.len() == count {
            break;
        }
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// Orders a group's seats fairly: whoever has moved first least often sits first, and so on
/// (`firsts` counts each entrant's games in seat 0); ties keep the group's order.
pub(crate) fn seat_order(group: &mut [usize], firsts: &[u32]) {
    group.sort_by_key(|&e| firsts.get(e).copied().unwrap_or(0));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn a_round_robin_of_four_meets_every_pair_in_both_seat_orders_once() {
        let rounds = round_robin(4, 2);
        let games: Vec<Vec<usize>> = rounds.iter().flatten().cloned().collect();
        assert_eq!(games.len(), 12);
        let distinct: BTreeSet<Vec<usize>> = games.iter().cloned().collect();
        assert_eq!(distinct.len(), 12, "no game twice");
        for round in &rounds {
            let mut seen = BTreeSet::new();
            for e in round.iter().flatten() {
                assert!(seen.insert(*e), "nobody plays twice in a round: {round:?}");
            }
        }
    }

    #[test]
    fn a_three_seat_round_robin_rotates_each_group_through_every_seat() {
        let games: Vec<Vec<usize>> = round_robin(4, 3).into_iter().flatten().collect();
        assert_eq!(games.len(), 4 * 3);
        for e in 0..4 {
            for seat in 0..3 {
                let n = games.iter().filter(|g| g[seat] == e).count();
                assert_eq!(
                    n, 3,
                    "entrant {e} sits in seat {seat} once per group it is in"
                );
            }
        }
    }

    #[test]
    fn groups_avoid_repeats_even_when_rank_order_would_repeat() {
        // 0 met 1 and 2 met 3: rank order would pair them again.
        let met = |a: usize, b: usize| matches!((a.min(b), a.max(b)), (0, 1) | (2, 3));
        let g = groups(&[0, 1, 2, 3], 2, &met);
        assert_eq!(g, vec![vec![0, 2], vec![1, 3]]);
    }

    #[test]
    fn groups_repeat_only_when_nothing_else_is_possible() {
        let met = |_: usize, _: usize| true;
        assert_eq!(groups(&[3, 1, 2, 0], 2, &met), vec![vec![3, 1], vec![2, 0]]);
        let never = |_: usize, _: usize| false;
        assert_eq!(groups(&[3, 1, 2], 2, &never), vec![vec![3, 1]]);
        assert!(groups(&[3], 2, &never).is_empty());
    }

    #[test]
    fn byes_go_to_the_bottom_but_not_twice() {
        assert_eq!(byes(&[0, 1, 2, 3, 4], 2, &|_| false), vec![4]);
        assert_eq!(byes(&[0, 1, 2, 3, 4], 2, &|e| e == 4), vec![3]);
        assert_eq!(byes(&[0, 1, 2], 2, &|_| true), vec![2]);
        assert!(byes(&[0, 1, 2, 3], 2, &|_| false).is_empty());
    }

    #[test]
    fn whoever_moved_first_least_sits_first() {
        let mut g = vec![0, 1, 2];
        seat_order(&mut g, &[2, 0, 1]);
        assert_eq!(g, vec![1, 2, 0]);
    }
}
