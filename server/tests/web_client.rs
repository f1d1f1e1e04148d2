//! The web client in real headless browsers, every scenario in Chromium and in Firefox, against
//! the real server on 127.0.0.1:0: a whole game against a bot by clicks with a dropped
//! connection and a reload in the middle, and a rematch; the preview against the test kit's
//! model of the rules, cell by cell, with the refusal reasons, the poison's second click and
//! keyboard play; two people playing each other to the end while a spectator sees every move;
//! the replay of the stored game step by step; the annotations against the engine's own
//! analysis; small classic bars (3×5, one row, one column) made by the form, drawn to fit and
//! played to the end, and named in the (1,1) bottom-left notation; the analysis board (row
//! lengths, clicks, JChomp bites, the best line) against the engine, over the page's one
//! connection with no room opened and no game stored; screenshots for the README; an account
//! registered in the page that plays rated games against a built-in level, its profile (one
//! chart point per rated game) and the leaderboards held against the JSON API, and its session
//! kept across connections and dropped once ended elsewhere, then the account panel's bot token,
//! new password, log-out and deletion; quick pairing from the lobby's "Play now" tiles (a wait
//! shown and cancelled, a page paired with a person and resuming its seat, a page paired with
//! three bots); and no console error on any page.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod web_support;

use common::{Client, TestServer, logged_in, rated_config_value};
use jchomp_engine::search::{Outcome, Table, analyze};
use jchomp_protocol::rules::{Config, Position, Rejection};
use jchomp_server::Settings;
use jchomp_testkit::model::Model;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;
use web_support::pairing::{
    cancel_in_the_page, seated_by_pairing, seek_in_the_page, tiles_match_the_presets,
};
use web_support::ratings::{api, leaderboard_matches_the_api, profile_matches_the_api};
use web_support::room::{cell, move_by_clicks, turn_or_end};
use web_support::{Browser, Engine, Page, in_both_browsers};

in_both_browsers!(
    a_whole_game_against_a_bot_by_clicks_survives_a_lost_connection_and_a_reload,
    small_classic_bars_are_made_by_the_form_drawn_to_fit_and_played_to_the_end,
    the_preview_is_exactly_what_the_rules_eat_and_a_refused_cell_says_why,
    two_people_play_to_the_end_a_spectator_sees_every_move_and_the_replay_steps_through,
    the_analysis_board_sets_positions_up_and_steps_through_the_best_line,
    an_account_plays_rated_games_and_its_profile_and_the_leaderboard_show_them,
    play_now_tiles_wait_cancel_and_pair_a_page_with_a_person_or_with_bots,
);

/// What the lobby's form is given.
struct Form<'a> {
    name: &'a str,
    rows: u32,
    cols: u32,
    /// `None`: classic Chomp.
    eat: Option<(u32, u32)>,
    /// Poison cells besides the form's default (0,0).
    more_poison: &'a [(u32, u32)],
    /// One entry per other seat: `""` for a person, else a bot spec.
    others: &'a [&'a str],
    analysis: bool,
    /// Seconds per move, if any.
    move_secs: Option<u32>,
}

fn url(server: &TestServer) -> String {
    format!("http://{}/", server.addr)
}

/// Fills the lobby's form and creates the room; returns once the room's page shows it.
async fn create(page: &Page<'_>, f: &Form<'_>) {
    page.wait("document.querySelector('#create')", "the lobby's form")
        .await;
    page.fill("#name", f.name).await;
    page.fill("#rows", &f.rows.to_string()).await;
    page.fill("#cols", &f.cols.to_string()).await;
    match f.eat {
        Some((er, ec)) => {
            page.choose("#variant", "jchomp").await;
            page.fill("#eat-rows", &er.to_string()).await;
            page.fill("#eat-cols", &ec.to_string()).await;
        }
        None => page.choose("#variant", "classic").await,
    }
    page.fill("#players", &(f.others.len() + 1).to_string())
        .await;
    for (r, c) in f.more_poison {
        page.click(&format!(".pick[data-r=\"{r}\"][data-c=\"{c}\"]"))
            .await;
    }
    for (i, spec) in f.others.iter().enumerate() {
        page.choose(&format!("#seat-{}", i + 1), spec).await;
    }
    if f.analysis {
        page.click("#analysis").await;
    }
    if let Some(secs) = f.move_secs {
        page.fill("#move-time", &secs.to_string()).await;
    }
    page.click("#create-room").await;
    page.wait(
        "document.querySelector('.game')?.dataset.status && document.querySelector('#seats .you')",
        "the new room",
    )
    .await;
}

/// The room's state as the page shows it.
async fn shown(page: &Page<'_>) -> Value {
    page.eval(
        "(() => { const g = document.querySelector('.game'); return {
            status: g.dataset.status, moves: +g.dataset.moves,
            mine: document.querySelector('#turn').dataset.mine === 'true',
            turn: document.querySelector('#turn').textContent,
            eaten: [...document.querySelectorAll('.board .cell.eaten')].map(c => [+c.dataset.r, +c.dataset.c]),
            listed: [...document.querySelectorAll('#moves li')].map(li => li.textContent),
        }; })()",
    )
    .await
}

fn eaten_of(v: &Value) -> BTreeSet<(i64, i64)> {
    v["eaten"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_i64().unwrap(), p[1].as_i64().unwrap()))
        .collect()
}

/// The test kit's model at the position the page shows.
async fn model_of(page: &Page<'_>, config: &Config) -> Model {
    let mut m = Model::start(config);
    m.eaten = eaten_of(&shown(page).await);
    m
}

/// Plays one move by clicks on the page whose turn it is: the last selection in board order
/// that does not eat the poison while one is left, else the poison with its second click. Returns once the page
/// has drawn the move.
async fn play_one(page: &Page<'_>, config: &Config) {
    let m = model_of(page, config).await;
    let valid = m.valid();
    // The last safe selection in board order: small bites, long games.
    let safe = valid
        .iter()
        .rev()
        .find(|&&(r, c)| !m.after(r, c).poisoned());
    let &(r, c) = safe.or(valid.first()).expect("a valid selection");
    move_by_clicks(page, r, c, safe.is_none()).await;
}

fn board_of(notation: &str) -> Config {
    jchomp_testkit::board(notation)
}

/// Where the screenshots go: the test's scratch directory (Firefox's in its `firefox/`), or —
/// Chromium's — the README's pictures in `docs/screenshots/` when `JCHOMP_UPDATE_SCREENSHOTS=1`
/// asks for them to be rewritten (so a plain test run leaves the tracked files alone).
fn screenshots(engine: Engine) -> PathBuf {
    if engine == Engine::Firefox {
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots/firefox")
    } else if std::env::var_os("JCHOMP_UPDATE_SCREENSHOTS").is_some_and(|v| v == "1") {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/screenshots")
    } else {
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots")
    }
}

