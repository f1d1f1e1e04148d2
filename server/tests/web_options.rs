//! The web client under the rule options, every scenario in Chromium and in Firefox against the
//! real server: for normal play, the ban on square bites and edge breaks, a room made by the
//! lobby's form with the option, the rules in force stated on the game page, the preview of
//! every cell on each of the page's turns held against the rules crate (what it eats and whether
//! poison is among it, or the refusal's reason, sentence and cells), a game played to its end
//! against a bot and the result line held against the moves replayed through the rules; and the
//! form's note on a combination the server refuses, then the server's refusal shown as it is.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod web_support;

use common::TestServer;
use jchomp_protocol::rules::{
    Bits, Cell, Config, GameResult, Options, Play, Position, Rejection, Setup, Variant,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use web_support::room::{cell, move_by_clicks, turn_or_end};
use web_support::{Browser, Engine, Page, in_both_browsers};

in_both_browsers!(
    normal_play_is_previewed_played_and_won_by_eating_a_marked_cell,
    square_bites_are_refused_in_the_form_and_in_the_preview,
    edge_breaks_are_previewed_piece_by_piece_and_played_to_the_end,
);

/// The board a scenario plays, in the rules' one-line notation.
fn config_of(notation: &str) -> Config {
    jchomp_testkit::board(notation)
}

/// Opens the lobby and waits for its form.
async fn open_the_lobby(page: &Page<'_>, server: &TestServer) {
    page.goto(&format!("http://{}/", server.addr)).await;
    page.wait("document.querySelector('#create')", "the lobby's form")
        .await;
}

/// Fills the lobby's form for `config` against `bot` and creates the room; returns once the
/// room's page shows it.
async fn create_through_the_form(page: &Page<'_>, config: &Config, bot: &str) {
    page.fill("#name", "ada").await;
    page.choose("#variant", config.variant().name()).await;
    page.fill("#rows", &config.rows().to_string()).await;
    page.fill("#cols", &config.cols().to_string()).await;
    if let Some((er, ec)) = config.eat() {
        page.fill("#eat-rows", &er.to_string()).await;
        page.fill("#eat-cols", &ec.to_string()).await;
    }
    // Leaving the size fields (whose change redraws the small board) before placing poison.
    page.fill("#players", "2").await;
    // The form starts with poison at (0,0): edge breaks move it, the others add cells to it.
    for p in config.poison() {
        if config.variant() == Variant::Breaks || (p.row, p.col) != (0, 0) {
            page.click(&format!(
                ".pick[data-r=\"{}\"][data-c=\"{}\"]",
                p.row, p.col
            ))
            .await;
        }
    }
    page.choose("#play-rule", config.play().name()).await;
    if config.no_square_bites() {
        page.click("#no-square-bites").await;
    }
    page.choose("#seat-1", bot).await;
    page.click("#create-room").await;
    page.wait(
        "document.querySelector('.game')?.dataset.status && document.querySelector('#seats .you')",
        "the new room",
    )
    .await;
    let poison = page
        .eval("[...document.querySelectorAll('.board .cell.poison')].map(c => [+c.dataset.r, +c.dataset.c])")
        .await;
    let asked: Vec<[u8; 2]> = config.poison().iter().map(|p| [p.row, p.col]).collect();
    assert_eq!(poison, serde_json::json!(asked), "the room's poison cells");
}

/// The page's position: its eaten cells, as the rules' position with the page to move.
async fn position_shown(page: &Page<'_>, config: &Config) -> Position {
    let eaten = page
        .eval("[...document.querySelectorAll('.board .cell.eaten')].map(c => [+c.dataset.r, +c.dataset.c])")
        .await;
    let eaten = eaten
        .as_array()
        .unwrap()
        .iter()
        .fold(Bits::EMPTY, |set, p| {
            let (r, c) = (p[0].as_u64().unwrap(), p[1].as_u64().unwrap());
            set | Bits::single(Bits::index(r as u8, c as u8))
        });
    Position::from_uneaten(config, config.board().without(eaten), 0)
}

/// Cells as (row, column) pairs.
fn pairs(cells: Bits) -> BTreeSet<(i64, i64)> {
    cells
        .iter()
        .map(|i| {
            let at = Cell::from_index(i);
            (i64::from(at.row), i64::from(at.col))
        })
        .collect()
}

/// What the page shows while (r, c) is hovered: the sentence, its kind and reason, and the
/// cells marked as eaten and as refused.
async fn hovered(page: &Page<'_>, r: i64, c: i64) -> Value {
    page.hover(&cell(r, c)).await;
    page.eval(
        "(() => { const p = document.querySelector('#preview'); const at = (sel) =>
            [...document.querySelectorAll(sel)].map(c => [+c.dataset.r, +c.dataset.c]);
          return { kind: p.dataset.kind, reason: p.dataset.reason, text: p.textContent,
                   ok: at('.cell.preview, .cell.preview-poison'), refused: at('.cell.refused') }; })()",
    )
    .await
}

