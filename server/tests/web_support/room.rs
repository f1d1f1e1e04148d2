//! The room page as the browser tests drive it: a board cell's selector, a move made by clicks
//! (with the poison's second click when asked), and the wait for the page's turn or the end.

use super::Page;

/// The selector of the board's cell (r, c).
pub fn cell(r: i64, c: i64) -> String {
    format!(".board .cell[data-r=\"{r}\"][data-c=\"{c}\"]")
}

/// Selects (r, c) by a click (and, when `confirm`, the second click that eating poison asks
/// for); returns once the page has drawn the move.
pub async fn move_by_clicks(page: &Page<'_>, r: i64, c: i64, confirm: bool) {
    let before = page
        .eval("+document.querySelector('.game').dataset.moves")
        .await
        .as_u64()
        .unwrap();
    page.click(&cell(r, c)).await;
    if confirm {
        page.wait(
            "document.querySelector('#preview').dataset.kind === 'confirm'",
            "the poison's confirmation",
        )
        .await;
        page.click(&cell(r, c)).await;
    }
    page.wait(
        &format!("+document.querySelector('.game').dataset.moves > {before}"),
        "the move drawn",
    )
    .await;
}

/// Waits until the page may move or the game is over; whether it is over.
pub async fn turn_or_end(page: &Page<'_>) -> bool {
    page.wait(
        "document.querySelector('.game').dataset.status === 'finished' || document.querySelector('#turn').dataset.mine === 'true'",
        "my turn or the end",
    )
    .await;
    page.eval("document.querySelector('.game').dataset.status")
        .await
        == "finished"
}
