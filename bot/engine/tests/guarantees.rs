//! What every bot above `random` promises, checked over many games on several boards (JChomp
//! and classic Chomp) with two, three and four players: it never makes an invalid selection, never eats poison while a
//! selection without poison exists, and takes an immediate win; search bots also stop when told.

// Helpers outside `#[test]` functions panic on purpose when a check fails.
#![allow(clippy::unwrap_used)]

use jchomp_engine::player::immediate_wins;
use jchomp_engine::{BotSpec, Player, RandomPlayer};
use jchomp_rules::{Config, Game};
use jchomp_testkit::board;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

fn configs() -> Vec<Config> {
    [
        "5x6 eat 1x2 poison 0,0 poison 4,5",
        "6x6 eat 2x2 poison 2,3",
        "6x7 eat 1x2 poison 2,3 players 3",
        "5x5 eat 2x1 poison 0,0 poison 2,2 players 4",
        "7x5 eat 1x3 poison 3,1 players 3",
        "4x4 poison 1,1",
        "5x6 variant classic poison 0,0",
        "6x5 variant classic poison 1,2 poison 4,0 players 3",
    ]
    .into_iter()
    .map(board)
    .collect()
}

#[test]
fn bots_above_random_keep_their_promises() {
    let specs = [
        "greedy",
        "search:depth=3",
        "search:nodes=3000",
        "mcts:nodes=3000",
        "brs:nodes=3000",
        "brs:depth=2",
        "level:1",
        "level:3",
    ];
    let mut checked = 0;
    let mut wins_seen = 0;
    for config in configs() {
        for spec in specs {
            let spec = BotSpec::parse(spec).unwrap();
            for game_no in 0..6u64 {
                let bot_seat = (game_no % u64::from(config.players())) as u8;
                let mut bot = spec.build(game_no);
                let mut others = RandomPlayer::new(game_no + 100);
                let mut game = Game::new(config);
                while let Some(seat) = game.to_move() {
                    let position = *game.position();
                    let cell = if seat == bot_seat {
                        let cell = bot.choose(&config, &position).unwrap();
                        let index = cell.index();
                        assert!(
                            position.selections().contains(index),
                            "{spec} invalid {cell}"
                        );
                        let safe = position.safe_selections(&config);
                        if !safe.is_empty() {
                            assert!(safe.contains(index), "{spec} ate poison at {cell}");
                        }
                        let wins = immediate_wins(&config, &position);
                        if !wins.is_empty() {
                            wins_seen += 1;
                            assert!(wins.contains(index), "{spec} missed a win with {cell}");
                        }
                        checked += 1;
                        cell
                    } else {
                        others.choose(&config, &position).unwrap()
                    };
                    game.select(cell.row.into(), cell.col.into()).unwrap();
                }
            }
        }
    }
    assert!(checked > 500 && wins_seen > 20, "{checked} {wins_seen}");
}

#[test]
fn a_raised_stop_flag_ends_a_long_search_with_a_safe_selection() {
    let config = board("15x15 eat 2x2 poison 7,7");
    let game = Game::new(config);
    for spec in [
        "search:time=3600s",
        "mcts:time=3600s",
        "brs:time=3600s",
        "search:nodes=100000000000",
        "search:depth=60",
    ] {
        let mut bot = BotSpec::parse(spec).unwrap().build(1);
        bot.set_stop(Arc::new(AtomicBool::new(true)));
        let cell = bot.choose(&config, game.position()).unwrap();
        assert!(
            game.position()
                .safe_selections(&config)
                .contains(cell.index())
        );
    }
}
