//! The cluster's scripts against a real Redis: a closed room's tombstone refuses every later
//! write, line and claim for it, from any node, and is pruned only after it has been kept; a
//! write, line or claim sent under a lease that ran out or was taken again is refused.

use super::directory::write;
use super::lapse::take;
use super::lease::{FORGET, Lease};
use super::lease_key;
use super::link::Link;
use super::state::NODES;
use super::state::{CLOSED, CLOSED_AT, Mirror, OWNERS, moves_key};
use super::takeover::{BURY, CLAIM, prune};
use crate::game::directory::{Change, DirectorySink};
use crate::store::Replica;
use crate::store::live::{LiveMove, LiveRoom, LiveSeat, Write};
use jchomp_protocol::wire::{RoomStatus, RoomSummary};
use jchomp_testkit::config_json;
use jchomp_testkit::engines::Redis;
use redis::AsyncCommands;
use std::sync::Arc;

fn live(room: &str) -> LiveRoom {
    LiveRoom {
        room: room.to_string(),
        config: config_json("4x4 poison 0,0"),
        seats: ["a", "b"]
            .map(|n| LiveSeat {
                name: n.to_string(),
                bot: None,
                token_hash: None,
                account_bot: false,
            })
            .to_vec(),
        host: Some(0),
        started_ms: Some(1),
        version: 1,
        moves: 0,
        time_left_ms: None,
        games_played: 0,
    }
}

fn a_move(room: &str) -> Write {
    Write::Move {
        room: room.to_string(),
        ply: 0,
        mv: LiveMove {
            row: 1,
            col: 1,
            version: 2,
        },
    }
}

/// Sends one batch through `mirror` as the writer does.
async fn apply(mirror: &Mirror, batch: &[Write]) {
    if let Some(send) = mirror.prepare(batch, false) {
        send.await;
    }
}

/// `node`'s lease, taken in Redis.
async fn lease(link: &Arc<Link>, node: &str) -> Arc<Lease> {
    let now = tokio::time::Instant::now();
    let (epoch, _) = take(&mut link.get(), node).await.unwrap();
    Arc::new(Lease::new(epoch, now))
}

/// A mirror writing for `node` under `lease`.
async fn mirror(link: &Arc<Link>, node: &str, lease: &Arc<Lease>) -> Mirror {
    Mirror::new(link.clone(), node.into(), lease.clone())
        .await
        .unwrap()
}

/// Claims `room` of `dead` for `node` under `epoch`: whether it won.
async fn claim(link: &Arc<Link>, room: &str, dead: &str, node: &str, epoch: u64) -> bool {
    let won: i64 = redis::cmd("EVAL")
        .arg(CLAIM)
        .arg(5)
        .arg(OWNERS)
        .arg(format!("jchomp:owned:{dead}"))
        .arg(format!("jchomp:owned:{node}"))
        .arg(lease_key(dead))
        .arg(lease_key(node))
        .arg(room)
        .arg(dead)
        .arg(node)
        .arg(epoch)
        .query_async(&mut link.get())
        .await
        .unwrap();
    won == 1
}

/// Writes directory changes as `node` under `lease` and waits until they are in Redis.
async fn tell(link: &Arc<Link>, node: &str, lease: &Arc<Lease>, changes: Vec<Change>) {
    let (sink, rx, written) = DirectorySink::new();
    let task = tokio::spawn(write(
        link.clone(),
        node.to_string(),
        lease.clone(),
        rx,
        written,
    ));
    for c in changes {
        sink.tell(c);
    }
    sink.written().await;
    drop(sink);
    let _ = task.await;
}

fn summary(room: &str) -> RoomSummary {
    RoomSummary {
        room: room.to_string(),
        config: config_json("4x4 poison 0,0"),
        seats: vec![None, None],
        status: RoomStatus::Waiting,
    }
}

