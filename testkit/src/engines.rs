//! Real database servers for tests (feature `engines`): a PostgreSQL ([`Postgres`]) and a Redis
//! ([`Redis`]) started from Debian's packages in a temporary directory on a free loopback port,
//! or on a given address inside a network namespace ([`Host`], see `crate::netns`).
//! PostgreSQL refuses to run as root: run as root, the kit creates an unprivileged system user
//! ([`SERVICE_USER`]) if it is missing, hands it the directory and starts the programs as that
//! user (Redis too, for the same reason). Each server can be killed (SIGKILL, a crash) and
//! resumed on the same data and port, and is killed and its directory removed when dropped.

use crate::system::{INITDB, POSTGRES, REDIS_SERVER, require};
use crate::temp::TempDir;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The system user the kit runs database servers as when the tests run as root.
pub const SERVICE_USER: &str = "jchomp-test";

/// How long a database server may take to start.
const START: Duration = Duration::from_secs(60);

/// Where a database server runs: the address it listens on, and the network namespace it runs
/// in (`None`: this process's own). [`Host::loopback`] is the default of `start`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// The address the server binds and clients reach it on.
    pub addr: Ipv4Addr,
    /// The network namespace the server runs in (through `ip netns exec`), if any.
    pub netns: Option<String>,
}

impl Host {
    /// 127.0.0.1 in this process's network namespace.
    pub fn loopback() -> Host {
        Host {
            addr: Ipv4Addr::LOCALHOST,
            netns: None,
        }
    }

    /// A free TCP port for a server here: any port in a namespace of its own (fresh, so
    /// [`FIXED_PORT`] is free), a free one on loopback.
    fn port(&self) -> u16 {
        match self.netns {
            Some(_) => FIXED_PORT,
            None => free_port(),
        }
    }

    /// Whether something accepts TCP connections on `port` here (from this process).
    fn accepts(&self, port: u16) -> bool {
        let addr = SocketAddr::from((self.addr, port));
        std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok()
    }

    /// Kills `child` (SIGKILL), if it runs, and waits until its `port` refuses connections.
    fn kill(&self, child: &mut Option<Child>, port: u16) {
        if let Some(mut child) = child.take() {
            let _ = child.kill();
            let _ = child.wait();
            self.wait_closed(port);
        }
    }

    /// Waits until nothing accepts connections on `port` any more.
    fn wait_closed(&self, port: u16) {
        let started = Instant::now();
        while self.accepts(port) {
            assert!(
                started.elapsed() < START,
                "port {port} still open {START:?} after its server was killed"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A command for `program` that runs in this host's namespace (`ip netns exec` executes
    /// the program itself, so the child is the program).
    fn command(&self, program: &Path) -> Command {
        match &self.netns {
            None => Command::new(program),
            Some(ns) => {
                let mut command = Command::new("ip");
                command.args(["netns", "exec", ns]).arg(program);
                command
            }
        }
    }
}

/// The port database servers listen on in a namespace of their own.
const FIXED_PORT: u16 = 7000;

/// A free TCP port on 127.0.0.1 (free when asked: the caller binds it soon after).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("no free loopback port: {e}"))
}

/// Whether this process runs as root.
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.starts_with(b"0\n"))
}

/// The uid and gid of [`SERVICE_USER`], creating the user first if it is missing.
fn service_user() -> (String, String) {
    let id = |flag: &str| {
        Command::new("id")
            .args([flag, SERVICE_USER])
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    if id("-u").is_none() {
        let status = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                SERVICE_USER,
            ])
            .status()
            .unwrap_or_else(|e| panic!("cannot run useradd to create {SERVICE_USER}: {e}"));
        // Another test may have created it meanwhile.
        assert!(
            status.success() || id("-u").is_some(),
            "useradd {SERVICE_USER} failed ({status})"
        );
    }
    (
        id("-u").unwrap_or_else(|| panic!("no user {SERVICE_USER}")),
        id("-g").unwrap_or_else(|| panic!("no group of {SERVICE_USER}")),
    )
}

