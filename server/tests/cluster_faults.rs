//! A real cluster under faults (as root: network namespaces): three `jchomp-server` nodes,
//! Redis and PostgreSQL each in a network namespace of its own, five games of 2–4 seats in play
//! with seats and spectators on every node, every client keeping what it was shown; a fault
//! strikes the owner of four of them (or Redis), and the invariants are judged from the
//! clients' histories, the records in PostgreSQL and the rooms listed at the end (see
//! `faults/check.rs`). The scenarios run one at a time (they share two cores).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod faults;

use faults::{Fault, run};
use std::time::Duration;

/// One scenario at a time.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fault_owner_killed() {
    let _one = ONE_AT_A_TIME.lock().await;
    let report = run(Fault::OwnerKilled).await;
    assert!(report.holds(), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fault_redis_paused_5s() {
    let _one = ONE_AT_A_TIME.lock().await;
    let report = run(Fault::RedisPaused(Duration::from_secs(5))).await;
    assert!(report.holds(), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fault_owner_paused_12s() {
    let _one = ONE_AT_A_TIME.lock().await;
    let report = run(Fault::OwnerPaused(Duration::from_secs(12))).await;
    assert!(report.holds(), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fault_owner_cut_off_15s() {
    let _one = ONE_AT_A_TIME.lock().await;
    let report = run(Fault::OwnerCut(Duration::from_secs(15))).await;
    assert!(report.holds(), "{report}");
}
