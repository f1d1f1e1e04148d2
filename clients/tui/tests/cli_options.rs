//! The rule options in the terminal client against a real server on 127.0.0.1:0: rooms made
//! with `--variant breaks`, `--play normal` and `--no-square-bites` (the shared board flags of
//! `jchomp create`) played to their end against bots, the game screen stating the rules in
//! force and the result in the right words; the room list naming the options; and the
//! combinations the rules refuse explained in the words of the flags before anything is sent.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli_support;

use cli_support::{TestServer, jchomp, play_vs_bots, pump, screen, stderr, stdout, type_line};
use jchomp_protocol::rules::{GameResult, Play, Variant};
use jchomp_protocol::wire::{ClientMessage, RoomStatus};
use jchomp_tui::app::{App, Start};
use jchomp_tui::cli::CreateArgs;
use jchomp_tui::connection::Connection;

/// Plays `flags` against bots to the end; returns the final screen and the game's result,
/// after checking that the screen tells the result as the client's words put it and that the
/// local rules agree with the server.
async fn played(url: &str, flags: &str) -> (String, GameResult, jchomp_protocol::rules::Config) {
    let (app, _conn) = play_vs_bots(url, flags).await;
    let text = screen(&app);
    assert!(text.contains("Game over"), "{text}");
    let state = app.room().unwrap().state.as_ref().unwrap();
    let words = jchomp_tui::explain::outcome(state.result.unwrap(), &state.seats, Some(0));
    assert!(text.contains(&words), "{words}\n{text}");
    assert_eq!(state.result.map(Into::into), state.game.result());
    assert_eq!(state.eaten(), state.game.position().eaten(&state.config));
    (text, state.game.result().unwrap(), state.config)
}

#[tokio::test]
async fn normal_play_is_stated_and_eating_a_marked_cell_wins_without_a_confirmation() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    let flags = "--size 4x5 --eat 1x2 --poison 0,0 --poison 3,3 --play normal --bot random";
    let mut app = App::new(
        url,
        "ann",
        Start::Create(CreateArgs::parse_form(flags).unwrap()),
    );
    let mut conn = Connection::connect(url).await.unwrap();
    let status = |a: &App| a.room().and_then(|r| r.state.as_ref()).map(|s| s.status);
    pump(&mut app, &mut conn, |a| {
        status(a) == Some(RoomStatus::Playing)
    })
    .await;
    let text = screen(&app);
    assert!(
        text.contains("4×5 · eat 1×2 · normal play · 2 players"),
        "{text}"
    );
    assert!(
        text.contains("Normal play: whoever eats a marked cell (P) wins"),
        "{text}"
    );
    assert!(text.contains("P marked (wins)"), "{text}");
    // The first seat may eat a marked cell at once: one Enter sends it, and it wins.
    type_line(&mut app, "3,3");
    let sent = app.take_outbox();
    assert_eq!(
        sent,
        vec![ClientMessage::Move { row: 3, col: 3 }],
        "{}",
        screen(&app)
    );
    for m in &sent {
        conn.send(m).await.unwrap();
    }
    pump(&mut app, &mut conn, |a| {
        status(a) == Some(RoomStatus::Finished)
    })
    .await;
    let text = screen(&app);
    let state = app.room().unwrap().state.as_ref().unwrap();
    assert_eq!(state.game.result(), Some(GameResult::Won { winner: 0 }));
    assert!(
        text.contains("You ate a marked cell and won; every other seat loses."),
        "{text}"
    );
}

#[tokio::test]
async fn normal_play_against_a_bot_ends_in_a_win_or_a_tie_told_in_words() {
    let server = TestServer::start().await;
    let flags = "--size 4x5 --eat 1x2 --play normal --bot random";
    let (text, result, config) = played(&server.url(), flags).await;
    assert_eq!(config.play(), Play::Normal);
    assert!(
        matches!(result, GameResult::Won { .. } | GameResult::Tie),
        "{result:?}\n{text}"
    );
}

#[tokio::test]
async fn edge_breaks_without_square_bites_are_played_to_the_end() {
    let server = TestServer::start().await;
    let flags = "--variant breaks --size 5x6 --poison 2,3 --no-square-bites --bot level:1";
    let (text, result, config) = played(&server.url(), flags).await;
    assert_eq!(
        config.to_string(),
        "5x6 variant breaks poison 2,3 no_square_bites"
    );
    assert!(
        text.contains("5×6 · edge breaks · no square bites · 2 players"),
        "{text}"
    );
    assert!(
        text.contains("Edge breaks: eat at a cell in P's row or column"),
        "{text}"
    );
    assert!(text.contains("No square bites:"), "{text}");
    assert!(
        matches!(result, GameResult::Poisoned { .. } | GameResult::Tie),
        "{result:?}"
    );
}

#[tokio::test]
async fn the_room_list_names_the_options_and_refused_combinations_read_as_the_flags() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    // A room waiting for a second player, made with every option.
    let flags = "--variant breaks --size 3x5 --poison 1,2 --play normal --no-square-bites";
    let mut app = App::new(
        url,
        "ann",
        Start::Create(CreateArgs::parse_form(flags).unwrap()),
    );
    let mut conn = Connection::connect(url).await.unwrap();
    pump(&mut app, &mut conn, |a| {
        a.room()
            .and_then(|r| r.state.as_ref())
            .is_some_and(|s| s.status == RoomStatus::Waiting)
    })
    .await;
    let state = app.room().unwrap().state.as_ref().unwrap();
    assert_eq!(state.config.variant(), Variant::Breaks);
    let out = jchomp(&["rooms", "--server", url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = stdout(&out);
    assert!(
        listed.contains("3×5 breaks poison 1,2 play normal no_square_bites"),
        "{listed}"
    );

    for (args, words) in [
        (
            &["--no-square-bites", "--eat", "2x2"][..],
            "--no-square-bites forbids the square --eat 2x2; give a size such as 1x2",
        ),
        (
            &[
                "--variant",
                "breaks",
                "--size",
                "3x5",
                "--poison",
                "0,0",
                "--poison",
                "1,1",
            ][..],
            "--variant breaks needs --poison given exactly once, got 2",
        ),
        (
            &["--variant", "breaks", "--eat", "1x2"][..],
            "--variant breaks takes no --eat",
        ),
        (&["--play", "sideways"][..], "sideways"),
    ] {
        let mut argv = vec!["create", "--server", url];
        argv.extend_from_slice(args);
        let out = jchomp(&argv).await;
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr(&out).contains(words), "{args:?}: {}", stderr(&out));
    }
}
