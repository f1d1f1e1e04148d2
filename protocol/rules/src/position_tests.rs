//! Unit tests for every rule of a position: checks and their order, poison, ties, turn order.

use super::*;
use crate::{Config, Game};

/// The configuration a board notation names.
fn config(notation: &str) -> Config {
    notation.parse().unwrap()
}

fn cells(bits: Bits) -> Vec<(u8, u8)> {
    bits.iter()
        .map(|i| (Cell::from_index(i).row, Cell::from_index(i).col))
        .collect()
}

#[test]
fn start_offers_every_rectangle_that_fits() {
    let c = config("6x7 eat 1x2 poison 0,0");
    let p = Position::start(&c);
    assert_eq!(p.selections().count(), 6 * 6);
    assert_eq!(p.to_move(), Some(0));
    assert_eq!(p.result(), None);
    assert_eq!(p.eaten(&c), Bits::EMPTY);
    // Anchor (0,0) and (0,1)... only the two touching the poison are unsafe.
    assert_eq!(p.safe_selections(&c).count(), 36 - 1);
    let c = config("15x15 eat 3x3 poison 7,7 players 4");
    let p = Position::start(&c);
    assert_eq!(p.selections().count(), 13 * 13);
    assert_eq!(p.safe_selections(&c).count(), 13 * 13 - 9);
}

#[test]
fn out_of_range_covers_every_edge_and_huge_numbers() {
    let c = config("5x6 eat 2x3 poison 0,0");
    let p = Position::start(&c);
    for (r, c2) in [
        (-1, 0),
        (0, -1),
        (4, 0), // rows 4..5 reach row 5, outside a 5-row board
        (0, 4), // cols 4..6 reach col 6
        (5, 5),
        (i64::MAX, 0),
        (0, i64::MAX),
        (i64::MIN, i64::MIN),
    ] {
        assert_eq!(p.check(&c, r, c2), Err(Rejection::OutOfRange), "({r},{c2})");
    }
    assert!(p.check(&c, 3, 3).is_ok());
}

#[test]
fn already_eaten_means_any_cell_of_the_rectangle() {
    let c = config("6x6 eat 2x2 poison 0,0");
    let mut p = Position::start(&c);
    p.select(&c, 4, 4).unwrap(); // eats (4..5, 4..5)
    // The anchor (3,3) itself is uneaten, but its rectangle reaches (4,4).
    assert!(p.uneaten().contains(Bits::index(3, 3)));
    assert_eq!(p.check(&c, 3, 3), Err(Rejection::AlreadyEaten));
    assert_eq!(p.check(&c, 4, 4), Err(Rejection::AlreadyEaten));
    assert_eq!(p.check(&c, 3, 2), Ok(Cell::new(3, 2)));
}

#[test]
fn out_of_range_is_checked_before_already_eaten() {
    let c = config("6x6 eat 2x2 poison 0,0");
    let mut p = Position::start(&c);
    p.select(&c, 4, 4).unwrap();
    // (5,4) overlaps eaten cells and also reaches row 6.
    assert_eq!(p.check(&c, 5, 4), Err(Rejection::OutOfRange));
}

#[test]
fn already_eaten_is_checked_before_poison() {
    let c = config("6x6 eat 2x2 poison 3,3");
    let mut p = Position::start(&c);
    p.select(&c, 1, 1).unwrap(); // eats (1..2, 1..2)
    // (2,2) covers eaten (2,2) and poison (3,3): refused, nobody loses.
    let before = p;
    assert_eq!(p.select(&c, 2, 2), Err(Rejection::AlreadyEaten));
    assert_eq!(p, before);
    assert_eq!(p.to_move(), Some(1));
}

#[test]
fn eating_poison_loses_and_ends_the_game() {
    let c = config("5x5 eat 1x2 poison 2,3 players 3");
    let mut p = Position::start(&c);
    p.select(&c, 0, 0).unwrap();
    assert_eq!(
        p.select(&c, 2, 2),
        Ok(Status::Over(GameResult::Poisoned { loser: 1 }))
    );
    assert!(p.eaten(&c).contains(Bits::index(2, 3)));
    assert_eq!(p.selections(), Bits::EMPTY);
    assert_eq!(p.select(&c, 4, 0), Err(Rejection::GameOver));
    assert_eq!(Rejection::GameOver.code(), "not_playing");
}

#[test]
fn a_rejected_selection_changes_nothing_and_keeps_the_turn() {
    let c = config("4x4 poison 0,0");
    let mut p = Position::start(&c);
    let before = p;
    assert_eq!(p.select(&c, 9, 9), Err(Rejection::OutOfRange));
    assert_eq!(p, before);
    p.select(&c, 3, 3).unwrap();
    let before = p;
    assert_eq!(p.select(&c, 3, 3), Err(Rejection::AlreadyEaten));
    assert_eq!(p, before);
    assert_eq!(p.to_move(), Some(1));
}

