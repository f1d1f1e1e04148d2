//! Accounts through the real server over WebSocket: registration, login, sessions and their
//! revocation, bot accounts' API tokens, the login throttle, and bad input answered with a clear
//! error that changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, TestServer, config_value};
use serde_json::{Value, json};

/// Sends `msg` and returns the `account` answer.
async fn account(c: &mut Client, msg: Value) -> Value {
    c.send(msg).await;
    c.expect("account").await
}

/// Registers `name` with `password` on a new connection; returns it and its session token.
async fn registered(server: &TestServer, name: &str, password: &str) -> (Client, String) {
    let mut c = server.client().await;
    let a = account(
        &mut c,
        json!({"type":"register","name":name,"password":password}),
    )
    .await;
    assert_eq!(a["name"], name);
    assert!(a["expires_ms"].as_u64().unwrap() > 0);
    (c, a["token"].as_str().unwrap().to_string())
}

#[tokio::test]
async fn a_person_registers_logs_in_plays_under_their_name_and_logs_out() {
    let server = TestServer::start().await;
    let (mut ann, token) = registered(&server, "Ann", "correct horse").await;
    // The seat takes the account's name, whatever name is typed.
    let (room, _) = ann.create("typed", config_value("4x4 poison 0,0")).await;
    let mut other = server.client().await;
    let a = account(&mut other, json!({"type":"authenticate","token":token})).await;
    assert_eq!((a["name"].as_str(), a.get("token")), (Some("Ann"), None));
    let (_, _, snap) = other.join(&room, "whatever").await;
    assert_eq!(snap["seats"][0]["name"], "Ann", "{snap}");
    assert_eq!(snap["seats"][1]["name"], "Ann", "{snap}");

    let mut c = server.client().await;
    let login = json!({"type":"login","name":"aNN","password":"correct horse"});
    let a = account(&mut c, login).await;
    assert_eq!(a["name"], "Ann");
    let second = a["token"].as_str().unwrap().to_string();
    assert_ne!(second, token);

    ann.send(json!({"type":"logout"})).await;
    assert_eq!(ann.until("logged_out").await["sessions"], 1);
    let mut late = server.client().await;
    late.send(json!({"type":"authenticate","token":token}))
        .await;
    late.expect_error("bad_token").await;
    account(&mut late, json!({"type":"authenticate","token":second})).await;
}

#[tokio::test]
async fn logout_everywhere_ends_every_session() {
    let server = TestServer::start().await;
    let (mut a, first) = registered(&server, "Bea", "password-1").await;
    let mut b = server.client().await;
    let login = json!({"type":"login","name":"bea","password":"password-1"});
    let second = account(&mut b, login).await["token"].clone();
    a.send(json!({"type":"logout","everywhere":true})).await;
    assert_eq!(a.expect("logged_out").await["sessions"], 2);
    for token in [json!(first), second] {
        let mut c = server.client().await;
        c.send(json!({"type":"authenticate","token":token})).await;
        c.expect_error("bad_token").await;
    }
}

#[tokio::test]
async fn bad_input_gets_a_clear_error_and_changes_nothing() {
    let server = TestServer::start().await;
    let mut c = server.client().await;
    let long = "a".repeat(21);
    c.send(json!({"type":"register","name":long,"password":"password-1"}))
        .await;
    let e = c.expect_error("bad_request").await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("3–20 characters, got 21"),
        "{e}"
    );
    c.send(json!({"type":"register","name":"Cy","password":"password-1"}))
        .await;
    c.expect_error("bad_request").await;
    c.send(json!({"type":"register","name":"Cyd","password":"short"}))
        .await;
    let e = c.expect_error("bad_request").await;
    assert!(e["message"].as_str().unwrap().contains("at least 8"), "{e}");
    // Nothing was made: the name is free, and nobody can log in to it.
    c.send(json!({"type":"login","name":"Cyd","password":"short"}))
        .await;
    assert_eq!(
        c.expect_error("bad_credentials").await["message"],
        "wrong name or password"
    );
    registered(&server, "Cyd", "password-1").await;
    c.send(json!({"type":"register","name":"CYD","password":"password-2"}))
        .await;
    c.expect_error("name_taken").await;
    c.send(json!({"type":"login","name":"Cyd","password":"password-2"}))
        .await;
    c.expect_error("bad_credentials").await;
    c.send(json!({"type":"authenticate","token":"0123456789abcdef0123456789abcdef"}))
        .await;
    c.expect_error("bad_token").await;
    c.send(json!({"type":"create_bot","name":"CydBot"})).await;
    c.expect_error("forbidden").await;
    // Still a guest, playing as before.
    let (room, _) = c.create("guest", config_value("4x4 poison 0,0")).await;
    assert!(!room.is_empty());
}

