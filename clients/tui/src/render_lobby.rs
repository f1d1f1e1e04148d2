//! The lobby screens as pure functions: the room list (and the recent games list) with the
//! selected line, the text being typed, a message, and the key help.

use crate::explain;
use crate::render_game::{Notice, input_or_help};
use crate::style::{Line, Style};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::wire::{GameSummary, RoomStatus, RoomSummary};

/// Everything the lobby shows.
#[derive(Clone, Debug)]
pub struct LobbyView<'a> {
    /// The server address.
    pub server: &'a str,
    /// The player's name.
    pub name: &'a str,
    /// The rooms, as last listed.
    pub rooms: &'a [RoomSummary],
    /// The selected line.
    pub selected: usize,
    /// A message for the player.
    pub notice: Option<&'a Notice>,
    /// Text being typed, with its prompt.
    pub input: Option<(&'a str, &'a str)>,
}

/// A room's status in words.
pub fn status_word(s: RoomStatus) -> &'static str {
    match s {
        RoomStatus::Waiting => "waiting",
        RoomStatus::Playing => "playing",
        RoomStatus::Finished => "finished",
    }
}

/// A configuration in short: `6×7 eat 1×2 poison 0,0` (classic Chomp: `6×7 classic poison
/// 0,0`), with the clock if any.
pub fn config_short(c: &ConfigJson) -> String {
    let poison: Vec<String> = c.poison.iter().map(|[r, c]| format!("{r},{c}")).collect();
    let rule = match c.eat {
        Some([er, ec]) => format!("eat {er}×{ec}"),
        None => c.variant.name().to_owned(),
    };
    let mut s = format!("{}×{} {rule} poison {}", c.rows, c.cols, poison.join(" "));
    if let Some(ms) = c.move_time_ms {
        s.push_str(&format!(" {}s/move", ms.div_ceil(1000)));
    }
    s
}

/// One room's cells: id, status, seats taken, board, players (`-` for a free seat).
pub fn room_cells(r: &RoomSummary) -> [String; 5] {
    let taken = r.seats.iter().filter(|s| s.is_some()).count();
    let names: Vec<String> = r
        .seats
        .iter()
        .map(|s| match s {
            None => "-".to_owned(),
            Some(s) if s.bot => format!("{}[bot]", s.name),
            Some(s) => s.name.clone(),
        })
        .collect();
    [
        r.room.clone(),
        status_word(r.status).to_owned(),
        format!("{}/{}", taken, r.seats.len()),
        config_short(&r.config),
        names.join(", "),
    ]
}

