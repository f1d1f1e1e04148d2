//! Small classic bars, from 1×2 up: the example games of the classic Chomp descriptions played
//! through the rules and checked against the brute-force model move by move, values against the
//! model's exact solver, and 1-row and 1-column bars played to the end.

use jchomp_rules::{Cell, GameResult, Position, perft};
use jchomp_testkit::brute::{self, Memo, Outcome};
use jchomp_testkit::model::Model;
use jchomp_testkit::side_by_side::play;
use jchomp_testkit::{board, seeds};

#[test]
fn the_standard_bars_example_game_ends_with_the_first_player_poisoned() {
    let (counts, result) = play(seeds::STANDARD_BAR, &seeds::STANDARD_GAME);
    assert_eq!(counts[..4], seeds::STANDARD_COUNTS);
    assert_eq!(counts[4], 1, "the poison alone is left");
    assert_eq!(result, Some(GameResult::Poisoned { loser: 0 }));
}

#[test]
fn every_game_with_the_standard_counts_is_found_by_the_model() {
    // The description gives counts only: list, on the model, every game of the 3×5 bar whose
    // bites remove them and leave the poison alone; the game we play is the first of them.
    fn games(m: &Model, counts: &[usize], path: &mut Vec<(u8, u8)>, out: &mut Vec<Vec<(u8, u8)>>) {
        let Some((&want, rest)) = counts.split_first() else {
            if m.eaten.len() as i64 == m.rows * m.cols - 1 {
                out.push(path.clone());
            }
            return;
        };
        for (r, c) in m.valid() {
            let next = m.after(r, c);
            if next.outcome.is_none() && next.eaten.len() - m.eaten.len() == want {
                path.push((r as u8, c as u8));
                games(&next, rest, path, out);
                path.pop();
            }
        }
    }
    let start = Model::start(&board(seeds::STANDARD_BAR));
    let mut found = Vec::new();
    games(&start, &seeds::STANDARD_COUNTS, &mut Vec::new(), &mut found);
    assert_eq!(found.len(), 7, "{found:?}");
    assert_eq!(found[0], seeds::STANDARD_GAME[..4]);
    for game in &found {
        let mut moves = game.clone();
        moves.push((0, 0));
        let (_, result) = play(seeds::STANDARD_BAR, &moves);
        assert_eq!(result, Some(GameResult::Poisoned { loser: 0 }));
    }
}

#[test]
fn the_wide_bars_example_game_ends_with_player_a_poisoned() {
    let (counts, result) = play(seeds::WIDE_BAR, &seeds::WIDE_GAME);
    assert_eq!(counts, seeds::WIDE_COUNTS);
    assert_eq!(result, Some(GameResult::Poisoned { loser: 0 }));
    // Read as 5 rows of 4: A eats (3,3) and (4,3), B the whole bottom row (4,0), then the same
    // (0,1), (1,0) and poison; the counts are the description's as well.
    let tall = [(3, 3), (4, 0), (0, 1), (1, 0), (0, 0)];
    let (counts, result) = play("5x4 variant classic poison 0,0", &tall);
    assert_eq!(counts, seeds::WIDE_COUNTS);
    assert_eq!(result, Some(GameResult::Poisoned { loser: 0 }));
}

#[test]
fn the_first_player_wins_every_small_bar() {
    // Strategy stealing: every bar of at least two cells, poison at the corner, is a first
    // player win; the model's exact solver is the judge.
    for rows in 1..=5u8 {
        for cols in 1..=5u8 {
            if rows * cols < 2 {
                continue;
            }
            let m = Model::start(&board(&format!("{rows}x{cols} variant classic poison 0,0")));
            let (outcome, _) = brute::solve(&m, &mut Memo::new());
            assert_eq!(outcome, Outcome::Win, "{rows}x{cols}");
        }
    }
    // Two cells: take the other one, and the opponent must eat the poison.
    let m = Model::start(&board("1x2 variant classic poison 0,0"));
    assert_eq!(brute::solve(&m, &mut Memo::new()), (Outcome::Win, 2));
}

#[test]
fn perft_on_the_smallest_bar_by_hand() {
    // 1×2: two selections; the corner loses at once, the other leaves the poison alone, which
    // is the one selection left. (Small bars against the model's perft: `model_vs_engine`.)
    let config = board("1x2 variant classic poison 0,0");
    let start = Position::start(&config);
    assert_eq!(
        (1..=3)
            .map(|d| perft(&config, &start, d))
            .collect::<Vec<_>>(),
        [2, 2, 2]
    );
}

#[test]
fn one_row_and_one_column_bars_play_to_the_end() {
    let row = board("1x4 variant classic poison 0,0");
    let mut p = Position::start(&row);
    assert_eq!(p.render(&row), "P###\n");
    assert_eq!(
        p.check(&row, 1, 0).map_err(|r| r.code()),
        Err("out_of_range")
    );
    assert_eq!(
        p.check(&row, 0, 4).map_err(|r| r.code()),
        Err("out_of_range")
    );
    p.play(&row, Cell::new(0, 2));
    assert_eq!(p.render(&row), "P#..\n");
    assert_eq!(
        p.check(&row, 0, 3).map_err(|r| r.code()),
        Err("already_eaten")
    );
    p.play(&row, Cell::new(0, 1));
    assert_eq!(p.to_move(), Some(0));
    p.play(&row, Cell::new(0, 0));
    assert_eq!(p.result(), Some(GameResult::Poisoned { loser: 0 }));

    let col = board("4x1 variant classic poison 3,0");
    let mut p = Position::start(&col);
    assert_eq!(p.render(&col), "#\n#\n#\nP\n");
    assert_eq!(
        p.safe_selections(&col).count(),
        0,
        "every bite reaches the poison"
    );
    p.play(&col, Cell::new(2, 0));
    assert_eq!(p.result(), Some(GameResult::Poisoned { loser: 0 }));

    // A position built from its cells: the poison alone on a one-row bar is still a move.
    let lone = jchomp_rules::Bits::single(0);
    let p = Position::from_uneaten(&row, lone, 1);
    assert_eq!((p.to_move(), p.selections()), (Some(1), lone));
    let p = Position::from_uneaten(&col, jchomp_rules::Bits::EMPTY, 0);
    assert_eq!(p.result(), Some(GameResult::Poisoned { loser: 1 }));
}
