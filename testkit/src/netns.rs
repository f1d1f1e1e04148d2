//! Network namespaces a test owns (feature `netns`, as root): a router namespace, one namespace
//! per member (a database server, a node) joined to the router by a veth pair on a private /30,
//! and a veth from this process's namespace to the router so that the test reaches every
//! member. [`Net::cut`] drops every packet between two members in the router (a policy rule of
//! type `blackhole`: silent, both ways, nothing sent back), [`Net::heal`] restores it.
//!
//! Names start with `jcn{pid}x{n}-` and addresses come from a /24 of `10.64.0.0/10` picked from
//! the pid and `n`: tests of one process and concurrent test processes do not meet. Dropping the
//! [`Net`] kills what runs in its namespaces and deletes them (the root veth goes with the
//! router's end), also when a test panics; a test process that was killed leaves its
//! namespaces behind, and the next [`Net::new`] deletes those of processes that are gone.

use crate::engines::Host;
use std::ffi::OsStr;
use std::net::Ipv4Addr;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// What every name of a test's namespaces starts with, before the pid.
const PREFIX: &str = "jcn";

/// One namespace of a [`Net`] and its address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The namespace's name.
    pub netns: String,
    /// Its address, reachable from the test and from every other member.
    pub addr: Ipv4Addr,
}

impl Member {
    /// The [`Host`] a database server started in this member runs on.
    pub fn host(&self) -> Host {
        Host {
            addr: self.addr,
            netns: Some(self.netns.clone()),
        }
    }

    /// A command that runs `program` in this member's namespace (`ip netns exec` executes it
    /// itself: the child's pid is the program's, for signals).
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new("ip");
        command.args(["netns", "exec", &self.netns]).arg(program);
        command
    }
}

/// The namespaces of one test: a router, its members, and the link from the test's namespace.
/// Everything is deleted when dropped.
pub struct Net {
    /// `jcn{pid}x{n}`: the start of every name.
    name: String,
    /// The /24 of this net: `10.a.b.0`.
    subnet: [u8; 2],
    /// The router's namespace.
    router: String,
    /// The members, in the order added (member `i` has the /30 number `i + 1`).
    members: Vec<Member>,
}

impl Net {
    /// Creates the router's namespace and the link to it from this process's namespace,
    /// after deleting the namespaces of test processes that are gone. Panics when not root.
    pub fn new() -> Net {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        delete_stale();
        let pid = std::process::id();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let block = (pid.wrapping_mul(16).wrapping_add(n)) % 16384;
        let subnet = [64 + (block / 256) as u8, (block % 256) as u8];
        let name = format!("{PREFIX}{pid}x{n}");
        let router = format!("{name}-router");
        let net = Net {
            name,
            subnet,
            router,
            members: Vec::new(),
        };
        ip(&["netns", "add", &net.router]);
        let r = net.router.as_str();
        ip(&["-n", r, "link", "set", "lo", "up"]);
        ip(&["netns", "exec", r, "sysctl", "-qw", "net.ipv4.ip_forward=1"]);
        net.link_root();
        net
    }

    /// The address `last` in this net's /24.
    fn addr(&self, last: u8) -> Ipv4Addr {
        Ipv4Addr::new(10, self.subnet[0], self.subnet[1], last)
    }

    /// The veth from this namespace to the router (/30 number 0) and the route to the /24.
    fn link_root(&self) {
        let root_end = format!("{}r", self.name);
        ip(&[
            "link", "add", &root_end, "type", "veth", "peer", "name", "root",
        ]);
        ip(&["link", "set", "root", "netns", &self.router]);
        let (here, there) = (self.addr(1), self.addr(2));
        ip(&["addr", "add", &format!("{here}/30"), "dev", &root_end]);
        ip(&["link", "set", &root_end, "up"]);
        let r = self.router.as_str();
        ip(&[
            "-n",
            r,
            "addr",
            "add",
            &format!("{there}/30"),
            "dev",
            "root",
        ]);
        ip(&["-n", r, "link", "set", "root", "up"]);
        let subnet = format!("{}/24", self.addr(0));
        ip(&["route", "add", &subnet, "via", &there.to_string()]);
    }

    /// Adds a member named `label` (a namespace with a veth to the router and a default route
    /// through it); returns it.
    pub fn add(&mut self, label: &str) -> Member {
        let i = u8::try_from(self.members.len() + 1)
            .ok()
            .filter(|i| *i < 63)
            .unwrap_or_else(|| panic!("a net holds at most 62 members"));
        let netns = format!("{}-{label}", self.name);
        ip(&["netns", "add", &netns]);
        let (gateway, addr) = (self.addr(4 * i + 1), self.addr(4 * i + 2));
        let r = self.router.as_str();
        let router_end = format!("m{i}");
        ip(&[
            "-n",
            r,
            "link",
            "add",
            &router_end,
            "type",
            "veth",
            "peer",
            "name",
            "eth0",
            "netns",
            &netns,
        ]);
        ip(&[
            "-n",
            r,
            "addr",
            "add",
            &format!("{gateway}/30"),
            "dev",
            &router_end,
        ]);
        ip(&["-n", r, "link", "set", &router_end, "up"]);
        ip(&["-n", &netns, "link", "set", "lo", "up"]);
        ip(&[
            "-n",
            &netns,
            "addr",
            "add",
            &format!("{addr}/30"),
            "dev",
            "eth0",
        ]);
        ip(&["-n", &netns, "link", "set", "eth0", "up"]);
        ip(&[
            "-n",
            &netns,
            "route",
            "add",
            "default",
            "via",
            &gateway.to_string(),
        ]);
        let member = Member { netns, addr };
        self.members.push(member.clone());
        member
    }

