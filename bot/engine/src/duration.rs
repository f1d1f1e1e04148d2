//! The one duration syntax of every flag and bot spec: a whole number followed by a unit,
//! `ms`, `s`, `m` or `min` (`250ms`, `30s`, `2m`), case-insensitive. Whether a bare number is
//! taken, and in which unit, is the caller's choice (a move time of `30` is seconds; a bot
//! spec's `time=250` is refused as ambiguous).

use std::time::Duration;

/// A unit a bare number may stand in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Milliseconds.
    Millis,
    /// Seconds.
    Seconds,
}

/// Why a text is not a duration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// No number, or an unknown unit.
    #[error("expected a time such as 250ms, 30s or 2m, got {0:?}")]
    Malformed(String),
    /// A bare number where a unit is required.
    #[error("a time needs a unit, ms, s or m, got {0:?}")]
    NoUnit(String),
    /// Longer than a `u64` of milliseconds.
    #[error("the time {0:?} is too long")]
    TooLong(String),
}

/// Parses `text` as a duration; a bare number is in `bare`, or refused when `bare` is `None`.
pub fn parse_duration(text: &str, bare: Option<Unit>) -> Result<Duration, DurationError> {
    let t = text.trim().to_ascii_lowercase();
    let malformed = || DurationError::Malformed(text.to_owned());
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: u64 = digits.parse().map_err(|_| malformed())?;
    let scale = match (unit, bare) {
        ("ms", _) | ("", Some(Unit::Millis)) => 1,
        ("s", _) | ("", Some(Unit::Seconds)) => 1000,
        ("m" | "min", _) => 60_000,
        ("", None) => return Err(DurationError::NoUnit(text.to_owned())),
        _ => return Err(malformed()),
    };
    let ms = n
        .checked_mul(scale)
        .ok_or_else(|| DurationError::TooLong(text.to_owned()))?;
    Ok(Duration::from_millis(ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(text: &str, bare: Option<Unit>) -> Result<u128, DurationError> {
        parse_duration(text, bare).map(|d| d.as_millis())
    }

    #[test]
    fn units_and_bare_numbers() {
        assert_eq!(ms("250ms", None), Ok(250));
        assert_eq!(ms(" 2S ", None), Ok(2000));
        assert_eq!(ms("2m", None), Ok(120_000));
        assert_eq!(ms("3min", None), Ok(180_000));
        assert_eq!(ms("7", Some(Unit::Seconds)), Ok(7000));
        assert_eq!(ms("7", Some(Unit::Millis)), Ok(7));
        assert_eq!(ms("7", None), Err(DurationError::NoUnit("7".into())));
        assert!(matches!(ms("soon", None), Err(DurationError::Malformed(_))));
        assert!(matches!(ms("5h", None), Err(DurationError::Malformed(_))));
        assert!(matches!(ms("-5s", None), Err(DurationError::Malformed(_))));
        assert!(matches!(
            ms("99999999999999999999m", None),
            Err(DurationError::Malformed(_))
        ));
        assert!(matches!(
            ms("999999999999999999m", None),
            Err(DurationError::TooLong(_))
        ));
    }
}
