//! Bots in a room: a bot's move arrives on the room's channel as a [`RoomEvent::BotMoved`] and
//! is played; a bot that fails, passes, answers late or answers nonsense is replaced by a random
//! move; a thinking bot is stopped ahead of the turn timer and at the server's cap.

use super::{Driven, Harness, Requests, TestPeer, config, timed};
use crate::game::room::{BotOutcome, RoomEvent};
use jchomp_engine::classic::{Value as Won, shape_of};
use jchomp_engine::{Player, RandomPlayer};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::{Cell, Position, Seat};
use jchomp_testkit::config_json;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::Instant;

/// A bot that thinks for a minute unless it is stopped. (While it thinks on its blocking thread
/// the paused clock stands still; the tests move it on.)
const SLOW: &str = "search:time=60s";

/// Real time within which a stopped bot answers, far below its minute.
const STOPPED: Duration = Duration::from_secs(20);

/// A room with `a` in seat 0 and a bot of `spec` in seat 1; `a` has read every greeting.
async fn against(h: &Harness, cfg: ConfigJson, spec: Option<&str>) -> (Driven, TestPeer) {
    let (mut room, mut a) = h.hosted(&cfg);
    room.add_bot(&a, spec).await;
    let snap = a.take("room");
    assert_eq!(snap["status"], "playing");
    (room, a)
}

/// Takes the bot's move from the room's channel; returns its parts.
async fn bot_move(room: &mut Driven) -> (Seat, usize, Option<Box<dyn Player>>, BotOutcome) {
    match room.next_bot_move().await {
        RoomEvent::BotMoved {
            seat,
            ply,
            player,
            outcome,
            ..
        } => (seat, ply, player, outcome),
        _ => panic!("expected a bot's move"),
    }
}

/// Takes the bot's answer from the room's channel and hands the room `outcome` instead (with
/// the bot's player, or, unless `keep_player`, as if it had panicked); returns the `moved` that
/// `a` is sent.
async fn answer(
    room: &mut Driven,
    a: &mut TestPeer,
    outcome: BotOutcome,
    keep_player: bool,
) -> Value {
    let (seat, ply, player, _) = bot_move(room).await;
    let player = player.filter(|_| keep_player);
    room.handle(RoomEvent::BotMoved {
        seat,
        game: 0,
        ply,
        player,
        outcome,
    })
    .await;
    a.take("moved")
}

/// The cell of a `moved`.
fn cell(moved: &Value) -> (i64, i64) {
    (
        moved["row"].as_i64().unwrap(),
        moved["col"].as_i64().unwrap(),
    )
}

/// A corner cell of a 4×4 board not in `taken` (each is free while the bottom-right corner's
/// neighbours are being eaten).
fn free_cell(taken: &[(i64, i64)]) -> (i64, i64) {
    [(3, 2), (2, 3), (2, 2), (3, 1), (1, 3)]
        .into_iter()
        .find(|c| !taken.contains(c))
        .unwrap()
}

/// Whether a `moved` is seat 1's, on a cell not yet eaten before it.
fn bots_valid_move(moved: &Value, taken: &[(i64, i64)]) -> bool {
    let cell = (
        moved["row"].as_i64().unwrap(),
        moved["col"].as_i64().unwrap(),
    );
    moved["seat"] == 1 && !taken.contains(&cell)
}

#[tokio::test(start_paused = true)]
async fn a_bots_move_arrives_as_an_event_and_is_played() {
    let h = Harness::new();
    let (mut room, mut a) = against(&h, config(4, 4, 2), Some("greedy")).await;
    let seats = room.room.snapshot().seats;
    let bot = seats[1].as_ref().unwrap();
    assert_eq!(
        (bot.name.as_str(), bot.bot, bot.connected),
        ("greedy", true, true)
    );
    room.play(&a, 3, 3).await;
    a.take("moved");
    let ev = room.next_bot_move().await;
    assert!(matches!(
        ev,
        RoomEvent::BotMoved {
            seat: 1,
            ply: 1,
            player: Some(_),
            outcome: BotOutcome::Chose(_),
            ..
        }
    ));
    room.handle(ev).await;
    let moved = a.take("moved");
    assert!(bots_valid_move(&moved, &[(3, 3)]), "{moved}");
    assert_eq!(moved["to_move"], 0);
}

