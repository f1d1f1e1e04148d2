//! `jchomp tournaments` (the tournaments the server runs, as a table or JSON) and `jchomp
//! tournament ID` (one followed through `watch_tournament`: its standings and, in a round robin,
//! its crosstable, redrawn on a terminal as each view arrives until it has finished; off a
//! terminal, a line per change and then the final tables, as plain text).

use crate::commands::{CommandError, ask, printed};
use crate::connection::{Connection, ServerError};
use crate::render_lobby::config_short;
use crate::style::{printable, text_width};
use crossterm::cursor::MoveTo;
use crossterm::terminal::{Clear, ClearType};
use jchomp_protocol::tournament::{
    Points, TournamentFormat, TournamentStatus, TournamentSummary, TournamentView,
};
use jchomp_protocol::wire::{ClientMessage, ServerMessage};
use std::io::{self, Write};

/// Fetches the server's tournaments, newest first.
pub async fn fetch_tournaments(url: &str) -> Result<Vec<TournamentSummary>, CommandError> {
    ask(url, &ClientMessage::ListTournaments, |m| match m {
        ServerMessage::Tournaments { tournaments } => Some(tournaments),
        _ => None,
    })
    .await
}

/// Writes the tournaments as a table at most `width` columns wide, or as a JSON array with
/// `json`; `follow` is the command line that follows one (with `ID` in it).
pub fn write_tournaments(
    out: &mut impl Write,
    list: &[TournamentSummary],
    json: bool,
    follow: &str,
    width: usize,
) -> io::Result<()> {
    if json {
        return crate::commands::write_json(out, &list);
    }
    if list.is_empty() {
        return writeln!(out, "The server holds no tournaments.");
    }
    let rows: Vec<[String; 6]> = list
        .iter()
        .map(|t| {
            [
                t.id.clone(),
                printable(&t.name).into_owned(),
                format_words(t.format),
                status_word(t.status).to_owned(),
                t.entrants.to_string(),
                t.finished_games.to_string(),
            ]
        })
        .collect();
    let heading = ["ID", "NAME", "FORMAT", "STATUS", "ENTRANTS", "GAMES OVER"];
    out.write_all(printed(heading, &rows, &[1, 2], width).as_bytes())?;
    writeln!(out, "Follow one with `{follow}`.")
}

/// Follows tournament `id`: each view as it arrives, until it has finished. On a terminal
/// (`screen`) every view redraws the screen; otherwise each view of a tournament in play is one
/// line, and the finished one is printed in full.
pub async fn follow(
    url: &str,
    id: &str,
    out: &mut impl Write,
    screen: bool,
    width: usize,
) -> Result<(), CommandError> {
    let mut conn = Connection::connect(url).await?;
    let watch = ClientMessage::WatchTournament {
        all_games: false,
        tournament: id.to_owned(),
    };
    let mut view = conn.request(&watch, |m| pick(m, id)).await??;
    loop {
        show(out, &view, screen, width)?;
        if view.status == TournamentStatus::Finished {
            break;
        }
        view = next_view(&mut conn, id).await?;
    }
    conn.close().await;
    Ok(())
}

/// The view of tournament `id`, if `m` is one.
fn pick(m: ServerMessage, id: &str) -> Option<TournamentView> {
    match m {
        ServerMessage::Tournament(view) if view.id == id => Some(*view),
        _ => None,
    }
}

/// The next view of tournament `id` the server pushes (an `error` ends the wait).
async fn next_view(conn: &mut Connection, id: &str) -> Result<TournamentView, CommandError> {
    loop {
        match conn.recv().await? {
            ServerMessage::Error { code, message } => {
                return Err(ServerError { code, message }.into());
            }
            other => {
                if let Some(view) = pick(other, id) {
                    return Ok(view);
                }
            }
        }
    }
}

/// Shows one view: the whole screen redrawn, or (off a terminal) its line or final tables.
fn show(out: &mut impl Write, view: &TournamentView, screen: bool, width: usize) -> io::Result<()> {
    let finished = view.status == TournamentStatus::Finished;
    if screen {
        crossterm::queue!(out, Clear(ClearType::All), MoveTo(0, 0))?;
        out.write_all(view_text(view, width).as_bytes())?;
        if !finished {
            writeln!(out, "\nFollowing as games end; Ctrl-C stops.")?;
        }
    } else if finished {
        out.write_all(view_text(view, width).as_bytes())?;
    } else {
        writeln!(out, "{}", progress_line(view))?;
    }
    out.flush()
}

