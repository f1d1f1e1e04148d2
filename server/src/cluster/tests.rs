//! The cluster's scripts against a real Redis: a closed room's tombstone refuses every later
//! write, line and claim for it, from any node, and is pruned only after it has been kept.

use super::directory::write;
use super::link::Link;
use super::state::{CLOSED, CLOSED_AT, Mirror, OWNERS, moves_key};
use super::takeover::{CLAIM, prune};
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

/// Writes directory changes as `node` and waits until they are in Redis.
async fn tell(link: &Arc<Link>, node: &str, changes: Vec<Change>) {
    let (sink, rx, written) = DirectorySink::new();
    let task = tokio::spawn(write(link.clone(), node.to_string(), rx, written));
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
    let n1 = Mirror::new(link.clone(), "n1".into()).await.unwrap();
    apply(&n1, &[Write::Live(Box::new(live("r1")))]).await;
    let owner: Option<String> = redis.hget(OWNERS, "r1").await.unwrap();
    assert_eq!(owner.as_deref(), Some("n1"));

    // The room closes on its owner: its tombstone is laid.
    tell(
        &link,
        "n1",
        vec![Change::Removed {
            id: "r1".into(),
            tokens: vec![],
        }],
    )
    .await;
    let owner: Option<String> = redis.hget(OWNERS, "r1").await.unwrap();
    assert_eq!(owner.as_deref(), Some(CLOSED));

    // A stale owner's held batch is refused, and the room learns it is lost.
    let stale = Mirror::new(link.clone(), "n1".into()).await.unwrap();
    apply(&stale, &[a_move("r1")]).await;
    assert!(stale.lost("r1"), "a write for a closed room was accepted");
    let moves: bool = redis.exists(moves_key("r1")).await.unwrap();
    assert!(!moves, "a move of a closed room reached Redis");
    // So is another node's first write for it ("a new room, mine").
    let other = Mirror::new(link.clone(), "n2".into()).await.unwrap();
    apply(&other, &[Write::Live(Box::new(live("r1")))]).await;
    assert!(other.lost("r1"));

    // Nobody writes its directory line again, and nobody claims it.
    tell(&link, "n1", vec![Change::Room(summary("r1"))]).await;
    let line: Option<String> = redis.hget(super::directory::ROOMS, "r1").await.unwrap();
    assert_eq!(line, None, "a closed room was listed again");
    let won: i64 = redis::cmd("EVAL")
        .arg(CLAIM)
        .arg(3)
        .arg(OWNERS)
        .arg("jchomp:owned:n1")
        .arg("jchomp:owned:n3")
        .arg("r1")
        .arg("n1")
        .arg("n3")
        .query_async(&mut redis)
        .await
        .unwrap();
    assert_eq!(won, 0);
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
    assert_eq!(cluster.forwarder("n2".into(), 1).queue_capacity(), 8);
    // A room nobody restores is answered at once.
    cluster
        .clone()
        .serve("n2".into(), 1, "r8".into(), 7, Op::Spectate)
        .await;
    assert_eq!(next_answer().await.0, 7);
}
