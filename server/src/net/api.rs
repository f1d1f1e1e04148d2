//! The JSON API the clients read profiles and leaderboards from: `GET /api/players/NAME` and
//! `GET /api/leaderboard?category=jchomp:2&bots=false&days=30`; and a tournament's view
//! (standings, crosstable, games): `GET /api/tournaments/ID`.

use crate::accounts::board::{ACTIVE_DAYS, LEADERBOARD_SIZE};
use crate::net::answer::{Answer, answer};
use crate::net::shared::Shared;
use crate::ratings::is_category;
use hyper::StatusCode;
use serde::Serialize;

/// The content type of every answer.
const JSON: &str = "application/json";
/// The path of profiles, before the name.
pub(crate) const PLAYERS: &str = "/api/players/";
/// The path of leaderboards.
pub(crate) const LEADERBOARD: &str = "/api/leaderboard";
/// The path of tournaments, before the id.
pub(crate) const TOURNAMENTS: &str = "/api/tournaments/";

/// Answers a `GET` under `/api/`.
pub(crate) async fn answer_api(ctx: &Shared, path: &str, query: Option<&str>) -> Answer {
    if let Some(name) = path.strip_prefix(PLAYERS) {
        let name = percent_decoded(name);
        return match ctx.accounts.profile(&name).await {
            Ok(Some(profile)) => json(StatusCode::OK, &profile),
            Ok(None) => error(
                StatusCode::NOT_FOUND,
                format!("no account is named {name:?}"),
            ),
            Err(e) => failed(&e),
        };
    }
    if path == LEADERBOARD {
        let (category, bots, days) = match leaderboard_query(query.unwrap_or_default()) {
            Ok(q) => q,
            Err(message) => return error(StatusCode::BAD_REQUEST, message),
        };
        return match ctx.accounts.leaderboard(&category, bots, days).await {
            Ok(board) => json(
                StatusCode::OK,
                &serde_json::json!({"category": category, "bots": bots, "days": days,
                                    "size": LEADERBOARD_SIZE, "players": board}),
            ),
            Err(e) => failed(&e),
        };
    }
    if let Some(id) = path.strip_prefix(TOURNAMENTS) {
        return match ctx.tournaments.view(id).await {
            Some(view) => json(StatusCode::OK, &view),
            None => error(
                StatusCode::NOT_FOUND,
                format!("no tournament has id {id:?}"),
            ),
        };
    }
    error(StatusCode::NOT_FOUND, format!("no such API path: {path}"))
}

/// The leaderboard's query: `category` (required), `bots` (`true`/`false`, default false),
/// `days` (default [`ACTIVE_DAYS`], 1–3650).
fn leaderboard_query(query: &str) -> Result<(String, bool, u64), String> {
    let (mut category, mut bots, mut days) = (None, false, ACTIVE_DAYS);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "category" => category = Some(percent_decoded(v)),
            "bots" => bots = v == "true",
            "days" => {
                days = v
                    .parse()
                    .ok()
                    .filter(|d| (1..=3650).contains(d))
                    .ok_or(format!("days must be 1–3650, got {v:?}"))?;
            }
            _ => {}
        }
    }
    let category = category.ok_or("category is required (jchomp:2, jchomp:3-4, classic:2, …)")?;
    if !is_category(&category) {
        return Err(format!(
            "no category {category:?}: a variant (jchomp, classic, breaks), then +normal and \
             +no-square-bites where they apply, then :2 or :3-4"
        ));
    }
    Ok((category, bots, days))
}

/// A path segment or query value with its `%XX` escapes decoded (a `+` stays a `+`: no name or
/// category holds a space); an escape that is not one, or bytes that are not UTF-8, are kept as they came.
fn percent_decoded(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| value.to_string())
}

/// A JSON answer.
fn json(status: StatusCode, body: &impl Serialize) -> Answer {
    match serde_json::to_vec(body) {
        Ok(bytes) => answer(status, JSON, bytes.into()),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

/// A JSON error: `{"error": message}`.
fn error(status: StatusCode, message: String) -> Answer {
    let body = serde_json::json!({ "error": message }).to_string();
    answer(status, JSON, body.into())
}

/// The answer when reading the accounts failed.
fn failed(e: &crate::accounts::AccountError) -> Answer {
    tracing::error!(error = %e, "reading profiles or leaderboards failed");
    error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_leaderboard_query_has_defaults_and_limits() {
        assert_eq!(
            leaderboard_query("category=jchomp%3A2"),
            Ok(("jchomp:2".into(), false, ACTIVE_DAYS))
        );
        assert_eq!(
            leaderboard_query("category=classic:3-4&bots=true&days=7"),
            Ok(("classic:3-4".into(), true, 7))
        );
        assert!(leaderboard_query("bots=true").is_err());
        assert!(leaderboard_query("category=jchomp:2&days=0").is_err());
        assert_eq!(
            leaderboard_query("category=breaks%2Bnormal%3A2").map(|q| q.0),
            Ok("breaks+normal:2".to_string())
        );
        let typo = leaderboard_query("category=jchmp:2").unwrap_err();
        assert!(typo.contains("jchmp:2") && typo.contains(":3-4"), "{typo}");
        assert!(leaderboard_query("category=%E2%82").is_err());
    }
}
