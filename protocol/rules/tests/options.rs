//! The configuration options one by one: perft against the brute-force model for each, edge
//! breaks against Nim on every board inside 15×15 with every poison placement, the seeds'
//! example games in normal play and with square bites banned, the order of the checks and the
//! configurations refused in words.

use jchomp_rules::{Bits, Cell, Config, GameResult, Position, Rejection, Status, perft};
use jchomp_testkit::model::Model;
use jchomp_testkit::side_by_side::play;
use jchomp_testkit::{board, seeds};
use std::collections::HashMap;

/// perft from the engine equals perft from the model, option by option.
#[test]
fn perft_agrees_with_the_model_for_each_option() {
    let cases = [
        // Normal play.
        ("3x5 variant classic poison 0,0 play normal", 4),
        (
            "4x5 variant classic poison 2,3 poison 0,4 play normal players 3",
            4,
        ),
        ("5x6 eat 1x2 poison 2,2 play normal", 3),
        ("4x4 eat 2x2 poison 0,0 poison 3,3 play normal players 4", 4),
        // Square bites banned.
        ("4x4 variant classic poison 0,0 no_square_bites", 5),
        (
            "3x5 variant classic poison 1,2 poison 0,0 no_square_bites players 3",
            5,
        ),
        ("5x6 eat 1x2 poison 0,0 no_square_bites", 3),
        ("4x6 eat 3x2 poison 3,5 no_square_bites", 4),
        // Edge breaks.
        ("3x5 variant breaks poison 1,2", 5),
        ("6x7 variant breaks poison 0,0 players 3", 5),
        ("15x15 variant breaks poison 7,7", 3),
        ("1x2 variant breaks poison 0,1", 3),
        // Combined.
        (
            "5x5 variant breaks poison 2,1 play normal no_square_bites",
            5,
        ),
        (
            "4x4 variant classic poison 0,0 play normal no_square_bites",
            5,
        ),
        (
            "4x5 eat 1x3 poison 1,1 play normal no_square_bites players 3",
            3,
        ),
    ];
    for (notation, depth) in cases {
        let config = board(notation);
        let start = Position::start(&config);
        for d in 0..=depth {
            assert_eq!(
                perft(&config, &start, d),
                Model::start(&config).perft(d),
                "{notation} depth {d}"
            );
        }
    }
}

/// Breaks by hand: the moves are the cells of the poison's cross, one per line of the bar and
/// the poison itself.
#[test]
fn breaks_perft_by_hand() {
    let config = board("3x5 variant breaks poison 1,2");
    let start = Position::start(&config);
    // 2 rows and 4 columns to break, plus the poison.
    assert_eq!(perft(&config, &start, 1), 7);
    assert_eq!(
        start.selections(),
        Bits::rect(1, 0, 1, 5) | Bits::rect(0, 2, 3, 1)
    );
}

/// The distances from the poison to the four edges of the bar that `uneaten` is.
fn heaps(uneaten: Bits, poison: Cell) -> [u8; 4] {
    let cells: Vec<Cell> = uneaten.iter().map(Cell::from_index).collect();
    let top = cells.iter().map(|c| c.row).min().unwrap_or(poison.row);
    let bottom = cells.iter().map(|c| c.row).max().unwrap_or(poison.row);
    let left = cells.iter().map(|c| c.col).min().unwrap_or(poison.col);
    let right = cells.iter().map(|c| c.col).max().unwrap_or(poison.col);
    [
        poison.row - top,
        bottom - poison.row,
        poison.col - left,
        right - poison.col,
    ]
}

/// Whether the seat to move wins (two players), by the engine's moves and results alone,
/// memoised by the bar's four distances.
fn wins(config: &Config, position: &Position, memo: &mut HashMap<[u8; 4], bool>) -> bool {
    let key = heaps(position.uneaten(), config.poison()[0]);
    if let Some(&w) = memo.get(&key) {
        return w;
    }
    let w = position
        .selections()
        .iter()
        .any(|i| winning(config, position, Cell::from_index(i), memo));
    memo.insert(key, w);
    w
}

/// Whether the selection at `cell` wins for the seat making it.
fn winning(
    config: &Config,
    position: &Position,
    cell: Cell,
    memo: &mut HashMap<[u8; 4], bool>,
) -> bool {
    let mut child = *position;
    child.play(config, cell);
    match child.status() {
        Status::Over(GameResult::Poisoned { .. }) => false,
        Status::Over(other) => panic!("a misère break ended with {other:?}"),
        Status::ToMove(_) => !wins(config, &child, memo),
    }
}

