//! A small tournament through a real server: the test kit's server in this process on
//! 127.0.0.1:0 with a temporary data directory, and `jchomp-bot tournament --server` playing
//! every game in a room of it, each bot its own WebSocket connection. The server stores the same
//! games, and the same tournament in-process plays exactly the same ones.

// Helpers outside `#[test]` functions panic on purpose when something misbehaves.
#![allow(clippy::expect_used)]

use futures_util::{SinkExt, StreamExt};
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::{ClientMessage, ServerMessage};
use jchomp_testkit::server::TestServer;
use jchomp_testkit::temp::TempDir;
use std::process::Command;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// The tournament played both against the server and in-process: one group of three bots,
/// three seats.
const TOURNAMENT: [&str; 14] = [
    "tournament",
    "--quiet",
    "--bot",
    "random",
    "--bot",
    "greedy",
    "--bot",
    "random",
    "--players",
    "3",
    "--eat",
    "1x2",
    "--rounds",
    "2",
];

/// Asks the server for its stored games (as `list_games` and `get_game` return them).
async fn stored_games(url: &str) -> Vec<Record> {
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("connects");
    let mut ask = async |msg: ClientMessage| {
        let text = serde_json::to_string(&msg).expect("serializes");
        ws.send(Message::text(text)).await.expect("sends");
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(5), ws.next())
                .await
                .expect("an answer in time")
                .expect("open")
                .expect("a frame");
            if let Message::Text(t) = frame {
                return serde_json::from_str::<ServerMessage>(&t).expect("a server message");
            }
        }
    };
    let ServerMessage::Games { games } = ask(ClientMessage::ListGames { limit: Some(100) }).await
    else {
        panic!("expected games");
    };
    let mut records = Vec::new();
    for g in games {
        match ask(ClientMessage::GetGame { game: g.game }).await {
            ServerMessage::Game { record } => records.push(record),
            other => panic!("expected a game, got {other:?}"),
        }
    }
    records
}

#[test]
fn a_small_tournament_plays_every_game_in_a_server_room() {
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let server = rt.block_on(TestServer::start());
    let url = server.url();

    let out_dir = TempDir::new("tournament-out");
    let out = out_dir.path();
    let output = Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
        .args(TOURNAMENT)
        .args(["--concurrency", "2", "--server", &url, "--out"])
        .arg(out)
        .output()
        .expect("runs jchomp-bot");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("random#2"), "{stdout}");
    assert!(!stdout.contains("lost by failing"), "{stdout}");

    let ours: Vec<Record> = std::fs::read_to_string(out.join("games.jsonl"))
        .expect("games.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a record"))
        .collect();
    // One group of three bots, three rotations, two rounds.
    assert_eq!(ours.len(), 6);
    // A game is listed once its commit is durable, which may follow its last move a little.
    let mut theirs = rt.block_on(stored_games(&url));
    for _ in 0..100 {
        if theirs.len() >= 6 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        theirs = rt.block_on(stored_games(&url));
    }
    assert_eq!(theirs.len(), 6, "the server stored every game");
    for r in &ours {
        r.replay().expect("our record replays");
        // The server's record of the same game: same seats, moves and result.
        let same = theirs
            .iter()
            .find(|t| t.seats == r.seats && t.moves == r.moves && t.config.rows == r.config.rows);
        let same = same.expect("the server stored this game");
        assert_eq!(same.result, r.result);
    }

    // The same tournament in-process plays the very same games.
    let local_dir = TempDir::new("tournament-local");
    let local = local_dir.path();
    let status = Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
        .args(TOURNAMENT)
        .arg("--out")
        .arg(local)
        .output()
        .expect("runs jchomp-bot")
        .status;
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(local.join("games.jsonl")).expect("games.jsonl"),
        std::fs::read_to_string(out.join("games.jsonl")).expect("games.jsonl")
    );

    rt.block_on(server.shut_down()).expect("runs cleanly");
}
