//! Accounts entering tournaments the server runs, through the real server: refusals in words
//! (not logged in, entered already, full, not open, the entry policy), withdrawing before and
//! after the start, a start when enough have joined and at a time, a cancellation for too few,
//! an absent entrant losing after the grace, and a person playing every game through raw
//! WebSocket JSON.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{
    Client, TestServer, config_value, games_played, logged_in, play_tournament, points, standing,
};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;

/// Long enough for a small tournament on a loaded machine.
const LONG: Duration = Duration::from_secs(120);

const BOARD: &str = "4x4 poison 0,0";

fn spec(format: Value, bots: &[&str], extra: Value) -> Value {
    let mut s =
        json!({"name": "entry cup", "format": format, "config": config_value(BOARD), "bots": bots});
    for (k, v) in extra.as_object().unwrap() {
        s[k] = v.clone();
    }
    s
}

/// Creates a tournament as `c`; returns its first view.
async fn create(c: &mut Client, spec: Value) -> Value {
    c.send(json!({"type": "create_tournament", "tournament": spec}))
        .await;
    loop {
        let m = c.recv_within(LONG).await;
        match m["type"].as_str() {
            Some("tournament") => return m,
            Some("error") => panic!("{m}"),
            _ => {}
        }
    }
}

async fn join(c: &mut Client, id: &str) {
    c.send(json!({"type": "join_tournament", "tournament": id}))
        .await;
}

/// A connection authenticated as a new bot account `bot` of a new person `owner`.
async fn bot_account(addr: SocketAddr, owner: &str, bot: &str) -> Client {
    let mut o = logged_in(addr, owner, true).await;
    o.send(json!({"type": "create_bot", "name": bot})).await;
    let token = o.until("bot_token").await["token"].clone();
    let mut c = Client::connect(addr).await;
    c.send(json!({"type": "authenticate", "token": token}))
        .await;
    c.expect("account").await;
    c
}

