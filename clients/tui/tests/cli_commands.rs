//! The scriptable `jchomp` commands (`rooms`, `games`, `replay`, `create` refusals) run as a
//! process against a real server started in this test on 127.0.0.1:0.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli_support;

use cli_support::{TestServer, jchomp, jchomp_env, play_vs_bots, stderr, stdout};
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::{GameSummary, RoomStatus, RoomSummary};

#[tokio::test]
async fn rooms_lists_rooms_as_json_and_as_a_table() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    let out = jchomp(&["rooms", "--json", "--server", url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let rooms: Vec<RoomSummary> = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(rooms.is_empty());

    // A room waiting for a second player.
    let mut conn = jchomp_tui::connection::Connection::connect(url)
        .await
        .unwrap();
    let args = jchomp_tui::cli::CreateArgs::parse_form("--size 5x6 --eat 1x2 --players 3").unwrap();
    let msg = jchomp_protocol::wire::ClientMessage::CreateRoom {
        bots: None,
        name: "zoe".into(),
        config: args.config_json().unwrap(),
    };
    let room = conn
        .request(&msg, |m| match m {
            jchomp_protocol::wire::ServerMessage::Joined { room, .. } => Some(room),
            _ => None,
        })
        .await
        .unwrap()
        .unwrap();

    let out = jchomp(&["rooms", "--json", "--server", url]).await;
    let rooms: Vec<RoomSummary> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(rooms.len(), 1);
    assert_eq!(rooms[0].room, room);
    assert_eq!(rooms[0].status, RoomStatus::Waiting);
    assert_eq!(rooms[0].seats.len(), 3);
    assert_eq!(rooms[0].seats[0].as_ref().unwrap().name, "zoe");

    let out = jchomp(&["rooms", "--server", url]).await;
    let text = stdout(&out);
    assert!(text.contains("ROOM"), "{text}");
    assert!(text.contains(&room), "{text}");
    assert!(
        text.contains("  waiting  1/3    5×6 eat 1×2 poison 0,0  zoe, -, -"),
        "{text}"
    );
    assert!(text.contains("zoe, -, -"), "{text}");
}

#[tokio::test]
async fn finished_games_are_listed_and_replayed() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    let (app, _conn) = play_vs_bots(url, "--size 4x4 --eat 1x1 --bot random").await;
    let state = app.room().unwrap().state.clone().unwrap();
    let result = state.result.unwrap();

    // The game is stored when it finishes; give the store a moment if needed.
    let mut games: Vec<GameSummary> = Vec::new();
    for _ in 0..50 {
        let out = jchomp(&["games", "--json", "--server", url]).await;
        assert!(out.status.success(), "{}", stderr(&out));
        games = serde_json::from_str(&stdout(&out)).unwrap();
        if !games.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(g.result, Some(result));
    assert_eq!(g.moves, state.game.moves().len());
    assert_eq!(g.seats[0], "ann");

    let out = jchomp(&["games", "--server", url]).await;
    let text = stdout(&out);
    assert!(text.contains(&g.game), "{text}");
    assert!(text.contains("4×4 eat 1×1"), "{text}");

    let out = jchomp(&["replay", &g.game, "--json", "--server", url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let record: Record = serde_json::from_str(&stdout(&out)).unwrap();
    let replayed = record.replay().unwrap();
    assert_eq!(replayed.moves(), state.game.moves());
    assert_eq!(record.result, Some(result));

    // Without a terminal, `replay` prints every step.
    let out = jchomp(&["replay", &g.game, "--server", url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("Start\n"), "{text}");
    let last = format!("Move {}: ", record.moves.len());
    assert!(text.contains(&last), "{text}");
    let words = jchomp_tui::explain::outcome(result, &state.seats, None);
    assert!(text.contains(&words), "{text}");
}

#[tokio::test]
async fn server_errors_and_bad_flags_are_reported_in_words() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    let out = jchomp(&["replay", "no-such-game", "--server", url]).await;
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("There is no stored game with that id"),
        "{err}"
    );
    assert!(!err.contains('{'), "{err}");

    let out = jchomp(&["create", "--size", "3x7", "--server", url]).await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("jchomp: --size must be 4–15 rows by 4–15 columns, got 3x7"),
        "{}",
        stderr(&out)
    );

    let long = "x".repeat(40);
    let out = jchomp(&["join", "r1", "--name", &long, "--server", url]).await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--name must be 1–32 characters"),
        "{}",
        stderr(&out)
    );

    let out = jchomp(&["create", "--bot", "wizard", "--server", url]).await;
    assert!(!out.status.success());
    assert!(stderr(&out).contains("valid forms"), "{}", stderr(&out));

    drop(server);
    let out = jchomp(&["rooms", "--server", "ws://127.0.0.1:9/ws"]).await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("cannot reach the server"),
        "{}",
        stderr(&out)
    );
}

