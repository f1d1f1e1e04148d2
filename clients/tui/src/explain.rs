//! Server errors, refused moves, results, times and the rules in force put in words a player
//! understands.

use jchomp_protocol::json::ResultJson;
use jchomp_protocol::rules::{Config, Play, Variant};
use jchomp_protocol::wire::{RejectReason, SeatInfo};

/// A move the server refused, in words: the server's own sentence when it gave one (the shared
/// rules' wording for a selection they refuse), else the reason's.
pub(crate) fn refused_move(reason: RejectReason, message: &str) -> String {
    let message = message.trim().trim_end_matches('.');
    if message.is_empty() {
        rejection(reason).to_owned()
    } else {
        format!("The server refused the move: {message}.")
    }
}

/// A refused move in plain words, for a server that gave no sentence of its own.
fn rejection(reason: RejectReason) -> &'static str {
    match reason {
        RejectReason::OutOfRange => "That selection reaches outside the board.",
        RejectReason::AlreadyEaten => "Part of that selection is already eaten.",
        RejectReason::NotABreak => {
            "That cell names no break: pick one in the poison's row or column."
        }
        RejectReason::SquareBite => "That bite would be a perfect square, which is banned.",
        RejectReason::NotYourTurn => "It is not your turn.",
        RejectReason::NotPlaying => "The game is not in progress.",
        RejectReason::NotSeated => "You are watching; only seated players can move.",
    }
}

/// A seat's display name: its name, or `seat N` when free.
pub(crate) fn seat_name(seats: &[Option<SeatInfo>], seat: u8) -> String {
    match seats.get(seat as usize) {
        Some(Some(s)) => s.name.clone(),
        _ => format!("seat {seat}"),
    }
}

/// Seats named as in a stored game (no bot or connection information).
pub(crate) fn named_seats(names: &[String]) -> Vec<Option<SeatInfo>> {
    names
        .iter()
        .map(|name| {
            Some(SeatInfo {
                name: name.clone(),
                bot: false,
                connected: true,
                grace_left_ms: None,
            })
        })
        .collect()
}

/// A stored game's result in a few words for a table: `bob lost (poison)`, `tie`.
pub(crate) fn stored_result_short(result: Option<ResultJson>, names: &[String]) -> String {
    let seats = named_seats(names);
    let lost = |loser: u8, how: &str| format!("{} lost ({how})", seat_name(&seats, loser));
    match result {
        None => "unfinished".to_owned(),
        Some(ResultJson::Tie) => "tie".to_owned(),
        Some(ResultJson::Won { winner }) => {
            format!("{} won (marked cell)", seat_name(&seats, winner))
        }
        Some(ResultJson::Poisoned { loser }) => lost(loser, "poison"),
        Some(ResultJson::Timeout { loser }) => lost(loser, "time"),
        Some(ResultJson::Abandoned { loser }) => lost(loser, "left"),
    }
}

/// A game result in words, from the point of view of `me` when given.
pub(crate) fn result(result: ResultJson, seats: &[Option<SeatInfo>], me: Option<u8>) -> String {
    let who = |loser: u8| {
        if Some(loser) == me {
            "You".to_owned()
        } else {
            seat_name(seats, loser)
        }
    };
    match result {
        ResultJson::Poisoned { loser } => format!("{} ate poison and lost.", who(loser)),
        ResultJson::Tie => "Tie: no valid selection is left.".to_owned(),
        ResultJson::Won { winner } => format!("{} ate a marked cell and won.", who(winner)),
        ResultJson::Timeout { loser } => format!("{} ran out of time and lost.", who(loser)),
        ResultJson::Abandoned { loser } => format!("{} left the game and lost.", who(loser)),
    }
}

