//! The web client's figures in headless Chromium against the server on loopback: the size of
//! what a first visit downloads, first contentful paint of the lobby against the server's
//! plain 404 page as the baseline (same browser, same run, interleaved), and the time a
//! spectator's page takes to draw a move from the message that carries it, over a whole game on
//! the largest board. Run with `cargo bench -p jchomp-server --bench web_page`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/web_support/mod.rs"]
mod web_support;

use jchomp_testkit::model::Model;
use jchomp_testkit::server::{Client, TestServer, config_value};
use serde_json::{Value, json};
use web_support::{Browser, Engine};

/// Fresh page loads of each kind.
const LOADS: usize = 15;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Loads `url` in a new browser context (a cold cache) and returns its first contentful paint
/// in ms from the start of navigation.
async fn first_paint(browser: &Browser, url: &str) -> f64 {
    let page = browser.page().await;
    page.navigate(url).await;
    page.wait(
        "performance.getEntriesByName('first-contentful-paint').length > 0",
        "a first paint",
    )
    .await;
    page.eval("performance.getEntriesByName('first-contentful-paint')[0].startTime")
        .await
        .as_f64()
        .unwrap()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // `cargo test --benches` runs this binary once without `--bench`: do nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let server = TestServer::start().await;
    let browser = Browser::launch(Engine::Chromium).await;
    let url = format!("http://{}/", server.addr);

    // What a first visit downloads.
    let page = browser.page().await;
    page.goto(&url).await;
    page.wait("document.querySelector('#rooms tbody tr')", "the room list")
        .await;
    let files = page
        .eval(
            "[performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]
               .map(e => [new URL(e.name).pathname, e.transferSize, e.encodedBodySize, e.decodedBodySize])",
        )
        .await;
    let (mut raw, mut wire) = (0, 0);
    println!("file                 body (bytes)   sent (gzip)");
    for f in files.as_array().unwrap() {
        let (name, encoded, decoded) = (
            f[0].as_str().unwrap(),
            f[2].as_u64().unwrap(),
            f[3].as_u64().unwrap(),
        );
        println!("{name:<20} {decoded:>12} {encoded:>13}");
        raw += decoded;
        wire += encoded;
    }
    println!("total                {raw:>12} {wire:>13}");

    // First paint: the lobby against the plain 404 page, interleaved.
    let (mut lobby, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..LOADS {
        lobby.push(first_paint(&browser, &url).await);
        plain.push(first_paint(&browser, &format!("{url}nowhere")).await);
    }
    let (l, p) = (median(&mut lobby), median(&mut plain));
    println!(
        "first contentful paint, median of {LOADS} cold loads: lobby {l:.1} ms (max {:.1}), 404 page {p:.1} ms; lobby / 404 = {:.2}",
        lobby[LOADS - 1],
        l / p
    );

    // Drawing a move: two players over the protocol, a spectator's page on 15×15.
    let mut a = Client::connect(server.addr).await;
    let (room, _) = a
        .create("a", config_value("15x15 eat 1x1 poison 0,0"))
        .await;
    let mut b = Client::connect(server.addr).await;
    b.join(&room, "b").await;
    let eve = browser.page().await;
    eve.goto(&format!("{url}#/room/{room}")).await;
    eve.wait(
        "document.querySelector('.game')?.dataset.status === 'playing'",
        "the game",
    )
    .await;
    let mut model = Model::start(&jchomp_testkit::board("15x15 eat 1x1 poison 0,0"));
    let mut draws = Vec::new();
    let mut n = 0;
    loop {
        let valid = model.valid();
        let Some(&(r, c)) = valid
            .iter()
            .rev()
            .find(|&&(r, c)| !model.after(r, c).poisoned())
        else {
            break;
        };
        let mover = if n % 2 == 0 { &mut a } else { &mut b };
        mover.send(json!({"type":"move","row":r,"col":c})).await;
        // Both players read what they are sent, so that neither is dropped as a slow reader.
        a.until("moved").await;
        b.until("moved").await;
        model.select(r, c).unwrap();
        n += 1;
        eve.wait(
            &format!("+document.querySelector('.game').dataset.moves === {n}"),
            "the move drawn",
        )
        .await;
        let ms: Value = eve
            .eval("+document.querySelector('.board').dataset.drawMs")
            .await;
        draws.push(ms.as_f64().unwrap());
    }
    let count = draws.len();
    let over = draws.iter().filter(|&&d| d > 1000.0 / 60.0).count();
    let med = median(&mut draws);
    println!(
        "a move drawn from its `moved` (15x15, {count} moves): median {med:.2} ms, max {:.2} ms; {over} over one 60 Hz frame",
        draws[count - 1]
    );
    // The baseline's own 404 is the only error the browser may report.
    browser
        .errors
        .lock()
        .unwrap()
        .retain(|e| !(e.contains("404 (Not Found)") && e.contains("/nowhere")));
    browser.assert_no_console_errors();
}