/// The breaks that leave the four distances with XOR zero.
fn nim_moves(poison: Cell, h: [u8; 4]) -> Vec<Cell> {
    let x = h.iter().fold(0, |a, b| a ^ b);
    let mut out = Vec::new();
    for (side, &heap) in h.iter().enumerate() {
        let left = heap ^ x;
        if x == 0 || left >= heap {
            continue;
        }
        // Leaving `left` cells on that side: the first line beyond them is broken off.
        out.push(match side {
            0 => Cell::new(poison.row - left - 1, poison.col),
            1 => Cell::new(poison.row + left + 1, poison.col),
            2 => Cell::new(poison.row, poison.col - left - 1),
            _ => Cell::new(poison.row, poison.col + left + 1),
        });
    }
    out.sort();
    out
}

/// Edge breaks are Nim on the four distances from the poison to the edges: on every board from
/// 1×2 to 15×15 with the poison on every cell, the engine's value for the seat to move is a win
/// exactly when their XOR is not zero, and its winning breaks are exactly those leaving XOR zero.
#[test]
fn breaks_are_nim_on_every_board_and_poison_placement() {
    let mut memo = HashMap::new();
    let mut boards = 0;
    for rows in 1..=15u8 {
        for cols in 1..=15u8 {
            if rows * cols < 2 {
                continue;
            }
            for pr in 0..rows {
                for pc in 0..cols {
                    let config = board(&format!("{rows}x{cols} variant breaks poison {pr},{pc}"));
                    let start = Position::start(&config);
                    let poison = Cell::new(pr, pc);
                    let h = [pr, rows - 1 - pr, pc, cols - 1 - pc];
                    let xor = h.iter().fold(0, |a, b| a ^ b);
                    assert_eq!(wins(&config, &start, &mut memo), xor != 0, "{config}");
                    let mut winners: Vec<Cell> = start
                        .selections()
                        .iter()
                        .map(Cell::from_index)
                        .filter(|&c| winning(&config, &start, c, &mut memo))
                        .collect();
                    winners.sort();
                    assert_eq!(winners, nim_moves(poison, h), "{config}");
                    boards += 1;
                }
            }
        }
    }
    // Every (rows, cols, poison) but the lone 1×1: (1 + … + 15)² − 1.
    assert_eq!(boards, 120 * 120 - 1);
}

/// The standard bar's example game in normal play: the same bites, and the first player, who
/// eats the marked counter last, wins.
#[test]
fn the_standard_bars_game_in_normal_play_is_won_by_the_first_player() {
    let normal = format!("{} play normal", seeds::STANDARD_BAR);
    let (counts, result) = play(&normal, &seeds::STANDARD_GAME);
    assert_eq!(counts[..4], seeds::STANDARD_COUNTS);
    assert_eq!(result, Some(GameResult::Won { winner: 0 }));
    // Trivial: the first player may eat the marked corner, and so the whole bar, at once.
    let (counts, result) = play(&normal, &[(0, 0)]);
    assert_eq!(
        (counts, result),
        (vec![15], Some(GameResult::Won { winner: 0 }))
    );
}

/// The wide bar's example game in normal play: player A eats the last block and wins; with
/// square bites banned its opening bite of two and B's of three stand, but A's last bite (the
/// poison alone, 1×1) is a square: A has no selection and the game is a tie.
#[test]
fn the_wide_bars_game_with_the_options() {
    let normal = format!("{} play normal", seeds::WIDE_BAR);
    let (counts, result) = play(&normal, &seeds::WIDE_GAME);
    assert_eq!(counts, seeds::WIDE_COUNTS);
    assert_eq!(result, Some(GameResult::Won { winner: 0 }));
    let banned = format!("{} no_square_bites", seeds::WIDE_BAR);
    let (counts, result) = play(&banned, &seeds::WIDE_GAME[..4]);
    assert_eq!(counts, seeds::WIDE_COUNTS[..4]);
    assert_eq!(result, Some(GameResult::Tie));
}

