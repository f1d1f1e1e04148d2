//! [`Throttle`]: how many login attempts an account and an address may make in a window. On
//! one node the events are kept in memory, on tokio's clock (tests pause and advance it); with
//! accounts in PostgreSQL they are kept there, on the wall clock, so that every node of a
//! cluster counts the same ones.

use crate::clock::now_ms;
use crate::store::{PgRecords, StoreError};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;
use tokio::time::Instant;

/// Failed logins one account may have within [`ACCOUNT_WINDOW`] before further attempts are
/// refused until the oldest failure leaves the window.
pub(crate) const ACCOUNT_FAILURES: usize = 5;
/// The window of [`ACCOUNT_FAILURES`].
pub(crate) const ACCOUNT_WINDOW: Duration = Duration::from_secs(5 * 60);
/// Login or register attempts (successful or not) one address may make within
/// [`ADDRESS_WINDOW`].
pub(crate) const ADDRESS_ATTEMPTS: usize = 20;
/// The window of [`ADDRESS_ATTEMPTS`].
pub(crate) const ADDRESS_WINDOW: Duration = Duration::from_secs(60);
/// Keys kept at most per map; past it, keys whose events have all left the window are dropped.
const MAX_KEYS: usize = 100_000;

/// Sliding windows of events per key.
#[derive(Debug)]
pub(crate) struct Windows {
    limit: usize,
    window: Duration,
    events: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl Windows {
    fn new(limit: usize, window: Duration) -> Self {
        Windows {
            limit,
            window,
            events: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `key` is under its limit now.
    fn allows(&self, key: &str) -> bool {
        let now = Instant::now();
        let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        match events.get_mut(key) {
            Some(q) => {
                while q
                    .front()
                    .is_some_and(|t| now.duration_since(*t) >= self.window)
                {
                    q.pop_front();
                }
                q.len() < self.limit
            }
            None => true,
        }
    }

    /// Counts one event of `key` now.
    fn count(&self, key: &str) {
        let now = Instant::now();
        let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        if events.len() >= MAX_KEYS && !events.contains_key(key) {
            let window = self.window;
            events.retain(|_, q| q.back().is_some_and(|t| now.duration_since(*t) < window));
        }
        events.entry(key.to_string()).or_default().push_back(now);
    }

    /// Forgets `key`'s events.
    fn clear(&self, key: &str) {
        let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        events.remove(key);
    }
}

/// The login throttle: failures per account, attempts per address.
#[derive(Debug)]
pub(crate) enum Throttle {
    /// This node's own counts.
    Local {
        /// Failed logins per account.
        accounts: Windows,
        /// Attempts per address.
        addresses: Windows,
    },
    /// Counts every node shares, in PostgreSQL.
    Shared(PgRecords),
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle::Local {
            accounts: Windows::new(ACCOUNT_FAILURES, ACCOUNT_WINDOW),
            addresses: Windows::new(ADDRESS_ATTEMPTS, ADDRESS_WINDOW),
        }
    }
}

/// Which limit refused an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Limit {
    /// Too many failed logins for this account.
    Account,
    /// Too many attempts from this address.
    Address,
}

/// The kind of a shared event: a failed login of an account.
const FAILURE: &str = "failure";
/// The kind of a shared event: an attempt from an address.
const ATTEMPT: &str = "attempt";

/// Milliseconds `window` before now, on the wall clock.
fn ms_before(window: Duration) -> u64 {
    now_ms().saturating_sub(window.as_millis() as u64)
}

impl Throttle {
    /// Counts an attempt from `address` on `account` (a key); refuses it if either limit is
    /// reached (a refused attempt is not counted).
    pub(crate) async fn attempt(
        &self,
        account: &str,
        address: &str,
    ) -> Result<Result<(), Limit>, StoreError> {
        match self {
            Throttle::Local {
                accounts,
                addresses,
            } => {
                if !addresses.allows(address) {
                    return Ok(Err(Limit::Address));
                }
                if !accounts.allows(account) {
                    return Ok(Err(Limit::Account));
                }
                addresses.count(address);
            }
            Throttle::Shared(pg) => {
                let tried = pg
                    .login_events(ATTEMPT, address, ms_before(ADDRESS_WINDOW))
                    .await?;
                if tried >= ADDRESS_ATTEMPTS as u64 {
                    return Ok(Err(Limit::Address));
                }
                let failed = pg
                    .login_events(FAILURE, account, ms_before(ACCOUNT_WINDOW))
                    .await?;
                if failed >= ACCOUNT_FAILURES as u64 {
                    return Ok(Err(Limit::Account));
                }
                let longest = ACCOUNT_WINDOW.max(ADDRESS_WINDOW);
                pg.add_login_event(ATTEMPT, address, now_ms(), ms_before(longest))
                    .await?;
            }
        }
        Ok(Ok(()))
    }

    /// Counts a failed login of `account`.
    pub(crate) async fn failed(&self, account: &str) -> Result<(), StoreError> {
        match self {
            Throttle::Local { accounts, .. } => accounts.count(account),
            Throttle::Shared(pg) => {
                let longest = ACCOUNT_WINDOW.max(ADDRESS_WINDOW);
                pg.add_login_event(FAILURE, account, now_ms(), ms_before(longest))
                    .await?;
            }
        }
        Ok(())
    }

    /// A successful login clears the account's failures.
    pub(crate) async fn succeeded(&self, account: &str) -> Result<(), StoreError> {
        match self {
            Throttle::Local { accounts, .. } => accounts.clear(account),
            Throttle::Shared(pg) => pg.clear_login_events(FAILURE, account).await?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn an_account_is_refused_after_its_failures_until_the_window_passes() {
        let t = Throttle::default();
        for i in 0..ACCOUNT_FAILURES {
            assert_eq!(
                t.attempt("alice", &format!("10.0.0.{i}")).await.unwrap(),
                Ok(())
            );
            t.failed("alice").await.unwrap();
        }
        assert_eq!(
            t.attempt("alice", "10.0.1.1").await.unwrap(),
            Err(Limit::Account)
        );
        assert_eq!(t.attempt("bob", "10.0.1.1").await.unwrap(), Ok(()));
        tokio::time::advance(ACCOUNT_WINDOW).await;
        assert_eq!(t.attempt("alice", "10.0.1.1").await.unwrap(), Ok(()));
    }

    #[tokio::test(start_paused = true)]
    async fn an_address_is_refused_after_its_attempts_until_the_window_passes() {
        let t = Throttle::default();
        for i in 0..ADDRESS_ATTEMPTS {
            assert_eq!(
                t.attempt(&format!("user{i}"), "10.0.0.1").await.unwrap(),
                Ok(())
            );
        }
        assert_eq!(
            t.attempt("other", "10.0.0.1").await.unwrap(),
            Err(Limit::Address)
        );
        assert_eq!(t.attempt("other", "10.0.0.2").await.unwrap(), Ok(()));
        tokio::time::advance(ADDRESS_WINDOW).await;
        assert_eq!(t.attempt("other", "10.0.0.1").await.unwrap(), Ok(()));
    }

    #[tokio::test(start_paused = true)]
    async fn a_success_clears_the_failures() {
        let t = Throttle::default();
        for _ in 0..ACCOUNT_FAILURES - 1 {
            t.failed("alice").await.unwrap();
        }
        t.succeeded("alice").await.unwrap();
        t.failed("alice").await.unwrap();
        assert_eq!(t.attempt("alice", "a").await.unwrap(), Ok(()));
    }
}
