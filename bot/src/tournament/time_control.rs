//! [`TimeSetting`]: a tournament's time control as given on the command line (`--tc 10s+100ms`,
//! a clock with an increment; `--st 100ms`, a fixed time per move) and as stored in
//! `tournament.json`.

use jchomp_engine::duration::{DurationError, parse_duration};
use jchomp_engine::turn::TimeControl;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A tournament's time control, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeSetting {
    /// Every seat's clock starts at `base_ms`; `inc_ms` is added after each of its moves.
    Clock {
        /// The clock at the start.
        base_ms: u64,
        /// The increment.
        inc_ms: u64,
    },
    /// Every move has `ms`, exactly.
    MoveTime {
        /// The time per move.
        ms: u64,
    },
}

/// Milliseconds of a duration given with its unit, more than zero.
fn positive_ms(text: &str) -> Result<u64, String> {
    let d = parse_duration(text, None).map_err(|e: DurationError| e.to_string())?;
    match u64::try_from(d.as_millis()) {
        Ok(0) => Err(format!("the time {text:?} must be more than zero")),
        Ok(ms) => Ok(ms),
        Err(_) => Err(format!("the time {text:?} is too long")),
    }
}

impl TimeSetting {
    /// Parses `--tc BASE[+INC]`, such as `10s+100ms` or `1m`.
    pub fn parse_clock(text: &str) -> Result<TimeSetting, String> {
        let (base, inc) = match text.split_once('+') {
            Some((b, i)) => (b, Some(i)),
            None => (text, None),
        };
        let inc_ms = match inc {
            Some(i) => parse_duration(i, None)
                .map_err(|e| e.to_string())
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))?,
            None => 0,
        };
        Ok(TimeSetting::Clock {
            base_ms: positive_ms(base)?,
            inc_ms,
        })
    }

    /// Parses `--st TIME`, such as `100ms`.
    pub fn parse_move_time(text: &str) -> Result<TimeSetting, String> {
        Ok(TimeSetting::MoveTime {
            ms: positive_ms(text)?,
        })
    }

    /// The engine crate's time control.
    pub fn control(self) -> TimeControl {
        match self {
            TimeSetting::Clock { base_ms, inc_ms } => TimeControl::Clock {
                base: Duration::from_millis(base_ms),
                inc: Duration::from_millis(inc_ms),
            },
            TimeSetting::MoveTime { ms } => TimeControl::MoveTime(Duration::from_millis(ms)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read() {
        assert_eq!(
            TimeSetting::parse_clock("10s+100ms"),
            Ok(TimeSetting::Clock {
                base_ms: 10_000,
                inc_ms: 100
            })
        );
        assert_eq!(
            TimeSetting::parse_clock("1m"),
            Ok(TimeSetting::Clock {
                base_ms: 60_000,
                inc_ms: 0
            })
        );
        assert_eq!(
            TimeSetting::parse_move_time("100ms"),
            Ok(TimeSetting::MoveTime { ms: 100 })
        );
        assert!(TimeSetting::parse_clock("10+1").is_err());
        assert!(TimeSetting::parse_clock("0s").is_err());
        assert!(TimeSetting::parse_move_time("fast").is_err());
    }
}
