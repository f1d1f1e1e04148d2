//! The interactive client's logic (`App`: keys in, messages out, screens drawn) driven against
//! a real server on 127.0.0.1:0, without a terminal.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli_support;

use cli_support::{TestServer, pick_selection, play_vs_bots, pump, screen, type_line};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jchomp_protocol::wire::{ClientMessage, RoomStatus};
use jchomp_tui::app::{App, Screen, Start};
use jchomp_tui::cli::CreateArgs;
use jchomp_tui::connection::Connection;
use jchomp_tui::render_game::Link;

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn status(app: &App) -> Option<RoomStatus> {
    app.room().and_then(|r| r.state.as_ref()).map(|s| s.status)
}

fn moves(app: &App) -> usize {
    app.room()
        .and_then(|r| r.state.as_ref())
        .map_or(0, |s| s.game.moves().len())
}

/// Creates a `players`-seat room through an `App` and returns it with its id.
async fn create(url: &str, flags: &str) -> (App, Connection, String) {
    let mut app = App::new(
        url,
        "ann",
        Start::Create(CreateArgs::parse_form(flags).unwrap()),
    );
    let mut conn = Connection::connect(url).await.unwrap();
    pump(&mut app, &mut conn, |a| status(a).is_some()).await;
    let room = app.room().unwrap().room.clone().unwrap();
    (app, conn, room)
}

async fn start(url: &str, name: &str, start: Start) -> (App, Connection) {
    let app = App::new(url, name, start);
    let conn = Connection::connect(url).await.unwrap();
    (app, conn)
}

#[tokio::test]
async fn create_with_bots_then_play_to_the_end_with_typed_coordinates() {
    let server = TestServer::start().await;
    let flags = "--size 5x5 --eat 1x2 --players 3 --bot greedy --bot random";
    let (app, _conn) = play_vs_bots(&server.url(), flags).await;
    let text = screen(&app);
    assert!(text.contains("Game over"), "{text}");
    assert!(text.contains("[bot]"), "{text}");
    let state = app.room().unwrap().state.as_ref().unwrap();
    let words = jchomp_tui::explain::outcome(state.result.unwrap(), &state.seats, Some(0));
    assert!(text.contains(&words), "{text}");
    // The local copy replays to the same state the server reports.
    assert_eq!(state.eaten(), state.game.position().eaten(&state.config));
}

#[tokio::test]
async fn small_classic_bars_are_created_and_played_to_the_end() {
    let server = TestServer::start().await;
    // The standard 3×5 bar, and one-row and one-column bars drawn on the screen.
    for (size, rows) in [("3x5", 3), ("1x6", 1), ("6x1", 6), ("1x2", 1)] {
        let flags = format!("--variant classic --size {size} --bot random");
        let (app, _conn) = play_vs_bots(&server.url(), &flags).await;
        let text = screen(&app);
        assert!(text.contains("Game over"), "{text}");
        let state = app.room().unwrap().state.as_ref().unwrap();
        assert_eq!(
            state.config.to_string(),
            format!("{size} variant classic poison 0,0")
        );
        assert_eq!(state.config.rows(), rows);
        assert!(
            matches!(
                state.game.result(),
                Some(jchomp_protocol::rules::GameResult::Poisoned { .. })
            ),
            "{text}"
        );
        assert_eq!(state.result.map(Into::into), state.game.result());
        assert_eq!(state.eaten(), state.game.position().eaten(&state.config));
    }
}

#[tokio::test]
async fn a_rematch_against_bots_plays_again_in_the_same_room() {
    let server = TestServer::start().await;
    let (mut app, mut conn) = play_vs_bots(&server.url(), "--size 4x4 --bot greedy").await;
    let room = app.room().unwrap().room.clone();
    key(&mut app, KeyCode::Char('r'));
    // Bots agree: the one person's ask starts the new game at once.
    pump(&mut app, &mut conn, |a| {
        status(a) == Some(RoomStatus::Playing)
    })
    .await;
    assert_eq!(app.room().unwrap().room, room, "the same room");
    assert_eq!(moves(&app), 0);
    assert_eq!(app.room().unwrap().game_no, 2);
    let text = screen(&app);
    assert!(text.contains("Your turn"), "{text}");
}

