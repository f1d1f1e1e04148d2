//! The web client's tournament pages in real headless browsers (Chromium and Firefox), against
//! the real server: a guest is told why it cannot create one; an account creates a round robin
//! of bots from the form; its page's standings change as games end until it is finished, every
//! state drawn adding up to the games finished; the final standings and crosstable are the
//! server's (`GET /api/tournaments/ID`); a game in play is watched by a click and the finished
//! ones link to their replays; the list shows it; and an unknown id is said so. A person enters
//! one from its page (a guest is told to log in), is taken to each game it is seated in, plays
//! it by clicks, takes its seat back from a new tab with Rejoin (and by itself on a reload),
//! and sees its games counted;
//! an entry is withdrawn before the start, a start time is shown in local time, and a
//! tournament cancelled for too few entrants says why.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod web_support;

use common::TestServer;
use serde_json::{Value, json};
use std::time::Duration;
use web_support::entry::{
    Form, Start, create, join_until_taken, play_one, play_to_the_end, room_shown, submit,
};
use web_support::ratings::api;
use web_support::{Browser, Engine, Page, in_both_browsers};

in_both_browsers!(
    a_round_robin_of_bots_is_created_followed_to_its_end_and_watched,
    a_person_enters_from_the_page_and_plays_each_game_it_is_taken_to,
    an_entry_is_withdrawn_and_a_tournament_too_few_entered_is_cancelled,
);

/// Long enough for the whole tournament on a loaded machine.
const LONG: Duration = Duration::from_secs(180);

/// The built-in levels entered by their boxes, and a bot that thinks a while over each move
/// (so that its games stay in play long enough to be clicked).
const ENTRANTS: [&str; 4] = ["random", "greedy", "level:1", "search:time=200ms"];

/// Records in the page every state of the standings drawn, with the games finished then, in
/// `window.__states` (a tournament's page is redrawn from each view, however fast they come).
const RECORD_STATES: &str = "(() => { window.__states = []; const record = () => {
    const t = document.querySelector('.tournament'), rows = document.querySelectorAll('#standings tbody tr');
    if (!t || !rows.length) return;
    const state = { finished: +t.dataset.finished, points: [...rows].map(r => r.querySelector('.points').textContent) };
    const last = window.__states[window.__states.length - 1];
    if (JSON.stringify(last) !== JSON.stringify(state)) window.__states.push(state); };
  new MutationObserver(record).observe(document.getElementById('main'), { childList: true, subtree: true }); })()";

/// Points as the page writes them (`2`, `1½`, `½`), as a number.
fn points_of(text: &str) -> f64 {
    match text.strip_suffix('½') {
        Some(whole) => whole.parse::<f64>().unwrap_or(0.0) + 0.5,
        None => text.parse().unwrap(),
    }
}

/// A guest sees the list but no form, and why.
async fn a_guest_may_not_create(page: &Page<'_>) {
    page.click("#to-tournaments").await;
    page.wait(
        "document.querySelector('#tournament-create')?.hidden && document.querySelector('#t-why').textContent.includes('needs an account') && document.querySelector('#tournaments .empty')",
        "the guest told why",
    )
    .await;
}

/// Registers `name` in the account panel and comes back to the tournaments.
async fn register(page: &Page<'_>, name: &str) {
    page.click("#to-account").await;
    page.fill("#acct-name", name).await;
    page.fill("#acct-password", "correct horse").await;
    page.click("#register").await;
    page.wait(
        &format!("document.querySelector('#to-account').textContent === '{name}'"),
        "registered",
    )
    .await;
    page.click("#to-tournaments").await;
    page.wait(
        "document.querySelector('#tournament-create') && !document.querySelector('#tournament-create').hidden && !document.querySelector('#rated').disabled",
        "the form open to an account",
    )
    .await;
}

