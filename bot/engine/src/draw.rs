//! Start configurations drawn from a seed ([`draw`]): board size, eat size and poison cells,
//! each drawn unless fixed, under one variant and set of rule options. The offline tournaments
//! and the server's tournaments draw through this one function, so a seed names the same boards
//! in both.

use crate::rng::{Rng, derive_seed};
use jchomp_rules::{BOARD_SIZE, EAT_SIZE, MAX_POISON, Options, Setup, Variant};

/// What every draw keeps: the game and rule options, and the fields fixed instead of drawn.
#[derive(Clone, Copy, Debug)]
pub struct Fixed<'a> {
    /// JChomp, classic Chomp or edge breaks.
    pub variant: Variant,
    /// Misère or normal play, and the ban on square bites.
    pub options: Options,
    /// Board size `[rows, cols]`, or drawn (4–15 each).
    pub size: Option<[i64; 2]>,
    /// Eat size `[rows, cols]`, or drawn in JChomp (1–3 each; never square under
    /// `no_square_bites`).
    pub eat: Option<[i64; 2]>,
    /// Poison cells, or (if empty) 1–4 cells drawn anywhere on the board (one in edge breaks).
    pub poison: &'a [[i64; 2]],
}

/// The unvalidated setup number `round` drawn from `seed` for `players` seats: the same
/// arguments give the same setup on every build and platform.
pub fn draw(fixed: &Fixed<'_>, players: u8, seed: u64, round: u64) -> Setup {
    let mut rng = Rng::new(derive_seed(seed, round, u64::MAX));
    let [rows, cols] = fixed
        .size
        .unwrap_or_else(|| draw_size(&mut rng, fixed.poison));
    let eat = draw_eat(&mut rng, fixed.variant, fixed.options, fixed.eat);
    let poison = if fixed.poison.is_empty() {
        draw_poison(&mut rng, fixed.variant, rows, cols)
    } else {
        fixed.poison.to_vec()
    };
    Setup {
        rows,
        cols,
        players: i64::from(players),
        variant: fixed.variant,
        eat,
        poison,
        options: fixed.options,
    }
}

/// A number in `lo..=hi` (`lo <= hi`).
fn between(rng: &mut Rng, lo: i64, hi: i64) -> i64 {
    lo + rng.below((hi - lo + 1) as u64) as i64
}

/// A drawn board size, 4–15 each way, with room for the fixed `poison` cells.
fn draw_size(rng: &mut Rng, poison: &[[i64; 2]]) -> [i64; 2] {
    let (lo, hi) = (i64::from(BOARD_SIZE.0), i64::from(BOARD_SIZE.1));
    let least = |axis: usize| {
        poison
            .iter()
            .map(|p| p[axis] + 1)
            .max()
            .unwrap_or(lo)
            .clamp(lo, hi)
    };
    let (min_row, min_col) = (least(0), least(1));
    [between(rng, min_row, hi), between(rng, min_col, hi)]
}

/// The eat size: the fixed one, or one drawn in JChomp (1–3 each way, never square when
/// square bites are banned). Classic Chomp and edge breaks have none: none is drawn, and a
/// fixed one is kept for the rules to refuse.
fn draw_eat(
    rng: &mut Rng,
    variant: Variant,
    options: Options,
    fixed: Option<[i64; 2]>,
) -> Option<[i64; 2]> {
    if fixed.is_some() || !variant.is_jchomp() {
        return fixed;
    }
    let (lo, hi) = (i64::from(EAT_SIZE.0), i64::from(EAT_SIZE.1));
    loop {
        let eat = [between(rng, lo, hi), between(rng, lo, hi)];
        if !(options.no_square_bites && eat[0] == eat[1]) {
            return Some(eat);
        }
    }
}

/// Distinct poison cells drawn anywhere on a `rows`×`cols` board: 1–4 of them, or the one an
/// edge-breaks game has.
fn draw_poison(rng: &mut Rng, variant: Variant, rows: i64, cols: i64) -> Vec<[i64; 2]> {
    let cells = (rows.max(1) * cols.max(1)).max(1);
    let count = match variant {
        Variant::Breaks => 1,
        Variant::JChomp | Variant::Classic => {
            between(rng, 1, MAX_POISON.min(cells as usize) as i64)
        }
    };
    let mut chosen: Vec<[i64; 2]> = Vec::new();
    while (chosen.len() as i64) < count {
        let k = rng.below(cells as u64) as i64;
        let cell = [k / cols.max(1), k % cols.max(1)];
        if !chosen.contains(&cell) {
            chosen.push(cell);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_rules::Config;

    #[test]
    fn every_draw_is_valid_and_the_same_seed_draws_the_same_board() {
        let fixed = Fixed {
            variant: Variant::JChomp,
            options: Options::default(),
            size: None,
            eat: None,
            poison: &[],
        };
        for round in 0..100 {
            let setup = draw(&fixed, 2, 11, round);
            assert!(Config::new(&setup).is_ok(), "{setup:?}");
            assert_eq!(setup, draw(&fixed, 2, 11, round));
        }
        assert_ne!(draw(&fixed, 2, 11, 0), draw(&fixed, 2, 12, 0));
    }
}