#[tokio::test(start_paused = true)]
async fn add_bot_without_a_spec_adds_a_random_bot() {
    let h = Harness::new();
    let (room, _) = against(&h, config(4, 4, 2), None).await;
    assert_eq!(room.room.seat_infos()[1].as_ref().unwrap().name, "random");
}

#[tokio::test(start_paused = true)]
async fn a_panicked_bot_is_replaced_by_a_random_player() {
    let h = Harness::new();
    let (mut room, mut a) = against(&h, config(4, 4, 2), Some("greedy")).await;
    let mut taken = vec![(3, 3)];
    room.play(&a, 3, 3).await;
    a.take("moved");
    let moved = answer(&mut room, &mut a, BotOutcome::Panicked, false).await;
    assert!(bots_valid_move(&moved, &taken), "{moved}");
    taken.push(cell(&moved));
    // The stand-in plays the bot's next turns.
    let next = free_cell(&taken);
    room.play(&a, next.0, next.1).await;
    a.take("moved");
    let ev = room.next_bot_move().await;
    room.handle(ev).await;
    assert_eq!(a.take("moved")["seat"], 1);
}

#[tokio::test(start_paused = true)]
async fn a_bot_that_passes_or_names_an_eaten_cell_plays_a_random_move() {
    let h = Harness::new();
    let (mut room, mut a) = against(&h, config(4, 4, 2), Some("greedy")).await;
    let mut taken = vec![(3, 3)];
    room.play(&a, 3, 3).await;
    a.take("moved");
    let eaten = BotOutcome::Chose(Cell::new(3, 3));
    let moved = answer(&mut room, &mut a, eaten, true).await;
    assert!(bots_valid_move(&moved, &taken), "{moved}");
    taken.push(cell(&moved));
    let next = free_cell(&taken);
    taken.push(next);
    room.play(&a, next.0, next.1).await;
    a.take("moved");
    let moved = answer(&mut room, &mut a, BotOutcome::Passed, true).await;
    assert!(bots_valid_move(&moved, &taken), "{moved}");
}

#[tokio::test(start_paused = true)]
async fn a_stale_bot_move_is_dropped_and_the_bot_thinks_again() {
    let h = Harness::new();
    let (mut room, mut a) = against(&h, config(4, 4, 2), Some("greedy")).await;
    room.play(&a, 3, 3).await;
    a.take("moved");
    let (seat, _, player, outcome) = bot_move(&mut room).await;
    let stale = RoomEvent::BotMoved {
        seat,
        game: 0,
        ply: 0,
        player,
        outcome,
    };
    room.handle(stale).await;
    a.assert_silent();
    let (_, ply, _, _) = bot_move(&mut room).await;
    assert_eq!(ply, 1);
}

#[tokio::test(start_paused = true)]
async fn a_bot_is_held_to_the_turn_timer_too() {
    let h = Harness::new();
    let mut a = h.peer();
    let (_, mut room) = h.create(&timed(15, 15, 2, 200), &a);
    a.recv("joined").await;
    a.recv("room").await;
    room.add_bot(&a, Some(SLOW)).await;
    a.recv("room").await;
    room.play(&a, 14, 14).await;
    a.recv("moved").await;
    let (t0, real) = (Instant::now(), std::time::Instant::now());
    // The bot's stop flag is raised with a fifth of its turn left, so it answers in time.
    tokio::time::advance(Duration::from_millis(160)).await;
    let m = a.recv("moved").await;
    assert_eq!(m["seat"], 1);
    assert_eq!(m["status"], "playing");
    assert!(
        t0.elapsed() < Duration::from_millis(200),
        "{:?}",
        t0.elapsed()
    );
    assert!(real.elapsed() < STOPPED, "{:?}", real.elapsed());
}