fn names(view: &Value) -> Vec<&str> {
    view["entrants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect()
}

/// Views pushed to `c` until the tournament's status is `status`; returns the last.
async fn until_status(c: &mut Client, status: &str) -> Value {
    loop {
        let v = c.until_within("tournament", LONG).await;
        if v["status"] == status {
            return v;
        }
    }
}

#[tokio::test]
async fn entries_are_refused_in_words_and_withdrawn_before_the_start() {
    let server = TestServer::start().await;
    let mut maker = logged_in(server.addr, "maker", true).await;
    let later = now_ms() + 3_600_000;
    let far = json!({"start": {"at_ms": later}});
    let mut extra = far.clone();
    extra["entry"] = json!("people");
    let people = create(&mut maker, spec(json!({"kind": "round_robin"}), &[], extra)).await;
    assert_eq!(people["status"], "open", "{people}");
    assert_eq!(people["starts_at_ms"], later);
    let id = people["id"].as_str().unwrap().to_string();

    let mut guest = Client::connect(server.addr).await;
    join(&mut guest, &id).await;
    let e = guest.expect_error("forbidden").await;
    assert!(e["message"].as_str().unwrap().contains("log in"), "{e}");

    let mut ann = logged_in(server.addr, "ann", true).await;
    join(&mut ann, &id).await;
    let view = ann.until("tournament").await;
    assert_eq!(names(&view), ["ann"]);
    assert_eq!(standing(&view, "ann").get("bot"), None, "a person");
    join(&mut ann, &id).await;
    ann.expect_error("already_entered").await;

    let mut bot = bot_account(server.addr, "botowner", "TinBot").await;
    join(&mut bot, &id).await;
    let e = bot.expect_error("entry_refused").await;
    assert!(e["message"].as_str().unwrap().contains("people"), "{e}");

    ann.send(json!({"type": "withdraw_tournament", "tournament": id}))
        .await;
    let view = ann.until("tournament").await;
    assert!(
        names(&view).is_empty(),
        "withdrawn before the start: {view}"
    );
    ann.send(json!({"type": "withdraw_tournament", "tournament": id}))
        .await;
    ann.expect_error("not_open").await;

    // Full: 64 built-in levels entered at creation.
    let levels: Vec<String> = (1..=64).map(|s| format!("random,seed={s}")).collect();
    let levels: Vec<&str> = levels.iter().map(String::as_str).collect();
    let mut maker = logged_in(server.addr, "maker2", true).await;
    let full = create(
        &mut maker,
        spec(json!({"kind": "arena", "duration_ms": 1000}), &levels, far),
    )
    .await;
    assert_eq!(full["entrants"].as_array().unwrap().len(), 64);
    join(&mut bot, full["id"].as_str().unwrap()).await;
    bot.expect_error("tournament_full").await;

    // Begun at once: no entries.
    let mut maker = logged_in(server.addr, "maker3", true).await;
    let now = create(
        &mut maker,
        spec(
            json!({"kind": "round_robin"}),
            &["level:1", "random"],
            json!({}),
        ),
    )
    .await;
    join(&mut bot, now["id"].as_str().unwrap()).await;
    bot.expect_error("not_open").await;
    join(&mut bot, "nope").await;
    bot.expect_error("no_such_tournament").await;

    let bad = spec(
        json!({"kind": "swiss", "rounds": 2}),
        &[],
        json!({"start": {"when_joined": 1}}),
    );
    let mut maker = logged_in(server.addr, "maker4", true).await;
    maker
        .send(json!({"type": "create_tournament", "tournament": bad}))
        .await;
    maker.expect_error("bad_request").await;
}

#[tokio::test]
async fn a_person_plays_a_round_robin_that_starts_when_enough_have_joined() {
    let server = short_grace().await;
    let mut maker = logged_in(server.addr, "rrmaker", true).await;
    let extra = json!({"start": {"when_joined": 3}});
    let first = create(
        &mut maker,
        spec(json!({"kind": "round_robin"}), &["level:1"], extra),
    )
    .await;
    let id = first["id"].as_str().unwrap().to_string();
    let mut ann = logged_in(server.addr, "ann", true).await;
    join(&mut ann, &id).await;
    let view = ann.until("tournament").await;
    assert_eq!(view["status"], "open", "two of three: {view}");
    let mut bot = bot_account(server.addr, "owner", "QuitBot").await;
    join(&mut bot, &id).await;
    let entered = bot.until("tournament").await;
    assert_eq!(names(&entered), ["level:1", "ann", "QuitBot"]);
    let started = until_status(&mut bot, "playing").await;
    assert_eq!(standing(&started, "QuitBot")["bot"], true);
    assert_eq!(standing(&started, "level:1")["bot"], true);
    // The bot account never plays: it withdraws at once, so it is paired no more, and leaves
    // (a game it was seated in already is lost after the grace, and counts).
    bot.send(json!({"type": "withdraw_tournament", "tournament": id}))
        .await;
    loop {
        let v = bot.until("tournament").await;
        if standing(&v, "QuitBot").get("withdrawn").is_some() {
            break;
        }
    }
    drop(bot);
    let (last, rooms) = play_tournament(&mut ann, &config_value(BOARD), LONG).await;
    let quit = standing(&last, "QuitBot");
    assert_eq!(quit["withdrawn"], true, "{last}");
    let games = last["games"].as_array().unwrap();
    let played = games_played(&last);
    assert_eq!(played, 2 * games.len() as u64);
    let points = points(&last);
    assert_eq!(points, games.len() as f64, "a point a game");
    let anns: Vec<&Value> = games
        .iter()
        .filter(|g| g["seats"].as_array().unwrap().contains(&json!("ann")))
        .collect();
    let with_level = anns
        .iter()
        .filter(|g| g["seats"].as_array().unwrap().contains(&json!("level:1")))
        .count();
    assert_eq!(with_level, 2, "ann met level:1 in both seat orders: {last}");
    assert_eq!(
        rooms.len(),
        anns.len(),
        "ann was seated in each of her games"
    );
    for g in &anns {
        assert!(rooms.contains(&g["game"].as_str().unwrap().to_string()));
        maker
            .send(json!({"type": "get_game", "game": g["game"]}))
            .await;
        let record = maker.until("game").await["record"].clone();
        assert_eq!(record["result"], g["result"], "{g}");
    }
}

#[tokio::test]
async fn a_tournament_starts_at_its_time_or_is_cancelled_with_too_few() {
    let server = TestServer::start().await;
    let mut maker = logged_in(server.addr, "timer", true).await;
    let at = now_ms() + 1500;
    let extra = json!({"start": {"at_ms": at}});
    let first = create(
        &mut maker,
        spec(
            json!({"kind": "round_robin"}),
            &["level:1", "random"],
            extra,
        ),
    )
    .await;
    assert_eq!(first["status"], "open");
    let playing = until_status(&mut maker, "playing").await;
    assert!(now_ms() >= at, "not before its time");
    assert!(playing["starts_at_ms"].is_null());
    let last = until_status(&mut maker, "finished").await;
    assert_eq!(last["games"].as_array().unwrap().len(), 2);

    let extra = json!({"start": {"at_ms": now_ms() + 500}});
    let lonely = create(
        &mut maker,
        spec(json!({"kind": "swiss", "rounds": 2}), &["level:1"], extra),
    )
    .await;
    assert_eq!(lonely["status"], "open");
    let cancelled = until_status(&mut maker, "cancelled").await;
    let why = cancelled["cancelled"].as_str().unwrap();
    assert!(
        why.contains("1 entrant") && why.contains("needs 2"),
        "{why}"
    );
    maker.send(json!({"type": "list_tournaments"})).await;
    let list = maker.until("tournaments").await;
    assert_eq!(list["tournaments"][0]["status"], "cancelled");
}

#[tokio::test]
async fn an_absent_entrant_loses_each_game_after_the_grace() {
    let server = short_grace().await;
    let mut maker = logged_in(server.addr, "gracer", true).await;
    let extra = json!({"start": {"at_ms": now_ms() + 1000}});
    let first = create(
        &mut maker,
        spec(json!({"kind": "round_robin"}), &["greedy"], extra),
    )
    .await;
    let id = first["id"].as_str().unwrap().to_string();
    let mut gone = logged_in(server.addr, "gone", true).await;
    join(&mut gone, &id).await;
    gone.until("tournament").await;
    drop(gone);
    let last = until_status(&mut maker, "finished").await;
    let games = last["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    for g in games {
        let seat = g["seats"]
            .as_array()
            .unwrap()
            .iter()
            .position(|s| s == "gone")
            .unwrap();
        assert_eq!(
            g["result"],
            json!({"kind": "abandoned", "loser": seat}),
            "{g}"
        );
    }
    assert_eq!(standing(&last, "gone")["losses"], 2);
    assert_eq!(standing(&last, "greedy")["points"], 2.0);
}

/// A server whose absent seats are held for 700 ms.
async fn short_grace() -> TestServer {
    TestServer::start_with(jchomp_server::Settings {
        grace: Duration::from_millis(700),
        ..common::settings()
    })
    .await
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// One account may hold two open or playing tournaments at once, so that no one account holds
/// all of the server's eight (an open tournament may wait a week for its start); another
/// account may still make one.
#[tokio::test]
async fn an_account_holds_two_open_tournaments_at_most() {
    let server = TestServer::start().await;
    let later = now_ms() + 3_600_000;
    let open = || {
        spec(
            json!({"kind": "round_robin"}),
            &[],
            json!({"start": {"at_ms": later}}),
        )
    };
    let mut hog = logged_in(server.addr, "hog", true).await;
    for _ in 0..2 {
        assert_eq!(create(&mut hog, open()).await["status"], "open");
    }
    hog.send(json!({"type": "create_tournament", "tournament": open()}))
        .await;
    let e = hog.expect_error("rate_limited").await;
    assert!(
        e["message"].as_str().unwrap().contains("2 open or playing"),
        "{e}"
    );
    let mut other = logged_in(server.addr, "other", true).await;
    assert_eq!(create(&mut other, open()).await["status"], "open");
}
