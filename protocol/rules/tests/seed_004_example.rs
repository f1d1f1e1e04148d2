//! Seed 004's example game (Games::Chomp): a bar of 4 rows of 6, the poison at the top-left.
//! The seed counts rows and cubes from 1 at the top-left ("row 2 cube 4"); ours count from 0, so
//! its (row r, cube c) is our (r − 1, c − 1). Each selection must leave the bar the seed draws,
//! read as row lengths, and the first player must end by eating the poison.

use jchomp_rules::{Bits, Config, Game, GameResult, Setup};

/// The uneaten cells of each row, top row first, without the empty rows.
fn row_lengths(game: &Game) -> Vec<u8> {
    let uneaten: Bits = game.position().uneaten();
    let config = game.config();
    (0..config.rows())
        .map(|r| {
            (0..config.cols())
                .filter(|&c| uneaten.contains(Bits::index(r, c)))
                .count() as u8
        })
        .filter(|&n| n > 0)
        .collect()
}

#[test]
fn the_4x6_example_game_goes_as_the_seed_draws_it() {
    let setup: Setup = "4x6 variant classic poison 0,0".parse().unwrap();
    let mut game = Game::new(Config::new(&setup).unwrap());
    assert_eq!(row_lengths(&game), [6, 6, 6, 6]);
    // (seed row, seed cube) → the bar the seed draws after it.
    let steps: [((i64, i64), &[u8]); 4] = [
        ((2, 4), &[6, 3, 3, 3]), // player 1
        ((3, 2), &[6, 3, 1, 1]), // player 2
        ((1, 2), &[1, 1, 1, 1]), // player 1
        ((2, 1), &[1]),          // player 2: the poison alone is left
    ];
    for (i, ((row, cube), bar)) in steps.into_iter().enumerate() {
        assert_eq!(game.to_move(), Some((i % 2) as u8));
        game.select(row - 1, cube - 1).unwrap();
        assert_eq!(
            row_lengths(&game),
            bar,
            "after the seed's row {row} cube {cube}"
        );
    }
    // "player 1 has to eat the poisoned cube so s/he looses."
    assert_eq!(game.to_move(), Some(0));
    game.select(0, 0).unwrap();
    assert_eq!(game.result(), Some(GameResult::Poisoned { loser: 0 }));
}