#[tokio::test]
async fn a_closed_room_stays_closed_for_every_node() {
    let server = Redis::start();
    let client = redis::Client::open(server.url()).unwrap();
    let link = Arc::new(Link::open(client).await.unwrap());
    let mut redis = link.get();
    let l1 = lease(&link, "n1").await;
    let n1 = mirror(&link, "n1", &l1).await;
    apply(&n1, &[Write::Live(Box::new(live("r1")))]).await;
    let owner: Option<String> = redis.hget(OWNERS, "r1").await.unwrap();
    assert_eq!(owner.as_deref(), Some("n1"));

    // The room closes on its owner: its tombstone is laid.
    tell(
        &link,
        "n1",
        &l1,
        vec![Change::Removed {
            id: "r1".into(),
            tokens: vec![],
        }],
    )
    .await;
    let owner: Option<String> = redis.hget(OWNERS, "r1").await.unwrap();
    assert_eq!(owner.as_deref(), Some(CLOSED));

    // A stale owner's held batch is refused, and the room learns it is lost.
    apply(&n1, &[a_move("r1")]).await;
    assert!(n1.lost("r1"), "a write for a closed room was accepted");
    let moves: bool = redis.exists(moves_key("r1")).await.unwrap();
    assert!(!moves, "a move of a closed room reached Redis");
    // So is another node's first write for it ("a new room, mine").
    let l2 = lease(&link, "n2").await;
    let other = mirror(&link, "n2", &l2).await;
    apply(&other, &[Write::Live(Box::new(live("r1")))]).await;
    assert!(other.lost("r1"));

    // Nobody writes its directory line again, and nobody claims it.
    tell(&link, "n1", &l1, vec![Change::Room(summary("r1"))]).await;
    let line: Option<String> = redis.hget(super::directory::ROOMS, "r1").await.unwrap();
    assert_eq!(line, None, "a closed room was listed again");
    let l3 = lease(&link, "n3").await;
    let _: () = redis.del(lease_key("n1")).await.unwrap();
    assert!(!claim(&link, "r1", "n1", "n3", l3.epoch()).await);
    let owner: Option<String> = redis.hget(OWNERS, "r1").await.unwrap();
    assert_eq!(owner.as_deref(), Some(CLOSED));

    // Pruning keeps a tombstone younger than its keep, then removes it.
    let laid: f64 = redis.zscore(CLOSED_AT, "r1").await.unwrap();
    let laid = laid as u64;
    assert_eq!(prune(&mut redis, laid + 1000).await.unwrap(), 0);
    let keep = super::state::TOMBSTONE_KEEP.as_millis() as u64;
    assert_eq!(prune(&mut redis, laid + keep + 1).await.unwrap(), 1);
    let owner: Option<String> = redis.hget(OWNERS, "r1").await.unwrap();
    assert_eq!(owner, None);

    // A live room of another node is untouched by all of this.
    apply(&other, &[Write::Live(Box::new(live("r2")))]).await;
    assert!(!other.lost("r2"));
}

#[tokio::test]
async fn nothing_is_written_or_claimed_under_a_lease_that_ran_out_or_was_taken_again() {
    let server = Redis::start();
    let client = redis::Client::open(server.url()).unwrap();
    let link = Arc::new(Link::open(client).await.unwrap());
    let mut redis = link.get();
    let old = lease(&link, "n1").await;
    let n1 = mirror(&link, "n1", &old).await;
    // As on a node: the room's line first, then its game.
    tell(&link, "n1", &old, vec![Change::Room(summary("r1"))]).await;
    apply(&n1, &[Write::Live(Box::new(live("r1")))]).await;
    apply(&n1, &[a_move("r1")]).await;
    assert!(!n1.lost("r1"));

    // Another node cannot claim the room while n1's lease lives, nor under an epoch that is
    // not its lease's.
    let l2 = lease(&link, "n2").await;
    assert!(!claim(&link, "r1", "n1", "n2", l2.epoch()).await);
    let _: () = redis.del(lease_key("n1")).await.unwrap();
    assert!(!claim(&link, "r1", "n1", "n2", l2.epoch() + 100).await);

    // n1's lease ran out in Redis (its node paused or cut off): a batch it held is refused,
    // whatever its own clock says, and so is its directory line.
    let held = Mirror::new(link.clone(), "n1".into(), old.clone())
        .await
        .unwrap();
    let mut late = a_move("r1");
    if let Write::Move { ply, .. } = &mut late {
        *ply = 1;
    }
    apply(&held, std::slice::from_ref(&late)).await;
    assert!(held.lost("r1"), "a write under a lapsed lease was taken");
    let _: () = redis.hdel(super::directory::ROOMS, "r1").await.unwrap();
    tell(&link, "n1", &old, vec![Change::Room(summary("r1"))]).await;
    let line: Option<String> = redis.hget(super::directory::ROOMS, "r1").await.unwrap();
    assert_eq!(line, None, "a line under a lapsed lease was written");

    // n1 takes its lease again under a fresh epoch, and gets its room back from Redis: a
    // batch sent under the old epoch is still refused; under the new one it is taken.
    let (epoch, rooms) = take(&mut link.get(), "n1").await.unwrap();
    assert!(epoch > old.epoch());
    assert_eq!(rooms, vec!["r1".to_string()]);
    apply(&held, std::slice::from_ref(&late)).await;
    assert!(held.lost("r1"), "a write under an old epoch was taken");
    let fresh = Arc::new(Lease::new(epoch, tokio::time::Instant::now()));
    let n1 = mirror(&link, "n1", &fresh).await;
    apply(&n1, std::slice::from_ref(&late)).await;
    assert!(!n1.lost("r1"));
    let moves: usize = redis.hlen(moves_key("r1")).await.unwrap();
    assert_eq!(moves, 2);

    // A node is forgotten only while its lease is gone; once it is, a claim wins the room,
    // and the old owner, taking its lease again, is not given it.
    let forget = |node: &'static str| {
        let link = link.clone();
        async move {
            let forgotten: i64 = redis::cmd("EVAL")
                .arg(FORGET)
                .arg(2)
                .arg(NODES)
                .arg(lease_key(node))
                .arg(node)
                .query_async(&mut link.get())
                .await
                .unwrap();
            forgotten == 1
        }
    };
    assert!(!forget("n1").await);
    let _: () = redis.del(lease_key("n1")).await.unwrap();
    assert!(claim(&link, "r1", "n1", "n2", l2.epoch()).await);
    assert!(forget("n1").await);
    let (_, rooms) = take(&mut link.get(), "n1").await.unwrap();
    assert!(rooms.is_empty(), "{rooms:?}");
    let owned: Vec<String> = redis.smembers("jchomp:owned:n1").await.unwrap();
    assert!(owned.is_empty());
}

