//! `jchomp leaderboard` and `jchomp player NAME`: the server's leaderboards and profiles (the
//! JSON of `GET /api/leaderboard` and `GET /api/players/NAME`, see docs/PROTOCOL.md) printed as
//! tables, or as the server's JSON with `--json`.

use crate::commands::{CommandError, printed, write_json};
use crate::explain::utc_minutes;
use crate::http_api::{escape, get_json};
use serde::Deserialize;
use std::io::{self, Write};

/// A rating and its counts, as both answers give it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct RatingJson {
    /// Glicko-2 rating, or Weng–Lin μ (three and four players).
    pub rating: f64,
    /// Glicko-2 deviation, or Weng–Lin σ.
    pub deviation: f64,
    /// Rated games won.
    pub wins: u32,
    /// Rated games lost.
    pub losses: u32,
    /// Rated games tied.
    pub ties: u32,
    /// When the last rated game ended, milliseconds since the Unix epoch.
    pub last_ms: u64,
}

/// One line of a leaderboard.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Leader {
    /// The name as registered.
    pub name: String,
    /// The rating.
    #[serde(flatten)]
    pub rating: RatingJson,
}

/// A leaderboard.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Leaderboard {
    /// The category.
    pub category: String,
    /// Bot accounts and built-in levels, or people.
    pub bots: bool,
    /// Only players with a rated game in this many days.
    pub days: u64,
    /// The best first.
    pub players: Vec<Leader>,
}

/// One rated game in a profile's history.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Point {
    /// The game's id.
    pub game: String,
    /// When it ended.
    pub when_ms: u64,
    /// The rating after it.
    pub rating: f64,
    /// `win`, `loss` or `tie`.
    pub outcome: String,
}

/// A profile's rating in one category.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct CategoryJson {
    /// The category.
    pub category: String,
    /// The rating.
    #[serde(flatten)]
    pub rating: RatingJson,
    /// Still provisional.
    pub provisional: bool,
    /// After each rated game, oldest first.
    #[serde(default)]
    pub history: Vec<Point>,
}

/// A player's profile.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Profile {
    /// The name as registered.
    pub name: String,
    /// A bot account or a built-in level.
    pub bot: bool,
    /// The account was deleted.
    #[serde(default)]
    pub deleted: bool,
    /// One per category played rated.
    pub ratings: Vec<CategoryJson>,
    /// The last rated games' ids, newest first.
    #[serde(default)]
    pub recent: Vec<String>,
}

/// `jchomp leaderboard`: fetches and prints the board.
pub(crate) async fn leaderboard(
    url: &str,
    category: &str,
    bots: bool,
    days: Option<u32>,
    json: bool,
    out: &mut impl Write,
    width: usize,
) -> Result<(), CommandError> {
    let mut path = format!("/api/leaderboard?category={}&bots={bots}", escape(category));
    if let Some(days) = days {
        path.push_str(&format!("&days={days}"));
    }
    if json {
        let raw: serde_json::Value = get_json(url, &path).await?;
        return Ok(write_json(out, &raw)?);
    }
    let board: Leaderboard = get_json(url, &path).await?;
    Ok(write_leaderboard(out, &board, width)?)
}

/// `jchomp player NAME`: fetches and prints the profile.
pub(crate) async fn player(
    url: &str,
    name: &str,
    json: bool,
    out: &mut impl Write,
    width: usize,
) -> Result<(), CommandError> {
    let path = format!("/api/players/{}", escape(name));
    if json {
        let raw: serde_json::Value = get_json(url, &path).await?;
        return Ok(write_json(out, &raw)?);
    }
    let profile: Profile = get_json(url, &path).await?;
    Ok(write_profile(out, &profile, width)?)
}

/// A rating as shown: whole for Glicko-2 (two players), one decimal for Weng–Lin, with `?`
/// when provisional.
fn shown(category: &str, value: f64, provisional: bool) -> String {
    let mark = if provisional { "?" } else { "" };
    if category.ends_with(":2") {
        format!("{value:.0}{mark}")
    } else {
        format!("{value:.1}{mark}")
    }
}

/// A name with `[bot]` after a bot's, as the lobby shows seats.
fn marked(name: &str, bot: bool) -> String {
    if bot {
        format!("{name} [bot]")
    } else {
        name.to_owned()
    }
}

/// Writes a leaderboard as a table at most `width` columns wide.
pub fn write_leaderboard(
    out: &mut impl Write,
    board: &Leaderboard,
    width: usize,
) -> io::Result<()> {
    let who = if board.bots { "bots" } else { "people" };
    writeln!(
        out,
        "{} leaderboard, {who} with a rated game in the last {} days:",
        board.category, board.days
    )?;
    if board.players.is_empty() {
        return writeln!(
            out,
            "Nobody yet: a player is listed once their rating is no longer provisional."
        );
    }
    let rows: Vec<[String; 8]> = board
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let r = &p.rating;
            [
                (i + 1).to_string(),
                marked(&p.name, board.bots),
                shown(&board.category, r.rating, false),
                shown(&board.category, r.deviation, false),
                r.wins.to_string(),
                r.losses.to_string(),
                r.ties.to_string(),
                utc_minutes(r.last_ms),
            ]
        })
        .collect();
    let heading = ["RANK", "PLAYER", "RATING", "±", "W", "L", "T", "LAST (UTC)"];
    out.write_all(printed(heading, &rows, &[1], width).as_bytes())
}

