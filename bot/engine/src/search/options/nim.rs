//! Edge breaks in misère play without the ban on square bites are Nim on four heaps: the rows
//! above and below the poison and the columns left and right of it. The seat facing heaps of
//! nim-sum zero loses (it is left with the poison alone at the end); any other seat wins by
//! making the nim-sum zero.

use jchomp_rules::{Bits, Cell, Config, Play, Position, Variant};

/// Whether `config` is Nim: edge breaks, misère play, square bites allowed.
pub(crate) fn applies(config: &Config) -> bool {
    config.variant() == Variant::Breaks
        && config.play() == Play::Misere
        && !config.no_square_bites()
}

/// The four heaps of `position`: uneaten rows above and below the poison, columns left and
/// right of it.
pub(crate) fn heaps(config: &Config, position: &Position) -> [u8; 4] {
    let Some(&p) = config.poison().first() else {
        return [0; 4];
    };
    let uneaten = position.uneaten();
    let run = |dr: i8, dc: i8| {
        let (mut r, mut c, mut n) = (p.row as i8 + dr, p.col as i8 + dc, 0);
        while r >= 0 && c >= 0 && uneaten.contains(Bits::index(r as u8, c as u8)) {
            n += 1;
            r += dr;
            c += dc;
        }
        n
    };
    [run(-1, 0), run(1, 0), run(0, -1), run(0, 1)]
}

/// Whether the seat to move wins, and a selection that leaves a nim-sum of zero (when it wins)
/// or takes one from the largest heap (when it loses; the poison itself when nothing is left).
pub(crate) fn best(config: &Config, position: &Position) -> Option<(bool, Cell)> {
    let &p = config.poison().first()?;
    let h = heaps(config, position);
    let sum = h.iter().fold(0, |s, &x| s ^ x);
    // The cell that leaves `keep` of heap `i`: the line just beyond the kept part.
    let cut = |i: usize, keep: u8| match i {
        0 => Cell::new(p.row - keep - 1, p.col),
        1 => Cell::new(p.row + keep + 1, p.col),
        2 => Cell::new(p.row, p.col - keep - 1),
        _ => Cell::new(p.row, p.col + keep + 1),
    };
    if sum != 0 {
        let i = (0..4).find(|&i| h[i] ^ sum < h[i])?;
        return Some((true, cut(i, h[i] ^ sum)));
    }
    let largest = (0..4).max_by_key(|&i| h[i])?;
    if h[largest] == 0 {
        return Some((false, p));
    }
    Some((false, cut(largest, h[largest] - 1)))
}
