//! Building the exact classic database of a box: the value and the plies to the end of every
//! position, by one pass over the ranks in order.
//!
//! A position whose rank comes up unmarked is a loss for the player to move (a P-position):
//! every move from it leads to a win, because all its children have smaller ranks and any
//! child that was a loss would have marked it. Its plies are one more than the longest of its
//! children (the loser delays), and it then marks each of its parents as a win in one more ply
//! than itself, keeping the smallest (the winner hurries). P-positions are few (829,383 of the
//! 155 million inside 15×15), so the work is the enumeration of their parents, not of every
//! position's children.
//!
//! Plies count every selection up to and including the one that eats the poison, so a win has
//! an even number and a loss an odd one: one byte per position holds both.

use super::rank::Ranker;
use super::shape::MAX_SIDE;

/// Called now and then with the number of positions done.
pub type Progress<'a> = &'a mut dyn FnMut(u64);

/// How often [`build`] reports progress, in positions.
const PROGRESS_EVERY: u64 = 1 << 20;

/// The plies of every position in the box, indexed by rank (index 0, the empty board, is 0).
pub fn build(ranker: &Ranker, progress: Progress<'_>) -> Vec<u8> {
    let count = ranker.count() as usize;
    let mut plies = vec![0u8; count];
    let (rows, cols) = (ranker.rows(), ranker.cols());
    let mut a = [0usize; MAX_SIDE];
    // Rank 0 is the empty board; rank 1 is the poison alone.
    for x in 1..count {
        next_shape(&mut a, rows, cols);
        if (x as u64).is_multiple_of(PROGRESS_EVERY) {
            progress(x as u64);
        }
        if plies[x] != 0 {
            continue;
        }
        let p = 1 + longest_child(ranker, &a, rows, x as u64, &plies);
        plies[x] = p;
        let win = p.saturating_add(1);
        for_each_parent(ranker, &a, rows, cols, x as u64, &mut |q| {
            let slot = &mut plies[q as usize];
            if *slot == 0 || *slot > win {
                *slot = win;
            }
        });
    }
    progress(count as u64);
    plies
}

/// Moves `a` (row lengths, top first) to the position of the next rank.
#[inline]
fn next_shape(a: &mut [usize; MAX_SIDE], rows: usize, cols: usize) {
    for i in (0..rows).rev() {
        let cap = if i == 0 { cols } else { a[i - 1] };
        if a[i] < cap {
            a[i] += 1;
            for len in &mut a[i + 1..rows] {
                *len = 0;
            }
            return;
        }
    }
}

/// The most plies among the children of `a` (rank `x`) other than eating the poison; 0 when
/// only the poison is left.
fn longest_child(ranker: &Ranker, a: &[usize; MAX_SIDE], rows: usize, x: u64, plies: &[u8]) -> u8 {
    let mut longest = 0u8;
    for r in 0..rows {
        if a[r] == 0 {
            break;
        }
        for c in (0..a[r]).rev() {
            if r == 0 && c == 0 {
                continue;
            }
            let mut rank = x;
            let mut i = r;
            while i < rows && a[i] > c {
                rank -= ranker.weight(i, a[i]) - ranker.weight(i, c);
                i += 1;
            }
            longest = longest.max(plies[rank as usize]);
        }
    }
    longest
}

/// Calls `visit` with the rank of every position in the box that has a move to `a` (rank `x`).
///
/// A move (r, c) leaves row r exactly `c` long, rows below it at most `c`, and changes only the
/// rows r..=s that it cut to `c`. So the parents through row r are the child with rows r..=s
/// (the rows of length `c = a[r]` from r down) raised to any non-increasing lengths from `c`
/// up to the row above, row r above `c`.
fn for_each_parent(
    ranker: &Ranker,
    a: &[usize; MAX_SIDE],
    rows: usize,
    cols: usize,
    x: u64,
    visit: &mut dyn FnMut(u64),
) {
    for r in 0..rows {
        let c = a[r];
        let hi = if r == 0 { cols } else { a[r - 1] };
        if hi <= c {
            continue;
        }
        let mut s = r;
        while s + 1 < rows && a[s + 1] == c {
            s += 1;
        }
        raise(ranker, c, r, s, hi, x, visit);
    }
}

/// Enumerates row `i` of a parent raised above `c` (at most `hi`), and below it, rows up to `s`
/// raised or left at `c`.
fn raise(
    ranker: &Ranker,
    c: usize,
    i: usize,
    s: usize,
    hi: usize,
    base: u64,
    visit: &mut dyn FnMut(u64),
) {
    let floor = ranker.weight(i, c);
    for v in c + 1..=hi {
        let rank = base + ranker.weight(i, v) - floor;
        visit(rank);
        if i < s {
            raise(ranker, c, i + 1, s, v, rank, visit);
        }
    }
}
