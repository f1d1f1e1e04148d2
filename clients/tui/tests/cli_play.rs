//! Quick pairing from the terminal client against a real server: `jchomp play` listing the
//! presets, two players paired into one room (the client's `App`, and `jchomp play` on a
//! pseudo-terminal beside a protocol client), stopping a wait with Esc, the lobby's "Play now"
//! list, players logged in paired into a rated room, and an unknown preset refused in the
//! server's words.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli_support;

use cli_support::{TestServer, jchomp, pump, stdout};
use jchomp_protocol::wire::{ClientMessage, RoomStatus, ServerMessage};
use jchomp_tui::app::{App, Screen, Start};
use jchomp_tui::connection::Connection;
use std::time::Duration;

/// A server whose pairing waves run every 100 ms, so that a pair is found at once.
async fn quick_server() -> TestServer {
    TestServer::start_with(jchomp_server::Settings {
        pairing_wave: Duration::from_millis(100),
        ..jchomp_testkit::server::settings()
    })
    .await
}

/// A protocol client waiting in `preset`'s pool as `name`.
async fn seeker(url: &str, preset: &str, name: &str) -> Connection {
    let mut conn = Connection::connect(url).await.unwrap();
    let msg = ClientMessage::Seek {
        preset: preset.into(),
        name: Some(name.into()),
        bots: false,
    };
    conn.request(&msg, |m| match m {
        ServerMessage::Seeking { .. } => Some(()),
        _ => None,
    })
    .await
    .unwrap()
    .unwrap();
    conn
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_without_a_preset_lists_the_presets_and_who_waits() {
    let server = TestServer::start().await;
    let url = server.url();
    let out = jchomp(&["--server", &url, "play"]).await;
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("PRESET"), "{text}");
    assert!(
        text.contains("duel")
            && text.contains("JChomp, 2 players, 7×7, eat 1×2, 30 s a move")
            && text.contains("blitz"),
        "{text}"
    );
    assert!(!text.contains("1 waiting"), "{text}");
    assert!(text.contains("after 20 s"), "the server's patience: {text}");
    let how = format!("`jchomp --server {url} play PRESET`");
    assert!(text.contains(&how), "{text}");
    // Someone waits for a duel: the list says so.
    let _zoe = seeker(&url, "duel", "zoe").await;
    let text = stdout(&jchomp(&["--server", &url, "play"]).await);
    let duel = text.lines().find(|l| l.starts_with("duel")).unwrap();
    assert!(duel.ends_with("1 waiting"), "{text}");
    // Waiting needs a terminal.
    let out = jchomp(&["--server", &url, "play", "duel"]).await;
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = cli_support::stderr(&out);
    assert!(err.contains("`jchomp play` is interactive"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_playing_a_duel_are_paired_into_one_room() {
    let server = quick_server().await;
    let url = server.url();
    let play = || Start::Play {
        preset: "duel".into(),
        bots: false,
    };
    let (mut ann, mut bob) = (App::new(&url, "ann", play()), App::new(&url, "bob", play()));
    let mut ann_conn = Connection::connect(&url).await.unwrap();
    let mut bob_conn = Connection::connect(&url).await.unwrap();
    let waits = |a: &App| matches!(&a.screen, Screen::Seeking(s) if s.waiting.is_some());
    pump(&mut ann, &mut ann_conn, waits).await;
    let playing = |a: &App| {
        a.room()
            .and_then(|r| r.state.as_ref())
            .is_some_and(|s| s.status == RoomStatus::Playing)
    };
    pump(&mut bob, &mut bob_conn, playing).await;
    pump(&mut ann, &mut ann_conn, playing).await;
    let (a, b) = (ann.room().unwrap(), bob.room().unwrap());
    assert_eq!(a.room, b.room, "one room for both");
    assert_ne!(a.seat, b.seat);
    assert!(a.token.is_some() && b.token.is_some(), "seats to resume");
    let names: Vec<String> = a
        .state
        .as_ref()
        .unwrap()
        .seats
        .iter()
        .map(|s| s.as_ref().unwrap().name.clone())
        .collect();
    assert!(names.contains(&"ann".to_owned()) && names.contains(&"bob".to_owned()));
    assert!(
        !a.state.as_ref().unwrap().config_json.rated,
        "guests play unrated"
    );
}

#[cfg(unix)]
mod terminal {
    use super::*;
    use cli_support::tty::Tty;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn jchomp_play_waits_then_is_seated_with_the_next_player() {
        let server = quick_server().await;
        let url = server.url();
        let mut tty = Tty::spawn(&["--server", &url, "--name", "ann", "play", "duel"], true);
        let screen = tty.wait_for("Waiting now       1 (you included)").await;
        assert!(
            screen.contains("Waiting for a duel game: JChomp, 2 players, 7×7"),
            "{screen}"
        );
        assert!(screen.contains("Paired by rating  1500"), "{screen}");
        assert!(screen.contains("Bots              people only"), "{screen}");
        let mut zoe = seeker(&url, "duel", "zoe").await;
        let room = cli_support::recv_until(&mut zoe, |m| match m {
            ServerMessage::Paired { room, .. } => Some(room),
            _ => None,
        })
        .await;
        let screen = tty.wait_for(&format!("room {room}")).await;
        tty.wait_for("zoe").await;
        assert!(!screen.contains("Waiting for a duel"), "{screen}");
        // The seat is kept like any other: quitting the game in play says how to resume it.
        tty.press("q");
        assert!(tty.wait_exit().await);
        let raw = tty.raw();
        assert!(raw.contains("jchomp --server"), "{raw}");
        assert!(raw.contains(&format!("join {room}")), "{raw}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn players_logged_in_are_paired_into_a_rated_room() {
        let server = quick_server().await;
        let url = server.url();
        let state = std::sync::Arc::new(jchomp_testkit::temp::TempDir::new("jchomp-state"));
        let env = [
            ("XDG_STATE_HOME", state.path().to_str().unwrap()),
            ("JCHOMP_PASSWORD", "secret pw1"),
        ];
        let out = cli_support::jchomp_env(&["--server", &url, "register", "Ann"], &env).await;
        assert!(out.status.success(), "{out:?}");
        let args = ["--server", url.as_str(), "play", "duel"];
        let tty = Tty::spawn_in(&args, true, std::sync::Arc::clone(&state), (80, 24));
        let screen = tty.wait_for("Waiting now       1 (you included)").await;
        assert!(screen.contains("Logged in as Ann."), "{screen}");
        let mut zoe = jchomp_testkit::server::logged_in(server.addr, "zoe", true).await;
        zoe.send(serde_json::json!({"type":"seek","preset":"duel"}))
            .await;
        let paired = zoe.until("paired").await;
        tty.wait_for("zoe").await;
        let mut lister = Connection::connect(&url).await.unwrap();
        lister.send(&ClientMessage::ListRooms).await.unwrap();
        let rooms = cli_support::recv_until(&mut lister, |m| match m {
            ServerMessage::Rooms { rooms } => Some(rooms),
            _ => None,
        })
        .await;
        let room = rooms
            .iter()
            .find(|r| r.room == paired["room"].as_str().unwrap())
            .unwrap();
        assert!(room.config.rated, "{room:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn esc_stops_waiting_and_exits_with_words() {
        let server = quick_server().await;
        let url = server.url();
        let mut tty = Tty::spawn(&["--server", &url, "play", "blitz", "--bots"], true);
        let screen = tty.wait_for("Waiting now       1 (you included)").await;
        assert!(
            screen.contains("fill the empty seats after 20 s"),
            "{screen}"
        );
        tty.press("\u{1b}");
        assert!(tty.wait_exit().await, "exits 0");
        assert!(
            tty.raw().contains("You stopped waiting for a blitz game."),
            "{}",
            tty.raw()
        );
        // The pool is empty again.
        let text = stdout(&jchomp(&["--server", &url, "play"]).await);
        let blitz = text.lines().find(|l| l.starts_with("blitz")).unwrap();
        assert!(blitz.ends_with("0 waiting"), "{text}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_lobby_plays_now_and_esc_goes_back() {
        let server = quick_server().await;
        let url = server.url();
        let mut tty = Tty::spawn(&["--server", &url, "--name", "ann"], true);
        tty.wait_for("p play now").await;
        tty.press("p");
        let screen = tty.wait_for("1 duel").await;
        assert!(screen.contains("2 blitz"), "{screen}");
        tty.press("1");
        tty.wait_for("Waiting now       1 (you included)").await;
        tty.press("\u{1b}");
        let screen = tty.wait_for("You stopped waiting for a duel game.").await;
        assert!(screen.contains("lobby"), "{screen}");
        tty.press("q");
        assert!(tty.wait_exit().await);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_unknown_preset_is_refused_in_the_servers_words() {
        let server = TestServer::start().await;
        let mut tty = Tty::spawn(&["--server", &server.url(), "play", "nope"], true);
        assert!(!tty.wait_exit().await, "exits 1");
        let raw = tty.raw();
        assert!(raw.contains("jchomp: "), "{raw}");
        assert!(
            raw.contains("no preset \"nope\"; the presets are duel"),
            "{raw}"
        );
    }
}
