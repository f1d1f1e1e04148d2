//! The bot client against the real server, started in this process on 127.0.0.1:0: two bots
//! play two games (one creates the rooms, the other joins them), and a bot whose connection is
//! cut in the middle of a game resumes its seat with its token and finishes the game.

// Helpers outside `#[test]` functions panic on purpose when the server misbehaves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_bot::client::{Contestant, PlayOptions, Played, Target, play};
use jchomp_engine::BotSpec;
use jchomp_protocol::wire::{ClientMessage, RoomStatus, ServerMessage};
use jchomp_testkit::config_json;
use jchomp_testkit::server::TestServer;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

fn options(addr: SocketAddr, target: Target, name: &str, bot: &str, games: u32) -> PlayOptions {
    PlayOptions {
        url: format!("ws://{addr}/ws"),
        target,
        name: name.to_string(),
        token: None,
        contestant: Contestant::Bot(BotSpec::parse(bot).unwrap()),
        add_bots: Vec::new(),
        games,
        seed: 5,
        wait: Duration::from_secs(20),
        reconnects: 10,
        classic: None,
    }
}

/// The id of a waiting room, once one is listed.
async fn waiting_room(addr: SocketAddr, not: &[String]) -> String {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .unwrap();
    use futures_util::{SinkExt, StreamExt};
    for _ in 0..200 {
        let text = serde_json::to_string(&ClientMessage::ListRooms).unwrap();
        ws.send(tokio_tungstenite::tungstenite::Message::text(text))
            .await
            .unwrap();
        while let Some(Ok(msg)) = ws.next().await {
            if let Ok(ServerMessage::Rooms { rooms }) =
                serde_json::from_str::<ServerMessage>(msg.to_text().unwrap_or(""))
            {
                if let Some(r) = rooms
                    .into_iter()
                    .find(|r| r.status == RoomStatus::Waiting && !not.contains(&r.room))
                {
                    return r.room;
                }
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no room appeared");
}

async fn run_bot(options: PlayOptions, log: Arc<Mutex<Vec<String>>>) -> Vec<Played> {
    play(&options, &mut move |line| log.lock().unwrap().push(line))
        .await
        .expect("the bot plays through")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_creator_and_a_joiner_play_two_games() {
    let server = TestServer::start().await;
    let addr = server.addr;
    let creator_log = Arc::new(Mutex::new(Vec::new()));
    let joiner_log = Arc::new(Mutex::new(Vec::new()));
    let creator = tokio::spawn(run_bot(
        options(
            addr,
            Target::Create(config_json("5x6 eat 1x2 poison 0,0")),
            "maker",
            "level:3",
            2,
        ),
        creator_log.clone(),
    ));
    let room = waiting_room(addr, &[]).await;
    let joiner = tokio::spawn(run_bot(
        options(addr, Target::Join(room.clone()), "joiner", "greedy", 2),
        joiner_log.clone(),
    ));
    let a = creator.await.unwrap();
    let b = joiner.await.unwrap();
    assert_eq!(a.len(), 2);
    assert_eq!(b.len(), 2);
    assert_eq!(a[0].room, room);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.room, y.room);
        assert_eq!(x.result, y.result);
        assert_ne!(x.seat, y.seat);
        assert!(x.moves > 0);
        // Scores of a two-player game add up to 1.
        assert_eq!(x.score + y.score, 1.0);
    }
    assert_ne!(a[0].room, a[1].room);
    assert!(
        creator_log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("game 2:"))
    );
}

/// Forwards connections to `server`; the first one is cut once the server has sent `cut_after`
/// bytes through it.
async fn cutting_proxy(server: SocketAddr, cut_after: usize) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut first = true;
        while let Ok((mut client, _)) = listener.accept().await {
            let limit = if first { Some(cut_after) } else { None };
            first = false;
            tokio::spawn(async move {
                let Ok(mut upstream) = TcpStream::connect(server).await else {
                    return;
                };
                let (mut cr, mut cw) = client.split();
                let (mut ur, mut uw) = upstream.split();
                let up = async {
                    let _ = tokio::io::copy(&mut cr, &mut uw).await;
                };
                let down = async {
                    let mut sent = 0;
                    let mut buf = [0u8; 512];
                    while let Ok(n) = ur.read(&mut buf).await {
                        if n == 0 || limit.is_some_and(|l| sent + n > l) {
                            break;
                        }
                        sent += n;
                        if cw.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                };
                tokio::select! {
                    () = up => {}
                    () = down => {}
                }
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_bot_resumes_its_seat_and_finishes() {
    let server = TestServer::start().await;
    let addr = server.addr;
    let proxy = cutting_proxy(addr, 3000).await;
    let cut_log = Arc::new(Mutex::new(Vec::new()));
    // 8×8 with 1×1 eats lasts 64 moves (the last eats poison): the cut falls mid-game.
    let cut = tokio::spawn(run_bot(
        options(
            proxy,
            Target::Create(config_json("8x8 poison 0,0")),
            "cut",
            "greedy",
            1,
        ),
        cut_log.clone(),
    ));
    let room = waiting_room(addr, &[]).await;
    let other = tokio::spawn(run_bot(
        options(addr, Target::Join(room), "other", "level:1", 1),
        Arc::new(Mutex::new(Vec::new())),
    ));
    let a = cut.await.unwrap();
    let b = other.await.unwrap();
    assert_eq!(a[0].result, b[0].result);
    assert_eq!(a[0].moves, 64);
    let log = cut_log.lock().unwrap();
    assert!(log.iter().any(|l| l.contains("resuming")), "{log:?}");
}

/// Registers a person on the server at `addr`, makes a bot account `bot` of theirs, and returns
/// its API token.
async fn bot_account(addr: SocketAddr, bot: &str) -> String {
    let mut ws = jchomp_protocol::connection::Connection::connect(&format!("ws://{addr}/ws"))
        .await
        .unwrap();
    let register = ClientMessage::Register {
        name: "Owner".into(),
        password: "password-1".into(),
    };
    ws.send(&register).await.unwrap();
    let make = ClientMessage::CreateBot { name: bot.into() };
    ws.send(&make).await.unwrap();
    loop {
        match ws.recv_within(Duration::from_secs(20)).await.unwrap() {
            ServerMessage::BotToken { token, .. } => return token,
            ServerMessage::Error { message, .. } => panic!("{message}"),
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_account_plays_a_rated_game_under_its_name_with_its_token() {
    let server = TestServer::start().await;
    let addr = server.addr;
    let token = bot_account(addr, "OwnerBot").await;
    let mut config = config_json("4x5 eat 1x1 poison 0,0");
    config.rated = true;
    let mut opts = options(addr, Target::Create(config), "ignored", "greedy", 1);
    opts.token = Some(token);
    opts.add_bots = vec!["random".into()];
    let played = run_bot(opts, Arc::new(Mutex::new(Vec::new()))).await;
    assert_eq!(played.len(), 1);
    // The game is in both accounts' ratings: the bot account's and the built-in level's.
    for name in ["OwnerBot", "random"] {
        let (status, body) = server.http_get(&format!("/api/players/{name}")).await;
        assert!(status.contains("200"), "{status}: {body}");
        let profile: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(profile["bot"], true, "{profile}");
        let r = &profile["ratings"][0];
        let games = r["wins"].as_u64().unwrap() + r["losses"].as_u64().unwrap();
        assert_eq!(
            (r["category"].as_str(), games),
            (Some("jchomp:2"), 1),
            "{profile}"
        );
    }

    // A forged token is refused before anything is played.
    let mut opts = options(
        addr,
        Target::Create(config_json("4x5 eat 1x1 poison 0,0")),
        "x",
        "greedy",
        1,
    );
    opts.token = Some("0123456789abcdef0123456789abcdef".into());
    let refused = play(&opts, &mut |_| {}).await.unwrap_err();
    assert!(
        refused.to_string().contains("revoked or expired"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_bots_seeking_one_preset_are_paired_and_play_two_games() {
    let server = TestServer::start_with(jchomp_server::Settings {
        pairing_wave: Duration::from_millis(100),
        ..jchomp_testkit::server::settings()
    })
    .await;
    let seek = || Target::Seek {
        preset: "blitz".to_string(),
        bots: false,
    };
    let logs = [(); 2].map(|_| Arc::new(Mutex::new(Vec::new())));
    let first = tokio::spawn(run_bot(
        options(server.addr, seek(), "first", "level:2", 2),
        logs[0].clone(),
    ));
    let second = tokio::spawn(run_bot(
        options(server.addr, seek(), "second", "greedy", 2),
        logs[1].clone(),
    ));
    let (first, second) = (first.await.unwrap(), second.await.unwrap());
    assert_eq!((first.len(), second.len()), (2, 2));
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(a.room, b.room, "both were paired into one room");
        assert_ne!(a.seat, b.seat);
        assert_eq!(a.moves, b.moves);
        assert!((a.score + b.score - 1.0).abs() < 1e-9, "{a:?} {b:?}");
    }
    assert_ne!(first[0].room, first[1].room, "each game is a new pairing");
}
