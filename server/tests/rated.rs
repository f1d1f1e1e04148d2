//! Rated rooms through the real server: a guest is refused a seat, a game between a person and
//! a bot account updates both ratings once (Glicko-2 with lichess's constants), and the
//! profile and leaderboard API show them by their rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, TestServer, config_value, logged_in, rated_config_value};
use serde_json::{Value, json};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

/// A connection logged in to a new person's account `name`.
async fn person(server: &TestServer, name: &str) -> Client {
    logged_in(server.addr, name, true).await
}

/// A rated 4×4 room with one poisoned corner.
fn rated_config() -> Value {
    rated_config_value("4x4 poison 0,0")
}

/// The JSON body of an API answer, after checking its status line.
async fn api(server: &TestServer, path: &str, status: &str) -> Value {
    let (line, body) = server.http_get(path).await;
    assert!(line.contains(status), "{line}: {body}");
    serde_json::from_str(&body).unwrap()
}

#[tokio::test]
async fn a_guest_may_not_sit_in_a_rated_room_and_changes_nothing() {
    let server = TestServer::start().await;
    let mut guest = server.client().await;
    guest
        .send(json!({"type":"create_room","name":"g","config":rated_config()}))
        .await;
    let e = guest.expect_error("forbidden").await;
    assert!(e["message"].as_str().unwrap().contains("rated"), "{e}");
    let mut ann = person(&server, "Ann").await;
    let (room, _) = ann.create("typed", rated_config()).await;
    guest
        .send(json!({"type":"join_room","room":room,"name":"g"}))
        .await;
    let e = guest.expect_error("forbidden").await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("log in or authenticate first"),
        "{e}"
    );
    ann.send(json!({"type":"add_bot","bot":"search:depth=2"}))
        .await;
    let e = ann.expect_error("forbidden").await;
    assert!(
        e["message"].as_str().unwrap().contains("built-in levels"),
        "{e}"
    );
    // A built-in level with a seed of its own is not the level's account.
    ann.send(json!({"type":"add_bot","bot":"level:3,seed=7"}))
        .await;
    let e = ann.expect_error("forbidden").await;
    assert!(
        e["message"].as_str().unwrap().contains("without a seed"),
        "{e}"
    );
    // Nor may a rated game of bots alone seat one.
    let mut cfg = config_value("4x4 eat 1x1 poison 0,0");
    cfg["rated"] = json!(true);
    let mut bea = person(&server, "Bea").await;
    bea.send(
        json!({"type":"create_room","name":"Bea","config":cfg,"bots":["level:2","greedy,seed=1"]}),
    )
    .await;
    let e = bea.expect_error("forbidden").await;
    assert!(
        e["message"].as_str().unwrap().contains("greedy,seed=1"),
        "{e}"
    );
    guest.send(json!({"type":"list_rooms"})).await;
    let rooms = guest.expect("rooms").await;
    assert_eq!(rooms["rooms"][0]["config"]["rated"], true, "{rooms}");
    assert_eq!(rooms["rooms"][0]["seats"][1], Value::Null, "{rooms}");
}

#[tokio::test]
async fn a_rated_game_between_a_person_and_a_bot_account_rates_both_once() {
    let server = TestServer::start().await;
    let mut ann = person(&server, "Ann").await;
    ann.send(json!({"type":"create_bot","name":"AnnBot"})).await;
    let token = ann.expect("bot_token").await["token"].clone();
    let mut bot = server.client().await;
    bot.send(json!({"type":"authenticate","token":token})).await;
    bot.expect("account").await;

    let (room, _) = ann.create("typed", rated_config()).await;
    bot.join(&room, "typed").await;
    ann.until("room").await;
    // Ann eats the poison at once: she loses, the bot wins.
    ann.send(json!({"type":"move","row":0,"col":0})).await;
    let moved = ann.until("moved").await;
    assert_eq!(
        moved["result"],
        json!({"kind":"poisoned","loser":0}),
        "{moved}"
    );

    let config = Glicko2Config {
        tau: 0.75,
        ..Glicko2Config::new()
    };
    let start = Glicko2Rating {
        rating: 1500.0,
        deviation: 500.0,
        volatility: 0.09,
    };
    let (lost, won) = glicko2(&start, &start, &Outcomes::LOSS, &config);
    let ann_profile = api(&server, "/api/players/ann", "200").await;
    let r = &ann_profile["ratings"][0];
    assert_eq!(r["category"], "jchomp:2", "{ann_profile}");
    assert!(
        (r["rating"].as_f64().unwrap() - lost.rating).abs() < 1e-6,
        "{r}"
    );
    assert!(
        (r["deviation"].as_f64().unwrap() - lost.deviation).abs() < 1e-6,
        "{r}"
    );
    assert_eq!(
        (r["losses"].as_u64(), r["wins"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(r["provisional"], true);
    assert_eq!(r["history"].as_array().unwrap().len(), 1);
    let recent = ann_profile["recent"].as_array().unwrap();
    assert_eq!(recent.len(), 1, "{ann_profile}");
    assert!(
        recent[0].as_str().unwrap().starts_with(&room),
        "{ann_profile}"
    );
    assert_eq!(ann_profile["bot"], false);
    assert_eq!(ann_profile["bots"], json!(["AnnBot"]), "{ann_profile}");
    let bot_profile = api(&server, "/api/players/AnnBot", "200").await;
    assert_eq!(bot_profile["owner"], "Ann", "{bot_profile}");
    let b = &bot_profile["ratings"][0];
    assert!(
        (b["rating"].as_f64().unwrap() - won.rating).abs() < 1e-6,
        "{b}"
    );
    assert_eq!(
        (bot_profile["bot"].as_bool(), b["wins"].as_u64()),
        (Some(true), Some(1))
    );

    // Provisional players are on no leaderboard.
    for bots in [false, true] {
        let path = format!("/api/leaderboard?category=jchomp:2&bots={bots}");
        let board = api(&server, &path, "200").await;
        assert_eq!(board["players"], json!([]), "{board}");
    }
    api(&server, "/api/players/nobody", "404").await;
    api(&server, "/api/leaderboard?bots=true", "400").await;
}

#[tokio::test]
async fn the_built_in_levels_have_accounts_with_profiles() {
    let server = TestServer::start().await;
    for level in ["level:1", "level:5", "random", "greedy"] {
        let p = api(&server, &format!("/api/players/{level}"), "200").await;
        assert_eq!(
            (p["name"].as_str(), p["bot"].as_bool()),
            (Some(level), Some(true))
        );
    }
    // A name's escapes are decoded, as a browser's `encodeURIComponent` sends them.
    let p = api(&server, "/api/players/level%3A3", "200").await;
    assert_eq!(p["name"], "level:3");
    api(&server, "/api/leaderboard?category=jchmp:2", "400").await;
}
