//! Clients that stop reading: twenty connections each ask for the (large) room list hundreds
//! of times and never read an answer. Their queued answers must not pile up in the server's
//! memory, and everyone else is served meanwhile.
//! (Linux only: memory is read from `/proc`.)
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod abuse_support;
mod common;

use abuse_support::{Raw, still_serving};
use common::{TestServer, settings};
use jchomp_server::Settings;
use std::time::Duration;

/// This process's resident memory in bytes (the server runs in it).
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_reading_clients_asking_for_big_answers_stay_cheap() {
    // 320 connections from one address: past the default per-address cap.
    let server = TestServer::start_with(Settings {
        max_connections_per_address: 0,
        ..settings()
    })
    .await;
    // 300 rooms make each room list about 75 KB.
    let _owners = common::open_rooms(&server, 300).await;
    let before = rss();
    let mut stallers = Vec::new();
    for _ in 0..20 {
        let mut raw = Raw::upgrade(server.addr, "/ws").await;
        for _ in 0..250 {
            raw.text(r#"{"type":"list_rooms"}"#).await;
        }
        stallers.push(raw);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    still_serving(&server).await;
    let grown = rss().saturating_sub(before);
    // Unshared, the queued answers alone would be 20 × ~190 × 75 KB ≈ 280 MB.
    assert!(grown < 80 << 20, "the server grew by {} MiB", grown >> 20);
    drop(stallers);
}
