//! The quick-pairing screens as pure functions: the "Play now" list of presets, each picked
//! with one key, and the wait in a preset's pool; and the presets' cells that `jchomp play`
//! prints.

use crate::app::{AfterWait, SeekScreen};
use crate::render_game::Notice;
use crate::style::{Line, Style, printable};
use jchomp_protocol::wire::PresetInfo;
use std::time::Duration;

/// Everything the "Play now" list shows.
#[derive(Clone, Debug)]
pub(crate) struct PlayNowView<'a> {
    /// The player's name.
    pub name: &'a str,
    /// The presets, as last listed.
    pub presets: &'a [PresetInfo],
    /// Whether bots may take the seats nobody took.
    pub bots: bool,
    /// The server's patience before bots take them, once known.
    pub bot_patience_secs: Option<u64>,
    /// A message for the player.
    pub notice: Option<&'a Notice>,
}

/// Everything the waiting screen shows.
#[derive(Clone, Debug)]
pub(crate) struct SeekView<'a> {
    /// The wait.
    pub seek: &'a SeekScreen,
    /// The preset's description, once listed.
    pub title: Option<&'a str>,
    /// The player's name.
    pub name: &'a str,
    /// The server's patience before bots take the empty seats, once known.
    pub bot_patience_secs: Option<u64>,
    /// How long the player has waited, once the server said it waits.
    pub waited: Option<Duration>,
    /// Whether a cancel is on its way.
    pub cancelling: bool,
    /// A message for the player.
    pub notice: Option<&'a Notice>,
}

/// "N waiting" for a pool.
fn waiting_words(n: u32) -> String {
    format!("{n} waiting")
}

/// One preset's cells: its name, what it is, how many wait.
pub(crate) fn preset_cells(p: &PresetInfo) -> [String; 3] {
    [p.name.clone(), p.title.clone(), waiting_words(p.waiting)]
}

/// What bots may do, in words.
fn bots_words(bots: bool, patience: Option<u64>) -> String {
    let after = patience.map_or_else(
        || "after the server's patience".to_owned(),
        |s| format!("after {s} s"),
    );
    if bots {
        format!("bots of about your level fill the empty seats {after}")
    } else {
        "people only (no bots)".to_owned()
    }
}

/// A screen's lines cut to `width`.
fn fitted(mut out: Vec<Line>, width: usize) -> Vec<Line> {
    for l in &mut out {
        l.truncate(width);
    }
    out
}

/// Renders the "Play now" list for a terminal `width` columns wide.
pub(crate) fn render_play_now(view: &PlayNowView<'_>, width: usize) -> Vec<Line> {
    let mut title = Line::styled("JChomp", Style::Title);
    title.push(
        format!("  play now · playing as {}", view.name),
        Style::Plain,
    );
    let mut out = vec![title, Line::new()];
    out.push(Line::plain(
        "Pick a game; the server seats you with players of about your rating.",
    ));
    out.push(Line::new());
    if view.presets.is_empty() {
        out.push(Line::styled(
            "  Asking the server for its games…",
            Style::Dim,
        ));
    }
    let name_width = view.presets.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for (i, p) in view.presets.iter().take(9).enumerate() {
        let mut line = Line::styled(format!("  {} ", i + 1), Style::Accent);
        line.push(
            format!("{:name_width$}  ", printable(&p.name)),
            Style::Plain,
        );
        // The count before the description, which a narrow terminal cuts.
        line.push(format!("{:>10}  ", waiting_words(p.waiting)), Style::Dim);
        line.push(printable(&p.title), Style::Plain);
        out.push(line);
    }
    out.push(Line::new());
    out.push(Line::plain(format!(
        "Bots: {}",
        bots_words(view.bots, view.bot_patience_secs)
    )));
    out.push(Line::new());
    out.extend(view.notice.into_iter().flat_map(|n| n.lines(width)));
    let last = view.presets.len().clamp(1, 9);
    out.push(Line::styled(
        format!("1–{last} play  b bots on/off  r refresh  Esc back to the lobby  q quit"),
        Style::Dim,
    ));
    fitted(out, width)
}

/// What bots may do in this wait: as in the list until the patience has run out, then that
/// they may come with the next pairing.
fn seek_bots_words(view: &SeekView<'_>) -> String {
    let patience = view.bot_patience_secs.map(Duration::from_secs);
    match (view.seek.bots, patience, view.waited) {
        (true, Some(p), Some(w)) if w >= p => {
            "bots may fill the empty seats at the next pairing".to_owned()
        }
        (bots, _, _) => bots_words(bots, view.bot_patience_secs),
    }
}

/// `m:ss`.
fn minutes(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

/// Renders the wait in a pool for a terminal `width` columns wide.
pub(crate) fn render_seeking(view: &SeekView<'_>, width: usize) -> Vec<Line> {
    let seek = view.seek;
    let mut title = Line::styled("JChomp", Style::Title);
    title.push(
        format!("  play now · {} · playing as {}", seek.preset, view.name),
        Style::Plain,
    );
    let mut out = vec![title, Line::new()];
    let mut head = Line::styled(format!("Waiting for a {} game", seek.preset), Style::Accent);
    if let Some(t) = view.title {
        head.push(format!(": {}", printable(t)), Style::Plain);
    }
    out.push(head);
    out.push(Line::new());
    let unknown = || "…".to_owned();
    let rows = [
        (
            "Paired by rating",
            seek.rating.map_or_else(unknown, |r| r.to_string()),
        ),
        (
            "Waiting now",
            seek.waiting
                .map_or_else(unknown, |n| format!("{n} (you included)")),
        ),
        ("Waited", view.waited.map_or_else(unknown, minutes)),
        ("Bots", seek_bots_words(view)),
    ];
    for (label, value) in rows {
        let mut line = Line::styled(format!("  {label:<18}"), Style::Dim);
        line.push(value, Style::Plain);
        out.push(line);
    }
    out.push(Line::new());
    out.extend(view.notice.into_iter().flat_map(|n| n.lines(width)));
    let help = if view.cancelling {
        "Stopping the wait…  q quit now".to_owned()
    } else {
        match seek.then {
            AfterWait::Lobby => "Esc stop waiting (back to the lobby)  q quit",
            AfterWait::Quit => "Esc or q stop waiting",
        }
        .to_owned()
    };
    out.push(Line::styled(help, Style::Dim));
    fitted(out, width)
}
