//! The login mode's words: a logins-a-second run ([`describe_logins`]) and a flood run, the
//! games before and during the flood side by side ([`describe_flood`]).

use super::login::{BAD_CREDENTIALS, BUSY, LoginTally, THROTTLED};
use super::login_run::{FloodReport, LoginReport};
use super::report::{describe, ms};
use std::fmt::Write as _;

/// A logins-a-second run in a few lines.
pub fn describe_logins(r: &LoginReport) -> String {
    let p = &r.plan;
    let mut out = format!(
        "logins: {} connections logging in to {} accounts with the right password, {:.1} s measured after {:.1} s",
        p.connections,
        p.accounts,
        p.duration.as_secs_f64(),
        p.warmup.as_secs_f64()
    );
    let _ = write!(
        out,
        "\n  {} logins completed: {:.1} logins/s; latency p50 {}  p99 {}  max {}",
        r.logins(),
        r.per_second(),
        ms(r.latency.p50),
        ms(r.latency.p99),
        ms(r.latency.max)
    );
    match (r.server_cpu, r.per_cpu_second()) {
        (Some(cpu), Some(per)) => {
            let _ = write!(
                out,
                "\n  server CPU {:.2} s over the window ({:.2} cores): {per:.1} logins per CPU-second",
                cpu.as_secs_f64(),
                cpu.as_secs_f64() / p.duration.as_secs_f64().max(1e-9)
            );
        }
        _ => out.push_str("\n  server CPU unknown (give --server-pid, or --spawn-server)"),
    }
    answers(&mut out, &r.tally);
    let _ = write!(
        out,
        "\n  connections opened {} (one more each time an address was throttled; the server allows an address 20 attempts a minute)",
        r.tally.connections
    );
    trouble(&mut out, &r.tally);
    out
}

/// A flood run: the games before and during the flood, what the flood was answered, and the
/// ratios.
pub fn describe_flood(r: &FloodReport) -> String {
    let p = &r.plan;
    let mut out = format!("before the flood: {}", describe(&r.before));
    let _ = write!(out, "\nduring the flood: {}", describe(&r.during));
    let _ = write!(
        out,
        "\nflood: {} connections from {} loopback address(es), at most {} wrong passwords a second each, for {:.1} s: {} attempts answered",
        p.connections,
        p.addrs,
        p.rate,
        r.length.as_secs_f64(),
        r.flood.total()
    );
    answers(&mut out, &r.flood);
    let _ = write!(
        out,
        "\n  {} checked against a hash ({}), {} refused by the throttle ({}), {} refused as busy ({}: the hashing queue was full)",
        r.flood.count(BAD_CREDENTIALS),
        BAD_CREDENTIALS,
        r.flood.count(THROTTLED),
        THROTTLED,
        r.flood.count(BUSY),
        BUSY
    );
    let _ = write!(
        out,
        "\n  games during ÷ before: latency p50 {:.2}, p99 {:.2}; moves/s {:.2}",
        r.ratio(|l| l.p50),
        r.ratio(|l| l.p99),
        r.during.rate() / r.before.rate().max(1e-9)
    );
    trouble(&mut out, &r.flood);
    out
}

/// The answers by kind.
fn answers(out: &mut String, t: &LoginTally) {
    let kinds: Vec<String> = t.answers.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let _ = write!(
        out,
        "\n  answers: {}",
        if kinds.is_empty() {
            "none".to_owned()
        } else {
            kinds.join(", ")
        }
    );
}

/// The errors, if any.
fn trouble(out: &mut String, t: &LoginTally) {
    for (kind, n, first) in t.errors.iter() {
        let _ = write!(out, "\n  error {kind} ×{n}: {first}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::login::LOGGED_IN;
    use crate::login_run::LoginPlan;
    use std::time::Duration;

    #[test]
    fn a_logins_run_says_its_rate_per_second_and_per_cpu_second() {
        let mut tally = LoginTally::default();
        tally.answers.insert(LOGGED_IN.to_owned(), 40);
        tally.answers.insert(THROTTLED.to_owned(), 2);
        tally.connections = 3;
        let r = LoginReport {
            plan: LoginPlan {
                connections: 4,
                accounts: 2,
                warmup: Duration::from_secs(1),
                duration: Duration::from_secs(2),
            },
            tally,
            latency: Default::default(),
            server_cpu: Some(Duration::from_millis(1600)),
        };
        assert_eq!(r.per_second(), 20.0);
        assert_eq!(r.per_cpu_second(), Some(25.0));
        let text = describe_logins(&r);
        assert!(
            text.contains("40 logins completed: 20.0 logins/s"),
            "{text}"
        );
        assert!(text.contains("25.0 logins per CPU-second"), "{text}");
        assert!(
            text.contains("answers: account 40, too_many_attempts 2"),
            "{text}"
        );
    }
}
