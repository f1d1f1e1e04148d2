//! Quick pairing through the real server: two people waiting for one preset are seated in one
//! room and play; a room is rated when everyone in it has an account; bots take the empty
//! seats after the patience only for those who allowed them; a cancelled or disconnected
//! waiter is paired with nobody; an unknown preset is refused in words.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_server::Settings;
use jchomp_testkit::server::{Client, TestServer, logged_in, settings};
use serde_json::{Value, json};
use std::time::Duration;

/// A server that pairs every 100 ms and seats bots after 1 s.
async fn server() -> TestServer {
    TestServer::start_with(Settings {
        pairing_wave: Duration::from_millis(100),
        pairing_bot_patience: Duration::from_secs(1),
        ..settings()
    })
    .await
}

/// Sends a `seek` and reads its `seeking`.
async fn seek(c: &mut Client, seek: Value) -> Value {
    c.send(seek).await;
    c.expect("seeking").await
}

/// Reads a paired connection's `paired`, `joined` and the game's first snapshot.
async fn paired(c: &mut Client) -> (Value, Value, Value) {
    let paired = c.expect("paired").await;
    let joined = c.expect("joined").await;
    assert_eq!(joined["room"], paired["room"]);
    let room = c.until("room").await;
    assert_eq!(room["status"], "playing", "{room}");
    (paired, joined, room)
}