fn marked(v: &Value, key: &str) -> BTreeSet<(i64, i64)> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_i64().unwrap(), p[1].as_i64().unwrap()))
        .collect()
}

/// The cells a refused selection at (r, c) covers on the board: a JChomp rectangle's cells on
/// the board; the square a square bite would eat; else the cell named.
fn refused_cells(config: &Config, pos: &Position, r: i64, c: i64, why: Rejection) -> Bits {
    let (rows, cols) = (i64::from(config.rows()), i64::from(config.cols()));
    let cell = Cell::new(r as u8, c as u8);
    match (config.eat(), why) {
        (Some((er, ec)), _) => (r..(r + i64::from(er)).min(rows))
            .flat_map(|i| (c..(c + i64::from(ec)).min(cols)).map(move |j| (i, j)))
            .fold(Bits::EMPTY, |set, (i, j)| {
                set | Bits::single(Bits::index(i as u8, j as u8))
            }),
        (None, Rejection::SquareBite) => config.rect(cell) & pos.uneaten(),
        (None, _) => Bits::single(cell.index()),
    }
}

/// The page's sentence for a selection at (r, c) that eats `eats`.
fn eats_sentence(config: &Config, r: i64, c: i64, eats: Bits) -> String {
    let n = eats.count();
    let plural = if n == 1 { "" } else { "s" };
    let end = match (eats.intersects(config.poison_mask()), config.play()) {
        (false, _) => ".",
        (true, Play::Misere) => " including the poison: whoever takes it loses.",
        (true, Play::Normal) => " including a marked cell: whoever takes it wins.",
    };
    format!("({r},{c}) eats {n} cell{plural}{end}")
}

/// Fails unless the previews met each of `kinds`.
fn met_each(met: &BTreeMap<String, usize>, kinds: &[&str]) {
    for kind in kinds {
        assert!(
            met.get(*kind).is_some_and(|&n| n > 0),
            "no {kind} preview met: {met:?}"
        );
    }
}

/// Hovers every cell and holds what the page shows against the rules crate; counts each kind
/// of preview met (`ok`, `poison`, and each refusal's reason) into `met`.
async fn preview_matches_the_rules(
    page: &Page<'_>,
    config: &Config,
    met: &mut BTreeMap<String, usize>,
) {
    let pos = position_shown(page, config).await;
    for r in 0..i64::from(config.rows()) {
        for c in 0..i64::from(config.cols()) {
            let v = hovered(page, r, c).await;
            let at = format!("({r},{c}): {v}");
            match pos.check(config, r, c) {
                Ok(cell) => {
                    let eats = config.rect(cell) & pos.uneaten();
                    let poison = eats.intersects(config.poison_mask());
                    assert_eq!(marked(&v, "ok"), pairs(eats), "{at}");
                    assert!(marked(&v, "refused").is_empty(), "{at}");
                    assert_eq!(v["kind"], if poison { "poison" } else { "ok" }, "{at}");
                    assert_eq!(
                        v["text"],
                        eats_sentence(config, r, c, eats).as_str(),
                        "{at}"
                    );
                    *met.entry(v["kind"].as_str().unwrap().to_owned())
                        .or_default() += 1;
                }
                Err(why) => {
                    assert_eq!(v["kind"], "refused", "{at}");
                    assert_eq!(v["reason"], why.code(), "{at}");
                    // The page's sentence is the server's (the rules crate's), word for word.
                    let words = format!("Refused: {}.", why.explain(config, r, c));
                    assert_eq!(v["text"], words.as_str(), "{at}");
                    assert!(marked(&v, "ok").is_empty(), "{at}");
                    let covered = refused_cells(config, &pos, r, c, why);
                    assert_eq!(marked(&v, "refused"), pairs(covered), "{at}");
                    *met.entry(why.code().to_owned()).or_default() += 1;
                }
            }
        }
    }
}