/// Issue 15, item 8: `--server` takes host:port and http(s) URLs, adds the `/ws` path a URL
/// lacks, and comes from `JCHOMP_SERVER` when not given; a wrong path is explained.
#[tokio::test]
async fn item8_the_server_is_found_from_any_usual_address_and_from_the_environment() {
    let server = TestServer::start().await;
    let url = server.url();
    let hostport = url.trim_start_matches("ws://").trim_end_matches("/ws");
    let forms = [
        hostport.to_owned(),
        format!("ws://{hostport}/"),
        format!("http://{hostport}"),
        url.clone(),
    ];
    for form in &forms {
        let out = jchomp(&["rooms", "--json", "--server", form]).await;
        assert!(out.status.success(), "{form}: {}", stderr(&out));
        assert_eq!(stdout(&out).trim(), "[]", "{form}");
    }
    let out = jchomp_env(&["rooms", "--json"], &[("JCHOMP_SERVER", hostport)]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    // The flag wins over the variable.
    let env = [("JCHOMP_SERVER", "127.0.0.1:9")];
    let out = jchomp_env(&["rooms", "--json", "--server", hostport], &env).await;
    assert!(out.status.success(), "{}", stderr(&out));

    let out = jchomp(&["rooms", "--server", &format!("ws://{hostport}/nope")]).await;
    assert!(!out.status.success());
    assert!(stderr(&out).contains("path is /ws"), "{}", stderr(&out));
    let out = jchomp(&["rooms", "--server", "ftp://example.org"]).await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("give host:port, ws://"),
        "{}",
        stderr(&out)
    );
}

/// Issue 15, items 10 and 12: errors speak of the flags as typed, never repeat themselves, all
/// start `jchomp:` (exit status 2 for a command line that cannot be used, 1 for a failure),
/// interactive commands without a terminal say they need one, and `games --limit 0` is refused.
#[tokio::test]
async fn item10_item12_errors_read_one_way_in_the_words_of_the_flags() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    for (flags, want) in [
        (
            "--eat 4x1",
            "jchomp: --eat must be 1–3 rows by 1–3 columns, got 4x1",
        ),
        (
            "--poison 99,99",
            "jchomp: --poison 99,99 lies outside the 6×7 board",
        ),
        (
            "--size 3x20",
            "jchomp: --size must be 4–15 rows by 4–15 columns, got 3x20",
        ),
    ] {
        let mut args = vec!["create", "--server", url];
        args.extend(flags.split_whitespace());
        let out = jchomp(&args).await;
        assert_eq!(out.status.code(), Some(2), "{flags}");
        let err = stderr(&out);
        assert!(err.starts_with(want), "{flags}: {err}");
        assert!(
            !err.contains("eat[0]") && !err.contains("poison[0]"),
            "{err}"
        );
    }
    let out = jchomp(&["replay", "nosuchgame", "--server", url]).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "jchomp: There is no stored game with that id.\n"
    );
    // clap's own errors in the same style.
    let out = jchomp(&["rooms", "--frobnicate"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("jchomp: unexpected argument"),
        "{}",
        stderr(&out)
    );
    let out = jchomp(&["games", "--limit", "0", "--server", url]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("jchomp: "), "{}", stderr(&out));
    // Interactive commands need a terminal, and say so.
    for cmd in ["join", "watch", "resume"] {
        let out = jchomp(&[cmd, "x", "--server", url]).await;
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(
            stderr(&out).starts_with(&format!(
                "jchomp: `jchomp {cmd}` is interactive and needs a terminal"
            )),
            "{}",
            stderr(&out)
        );
    }
}
