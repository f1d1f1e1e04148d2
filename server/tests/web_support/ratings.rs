//! The profile and leaderboard pages held against the JSON API they draw from
//! (`/api/players/NAME`, `/api/leaderboard`): every number, tag, link and chart point.

use super::Page;
use jchomp_testkit::server::TestServer;
use serde_json::{Value, json};

/// The JSON of an API path, which must answer 200.
pub async fn api(server: &TestServer, path: &str) -> Value {
    let (line, body) = server.http_get(path).await;
    assert!(line.contains("200"), "{path}: {line}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// A rating as the pages write it (two players): `1623 ± 87`, wins, losses and ties.
fn rating_words(r: &Value) -> (String, String) {
    let round = |k: &str| r[k].as_f64().unwrap().round();
    (
        format!("{} ± {}", round("rating"), round("deviation")),
        format!(
            "{} won, {} lost, {} tied",
            r["wins"], r["losses"], r["ties"]
        ),
    )
}

/// Opens `#/players/NAME` and holds what it shows against `/api/players/NAME`: the bot tag,
/// each category's rating, deviation, provisional mark and counts, one chart point per rated
/// game (in order, higher for a higher rating) and the recent games' replay links. Returns the
/// profile.
pub async fn profile_matches_the_api(page: &Page<'_>, server: &TestServer, name: &str) -> Value {
    let want = api(server, &format!("/api/players/{name}")).await;
    page.eval(&format!("location.hash = '#/players/{name}'"))
        .await;
    page.wait(
        &format!(
            "document.querySelector('.profile')?.dataset.player === {}",
            want["name"]
        ),
        "the profile",
    )
    .await;
    let shown = page
        .eval(
            "(() => { const q = (el, sel) => el.querySelector(sel);
              return { bot: !!q(document, '.profile h2 .tag.bot'),
                recent: [...document.querySelectorAll('#recent a')].map(a => a.getAttribute('href')),
                categories: [...document.querySelectorAll('.profile .category')].map(s => ({
                  category: s.dataset.category, rating: q(s, '.rating').textContent,
                  record: q(s, '.record').textContent, provisional: !!q(s, '.tag.provisional'),
                  points: [...s.querySelectorAll('svg.chart .point')].map(p => {
                    const r = p.getBoundingClientRect();
                    return { game: p.dataset.game, y: r.y + r.height / 2 }; }) })) }; })()",
        )
        .await;
    assert_eq!(shown["bot"], want["bot"], "{shown}");
    let recent: Vec<String> = want["recent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| format!("#/game/{}", g.as_str().unwrap()))
        .collect();
    assert_eq!(shown["recent"], json!(recent), "{shown}");
    let ratings = want["ratings"].as_array().unwrap();
    assert_eq!(shown["categories"].as_array().unwrap().len(), ratings.len());
    for (r, s) in ratings.iter().zip(shown["categories"].as_array().unwrap()) {
        let (rating, record) = rating_words(r);
        assert_eq!(s["category"], r["category"], "{s}");
        assert_eq!(
            (s["rating"].as_str(), s["record"].as_str()),
            (Some(rating.as_str()), Some(record.as_str())),
            "{s}"
        );
        assert_eq!(s["provisional"], r["provisional"], "{s}");
        let history = r["history"].as_array().unwrap();
        let points = s["points"].as_array().unwrap();
        assert_eq!(points.len(), history.len(), "one point per rated game: {s}");
        for (i, (p, h)) in points.iter().zip(history).enumerate() {
            assert_eq!(p["game"], h["game"], "{s}");
            // Across the chart, a higher rating is a higher point.
            for (q, k) in points.iter().zip(history).skip(i + 1) {
                let (y, z) = (p["y"].as_f64().unwrap(), q["y"].as_f64().unwrap());
                let (a, b) = (h["rating"].as_f64().unwrap(), k["rating"].as_f64().unwrap());
                if (a - b).abs() > 1.0 {
                    assert_eq!(
                        y < z,
                        a > b,
                        "point heights against ratings {a} and {b}: {s}"
                    );
                }
            }
        }
    }
    want
}

/// Opens the leaderboard of `category` (people or bots) by its chooser and toggle, and holds
/// its rows against `/api/leaderboard`; returns the names listed.
pub async fn leaderboard_matches_the_api(
    page: &Page<'_>,
    server: &TestServer,
    category: &str,
    bots: bool,
) -> Vec<String> {
    let want = api(
        server,
        &format!("/api/leaderboard?category={category}&bots={bots}"),
    )
    .await;
    if page.eval("!document.querySelector('#category')").await == json!(true) {
        page.click("#to-leaderboard").await;
        page.wait(
            "document.querySelector('.leaderboard #bots')",
            "the leaderboard",
        )
        .await;
    }
    // Each choice opens a new view: the old one is marked so as not to be taken for it.
    let board = |b: bool| format!("{category}{}", if b { "/bots" } else { "" });
    let now = page
        .eval("document.querySelector('#bots').checked")
        .await
        .as_bool()
        .unwrap();
    let mark = "document.querySelector('.leaderboard').dataset.old = 'yes'";
    page.eval(mark).await;
    page.choose("#category", category).await;
    let shown = |b: bool| {
        format!(
            "document.querySelector('.leaderboard:not([data-old])')?.dataset.board === '{}'",
            board(b)
        )
    };
    page.wait(&shown(now), "the category's board").await;
    if now != bots {
        page.eval(mark).await;
        page.click("#bots").await;
        page.wait(&shown(bots), "the people's or the bots' board")
            .await;
    }
    let rows = page
        .eval(
            "[...document.querySelectorAll('#board tbody tr[data-player]')].map(tr => ({
                name: tr.querySelector('a.player').textContent, href: tr.querySelector('a.player').getAttribute('href'),
                bot: !!tr.querySelector('.tag.bot'), rating: tr.querySelector('.rating').textContent,
                record: tr.querySelector('.record').textContent }))",
        )
        .await;
    let players = want["players"].as_array().unwrap();
    assert_eq!(
        rows.as_array().unwrap().len(),
        players.len(),
        "{rows} against {want}"
    );
    for (row, p) in rows.as_array().unwrap().iter().zip(players) {
        let (rating, record) = rating_words(p);
        let name = p["name"].as_str().unwrap();
        assert_eq!(row["name"], name, "{row}");
        assert_eq!(row["href"], format!("#/players/{name}"), "{row}");
        assert_eq!(row["bot"], bots, "{row}");
        assert_eq!(
            (row["rating"].as_str(), row["record"].as_str()),
            (Some(rating.as_str()), Some(record.as_str())),
            "{row}"
        );
    }
    if players.is_empty() {
        let empty = page
            .eval("document.querySelector('#board tbody .empty')?.textContent")
            .await;
        assert_eq!(empty, "Nobody is listed yet.");
    }
    players
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}
