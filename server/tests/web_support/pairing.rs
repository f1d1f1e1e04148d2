//! The lobby's "Play now" section held against the server's quick pairing: the tiles against
//! `list_presets`, a wait as the page shows it, and the room a pairing seated the page in.

use super::Page;
use jchomp_testkit::server::{Client, TestServer};
use serde_json::{Value, json};

/// The server's `presets` answer, asked over a WebSocket of the test's own.
pub async fn presets(server: &TestServer) -> Value {
    let mut c = Client::connect(server.addr).await;
    c.send(json!({"type":"list_presets"})).await;
    c.expect("presets").await
}

/// The tiles as the page shows them: each preset's name, title and waiting line.
async fn tiles(page: &Page<'_>) -> Value {
    page.eval(
        "[...document.querySelectorAll('#presets .tile')].map(t => ({
            name: t.dataset.preset, title: t.querySelector('.tile-title').textContent,
            waiting: t.querySelector('.tile-waiting').textContent }))",
    )
    .await
}

/// Waits until the lobby's tile for `preset` says `waiting` wait (the lobby refreshes by
/// itself), then holds every tile and the bots choice against the server's `presets`.
pub async fn tiles_match_the_presets(
    page: &Page<'_>,
    server: &TestServer,
    preset: &str,
    waiting: u64,
) {
    page.wait(
        &format!(
            "document.querySelector('#presets .tile[data-preset=\"{preset}\"] .tile-waiting')?.textContent === '{waiting} waiting'"
        ),
        "the tile's count of those waiting",
    )
    .await;
    let want = presets(server).await;
    let shown = tiles(page).await;
    let listed: Vec<Value> = want["presets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!({"name": p["name"], "title": p["title"], "waiting": format!("{} waiting", p["waiting"])}))
        .collect();
    assert_eq!(shown, json!(listed), "{want}");
    let bots = page
        .eval("document.querySelector('label:has(#seek-bots)').textContent")
        .await;
    assert_eq!(
        bots,
        format!(
            " bots may fill empty seats after {} s",
            want["bot_patience_secs"]
        )
    );
}

/// Clicks `preset`'s tile and waits for the waiting state; returns its sentence.
pub async fn seek_in_the_page(page: &Page<'_>, preset: &str) -> String {
    page.click(&format!("#presets .tile[data-preset=\"{preset}\"]"))
        .await;
    page.wait(
        &format!(
            "!document.querySelector('#seek-wait').hidden && document.querySelector('#seek-wait').dataset.preset === '{preset}' && document.querySelector('#presets').offsetParent === null"
        ),
        "the waiting state",
    )
    .await;
    let said = page
        .eval("document.querySelector('#seek-status').textContent")
        .await;
    said.as_str().unwrap().to_string()
}

/// Cancels the page's wait and waits for the tiles to come back; the server's pool for
/// `preset` then counts `left` waiting.
pub async fn cancel_in_the_page(page: &Page<'_>, server: &TestServer, preset: &str, left: u64) {
    page.click("#cancel-seek").await;
    page.wait(
        "document.querySelector('#seek-wait').hidden && document.querySelector('#presets .tile')?.offsetParent",
        "the tiles again",
    )
    .await;
    let want = presets(server).await;
    let pool = want["presets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == preset)
        .unwrap();
    assert_eq!(pool["waiting"], left, "{want}");
}

/// Waits until the page shows the game a pairing seated it in, playing; returns the room id
/// from the address and each seat as the page lists it: `{"name", "bot", "you"}` (a guest's
/// room is unrated, so its names are plain text).
pub async fn seated_by_pairing(page: &Page<'_>) -> (String, Value) {
    page.wait(
        "document.querySelector('.game')?.dataset.status === 'playing' && document.querySelector('#seats .you')",
        "the paired room's game",
    )
    .await;
    let room = page
        .eval("decodeURIComponent(location.hash.split('/')[2])")
        .await;
    let seats = page
        .eval(
            "[...document.querySelectorAll('#seats li')].map(li => ({
                name: [...li.childNodes].filter(n => n.nodeType === Node.TEXT_NODE).map(n => n.textContent).join('').trim(),
                bot: !!li.querySelector('.tag.bot'), you: !!li.querySelector('.tag.you') }))",
        )
        .await;
    (room.as_str().unwrap().to_string(), seats)
}