/// Plays one move by clicks: in normal play from the page's second move on a selection that
/// eats a marked cell (it wins); otherwise the last selection in board order that eats no
/// poison, or, when each does, the first with its second click (misère). Returns once the
/// page has drawn the move.
async fn play_one(page: &Page<'_>, config: &Config, moved_before: bool) {
    let pos = position_shown(page, config).await;
    let selections = pos.selections();
    let safe = selections.without(config.poison_zone());
    let winning = selections.without(safe);
    let normal = config.play() == Play::Normal;
    let pick = if normal && moved_before && !winning.is_empty() {
        winning.first()
    } else {
        safe.iter().last().or(selections.first())
    };
    let at = Cell::from_index(pick.expect("a valid selection"));
    let (r, c) = (i64::from(at.row), i64::from(at.col));
    move_by_clicks(page, r, c, safe.is_empty() && !normal).await;
}

/// The moves the page lists, as (row, column).
async fn listed_moves(page: &Page<'_>) -> Vec<(i64, i64)> {
    let listed = page
        .eval("[...document.querySelectorAll('#moves li')].map(li => li.textContent)")
        .await;
    listed
        .as_array()
        .unwrap()
        .iter()
        .map(|li| {
            let text = li.as_str().unwrap();
            let (r, c) = text[text.find('(').unwrap() + 1..text.len() - 1]
                .split_once(',')
                .unwrap();
            (r.parse().unwrap(), c.parse().unwrap())
        })
        .collect()
}

/// The result line the page should show for `result` between ada (seat 0) and `bot`.
fn result_line(result: GameResult, bot: &str) -> String {
    let names = ["ada", bot];
    match result {
        GameResult::Poisoned { loser } => format!(
            "{} ate the poison and loses; {} wins.",
            names[loser as usize],
            names[1 - loser as usize]
        ),
        GameResult::Won { winner } => format!(
            "{} ate a marked cell and wins; {} loses.",
            names[winner as usize],
            names[1 - winner as usize]
        ),
        GameResult::Tie => "A tie: no valid selection is left.".to_owned(),
        other => panic!("no game between the page and a bot ends so: {other:?}"),
    }
}

/// Creates the room for `config` against `bot`, checks the rules line for `rules` (phrases the
/// game page states), previews every cell on each of the page's turns, plays to the end and
/// holds the result line against the moves replayed through the rules. Returns the previews
/// met by kind.
async fn play_to_the_end(
    page: &Page<'_>,
    config: &Config,
    bot: &str,
    rules: &[&str],
) -> BTreeMap<String, usize> {
    create_through_the_form(page, config, bot).await;
    let stated = page
        .eval("document.querySelector('#rules').textContent")
        .await;
    for phrase in rules {
        assert!(
            stated.as_str().unwrap().contains(phrase),
            "{phrase}: {stated}"
        );
    }
    let mut met = BTreeMap::new();
    let mut moved = false;
    while !turn_or_end(page).await {
        preview_matches_the_rules(page, config, &mut met).await;
        play_one(page, config, moved).await;
        moved = true;
    }
    let mut replayed = Position::start(config);
    for (r, c) in listed_moves(page).await {
        replayed.select(config, r, c).unwrap();
    }
    assert_eq!(
        position_shown(page, config).await.uneaten(),
        replayed.uneaten()
    );
    let result = replayed.result().expect("the replayed game is over");
    let turn = page
        .eval("document.querySelector('#turn').textContent")
        .await;
    assert_eq!(turn, result_line(result, bot).as_str());
    met
}