async fn a_whole_game_against_a_bot_by_clicks_survives_a_lost_connection_and_a_reload(
    engine: Engine,
) {
    let server = TestServer::start().await;
    let browser = Browser::launch(engine).await;
    let page = browser.page().await;
    page.goto(&url(&server)).await;
    create(
        &page,
        &Form {
            name: "ada",
            rows: 4,
            cols: 5,
            eat: Some((1, 2)),
            more_poison: &[],
            others: &["random"],
            analysis: false,
            move_secs: None,
        },
    )
    .await;
    let config = board_of("4x5 eat 1x2 poison 0,0");
    let mut mine = 0;
    loop {
        if turn_or_end(&page).await {
            break;
        }
        play_one(&page, &config).await;
        mine += 1;
        if mine == 1 {
            // A lost connection comes back by itself and takes the seat again.
            let opened = reconnected(&page, &server).await;
            page.wait(
                "document.body.dataset.online === 'true' && document.querySelector('#seats li[data-seat=\"0\"] .you') && document.querySelector('#seats li[data-seat=\"0\"] .dot.on')",
                "the seat taken again",
            )
            .await;
            assert_eq!(server.metric("jchomp_connections_total").await, opened + 1);
        }
        if mine == 2 {
            // Reloading mid-game brings the player back to the same seat and position.
            let before = shown(&page).await;
            page.reload().await;
            page.wait(
                "document.querySelector('#seats .you') && document.querySelector('.game').dataset.status",
                "the seat resumed",
            )
            .await;
            let after = shown(&page).await;
            assert!(after["moves"].as_u64() >= before["moves"].as_u64());
            assert!(eaten_of(&after).is_superset(&eaten_of(&before)));
            let seat = page
                .eval("document.querySelector('#seats .you').closest('li').dataset.seat")
                .await;
            assert_eq!(seat, "0");
            // Another window of the same browser takes the seat; this one says so and waits
            // (the two never take it from each other by themselves) until asked to play here.
            let hash = page.eval("location.hash").await;
            let twin = browser.page_in(&page.context).await;
            twin.goto(&format!("{}{}", url(&server), hash.as_str().unwrap()))
                .await;
            twin.wait(
                "document.querySelector('#seats li[data-seat=\"0\"] .you')",
                "the seat in the twin",
            )
            .await;
            page.wait(
                "document.querySelector('#take-back')",
                "the seat taken elsewhere",
            )
            .await;
            page.click("#take-back").await;
            twin.wait(
                "document.querySelector('#take-back')",
                "the seat taken back",
            )
            .await;
            page.wait(
                "document.body.dataset.online === 'true' && document.querySelector('#seats li[data-seat=\"0\"] .you')",
                "the seat here again",
            )
            .await;
        }
    }
    assert!(
        mine >= 2,
        "the game was too short to reload in: {mine} moves"
    );
    // The result names the loser (and it is the stored game's loser), or says it is a tie.
    let mut c = Client::connect(server.addr).await;
    c.send(json!({"type":"list_games"})).await;
    let games = c.expect("games").await;
    let game = &games["games"][0];
    let turn = shown(&page).await["turn"].as_str().unwrap().to_string();
    match game["result"]["loser"].as_u64() {
        Some(loser) => {
            let loser_name = game["seats"][loser as usize].as_str().unwrap();
            assert!(turn.starts_with(&format!("{loser_name} ")), "{turn}");
            assert!(turn.contains("loses"), "{turn}");
        }
        None => {
            assert_eq!(game["result"]["kind"], "tie");
            assert!(turn.starts_with("A tie"), "{turn}");
        }
    }
    // The page links to the stored game by the id the server gives it.
    let link = page
        .eval("document.querySelector('#replay-link:not([hidden])')?.getAttribute('href')")
        .await;
    assert_eq!(
        link.as_str(),
        Some(format!("#/game/{}", game["game"].as_str().unwrap()).as_str()),
        "the replay link"
    );
    // A rematch in the same room: the bot agrees at once, and the new game is played.
    page.click("#rematch").await;
    page.wait(
        "document.querySelector('.game').dataset.status === 'playing' && document.querySelector('.game').dataset.moves === '0' && !document.querySelector('.board .cell.eaten')",
        "the rematch",
    )
    .await;
    page.wait(
        "document.querySelector('#turn').dataset.mine === 'true'",
        "my turn",
    )
    .await;
    assert_eq!(
        page.eval("document.querySelector('#replay-link').hidden")
            .await,
        json!(true),
        "no replay link while the game is played"
    );
    play_one(&page, &config).await;
    browser.assert_no_console_errors();
}

/// Closes the page's connection from the browser's side and waits until the page has opened a
/// new one; returns the count of connections before.
async fn reconnected(page: &Page<'_>, server: &TestServer) -> u64 {
    let opened = server.metric("jchomp_connections_total").await;
    assert_eq!(page.drop_sockets().await, 1);
    let deadline = tokio::time::Instant::now() + web_support::WAIT;
    while server.metric("jchomp_connections_total").await == opened {
        assert!(tokio::time::Instant::now() < deadline, "no new connection");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    opened
}

/// Hovers every cell (and reads what the page marks) and holds it against the model.
async fn preview_matches_the_rules(page: &Page<'_>, config: &Config) {
    let m = model_of(page, config).await;
    assert!(!m.eaten.is_empty(), "the position has eaten cells");
    let (rows, cols) = (i64::from(config.rows()), i64::from(config.cols()));
    let mut refused = [0, 0];
    for r in 0..rows {
        for c in 0..cols {
            page.hover(&cell(r, c)).await;
            let v = page
                .eval(
                    "(() => { const p = document.querySelector('#preview'); const at = (sel) =>
                        [...document.querySelectorAll(sel)].map(c => [+c.dataset.r, +c.dataset.c]);
                      return { kind: p.dataset.kind, reason: p.dataset.reason, text: p.textContent,
                               ok: at('.cell.preview, .cell.preview-poison'), refused: at('.cell.refused') }; })()",
                )
                .await;
            let cells = |key: &str| -> BTreeSet<(i64, i64)> {
                v[key]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| (p[0].as_i64().unwrap(), p[1].as_i64().unwrap()))
                    .collect()
            };
            let at = format!("({r},{c})");
            match m.refusal(r, c) {
                None => {
                    let after = m.after(r, c);
                    let eats: BTreeSet<_> = after.eaten.difference(&m.eaten).copied().collect();
                    assert_eq!(cells("ok"), eats, "{at}: {v}");
                    assert!(cells("refused").is_empty(), "{at}: {v}");
                    let kind = if after.poisoned() { "poison" } else { "ok" };
                    assert_eq!(v["kind"], kind, "{at}: {v}");
                }
                Some(reason) => {
                    assert_eq!(v["kind"], "refused", "{at}: {v}");
                    assert_eq!(v["reason"], reason, "{at}: {v}");
                    let rejection = if reason == "out_of_range" {
                        refused[0] += 1;
                        Rejection::OutOfRange
                    } else {
                        refused[1] += 1;
                        Rejection::AlreadyEaten
                    };
                    // The page's sentence is the server's (the rules crate's), word for word.
                    let words = format!("Refused: {}.", rejection.explain(config, r, c));
                    assert_eq!(v["text"], words.as_str(), "{at}: {v}");
                    assert!(cells("ok").is_empty(), "{at}: {v}");
                    // The part of the selection on the board is marked refused.
                    let covered: BTreeSet<_> = match config.eat() {
                        Some((er, ec)) => (r..r + i64::from(er))
                            .flat_map(|i| (c..c + i64::from(ec)).map(move |j| (i, j)))
                            .filter(|&(i, j)| i < rows && j < cols)
                            .collect(),
                        None => [(r, c)].into(),
                    };
                    assert_eq!(cells("refused"), covered, "{at}: {v}");
                }
            }
        }
    }
    if config.eat().is_some() {
        assert!(
            refused[0] > 0 && refused[1] > 0,
            "both reasons met: {refused:?}"
        );
    } else {
        assert!(refused[1] > 0, "eaten cells met: {refused:?}");
    }
}

