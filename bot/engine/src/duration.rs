//! The one duration syntax of every flag and bot spec: a number (whole or with a decimal point)
//! followed by a unit, `ms`, `s`, `m` or `min` (`250ms`, `30s`, `1.5s`, `2m`), case-insensitive. Whether a bare number is
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
    #[error("expected a time such as 250ms, 1.5s, 30s or 2m, got {0:?}")]
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
    let (number, unit) = t.split_at(
        t.find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(t.len()),
    );
    let well_formed =
        number.chars().any(|c| c.is_ascii_digit()) && number.matches('.').count() <= 1;
    let n: f64 = match number.parse() {
        Ok(n) if well_formed => n,
        _ => return Err(malformed()),
    };
    let scale = match (unit, bare) {
        ("ms", _) | ("", Some(Unit::Millis)) => 1.0,
        ("s", _) | ("", Some(Unit::Seconds)) => 1000.0,
        ("m" | "min", _) => 60_000.0,
        ("", None) => return Err(DurationError::NoUnit(text.to_owned())),
        _ => return Err(malformed()),
    };
    let ms = n * scale;
    if ms >= u64::MAX as f64 {
        return Err(DurationError::TooLong(text.to_owned()));
    }
    // Whole milliseconds: a fraction of a millisecond is rounded to the nearest.
    Ok(Duration::from_millis(ms.round() as u64))
}

/// Why a move time is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveTimeError {
    /// Not a time in the one duration syntax.
    #[error(transparent)]
    Syntax(#[from] DurationError),
    /// A move time of zero.
    #[error("the move time must be more than zero")]
    Zero,
}

/// Parses a move time (`--move-time` of every tool: `30s`, `1500ms`, `2m`; a bare number is
/// seconds) into milliseconds.
pub fn parse_move_time(s: &str) -> Result<u64, MoveTimeError> {
    let d = parse_duration(s, Some(Unit::Seconds))?;
    // The duration syntax already refuses times past a u64 of milliseconds.
    match u64::try_from(d.as_millis()).unwrap_or(u64::MAX) {
        0 => Err(MoveTimeError::Zero),
        ms => Ok(ms),
    }
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
        assert_eq!(ms("1.5s", None), Ok(1500));
        assert_eq!(ms("0.5", Some(Unit::Seconds)), Ok(500));
        assert_eq!(ms(".25s", None), Ok(250));
        assert!(matches!(
            ms("1.2.3s", None),
            Err(DurationError::Malformed(_))
        ));
        assert!(matches!(ms(".s", None), Err(DurationError::Malformed(_))));
        assert!(matches!(
            ms("99999999999999999999m", None),
            Err(DurationError::TooLong(_))
        ));
        assert!(matches!(
            ms("999999999999999999m", None),
            Err(DurationError::TooLong(_))
        ));
    }
}
