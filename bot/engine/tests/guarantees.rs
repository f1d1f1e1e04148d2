//! What every bot above `random` promises, checked over many games on several boards with two,
//! three and four players: it never makes an invalid selection, never eats poison while a
//! selection without poison exists, and takes an immediate win; search bots also stop when told.

// Helpers outside `#[test]` functions panic on purpose when a check fails.
#![allow(clippy::unwrap_used)]

use jchomp_engine::player::immediate_wins;
use jchomp_engine::{BotSpec, Player, RandomPlayer};
use jchomp_rules::{Config, Game, Setup};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

fn configs() -> Vec<Config> {
    let setups = [
        (5, 6, 2, [1, 2], vec![[0, 0], [4, 5]]),
        (6, 6, 2, [2, 2], vec![[2, 3]]),
        (6, 7, 3, [1, 2], vec![[2, 3]]),
        (5, 5, 4, [2, 1], vec![[0, 0], [2, 2]]),
        (7, 5, 3, [1, 3], vec![[3, 1]]),
        (4, 4, 2, [1, 1], vec![[1, 1]]),
    ];
    setups
        .into_iter()
        .map(|(rows, cols, players, eat, poison)| {
            Config::new(&Setup {
                rows,
                cols,
                players,
                eat,
                poison,
            })
            .unwrap()
        })
        .collect()
}

#[test]
fn bots_above_random_keep_their_promises() {
    let specs = [
        "greedy",
        "search:depth=3",
        "search:nodes=3000",
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
    let config = Config::new(&Setup {
        rows: 15,
        cols: 15,
        players: 2,
        eat: [2, 2],
        poison: vec![[7, 7]],
    })
    .unwrap();
    let game = Game::new(config);
    for spec in [
        "search:time=3600s",
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