/// The board's cells as drawn: rows, columns, and the smallest and largest width and height of
/// a cell in pixels.
async fn drawn_cells(page: &Page<'_>) -> Value {
    page.eval(
        "(() => { const cells = [...document.querySelectorAll('.board .cell')];
            const boxes = cells.map(c => c.getBoundingClientRect());
            const sides = boxes.flatMap(b => [b.width, b.height]);
            return { rows: document.querySelectorAll('.board .row').length,
                     cells: cells.length, least: Math.min(...sides), most: Math.max(...sides) }; })()",
    )
    .await
}

async fn small_classic_bars_are_made_by_the_form_drawn_to_fit_and_played_to_the_end(
    engine: Engine,
) {
    let server = TestServer::start().await;
    let browser = Browser::launch(engine).await;
    // The form's range follows the variant; the poison alone is refused before sending.
    let page = browser.page().await;
    page.goto(&url(&server)).await;
    page.wait("document.querySelector('#create')", "the lobby's form")
        .await;
    assert_eq!(page.eval("document.querySelector('#rows').min").await, "4");
    page.fill("#name", "ada").await;
    page.choose("#variant", "classic").await;
    assert_eq!(page.eval("document.querySelector('#rows').min").await, "1");
    page.fill("#rows", "1").await;
    page.fill("#cols", "1").await;
    page.click("#create-room").await;
    page.wait(
        "document.querySelector('.form-error').textContent.includes('at least 2 cells')",
        "the form's refusal",
    )
    .await;
    assert_eq!(
        page.eval("document.querySelector('.form-error').textContent")
            .await,
        "classic Chomp needs at least 2 cells, got 1×1"
    );
    for (rows, cols) in [(3, 5), (1, 6), (6, 1), (1, 2)] {
        let page = browser.page().await;
        page.goto(&url(&server)).await;
        create(
            &page,
            &Form {
                name: "ada",
                rows,
                cols,
                eat: None,
                more_poison: &[],
                others: &["random"],
                analysis: false,
                move_secs: None,
            },
        )
        .await;
        // Every cell drawn, square, and big enough to click.
        let drawn = drawn_cells(&page).await;
        assert_eq!(drawn["rows"], rows, "{rows}x{cols}: {drawn}");
        assert_eq!(drawn["cells"], rows * cols, "{rows}x{cols}: {drawn}");
        let (least, most) = (
            drawn["least"].as_f64().unwrap(),
            drawn["most"].as_f64().unwrap(),
        );
        assert!(
            least >= 20.0 && most - least < 2.0,
            "{rows}x{cols}: {drawn}"
        );
        let config = board_of(&format!("{rows}x{cols} variant classic poison 0,0"));
        loop {
            if turn_or_end(&page).await {
                break;
            }
            play_one(&page, &config).await;
        }
        if (rows, cols) == (3, 5) {
            bottom_left_names_the_moves(&page, rows).await;
        }
    }
}

/// The bottom-left notation in a finished game: the move list and the hover text name cells
/// from (1,1) at the bottom-left, (row ↑, column →).
async fn bottom_left_names_the_moves(page: &Page<'_>, rows: u32) {
    let wire = listed_moves(page).await;
    page.click("#notation").await;
    page.wait(
        "document.querySelector('.board.flipped')",
        "the flipped board",
    )
    .await;
    let named: Vec<(i64, i64)> = wire
        .iter()
        .map(|&(r, c)| (i64::from(rows) - r, c + 1))
        .collect();
    assert_eq!(listed_moves(page).await, named);
    page.hover(&cell(i64::from(rows) - 1, 0)).await;
    page.wait(
        "document.querySelector('#preview').textContent === 'Refused: the cell (1,1) is already eaten.'",
        "the hover text in the bottom-left notation",
    )
    .await;
}

async fn the_preview_is_exactly_what_the_rules_eat_and_a_refused_cell_says_why(engine: Engine) {
    let server = TestServer::start().await;
    let browser = Browser::launch(engine).await;
    for (notation, eat, more_poison) in [
        (
            "5x6 eat 2x2 poison 0,0 poison 2,4",
            Some((2, 2)),
            &[(2, 4)][..],
        ),
        ("5x5 variant classic poison 0,0", None, &[][..]),
    ] {
        let config = board_of(notation);
        let page = browser.page().await;
        page.goto(&url(&server)).await;
        create(
            &page,
            &Form {
                name: "ada",
                rows: u32::from(config.rows()),
                cols: u32::from(config.cols()),
                eat,
                more_poison,
                others: &[""],
                analysis: false,
                move_secs: None,
            },
        )
        .await;
        let room = page
            .eval("location.hash.split('/')[2]")
            .await
            .as_str()
            .unwrap()
            .to_string();
        let mut bob = Client::connect(server.addr).await;
        bob.join(&room, "bob").await;
        page.wait(
            "document.querySelector('#turn').dataset.mine === 'true'",
            "my turn",
        )
        .await;
        if eat.is_some() {
            // A refused click sends nothing and says why.
            let (last_row, last_col) = (i64::from(config.rows()) - 1, i64::from(config.cols()) - 1);
            page.click(&cell(last_row, last_col)).await;
            page.wait(
                "document.querySelector('#preview').dataset.reason === 'out_of_range'",
                "out of range",
            )
            .await;
            assert_eq!(shown(&page).await["moves"], 0);
        }
        // By keyboard: the cursor moves with the arrows and Enter selects.
        page.eval(&format!(
            "document.querySelector('{}').focus()",
            cell(3, 1).replace('\'', "\\'")
        ))
        .await;
        page.wait(
            "document.activeElement.dataset.r === '3' && document.activeElement.dataset.c === '1'",
            "the focus at (3,1)",
        )
        .await;
        page.key("ArrowRight").await;
        page.wait("document.activeElement.dataset.c === '2' && document.querySelector('#preview').textContent.startsWith('(3,2)')", "the cursor at (3,2)")
            .await;
        page.key("Enter").await;
        page.wait(
            "+document.querySelector('.game').dataset.moves === 1",
            "the move by keyboard",
        )
        .await;
        assert_eq!(shown(&page).await["listed"][0], "ada: (3,2)");
        bob.until("moved").await;
        bob.send(json!({"type":"move","row":0,"col":4})).await;
        page.wait(
            "+document.querySelector('.game').dataset.moves === 2",
            "bob's move",
        )
        .await;
        preview_matches_the_rules(&page, &config).await;
        // Poison asks for a second click.
        page.click(&cell(0, 0)).await;
        page.wait(
            "document.querySelector('#preview').dataset.kind === 'confirm'",
            "the confirmation",
        )
        .await;
        assert_eq!(shown(&page).await["moves"], 2);
        page.click(&cell(0, 0)).await;
        page.wait(
            "document.querySelector('.game').dataset.status === 'finished'",
            "the end",
        )
        .await;
        let turn = shown(&page).await["turn"].as_str().unwrap().to_string();
        assert!(turn.starts_with("ada ate the poison and loses"), "{turn}");
    }
    browser.assert_no_console_errors();
}