#[tokio::test(start_paused = true)]
async fn a_bot_is_stopped_at_the_servers_cap() {
    let h = Harness::with(|s| s.bot_think_cap = Duration::from_millis(100));
    let (mut room, mut a) = against(&h, config(15, 15, 2), Some(SLOW)).await;
    room.play(&a, 14, 14).await;
    a.take("moved");
    let real = std::time::Instant::now();
    tokio::time::advance(Duration::from_millis(100)).await;
    let ev = room.next_bot_move().await;
    assert!(real.elapsed() < STOPPED, "{:?}", real.elapsed());
    room.handle(ev).await;
    assert_eq!(a.take("moved")["seat"], 1);
    assert_eq!(room.room.snapshot().moves.len(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_perfect_bot_wins_every_classic_game_from_a_won_start() {
    let h = Harness::new();
    // The test library's 6×6 box covers the board; it is ready before the first turn.
    let db = h.ctx.classic.wait().unwrap();
    let cfg = config_json("6x6 variant classic poison 0,0");
    let board = cfg.validate().unwrap();
    let mut games = 0;
    for first in Position::start(&board).selections().iter() {
        let first = Cell::from_index(first);
        let mut after = Position::start(&board);
        after.play(&board, first);
        let won = after.to_move().is_some()
            && db
                .lookup(&shape_of(after.uneaten()).unwrap())
                .unwrap()
                .value
                == Won::Win;
        if !won {
            continue;
        }
        // The person opens with a losing move, then plays at random; the bot must win.
        let (mut room, mut a) = against(&h, cfg.clone(), Some("level:5")).await;
        let mut person = RandomPlayer::new(u64::from(first.index()));
        room.play(&a, first.row.into(), first.col.into()).await;
        a.take("moved");
        loop {
            let ev = room.next_bot_move().await;
            room.handle(ev).await;
            let moved = a.take("moved");
            assert_eq!(moved["seat"], 1);
            if moved["status"] == "finished" {
                panic!("the bot lost after opening {first:?}: {moved}");
            }
            let position = *room.room.game.position();
            let cell = person.choose(&board, &position).unwrap();
            room.play(&a, cell.row.into(), cell.col.into()).await;
            let moved = a.take("moved");
            if moved["status"] == "finished" {
                assert_eq!(moved["result"]["kind"], "poisoned");
                assert_eq!(moved["result"]["loser"], 0);
                break;
            }
        }
        // The stored record replays to the same game.
        let record = h.ctx.store.get(room.id()).await.unwrap().unwrap();
        let replayed = record.replay().unwrap();
        assert_eq!(replayed.moves(), room.room.game.moves());
        assert_eq!(replayed.result(), room.room.game.result());
        assert_eq!(record.seats, ["a", "level:5"]);
        games += 1;
    }
    // In a square, every opening but the one at (1,1) (and the poison) hands the bot a win.
    assert_eq!(games, 34);
}

#[tokio::test(start_paused = true)]
async fn a_bot_move_meant_for_the_game_before_a_rematch_is_dropped() {
    let h = Harness::new();
    let (mut room, mut a) = against(&h, timed(4, 4, 2, 200), Some("greedy")).await;
    room.play(&a, 3, 3).await;
    a.take("moved");
    // The bot answers, but its move reaches the room only after the game ended on time and
    // a rematch reached the same seat at the same ply.
    let late = room.next_bot_move().await;
    tokio::time::advance(Duration::from_millis(200)).await;
    room.fire_timers().await;
    let end = a.take("room");
    assert_eq!(end["result"], json!({"kind":"timeout","loser":1}));
    room.rematch(&a).await;
    assert_eq!(a.take("room")["status"], "playing");
    room.play(&a, 3, 3).await;
    a.take("moved");
    room.handle(late).await;
    a.assert_silent();
    // The bot thinks again, for this game.
    let (seat, ply, _, _) = bot_move(&mut room).await;
    assert_eq!((seat, ply), (1, 1));
}