#[tokio::test]
async fn join_watch_and_play_with_the_cursor() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    let (mut ann, mut ann_conn, room) = create(url, "--size 4x5 --eat 1x1").await;
    assert_eq!(status(&ann), Some(RoomStatus::Waiting));
    assert!(
        screen(&ann).contains("Waiting for 1 more player"),
        "{}",
        screen(&ann)
    );

    let (mut bob, mut bob_conn) = start(url, "bob", Start::Join(room.clone())).await;
    pump(&mut bob, &mut bob_conn, |a| {
        status(a) == Some(RoomStatus::Playing)
    })
    .await;
    assert_eq!(bob.room().unwrap().seat, Some(1));
    pump(&mut ann, &mut ann_conn, |a| {
        status(a) == Some(RoomStatus::Playing)
    })
    .await;
    assert!(screen(&ann).contains("Your turn"), "{}", screen(&ann));

    let (mut eve, mut eve_conn) = start(url, "eve", Start::Watch(room.clone())).await;
    pump(&mut eve, &mut eve_conn, |a| status(a).is_some()).await;
    assert!(screen(&eve).contains("watching"), "{}", screen(&eve));
    key(&mut eve, KeyCode::Enter);
    assert!(eve.take_outbox().is_empty());

    // Bob may not move yet: refused locally, nothing sent.
    key(&mut bob, KeyCode::Enter);
    assert!(bob.take_outbox().is_empty());
    assert_eq!(bob.notice().unwrap().text, "It is not your turn.");

    // Ann moves the cursor to 3,4 (bottom right) and eats.
    for _ in 0..3 {
        key(&mut ann, KeyCode::Down);
    }
    for _ in 0..4 {
        key(&mut ann, KeyCode::Char('l'));
    }
    assert!(
        screen(&ann).contains("3,4: eats 1 cell"),
        "{}",
        screen(&ann)
    );
    key(&mut ann, KeyCode::Enter);
    pump(&mut ann, &mut ann_conn, |a| moves(a) == 1).await;
    pump(&mut bob, &mut bob_conn, |a| moves(a) == 1).await;
    pump(&mut eve, &mut eve_conn, |a| moves(a) == 1).await;
    for app in [&ann, &bob, &eve] {
        let text = screen(app);
        assert!(text.contains("Last: ann at 3,4 (move 1)"), "{text}");
    }
    // Ann's cursor still covers the cell she ate; the others see the last move plainly.
    assert!(
        screen(&ann).contains(" 3  #  #  #  # <~>"),
        "{}",
        screen(&ann)
    );
    assert!(
        screen(&bob).contains(" 3  #  #  #  #  ~"),
        "{}",
        screen(&bob)
    );
    assert!(
        screen(&eve).contains(" 3  #  #  #  #  ~"),
        "{}",
        screen(&eve)
    );
    assert!(screen(&bob).contains("Your turn"), "{}", screen(&bob));

    // Bob tries the eaten cell: refused locally with the reason.
    type_line(&mut bob, "3,4");
    assert!(bob.take_outbox().is_empty());
    assert!(bob.notice().unwrap().text.contains("already eaten"));
}

#[tokio::test]
async fn host_adds_a_bot_with_a_key_and_errors_read_as_words() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    let (mut ann, mut conn, room) = create(url, "--size 4x4 --players 2").await;

    // Someone else may not add bots.
    let (mut bob, mut bob_conn) = start(url, "bob", Start::Watch(room.clone())).await;
    pump(&mut bob, &mut bob_conn, |a| status(a).is_some()).await;

    key(&mut ann, KeyCode::Char('b'));
    type_line(&mut ann, "greedy");
    pump(&mut ann, &mut conn, |a| {
        status(a) == Some(RoomStatus::Playing)
    })
    .await;
    let text = screen(&ann);
    assert!(text.contains("[bot]"), "{text}");

    // A full room, then a room that does not exist.
    let (mut cat, mut cat_conn) = start(url, "cat", Start::Join(room.clone())).await;
    pump(&mut cat, &mut cat_conn, |a| a.notice().is_some()).await;
    assert!(matches!(cat.screen, Screen::Lobby));
    assert_eq!(
        cat.notice().unwrap().text.split(':').next().unwrap(),
        "That room is full"
    );
    assert!(
        cat.notice()
            .unwrap()
            .text
            .ends_with("press w to watch instead.")
    );
    let (mut dan, mut dan_conn) = start(url, "dan", Start::Join("nope".into())).await;
    pump(&mut dan, &mut dan_conn, |a| a.notice().is_some()).await;
    let text = screen(&dan);
    assert!(text.contains("There is no room with that id"), "{text}");
    assert!(!text.contains("{\""), "{text}");
}