/// The engine's exact analysis of the position after `moves`, as the page writes it on cells.
fn engine_notes(
    config: &Config,
    moves: &[(i64, i64)],
) -> BTreeSet<(i64, i64, String, Option<u64>)> {
    let mut p = Position::start(config);
    for &(r, c) in moves {
        p.select(config, r, c).unwrap();
    }
    let mut table = Table::with_megabytes(1);
    let (values, _) = analyze(config, &p, &mut table, None, None).unwrap();
    values
        .iter()
        .map(|v| {
            let (outcome, plies) = v.value.expect("solved");
            let word = match outcome {
                Outcome::Win => "win",
                Outcome::Loss => "loss",
                Outcome::Tie => "tie",
            };
            (
                i64::from(v.cell.row),
                i64::from(v.cell.col),
                word.to_string(),
                plies.map(u64::from),
            )
        })
        .collect()
}

async fn page_notes(page: &Page<'_>) -> BTreeSet<(i64, i64, String, Option<u64>)> {
    let v = page
        .eval(
            "[...document.querySelectorAll('.board .cell[data-value]')].map(c =>
                [+c.dataset.r, +c.dataset.c, c.dataset.value, c.dataset.plies === undefined ? null : +c.dataset.plies])",
        )
        .await;
    v.as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n[0].as_i64().unwrap(),
                n[1].as_i64().unwrap(),
                n[2].as_str().unwrap().to_string(),
                n[3].as_u64(),
            )
        })
        .collect()
}

/// The moves the page lists, as cells.
async fn listed_moves(page: &Page<'_>) -> Vec<(i64, i64)> {
    let v = shown(page).await;
    v["listed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let t = t.as_str().unwrap();
            let inner = t.rsplit('(').next().unwrap().trim_end_matches(')');
            let (r, c) = inner.split_once(',').unwrap();
            (r.parse().unwrap(), c.parse().unwrap())
        })
        .collect()
}

async fn two_people_play_to_the_end_a_spectator_sees_every_move_and_the_replay_steps_through(
    engine: Engine,
) {
    // Exact analyses of these small boards take a while in a debug build: give them time.
    let server = TestServer::start_with(Settings {
        analysis_time: Duration::from_secs(10),
        ..common::settings()
    })
    .await;
    let browser = Browser::launch(engine).await;
    let notation = "5x6 variant classic poison 0,0";
    let config = board_of(notation);
    let ada = browser.page().await;
    ada.goto(&url(&server)).await;
    create(
        &ada,
        &Form {
            name: "ada",
            rows: 5,
            cols: 6,
            eat: None,
            more_poison: &[],
            others: &[""],
            analysis: true,
            move_secs: Some(600),
        },
    )
    .await;
    let room = ada.eval("location.hash.split('/')[2]").await;
    let room = room.as_str().unwrap();
    // Bob joins from the lobby, in a browser context of his own.
    let mut bob = browser.page().await;
    bob.goto(&url(&server)).await;
    let row = format!("#rooms tr[data-room=\"{room}\"]");
    bob.wait(
        &format!("document.querySelector('{row} .join')"),
        "the room listed",
    )
    .await;
    bob.fill("#name", "bob").await;
    bob.click(&format!("{row} .join")).await;
    bob.wait(
        "document.querySelector('.game')?.dataset.status === 'playing'",
        "the game starts",
    )
    .await;
    // A spectator watches from the lobby's link.
    let eve = browser.page().await;
    eve.goto(&url(&server)).await;
    eve.click(&format!("{row} .watch")).await;
    eve.wait(
        "document.querySelector('.game')?.dataset.status === 'playing'",
        "the watched game",
    )
    .await;
    let mut n = 0;
    let mut draws = Vec::new();
    loop {
        let a = shown(&ada).await;
        if a["status"] == "finished" {
            break;
        }
        let mover = if a["mine"] == true { &ada } else { &bob };
        mover
            .wait(
                "document.querySelector('#turn').dataset.mine === 'true'",
                "the mover's turn",
            )
            .await;
        play_one(mover, &config).await;
        n += 1;
        // Everyone sees the move: the same cells eaten and the same list of moves.
        for p in [&ada, &bob, &eve] {
            p.wait(
                &format!("+document.querySelector('.game').dataset.moves === {n}"),
                "the move seen",
            )
            .await;
        }
        let (a, b, e) = (shown(&ada).await, shown(&bob).await, shown(&eve).await);
        assert_eq!(eaten_of(&a), eaten_of(&e));
        assert_eq!(eaten_of(&b), eaten_of(&e));
        assert_eq!(a["listed"], e["listed"]);
        let drawn = eve
            .eval("+document.querySelector('.board').dataset.drawMs")
            .await;
        draws.push(drawn.as_f64().unwrap());
        if n == 2 {
            // The seat to move has its clock; a closed tab shows the grace countdown to the
            // others, and opening the room again in that browser takes the seat back.
            ada.wait(
                "/^\\d+ s$/.test(document.querySelector('#seats li.to-move .clock')?.textContent)",
                "the clock of the seat to move",
            )
            .await;
            let context = bob.context.clone();
            bob.close().await;
            ada.wait(
                "document.querySelector('#seats li[data-seat=\"1\"] .grace')?.textContent.startsWith('loses in')",
                "bob's grace countdown",
            )
            .await;
            bob = browser.page_in(&context).await;
            bob.goto(&format!("{}#/room/{room}", url(&server))).await;
            bob.wait(
                "document.querySelector('#seats li[data-seat=\"1\"] .you')",
                "bob back in his seat",
            )
            .await;
            ada.wait(
                "document.querySelector('#seats li[data-seat=\"1\"] .dot.on')",
                "bob connected again",
            )
            .await;
            // His clock runs again, from the time the server says is left.
            let left = bob
                .eval("document.querySelector('#seats li.to-move .clock').textContent")
                .await;
            assert!(left.as_str().is_some_and(|t| t.ends_with(" s")), "{left}");
        }
        if n == 3 {
            ada.eval("document.querySelector('#annotate').click()")
                .await;
            ada.wait(
                "document.querySelector('.board .cell[data-value]')",
                "annotations",
            )
            .await;
            let moves = listed_moves(&ada).await;
            assert_eq!(page_notes(&ada).await, engine_notes(&config, &moves));
            ada.screenshot(&screenshots(engine).join("game-1280x800.png"))
                .await;
            bob.resize(390, 844, false).await;
            let wide = bob
                .eval(
                    "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
                )
                .await;
            assert!(
                wide[0].as_f64() <= wide[1].as_f64(),
                "nothing wider than a phone: {wide}"
            );
            bob.screenshot(&screenshots(engine).join("game-390x844.png"))
                .await;
        }
    }
    for p in [&ada, &bob, &eve] {
        p.wait(
            "document.querySelector('.game').dataset.status === 'finished'",
            "the end",
        )
        .await;
    }
    let result = shown(&eve).await["turn"].clone();
    assert_eq!(shown(&ada).await["turn"], result);
    assert_eq!(shown(&bob).await["turn"], result);
    // Each peer's move was drawn in the very handler of its `moved` (docs/PERFORMANCE.md has
    // the time it takes).
    assert_eq!(draws.len(), n);
    // The replay, from the lobby's list of finished games.
    let moves = listed_moves(&eve).await;
    eve.click(".back").await;
    eve.wait(
        "document.querySelector('#games a.replay')",
        "the finished game listed",
    )
    .await;
    eve.screenshot(&screenshots(engine).join("lobby-1280x800.png"))
        .await;
    eve.click("#games a.replay").await;
    eve.wait(
        &format!(
            "+document.querySelector('.replay')?.dataset.index === {}",
            moves.len()
        ),
        "the replay at its end",
    )
    .await;
    let mut model = Model::start(&config);
    let mut positions = vec![model.eaten.clone()];
    for &(r, c) in &moves {
        model.select(r, c).unwrap();
        positions.push(model.eaten.clone());
    }
    let at = |i: usize| format!("+document.querySelector('.replay').dataset.index === {i}");
    eve.click("#first").await;
    eve.wait(&at(0), "the first position").await;
    for (i, expected) in positions.iter().enumerate() {
        if i > 0 {
            eve.click("#forward").await;
            eve.wait(&at(i), "one move forward").await;
        }
        assert_eq!(
            &eaten_of(&shown_replay(&eve).await),
            expected,
            "after {i} moves"
        );
    }
    eve.click("#back").await;
    eve.wait(&at(moves.len() - 1), "one move back").await;
    eve.click("#first").await;
    eve.wait(&at(0), "the first position").await;
    // The slider, by keyboard.
    eve.eval("document.querySelector('#slider').focus()").await;
    eve.key("ArrowRight").await;
    eve.wait(&at(1), "the slider's step").await;
    assert_eq!(eaten_of(&shown_replay(&eve).await), positions[1]);
    eve.click("#last").await;
    eve.wait(&at(moves.len()), "the last position").await;
    // Annotations of a stored position equal the engine's.
    eve.click("#back").await;
    eve.wait(&at(moves.len() - 1), "one move back").await;
    eve.click("#annotate").await;
    eve.wait(
        "document.querySelector('.board .cell[data-value]')",
        "annotations",
    )
    .await;
    assert_eq!(
        page_notes(&eve).await,
        engine_notes(&config, &moves[..moves.len() - 1])
    );
    // Firefox ESR 153 cannot emulate the dark scheme over BiDi: its picture stays light.
    let scheme = if eve.dark(true).await {
        "dark"
    } else {
        "light"
    };
    eve.screenshot(&screenshots(engine).join(format!("replay-{scheme}-1280x800.png")))
        .await;
    browser.assert_no_console_errors();
}

