//! The fault scenarios' harness: a cluster in network namespaces ([`cluster`]), games opened on
//! it ([`games`]), clients that play through faults and keep what they were shown
//! ([`player`]), and the judge of the invariants ([`check`]). [`run`] plays one scenario.

pub mod check;
pub mod cluster;
pub mod games;
pub mod player;

use check::{MayGo, Report};
use cluster::Cluster;
use games::Spec;
use jchomp_testkit::signals::Signal;
use std::time::{Duration, Instant};

/// A fault, struck at node 0 (the owner of most games) or at Redis.
#[derive(Debug, Clone, Copy)]
pub enum Fault {
    /// Node 0 killed (SIGKILL).
    OwnerKilled,
    /// Redis paused (SIGSTOP) this long, then continued.
    RedisPaused(Duration),
    /// Node 0 paused this long, then continued.
    OwnerPaused(Duration),
    /// Node 0 cut from Redis and PostgreSQL this long (its clients still reach it).
    OwnerCut(Duration),
    /// Redis killed, and started again on its data after this long.
    RedisRestarted(Duration),
    /// PostgreSQL killed, and started again on its data after this long.
    PostgresRestarted(Duration),
}

impl Fault {
    /// The longest a game may stall under this fault: a node's lease (3 s) and 2 s to take
    /// its rooms over (the availability goal), or a pause and 2 s (a paused node tells
    /// nobody anything until it wakes), and 1 s for a client to think and get back in.
    pub fn stall_bound(self) -> Duration {
        const LEASE: Duration = Duration::from_secs(3);
        const TAKEOVER: Duration = Duration::from_secs(2);
        const CLIENT: Duration = Duration::from_secs(1);
        match self {
            Fault::OwnerKilled | Fault::OwnerCut(_) => LEASE + TAKEOVER + CLIENT,
            Fault::RedisPaused(d) | Fault::OwnerPaused(d) | Fault::RedisRestarted(d) => {
                d + TAKEOVER + CLIENT
            }
            // Games in play do not need PostgreSQL: only their records wait for it.
            Fault::PostgresRestarted(_) => TAKEOVER + CLIENT,
        }
    }

    /// Whose clients the fault may send elsewhere: those of the node it strikes (with Redis
    /// away every node stops serving, and every client may go; PostgreSQL away stops none).
    fn may_go(self) -> MayGo {
        match self {
            Fault::OwnerKilled | Fault::OwnerPaused(_) | Fault::OwnerCut(_) => MayGo::Node(0),
            Fault::RedisPaused(_) | Fault::RedisRestarted(_) => MayGo::Anyone,
            Fault::PostgresRestarted(_) => MayGo::Nobody,
        }
    }

    /// Whether node 0 lives through the fault but loses its lease: it must then reach Redis
    /// again by itself.
    fn lapses_node0(self) -> bool {
        matches!(
            self,
            Fault::OwnerCut(_)
                | Fault::OwnerPaused(_)
                | Fault::RedisPaused(_)
                | Fault::RedisRestarted(_)
        )
    }
}

/// The games of every scenario: four owned by node 0, one by node 1; two of node 0's are
/// short and played from the other nodes only (a spectator on node 0), so that they can end on
/// the node that took them over while node 0 is away; the others last through the fault.
const GAMES: [Spec; 5] = [
    Spec {
        board: "6x9",
        players: 2,
        owner: 0,
        seat0: 1,
    },
    Spec {
        board: "8x9",
        players: 3,
        owner: 0,
        seat0: 0,
    },
    Spec {
        board: "9x10",
        players: 4,
        owner: 0,
        seat0: 0,
    },
    Spec {
        board: "7x7",
        players: 2,
        owner: 0,
        seat0: 1,
    },
    Spec {
        board: "7x8",
        players: 3,
        owner: 1,
        seat0: 1,
    },
];

/// How long the games play before the fault.
const BEFORE: Duration = Duration::from_secs(3);
/// How long the clients have, from the start, to see their games end.
const PLAY: Duration = Duration::from_secs(90);

/// How long after the games a node that lost its lease may take to show it is back.
const REJOIN: Duration = Duration::from_secs(5);

/// Plays the games through `fault` and judges them, the clients going elsewhere after hearing
/// nothing for `patience` (if given); prints and returns the report, and whether it holds
/// (within [`Fault::stall_bound`]).
pub async fn run(fault: Fault, patience: Option<Duration>) -> (Report, bool) {
    let mut cluster = Cluster::start();
    let t0 = Instant::now();
    let clock = player::Clock {
        t0,
        deadline: t0 + PLAY,
        patience,
    };
    let mut rooms = Vec::new();
    let mut tasks = Vec::new();
    for spec in &GAMES {
        let (room, plans) = games::open(&cluster, spec, clock).await;
        rooms.push(room);
        tasks.extend(plans.into_iter().map(|p| tokio::spawn(player::run(p))));
    }
    tokio::time::sleep(BEFORE).await;
    let struck = t0.elapsed();
    strike(&mut cluster, fault).await;
    let mut histories = Vec::new();
    for task in tasks {
        histories.push(task.await.unwrap());
    }
    // Time for a stale owner to act on what it held, then the judge.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let report = check::judge(
        &rooms,
        &histories,
        &records(&cluster, &rooms).await,
        &listed(&cluster).await,
        fault.may_go(),
    );
    // A node that lived through the fault reconnects by itself (long since, by now).
    let rejoined = !fault.lapses_node0() || cluster.nodes[0].rejoined(REJOIN).await;
    let holds = report.holds(fault.stall_bound()) && rejoined;
    eprintln!(
        "{fault:?}, patience {patience:?} (struck {struck:.1?} after the games started): {report}; node 0 rejoined: {rejoined}"
    );
    if !holds {
        eprintln!("node 0's log:\n{}", cluster.nodes[0].log());
    }
    (report, holds)
}

/// Strikes `fault` and, for a pause or a cut, ends it after its time.
async fn strike(cluster: &mut Cluster, fault: Fault) {
    match fault {
        Fault::OwnerKilled => cluster.nodes[0].kill(),
        Fault::RedisPaused(d) => {
            cluster.signal_redis(Signal::Stop);
            tokio::time::sleep(d).await;
            cluster.signal_redis(Signal::Cont);
        }
        Fault::OwnerPaused(d) => {
            cluster.nodes[0].signal(Signal::Stop);
            tokio::time::sleep(d).await;
            cluster.nodes[0].signal(Signal::Cont);
        }
        Fault::OwnerCut(d) => {
            cluster.cut(0);
            tokio::time::sleep(d).await;
            cluster.heal(0);
        }
        Fault::RedisRestarted(d) => {
            cluster.kill_redis();
            tokio::time::sleep(d).await;
            cluster.restart_redis();
        }
        Fault::PostgresRestarted(d) => {
            cluster.kill_pg();
            tokio::time::sleep(d).await;
            cluster.restart_pg();
        }
    }
}

/// The records in PostgreSQL, once every game has one (or after 10 s).
async fn records(cluster: &Cluster, rooms: &[String]) -> Vec<(String, serde_json::Value)> {
    let started = Instant::now();
    loop {
        let records = cluster.records().await;
        let all = rooms.iter().all(|r| records.iter().any(|(id, _)| id == r));
        if all || started.elapsed() > Duration::from_secs(10) {
            return records;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Every room any live node lists.
async fn listed(cluster: &Cluster) -> Vec<serde_json::Value> {
    let mut all = Vec::new();
    for node in &cluster.nodes {
        all.extend(node.rooms().await.unwrap_or_default());
    }
    all
}
