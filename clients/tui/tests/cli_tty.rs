//! The interactive `jchomp` driven through a pseudo-terminal against a real server: the lobby,
//! joining with Enter, typed coordinates, the screen restored on quit, colours and `NO_COLOR`,
//! and resuming the seat by itself when the connection drops.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli_support;

use cli_support::tty::Tty;
use cli_support::{Proxy, TestServer, recv_until};
use jchomp_protocol::wire::{ClientMessage, ServerMessage};
use jchomp_testkit::config_json;
use jchomp_testkit::temp::TempDir;
use jchomp_tui::connection::Connection;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

async fn room_with_zoe(url: &str) -> (Connection, String) {
    let mut zoe = Connection::connect(url).await.unwrap();
    let config = config_json("4x5 poison 0,0");
    let msg = ClientMessage::CreateRoom {
        bots: None,
        name: "zoe".into(),
        config,
    };
    let room = zoe
        .request(&msg, |m| match m {
            ServerMessage::Joined { room, .. } => Some(room),
            _ => None,
        })
        .await
        .unwrap()
        .unwrap();
    (zoe, room)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_from_the_lobby_in_a_terminal_and_restore_it_on_quit() {
    let server = TestServer::start().await;
    let (mut zoe, room) = room_with_zoe(&server.url()).await;

    let mut tty = Tty::spawn(&["--server", &server.url(), "--name", "ann"], true);
    let screen = tty.wait_for(&format!("> {room}")).await;
    assert!(screen.contains("lobby"), "{screen}");
    assert!(screen.contains("zoe, -"), "{screen}");

    // Enter joins the selected room; zoe (seat 0) moves first.
    tty.press("\r");
    tty.wait_for("zoe to move").await;
    zoe.send(&ClientMessage::Move { row: 3, col: 4 })
        .await
        .unwrap();
    let screen = tty.wait_for("Your turn").await;
    assert!(screen.contains(" 3  #  #  #  #  ~"), "{screen}");
    assert!(screen.contains("Last: zoe at 3,4"), "{screen}");

    // A refused selection is explained; typed coordinates eat.
    tty.press("3,4\r");
    tty.wait_for("Cannot eat at 3,4: part of the 1×1 selection at (3,4) is already eaten.")
        .await;
    tty.press("2,4\r");
    recv_until(&mut zoe, |m| match m {
        ServerMessage::Moved(m) if m.seat == 1 && (m.row, m.col) == (2, 4) => Some(()),
        _ => None,
    })
    .await;
    tty.wait_for("Last: ann at 2,4").await;

    tty.press("q");
    assert!(tty.wait_exit().await);
    let raw = tty.raw();
    // The alternate screen was left and the cursor shown again.
    let left = raw
        .rfind("\u{1b}[?1049l")
        .expect("left the alternate screen");
    assert!(raw.rfind("\u{1b}[?1049h").unwrap() < left);
    assert!(
        raw[left.saturating_sub(20)..].contains("\u{1b}[?25h"),
        "{raw:?}"
    );
    assert!(!raw.contains("\u{1b}[38;5;"), "NO_COLOR was ignored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colours_are_used_unless_no_color_is_set() {
    let server = TestServer::start().await;
    let (_zoe, room) = room_with_zoe(&server.url()).await;
    let mut tty = Tty::spawn(
        &["--server", &server.url(), "--name", "eve", "watch", &room],
        false,
    );
    let screen = tty.wait_for("watching").await;
    assert!(screen.contains(" 0  P  #  #  #  #"), "{screen}");
    tty.press("q");
    assert!(tty.wait_exit().await);
    assert!(tty.raw().contains("\u{1b}[38;5;"), "no colour at all");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_connection_is_resumed_by_itself() {
    let server = TestServer::start().await;
    let proxy = Proxy::start(&server.url()).await;
    let (mut zoe, room) = room_with_zoe(&server.url()).await;
    let mut tty = Tty::spawn(
        &["--server", &proxy.url, "--name", "ann", "join", &room],
        true,
    );
    tty.wait_for("zoe to move").await;

    // The connection drops: the server marks the seat offline, the client resumes it.
    proxy.cut();
    recv_until(&mut zoe, |m| match m {
        ServerMessage::Room(s) if s.seats[1].as_ref().is_some_and(|s| !s.connected) => Some(()),
        _ => None,
    })
    .await;
    recv_until(&mut zoe, |m| match m {
        ServerMessage::Room(s) if s.seats[1].as_ref().is_some_and(|s| s.connected) => Some(()),
        _ => None,
    })
    .await;
    let screen = tty.wait_for("Back in your seat 1").await;
    // The command is whole on one line, with the server it needs.
    let line = screen
        .lines()
        .find(|l| l.starts_with("jchomp --server"))
        .expect("the screen shows the resume command");
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        words[..4],
        ["jchomp", "--server", proxy.url.as_str(), "resume"]
    );
    let token = words[4].to_owned();

    // The game goes on over the new connection.
    zoe.send(&ClientMessage::Move { row: 3, col: 4 })
        .await
        .unwrap();
    tty.wait_for("Your turn").await;
    tty.press("0,4\r");
    recv_until(&mut zoe, |m| match m {
        ServerMessage::Moved(m) if m.seat == 1 && (m.row, m.col) == (0, 4) => Some(()),
        _ => None,
    })
    .await;

    // Resuming the seat from elsewhere (with the token the screen shows) ends this client's
    // connection for good, and it says so.
    let mut other = Tty::spawn(&["--server", &server.url(), "resume", &token], true);
    other.wait_for("zoe to move").await;
    tty.wait_for("Your seat was resumed from another connection")
        .await;
    other.press("q");
    assert!(other.wait_exit().await);
    // Leaving a game in progress says how to come back, after the screen is restored.
    let raw = other.raw();
    let left = raw.rfind("\u{1b}[?1049l").unwrap();
    let printed = format!(
        "take it back with:\r\njchomp --server {} resume {token}\r\n",
        server.url()
    );
    assert!(raw[left..].contains(&printed), "{:?}", &raw[left..]);
    tty.press("q");
    assert!(tty.wait_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_game_is_stepped_through_with_the_arrow_keys() {
    let server = TestServer::start().await;
    let (app, _conn) = cli_support::play_vs_bots(&server.url(), "--size 4x4 --bot random").await;
    let n = app
        .room()
        .unwrap()
        .state
        .as_ref()
        .unwrap()
        .game
        .moves()
        .len();
    let mut conn = Connection::connect(&server.url()).await.unwrap();
    let mut game = None;
    for _ in 0..50 {
        let msg = ClientMessage::ListGames { limit: None };
        let games = conn
            .request(&msg, |m| match m {
                ServerMessage::Games { games } => Some(games),
                _ => None,
            })
            .await
            .unwrap()
            .unwrap();
        if let Some(g) = games.first() {
            game = Some(g.game.clone());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let game = game.expect("the game was stored");

    let mut tty = Tty::spawn(&["--server", &server.url(), "replay", &game], true);
    tty.wait_for(&format!("replay {n}/{n}")).await;
    tty.wait_for("Game over").await;
    tty.press("\u{1b}[D");
    tty.wait_for(&format!("replay {}/{n}", n - 1)).await;
    tty.press("\u{1b}[H");
    let screen = tty.wait_for(&format!("replay 0/{n}")).await;
    assert!(screen.contains(" 0  P  #  #  #"), "{screen}");
    assert!(screen.contains("ann to move"), "{screen}");
    tty.press("q");
    assert!(tty.wait_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hint_key_shows_the_engines_verdicts() {
    let server = TestServer::start().await;
    let args = [
        "--server",
        &server.url(),
        "--name",
        "ann",
        "create",
        "--size",
        "4x4",
        "--eat",
        "2x2",
        "--bot",
        "random",
    ];
    let mut tty = Tty::spawn(&args, true);
    tty.wait_for("Your turn").await;
    tty.press("?");
    // The cursor starts on the first safe cell; the poison keeps its symbol.
    let screen = tty.wait_for("hint: ties (=)").await;
    assert!(screen.contains(" 0  P  [#] [#]  #"), "{screen}");
    assert!(screen.contains(" 2 -3  -3   =   #"), "{screen}");
    tty.press("?");
    tty.press("q");
    assert!(tty.wait_exit().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotations_keep_their_marks_and_legend_with_and_without_colour() {
    let server = TestServer::start().await;
    let url = server.url();
    // 4×5, eat 1×2: 0,2 wins in 8, the other selections but the poison tie.
    let args = [
        "--server", &url, "--name", "ann", "create", "--size", "4x5", "--eat", "1x2", "--bot",
        "random",
    ];
    for no_color in [true, false] {
        let mut tty = Tty::spawn(&args, no_color);
        tty.wait_for("Your turn").await;
        tty.press("?");
        let screen = tty
            .wait_for("half-moves to the end if taken: +N win, -N loss (longest delay)")
            .await;
        // The cursor starts on 0,1 (safe); its rectangle keeps its brackets, the poison its P.
        assert!(screen.contains(" 0  P  [#] [#]  =   #"), "{screen}");
        assert!(screen.contains(" 1  =   =   =   =   #"), "{screen}");
        assert!(screen.contains("hint: ties (=)"), "{screen}");
        tty.press("j");
        let screen = tty.wait_for(" 0  P   =  +8   =   #").await;
        assert!(screen.contains(" 1  =  [#] [#]  =   #"), "{screen}");
        tty.press("q");
        assert!(tty.wait_exit().await);
        let raw = tty.raw();
        if no_color {
            assert!(!raw.contains("\u{1b}[38;5;"), "NO_COLOR was ignored");
        } else {
            // A win green, a tie yellow (foreground; default background).
            for cell in ["38;5;10;49m+8  ", "38;5;11;49m =  "] {
                assert!(raw.contains(cell), "{cell:?} not in {raw:?}");
            }
        }
    }
}

/// Issue 15, item 1: a client that dies keeps its seat. The token is kept in the user's state
/// directory, and joining the room again offers the seat back instead of saying it is full.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item1_a_dead_client_takes_its_seat_back_on_join() {
    let server = TestServer::start().await;
    let url = server.url();
    let (mut zoe, room) = room_with_zoe(&url).await;
    let state = Arc::new(TempDir::new("jchomp-state"));
    let args = [
        "--server",
        url.as_str(),
        "--name",
        "ann",
        "join",
        room.as_str(),
    ];
    let mut tty = Tty::spawn_in(&args, true, Arc::clone(&state), (80, 24));
    tty.wait_for("zoe to move").await;
    // Killed outright: nothing is printed, nothing is cleaned up.
    tty.child.kill().unwrap();
    let _ = tty.child.wait();
    recv_until(&mut zoe, |m| match m {
        ServerMessage::Room(s) if s.seats[1].as_ref().is_some_and(|s| !s.connected) => Some(()),
        _ => None,
    })
    .await;
    let kept = std::fs::read_to_string(state.path().join("jchomp/seats.json")).unwrap();
    assert!(kept.contains(&room), "{kept}");

    let mut again = Tty::spawn_in(&args, true, Arc::clone(&state), (80, 24));
    again
        .wait_for(&format!("Resume your game in room {room}? [Y/n]"))
        .await;
    again.press("y");
    again.wait_for("Back in your seat 1").await;
    recv_until(&mut zoe, |m| match m {
        ServerMessage::Room(s) if s.seats[1].as_ref().is_some_and(|s| s.connected) => Some(()),
        _ => None,
    })
    .await;
    again.press("q");
    assert!(again.wait_exit().await);
}

/// Issue 15, item 2: SIGTERM, SIGHUP and SIGINT leave the terminal as it was (echo and line
/// editing back on, the main screen shown) and print how to take the seat back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item2_a_signal_restores_the_terminal_and_prints_the_resume_command() {
    use rustix::termios::{LocalModes, tcgetattr};
    let server = TestServer::start().await;
    let url = server.url();
    for (signal, code) in [("TERM", 143), ("HUP", 129), ("INT", 130)] {
        let (_zoe, room) = room_with_zoe(&url).await;
        let args = [
            "--server",
            url.as_str(),
            "--name",
            "ann",
            "join",
            room.as_str(),
        ];
        let mut tty = Tty::spawn(&args, true);
        tty.wait_for("zoe to move").await;
        let raw_mode = tcgetattr(&tty.keys).unwrap();
        assert!(!raw_mode.local_modes.contains(LocalModes::ECHO));
        let killed = Command::new("kill")
            .args([format!("-{signal}"), tty.child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let mut status = None;
        for _ in 0..200 {
            status = tty.child.try_wait().unwrap();
            if status.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let status = status.expect("the client exits on the signal");
        assert_eq!(status.code(), Some(code), "SIG{signal}");
        let modes = tcgetattr(&tty.keys).unwrap().local_modes;
        assert!(
            modes.contains(LocalModes::ECHO | LocalModes::ICANON | LocalModes::ISIG),
            "SIG{signal} left the terminal raw: {modes:?}"
        );
        tty.drain().await;
        let raw = tty.raw();
        let left = raw
            .rfind("\u{1b}[?1049l")
            .unwrap_or_else(|| panic!("SIG{signal}: the main screen is back"));
        let after = &raw[left..];
        assert!(
            after.contains(&format!("jchomp --server {url} resume ")),
            "SIG{signal}: {after:?}"
        );
    }
}

/// `jchomp register` at a terminal asks for the password twice without echoing it; the
/// interactive client then logs in with the kept session, so `create --rated` makes a rated
/// room seated under the account, the built-in level marked as a bot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_at_a_terminal_then_create_a_rated_room() {
    let server = TestServer::start().await;
    let url = server.url();
    let state = Arc::new(TempDir::new("jchomp-state"));
    let args = ["--server", url.as_str(), "register", "Ann"];
    let mut tty = Tty::spawn_in(&args, true, Arc::clone(&state), (80, 24));
    tty.wait_for("Password:").await;
    tty.press("secret pw1\r");
    tty.wait_for("Password again:").await;
    tty.press("secret pw1\r");
    assert!(tty.wait_exit().await, "{}", tty.screen());
    assert!(
        tty.screen().contains("Registered as Ann"),
        "{}",
        tty.screen()
    );
    assert!(!tty.raw().contains("secret"), "echoed: {:?}", tty.raw());

    let args = [
        "--server",
        url.as_str(),
        "create",
        "--size",
        "4x4",
        "--rated",
        "--bot",
        "level:1",
    ];
    let mut tty = Tty::spawn_in(&args, true, Arc::clone(&state), (80, 24));
    let screen = tty.wait_for("Your turn").await;
    assert!(screen.contains("level:1 [bot]"), "{screen}");
    let mut conn = Connection::connect(&url).await.unwrap();
    let rooms = list_rooms(&mut conn).await;
    assert_eq!(rooms.len(), 1, "{rooms:?}");
    assert!(rooms[0].config.rated);
    let seats: Vec<(&str, bool)> = rooms[0]
        .seats
        .iter()
        .flatten()
        .map(|s| (s.name.as_str(), s.bot))
        .collect();
    assert_eq!(seats, [("Ann", false), ("level:1", true)]);
    tty.press("q");
    tty.wait_exit().await;
}

/// A kept session the server no longer takes is forgotten when the client connects: the lobby
/// says so and goes on as a guest; a rated room cannot be created with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_the_server_refuses_is_forgotten_when_the_client_connects() {
    let server = TestServer::start().await;
    let url = server.url();
    let state = Arc::new(TempDir::new("jchomp-state"));
    let file = state.path().join("jchomp/session.json");
    let stale = || {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let session = serde_json::json!({"sessions": [
            {"server": url, "name": "ghost", "token": "revoked", "expires_ms": 0}]});
        std::fs::write(&file, session.to_string()).unwrap();
    };

    stale();
    let args = ["--server", url.as_str()];
    let mut tty = Tty::spawn_in(&args, true, Arc::clone(&state), (80, 24));
    tty.wait_for("The session of ghost on this server has expired")
        .await;
    assert!(!file.exists());
    tty.press("q");
    assert!(tty.wait_exit().await);

    stale();
    let args = ["--server", url.as_str(), "create", "--rated"];
    let mut tty = Tty::spawn_in(&args, true, Arc::clone(&state), (80, 24));
    assert!(!tty.wait_exit().await);
    let screen = tty.screen();
    assert!(
        screen.contains("jchomp: the session of ghost on this server has expired"),
        "{screen}"
    );
    assert!(!file.exists());
}

/// After a dropped connection the client logs in again before it takes its seat back: once
/// the rated game is over, `n` opens a new rated room, which a guest could not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnect_logs_in_again() {
    let server = TestServer::start().await;
    let proxy = Proxy::start(&server.url()).await;
    let state = Arc::new(TempDir::new("jchomp-state"));
    let env = [
        ("XDG_STATE_HOME", state.path().to_str().unwrap()),
        ("JCHOMP_PASSWORD", "secret pw1"),
    ];
    let out = cli_support::jchomp_env(&["--server", &proxy.url, "register", "Ann"], &env).await;
    assert!(out.status.success(), "{}", cli_support::stderr(&out));

    let args = [
        "--server",
        proxy.url.as_str(),
        "create",
        "--size",
        "4x4",
        "--rated",
        "--bot",
        "level:1",
    ];
    let mut tty = Tty::spawn_in(&args, true, Arc::clone(&state), (80, 24));
    tty.wait_for("Your turn").await;
    proxy.cut();
    tty.wait_for("Back in your seat 0").await;
    // Eating the poison asks for a second Enter; Ann loses.
    tty.press("0,0\r");
    tty.press("\r");
    tty.wait_for("You ate poison and lost; level:1 wins.").await;
    let mut conn = Connection::connect(&server.url()).await.unwrap();
    let first = list_rooms(&mut conn).await;
    assert_eq!(first.len(), 1, "{first:?}");
    tty.press("n");
    // The new room, under Ann's account and rated (the finished one closes once she leaves).
    let mut new = None;
    for _ in 0..100 {
        let rooms = list_rooms(&mut conn).await;
        new = rooms.into_iter().find(|r| r.room != first[0].room);
        if new.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let new = new.unwrap_or_else(|| panic!("no new room: {}", tty.screen()));
    assert!(new.config.rated, "{new:?}");
    assert_eq!(new.seats[0].as_ref().unwrap().name, "Ann", "{new:?}");
    tty.press("q");
    tty.wait_exit().await;
}

async fn list_rooms(conn: &mut Connection) -> Vec<jchomp_protocol::wire::RoomSummary> {
    conn.request(&ClientMessage::ListRooms, |m| match m {
        ServerMessage::Rooms { rooms } => Some(rooms),
        _ => None,
    })
    .await
    .unwrap()
    .unwrap()
}