async fn shown_replay(page: &Page<'_>) -> Value {
    page.eval(
        "({ eaten: [...document.querySelectorAll('.board .cell.eaten')].map(c => [+c.dataset.r, +c.dataset.c]) })",
    )
    .await
}

/// The analysis board's state: the classic position's row lengths, the best line's step, and
/// whether the shown position's analysis has arrived.
async fn analysis_board(page: &Page<'_>) -> Value {
    page.eval(
        "(() => { const a = document.querySelector('.analysis'); return {
            position: a.dataset.position, step: +a.dataset.step, ready: a.dataset.ready === 'true',
            line: [...document.querySelectorAll('#line li')].map(li => li.textContent) }; })()",
    )
    .await
}

/// Waits until the analysis board shows `position` (row lengths) with its analysis.
async fn analysed(page: &Page<'_>, position: &str) {
    page.wait(
        &format!(
            "document.querySelector('.analysis').dataset.position === '{position}' && document.querySelector('.analysis').dataset.ready === 'true'"
        ),
        &format!("the analysis of {position}"),
    )
    .await;
}

/// The vertical centre of a cell on screen.
async fn cell_y(page: &Page<'_>, r: i64, c: i64) -> f64 {
    let sel = serde_json::to_string(&cell(r, c)).unwrap();
    page.eval(&format!(
        "(() => {{ const b = document.querySelector({sel}).getBoundingClientRect(); return b.y + b.height / 2; }})()"
    ))
    .await
    .as_f64()
    .unwrap()
}

