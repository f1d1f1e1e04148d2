//! [`Throttle`]: how many login attempts an account and an address may make in a window. Time
//! is tokio's (tests pause and advance it).

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
struct Windows {
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
pub(crate) struct Throttle {
    accounts: Windows,
    addresses: Windows,
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle {
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

impl Throttle {
    /// Counts an attempt from `address` on `account` (a key); refuses it if either limit is
    /// reached (a refused attempt is not counted).
    pub(crate) fn attempt(&self, account: &str, address: &str) -> Result<(), Limit> {
        if !self.addresses.allows(address) {
            return Err(Limit::Address);
        }
        if !self.accounts.allows(account) {
            return Err(Limit::Account);
        }
        self.addresses.count(address);
        Ok(())
    }

    /// Counts a failed login of `account`.
    pub(crate) fn failed(&self, account: &str) {
        self.accounts.count(account);
    }

    /// A successful login clears the account's failures.
    pub(crate) fn succeeded(&self, account: &str) {
        self.accounts.clear(account);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn an_account_is_refused_after_its_failures_until_the_window_passes() {
        let t = Throttle::default();
        for i in 0..ACCOUNT_FAILURES {
            assert_eq!(t.attempt("alice", &format!("10.0.0.{i}")), Ok(()));
            t.failed("alice");
        }
        assert_eq!(t.attempt("alice", "10.0.1.1"), Err(Limit::Account));
        assert_eq!(t.attempt("bob", "10.0.1.1"), Ok(()));
        tokio::time::advance(ACCOUNT_WINDOW).await;
        assert_eq!(t.attempt("alice", "10.0.1.1"), Ok(()));
    }

    #[tokio::test(start_paused = true)]
    async fn an_address_is_refused_after_its_attempts_until_the_window_passes() {
        let t = Throttle::default();
        for i in 0..ADDRESS_ATTEMPTS {
            assert_eq!(t.attempt(&format!("user{i}"), "10.0.0.1"), Ok(()));
        }
        assert_eq!(t.attempt("other", "10.0.0.1"), Err(Limit::Address));
        assert_eq!(t.attempt("other", "10.0.0.2"), Ok(()));
        tokio::time::advance(ADDRESS_WINDOW).await;
        assert_eq!(t.attempt("other", "10.0.0.1"), Ok(()));
    }

    #[tokio::test(start_paused = true)]
    async fn a_success_clears_the_failures() {
        let t = Throttle::default();
        for _ in 0..ACCOUNT_FAILURES - 1 {
            t.failed("alice");
        }
        t.succeeded("alice");
        t.failed("alice");
        assert_eq!(t.attempt("alice", "a"), Ok(()));
    }
}