async fn normal_play_is_previewed_played_and_won_by_eating_a_marked_cell(engine: Engine) {
    let server = TestServer::start().await;
    let browser = Browser::launch(engine).await;
    let page = browser.page().await;
    open_the_lobby(&page, &server).await;
    // The note says what normal play with square bites allowed means before the room is made.
    page.choose("#play-rule", "normal").await;
    let note = page
        .eval("document.querySelector('#options-note').textContent")
        .await;
    assert!(
        note.as_str()
            .unwrap()
            .contains("the first seat can eat one at once"),
        "{note}"
    );
    let config = config_of("5x6 eat 1x2 poison 0,0 poison 3,4 play normal");
    let met = play_to_the_end(
        &page,
        &config,
        "random",
        &["Normal play", "whoever eats one wins"],
    )
    .await;
    met_each(&met, &["poison", "ok", "out_of_range"]);
    let info = page
        .eval("document.querySelector('.info').textContent")
        .await;
    assert!(info.as_str().unwrap().contains("normal play"), "{info}");
    browser.assert_no_console_errors();
}

async fn square_bites_are_refused_in_the_form_and_in_the_preview(engine: Engine) {
    let server = TestServer::start().await;
    let browser = Browser::launch(engine).await;
    let page = browser.page().await;
    open_the_lobby(&page, &server).await;
    // A square eat size with square bites banned: the note says the server refuses it, and the
    // server's own sentence is shown when it does.
    page.fill("#name", "ada").await;
    page.fill("#eat-rows", "2").await;
    page.fill("#eat-cols", "2").await;
    page.click("#no-square-bites").await;
    page.wait(
        "document.querySelector('#options-note').dataset.refused === 'true'",
        "the note on a square eat size",
    )
    .await;
    page.click("#create-room").await;
    let setup = Setup {
        eat: Some([2, 2]),
        options: Options {
            play: Play::Misere,
            no_square_bites: true,
        },
        ..config_of("6x7 eat 2x2 poison 0,0").to_setup()
    };
    let refusal = Config::new(&setup).unwrap_err().to_string();
    page.wait(
        "document.querySelector('.form-error').textContent !== ''",
        "the server's refusal",
    )
    .await;
    let shown = page
        .eval("document.querySelector('.form-error').textContent")
        .await;
    assert_eq!(shown, refusal.as_str());
    page.click("#no-square-bites").await;
    let config = config_of("4x5 variant classic poison 0,0 no_square_bites");
    let met = play_to_the_end(&page, &config, "level:1", &["Square bites", "are banned"]).await;
    met_each(&met, &["square_bite", "already_eaten", "ok"]);
    browser.assert_no_console_errors();
}

async fn edge_breaks_are_previewed_piece_by_piece_and_played_to_the_end(engine: Engine) {
    let server = TestServer::start().await;
    let browser = Browser::launch(engine).await;
    let page = browser.page().await;
    open_the_lobby(&page, &server).await;
    let config = config_of("5x6 variant breaks poison 2,3");
    let met = play_to_the_end(
        &page,
        &config,
        "level:1",
        &["Edge breaks", "whoever eats the poison loses"],
    )
    .await;
    met_each(&met, &["not_a_break", "already_eaten", "ok", "poison"]);
    let info = page
        .eval("document.querySelector('.info').textContent")
        .await;
    assert!(info.as_str().unwrap().contains("5×6 edge breaks"), "{info}");
    browser.assert_no_console_errors();
}