async fn the_analysis_board_sets_positions_up_and_steps_through_the_best_line(engine: Engine) {
    let server = TestServer::start_with(Settings {
        analysis_time: Duration::from_secs(10),
        ..common::settings()
    })
    .await;
    let browser = Browser::launch(engine).await;
    let page = browser.page().await;
    page.goto(&format!("{}#/analysis", url(&server))).await;
    analysed(&page, "[7,7,7,7]").await;
    // A position by its row lengths (Games::Chomp's representation), annotated exactly.
    let config = board_of("3x5 variant classic poison 0,0");
    page.fill("#lengths", "[5,4,3]").await;
    page.click("#set-lengths").await;
    analysed(&page, "[5,4,3]").await;
    assert_eq!(
        page_notes(&page).await,
        engine_notes(&config, &[(1, 4), (2, 3)])
    );
    // A click eats from a cell; a click on an eaten cell gives it (and what it needs) back.
    page.click(&cell(0, 3)).await;
    analysed(&page, "[3,3,3]").await;
    assert_eq!(page_notes(&page).await, engine_notes(&config, &[(0, 3)]));
    page.click(&cell(1, 4)).await;
    analysed(&page, "[5,5,3]").await;
    assert_eq!(page_notes(&page).await, engine_notes(&config, &[(2, 3)]));
    // The best line: each move is the best of its position, so the counts fall by one a move.
    let first = engine_notes(&config, &[(2, 3)]);
    // The quickest win, else the longest loss.
    let wins = first.iter().filter(|n| n.2 == "win").map(|n| n.3.unwrap());
    let losses = first.iter().filter(|n| n.2 == "loss").map(|n| n.3.unwrap());
    let best = wins.min().or(losses.max()).unwrap();
    let mut plies = Vec::new();
    loop {
        let before = analysis_board(&page).await;
        page.click("#line-forward").await;
        let step = before["step"].as_u64().unwrap() + 1;
        let moved = format!(
            "+document.querySelector('.analysis').dataset.step === {step} && document.querySelector('.analysis').dataset.ready === 'true'"
        );
        if before["line"].as_array().unwrap().len() as u64 >= step || plies.last() != Some(&2) {
            page.wait(&moved, "one move along the best line").await;
        } else {
            // The line ends before the poison: forward does nothing there.
            assert_eq!(analysis_board(&page).await["step"], before["step"]);
            break;
        }
        let line = analysis_board(&page).await["line"].clone();
        let last = line[step as usize - 1].as_str().unwrap().to_string();
        plies.push(last.rsplit(' ').next().unwrap().parse::<u64>().unwrap());
    }
    assert_eq!(plies[0], best, "{plies:?}");
    assert!(plies.windows(2).all(|w| w[1] + 1 == w[0]), "{plies:?}");
    page.click("#line-back").await;
    page.wait(
        &format!(
            "+document.querySelector('.analysis').dataset.step === {} && document.querySelector('.analysis').dataset.ready === 'true'",
            plies.len() - 1
        ),
        "one move back",
    )
    .await;
    // The bottom-left notation: the board drawn upside down, cells named from (1,1).
    assert!(cell_y(&page, 0, 0).await < cell_y(&page, 2, 0).await);
    page.click("#notation").await;
    page.wait(
        "document.querySelector('.board.flipped') && document.querySelector('.analysis').dataset.ready === 'true'",
        "the flipped board",
    )
    .await;
    assert!(cell_y(&page, 0, 0).await > cell_y(&page, 2, 0).await);
    page.screenshot(&screenshots(engine).join("analysis-1280x800.png"))
        .await;
    let label = page
        .eval(&format!(
            "document.querySelector('{}').getAttribute('aria-label')",
            cell(0, 0).replace('\'', "\\'")
        ))
        .await;
    assert!(
        label
            .as_str()
            .unwrap()
            .starts_with("cell (3,1): uneaten, poison, loses in 1"),
        "{label}"
    );
    // The choice is kept in the browser.
    page.reload().await;
    page.wait(
        "document.querySelector('#notation').checked && document.querySelector('.board.flipped')",
        "the notation kept",
    )
    .await;
    // A JChomp board: bites placed by clicks, annotated by the server's engine.
    page.choose("#a-variant", "jchomp").await;
    page.fill("#a-rows", "4").await;
    page.fill("#a-cols", "4").await;
    page.click(&cell(3, 2)).await;
    page.click(&cell(0, 2)).await;
    page.wait(
        "document.querySelectorAll('.board .cell.eaten').length === 4 && document.querySelector('.analysis').dataset.ready === 'true'",
        "two bites analysed",
    )
    .await;
    let jchomp = board_of("4x4 eat 1x2 poison 0,0");
    assert_eq!(
        page_notes(&page).await,
        engine_notes(&jchomp, &[(3, 2), (0, 2)])
    );
    assert_eq!(
        page.eval("!!document.querySelector('.board.flipped')")
            .await,
        json!(false),
        "JChomp boards keep the wire's notation"
    );
    browser.assert_no_console_errors();
    // All over the page's one connection, without a room or a stored game, before or after.
    assert_eq!(server.metric("jchomp_connections_open").await, 1);
    no_room_nor_game(&server).await;
    page.close().await;
    let deadline = tokio::time::Instant::now() + web_support::WAIT;
    while server.metric("jchomp_connections_open").await > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the page's connection stays open"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    no_room_nor_game(&server).await;
}

/// Asserts that no room was ever made on `server` and no game stored, and that the lobby's list
/// of rooms and the list of games (asked over a WebSocket of the test's own) are empty.
async fn no_room_nor_game(server: &TestServer) {
    assert_eq!(server.metric("jchomp_rooms_created_total").await, 0);
    assert_eq!(server.metric("jchomp_games_stored_total").await, 0);
    let mut c = Client::connect(server.addr).await;
    c.send(json!({"type":"list_rooms"})).await;
    assert_eq!(c.expect("rooms").await["rooms"], json!([]));
    c.send(json!({"type":"list_games"})).await;
    assert_eq!(c.expect("games").await["games"], json!([]));
}

/// The one board of the rated games here: classic 1×2, the poison and one cell.
const RATED_BAR: &str = "1x2 variant classic poison 0,0";

/// Two accounts of the test's own (`names`, password `password-1`) play `games` rated games of
/// [`RATED_BAR`] against each other over WebSocket, each in turn eating the poison at once, so
/// that neither rating is provisional after enough of them.
async fn rated_games_between(server: &TestServer, names: [&str; 2], games: usize) {
    let mut p = [
        logged_in(server.addr, names[0], true).await,
        logged_in(server.addr, names[1], true).await,
    ];
    for _ in 0..games {
        let [x, y] = &mut p;
        let (room, _) = x.create("x", rated_config_value(RATED_BAR)).await;
        y.join(&room, "y").await;
        x.until("room").await;
        x.send(json!({"type":"move","row":0,"col":0})).await;
        let moved = x.until("moved").await;
        assert_eq!(moved["result"]["loser"], 0, "{moved}");
        y.until("moved").await;
        for c in [x, y] {
            c.send(json!({"type":"leave"})).await;
            c.until("left").await;
        }
        p.swap(0, 1);
    }
}

/// Plays the page's rated game against the bot to its end; returns the stored game's id.
async fn rated_game_to_the_end(page: &Page<'_>) -> String {
    let config = board_of(RATED_BAR);
    while !turn_or_end(page).await {
        play_one(page, &config).await;
    }
    let link = page
        .eval("document.querySelector('#replay-link:not([hidden])').getAttribute('href')")
        .await;
    link.as_str()
        .unwrap()
        .strip_prefix("#/game/")
        .unwrap()
        .to_string()
}

/// A guest sees `host`'s waiting rated room in the lobby, marked rated, with the built-in
/// level's seat tagged as a bot's, and is refused a seat in it in words. Returns the host's
/// connection, which keeps the room open.
async fn a_guest_may_not_sit_in_a_rated_room(
    page: &Page<'_>,
    server: &TestServer,
    host: &str,
) -> Client {
    let mut c = logged_in(server.addr, host, false).await;
    let mut cfg = rated_config_value(RATED_BAR);
    cfg["players"] = json!(3);
    let (room, _) = c.create("x", cfg).await;
    c.send(json!({"type":"add_bot","bot":"level:1"})).await;
    c.until("room").await;
    let row = format!("#rooms tr[data-room=\"{room}\"]");
    page.wait(
        &format!("document.querySelector('{row} .seats-line .tag.bot') && document.querySelector('{row} .join')"),
        "the rated room listed with its bot",
    )
    .await;
    let line = page
        .eval(&format!(
            "[...document.querySelectorAll('{row} td')].map(td => td.textContent)"
        ))
        .await;
    assert!(line[1].as_str().unwrap().ends_with(" · rated"), "{line}");
    assert_eq!(line[2], format!("{host}, level:1 bot, free"), "{line}");
    page.fill("#name", "guest").await;
    page.click(&format!("{row} .join")).await;
    page.wait(
        "document.querySelector('.form-error').textContent.endsWith('only players with accounts may sit; log in or authenticate first')",
        "the seat refused",
    )
    .await;
    c
}