#[tokio::test]
async fn failed_logins_are_throttled_per_account() {
    let server = TestServer::start().await;
    registered(&server, "Dee", "password-1").await;
    let mut c = server.client().await;
    for _ in 0..5 {
        c.send(json!({"type":"login","name":"dee","password":"wrong-one"}))
            .await;
        c.expect_error("bad_credentials").await;
    }
    c.send(json!({"type":"login","name":"dee","password":"password-1"}))
        .await;
    let e = c.expect_error("too_many_attempts").await;
    assert!(
        e["message"].as_str().unwrap().contains("this account"),
        "{e}"
    );
}

#[tokio::test]
async fn a_bot_account_plays_with_its_token_until_it_is_renewed() {
    let server = TestServer::start().await;
    let (mut owner, _) = registered(&server, "Eli", "password-1").await;
    owner
        .send(json!({"type":"create_bot","name":"EliBot"}))
        .await;
    let t = owner.expect("bot_token").await;
    assert_eq!(t["bot"], "EliBot");
    let token = t["token"].as_str().unwrap().to_string();

    let mut bot = server.client().await;
    let a = account(&mut bot, json!({"type":"authenticate","token":token})).await;
    assert_eq!(
        (a["name"].as_str(), a["bot"].as_bool()),
        (Some("EliBot"), Some(true))
    );
    bot.send(json!({"type":"create_bot","name":"EliBot2"}))
        .await;
    bot.expect_error("forbidden").await;
    let (room, _) = bot.create("typed", config_value("4x4 poison 0,0")).await;
    // The bot account's seat is shown as a bot's, under its name; a person's is not.
    let (_, _, snap) = owner.join(&room, "typed").await;
    assert_eq!(snap["seats"][0]["name"], "EliBot", "{snap}");
    assert_eq!(snap["seats"][0]["bot"], true, "{snap}");
    assert_eq!(snap["seats"][1]["bot"], false, "{snap}");
    owner.send(json!({"type":"list_rooms"})).await;
    let rooms = owner.until("rooms").await;
    assert_eq!(rooms["rooms"][0]["seats"][0]["bot"], true, "{rooms}");
    owner.send(json!({"type":"leave"})).await;
    owner.until("left").await;

    owner
        .send(json!({"type":"renew_bot_token","bot":"elibot"}))
        .await;
    let renewed = owner.expect("bot_token").await["token"].clone();
    let mut c = server.client().await;
    c.send(json!({"type":"authenticate","token":token})).await;
    c.expect_error("bad_token").await;
    account(&mut c, json!({"type":"authenticate","token":renewed})).await;
}

#[tokio::test]
async fn attempts_are_throttled_per_address_whatever_the_account() {
    let server = TestServer::start().await;
    let mut c = server.client().await;
    // 20 attempts a minute from one address, each on another (unknown) account.
    for i in 0..20 {
        c.send(json!({"type":"login","name":format!("nobody{i}"),"password":"password-1"}))
            .await;
        c.expect_error("bad_credentials").await;
    }
    c.send(json!({"type":"register","name":"Fay","password":"password-1"}))
        .await;
    let e = c.expect_error("too_many_attempts").await;
    assert!(
        e["message"].as_str().unwrap().contains("your address"),
        "{e}"
    );
    // Refused before anything was made: the name is still free.
    c.send(json!({"type":"list_rooms"})).await;
    c.expect("rooms").await;
    let (line, _) = server.http_get("/api/players/Fay").await;
    assert!(line.contains("404"), "{line}");
}