/// A command for `program` on `host` that runs as [`SERVICE_USER`] when this process is root
/// (through `setpriv`, which executes the program itself, so that the child is the server),
/// and owns `dir` for it.
fn unprivileged(host: &Host, program: &Path, dir: &Path) -> Command {
    if !is_root() {
        return host.command(program);
    }
    let (uid, gid) = service_user();
    let status = Command::new("chown")
        .args(["-R", &format!("{uid}:{gid}")])
        .arg(dir)
        .status()
        .unwrap_or_else(|e| panic!("cannot run chown: {e}"));
    assert!(status.success(), "chown of {} failed", dir.display());
    let setpriv = PathBuf::from("setpriv");
    let mut command = host.command(&setpriv);
    command
        .arg(format!("--reuid={uid}"))
        .arg(format!("--regid={gid}"))
        .arg("--clear-groups")
        .arg("--")
        .arg(program);
    command
}

/// A PostgreSQL server of its own: a cluster in a temporary directory, listening on
/// 127.0.0.1 only (or its [`Host`]'s address), with trust authentication for the `postgres`
/// user. Stopped and removed when dropped.
pub struct Postgres {
    dir: TempDir,
    host: Host,
    port: u16,
    child: Option<Child>,
}

impl Postgres {
    /// Creates a cluster (`initdb`) and starts it on a free loopback port; returns once it
    /// accepts queries. Installs the `postgresql` package first if it is missing.
    pub fn start() -> Postgres {
        Postgres::start_on(Host::loopback())
    }