/// As a guest the rated choice is disabled and says why; registering in the account panel: a
/// taken name is refused in words, a free one logs in and the session is kept.
async fn register_in_the_page(page: &Page<'_>, name: &str, taken: &str) {
    page.wait(
        "document.querySelector('#rated')?.disabled && document.querySelector('#rated-why').textContent.includes('need an account')",
        "the rated choice disabled",
    )
    .await;
    page.click("#to-account").await;
    page.fill("#acct-name", taken).await;
    page.fill("#acct-password", "correct horse").await;
    page.click("#register").await;
    page.wait(
        &format!(
            "document.querySelector('#account-msg').textContent === 'the name \"{taken}\" is taken'"
        ),
        "the taken name refused",
    )
    .await;
    page.fill("#acct-name", name).await;
    page.click("#register").await;
    page.wait(
        &format!("document.querySelector('#account-state') && document.querySelector('#to-account').textContent === '{name}'"),
        "registered",
    )
    .await;
    let token = page
        .eval("JSON.parse(localStorage.getItem('jchomp.session')).token")
        .await;
    assert!(token.as_str().is_some_and(|t| t.len() >= 16), "{token}");
}

/// Creates a rated room of [`RATED_BAR`] against the built-in level 1 from the lobby and plays
/// `games` games in it (the first, then rematches); returns the stored games' ids.
async fn rated_games_against_level_1(page: &Page<'_>, player: &str, games: usize) -> Vec<String> {
    page.wait(
        "document.querySelector('#rated') && !document.querySelector('#rated').disabled",
        "the rated choice",
    )
    .await;
    page.click("#rated").await;
    let form = Form {
        name: "typed",
        rows: 1,
        cols: 2,
        eat: None,
        more_poison: &[],
        others: &["level:1"],
        analysis: false,
        move_secs: None,
    };
    create(page, &form).await;
    let info = page
        .eval("document.querySelector('.game .info').textContent")
        .await;
    assert!(info.as_str().unwrap().ends_with(" · rated"), "{info}");
    // The seats go by their accounts' names, link to their profiles, and the bot is marked.
    page.wait(
        "document.querySelector('#seats li[data-seat=\"1\"] a.player')",
        "the bot seated",
    )
    .await;
    let seats = page
        .eval("[...document.querySelectorAll('#seats li')].map(li => [li.querySelector('a.player')?.textContent, !!li.querySelector('.tag.bot')])")
        .await;
    assert_eq!(seats, json!([[player, false], ["level:1", true]]));
    let mut ids = vec![rated_game_to_the_end(page).await];
    while ids.len() < games {
        page.click("#rematch").await;
        let last = ids.last().unwrap();
        page.wait(
            &format!(
                "document.querySelector('#replay-link').getAttribute('href') !== '#/game/{last}'"
            ),
            "the rematch",
        )
        .await;
        ids.push(rated_game_to_the_end(page).await);
    }
    // The stored game marks the bot's seat too: in its replay and in the lobby's list.
    let first = &ids[0];
    page.eval(&format!("location.hash = '#/game/{first}'"))
        .await;
    page.wait(
        "[...document.querySelectorAll('.replay .info .tag.bot')].length === 1",
        "the bot tagged in the replay",
    )
    .await;
    page.eval("location.hash = '#/'").await;
    page.wait(
        &format!(
            "document.querySelectorAll('#games tr[data-game=\"{first}\"] .tag.bot').length === 1"
        ),
        "the bot tagged in the finished games",
    )
    .await;
    ids
}

/// Every session of `name` ended elsewhere: the page's token is refused when it connects
/// again, and it says so and forgets it.
async fn a_session_ended_elsewhere_is_dropped(page: &Page<'_>, server: &TestServer, name: &str) {
    let mut c = Client::connect(server.addr).await;
    c.send(json!({"type":"login","name":name,"password":"correct horse"}))
        .await;
    c.expect("account").await;
    c.send(json!({"type":"logout","everywhere":true})).await;
    c.expect("logged_out").await;
    page.reload().await;
    page.wait(
        &format!("document.querySelector('#notice').textContent.includes('Your session has ended') && {GUEST}"),
        "the revoked session dropped",
    )
    .await;
}

/// The page is a guest: no session kept, *Log in* at the top.
const GUEST: &str = "document.querySelector('#to-account').textContent === 'Log in' && localStorage.getItem('jchomp.session') === null";

/// Logs in from the account panel.
async fn log_in(page: &Page<'_>, name: &str, password: &str) {
    page.click("#to-account").await;
    page.fill("#acct-name", &name.to_lowercase()).await;
    page.fill("#acct-password", password).await;
    page.click("#login").await;
    page.wait(
        &format!("document.querySelector('#to-account').textContent === '{name}' && document.querySelector('#logout') && document.querySelector('#notice').hidden"),
        "logged in, and no notice of an ended session left",
    )
    .await;
}

/// The account panel's other requests: a bot account whose token (shown once) authenticates,
/// a new password (the kept session replaced), logging out, and deleting the account.
async fn the_panel_manages_the_account(page: &Page<'_>, server: &TestServer, name: &str) {
    log_in(page, name, "correct horse").await;
    page.fill("#bot-name", &format!("{name}Bot")).await;
    page.click("#create-bot").await;
    page.wait("document.querySelector('#bot-token')", "the bot's token")
        .await;
    let token = page
        .eval("document.querySelector('#bot-token').textContent")
        .await;
    let mut bot = Client::connect(server.addr).await;
    bot.send(json!({"type":"authenticate","token":token})).await;
    let a = bot.expect("account").await;
    assert_eq!(
        (a["name"].as_str(), a["bot"].as_bool()),
        (Some(format!("{name}Bot").as_str()), Some(true)),
        "{a}"
    );
    let session = "JSON.parse(localStorage.getItem('jchomp.session')).token";
    let before = page.eval(session).await;
    page.fill("#old-password", "correct horse").await;
    page.fill("#new-password", "battery staple").await;
    page.click("#change-password").await;
    page.wait(
        "document.querySelector('#account-msg').textContent === 'Password changed: your other sessions have ended.'",
        "the password changed",
    )
    .await;
    assert_ne!(page.eval(session).await, before);
    page.click("#logout").await;
    page.wait(
        &format!("document.querySelector('#account-msg').textContent === 'Logged out.' && {GUEST}"),
        "logged out",
    )
    .await;
    log_in(page, name, "battery staple").await;
    // The page asks before deleting; the test answers yes.
    page.eval("window.confirm = () => true").await;
    page.fill("#delete-password", "battery staple").await;
    page.click("#delete-account").await;
    page.wait(
        &format!(
            "document.querySelector('#account-msg').textContent === 'Account deleted.' && {GUEST}"
        ),
        "the account deleted",
    )
    .await;
    assert_eq!(
        api(server, &format!("/api/players/{name}")).await["deleted"],
        true
    );
}

