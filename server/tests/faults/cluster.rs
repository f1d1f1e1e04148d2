//! The cluster under test: a router namespace, Redis and PostgreSQL each in a namespace of
//! their own, and three `jchomp-server` nodes in theirs; the test reaches the nodes (and the
//! databases) from its own namespace. Faults: a node killed, paused, or cut from both databases.

use crate::common::{Client, server_binary, spawn_in, temp_dir};
use jchomp_testkit::engines::{Postgres, Redis};
use jchomp_testkit::netns::{Member, Net};
use jchomp_testkit::signals::{Signal, send};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::process::{Child, Stdio};
use std::time::Duration;

/// A node: the server process in its namespace, killed (SIGKILL) when dropped.
pub struct Node {
    child: Child,
    /// Where clients reach it.
    pub addr: SocketAddr,
    member: Member,
    dir: std::path::PathBuf,
}

impl Node {
    fn spawn(member: Member, redis: &Redis, pg: &Postgres) -> Node {
        let dir = temp_dir();
        let log = std::fs::File::create(dir.join("node.log")).unwrap();
        let (redis_url, pg_url) = (redis.url(), pg.url());
        let args = ["--cluster", &redis_url, "--database", &pg_url];
        let (child, addr) = spawn_in(
            member.command(server_binary()),
            &format!("{}:0", member.addr),
            &dir,
            &args,
            "warn",
            Stdio::from(log),
        );
        Node {
            child,
            addr,
            member,
            dir,
        }
    }

    /// The node's log so far (its warnings).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("node.log")).unwrap_or_default()
    }

    /// Sends the node's process `signal`.
    pub fn signal(&self, signal: Signal) {
        send(self.child.id(), signal);
    }

    /// Kills the node (SIGKILL) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Whether the node reaches Redis again by itself and has stopped serving at least once
    /// (its lease lapsed): waits up to `within` for its `/healthz` to say so.
    pub async fn rejoined(&self, within: Duration) -> bool {
        let deadline = std::time::Instant::now() + within;
        loop {
            let (_, health) = jchomp_testkit::server::http_get(self.addr, "/healthz").await;
            let (_, metrics) = jchomp_testkit::server::http_get(self.addr, "/metrics").await;
            let lapses = metrics
                .lines()
                .find_map(|l| l.strip_prefix("jchomp_cluster_lease_lapses_total "))
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
            if health.contains("redis: reachable") && lapses > 0 {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                eprintln!("node 0 has not rejoined: {health} (lease lapses: {lapses})");
                return false;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The rooms the node lists, or `None` if it does not answer within 5 s.
    pub async fn rooms(&self) -> Option<Vec<Value>> {
        let url = format!("ws://{}/ws", self.addr);
        let ask = async move {
            let (ws, _) = tokio_tungstenite::connect_async(url).await.ok()?;
            let mut c = Client { ws };
            c.send(json!({"type":"list_rooms"})).await;
            Some(c.expect("rooms").await["rooms"].as_array()?.clone())
        };
        tokio::time::timeout(Duration::from_secs(5), tokio::spawn(ask))
            .await
            .ok()
            .and_then(Result::ok)
            .flatten()
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Three nodes, Redis and PostgreSQL, each in its own namespace. Field order is drop order:
/// nodes first, then the databases, then the namespaces.
pub struct Cluster {
    /// The nodes; node 0 is the one the faults strike.
    pub nodes: Vec<Node>,
    /// The Redis server.
    pub redis: Redis,
    /// The PostgreSQL server.
    pub pg: Postgres,
    redis_at: Member,
    pg_at: Member,
    net: Net,
}

impl Cluster {
    /// Starts everything; returns once every node listens.
    pub fn start() -> Cluster {
        let mut net = Net::new();
        let redis_at = net.add("redis");
        let pg_at = net.add("pg");
        let redis = Redis::start_on(redis_at.host());
        let pg = Postgres::start_on(pg_at.host());
        let nodes = (0..3)
            .map(|i| Node::spawn(net.add(&format!("node{i}")), &redis, &pg))
            .collect();
        Cluster {
            nodes,
            redis,
            pg,
            redis_at,
            pg_at,
            net,
        }
    }

    /// Cuts node `i` from Redis and PostgreSQL (silently, both ways); clients still reach it.
    pub fn cut(&self, i: usize) {
        self.net.cut(&self.nodes[i].member, &self.redis_at);
        self.net.cut(&self.nodes[i].member, &self.pg_at);
    }

    /// Undoes [`Cluster::cut`].
    pub fn heal(&self, i: usize) {
        self.net.heal(&self.nodes[i].member, &self.redis_at);
        self.net.heal(&self.nodes[i].member, &self.pg_at);
    }

    /// Stops Redis (SIGKILL: what it has not made durable is lost; it syncs every write).
    pub fn kill_redis(&mut self) {
        self.redis.kill();
    }

    /// Starts Redis again on its data.
    pub fn restart_redis(&mut self) {
        self.redis.resume();
    }

    /// Stops PostgreSQL.
    pub fn kill_pg(&mut self) {
        self.pg.kill();
    }

    /// Starts PostgreSQL again on its data.
    pub fn restart_pg(&mut self) {
        self.pg.resume();
    }

    /// Sends Redis `signal` (a pause is SIGSTOP, its end SIGCONT).
    pub fn signal_redis(&self, signal: Signal) {
        send(self.redis.pid().unwrap(), signal);
    }

    /// The addresses of the nodes, in order.
    pub fn addrs(&self) -> Vec<SocketAddr> {
        self.nodes.iter().map(|n| n.addr).collect()
    }

    /// Every stored record in PostgreSQL: (id, record).
    pub async fn records(&self) -> Vec<(String, Value)> {
        let (client, conn) = tokio_postgres::connect(&self.pg.url(), tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        let rows = client
            .query("SELECT id, record FROM games", &[])
            .await
            .unwrap();
        rows.iter()
            .map(|r| {
                let record: String = r.get(1);
                (r.get(0), serde_json::from_str(&record).unwrap())
            })
            .collect()
    }
}