#[test]
fn no_valid_selection_left_is_a_tie() {
    let c = config("4x4 eat 3x3 poison 0,0");
    let mut p = Position::start(&c);
    assert_eq!(cells(p.selections()), vec![(0, 0), (0, 1), (1, 0), (1, 1)]);
    // Eating the lower-right 3×3 leaves only row 0 and col 0: no 3×3 fits.
    assert_eq!(p.select(&c, 1, 1), Ok(Status::Over(GameResult::Tie)));
    assert_eq!(p.result(), Some(GameResult::Tie));
    assert_eq!(p.to_move(), None);
}

#[test]
fn a_poisoned_rectangle_still_counts_as_a_valid_selection() {
    let c = config("4x4 eat 2x2 poison 0,0");
    let mut p = Position::start(&c);
    p.select(&c, 2, 2).unwrap();
    p.select(&c, 2, 0).unwrap();
    p.select(&c, 0, 2).unwrap();
    // Only the 2×2 holding the poison is left: no tie, seat 1 must eat it.
    assert_eq!(cells(p.selections()), vec![(0, 0)]);
    assert_eq!(p.safe_selections(&c), Bits::EMPTY);
    assert_eq!(p.to_move(), Some(1));
    assert_eq!(
        p.select(&c, 0, 0),
        Ok(Status::Over(GameResult::Poisoned { loser: 1 }))
    );
}

#[test]
fn turns_rotate_through_three_and_four_seats() {
    for players in [2u8, 3, 4] {
        let c = config(&format!("8x8 poison 0,0 players {players}"));
        let mut g = Game::new(c);
        let mut expected = 0u8;
        for (r, col) in [(7, 7), (7, 6), (7, 5), (7, 4), (7, 3), (7, 2), (7, 1)] {
            assert_eq!(g.to_move(), Some(expected));
            g.select(r, col).unwrap();
            expected = (expected + 1) % players;
        }
        assert_eq!(g.to_move(), Some(7 % players));
        let seats: Vec<u8> = g.moves().iter().map(|m| m.seat).collect();
        assert_eq!(seats, (0..7).map(|i| i % players).collect::<Vec<_>>());
    }
}

#[test]
fn end_decides_timeouts_and_abandonment_only_while_playing() {
    let c = config("4x4 poison 0,0");
    let mut p = Position::start(&c);
    p.end(GameResult::Timeout { loser: 0 });
    assert_eq!(p.result(), Some(GameResult::Timeout { loser: 0 }));
    p.end(GameResult::Abandoned { loser: 1 });
    assert_eq!(p.result(), Some(GameResult::Timeout { loser: 0 }));
    assert_eq!(p.select(&c, 3, 3), Err(Rejection::GameOver));
}

#[test]
fn from_uneaten_derives_the_status() {
    let c = config("4x4 eat 2x2 poison 0,0 players 3");
    let all = c.board();
    assert_eq!(Position::from_uneaten(&c, all, 2).to_move(), Some(2));
    let no_poison = all.without(Bits::single(Bits::index(0, 0)));
    assert_eq!(
        Position::from_uneaten(&c, no_poison, 0).result(),
        Some(GameResult::Poisoned { loser: 2 })
    );
    let scattered = Bits::single(Bits::index(0, 0)) | Bits::single(Bits::index(3, 3));
    assert_eq!(
        Position::from_uneaten(&c, scattered, 1).result(),
        Some(GameResult::Tie)
    );
}

#[test]
fn render_marks_poison_eaten_and_uneaten() {
    let c = config("4x5 eat 1x2 poison 0,0");
    let mut p = Position::start(&c);
    p.select(&c, 3, 3).unwrap();
    assert_eq!(p.render(&c), "P####\n#####\n#####\n###..\n");
}

#[test]
fn classic_starts_with_every_cell_selectable() {
    let c = config("6x7 variant classic poison 0,0 poison 2,3");
    let p = Position::start(&c);
    assert_eq!(p.selections(), c.board());
    // Unsafe: every cell at or above and at or left of a poison cell.
    assert_eq!(
        p.safe_selections(&c),
        c.board().without(Bits::rect(0, 0, 3, 4))
    );
}

#[test]
fn classic_eats_the_cell_and_everything_below_and_right() {
    let c = config("5x6 variant classic poison 0,0");
    let mut p = Position::start(&c);
    assert_eq!(p.select(&c, 2, 3), Ok(Status::ToMove(1)));
    assert_eq!(p.render(&c), "P#####\n######\n###...\n###...\n###...\n");
    // Cells already eaten inside the corner are simply eaten again.
    assert_eq!(p.select(&c, 1, 4), Ok(Status::ToMove(0)));
    assert_eq!(p.render(&c), "P#####\n####..\n###...\n###...\n###...\n");
    assert_eq!(p.selections(), p.uneaten());
    assert_eq!(
        p.select(&c, 0, 0),
        Ok(Status::Over(GameResult::Poisoned { loser: 0 }))
    );
    assert_eq!(p.uneaten(), Bits::EMPTY);
}

