//! The lobby screens as pure functions: the room list (and the recent games list) with the
//! selected line, the text being typed, a message, and the key help.

use crate::explain;
use crate::list_table::ListTable;
use crate::render_game::{Notice, input_or_help};
use crate::style::{Line, Style};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::Play;
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
/// 0,0`), with the options (`play normal`, `no_square_bites`), the clock if any and `rated`
/// for a rated room.
pub fn config_short(c: &ConfigJson) -> String {
    let poison: Vec<String> = c.poison.iter().map(|[r, c]| format!("{r},{c}")).collect();
    let rule = match c.eat {
        Some([er, ec]) => format!("eat {er}×{ec}"),
        None => c.variant.name().to_owned(),
    };
    let mut s = format!("{}×{} {rule} poison {}", c.rows, c.cols, poison.join(" "));
    // The options as the board notation writes them.
    if c.play == Play::Normal {
        s.push_str(" play normal");
    }
    if c.no_square_bites {
        s.push_str(" no_square_bites");
    }
    if let Some(ms) = c.move_time_ms {
        s.push_str(&format!(" {}s/move", ms.div_ceil(1000)));
    }
    if c.rated {
        s.push_str(" rated");
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

/// The cells of the games list: id, when it finished, moves, players, result.
fn game_cells(g: &GameSummary) -> [String; 5] {
    [
        g.game.clone(),
        g.finished_ms.map(explain::utc_minutes).unwrap_or_default(),
        g.moves.to_string(),
        g.seats.join(" v "),
        explain::stored_result_short(g.result, &g.seats),
    ]
}

/// A size in cells as a terminal size.
fn clamp(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
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
    let room_rows = height.saturating_sub(9).max(3);
    let cells: Vec<[String; 5]> = view.rooms.iter().map(room_cells).collect();
    let styles: Vec<Style> = view
        .rooms
        .iter()
        .map(|r| match r.status {
            RoomStatus::Waiting => Style::Plain,
            _ => Style::Dim,
        })
        .collect();
    let title = if view.rooms.len() > room_rows {
        format!("Rooms ({})", view.rooms.len())
    } else {
        "Rooms".to_owned()
    };
    let table = ListTable {
        title,
        heading: ["ROOM", "STATUS", "SEATS", "BOARD", "PLAYERS"],
        rows: &cells,
        styles: &styles,
        cuttable: &[3, 4],
        selected: view.selected,
    };
    out.extend(table.lines(clamp(width), clamp(room_rows + 2)));
    if view.rooms.is_empty() {
        out.push(Line::styled(
            "  No rooms yet. Press c to create one.",
            Style::Dim,
        ));
    }
    out.push(Line::new());
    out.extend(view.notice.into_iter().flat_map(|n| n.lines(width)));
    out.push(input_or_help(
        view.input,
        Line::styled(
            "p play now  ↑/↓ Enter join  w watch  c create  i id  g games  r refresh  q quit",
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
    let rows = height.saturating_sub(9).max(3);
    let cells: Vec<[String; 5]> = view.games.iter().map(game_cells).collect();
    let table = ListTable {
        title: "Games".to_owned(),
        heading: ["GAME", "FINISHED (UTC)", "MOVES", "PLAYERS", "RESULT"],
        rows: &cells,
        styles: &[],
        cuttable: &[3, 4],
        selected: view.selected,
    };
    out.extend(table.lines(clamp(width), clamp(rows + 2)));
    if view.games.is_empty() {
        out.push(Line::styled("  No finished games yet.", Style::Dim));
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
    use jchomp_protocol::json::ResultJson;
    use jchomp_testkit::fixtures::*;

    /// Room `id` of alice on 6×7 (30 s a move), one seat free.
    fn room(id: &str, status: RoomStatus) -> RoomSummary {
        room_summary(id, "6x7 eat 1x2 poison 0,0")
            .timed(30_000)
            .seats([Some(seat("alice")), None])
            .status(status)
    }

    #[test]
    fn short_configs_name_the_eat_size_or_the_classic_variant() {
        let jchomp = jchomp_testkit::timed_config_json("6x7 eat 1x2 poison 0,0", 30_000);
        assert_eq!(config_short(&jchomp), "6×7 eat 1×2 poison 0,0 30s/move");
        let classic = jchomp_testkit::config_json("5x5 variant classic poison 0,0 poison 4,4");
        assert_eq!(config_short(&classic), "5×5 classic poison 0,0 4,4");
        let rated = ConfigJson {
            rated: true,
            ..jchomp
        };
        assert_eq!(
            config_short(&rated),
            "6×7 eat 1×2 poison 0,0 30s/move rated"
        );
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
        let games = vec![
            game_summary("g1", "6x7 eat 1x2 poison 0,0")
                .timed(30_000)
                .result(ResultJson::Poisoned { loser: 1 })
                .moves(7)
                .finished(0),
        ];
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

    /// The lobby as a ratatui test terminal of `width` × 24 shows it.
    fn on_test_terminal(view: &LobbyView<'_>, width: u16) -> String {
        let backend = ratatui::backend::TestBackend::new(width, 24);
        let mut t = ratatui::Terminal::new(backend).unwrap();
        crate::terminal::draw(&mut t, true, |w, h| {
            render(view, usize::from(w), usize::from(h))
        })
        .unwrap();
        crate::terminal::buffer_text(t.backend().buffer())
    }

    #[test]
    fn the_room_table_on_a_test_terminal_at_80_and_40_columns() {
        let mut long = room("room-7f3a", RoomStatus::Waiting);
        long.seats[0].as_mut().unwrap().name = "bartholomew-the-patient".into();
        let rooms = vec![room("r1", RoomStatus::Playing), long];
        let view = LobbyView {
            server: "ws://x/ws",
            name: "bob",
            rooms: &rooms,
            selected: 1,
            notice: None,
            input: None,
        };
        let wide = on_test_terminal(&view, 80);
        let rows: Vec<&str> = wide.lines().collect();
        assert_eq!(rows[2], "Rooms", "{wide}");
        assert_eq!(
            rows[3], "  ROOM       STATUS   SEATS  BOARD                        PLAYERS",
            "{wide}"
        );
        assert_eq!(
            rows[5],
            "> room-7f3a  waiting  1/2    6×7 eat 1×2 poison 0,0 30s…  bartholomew-the-patie…",
            "{wide}"
        );
        let narrow = on_test_terminal(&view, 40);
        let rows: Vec<&str> = narrow.lines().collect();
        assert!(
            rows[5].starts_with("> room-7f3a  waiting  1/2    "),
            "{narrow}"
        );
        assert!(rows[5].ends_with('…'), "{narrow}");
        assert!(
            rows[4].starts_with("  r1         playing  1/2    6×7"),
            "{narrow}"
        );
    }

    #[test]
    fn the_games_table_on_a_test_terminal_keeps_ids_and_dates_whole_at_40_columns() {
        let games = vec![
            game_summary("game-00c1", "6x7 eat 1x2 poison 0,0")
                .timed(30_000)
                .seats(["annabelle", "bartholomew"])
                .result(ResultJson::Poisoned { loser: 1 })
                .moves(17)
                .finished(86_400_000),
        ];
        let view = GamesView {
            games: &games,
            selected: 0,
            notice: None,
        };
        for width in [40, 60] {
            let backend = ratatui::backend::TestBackend::new(width, 24);
            let mut t = ratatui::Terminal::new(backend).unwrap();
            crate::terminal::draw(&mut t, true, |w, h| {
                render_games(&view, usize::from(w), usize::from(h))
            })
            .unwrap();
            let text = crate::terminal::buffer_text(t.backend().buffer());
            let rows: Vec<&str> = text.lines().collect();
            assert_eq!(rows[2], "Games", "{text}");
            assert!(
                rows[4].starts_with("> game-00c1  1970-01-02 00:00  17"),
                "{text}"
            );
            assert!(rows.iter().all(|r| r.chars().count() <= usize::from(width)));
            if width == 60 {
                assert_eq!(
                    rows[4], "> game-00c1  1970-01-02 00:00  17     annabelle…  bartholom…",
                    "{text}"
                );
            }
        }
    }
}
