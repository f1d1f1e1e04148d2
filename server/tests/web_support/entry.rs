//! Entering a tournament the server runs from the web client, as the browser tests drive it:
//! the create form's entry and start fields, a page's games played by clicks to their end
//! (each move eating one cell), and joining again from a new page while the old connection
//! may still be there.

use super::Page;
use super::room::cell;
use std::time::Duration;

/// When a tournament made by [`create`] starts.
pub enum Start {
    /// At once, with the levels ticked.
    Now,
    /// This many milliseconds after the form is sent, at a local date and time.
    In(u64),
    /// When this many have entered.
    Joined(u32),
}

/// A tournament as the create form is filled: its name, who may enter, its start and the
/// built-in levels left ticked (among the four ticked at first).
pub struct Form<'a> {
    pub name: &'a str,
    pub entry: &'a str,
    pub start: Start,
    pub levels: &'a [&'a str],
}

/// The levels the form ticks at first.
const TICKED: [&str; 4] = ["random", "greedy", "level:1", "level:2"];

/// From the tournaments' list with its form open: a round robin of two-player games on a 4×4
/// board eating one cell a move, as `form` says; returns its id once its page shows it.
pub async fn create(page: &Page<'_>, form: &Form<'_>) -> String {
    page.fill("#t-name", form.name).await;
    page.choose("#t-format", "round_robin").await;
    for (input, value) in [
        ("#rows", "4"),
        ("#cols", "4"),
        ("#eat-rows", "1"),
        ("#eat-cols", "1"),
        ("#players", "2"),
    ] {
        page.fill(input, value).await;
    }
    page.choose("#t-entry", form.entry).await;
    if form.entry == "people" {
        page.wait(
            "document.querySelector('#t-bots').hidden",
            "no levels for people",
        )
        .await;
    } else {
        for level in TICKED.iter().filter(|l| !form.levels.contains(l)) {
            page.click(&format!("#t-bot-{}", level.replace(':', "-")))
                .await;
        }
    }
    match form.start {
        Start::Now => page.choose("#t-start", "now").await,
        Start::Joined(n) => {
            page.choose("#t-start", "joined").await;
            page.fill("#t-joined", &n.to_string()).await;
        }
        // Last, just before the form is sent: the time is in the browser's own zone.
        Start::In(ms) => {
            page.choose("#t-start", "at").await;
            page.eval(&format!(
                "(() => {{ const at = Date.now() + {ms}, i = document.querySelector('#t-at');
                   i.value = new Date(at - new Date(at).getTimezoneOffset() * 60000).toISOString().slice(0, 19);
                   i.dispatchEvent(new Event('change', {{bubbles: true}})); }})()"
            ))
            .await;
        }
    }
    submit(
        page,
        "document.querySelector('.tournament')?.dataset.status",
    )
    .await
}

/// Submits the filled tournament form; the new tournament's id once its page shows `drawn` (a
/// condition in the page).
pub async fn submit(page: &Page<'_>, drawn: &str) -> String {
    page.click("#create-tournament").await;
    page.wait(
        &format!("location.hash.startsWith('#/tournaments/') && {drawn}"),
        "the new tournament's page",
    )
    .await;
    let hash = page.eval("location.hash").await;
    hash.as_str()
        .unwrap()
        .strip_prefix("#/tournaments/")
        .unwrap()
        .to_string()
}

/// The room the page shows, once it shows one (`#/room/ID`, drawn by that room's view).
pub async fn room_shown(page: &Page<'_>) -> String {
    page.wait(
        "location.hash.startsWith('#/room/') && document.querySelector('.game')?.dataset.status && document.querySelector('.game h2 code').textContent === decodeURIComponent(location.hash.slice(7))",
        "a room",
    )
    .await;
    let hash = page.eval("location.hash").await;
    hash.as_str()
        .unwrap()
        .strip_prefix("#/room/")
        .unwrap()
        .to_string()
}

/// The page shows `room`, as a condition in the page.
fn in_room(room: &str) -> String {
    format!("location.hash === '#/room/{room}'")
}

/// One move by clicks in `room` once it is the page's turn: a cell that is not poison while
/// one is left, else the poison (with its second click). False once the game is over, or
/// the page was taken to the tournament's next game (which may follow the end at once).
pub async fn play_one(page: &Page<'_>, room: &str) -> bool {
    let here = in_room(room);
    page.wait(
        &format!("!({here}) || document.querySelector('.game').dataset.status === 'finished' || document.querySelector('#turn').dataset.mine === 'true'"),
        "the page's turn, the end or the next game",
    )
    .await;
    let moves = page
        .eval(&format!(
            "({here}) && document.querySelector('.game').dataset.status === 'playing' ? +document.querySelector('.game').dataset.moves : -1"
        ))
        .await;
    let Some(before) = moves.as_i64().filter(|&m| m >= 0) else {
        return false;
    };
    let pick = page
        .eval(
            "(() => { const c = document.querySelector('.board .cell:not(.eaten):not(.poison)') ?? document.querySelector('.board .cell.poison:not(.eaten)');
              return [+c.dataset.r, +c.dataset.c, c.classList.contains('poison')]; })()",
        )
        .await;
    let at = cell(pick[0].as_i64().unwrap(), pick[1].as_i64().unwrap());
    page.click(&at).await;
    if pick[2] == true {
        page.wait(
            "document.querySelector('#preview').dataset.kind === 'confirm'",
            "the poison's confirmation",
        )
        .await;
        page.click(&at).await;
    }
    page.wait(
        &format!("!({here}) || +document.querySelector('.game').dataset.moves > {before}"),
        "the move drawn",
    )
    .await;
    true
}

/// Plays the page's game in `room` by clicks to its end.
pub async fn play_to_the_end(page: &Page<'_>, room: &str) {
    while play_one(page, room).await {}
}

/// Clicks the tournament page's Join (or Rejoin) until the server takes it: a page opened
/// just after another closed may be refused while the server still holds the old connection.
pub async fn join_until_taken(page: &Page<'_>, taken: &str) {
    for _ in 0..50 {
        page.click("#t-join").await;
        page.wait(
            &format!("({taken}) || document.querySelector('#t-entry-error').textContent"),
            "the entry taken or refused",
        )
        .await;
        if page.eval(taken).await == true {
            return;
        }
        let said = page
            .eval("document.querySelector('#t-entry-error').textContent")
            .await;
        assert!(
            said.as_str().unwrap().contains("already"),
            "refused: {said}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the entry was never taken");
}
