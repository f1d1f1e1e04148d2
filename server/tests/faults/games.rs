//! The games of a fault scenario: each created on its owner node (its seat 0 then resumed from
//! another node if the spec says so), its other seats joined from the next nodes in turn, and a
//! spectator on every node; each client handed over as a [`Plan`] to play or watch.

use crate::common::{Client, config_value};
use crate::faults::cluster::Cluster;
use crate::faults::player::{Clock, Plan, Role};
use serde_json::json;
use std::time::{Duration, Instant};

/// A game to open: its board (one line of notation), its number of seats, its owner node.
pub struct Spec {
    /// The board, e.g. `6x9`.
    pub board: &'static str,
    /// 2–4 seats.
    pub players: usize,
    /// The node it is created on.
    pub owner: usize,
    /// The node seat 0 plays from (it resumes there after creating the room); seat `s` joins
    /// from node `seat0 + s` (modulo the nodes).
    pub seat0: usize,
}

/// Opens a game of `spec` and returns its room and the plans of its clients (its
/// seats and spectators), which play by `clock`.
pub async fn open(cluster: &Cluster, spec: &Spec, clock: Clock) -> (String, Vec<Plan>) {
    let config = config_value(&format!("{} players {}", spec.board, spec.players));
    let nodes = cluster.addrs();
    let mut creator = Client::connect(nodes[spec.owner]).await;
    let (room, token) = creator.create("p0", config.clone()).await;
    for node in &cluster.nodes {
        until_listed(node, &room).await;
    }
    let plan = |role, node, client| Plan {
        room: room.clone(),
        role,
        config: config.clone(),
        nodes: nodes.clone(),
        node,
        client,
        clock,
    };
    let mut seats = Vec::new();
    for seat in 1..spec.players {
        let node = (spec.seat0 + seat) % nodes.len();
        let mut c = Client::connect(nodes[node]).await;
        let (s, token, _) = c.join(&room, &format!("p{seat}")).await;
        assert_eq!(s as usize, seat);
        seats.push(plan(Role::Seat { seat: s, token }, node, c));
    }
    // Seat tokens resume only games in play: seat 0 moves once the game has started.
    if spec.seat0 != spec.owner {
        creator = Client::connect(nodes[spec.seat0]).await;
        creator.send(json!({"type":"resume","token":token})).await;
        creator.expect("joined").await;
    }
    let mut plans = vec![plan(Role::Seat { seat: 0, token }, spec.seat0, creator)];
    plans.append(&mut seats);
    for (node, addr) in nodes.iter().enumerate() {
        let mut c = Client::connect(*addr).await;
        c.send(json!({"type":"spectate","room":room})).await;
        let snap = c.until("room").await;
        assert_eq!(snap["status"], "playing", "{snap}");
        plans.push(plan(Role::Spectator, node, c));
    }
    (room, plans)
}

/// Waits (up to 5 s) until `node` lists `room`.
async fn until_listed(node: &crate::faults::cluster::Node, room: &str) {
    let started = Instant::now();
    loop {
        let rooms = node.rooms().await.unwrap_or_default();
        if rooms.iter().any(|r| r["room"] == room) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{room} not listed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