    /// [`Postgres::start`] on `host`: listening on its address, in its namespace.
    pub fn start_on(host: Host) -> Postgres {
        let initdb = require(INITDB);
        require(POSTGRES);
        let dir = TempDir::new("postgres");
        let data = dir.path().join("data");
        let out = unprivileged(&Host::loopback(), &initdb, dir.path())
            .arg("-D")
            .arg(&data)
            .args(["-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run initdb: {e}"));
        assert!(
            out.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if !host.addr.is_loopback() {
            // initdb trusts loopback only; the namespace a test owns is the fence here.
            let hba = data.join("pg_hba.conf");
            let mut text = std::fs::read_to_string(&hba)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", hba.display()));
            text.push_str("host all all 0.0.0.0/0 trust\n");
            std::fs::write(&hba, text)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", hba.display()));
        }
        let port = host.port();
        let mut pg = Postgres {
            dir,
            host,
            port,
            child: None,
        };
        pg.resume();
        pg
    }

    /// `postgres://postgres@ADDR:PORT/postgres` (ADDR: 127.0.0.1 by default).
    pub fn url(&self) -> String {
        format!(
            "postgres://postgres@{}:{}/postgres",
            self.host.addr, self.port
        )
    }

    /// The process id of the server (its postmaster), while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The port it listens on (the same across [`Postgres::kill`] and [`Postgres::resume`]).
    pub fn port(&self) -> u16 {
        self.port
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Kills the server (SIGKILL: a crash, no shutdown), keeping its data; returns once its
    /// port refuses connections (its other processes end when they see it gone).
    pub fn kill(&mut self) {
        self.host.kill(&mut self.child, self.port);
    }

    /// Starts the server again on its data and port (after [`Postgres::kill`]: it recovers
    /// from its log) and returns once it accepts queries.
    pub fn resume(&mut self) {
        self.kill();
        let started = Instant::now();
        // A server started while the killed one's last processes still hold its shared memory
        // exits at once: start it again until it stays.
        while !self.spawn() {
            assert!(
                started.elapsed() < START,
                "postgres did not start within {START:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Starts the server; returns whether it became ready (`false`: it exited at start).
    fn spawn(&mut self) -> bool {
        let postgres = require(POSTGRES);
        let data = self.data();
        let child = unprivileged(&self.host, &postgres, self.dir.path())
            .arg("-D")
            .arg(&data)
            .args([
                "-h",
                &self.host.addr.to_string(),
                "-p",
                &self.port.to_string(),
            ])
            .arg("-k")
            .arg(self.dir.path())
            .args(["-c", "fsync=off", "-c", "max_connections=100"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start postgres: {e}"));
        self.child = Some(child);
        self.wait_ready()
    }

    /// Waits until the server says it is ready: the status line of `postmaster.pid` (its
    /// eighth line) reads `ready` and the port accepts connections. `false` if it exited.
    fn wait_ready(&mut self) -> bool {
        let pid_file = self.data().join("postmaster.pid");
        let started = Instant::now();
        loop {
            if let Some(child) = &mut self.child
                && let Ok(Some(_)) = child.try_wait()
            {
                self.child = None;
                return false;
            }
            let ready = std::fs::read_to_string(&pid_file)
                .is_ok_and(|text| text.lines().nth(7).is_some_and(|l| l.trim() == "ready"));
            if ready && self.host.accepts(self.port) {
                return true;
            }
            assert!(
                started.elapsed() < START,
                "postgres did not start within {START:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A Redis server of its own: its append-only file in a temporary directory (fsynced on every
/// write, so that a kill loses nothing acknowledged), listening on 127.0.0.1 only (or its
/// [`Host`]'s address), no password. Killed and removed when dropped.
pub struct Redis {
    dir: TempDir,
    host: Host,
    port: u16,
    child: Option<Child>,
}

impl Redis {
    /// Starts a server on a free loopback port; returns once it answers `PING`. Installs the
    /// `redis-server` package first if it is missing.
    pub fn start() -> Redis {
        Redis::start_on(Host::loopback())
    }

    /// [`Redis::start`] on `host`: listening on its address, in its namespace.
    pub fn start_on(host: Host) -> Redis {
        require(REDIS_SERVER);
        let port = host.port();
        let mut redis = Redis {
            dir: TempDir::new("redis"),
            host,
            port,
            child: None,
        };
        redis.resume();
        redis
    }

    /// `redis://ADDR:PORT/` (ADDR: 127.0.0.1 by default).
    pub fn url(&self) -> String {
        format!("redis://{}:{}/", self.host.addr, self.port)
    }

    /// The process id of the server, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The port it listens on (the same across [`Redis::kill`] and [`Redis::resume`]).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills the server (SIGKILL: a crash), keeping its data; returns once its port refuses
    /// connections.
    pub fn kill(&mut self) {
        self.host.kill(&mut self.child, self.port);
    }

    /// Starts the server again on its data and port (after [`Redis::kill`]: it reloads its
    /// append-only file) and returns once it answers `PING`.
    pub fn resume(&mut self) {
        self.kill();
        let redis = require(REDIS_SERVER);
        let child = unprivileged(&self.host, &redis, self.dir.path())
            .args(["--bind", &self.host.addr.to_string()])
            .args(["--port", &self.port.to_string()])
            .arg("--dir")
            .arg(self.dir.path())
            .args([
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
            ])
            .args([
                "--daemonize",
                "no",
                "--protected-mode",
                self.protected_mode(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start redis-server: {e}"));
        self.child = Some(child);
        let started = Instant::now();
        loop {
            if let Some(child) = &mut self.child
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("redis-server exited at start ({status})");
            }
            if self
                .command(&["PING"])
                .is_some_and(|answer| answer == "+PONG")
            {
                return;
            }
            assert!(
                started.elapsed() < START,
                "redis-server did not start within {START:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `yes` on loopback; `no` on another address, where protected mode refuses every client
    /// that is not local (the namespace a test owns is its fence).
    fn protected_mode(&self) -> &'static str {
        if self.host.addr.is_loopback() {
            "yes"
        } else {
            "no"
        }
    }

    /// Sends one command and returns the first line of the answer (`+PONG`, `$5`, `:1`,
    /// `-ERR …`), or `None` if the server cannot be reached. For tests that look inside.
    pub fn command(&self, args: &[&str]) -> Option<String> {
        use std::io::{BufRead, BufReader, Write};
        let addr = SocketAddr::from((self.host.addr, self.port));
        let mut stream =
            std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        let mut request = format!("*{}\r\n", args.len());
        for arg in args {
            request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
        }
        stream.write_all(request.as_bytes()).ok()?;
        let mut line = String::new();
        BufReader::new(&stream).read_line(&mut line).ok()?;
        let line = line.trim_end().to_string();
        (!line.is_empty()).then_some(line)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}
