//! [`Lease`]: this node's lease and its fencing token. A node holds a lease in Redis
//! (`jchomp:node:NODE`, expiring unless renewed) whose value is an epoch drawn from a counter
//! (`jchomp:epochs`) each time the node takes it; every script that writes for the node's rooms
//! names the epoch it was sent under and does nothing unless the lease still holds it, so a
//! write that reaches Redis after the lease ran out (or was taken again) is refused.
//!
//! The node judges its lease on its own monotonic clock: it is valid until the moment the last
//! renewal Redis confirmed was *sent*, plus the lease, less a margin. Redis starts the lease's
//! time when it runs the renewal, later than that, so the node always stops serving before
//! Redis lets another node claim its rooms, whatever either wall clock says.

use crate::sync::lock;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::time::Instant;

/// How long a node's lease lasts unless renewed.
pub(crate) const LEASE: Duration = Duration::from_secs(3);
/// How much sooner than [`LEASE`] after a renewal was sent the node stops trusting it: room for
/// clocks that tick at slightly different rates and for the check's own period.
const MARGIN: Duration = Duration::from_millis(300);

/// The counter of epochs.
pub(super) const EPOCHS: &str = "jchomp:epochs";

/// Takes a node's lease under a fresh epoch and lists its rooms. KEYS: the lease, the epoch
/// counter, the set of nodes, the owners, the node's rooms; ARGV: node, lease (ms). Returns
/// the epoch, then the rooms `jchomp:owners` still gives the node (the others are dropped from
/// its set).
pub(super) const TAKE: &str = r"
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], epoch, 'PX', ARGV[2])
redis.call('SADD', KEYS[3], ARGV[1])
local out = {epoch}
for _, room in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  if redis.call('HGET', KEYS[4], room) == ARGV[1] then
    table.insert(out, room)
  else
    redis.call('SREM', KEYS[5], room)
  end
end
return out
";

/// Extends the lease if it still holds the epoch. KEYS: the lease; ARGV: epoch, lease (ms).
/// Returns 1, or 0 if the lease ran out or holds another epoch.
pub(super) const RENEW: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
";

/// Forgets a node (drops it from the set of nodes) only if its lease is gone: a node that took
/// its lease again meanwhile stays, so that its rooms are taken over if it dies later. KEYS:
/// nodes, the node's lease; ARGV: node.
pub(super) const FORGET: &str = r"
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SREM', KEYS[1], ARGV[1])
return 1
";

/// The lease in milliseconds, as the scripts take it.
pub(super) fn lease_ms() -> u64 {
    u64::try_from(LEASE.as_millis()).unwrap_or(u64::MAX)
}

/// This node's lease as the node knows it.
#[derive(Debug)]
pub(crate) struct Lease {
    /// The epoch of the lease held (the fencing token every write names).
    epoch: AtomicU64,
    /// Until when the lease is surely this node's, and whether the node serves its rooms.
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    valid_until: Instant,
    serving: bool,
}

impl Lease {
    /// A lease just taken under `epoch` by a command sent at `sent`.
    pub(super) fn new(epoch: u64, sent: Instant) -> Lease {
        Lease {
            epoch: AtomicU64::new(epoch),
            state: Mutex::new(State {
                valid_until: sent + LEASE - MARGIN,
                serving: true,
            }),
        }
    }

    /// The epoch writes are sent under now.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// Whether the lease of `epoch` is surely still this node's (by this node's clock).
    pub(crate) fn holds(&self, epoch: u64) -> bool {
        let state = lock(&self.state);
        state.serving && self.epoch() == epoch && Instant::now() < state.valid_until
    }

    /// Whether the node serves its rooms (it has not lapsed since it last took its lease).
    pub(crate) fn serving(&self) -> bool {
        lock(&self.state).serving
    }

    /// The moment the lease of `epoch` can no longer be proved by this node's clock: now, if
    /// it cannot already (the node lapsed, or holds another epoch). A write waits for Redis no
    /// longer than this.
    pub(crate) fn deadline(&self, epoch: u64) -> Instant {
        let state = lock(&self.state);
        if state.serving && self.epoch() == epoch {
            state.valid_until
        } else {
            Instant::now()
        }
    }

    /// A renewal sent at `sent` was confirmed.
    pub(super) fn renewed(&self, sent: Instant) {
        let mut state = lock(&self.state);
        if state.serving {
            state.valid_until = state.valid_until.max(sent + LEASE - MARGIN);
        }
    }

    /// Whether the lease has run out by this node's clock while the node still serves.
    pub(super) fn expired(&self) -> bool {
        let state = lock(&self.state);
        state.serving && Instant::now() >= state.valid_until
    }

    /// The node stops serving; returns whether it was serving (the first to say so acts).
    pub(super) fn lapse(&self) -> bool {
        let mut state = lock(&self.state);
        std::mem::replace(&mut state.serving, false)
    }

    /// The lease was taken again under `epoch` by a command sent at `sent`.
    pub(super) fn taken(&self, epoch: u64, sent: Instant) {
        let mut state = lock(&self.state);
        self.epoch.store(epoch, Ordering::Release);
        state.valid_until = sent + LEASE - MARGIN;
        state.serving = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_lease_is_trusted_until_its_last_confirmed_renewal_was_sent_plus_the_lease() {
        let t0 = Instant::now();
        let lease = Lease::new(7, t0);
        assert!(lease.holds(7));
        assert!(
            !lease.holds(6),
            "another epoch's writes are not this lease's"
        );
        tokio::time::advance(Duration::from_millis(1500)).await;
        // A renewal sent at 1.5 s and confirmed: trusted until 4.2 s.
        lease.renewed(Instant::now());
        tokio::time::advance(Duration::from_millis(2600)).await;
        assert!(lease.holds(7) && !lease.expired());
        assert_eq!(lease.deadline(7), t0 + Duration::from_millis(4200));
        tokio::time::advance(Duration::from_millis(150)).await;
        assert!(!lease.holds(7) && lease.expired());
        // An old renewal confirmed late does not move the time back, nor forward past itself.
        lease.renewed(t0);
        assert!(lease.expired());
        assert!(lease.lapse(), "the first to see the lapse acts");
        assert!(!lease.lapse());
        assert!(!lease.serving() && !lease.expired());
        assert_eq!(
            lease.deadline(7),
            Instant::now(),
            "a lapsed lease waits for nothing"
        );
        // A renewal of the lapsed lease does not bring it back: only a new epoch does.
        lease.renewed(Instant::now());
        assert!(!lease.holds(7));
        lease.taken(9, Instant::now());
        assert!(lease.holds(9) && !lease.holds(7) && lease.serving());
        assert_eq!(lease.epoch(), 9);
    }
}
