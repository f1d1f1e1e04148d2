//! [`TokenBucket`]: the per-connection rate limiter.

use std::time::Instant;

/// A token bucket: holds up to `burst` tokens, refills at `per_sec` tokens a second, and every
/// message takes one. Time is passed in, so the bucket is tested without clocks.
#[derive(Clone, Debug)]
pub(crate) struct TokenBucket {
    tokens: f64,
    burst: f64,
    per_sec: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub(crate) fn new(per_sec: u32, burst: u32, now: Instant) -> Self {
        let burst = f64::from(burst.max(1));
        TokenBucket {
            tokens: burst,
            burst,
            per_sec: f64::from(per_sec),
            last: now,
        }
    }

    /// Takes a token if one is left (after refilling for the time since the last call).
    pub(crate) fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.per_sec).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn burst_then_refusal_then_refill() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(100, 5, t0);
        for _ in 0..5 {
            assert!(b.take(t0));
        }
        assert!(!b.take(t0));
        // 10 ms at 100/s refills one token.
        assert!(b.take(t0 + Duration::from_millis(10)));
        assert!(!b.take(t0 + Duration::from_millis(10)));
    }

    #[test]
    fn refill_is_capped_at_burst() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(1000, 3, t0);
        let later = t0 + Duration::from_secs(60);
        assert!((0..3).all(|_| b.take(later)));
        assert!(!b.take(later));
    }

    #[test]
    fn steady_rate_below_limit_is_never_refused() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(500, 10, t0);
        // 400 messages a second for 10 seconds.
        for i in 0..4000u64 {
            assert!(b.take(t0 + Duration::from_micros(i * 2500)), "message {i}");
        }
    }
}