/// One line on a tournament in play: its round and how many games are over.
pub fn progress_line(view: &TournamentView) -> String {
    let (over, started) = games_over(view);
    let leader = view
        .standings
        .first()
        .map(|s| {
            format!(
                "; {} leads with {}",
                printable(&s.name),
                points_text(s.points)
            )
        })
        .unwrap_or_default();
    let round = round(view)
        .map(|r| format!("round {r}, "))
        .unwrap_or_default();
    format!(
        "{}: {round}{over} of {started} games over{leader}",
        printable(&view.spec.name),
    )
}

/// The round being played; none in an arena, which has no rounds.
fn round(view: &TournamentView) -> Option<u32> {
    match view.spec.format {
        TournamentFormat::Arena { .. } => None,
        TournamentFormat::RoundRobin | TournamentFormat::Swiss { .. } => Some(view.round),
    }
}

/// Games over, and games started.
fn games_over(view: &TournamentView) -> (usize, usize) {
    let over = view.games.iter().filter(|g| g.result.is_some()).count();
    (over, view.games.len())
}

/// The whole view as text at most `width` columns wide (where the names allow): a title, the
/// board, the standings and, in a round robin, the crosstable.
pub fn view_text(view: &TournamentView, width: usize) -> String {
    let (over, started) = games_over(view);
    let spec = &view.spec;
    let round = round(view)
        .map(|r| format!(", round {r}"))
        .unwrap_or_default();
    let mut text = format!(
        "{} ({}): {}, {}{round}\n{}, {} players; {over} of {started} games over\n\n",
        printable(&spec.name),
        view.id,
        format_words(spec.format),
        status_word(view.status),
        config_short(&spec.config),
        spec.config.players,
    );
    let rows: Vec<[String; 8]> = view
        .standings
        .iter()
        .enumerate()
        .map(|(i, s)| {
            [
                (i + 1).to_string(),
                printable(&s.name).into_owned(),
                points_text(s.points),
                s.games.to_string(),
                s.wins.to_string(),
                s.ties.to_string(),
                s.losses.to_string(),
                s.performance.to_string(),
            ]
        })
        .collect();
    let heading = [
        "#", "ENTRANT", "POINTS", "GAMES", "WON", "TIED", "LOST", "PERF",
    ];
    text.push_str(&printed(heading, &rows, &[1], width));
    if !view.crosstable.is_empty() {
        text.push('\n');
        text.push_str(&crosstable_text(view));
    }
    text
}

