//! The JSON API the clients read profiles and leaderboards from: `GET /api/players/NAME` and
//! `GET /api/leaderboard?category=jchomp:2&bots=false&days=30`.

use crate::accounts::board::{ACTIVE_DAYS, LEADERBOARD_SIZE};
use crate::net::answer::{Answer, answer};
use crate::net::shared::Shared;
use hyper::StatusCode;
use serde::Serialize;

/// The content type of every answer.
const JSON: &str = "application/json";
/// The path of profiles, before the name.
pub(crate) const PLAYERS: &str = "/api/players/";
/// The path of leaderboards.
pub(crate) const LEADERBOARD: &str = "/api/leaderboard";

/// Answers a `GET` under `/api/`.
pub(crate) async fn answer_api(ctx: &Shared, path: &str, query: Option<&str>) -> Answer {
    if let Some(name) = path.strip_prefix(PLAYERS) {
        return match ctx.accounts.profile(name).await {
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
    error(StatusCode::NOT_FOUND, format!("no such API path: {path}"))
}

/// The leaderboard's query: `category` (required), `bots` (`true`/`false`, default false),
/// `days` (default [`ACTIVE_DAYS`], 1–3650).
fn leaderboard_query(query: &str) -> Result<(String, bool, u64), String> {
    let (mut category, mut bots, mut days) = (None, false, ACTIVE_DAYS);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "category" => category = Some(v.replace("%3A", ":").replace("%3a", ":")),
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
    Ok((category, bots, days))
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
    }
}