#[tokio::test]
async fn a_dropped_seat_is_resumed_and_the_game_goes_on() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    let (mut ann, ann_conn, room) = create(url, "--size 4x4").await;
    let (mut bob, mut bob_conn) = start(url, "bob", Start::Join(room.clone())).await;
    pump(&mut bob, &mut bob_conn, |a| {
        status(a) == Some(RoomStatus::Playing)
    })
    .await;

    // Ann's connection drops; bob sees her seat offline.
    drop(ann_conn);
    ann.on_link(Link::Reconnecting);
    assert!(screen(&ann).contains("reconnecting"));
    pump(&mut bob, &mut bob_conn, |a| {
        screen(a).contains("ann [offline")
    })
    .await;

    // Ann reconnects and resumes with her token.
    let rejoin = ann.rejoin();
    assert!(matches!(rejoin, ClientMessage::Resume { .. }));
    let mut ann_conn = Connection::connect(url).await.unwrap();
    ann_conn.send(&rejoin).await.unwrap();
    ann.on_link(Link::Online);
    pump(&mut ann, &mut ann_conn, |a| {
        status(a) == Some(RoomStatus::Playing) && !screen(a).contains("[offline]")
    })
    .await;
    pump(&mut bob, &mut bob_conn, |a| {
        !screen(a).contains("[offline]")
    })
    .await;
    let cell = pick_selection(&ann).unwrap();
    type_line(&mut ann, &format!("{},{}", cell.row, cell.col));
    pump(&mut ann, &mut ann_conn, |a| moves(a) == 1).await;
    pump(&mut bob, &mut bob_conn, |a| moves(a) == 1).await;

    // `jchomp resume TOKEN` starts from the token alone.
    let token = ann.token().unwrap().to_owned();
    drop(ann_conn);
    let (mut again, mut again_conn) = start(url, "ann", Start::Resume(token)).await;
    pump(&mut again, &mut again_conn, |a| moves(a) == 1).await;
    assert_eq!(again.room().unwrap().seat, Some(0));

    // A forged token goes back to the lobby with words.
    let (mut forger, mut forger_conn) = start(url, "x", Start::Resume("forged-token".into())).await;
    pump(&mut forger, &mut forger_conn, |a| a.notice().is_some()).await;
    assert!(matches!(forger.screen, Screen::Lobby));
    assert!(
        forger
            .notice()
            .unwrap()
            .text
            .starts_with("That seat can no longer be resumed"),
        "{:?}",
        forger.notice()
    );
}

#[tokio::test]
async fn the_lobby_lists_rooms_and_joins_the_selected_one() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    let (_ann, _ann_conn, room) = create(url, "--size 6x7 --eat 1x2").await;
    let (mut bob, mut bob_conn) = start(url, "bob", Start::Lobby).await;
    pump(&mut bob, &mut bob_conn, |a| !a.rooms().is_empty()).await;
    let text = screen(&bob);
    assert!(text.contains(&format!("> {room}")), "{text}");
    assert!(text.contains("6×7 eat 1×2"), "{text}");
    key(&mut bob, KeyCode::Enter);
    pump(&mut bob, &mut bob_conn, |a| {
        status(a) == Some(RoomStatus::Playing)
    })
    .await;
    assert_eq!(bob.room().unwrap().seat, Some(1));
}

#[tokio::test]
async fn the_lobby_lists_finished_games_and_replays_one() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    let (played, _conn) = play_vs_bots(url, "--size 4x4 --bot greedy").await;
    let n = moves(&played);
    let (mut app, mut conn) = start(url, "bob", Start::Lobby).await;
    pump(&mut app, &mut conn, |a| status(a).is_none()).await;
    // The game is stored as it finishes; ask until it is listed.
    for _ in 0..50 {
        key(&mut app, KeyCode::Char('g'));
        for m in app.take_outbox() {
            conn.send(&m).await.unwrap();
        }
        let listed = async {
            loop {
                let m = conn.recv().await.unwrap();
                let listed = matches!(m, jchomp_protocol::wire::ServerMessage::Games { .. });
                app.on_message(m, std::time::Instant::now());
                if listed {
                    break;
                }
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(10), listed)
            .await
            .expect("the games list came");
        if !app.games().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(app.games().len(), 1);
    assert!(screen(&app).contains("ann v greedy"), "{}", screen(&app));
    key(&mut app, KeyCode::Enter);
    pump(&mut app, &mut conn, |a| {
        matches!(a.screen, Screen::Replay { .. })
    })
    .await;
    key(&mut app, KeyCode::End);
    let text = screen(&app);
    assert!(text.contains(&format!("replay {n}/{n}")), "{text}");
    assert!(text.contains("Game over"), "{text}");
    key(&mut app, KeyCode::Esc);
    assert!(matches!(app.screen, Screen::Games { .. }));
}
