//! `jchomp tournaments` and `jchomp tournament ID` run as a process against a real server
//! started in this test on 127.0.0.1:0, whose tournaments of built-in levels are created
//! through the WebSocket: the list as a table and JSON, an arena followed off a terminal until
//! it ends, a round robin's standings and crosstable as the server has them, on a terminal too,
//! and an unknown id refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli_support;

use cli_support::{TestServer, jchomp, stderr, stdout};
use jchomp_protocol::tournament::{TournamentStatus, TournamentSummary, TournamentView};
use jchomp_testkit::server::{Client, config_value, logged_in};
use serde_json::{Value, json};
use std::time::Duration;

/// Long enough for a whole tournament of quick bots on a loaded machine.
const LONG: Duration = Duration::from_secs(120);

/// Creates a tournament as the logged-in `c`; returns its first view.
async fn create(c: &mut Client, name: &str, format: Value, bots: &[&str]) -> TournamentView {
    let spec = json!({"name": name, "format": format, "config": config_value("4x4 eat 1x2 poison 0,0"),
                      "bots": bots});
    c.send(json!({"type": "create_tournament", "tournament": spec}))
        .await;
    serde_json::from_value(c.until("tournament").await).unwrap()
}

/// The view of tournament `id` once it has finished, as pushed to `c`.
async fn finished(c: &mut Client, id: &str) -> TournamentView {
    loop {
        let view: TournamentView =
            serde_json::from_value(c.until_within("tournament", LONG).await).unwrap();
        if view.id == id && view.status == TournamentStatus::Finished {
            return view;
        }
    }
}

/// The standings line `jchomp tournament` prints for each entrant: rank, name, points, games,
/// wins, ties, losses, performance, as words.
fn standings_words(view: &TournamentView) -> Vec<Vec<String>> {
    view.standings
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let points = if s.points.0.fract() == 0.0 {
                format!("{:.0}", s.points.0)
            } else {
                format!("{:.1}", s.points.0)
            };
            [
                (i + 1).to_string(),
                s.name.clone(),
                points,
                s.games.to_string(),
                s.wins.to_string(),
                s.ties.to_string(),
                s.losses.to_string(),
                s.performance.to_string(),
            ]
            .to_vec()
        })
        .collect()
}

/// The printed standings: each line after the heading, up to the blank line, as words.
fn printed_standings(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip_while(|l| !l.starts_with("#  ENTRANT"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

#[tokio::test]
async fn tournaments_are_listed_and_followed_to_their_end() {
    let server = TestServer::start().await;
    let url: &str = &server.url();
    let out = jchomp(&["tournaments", "--server", url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "The server holds no tournaments.\n");

    // An arena of five seconds (long enough for the process to start on a loaded machine), followed from its start off a terminal: a line per change,
    // then the final tables.
    let mut c = logged_in(server.addr, "organiser", true).await;
    let arena = create(
        &mut c,
        "sprint",
        json!({"kind": "arena", "duration_ms": 5000}),
        &["level:1", "random", "greedy", "level:2"],
    )
    .await;
    let followed = jchomp(&["tournament", &arena.id, "--server", url]).await;
    assert!(followed.status.success(), "{}", stderr(&followed));
    let text = stdout(&followed);
    let progress: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("sprint ("))
        .collect();
    assert!(
        !progress.is_empty(),
        "a line per change while it plays:\n{text}"
    );
    assert!(
        progress
            .iter()
            .all(|l| l.starts_with("sprint: ") && l.contains(" games over")),
        "{text}"
    );
    assert!(
        text.contains(&format!("sprint ({}): arena, 5 s, finished", arena.id)),
        "{text}"
    );
    let arena = finished(&mut c, &arena.id).await;
    assert_eq!(printed_standings(&text), standings_words(&arena), "{text}");
    assert!(!text.contains("CROSSTABLE"), "{text}");

    // A round robin, followed once it is over: the server's standings and crosstable.
    let rr = create(
        &mut c,
        "league",
        json!({"kind": "round_robin"}),
        &["level:1", "random", "greedy"],
    )
    .await;
    let rr = finished(&mut c, &rr.id).await;
    let out = jchomp(&["tournament", &rr.id, "--server", url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!(
            "league ({}): round robin, finished, round {}\n\
             4×4 eat 1×2 poison 0,0, 2 players; 6 of 6 games over\n",
            rr.id, rr.round
        )),
        "{text}"
    );
    assert_eq!(printed_standings(&text), standings_words(&rr), "{text}");
    let crosstable: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("CROSSTABLE"))
        .collect();
    assert_eq!(crosstable.len(), 4, "{text}");
    for (i, (line, row)) in crosstable[1..].iter().zip(&rr.crosstable).enumerate() {
        let cells: Vec<&str> = line.split_whitespace().skip(2).collect();
        assert_eq!(cells.len(), 3, "{line}");
        for (j, (cell, points)) in cells.iter().zip(row).enumerate() {
            match points {
                Some(p) => assert_eq!(cell.parse::<f64>().unwrap(), p.0, "{line}"),
                None => assert_eq!(*cell, if i == j { "·" } else { "-" }, "{line}"),
            }
        }
    }

    // Both are listed, newest first, as a table and as JSON.
    let out = jchomp(&["tournaments", "--json", "--server", url]).await;
    let list: Vec<TournamentSummary> = serde_json::from_str(&stdout(&out)).unwrap();
    let ids: Vec<&str> = list.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, [rr.id.as_str(), arena.id.as_str()]);
    assert_eq!(list[0].finished_games, 6);
    let out = jchomp(&["tournaments", "--server", url]).await;
    let table = stdout(&out);
    assert!(table.starts_with("ID "), "{table}");
    assert!(
        table.contains(&format!("{}  league  round robin  finished  3", rr.id)),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "Follow one with `jchomp --server {url} tournament ID`."
        )),
        "{table}"
    );

    let unknown = jchomp(&["tournament", "nope", "--server", url]).await;
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains("There is no tournament with that id"),
        "{}",
        stderr(&unknown)
    );
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_each_view_redraws_the_screen_until_the_end() {
    use cli_support::tty::Tty;
    let server = TestServer::start().await;
    let url = server.url();
    let mut c = logged_in(server.addr, "organiser", true).await;
    let arena = create(
        &mut c,
        "sprint",
        json!({"kind": "arena", "duration_ms": 5000}),
        &["level:1", "random"],
    )
    .await;
    let mut tty = Tty::spawn(&["--server", &url, "tournament", &arena.id], true);
    assert!(tty.wait_exit().await, "{}", tty.raw());
    let raw = tty.raw();
    let clear = "\u{1b}[2J";
    assert!(
        raw.matches(clear).count() >= 2,
        "redrawn as views arrived:\n{raw}"
    );
    assert!(
        raw.contains("Following as games end; Ctrl-C stops."),
        "{raw}"
    );
    let last = raw.rsplit(clear).next().unwrap();
    assert!(last.contains("arena, 5 s, finished"), "{last}");
    assert!(last.contains("#  ENTRANT"), "{last}");
    assert!(
        !last.contains("Ctrl-C stops"),
        "the end is not followed further: {last}"
    );
}