#[tokio::test]
async fn requests_for_a_room_being_restored_wait_for_it_and_keep_their_order() {
    use super::Cluster;
    use super::wire::{Envelope, Op, ReplyBody, channel};
    use crate::game::lobby::Lobby;
    use crate::metrics::Metrics;
    use futures_util::StreamExt;

    let server = Redis::start();
    let (_stop, shutdown) = tokio::sync::watch::channel(false);
    let cluster = Cluster::start(
        &server.url(),
        Arc::new(Lobby::default()),
        Arc::new(Metrics::default()),
        8,
        shutdown,
    )
    .await
    .unwrap();
    // The answers go to node n2's channel: listen there as n2 would.
    let client = redis::Client::open(server.url()).unwrap();
    let mut pubsub = client.get_async_pubsub().await.unwrap();
    pubsub.subscribe(channel("n2")).await.unwrap();
    let mut answers = pubsub.into_on_message();
    let mut next_answer = async || -> (u64, ReplyBody) {
        let msg = tokio::time::timeout(std::time::Duration::from_secs(5), answers.next())
            .await
            .expect("an answer within 5 s")
            .unwrap();
        let payload: String = msg.get_payload().unwrap();
        match serde_json::from_str(&payload).unwrap() {
            Envelope::Reply { req, body } => (req, body),
            other => panic!("not a reply: {other:?}"),
        }
    };

    // While the room is being restored here, requests for it wait, answered by nobody.
    crate::sync::lock(&cluster.adopting).insert("r9".into(), Vec::new());
    for req in [5, 6] {
        cluster
            .clone()
            .serve("n2".into(), 1, "r9".into(), req, Op::Spectate)
            .await;
    }
    assert_eq!(crate::sync::lock(&cluster.adopting)["r9"].len(), 2);
    // Once restored (here: found gone), they are served in the order they came.
    cluster.adopted("r9").await;
    assert!(!crate::sync::lock(&cluster.adopting).contains_key("r9"));
    for want in [5, 6] {
        let (req, body) = next_answer().await;
        assert_eq!(req, want);
        assert!(matches!(body, ReplyBody::Done(Err(_))), "{body:?}");
    }
    // The stand-in of another node's client queues as many messages as a client of this node
    // (the settings' queue, 8 here), not the default.
    assert_eq!(
        cluster.forwarder("n2".into(), 1, false).0.queue_capacity(),
        8
    );
    // A room nobody restores is answered at once.
    cluster
        .clone()
        .serve("n2".into(), 1, "r8".into(), 7, Op::Spectate)
        .await;
    assert_eq!(next_answer().await.0, 7);
}

#[tokio::test]
async fn a_room_without_a_game_is_buried_only_by_its_owner_under_its_lease() {
    let server = Redis::start();
    let client = redis::Client::open(server.url()).unwrap();
    let link = Arc::new(Link::open(client).await.unwrap());
    let mut redis = link.get();
    let old = lease(&link, "n1").await;
    tell(&link, "n1", &old, vec![Change::Room(summary("r1"))]).await;
    let bury = |epoch: u64| {
        let link = link.clone();
        async move {
            let buried: i64 = redis::cmd("EVAL")
                .arg(BURY)
                .arg(7)
                .arg(OWNERS)
                .arg(super::directory::ROOMS)
                .arg(CLOSED_AT)
                .arg("jchomp:owned:n1")
                .arg(super::state::live_key("r1"))
                .arg(moves_key("r1"))
                .arg(lease_key("n1"))
                .arg("r1")
                .arg("n1")
                .arg(epoch)
                .arg(CLOSED)
                .arg(1)
                .query_async(&mut link.get())
                .await
                .unwrap();
            buried == 1
        }
    };
    // Under an epoch that is not the lease's (taken again since), nothing happens.
    let (epoch, _) = take(&mut link.get(), "n1").await.unwrap();
    assert!(!bury(old.epoch()).await);
    let line: Option<String> = redis.hget(super::directory::ROOMS, "r1").await.unwrap();
    assert!(line.is_some());
    // Under the lease's epoch the room is closed for good.
    assert!(bury(epoch).await);
    let owner: Option<String> = redis.hget(OWNERS, "r1").await.unwrap();
    assert_eq!(owner.as_deref(), Some(CLOSED));
    let line: Option<String> = redis.hget(super::directory::ROOMS, "r1").await.unwrap();
    assert_eq!(line, None);
    assert!(!bury(epoch).await, "a tombstone is nobody's to bury again");
}