/// The crosstable: a row per entrant (numbered, in entry order) with the points it took from
/// each other entrant, `·` on the diagonal and `-` where they have not met.
fn crosstable_text(view: &TournamentView) -> String {
    let names: Vec<String> = view
        .entrants
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{} {}", i + 1, printable(n)))
        .collect();
    let name_width = names.iter().map(|n| text_width(n)).max().unwrap_or(0);
    let cells: Vec<Vec<String>> = view
        .crosstable
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .enumerate()
                .map(|(j, cell)| match cell {
                    Some(points) => points_text(*points),
                    None if i == j => "·".to_owned(),
                    None => "-".to_owned(),
                })
                .collect()
        })
        .collect();
    let cell_width = cells
        .iter()
        .flatten()
        .map(|c| text_width(c))
        .chain([view.entrants.len().to_string().len()])
        .max()
        .unwrap_or(1);
    let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w.saturating_sub(text_width(s))));
    let mut text = format!("CROSSTABLE{}", " ".repeat(name_width.saturating_sub(10)));
    for j in 1..=view.entrants.len() {
        text.push_str(&format!("  {}", pad(&j.to_string(), cell_width)));
    }
    text = text.trim_end().to_owned() + "\n";
    for (name, row) in names.iter().zip(&cells) {
        let mut line = pad(name, name_width.max(10));
        for cell in row {
            line.push_str(&format!("  {}", pad(cell, cell_width)));
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// Points as a player reads them: `2`, `1.5`.
fn points_text(points: Points) -> String {
    if points.0.fract() == 0.0 {
        format!("{:.0}", points.0)
    } else {
        format!("{:.1}", points.0)
    }
}

/// A format in words: `round robin`, `Swiss, 3 rounds`, `arena, 90 s`.
fn format_words(format: TournamentFormat) -> String {
    match format {
        TournamentFormat::RoundRobin => "round robin".to_owned(),
        TournamentFormat::Swiss { rounds: 1 } => "Swiss, 1 round".to_owned(),
        TournamentFormat::Swiss { rounds } => format!("Swiss, {rounds} rounds"),
        TournamentFormat::Arena { duration_ms } => {
            format!("arena, {} s", duration_ms.div_ceil(1000))
        }
    }
}

/// A status in one word, as the protocol names it.
fn status_word(status: TournamentStatus) -> &'static str {
    match status {
        TournamentStatus::Open => "open",
        TournamentStatus::Playing => "playing",
        TournamentStatus::Finished => "finished",
        TournamentStatus::Cancelled => "cancelled",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::text_width;

    /// A round robin of three entrants, its last game in play.
    fn view() -> TournamentView {
        serde_json::from_value(serde_json::json!({
            "id": "t7", "status": "playing", "round": 3,
            "spec": {"name": "Friday cup", "format": {"kind": "round_robin"},
                     "config": {"rows": 4, "cols": 4, "players": 2, "eat": [1, 2],
                                "poison": [[0, 0]]},
                     "bots": ["level:1", "random", "greedy"]},
            "standings": [
                {"name": "level:1", "points": 2.5, "games": 3, "wins": 2, "ties": 1,
                 "losses": 0, "performance": 1650},
                {"name": "greedy", "points": 1.0, "games": 2, "wins": 1, "ties": 0,
                 "losses": 1, "performance": 1200},
                {"name": "random", "points": 0.5, "games": 3, "wins": 0, "ties": 1,
                 "losses": 2, "performance": 900}],
            "crosstable": [[null, 1.5, 1.0], [0.5, null, 0.0], [0.0, 1.0, null]],
            "entrants": ["level:1", "random", "greedy"],
            "games": [
                {"game": "a", "round": 1, "seats": ["level:1", "random"], "result": {"kind": "tie"}},
                {"game": "b", "round": 3, "seats": ["greedy", "random"]}]
        }))
        .unwrap()
    }

    #[test]
    fn a_view_reads_as_standings_and_a_crosstable() {
        let text = view_text(&view(), 80);
        assert!(
            text.starts_with(
                "Friday cup (t7): round robin, playing, round 3\n\
                 4×4 eat 1×2 poison 0,0, 2 players; 1 of 2 games over\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("1  level:1  2.5     3      2    1     0     1650"),
            "{text}"
        );
        assert!(text.contains("CROSSTABLE  1    2    3\n"), "{text}");
        assert!(text.contains("1 level:1   ·    1.5  1\n"), "{text}");
        assert!(text.contains("2 random    0.5  ·    0\n"), "{text}");
        assert!(text.lines().all(|l| text_width(l) <= 80), "{text}");
        let mut swiss = view();
        swiss.crosstable.clear();
        swiss.spec.format = TournamentFormat::Swiss { rounds: 3 };
        let text = view_text(&swiss, 80);
        assert!(text.contains("Swiss, 3 rounds, playing, round 3") && !text.contains("CROSSTABLE"));
        let mut arena = swiss;
        arena.spec.format = TournamentFormat::Arena {
            duration_ms: 60_000,
        };
        assert!(view_text(&arena, 80).starts_with("Friday cup (t7): arena, 60 s, playing\n"));
        assert_eq!(
            progress_line(&arena),
            "Friday cup: 1 of 2 games over; level:1 leads with 2.5"
        );
        assert_eq!(
            progress_line(&view()),
            "Friday cup: round 3, 1 of 2 games over; level:1 leads with 2.5"
        );
    }

    #[test]
    fn the_list_is_a_table_or_json() {
        let list: Vec<TournamentSummary> = serde_json::from_value(serde_json::json!([
            {"id": "t7", "name": "Friday cup", "format": {"kind": "arena", "duration_ms": 90000},
             "status": "finished", "entrants": 4, "finished_games": 12}]))
        .unwrap();
        let mut out = Vec::new();
        write_tournaments(&mut out, &list, false, "jchomp tournament ID", 80).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("ID  NAME        FORMAT"), "{text}");
        assert!(
            text.contains("t7  Friday cup  arena, 90 s  finished  4         12"),
            "{text}"
        );
        assert!(text.ends_with("Follow one with `jchomp tournament ID`.\n"));
        let mut out = Vec::new();
        write_tournaments(&mut out, &list, true, "", 80).unwrap();
        let back: Vec<TournamentSummary> = serde_json::from_slice(&out).unwrap();
        assert_eq!(back, list);
        let mut out = Vec::new();
        write_tournaments(&mut out, &[], false, "", 80).unwrap();
        assert_eq!(out, b"The server holds no tournaments.\n");
    }
}