/// The room table's lines, heading first, fitted to `width` columns (the board and the
/// players cut with `…` when they do not fit).
pub fn room_table(rooms: &[RoomSummary], width: usize) -> Vec<String> {
    let mut rows = vec![["ROOM", "STATUS", "SEATS", "BOARD", "PLAYERS"].map(str::to_owned)];
    rows.extend(rooms.iter().map(room_cells));
    crate::commands::table(&rows, width, &[3, 4])
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The games table's lines, heading first, fitted to `width` columns (players and result cut
/// with `…` when they do not fit).
fn game_table(games: &[GameSummary], width: usize) -> Vec<String> {
    let mut rows =
        vec![["GAME", "FINISHED (UTC)", "MOVES", "PLAYERS", "RESULT"].map(str::to_owned)];
    rows.extend(games.iter().map(|g| {
        [
            g.game.clone(),
            g.finished_ms.map(explain::utc_minutes).unwrap_or_default(),
            g.moves.to_string(),
            g.seats.join(" v "),
            explain::stored_result_short(g.result, &g.seats),
        ]
    }));
    crate::commands::table(&rows, width, &[3, 4])
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Renders the lobby for a terminal of `width` × `height`.
pub fn render(view: &LobbyView<'_>, width: usize, height: usize) -> Vec<Line> {
    let mut out = Vec::new();
    let mut title = Line::styled("JChomp", Style::Title);
    title.push(
        format!("  lobby · {} · playing as {}", view.server, view.name),
        Style::Plain,
    );
    out.push(title);
    out.push(Line::new());
    let table = room_table(view.rooms, width.saturating_sub(2));
    out.push(Line::styled(format!("  {}", table[0]), Style::Dim));
    let room_rows = height.saturating_sub(8).max(3);
    if view.rooms.is_empty() {
        out.push(Line::styled(
            "  No rooms yet. Press c to create one.",
            Style::Dim,
        ));
    } else {
        let first = view.selected.saturating_sub(room_rows - 1);
        for (i, r) in view.rooms.iter().enumerate().skip(first).take(room_rows) {
            let text = table.get(i + 1).map(String::as_str).unwrap_or_default();
            let line = if i == view.selected {
                Line::styled(format!("> {text}"), Style::Selected)
            } else {
                let style = match r.status {
                    RoomStatus::Waiting => Style::Plain,
                    _ => Style::Dim,
                };
                Line::styled(format!("  {text}"), style)
            };
            out.push(line);
        }
        if view.rooms.len() > room_rows {
            out.push(Line::styled(
                format!("  ({} rooms)", view.rooms.len()),
                Style::Dim,
            ));
        }
    }
    out.push(Line::new());
    out.extend(view.notice.into_iter().flat_map(|n| n.lines(width)));
    out.push(input_or_help(
        view.input,
        Line::styled(
            "↑/↓ select  Enter join  w watch  c create  i room id  g games  r refresh  q quit",
            Style::Dim,
        ),
    ));
    for l in &mut out {
        l.truncate(width);
    }
    out
}

/// Everything the list of recent games shows.
#[derive(Clone, Debug)]
pub struct GamesView<'a> {
    /// The games, newest first.
    pub games: &'a [GameSummary],
    /// The selected line.
    pub selected: usize,
    /// A message for the player.
    pub notice: Option<&'a Notice>,
}

/// Renders the list of recent games for a terminal of `width` × `height`.
pub fn render_games(view: &GamesView<'_>, width: usize, height: usize) -> Vec<Line> {
    let mut out = vec![
        Line::styled("JChomp  recent games", Style::Title),
        Line::new(),
    ];
    let table = game_table(view.games, width.saturating_sub(2));
    out.push(Line::styled(format!("  {}", table[0]), Style::Dim));
    let rows = height.saturating_sub(8).max(3);
    if view.games.is_empty() {
        out.push(Line::styled("  No finished games yet.", Style::Dim));
    }
    let first = view.selected.saturating_sub(rows - 1);
    for (i, _) in view.games.iter().enumerate().skip(first).take(rows) {
        let text = table.get(i + 1).map(String::as_str).unwrap_or_default();
        out.push(if i == view.selected {
            Line::styled(format!("> {text}"), Style::Selected)
        } else {
            Line::plain(format!("  {text}"))
        });
    }
    if let Some(g) = view.games.get(view.selected) {
        out.push(Line::styled(
            format!("  {}", config_short(&g.config)),
            Style::Dim,
        ));
    }
    out.push(Line::new());
    out.extend(view.notice.into_iter().flat_map(|n| n.lines(width)));
    out.push(Line::styled(
        "↑/↓ select  Enter replay  r refresh  Esc back to the rooms  q quit",
        Style::Dim,
    ));
    for l in &mut out {
        l.truncate(width);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::to_text;
    use jchomp_protocol::wire::SeatInfo;

    fn room(id: &str, status: RoomStatus) -> RoomSummary {
        RoomSummary {
            room: id.into(),
            config: jchomp_testkit::timed_config_json("6x7 eat 1x2 poison 0,0", 30_000),
            seats: vec![
                Some(SeatInfo {
                    name: "alice".into(),
                    bot: false,
                    connected: true,
                    grace_left_ms: None,
                }),
                None,
            ],
            status,
        }
    }

    #[test]
    fn short_configs_name_the_eat_size_or_the_classic_variant() {
        let jchomp = jchomp_testkit::timed_config_json("6x7 eat 1x2 poison 0,0", 30_000);
        assert_eq!(config_short(&jchomp), "6×7 eat 1×2 poison 0,0 30s/move");
        let classic = jchomp_testkit::config_json("5x5 variant classic poison 0,0 poison 4,4");
        assert_eq!(config_short(&classic), "5×5 classic poison 0,0 4,4");
    }

    #[test]
    fn rooms_are_listed_with_the_selection_marked() {
        let rooms = vec![
            room("r1", RoomStatus::Waiting),
            room("r2", RoomStatus::Playing),
        ];
        let view = LobbyView {
            server: "ws://x/ws",
            name: "bob",
            rooms: &rooms,
            selected: 1,
            notice: None,
            input: None,
        };
        let lines = render(&view, 80, 24);
        let text = to_text(&lines);
        assert!(
            text.contains("  r1    waiting  1/2    6×7 eat 1×2 poison 0,0 30s/move  alice, -"),
            "{text}"
        );
        assert!(text.contains("> r2    playing"), "{text}");
        assert!(
            lines
                .iter()
                .any(|l| l.0.first().is_some_and(|s| s.style == Style::Selected))
        );
        assert!(lines.iter().all(|l| l.width() <= 80));
    }

    #[test]
    fn empty_lobby_says_how_to_start_and_shows_the_form() {
        let notice = Notice::new("That room is full.", Style::Bad);
        let view = LobbyView {
            server: "ws://x/ws",
            name: "bob",
            rooms: &[],
            selected: 0,
            notice: Some(&notice),
            input: Some(("create: ", "--size 6x7")),
        };
        let text = to_text(&render(&view, 80, 24));
        assert!(text.contains("No rooms yet. Press c"), "{text}");
        assert!(text.contains("That room is full."), "{text}");
        assert!(text.contains("create: --size 6x7_"), "{text}");
    }

    #[test]
    fn long_lists_scroll_to_keep_the_selection_visible() {
        let rooms: Vec<RoomSummary> = (0..40)
            .map(|i| room(&format!("r{i}"), RoomStatus::Waiting))
            .collect();
        let view = LobbyView {
            server: "s",
            name: "n",
            rooms: &rooms,
            selected: 35,
            notice: None,
            input: None,
        };
        let lines = render(&view, 80, 24);
        assert!(lines.len() <= 24);
        assert!(to_text(&lines).contains("> r35 "));
    }

    #[test]
    fn recent_games_are_listed_with_their_result() {
        let games = vec![GameSummary {
            game: "g1".into(),
            config: room("r", RoomStatus::Finished).config,
            seats: vec!["ann".into(), "bob".into()],
            result: Some(jchomp_protocol::json::ResultJson::Poisoned { loser: 1 }),
            moves: 7,
            finished_ms: Some(0),
        }];
        let view = GamesView {
            games: &games,
            selected: 0,
            notice: None,
        };
        let text = to_text(&render_games(&view, 80, 24));
        assert!(
            text.contains("> g1    1970-01-01 00:00  7      ann v bob  bob lost (poison)"),
            "{text}"
        );
        assert!(text.contains("6×7 eat 1×2 poison 0,0 30s/move"), "{text}");
        let empty = GamesView {
            games: &[],
            selected: 0,
            notice: None,
        };
        assert!(to_text(&render_games(&empty, 80, 24)).contains("No finished games yet."));
    }

    #[test]
    fn item9_the_lobby_cuts_long_names_with_an_ellipsis() {
        let mut r = room("r1", RoomStatus::Waiting);
        r.seats[0].as_mut().unwrap().name = "alexandra-the-magnificent-of-the-north".into();
        let rooms = vec![r];
        let view = LobbyView {
            server: "ws://x/ws",
            name: "bob",
            rooms: &rooms,
            selected: 0,
            notice: None,
            input: None,
        };
        for width in [80, 60] {
            let lines = render(&view, width, 24);
            let text = to_text(&lines);
            assert!(lines.iter().all(|l| l.width() <= width), "{text}");
            let row = text.lines().find(|l| l.starts_with("> r1")).unwrap();
            assert!(row.ends_with('…'), "{width}: {row}");
        }
    }
}