/// Fills the form with a round robin of [`ENTRANTS`] on a 7×8 board (eat 1×2, 2 s a move) and
/// creates it; returns its id once its page shows it.
async fn create_round_robin(page: &Page<'_>) -> String {
    page.fill("#t-name", "web cup").await;
    page.choose("#t-format", "round_robin").await;
    page.fill("#rows", "7").await;
    page.fill("#cols", "8").await;
    page.fill("#eat-rows", "1").await;
    page.fill("#eat-cols", "2").await;
    page.fill("#players", "2").await;
    page.fill("#move-time", "2").await;
    // The first four levels are ticked: level:2 is not wanted.
    page.click("#t-bot-level-2").await;
    page.fill("#t-more", ENTRANTS[3]).await;
    submit(page, "document.querySelector('#standings')").await
}

/// Clicks a game in play of the bot that thinks until the page opens its room (a game above
/// it may end between the aim and the click, moving it up a line); returns the game's id.
async fn click_a_game_in_play(page: &Page<'_>) -> String {
    let thinker = format!(
        "[...document.querySelectorAll('#playing li[data-game]')].find(li => li.textContent.includes('{}'))",
        ENTRANTS[3]
    );
    for _ in 0..5 {
        page.wait(&thinker, "a game in play").await;
        let game = page.eval(&format!("{thinker}.dataset.game")).await;
        let game = game.as_str().unwrap().to_string();
        page.click(&format!("#playing li[data-game=\"{game}\"] a.watch"))
            .await;
        let opened = format!("location.hash === '#/room/{game}'");
        for _ in 0..40 {
            if page.eval(&opened).await == json!(true) {
                return game;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
    panic!("no click on a game in play opened its room");
}

/// Watches a game in play by a click: the room's page shows it in play (a game that ended just
/// as it opened is left for another), its seats the tournament's; then comes back.
async fn a_game_in_play_is_watched(page: &Page<'_>, server: &TestServer, id: &str) {
    let back =
        format!("location.hash === '#/tournaments/{id}' && document.querySelector('#standings')");
    for _ in 0..3 {
        let game = click_a_game_in_play(page).await;
        page.wait(
            "document.querySelector('.game')?.dataset.status && document.querySelectorAll('#seats li').length === 2",
            "the game's room",
        )
        .await;
        let status = page
            .eval("document.querySelector('.game').dataset.status")
            .await;
        if status == "playing" {
            let view = api(server, &format!("/api/tournaments/{id}")).await;
            let want = view["games"]
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["game"] == game.as_str())
                .unwrap()["seats"]
                .clone();
            let seats = page
                .eval("[...document.querySelectorAll('#seats li')].map(li => li.textContent)")
                .await;
            for (shown, name) in seats
                .as_array()
                .unwrap()
                .iter()
                .zip(want.as_array().unwrap())
            {
                assert!(
                    shown.as_str().unwrap().contains(name.as_str().unwrap()),
                    "{seats} against {want}"
                );
            }
            page.eval("history.back()").await;
            page.wait(&back, "back on the tournament's page").await;
            return;
        }
        page.eval("history.back()").await;
        page.wait(&back, "back on the tournament's page").await;
    }
    panic!("every game clicked had ended by the time its room opened");
}

/// The page's standings, crosstable and finished games against the server's view.
async fn page_matches_the_view(page: &Page<'_>, view: &Value) {
    let shown = page
        .eval(
            "(() => { const cells = (tr) => [...tr.children].map(td => td.textContent);
              return { standings: [...document.querySelectorAll('#standings tbody tr')].map(cells),
                cross: [...document.querySelectorAll('#crosstable tbody tr')].map(tr => [...tr.querySelectorAll('td.cross')].map(td => td.textContent)),
                replays: [...document.querySelectorAll('#finished a.replay')].map(a => a.getAttribute('href')),
                playing: document.querySelectorAll('#playing a.watch').length,
                html: document.querySelector('.tournament-body')?.innerHTML }; })()",
        )
        .await;
    let standings: Vec<Value> = view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // A bot's name is tagged in the page, as everywhere a name is shown.
            let name = s["name"].as_str().unwrap();
            let tag = if s["bot"] == true { " bot" } else { "" };
            json!([
                (i + 1).to_string(),
                format!("{name}{tag}"),
                s["points"].as_f64().unwrap(),
                s["games"].to_string(),
                format!("{} / {} / {}", s["wins"], s["ties"], s["losses"]),
                s["performance"].to_string()
            ])
        })
        .collect();
    let mut got = shown["standings"].clone();
    for row in got.as_array_mut().unwrap() {
        row[2] = json!(points_of(row[2].as_str().unwrap()));
    }
    assert_eq!(got, json!(standings));
    let cross: Vec<Vec<Value>> = view["crosstable"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(j, p)| match p.as_f64() {
                    Some(p) => json!(p),
                    None => json!(if i == j { "×" } else { "·" }),
                })
                .collect()
        })
        .collect();
    let mut got = shown["cross"].clone();
    for cell in got
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .flat_map(|r| r.as_array_mut().unwrap())
    {
        let text = cell.as_str().unwrap().to_string();
        if text != "×" && text != "·" {
            *cell = json!(points_of(&text));
        }
    }
    assert_eq!(got, json!(cross), "{}", shown["html"]);
    let replays: Vec<String> = view["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| format!("#/game/{}", g["game"].as_str().unwrap()))
        .collect();
    assert_eq!(shown["replays"], json!(replays));
    assert_eq!(shown["playing"], 0);
}