/// Writes a profile: a line for the player, a table of its ratings, and its recent rated
/// games.
pub fn write_profile(out: &mut impl Write, p: &Profile, width: usize) -> io::Result<()> {
    let mut title = marked(&p.name, p.bot);
    if p.deleted {
        title.push_str(" (deleted)");
    }
    writeln!(out, "{title}")?;
    if p.ratings.is_empty() {
        return writeln!(out, "No rated games yet.");
    }
    let rows: Vec<[String; 7]> = p
        .ratings
        .iter()
        .map(|c| {
            let r = &c.rating;
            [
                c.category.clone(),
                shown(&c.category, r.rating, c.provisional),
                shown(&c.category, r.deviation, false),
                r.wins.to_string(),
                r.losses.to_string(),
                r.ties.to_string(),
                utc_minutes(r.last_ms),
            ]
        })
        .collect();
    let heading = ["CATEGORY", "RATING", "±", "W", "L", "T", "LAST (UTC)"];
    out.write_all(printed(heading, &rows, &[], width).as_bytes())?;
    if p.ratings.iter().any(|c| c.provisional) {
        writeln!(out, "? provisional: too few rated games to be sure yet")?;
    }
    write_recent(out, p, width)
}

/// The recent rated games, newest first, with their category, outcome and the rating after.
fn write_recent(out: &mut impl Write, p: &Profile, width: usize) -> io::Result<()> {
    let rows: Vec<[String; 5]> = p
        .recent
        .iter()
        .filter_map(|game| {
            p.ratings.iter().find_map(|c| {
                let point = c.history.iter().find(|h| &h.game == game)?;
                Some([
                    game.clone(),
                    utc_minutes(point.when_ms),
                    c.category.clone(),
                    point.outcome.clone(),
                    shown(&c.category, point.rating, false),
                ])
            })
        })
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nRecent rated games (newest first):")?;
    let heading = ["GAME", "ENDED (UTC)", "CATEGORY", "OUTCOME", "RATING AFTER"];
    out.write_all(printed(heading, &rows, &[], width).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
        let mut out = Vec::new();
        write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    const PROFILE: &str = r#"{"name":"Ann","bot":false,"deleted":false,
        "ratings":[{"category":"jchomp:2","rating":1337.6,"deviation":290.3,"volatility":0.09,
          "provisional":true,"wins":0,"losses":1,"ties":0,"last_ms":1700000000000,
          "history":[{"game":"r1","when_ms":1700000000000,"rating":1337.6,"deviation":290.3,
            "outcome":"loss"}]},
          {"category":"jchomp:3-4","rating":27.25,"deviation":2.1,"volatility":0,
          "provisional":false,"wins":5,"losses":2,"ties":1,"last_ms":1700000060000,"history":[]}],
        "recent":["r1"]}"#;

    #[test]
    fn a_profile_shows_ratings_deviations_counts_and_recent_games() {
        let p: Profile = serde_json::from_str(PROFILE).unwrap();
        let t = text(|o| write_profile(o, &p, usize::MAX));
        assert!(t.starts_with("Ann\nCATEGORY    RATING  ±"), "{t}");
        assert!(
            t.contains("jchomp:2    1338?   290  0  1  0  2023-11-14 22:13"),
            "{t}"
        );
        assert!(
            t.contains("jchomp:3-4  27.2    2.1  5  2  1  2023-11-14 22:14"),
            "{t}"
        );
        assert!(t.contains("? provisional"), "{t}");
        assert!(
            t.contains("r1    2023-11-14 22:13  jchomp:2  loss     1338"),
            "{t}"
        );
    }

    #[test]
    fn bots_are_marked_and_an_empty_profile_says_so() {
        let p = Profile {
            name: "level:1".into(),
            bot: true,
            deleted: false,
            ratings: vec![],
            recent: vec![],
        };
        assert_eq!(
            text(|o| write_profile(o, &p, 80)),
            "level:1 [bot]\nNo rated games yet.\n"
        );
    }

    #[test]
    fn a_leaderboard_ranks_and_marks_bots() {
        let board: Leaderboard = serde_json::from_str(
            r#"{"category":"jchomp:2","bots":true,"days":30,"size":100,"players":[
              {"name":"level:5","rating":1900.4,"deviation":60.2,"volatility":0.06,"wins":30,
               "losses":2,"ties":0,"last_ms":1700000000000},
              {"name":"AnnBot","rating":1650,"deviation":99.9,"volatility":0.06,"wins":9,
               "losses":8,"ties":1,"last_ms":1700000000000}]}"#,
        )
        .unwrap();
        let t = text(|o| write_leaderboard(o, &board, usize::MAX));
        assert!(
            t.starts_with("jchomp:2 leaderboard, bots with a rated game in the last 30 days:\n"),
            "{t}"
        );
        assert!(t.contains("RANK  PLAYER         RATING  ±"), "{t}");
        assert!(
            t.contains("1     level:5 [bot]  1900    60   30  2  0"),
            "{t}"
        );
        assert!(
            t.contains("2     AnnBot [bot]   1650    100  9   8  1"),
            "{t}"
        );
        let empty = Leaderboard {
            players: vec![],
            bots: false,
            ..board
        };
        let t = text(|o| write_leaderboard(o, &empty, 80));
        assert!(t.contains("people with a rated game"), "{t}");
        assert!(t.contains("Nobody yet"), "{t}");
    }
}
