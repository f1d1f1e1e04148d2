//! The server's two clocks: wall-clock milliseconds for what is stored and shown ([`now_ms`]),
//! and tokio's monotonic [`Instant`] for deadlines ([`after`]), which tests pause and advance.

use std::time::Duration;
use tokio::time::Instant;

/// Milliseconds since the Unix epoch (0 if the system clock is before it).
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The instant `d` from now; an absurdly long `d` (from a setting) means "in a year" rather
/// than an overflow.
pub(crate) fn after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d)
        .unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 60 * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_never_overflows() {
        assert!(after(Duration::MAX) > Instant::now());
        assert!(after(Duration::ZERO) <= Instant::now());
    }

    #[test]
    fn now_is_after_2020() {
        assert!(now_ms() > 1_577_836_800_000);
    }
}