/// Every state of the standings drawn adds up to its games finished (each game hands out one
/// point between two), and there were several, the games finished growing to the last.
async fn standings_changed_as_games_ended(page: &Page<'_>, games: usize) {
    let states = page.eval("window.__states").await;
    let states = states.as_array().unwrap();
    let mut last = None;
    for s in states {
        let finished = s["finished"].as_u64().unwrap();
        let total: f64 = s["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| points_of(p.as_str().unwrap()))
            .sum();
        assert_eq!(total, finished as f64, "{s}");
        assert!(last.is_none_or(|l| l <= finished), "{states:?}");
        last = Some(finished);
    }
    let distinct: std::collections::BTreeSet<u64> = states
        .iter()
        .map(|s| s["finished"].as_u64().unwrap())
        .collect();
    assert!(distinct.len() >= 3, "{states:?}");
    assert_eq!(last, Some(games as u64), "{states:?}");
}

async fn a_round_robin_of_bots_is_created_followed_to_its_end_and_watched(engine: Engine) {
    let server = TestServer::start().await;
    let browser = Browser::launch(engine).await;
    let page = browser.page().await;
    page.goto(&format!("http://{}/", server.addr)).await;
    a_guest_may_not_create(&page).await;
    register(&page, "Tess").await;
    page.eval(RECORD_STATES).await;
    let id = create_round_robin(&page).await;
    let first = api(&server, &format!("/api/tournaments/{id}")).await;
    assert_eq!(first["entrants"], json!(ENTRANTS));
    assert_eq!(first["spec"]["format"], json!({"kind": "round_robin"}));
    assert_eq!(first["spec"]["config"]["move_time_ms"], 2000);
    a_game_in_play_is_watched(&page, &server, &id).await;
    page.wait_within(
        "document.querySelector('.tournament')?.dataset.status === 'finished'",
        "the tournament finished",
        LONG,
    )
    .await;
    let view = api(&server, &format!("/api/tournaments/{id}")).await;
    assert_eq!(view["status"], "finished");
    // Four entrants meet once in each seat order.
    let games = view["games"].as_array().unwrap().len();
    assert_eq!(games, 12);
    page_matches_the_view(&page, &view).await;
    standings_changed_as_games_ended(&page, games).await;
    // A finished game's replay is a click away.
    page.click("#finished a.replay").await;
    page.wait(
        "location.hash.startsWith('#/game/') && document.querySelector('#main > .replay')",
        "the replay",
    )
    .await;
    // The list shows it, linking to its page.
    page.click("#to-tournaments").await;
    page.wait(
        &format!("document.querySelector('#tournaments tr[data-tournament=\"{id}\"] .finished')?.textContent === '12'"),
        "the tournament listed",
    )
    .await;
    let row = page
        .eval(&format!("[...document.querySelectorAll('#tournaments tr[data-tournament=\"{id}\"] td')].map(td => td.textContent)"))
        .await;
    assert_eq!(
        row,
        json!(["web cup", "round robin", "finished", "4", "12"])
    );
    page.click(&format!(
        "#tournaments tr[data-tournament=\"{id}\"] a.tournament"
    ))
    .await;
    page.wait(
        &format!("location.hash === '#/tournaments/{id}' && document.querySelector('#crosstable')"),
        "its page again",
    )
    .await;
    // An unknown id is said so.
    page.eval("location.hash = '#/tournaments/nope'").await;
    page.wait(
        "document.querySelector('#tournament-error')?.textContent.includes('nope')",
        "the unknown id said",
    )
    .await;
    browser.assert_no_console_errors();
}

/// A guest opening an open tournament's page is told, on Join, to log in.
async fn a_guest_is_told_to_log_in(browser: &Browser, server: &TestServer, id: &str) {
    let guest = browser.page().await;
    guest
        .goto(&format!("http://{}/#/tournaments/{id}", server.addr))
        .await;
    guest.click("#t-join").await;
    guest
        .wait(
            "document.querySelector('#t-entry-error').textContent.includes('log in') && document.querySelector('#t-entry-error a[href=\"#/account\"]')",
            "the guest told to log in",
        )
        .await;
    guest.close().await;
}

/// The page's account row in the standings, as shown.
async fn my_row(page: &Page<'_>, name: &str) -> Value {
    page.eval(&format!(
        "[...document.querySelectorAll('#standings tr[data-name=\"{name}\"] td')].map(td => td.textContent)"
    ))
    .await
}

async fn a_person_enters_from_the_page_and_plays_each_game_it_is_taken_to(engine: Engine) {
    let server = TestServer::start().await;
    let browser = Browser::launch(engine).await;
    let page = browser.page().await;
    page.goto(&format!("http://{}/", server.addr)).await;
    register(&page, "Pia").await;
    let form = Form {
        name: "join cup",
        entry: "anyone",
        start: Start::Joined(2),
        levels: &["level:1"],
    };
    let id = create(&page, &form).await;
    page.wait(
        "document.querySelector('.tournament').dataset.status === 'open' && document.querySelector('#t-info').textContent.includes('starts when 2 have entered (1 so far)')",
        "open, waiting for one more",
    )
    .await;
    a_guest_is_told_to_log_in(&browser, &server, &id).await;

    // Joining starts it: the page is taken to the first game.
    page.click("#t-join").await;
    let first = room_shown(&page).await;
    assert!(
        play_one(&page, &first).await,
        "the first game ended before a move"
    );
    // The tab is closed and opened again: Rejoin hands the seat back to the new page.
    let context = page.context.clone();
    page.close().await;
    let page = browser.page_in(&context).await;
    page.goto(&format!("http://{}/#/tournaments/{id}", server.addr))
        .await;
    page.wait(
        "document.querySelector('#t-join')?.textContent === 'Rejoin'",
        "Rejoin offered",
    )
    .await;
    join_until_taken(&page, &format!("location.hash === '#/room/{first}'")).await;
    assert_eq!(room_shown(&page).await, first);
    // Away from the game and back to it from the tournament's page.
    page.click(".bar a.back").await;
    page.click("#t-my-game").await;
    assert_eq!(room_shown(&page).await, first);
    // A reload takes the seat back and enters again, so that the next game comes here too.
    page.reload().await;
    assert_eq!(room_shown(&page).await, first);
    page.wait(
        "document.querySelector('#seats .you') && document.querySelector('#to-tournament')",
        "the seat taken back",
    )
    .await;
    play_to_the_end(&page, &first).await;

    // The second game opens by itself, and its end leads back to the tournament.
    page.wait(
        &format!("location.hash.startsWith('#/room/') && location.hash !== '#/room/{first}'"),
        "the next game",
    )
    .await;
    let second = room_shown(&page).await;
    let told = page
        .eval("document.querySelector('#t-round').textContent")
        .await;
    play_to_the_end(&page, &second).await;
    page.wait(
        "document.querySelector('.game').dataset.status === 'finished'",
        "the last game over",
    )
    .await;
    page.click("#to-tournament").await;
    page.wait(
        &format!("location.hash === '#/tournaments/{id}' && document.querySelector('.tournament')?.dataset.status === 'finished'"),
        "the finished tournament",
    )
    .await;
    let view = api(&server, &format!("/api/tournaments/{id}")).await;
    let games: Vec<&str> = view["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["game"].as_str().unwrap())
        .collect();
    assert_eq!(games, [first.as_str(), second.as_str()]);
    // The next game's page says how the last one ended (its end is followed at once).
    let g = &view["games"][0];
    let loser = g["result"]["loser"].as_u64().unwrap() as usize;
    let (lost, won) = (&g["seats"][loser], &g["seats"][1 - loser]);
    let round = &view["games"][1]["round"];
    assert_eq!(
        told,
        format!(
            "Tournament game, round {round}. Your last game: {} ate the poison and loses; {} wins.",
            lost.as_str().unwrap(),
            won.as_str().unwrap()
        )
    );
    let pia = view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Pia")
        .unwrap();
    assert_eq!(pia["games"], 2);
    let row = my_row(&page, "Pia").await;
    assert_eq!(row[1], "Pia", "a person, not tagged");
    assert_eq!(
        points_of(row[2].as_str().unwrap()),
        pia["points"].as_f64().unwrap()
    );
    assert_eq!(row[3], "2");
    browser.assert_no_console_errors();
}

async fn an_entry_is_withdrawn_and_a_tournament_too_few_entered_is_cancelled(engine: Engine) {
    let server = TestServer::start().await;
    let browser = Browser::launch(engine).await;
    let page = browser.page().await;
    page.goto(&format!("http://{}/", server.addr)).await;
    register(&page, "Wade").await;
    let later = Form {
        name: "later cup",
        entry: "people",
        start: Start::In(3_600_000),
        levels: &[],
    };
    let id = create(&page, &later).await;
    let view = api(&server, &format!("/api/tournaments/{id}")).await;
    assert_eq!(view["spec"]["entry"], "people");
    assert!(
        view["spec"]["bots"].as_array().is_none_or(Vec::is_empty),
        "no levels for people: {view}"
    );
    // Its start in the reader's own time.
    let shown = page
        .eval(&format!(
            "document.querySelector('#t-info').textContent.includes('starts at ' + new Date({}).toLocaleString())",
            view["starts_at_ms"]
        ))
        .await;
    assert_eq!(shown, true, "{view}");
    page.click("#t-join").await;
    page.wait(
        "document.querySelector('#t-withdraw') && document.querySelector('#standings tr[data-name=\"Wade\"]')",
        "entered",
    )
    .await;
    page.click("#t-withdraw").await;
    page.wait(
        "document.querySelector('#t-join') && !document.querySelector('#standings tbody tr')",
        "withdrawn",
    )
    .await;
    let view = api(&server, &format!("/api/tournaments/{id}")).await;
    assert_eq!(view["entrants"], json!([]));

    // One level entered and a start in a few seconds: too few, cancelled, and why.
    page.click("#to-tournaments").await;
    let dawn = Form {
        name: "dawn cup",
        entry: "anyone",
        start: Start::In(2_000),
        levels: &["level:1"],
    };
    let id = create(&page, &dawn).await;
    page.wait(
        "document.querySelector('.tournament').dataset.status === 'cancelled'",
        "cancelled",
    )
    .await;
    let view = api(&server, &format!("/api/tournaments/{id}")).await;
    let why = view["cancelled"].as_str().unwrap();
    let said = page
        .eval("document.querySelector('#t-cancelled').textContent")
        .await;
    assert_eq!(said, format!("Cancelled: {why}."));
    assert!(
        page.eval("document.querySelector('#t-join')")
            .await
            .is_null(),
        "no entry once cancelled"
    );
    browser.assert_no_console_errors();
}