async fn an_account_plays_rated_games_and_its_profile_and_the_leaderboard_show_them(
    engine: Engine,
) {
    let server = TestServer::start().await;
    // Two people of the test's own whose classic ratings are settled.
    rated_games_between(&server, ["Cyd", "Dot"], 20).await;
    let browser = Browser::launch(engine).await;
    let page = browser.page().await;
    page.goto(&url(&server)).await;
    let _host = a_guest_may_not_sit_in_a_rated_room(&page, &server, "Cyd").await;
    register_in_the_page(&page, "Ada", "cyd").await;
    // A new connection acts as the account again (else the rated room would be refused).
    page.click(".account a.back").await;
    reconnected(&page, &server).await;
    let games = rated_games_against_level_1(&page, "Ada", 3).await;
    // Ada's profile: one point per rated game, the numbers of the API.
    let ada = profile_matches_the_api(&page, &server, "Ada").await;
    let classic = &ada["ratings"][0];
    let rated: Vec<_> = classic["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["game"].as_str().unwrap())
        .collect();
    assert_eq!(
        (
            classic["category"].as_str(),
            classic["provisional"].as_bool(),
            rated
        ),
        (
            Some("classic:2"),
            Some(true),
            games.iter().map(String::as_str).collect()
        ),
        "{ada}"
    );
    assert_eq!(
        profile_matches_the_api(&page, &server, "level:1").await["bot"],
        true
    );
    let cyd = profile_matches_the_api(&page, &server, "Cyd").await;
    assert_eq!(cyd["ratings"][0]["history"].as_array().unwrap().len(), 20);
    // A recent game links to its replay.
    page.click("#recent a").await;
    page.wait(
        "document.querySelector('.replay[data-index]')",
        "the replay",
    )
    .await;
    // The leaderboards: settled people only (Ada is provisional), bots apart (level 1 is
    // provisional too).
    let people = leaderboard_matches_the_api(&page, &server, "classic:2", false).await;
    let mut sorted = people.clone();
    sorted.sort();
    assert_eq!(sorted, ["Cyd", "Dot"]);
    let bots = leaderboard_matches_the_api(&page, &server, "classic:2", true).await;
    assert!(bots.is_empty(), "{bots:?}");
    let other = leaderboard_matches_the_api(&page, &server, "jchomp:2", false).await;
    assert!(other.is_empty(), "{other:?}");
    // A name links to its profile.
    leaderboard_matches_the_api(&page, &server, "classic:2", false).await;
    page.click("#board a.player").await;
    page.wait(
        &format!(
            "document.querySelector('.profile')?.dataset.player === '{}'",
            people[0]
        ),
        "the leader's profile",
    )
    .await;
    a_session_ended_elsewhere_is_dropped(&page, &server, "Ada").await;
    the_panel_manages_the_account(&page, &server, "Ada").await;
    browser.assert_no_console_errors();
}

/// Quick pairing from the lobby: the tiles are the server's presets with their pools' counts; a
/// wait shows the preset, the rating, the count and the seconds, and Cancel ends it; a page
/// paired with a person (a connection of the test's own) plays in the same room and resumes
/// its seat after a reload; seeking again while that game is in play is refused in words; a
/// page that allows bots is seated with three of them after the patience.
async fn play_now_tiles_wait_cancel_and_pair_a_page_with_a_person_or_with_bots(engine: Engine) {
    let server = TestServer::start_with(Settings {
        pairing_wave: Duration::from_millis(100),
        pairing_bot_patience: Duration::from_secs(1),
        ..common::settings()
    })
    .await;
    let browser = Browser::launch(engine).await;
    let ada = browser.page().await;
    ada.goto(&url(&server)).await;
    // Someone of the test's own waits for `three`: the tile counts them at the next refresh.
    let mut zed = server.client().await;
    zed.send(json!({"type":"seek","preset":"three","name":"zed"}))
        .await;
    zed.expect("seeking").await;
    tiles_match_the_presets(&ada, &server, "three", 1).await;

    // A wait, and Cancel.
    ada.fill("#name", "ada").await;
    let said = seek_in_the_page(&ada, "blitz").await;
    assert_eq!(
        said,
        "Waiting for blitz (JChomp, 2 players, 6×6, eat 1×1, 10 s a move), paired by rating 1500, 1 waiting."
    );
    ada.wait(
        "/^[1-9][0-9]* s waited$/.test(document.querySelector('#seek-clock').textContent)",
        "the seconds waited",
    )
    .await;
    cancel_in_the_page(&ada, &server, "blitz", 0).await;

    // Paired with a person: both in one room, the page playing in it with its seat kept.
    seek_in_the_page(&ada, "duel").await;
    let mut bob = server.client().await;
    bob.send(json!({"type":"seek","preset":"duel","name":"bob"}))
        .await;
    assert_eq!(bob.expect("seeking").await["waiting"], 2);
    let paired = bob.expect("paired").await;
    let joined = bob.expect("joined").await;
    let (room, seats) = seated_by_pairing(&ada).await;
    assert_eq!(paired["room"], room.as_str());
    let mut want = vec![json!({"name": "ada", "bot": false, "you": true}); 2];
    want[joined["seat"].as_u64().unwrap() as usize] =
        json!({"name": "bob", "bot": false, "you": false});
    assert_eq!(seats, json!(want));
    let kept = ada
        .eval("JSON.parse(localStorage.getItem('jchomp.seat')).room")
        .await;
    assert_eq!(kept, room.as_str());
    ada.reload().await;
    assert_eq!(seated_by_pairing(&ada).await.0, room);
    // Back in the lobby with that game in play, a seek is refused in words.
    ada.eval("location.hash = '#/'").await;
    ada.click("#presets .tile[data-preset=\"duel\"]").await;
    ada.wait(
        &format!("document.querySelector('#play-error').textContent.startsWith('you hold seat {} in room {room}, whose game is not over')", 1 - joined["seat"].as_u64().unwrap()),
        "the seek refused",
    )
    .await;

    // A guest who allows bots: after the patience, three bots take the other seats.
    let cy = browser.page().await;
    cy.goto(&url(&server)).await;
    cy.fill("#name", "cy").await;
    cy.click("#seek-bots").await;
    seek_in_the_page(&cy, "four").await;
    let (_, seats) = seated_by_pairing(&cy).await;
    let seats = seats.as_array().unwrap();
    let bots = seats.iter().filter(|s| s["bot"] == true).count();
    let me: Vec<_> = seats.iter().filter(|s| s["you"] == true).collect();
    assert_eq!((seats.len(), bots), (4, 3), "{seats:?}");
    assert_eq!(me, [&json!({"name": "cy", "bot": false, "you": true})]);
    browser.assert_no_console_errors();
}