#[tokio::test]
async fn two_people_waiting_for_one_preset_are_seated_together_and_play() {
    let server = server().await;
    let mut ann = server.client().await;
    ann.send(json!({"type":"list_presets"})).await;
    let presets = ann.expect("presets").await;
    let duel = presets["presets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "duel")
        .unwrap()
        .clone();
    assert_eq!(duel["config"]["players"], 2, "{duel}");
    assert_eq!(presets["bot_patience_secs"], 1);

    let waiting = seek(
        &mut ann,
        json!({"type":"seek","preset":"duel","name":"ann"}),
    )
    .await;
    assert_eq!(waiting["waiting"], 1);
    assert_eq!(waiting["rating"], 1500);
    let mut bob = server.client().await;
    bob.send(json!({"type":"list_presets"})).await;
    let listed = bob.expect("presets").await;
    assert_eq!(listed["presets"][0]["waiting"], 1, "{listed}");
    seek(
        &mut bob,
        json!({"type":"seek","preset":"duel","name":"bob"}),
    )
    .await;

    let (pa, ja, room) = paired(&mut ann).await;
    let (pb, jb, _) = paired(&mut bob).await;
    assert_eq!(pa["room"], pb["room"]);
    assert_eq!(pa["preset"], "duel");
    assert_ne!(ja["seat"], jb["seat"]);
    assert_eq!(
        room["config"]["rated"],
        Value::Null,
        "guests play unrated: {room}"
    );
    let names: Vec<&str> = room["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"ann") && names.contains(&"bob"),
        "{names:?}"
    );

    // The seat to move plays; both see the move.
    let first = room["to_move"].clone();
    let mover = if ja["seat"] == first {
        &mut ann
    } else {
        &mut bob
    };
    mover.send(json!({"type":"move","row":6,"col":5})).await;
    let moved = ann.until("moved").await;
    assert_eq!(moved["seat"], first);
    assert_eq!(bob.until("moved").await["seat"], first);
    assert_eq!(server.metric("jchomp_pairing_rooms_total").await, 1);
    assert_eq!(server.metric("jchomp_pairing_waiting").await, 0);
}

#[tokio::test]
async fn a_room_of_account_holders_is_rated_and_seats_go_by_account_names() {
    let server = server().await;
    let mut ann = logged_in(server.addr, "Annika", true).await;
    let mut bob = logged_in(server.addr, "Boris", true).await;
    seek(
        &mut ann,
        json!({"type":"seek","preset":"blitz","name":"ignored"}),
    )
    .await;
    seek(&mut bob, json!({"type":"seek","preset":"blitz"})).await;
    let (_, _, room) = paired(&mut ann).await;
    paired(&mut bob).await;
    assert_eq!(room["config"]["rated"], true, "{room}");
    let mut names: Vec<&str> = room["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["Annika", "Boris"]);
}

#[tokio::test]
async fn bots_take_the_empty_seats_after_the_patience_only_when_allowed() {
    let server = server().await;
    let mut lone = server.client().await;
    let mut alone = server.client().await;
    seek(
        &mut alone,
        json!({"type":"seek","preset":"three","name":"alone"}),
    )
    .await;
    seek(
        &mut lone,
        json!({"type":"seek","preset":"four","name":"lone","bots":true}),
    )
    .await;
    let (_, joined, room) = paired(&mut lone).await;
    let seats = room["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 4);
    let bots: Vec<&Value> = seats.iter().filter(|s| s["bot"] == true).collect();
    assert_eq!(bots.len(), 3, "{room}");
    // A newcomer (Weng–Lin 25, 1500 on the pairing scale) meets the middle level.
    assert!(bots.iter().all(|b| b["name"] == "level:3"), "{room}");
    assert_eq!(
        seats[joined["seat"].as_u64().unwrap() as usize]["name"],
        "lone"
    );
    // Who did not allow bots keeps waiting, however long.
    alone.expect_silence(Duration::from_millis(1_500)).await;
    assert_eq!(server.metric("jchomp_pairing_waiting").await, 1);
}

#[tokio::test]
async fn a_cancelled_or_disconnected_waiter_is_paired_with_nobody() {
    let server = server().await;
    let mut ann = server.client().await;
    ann.send(json!({"type":"cancel_seek"})).await;
    ann.expect_error("forbidden").await;
    seek(
        &mut ann,
        json!({"type":"seek","preset":"duel","name":"ann"}),
    )
    .await;
    ann.send(json!({"type":"cancel_seek"})).await;
    assert_eq!(ann.expect("seek_ended").await["preset"], "duel");

    let mut gone = server.client().await;
    seek(
        &mut gone,
        json!({"type":"seek","preset":"duel","name":"gone"}),
    )
    .await;
    drop(gone);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut bob = server.client().await;
    seek(
        &mut bob,
        json!({"type":"seek","preset":"duel","name":"bob"}),
    )
    .await;
    bob.expect_silence(Duration::from_millis(800)).await;
    ann.expect_silence(Duration::from_millis(100)).await;
    assert_eq!(server.metric("jchomp_pairing_waiting").await, 1);
    assert_eq!(server.metric("jchomp_pairing_rooms_total").await, 0);

    // A seek for another preset moves the waiter: it leaves the first pool.
    bob.send(json!({"type":"seek","preset":"blitz","name":"bob"}))
        .await;
    assert_eq!(bob.expect("seek_ended").await["preset"], "duel");
    assert_eq!(bob.expect("seeking").await["preset"], "blitz");
    let mut cid = server.client().await;
    seek(
        &mut cid,
        json!({"type":"seek","preset":"duel","name":"cid"}),
    )
    .await;
    cid.expect_silence(Duration::from_millis(500)).await;
}

#[tokio::test]
async fn an_unknown_preset_is_refused_with_the_names_there_are() {
    let server = server().await;
    let mut c = server.client().await;
    c.send(json!({"type":"seek","preset":"marathon"})).await;
    let e = c.expect_error("bad_request").await;
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("marathon") && message.contains("duel"),
        "{message}"
    );
    assert_eq!(server.metric("jchomp_pairing_waiting").await, 0);
}

/// A wave that runs right after a waiter entered its pool cannot tell it `paired` before its
/// `seeking`: with a wave every millisecond, pair after pair each reads `seeking` first.
#[tokio::test]
async fn seeking_comes_before_paired_even_when_a_wave_follows_at_once() {
    let server = TestServer::start_with(Settings {
        pairing_wave: Duration::from_millis(1),
        ..settings()
    })
    .await;
    for i in 0..60 {
        let mut ann = server.client().await;
        let mut bob = server.client().await;
        seek(
            &mut ann,
            json!({"type":"seek","preset":"duel","name":"ann"}),
        )
        .await;
        bob.send(json!({"type":"seek","preset":"duel","name":"bob"}))
            .await;
        let first = bob.recv().await;
        assert_eq!(first["type"], "seeking", "pair {i}: {first}");
        paired(&mut bob).await;
        paired(&mut ann).await;
    }
}
