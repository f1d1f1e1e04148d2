//! The login mode's connections: registering the accounts a run logs in to, one login exchange,
//! and the two kinds of workers — [`log_in_until`], which logs in with the right password as
//! fast as it is answered, moving to the next loopback source address when its address is
//! throttled, and [`flood_until`], which sends wrong passwords from one address at a paced rate
//! — with what they counted ([`LoginTally`]).

use super::codec::{code_name, send_json};
use super::socket::{Target, Ws, connect};
use super::stats::{Errors, Latencies};
use futures_util::StreamExt;
use jchomp_protocol::wire::{ClientMessage, ServerMessage};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::time::Instant;

/// The password of every account a run registers.
pub(crate) const PASSWORD: &str = "bench-password-1";
/// The password the flood tries.
const WRONG: &str = "not-the-password";
/// How the server answers a login refused by the per-address or per-account limit.
pub(crate) const THROTTLED: &str = "too_many_attempts";
/// How the server answers a login when its hashing queue is full.
pub(crate) const BUSY: &str = "server_full";
/// How the server answers a login it accepted.
pub(crate) const LOGGED_IN: &str = "account";
/// How the server answers a wrong password (after checking it).
pub(crate) const BAD_CREDENTIALS: &str = "bad_credentials";
/// Time one answer may take before the connection is given up.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// What login connections counted: answers by kind (`account`, `bad_credentials`,
/// `too_many_attempts`, `server_full`, …), their latencies, connections opened, errors.
#[derive(Clone, Debug, Default)]
pub struct LoginTally {
    /// Answers by kind.
    pub answers: BTreeMap<String, u64>,
    /// Time from each login sent to its answer.
    pub(crate) latencies: Latencies,
    /// Connections opened.
    pub connections: u64,
    /// What went wrong.
    pub errors: Errors,
}

impl LoginTally {
    /// Answers of this kind.
    pub fn count(&self, kind: &str) -> u64 {
        self.answers.get(kind).copied().unwrap_or(0)
    }

    /// Every answer, of whatever kind.
    pub fn total(&self) -> u64 {
        self.answers.values().sum()
    }

    /// Adds `other` to this tally.
    pub(crate) fn merge(&mut self, other: LoginTally) {
        for (kind, n) in other.answers {
            *self.answers.entry(kind).or_default() += n;
        }
        self.latencies.merge(other.latencies);
        self.connections += other.connections;
        self.errors.merge(other.errors);
    }
}

/// Sends a login (or, with `register`, a registration) and returns the kind of its answer.
async fn exchange(ws: &mut Ws, msg: &ClientMessage) -> anyhow::Result<String> {
    send_json(ws, msg).await?;
    let answer = tokio::time::timeout(ANSWER_TIMEOUT, async {
        while let Some(frame) = ws.next().await {
            let text = match frame? {
                tokio_tungstenite::tungstenite::Message::Text(t) => t,
                _ => continue,
            };
            match serde_json::from_str::<ServerMessage>(&text)? {
                ServerMessage::Account { .. } => return Ok(LOGGED_IN.to_owned()),
                ServerMessage::Error { code, .. } => return Ok(code_name(&code)),
                _ => continue,
            }
        }
        anyhow::bail!("the connection closed before the answer")
    })
    .await;
    answer.unwrap_or_else(|_| anyhow::bail!("no answer within {} s", ANSWER_TIMEOUT.as_secs()))
}

/// Registers `names` (password [`PASSWORD`]) on one connection, the `n`th of `target`.
pub(crate) async fn register(target: &Target, n: usize, names: &[String]) -> anyhow::Result<()> {
    let mut ws = connect(target, n).await?;
    for name in names {
        let msg = ClientMessage::Register {
            name: name.clone(),
            password: PASSWORD.to_owned(),
        };
        let answer = exchange(&mut ws, &msg).await?;
        anyhow::ensure!(answer == LOGGED_IN, "registering {name}: {answer}");
    }
    Ok(())
}

/// Logs in to `names` in turn, with the right password, as fast as the server answers, until
/// `end`; answers arriving from `start` on are counted. A connection whose address is
/// throttled is replaced by one from the next source address (`next` numbers them).
pub(crate) async fn log_in_until(
    target: &Target,
    next: &AtomicUsize,
    names: &[String],
    (start, end): (Instant, Instant),
) -> LoginTally {
    let mut tally = LoginTally::default();
    let mut turn = 0usize;
    'connections: while Instant::now() < end {
        let mut ws = match connect(target, next.fetch_add(1, Ordering::Relaxed)).await {
            Ok(ws) => ws,
            Err(e) => {
                tally.errors.add("connect", e);
                return tally;
            }
        };
        tally.connections += 1;
        while Instant::now() < end {
            let Some(name) = names.get(turn % names.len().max(1)) else {
                return tally;
            };
            turn += 1;
            let msg = ClientMessage::Login {
                name: name.clone(),
                password: PASSWORD.to_owned(),
            };
            let sent = Instant::now();
            match exchange(&mut ws, &msg).await {
                Ok(kind) => {
                    let throttled = kind == THROTTLED;
                    count(&mut tally, kind, sent, start);
                    if throttled {
                        continue 'connections;
                    }
                }
                Err(e) => {
                    tally.errors.add("login", e);
                    continue 'connections;
                }
            }
        }
    }
    tally
}

/// One flood connection, the `n`th of `target`: logins with a wrong password for names no
/// account has (each checked against the server's decoy hash, at a real one's cost), at most
/// `rate` a second, until `stop` is set.
pub(crate) async fn flood_until(
    target: &Target,
    n: usize,
    rate: f64,
    stop: tokio::sync::watch::Receiver<bool>,
) -> LoginTally {
    let mut tally = LoginTally::default();
    let mut ws = match connect(target, n).await {
        Ok(ws) => ws,
        Err(e) => {
            tally.errors.add("connect", e);
            return tally;
        }
    };
    tally.connections = 1;
    let pause = Duration::from_secs_f64(1.0 / rate.max(0.001));
    let mut due = Instant::now();
    for k in 0u64.. {
        if *stop.borrow() {
            break;
        }
        let msg = ClientMessage::Login {
            name: format!("nobody{n}x{k}"),
            password: WRONG.to_owned(),
        };
        let sent = Instant::now();
        match exchange(&mut ws, &msg).await {
            Ok(kind) => count(&mut tally, kind, sent, sent),
            Err(e) => {
                tally.errors.add("flood", e);
                break;
            }
        }
        due = due.max(sent) + pause;
        tokio::time::sleep_until(due).await;
    }
    tally
}

/// Counts an answer of `kind` to a login sent at `sent`, if it came at or after `from`.
fn count(tally: &mut LoginTally, kind: String, sent: Instant, from: Instant) {
    let now = Instant::now();
    if now >= from {
        *tally.answers.entry(kind).or_default() += 1;
        tally.latencies.record(now - sent);
    }
}