#[test]
fn classic_checks_out_of_range_then_already_eaten_then_poison() {
    let c = config("5x6 variant classic poison 3,3 players 3");
    let mut p = Position::start(&c);
    for (r, col) in [
        (-1, 0),
        (0, -1),
        (5, 0),
        (0, 6),
        (i64::MAX, 0),
        (0, i64::MIN),
    ] {
        assert_eq!(
            p.check(&c, r, col),
            Err(Rejection::OutOfRange),
            "({r},{col})"
        );
    }
    // The last row and column are in range: a classic selection is one cell.
    assert_eq!(p.check(&c, 4, 5), Ok(Cell::new(4, 5)));
    p.select(&c, 4, 0).unwrap();
    let before = p;
    // Out of range beats already eaten: (5,0) is off the board below eaten cells.
    assert_eq!(p.select(&c, 5, 0), Err(Rejection::OutOfRange));
    // Already eaten beats poison: (4,3) would reach nothing, but is eaten.
    assert_eq!(p.select(&c, 4, 3), Err(Rejection::AlreadyEaten));
    assert_eq!(p, before);
    assert_eq!(p.to_move(), Some(1));
    // A selection up and left of the poison eats it: the mover loses.
    assert_eq!(
        p.select(&c, 1, 2),
        Ok(Status::Over(GameResult::Poisoned { loser: 1 }))
    );
    assert!(p.eaten(&c).contains(Bits::index(3, 3)));
    assert_eq!(p.select(&c, 0, 0), Err(Rejection::GameOver));
}

#[test]
fn classic_games_never_tie() {
    // While a poison cell is uneaten the board is not empty and every uneaten cell is a valid
    // selection; the game ends exactly when a poison cell is eaten.
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    for game in 0..2000 {
        // Classic bars from 1×2 up to 15×15.
        let (rows, cols) = (1 + next(15), 1 + next(15));
        if rows * cols < 2 {
            continue;
        }
        let players = 2 + next(3);
        let mut notation = format!("{rows}x{cols} variant classic players {players}");
        for _ in 0..1 + next(4) {
            notation += &format!(" poison {},{}", next(rows), next(cols));
        }
        let Ok(c) = notation.parse::<Config>() else {
            continue; // a repeated poison cell
        };
        let mut p = Position::start(&c);
        let mut plies = 0;
        while p.to_move().is_some() {
            assert_eq!(p.selections(), p.uneaten(), "{notation}");
            assert!(c.poison_mask().without(p.uneaten()).is_empty());
            let cells: Vec<u32> = p.selections().iter().collect();
            let pick = cells[next(cells.len() as u64) as usize];
            p.play(&c, Cell::from_index(pick));
            plies += 1;
        }
        assert!(
            matches!(p.result(), Some(GameResult::Poisoned { .. })),
            "game {game} on {notation} ended {:?} after {plies} plies",
            p.result()
        );
        assert!(c.poison_mask().intersects(p.eaten(&c)));
    }
}

#[test]
fn classic_from_uneaten_is_never_a_tie_while_poison_is_left() {
    let c = config("4x4 variant classic poison 3,3");
    let lone = Bits::single(Bits::index(3, 3));
    let p = Position::from_uneaten(&c, lone, 1);
    assert_eq!((p.to_move(), p.selections()), (Some(1), lone));
    assert_eq!(
        Position::from_uneaten(&c, Bits::EMPTY, 1).result(),
        Some(GameResult::Poisoned { loser: 0 })
    );
}

#[test]
fn refusals_are_explained_with_the_selection_and_the_board() {
    let c = config("6x7 eat 2x3 poison 5,6");
    let mut p = Position::start(&c);
    assert_eq!(
        p.check(&c, 5, 5).map_err(|r| r.explain(&c, 5, 5)),
        Err("the 2×3 selection at (5,5) reaches outside the 6×7 board".to_owned())
    );
    assert!(p.select(&c, 0, 0).is_ok());
    assert_eq!(
        p.check(&c, 1, 1).map_err(|r| r.explain(&c, 1, 1)),
        Err("part of the 2×3 selection at (1,1) is already eaten".to_owned())
    );
    let classic = config("5x4 variant classic poison 0,0");
    assert_eq!(
        Rejection::OutOfRange.explain(&classic, 5, 0),
        "the cell (5,0) is outside the 5×4 board"
    );
    assert_eq!(
        Rejection::AlreadyEaten.explain(&classic, 2, 2),
        "the cell (2,2) is already eaten"
    );
    assert_eq!(Rejection::GameOver.explain(&c, 0, 0), "the game is over");
}