/// The result in full, as the game screen tells it: who lost and how, then who won (every
/// other seat: in JChomp one seat loses and all the others win).
pub fn outcome(result: ResultJson, seats: &[Option<SeatInfo>], me: Option<u8>) -> String {
    let loser = match result {
        ResultJson::Poisoned { loser }
        | ResultJson::Timeout { loser }
        | ResultJson::Abandoned { loser } => loser,
        ResultJson::Tie => return "Tie: no valid selection is left; every seat scores ½.".into(),
        ResultJson::Won { winner } => {
            let name = if Some(winner) == me {
                "You".to_owned()
            } else {
                seat_name(seats, winner)
            };
            return format!("{name} ate a marked cell and won; every other seat loses.");
        }
    };
    let mut names: Vec<String> = (0..seats.len() as u8)
        .filter(|&s| s != loser)
        .map(|s| {
            if Some(s) == me {
                "you".to_owned()
            } else {
                seat_name(seats, s)
            }
        })
        .collect();
    // "you" last: "ann and you win".
    names.sort_by_key(|n| n == "you");
    let verb = if names.len() == 1 && names[0] != "you" {
        "wins"
    } else {
        "win"
    };
    let lost = self::result(result, seats, me);
    let lost = lost.trim_end_matches('.');
    match names.split_last() {
        None => format!("{lost}."),
        Some((last, [])) => format!("{lost}; {last} {verb}."),
        Some((last, rest)) => format!("{lost}; {} and {last} {verb}.", rest.join(", ")),
    }
}

/// The game a configuration plays, in a few words for the game screen's title: `eat 1×2`,
/// `classic` or `edge breaks`, then the options in force (`· normal play`, `· no square bites`).
pub(crate) fn game_words(config: &Config) -> String {
    let mut words = match (config.variant(), config.eat()) {
        (_, Some((er, ec))) => format!("eat {er}×{ec}"),
        (Variant::Breaks, None) => "edge breaks".to_owned(),
        (_, None) => config.variant().name().to_owned(),
    };
    if config.play() == Play::Normal {
        words.push_str(" · normal play");
    }
    if config.no_square_bites() {
        words.push_str(" · no square bites");
    }
    words
}

/// What the rules beyond plain misère Chomp mean, one sentence each (none for the default
/// rules of JChomp and classic Chomp).
pub(crate) fn rule_sentences(config: &Config) -> Vec<&'static str> {
    let mut out = Vec::new();
    if config.variant() == Variant::Breaks {
        out.push("Edge breaks: eat at a cell in P's row or column to break the bar off there.");
    }
    if config.play() == Play::Normal {
        out.push("Normal play: whoever eats a marked cell (P) wins; every other seat loses.");
    }
    if config.no_square_bites() {
        out.push(
            "No square bites: a bite of a k×k block (1, 4, 9 … cells) is refused; a seat with no other move left ties the game.",
        );
    }
    out
}

/// A date and time in UTC, `YYYY-MM-DD HH:MM`, from milliseconds since the Unix epoch.
pub(crate) fn utc_minutes(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let (h, m) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    // Days to a civil date (proleptic Gregorian), after H. Hinnant's algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{d:02} {h:02}:{m:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item6_outcomes_name_the_winners_too() {
        let names: Vec<String> = ["ann", "bob", "cy"].map(String::from).to_vec();
        let seats = named_seats(&names);
        let poisoned = ResultJson::Poisoned { loser: 1 };
        assert_eq!(
            outcome(poisoned, &seats, None),
            "bob ate poison and lost; ann and cy win."
        );
        assert_eq!(
            outcome(poisoned, &seats, Some(0)),
            "bob ate poison and lost; cy and you win."
        );
        assert_eq!(
            outcome(ResultJson::Timeout { loser: 0 }, &seats[..2], Some(0)),
            "You ran out of time and lost; bob wins."
        );
        assert_eq!(
            outcome(ResultJson::Abandoned { loser: 0 }, &seats[..2], Some(1)),
            "ann left the game and lost; you win."
        );
        assert!(outcome(ResultJson::Tie, &seats, None).contains("every seat scores ½"));
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(utc_minutes(0), "1970-01-01 00:00");
        assert_eq!(utc_minutes(1_700_000_000_000), "2023-11-14 22:13");
        assert_eq!(utc_minutes(951_782_400_000), "2000-02-29 00:00");
    }

    #[test]
    fn results_name_the_loser() {
        let seats = vec![Some(jchomp_testkit::fixtures::seat("alice")), None];
        let r = ResultJson::Poisoned { loser: 0 };
        assert_eq!(result(r, &seats, None), "alice ate poison and lost.");
        assert_eq!(result(r, &seats, Some(0)), "You ate poison and lost.");
        let t = ResultJson::Timeout { loser: 1 };
        assert_eq!(
            result(t, &seats, Some(0)),
            "seat 1 ran out of time and lost."
        );
    }
}