    /// The router's policy rules that drop the traffic between `a` and `b`, both ways.
    fn rules(a: &Member, b: &Member) -> [[String; 4]; 2] {
        let rule = |from: &Member, to: &Member| {
            ["from", &from.addr.to_string(), "to", &to.addr.to_string()].map(String::from)
        };
        [rule(a, b), rule(b, a)]
    }

    /// Cuts `a` from `b`: the router drops their packets both ways, silently (no ICMP, no
    /// reset: connections between them hang until they time out). Others still reach both.
    pub fn cut(&self, a: &Member, b: &Member) {
        for rule in Net::rules(a, b) {
            let mut args = vec!["-n", &self.router, "rule", "add"];
            args.extend(rule.iter().map(String::as_str));
            args.extend(["blackhole", "priority", "100"]);
            ip(&args);
        }
    }

    /// Undoes [`Net::cut`] of `a` and `b`.
    pub fn heal(&self, a: &Member, b: &Member) {
        for rule in Net::rules(a, b) {
            let mut args = vec!["-n", &self.router, "rule", "del"];
            args.extend(rule.iter().map(String::as_str));
            args.extend(["blackhole", "priority", "100"]);
            ip(&args);
        }
    }
}

impl Default for Net {
    fn default() -> Net {
        Net::new()
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        for member in &self.members {
            delete(&member.netns);
        }
        // The root end of the link goes with the router's, and its route with it.
        delete(&self.router);
    }
}

/// Runs `ip ARGS`; panics, with its error, when it fails.
fn ip(args: &[&str]) {
    let out = Command::new("ip")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ip: {e}"));
    assert!(
        out.status.success(),
        "ip {} failed (network namespaces need root): {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    );
}

/// Kills (SIGKILL) every process in namespace `netns`, then deletes it. Errors are ignored:
/// this runs in `Drop` and on what a dead test left.
fn delete(netns: &str) {
    if let Ok(out) = Command::new("ip").args(["netns", "pids", netns]).output() {
        for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
            let _ = Command::new("kill").args(["-KILL", pid]).output();
        }
    }
    let _ = Command::new("ip").args(["netns", "del", netns]).output();
}

/// Deletes the namespaces of test processes that no longer run (killed before their `Drop`).
fn delete_stale() {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    let list = String::from_utf8_lossy(&out.stdout);
    for name in list.lines().filter_map(|l| l.split_whitespace().next()) {
        let pid = name
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split('x').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && !std::path::Path::new(&format!("/proc/{pid}")).exists()
        {
            delete(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::Redis;

    /// Whether `from` opens a TCP connection to `to`'s Redis within 2 s: `Some(true)`
    /// connected, `Some(false)` refused or unreachable at once, `None` no answer (timed out).
    fn connects(from: &Member, to: &Member) -> Option<bool> {
        let script = format!("exec 3<>/dev/tcp/{}/{}", to.addr, 7000);
        let status = from
            .command("timeout")
            .args(["2", "bash", "-c", &script])
            .status()
            .unwrap();
        match status.code() {
            Some(0) => Some(true),
            Some(124) => None,
            _ => Some(false),
        }
    }

    fn listed() -> String {
        let out = Command::new("ip").args(["netns", "list"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    #[test]
    fn a_cut_drops_packets_both_ways_silently_until_healed_and_drop_deletes_all() {
        let mut net = Net::new();
        let (a, b) = (net.add("a"), net.add("b"));
        let redis = Redis::start_on(a.host());
        assert_eq!(connects(&b, &a), Some(true));
        net.cut(&a, &b);
        assert_eq!(connects(&b, &a), None, "a cut must time out, not refuse");
        // The test's own namespace still reaches a.
        assert_eq!(redis.command(&["PING"]).as_deref(), Some("+PONG"));
        net.heal(&a, &b);
        assert_eq!(connects(&b, &a), Some(true));
        drop(redis);
        let names = [net.router.clone(), a.netns.clone(), b.netns.clone()];
        assert!(names.iter().all(|n| listed().contains(n.as_str())));
        drop(net);
        assert!(names.iter().all(|n| !listed().contains(n.as_str())));
    }

    #[test]
    fn the_namespaces_of_a_dead_test_process_are_deleted_by_the_next_net() {
        let mut gone = Command::new("true").spawn().unwrap();
        let pid = gone.id();
        gone.wait().unwrap();
        let stale = format!("{PREFIX}{pid}x0-router");
        ip(&["netns", "add", &stale]);
        assert!(listed().contains(stale.as_str()));
        drop(Net::new());
        assert!(!listed().contains(stale.as_str()));
    }
}
