//! A cluster started for a run (`--spawn-cluster N`): a `redis-server` of its own on a free
//! loopback port in a temporary directory ([`spawn_redis`]) and N `jchomp-server --cluster`
//! nodes sharing it (`spawn_cluster`); and Redis's count of the commands it has processed
//! ([`RedisCounter`]), read at both ends of the window to give Redis operations per move.
//!
//! `redis-server` is found on the `PATH` (Debian's `redis-server` package puts it in
//! `/usr/bin`, where the test kit's `system::REDIS_SERVER` looks too) or given with
//! `--redis-bin`. The load generator does not install it: the test kit's installer is for tests
//! only (no crate depends on the kit outside its dev-dependencies), so the bench's own tests
//! install it through the kit and pass its path, and a person running the bench installs it
//! as the error says.

use super::process::{Child, ProcessError, ServerLaunch, spawn_server};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::process::Command;

/// Time `redis-server` has to answer its first `PING`.
const REDIS_START: Duration = Duration::from_secs(20);

/// The `redis-server` looked for on the `PATH` when no `--redis-bin` is given.
pub const REDIS_SERVER: &str = "redis-server";

/// A `redis-server` this tool started; killed (and its directory removed) when dropped.
#[derive(Debug)]
pub struct RedisChild {
    /// `redis://127.0.0.1:PORT/`.
    pub url: String,
    /// Its process id.
    pub pid: u32,
    child: tokio::process::Child,
    dir: PathBuf,
}

impl Drop for RedisChild {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Why a cluster could not be started.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// `redis-server` could not be run.
    #[error(
        "cannot start {program:?}: {error} (install Debian's redis-server package, or pass --redis-bin)"
    )]
    StartRedis {
        /// The program.
        program: PathBuf,
        /// Why.
        #[source]
        error: std::io::Error,
    },
    /// No free port or no temporary directory for it.
    #[error("cannot prepare redis-server: {0}")]
    Prepare(#[source] std::io::Error),
    /// It exited at start or did not answer.
    #[error("redis-server exited or did not answer PING within {} s", REDIS_START.as_secs())]
    RedisNotReady,
    /// A node did not start.
    #[error(
        "node {index}: {error} (build it with `cargo build --release -p jchomp-server`, or pass --server-bin)"
    )]
    Node {
        /// Which node (from 1).
        index: usize,
        /// Why.
        #[source]
        error: ProcessError,
    },
}

/// A free TCP port on 127.0.0.1 (free when asked; redis-server binds it at once).
fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Starts `program` (a `redis-server`) on a free loopback port with its files in a fresh
/// temporary directory — append-only file fsynced every second, no snapshots, as a deployment
/// would run it — and returns once it answers `PING`.
pub async fn spawn_redis(program: &Path) -> Result<RedisChild, ClusterError> {
    let dir = std::env::temp_dir().join(format!(
        "jchomp-bench-redis-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).map_err(ClusterError::Prepare)?;
    let port = free_port().map_err(ClusterError::Prepare)?;
    let mut cmd = Command::new(program);
    cmd.args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .arg("--dir")
        .arg(&dir)
        .args(["--appendonly", "yes", "--appendfsync", "everysec"])
        .args(["--save", "", "--daemonize", "no", "--protected-mode", "yes"])
        // The nodes' subscribers and the bench's counter, with room to spare.
        .args(["--maxclients", "10000"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(error) => {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(ClusterError::StartRedis {
                program: program.to_owned(),
                error,
            });
        }
    };
    let redis = RedisChild {
        url: format!("redis://127.0.0.1:{port}/"),
        pid: child.id().unwrap_or(0),
        child,
        dir,
    };
    let mut redis = redis;
    let deadline = tokio::time::Instant::now() + REDIS_START;
    loop {
        if let Ok(Some(_)) = redis.child.try_wait() {
            return Err(ClusterError::RedisNotReady);
        }
        if RedisCounter::connect(&redis.url).await.is_some() {
            return Ok(redis);
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(ClusterError::RedisNotReady);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A cluster started for one run: its Redis and its nodes, stopped when dropped.
#[derive(Debug)]
pub(crate) struct SpawnedCluster {
    /// The nodes, in the order seats are split across them.
    pub nodes: Vec<Child>,
    /// Their Redis (dropped after them).
    pub redis: RedisChild,
}

/// Starts a `redis-server` (`redis_bin`) and `n` nodes of `launch` on it (`--cluster`).
pub(crate) async fn spawn_cluster(
    redis_bin: &Path,
    launch: &ServerLaunch,
    n: usize,
) -> Result<SpawnedCluster, ClusterError> {
    let redis = spawn_redis(redis_bin).await?;
    let launch = ServerLaunch {
        cluster: Some(redis.url.clone()),
        ..launch.clone()
    };
    let mut nodes = Vec::with_capacity(n);
    for index in 1..=n {
        let node = spawn_server(&launch)
            .await
            .map_err(|error| ClusterError::Node { index, error })?;
        nodes.push(node);
    }
    Ok(SpawnedCluster { nodes, redis })
}

/// A connection to Redis that reads how many commands it has processed.
pub struct RedisCounter {
    conn: redis::aio::MultiplexedConnection,
}

impl RedisCounter {
    /// Connects to `url` and checks it answers; `None` if it cannot be reached.
    pub async fn connect(url: &str) -> Option<RedisCounter> {
        let client = redis::Client::open(url).ok()?;
        let connect = client.get_multiplexed_async_connection();
        let mut conn = tokio::time::timeout(Duration::from_secs(2), connect)
            .await
            .ok()?
            .ok()?;
        let pong: String = redis::cmd("PING").query_async(&mut conn).await.ok()?;
        (pong == "PONG").then_some(RedisCounter { conn })
    }

    /// `total_commands_processed` of `INFO stats` (this counter's own `INFO` included).
    pub async fn commands(&mut self) -> Option<u64> {
        let info: String = redis::cmd("INFO")
            .arg("stats")
            .query_async(&mut self.conn)
            .await
            .ok()?;
        commands_processed(&info)
    }
}

/// The `total_commands_processed` line of an `INFO` answer.
fn commands_processed(info: &str) -> Option<u64> {
    info.lines()
        .find_map(|l| l.strip_prefix("total_commands_processed:"))?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_command_count_of_an_info_answer() {
        let info = "# Stats\r\ntotal_connections_received:3\r\ntotal_commands_processed:1234\r\ninstantaneous_ops_per_sec:7\r\n";
        assert_eq!(commands_processed(info), Some(1234));
        assert_eq!(commands_processed("# Stats\r\n"), None);
        assert_eq!(commands_processed("total_commands_processed:x\r\n"), None);
    }
}