/// The checks in order: out of range, already eaten, not a break, square bite.
#[test]
fn rejections_come_in_order() {
    let breaks = board("4x5 variant breaks poison 1,1 no_square_bites");
    let mut p = Position::start(&breaks);
    assert_eq!(p.check(&breaks, 4, 1), Err(Rejection::OutOfRange));
    assert_eq!(p.check(&breaks, 0, 0), Err(Rejection::NotABreak));
    // Row 0 is 1×5, column 0 is 4×1: neither square. The two rightmost columns are 4×2.
    assert!(p.check(&breaks, 0, 1).is_ok());
    p.select(&breaks, 1, 3).unwrap();
    assert_eq!(p.check(&breaks, 1, 4), Err(Rejection::AlreadyEaten));
    // Now 4×3: breaking off row 0 (1×3) is fine; columns 0 (4×1) too; the bar is not square.
    p.select(&breaks, 3, 1).unwrap();
    // 3×3 now: rows 0–2, columns 0–2. Breaking off the poison eats the square bar.
    assert_eq!(p.check(&breaks, 1, 1), Err(Rejection::SquareBite));
    assert_eq!(p.check(&breaks, 0, 1), Ok(Cell::new(0, 1)));
    assert_eq!(p.check(&breaks, 2, 2), Err(Rejection::NotABreak));
    let classic = board("3x5 variant classic poison 0,0 no_square_bites");
    let p = Position::start(&classic);
    assert_eq!(p.check(&classic, 2, 4), Err(Rejection::SquareBite));
    assert_eq!(p.check(&classic, 1, 3), Err(Rejection::SquareBite));
    assert!(p.check(&classic, 1, 2).is_ok());
    assert_eq!(Rejection::SquareBite.code(), "square_bite");
    assert_eq!(Rejection::NotABreak.code(), "not_a_break");
    assert_eq!(
        Rejection::SquareBite.explain(&classic, 2, 4),
        "the selection at (2,4) would bite a perfect square, which is banned"
    );
}

/// With square bites banned, a classic bar ends in a tie once the poison stands alone, and the
/// seat that would have been poisoned is not.
#[test]
fn a_lone_poison_under_the_ban_is_a_tie() {
    let config = board("1x2 variant classic poison 0,0 no_square_bites");
    let mut p = Position::start(&config);
    // The 1×1 bite of (0,1) is a square; (0,0) eats both cells, a 1×2 bite, and loses.
    assert_eq!(p.selections(), Bits::single(Bits::index(0, 0)));
    p.select(&config, 0, 0).unwrap();
    assert_eq!(p.result(), Some(GameResult::Poisoned { loser: 0 }));
    // On 1×3, eating two cells leaves the poison alone, which no one may bite.
    let config = board("1x3 variant classic poison 0,0 no_square_bites");
    let mut p = Position::start(&config);
    p.select(&config, 0, 1).unwrap();
    assert_eq!(p.result(), Some(GameResult::Tie));
}

/// Normal play ends with a winner, and from a position built by hand too.
#[test]
fn normal_play_has_a_winner() {
    let config = board("4x4 eat 1x2 poison 2,2 play normal players 3");
    let mut p = Position::start(&config);
    p.select(&config, 0, 0).unwrap();
    p.select(&config, 2, 1).unwrap();
    assert_eq!(p.result(), Some(GameResult::Won { winner: 1 }));
    assert_eq!(
        (p.result().unwrap().winner(), p.result().unwrap().loser()),
        (Some(1), None)
    );
    let built = Position::from_uneaten(&config, config.board().without(config.poison_mask()), 0);
    assert_eq!(built.result(), Some(GameResult::Won { winner: 2 }));
}

/// Combinations that make no sense are refused in words, each naming what to change.
#[test]
fn senseless_combinations_are_refused_in_words() {
    let refused = [
        (
            "5x5 eat 2x2 no_square_bites",
            "no_square_bites forbids the square eat size 2×2: every selection would bite a square; choose a size such as 1x2, or leave out no_square_bites",
        ),
        (
            "5x5 eat 1x1 no_square_bites play normal",
            "no_square_bites forbids the square eat size 1×1: every selection would bite a square; choose a size such as 1x2, or leave out no_square_bites",
        ),
        (
            "5x5 variant breaks poison 0,0 poison 1,1",
            "edge breaks need exactly one poison cell (the breaks are counted from it), got 2",
        ),
        (
            "5x5 variant breaks eat 1x2",
            "edge breaks have no eat size; leave out eat",
        ),
    ];
    for (notation, message) in refused {
        let err = notation.parse::<Config>().unwrap_err();
        assert_eq!(err.to_string(), message, "{notation}");
    }
    for notation in [
        "5x5 eat 3x3 poison 2,2 play normal",
        "5x5 eat 2x3 poison 0,0 no_square_bites",
        "3x5 variant breaks poison 1,2 players 4 play normal no_square_bites",
    ] {
        let config = board(notation);
        assert_eq!(config.to_string(), notation);
    }
}

/// The edge-breaks game of RECORDS.md: every side broken off in turn, the first seat left with
/// the poison alone.
#[test]
fn a_game_of_breaks_plays_to_the_poison() {
    let moves = [(0, 2), (1, 4), (1, 0), (2, 2), (1, 3), (1, 1), (1, 2)];
    let (counts, result) = play("3x5 variant breaks poison 1,2", &moves);
    assert_eq!(counts, [5, 2, 2, 3, 1, 1, 1]);
    assert_eq!(result, Some(GameResult::Poisoned { loser: 0 }));
}
