//! A node of a real cluster for the cluster tests: the `jchomp-server` binary on a real Redis
//! and a real PostgreSQL, killed with SIGKILL when dropped.

use super::{Client, spawn_binary, temp_dir};
use jchomp_testkit::engines::{Postgres, Redis};
use std::net::SocketAddr;
use std::process::Child;

/// A node: the server process, killed (SIGKILL) when dropped.
pub struct Node {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    dir: std::path::PathBuf,
}

impl Node {
    /// Starts a node of the cluster of `redis` and `pg`.
    pub fn spawn(redis: &Redis, pg: &Postgres) -> Node {
        let dir = temp_dir();
        let (redis_url, pg_url) = (redis.url(), pg.url());
        let args = ["--cluster", &redis_url, "--database", &pg_url];
        let (child, addr) = spawn_binary(&dir, &args, "warn");
        Node { child, addr, dir }
    }

    /// Kills the process (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// A client connected to it.
    pub async fn client(&self) -> Client {
        Client::connect(self.addr).await
    }

    /// The answer to `GET path` (head and body).
    pub async fn http(&self, path: &str) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(self.addr).await.unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        s.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).await.unwrap();
        answer
    }

    /// The node's id, as `/healthz` says it.
    pub async fn id(&self) -> String {
        let body = self.http("/healthz").await;
        let at = body.find("(node ").unwrap() + "(node ".len();
        body[at..].split(')').next().unwrap().to_string()
    }

    /// Games this node has restored (taken over, in a cluster).
    pub async fn restored(&self) -> u64 {
        let metrics = self.http("/metrics").await;
        metrics
            .lines()
            .find_map(|l| l.strip_prefix("jchomp_games_restored_total "))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    /// Sends the process a signal (`STOP`, `CONT`).
    pub fn signal(&self, name: &str) {
        let status = std::process::Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
