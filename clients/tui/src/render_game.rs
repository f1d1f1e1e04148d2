//! The game screen as a pure function of its state: the board with labels, the selection under
//! the cursor, the last move, the seats, the clock, the result, the annotations with their
//! legend, a replay's blunders, and the key help.

use crate::explain;
use crate::hint::Hints;
use crate::render_hints;
use crate::review::Blunder;
use crate::room_state::RoomState;
use crate::style::{Line, Style, side_by_side, text_width, wrap_line};
use jchomp_protocol::rules::{Bits, Cell, Play, Position};
use jchomp_protocol::wire::RoomStatus;
use ratatui::layout::{Constraint, Layout, Rect};

/// Symbol of an uneaten cell.
pub(crate) const UNEATEN: char = '#';
/// Symbol of an eaten cell.
pub(crate) const EATEN: char = '.';
/// Symbol of an uneaten poison cell.
pub(crate) const POISON: char = 'P';
/// Symbol of an eaten poison cell (the game was lost on it).
pub(crate) const POISON_EATEN: char = 'X';
/// Symbol of a cell eaten by the last move.
pub(crate) const LAST_MOVE: char = '~';

/// The state of the link to the server, as the screen shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Connected.
    Online,
    /// The connection dropped; reconnecting.
    Reconnecting,
    /// The connection is gone for good.
    Offline,
}

/// A message at the bottom of the screen, with a command to type (on a line of its own, never
/// broken) when it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The text.
    pub text: String,
    /// Good news or bad.
    pub(crate) style: Style,
    /// A command the text refers to, shown whole on the line after it.
    pub(crate) command: Option<String>,
    /// What to say instead, shorter, when the terminal is too narrow for the command.
    pub(crate) narrow: Option<String>,
}

impl Notice {
    /// A message without a command.
    pub(crate) fn new(text: impl Into<String>, style: Style) -> Notice {
        Notice {
            text: text.into(),
            style,
            command: None,
            narrow: None,
        }
    }

    /// A message about a command, shown whole under it; `narrow` is said instead on a
    /// terminal too narrow for the command.
    pub(crate) fn with_command(
        text: impl Into<String>,
        command: String,
        narrow: impl Into<String>,
        style: Style,
    ) -> Notice {
        Notice {
            command: Some(command),
            narrow: Some(narrow.into()),
            ..Notice::new(text, style)
        }
    }

    /// The message wrapped to lines of at most `width` columns, in its style; then its
    /// command whole on a line of its own, or, when the terminal is narrower than the command,
    /// where to find it instead (a command broken across lines does not run as copied).
    pub(crate) fn lines(&self, width: usize) -> impl Iterator<Item = Line> + '_ {
        let (text, command) = match (&self.command, &self.narrow) {
            (Some(c), _) if text_width(c) <= width => {
                (&self.text, vec![Line::styled(c.clone(), Style::Accent)])
            }
            (Some(_), Some(narrow)) => (narrow, Vec::new()),
            _ => (&self.text, Vec::new()),
        };
        wrap(text, width)
            .into_iter()
            .map(|l| Line::styled(l, self.style))
            .chain(command)
    }
}

/// The bottom line of a screen: the text being typed after its prompt, with a cursor, or else
/// the key help.
pub(crate) fn input_or_help(input: Option<(&str, &str)>, help: Line) -> Line {
    let Some((prompt, text)) = input else {
        return help;
    };
    let mut l = Line::styled(prompt, Style::Accent);
    l.push(text, Style::Plain).push("_", Style::Accent);
    l
}

/// Everything the game screen shows.
#[derive(Clone, Debug)]
pub(crate) struct GameView<'a> {
    /// The room.
    pub state: &'a RoomState,
    /// The viewer's seat; `None` for a spectator.
    pub me: Option<u8>,
    /// The cursor: the anchor of the selection being considered.
    pub cursor: Option<(i64, i64)>,
    /// Hints to overlay, if asked for and available.
    pub hints: Option<&'a Hints>,
    /// Whether hints are being computed for this position.
    pub analysing: bool,
    /// Milliseconds left for the seat to move, when the room has a clock.
    pub clock_ms: Option<u64>,
    /// The link to the server.
    pub link: Link,
    /// A message for the player.
    pub notice: Option<&'a Notice>,
    /// Text being typed (coordinates, a bot spec), with its prompt.
    pub input: Option<(&'a str, &'a str)>,
    /// Whether a replay is shown (changes the key help).
    pub replay: Option<(usize, usize)>,
    /// Whether annotations are offered (`?` in the key help): two players only.
    pub offer_hints: bool,
    /// The last move shown threw away a win or a tie (replays).
    pub blunder: Option<Blunder>,
    /// A replay's moves are still being reviewed.
    pub reviewing: bool,
    /// For each dropped seat the server holds for a `resume`, the whole seconds left before
    /// the hold runs out (and the game ends abandoned); `None` when no hold is known.
    pub offline: Vec<Option<u64>>,
}

impl<'a> GameView<'a> {
    /// The view of a stored game after `step` of its `total` moves: no seat, cursor, hints,
    /// blunder or clock.
    pub(crate) fn replay(state: &'a RoomState, step: usize, total: usize) -> GameView<'a> {
        GameView {
            state,
            me: None,
            cursor: None,
            hints: None,
            analysing: false,
            clock_ms: None,
            link: Link::Online,
            notice: None,
            input: None,
            replay: Some((step, total)),
            offer_hints: false,
            blunder: None,
            reviewing: false,
            offline: Vec::new(),
        }
    }
}

/// Width of a board cell in columns.
const CELL: usize = 3;
/// Width of the row labels.
const LABEL: usize = 3;

/// The cursor's selection: its cells and whether (and why not) the rules accept it.
struct Selection {
    cells: Bits,
    refused: Option<String>,
    poison: bool,
}

fn selection(view: &GameView<'_>, pos: &Position) -> Option<Selection> {
    let (row, col) = view.cursor?;
    let config = &view.state.config;
    let (rows, cols) = (i64::from(config.rows()), i64::from(config.cols()));
    let block = |end_row: i64, end_col: i64| {
        let mut cells = Bits::EMPTY;
        for r in row.max(0)..end_row.min(rows) {
            for c in col.max(0)..end_col.min(cols) {
                cells |= Bits::single(Bits::index(r as u8, c as u8));
            }
        }
        cells
    };
    let (er, ec) = config.fit();
    // JChomp: the whole eat rectangle, eaten cells included (they are why it is refused);
    // classic and edge breaks: the cell, and the uneaten cells it would eat (to the
    // bottom-right corner, or the piece a break takes).
    let mut cells = block(row + i64::from(er), col + i64::from(ec));
    if (0..rows).contains(&row) && (0..cols).contains(&col) {
        cells |= config.rect(Cell::new(row as u8, col as u8)) & pos.uneaten();
    }
    // Before the game and after it there is nothing to select.
    if view.state.status != RoomStatus::Playing {
        return None;
    }
    let refused = pos
        .check(config, row, col)
        .err()
        .map(|e| e.explain(config, row, col));
    Some(Selection {
        poison: cells.intersects(config.poison_mask()),
        cells,
        refused,
    })
}

/// The board within `window`: a line of column labels, then one line per row.
fn board(
    view: &GameView<'_>,
    pos: &Position,
    sel: Option<&Selection>,
    window: &Window,
) -> Vec<Line> {
    let config = &view.state.config;
    let wide = cell_width(view) == render_hints::CELL;
    let mut lines = Vec::new();
    let mut head = Line::styled(" ".repeat(LABEL), Style::Dim);
    for c in window.cols.clone() {
        let label = if wide {
            format!(" {c:<3}")
        } else {
            format!("{c:>2} ")
        };
        head.push(label, Style::Dim);
    }
    lines.push(head);
    let last = view
        .state
        .last_move()
        .map(|(_, cell)| config.rect(cell))
        .unwrap_or(Bits::EMPTY);
    let eaten = view.state.eaten();
    for r in window.rows.clone() {
        let mut line = Line::styled(format!("{r:>2} "), Style::Dim);
        for c in window.cols.clone() {
            let i = Bits::index(r, c);
            let is_poison = config.poison_mask().contains(i);
            let (symbol, mut style) = match (eaten.contains(i), is_poison) {
                (false, true) => (POISON, Style::Poison),
                (false, false) => (UNEATEN, Style::Uneaten),
                (true, true) => (POISON_EATEN, Style::Poison),
                (true, false) if last.contains(i) => (LAST_MOVE, Style::LastMove),
                (true, false) => (EATEN, Style::Eaten),
            };
            let mut text = if wide {
                format!(" {symbol}  ")
            } else {
                format!(" {symbol} ")
            };
            let under_cursor = sel.is_some_and(|s| s.cells.contains(i));
            // A classic selection can cover the whole board: its cells keep their annotations
            // (in the selection's colours) and only the selected cell its brackets. A JChomp
            // rectangle (at most 3×3) keeps its brackets.
            let anchor = view.cursor == Some((i64::from(r), i64::from(c)));
            let show_through = config.eat().is_none() && !anchor;
            let verdict = view
                .hints
                .and_then(|h| h.verdict(Cell::new(r, c)))
                .filter(|_| {
                    // The poison keeps its own symbol: it is never a move worth annotating.
                    !is_poison && pos.selections().contains(i) && (!under_cursor || show_through)
                });
            if let Some(v) = verdict {
                (text, style) = render_hints::cell(v);
            }
            if let Some(sel) = sel.filter(|s| s.cells.contains(i)) {
                let (open, close, s) = match (&sel.refused, sel.poison) {
                    (Some(_), _) => ('<', '>', Style::CursorBad),
                    (None, true) => ('[', ']', Style::CursorPoison),
                    (None, false) => ('[', ']', Style::CursorOk),
                };
                if verdict.is_none() {
                    let mid: String = text.chars().nth(1).into_iter().collect();
                    text = format!("{open}{mid}{close}");
                    if wide {
                        text.push(' ');
                    }
                }
                style = s;
            }
            line.push(text, style);
        }
        lines.push(line);
    }
    lines
}

/// The symbols' legend; in normal play the poison cells are marked cells that win.
fn legend(normal: bool) -> Line {
    let mut l = Line::new();
    l.push(format!("{UNEATEN}"), Style::Uneaten)
        .push(" chocolate ", Style::Dim)
        .push(format!("{EATEN}"), Style::Eaten)
        .push(" eaten ", Style::Dim)
        .push(format!("{LAST_MOVE}"), Style::LastMove)
        .push(" last move ", Style::Dim)
        .push(format!("{POISON}"), Style::Poison)
        .push(
            if normal {
                " marked (wins) "
            } else {
                " poison "
            },
            Style::Dim,
        )
        .push("[ ]", Style::CursorOk)
        .push(" selection ", Style::Dim)
        .push("< >", Style::CursorBad)
        .push(" refused", Style::Dim);
    l
}

fn seconds(ms: u64) -> String {
    format!("{}.{}s", ms / 1000, (ms % 1000) / 100)
}

/// The panel beside the board: the seats, then [`status`].
fn panel(view: &GameView<'_>, sel: Option<&Selection>, width: usize) -> Vec<Line> {
    let mut out = seats(view, width);
    out.push(Line::new());
    out.extend(status(view, sel, width, false));
    out
}

/// The seats, one a line, the one to move marked.
fn seats(view: &GameView<'_>, width: usize) -> Vec<Line> {
    let st = view.state;
    let mut out = Vec::new();
    out.push(Line::styled("Seats", Style::Title));
    for (i, seat) in st.seats.iter().enumerate() {
        let i = i as u8;
        let mut l = Line::new();
        let turn = st.to_move == Some(i) && st.status == RoomStatus::Playing;
        l.push(if turn { "> " } else { "  " }, Style::Accent);
        l.push(format!("{i} "), Style::Dim);
        match seat {
            None => {
                l.push("(free)", Style::Dim);
            }
            Some(s) => {
                let style = if turn { Style::Accent } else { Style::Plain };
                l.push(s.name.clone(), style);
                if view.me == Some(i) {
                    l.push(" (you)", Style::Good);
                }
                if s.bot {
                    l.push(" [bot]", Style::Dim);
                }
                if !s.connected {
                    match view.offline.get(usize::from(i)).copied().flatten() {
                        Some(secs) => l.push(format!(" [offline, {secs}s to resume]"), Style::Bad),
                        None => l.push(" [offline]", Style::Bad),
                    };
                }
            }
        }
        l.truncate(width);
        out.push(l);
    }
    out
}

/// What a player must see whatever the terminal's size: the turn and clock, the last move,
/// the result, what the selection under the cursor would do, the annotations' state and the
/// link. `compact` leaves out the blank line and the clock setting (small terminals).
fn status(view: &GameView<'_>, sel: Option<&Selection>, width: usize, compact: bool) -> Vec<Line> {
    let st = view.state;
    let mut out = Vec::new();
    match st.status {
        RoomStatus::Waiting => {
            let free = st.seats.iter().filter(|s| s.is_none()).count();
            out.push(Line::styled(
                format!(
                    "Waiting for {free} more player{}",
                    if free == 1 { "" } else { "s" }
                ),
                Style::Accent,
            ));
        }
        RoomStatus::Playing => {
            let mut l = Line::new();
            match st.to_move {
                Some(s) if Some(s) == view.me => {
                    l.push("Your turn", Style::Good);
                }
                Some(s) => {
                    l.push(
                        format!("{} to move", explain::seat_name(&st.seats, s)),
                        Style::Accent,
                    );
                }
                None => {
                    l.push("Playing", Style::Plain);
                }
            }
            if let Some(ms) = view.clock_ms {
                let style = if ms < 5000 { Style::Bad } else { Style::Accent };
                l.push(" · ", Style::Dim).push(seconds(ms), style);
            }
            out.push(l);
        }
        RoomStatus::Finished => {
            out.push(Line::styled("Game over", Style::Title));
        }
    }
    if let Some(ms) = st.move_time_ms().filter(|_| !compact) {
        out.push(Line::styled(
            format!("Clock: {} per move", seconds(ms)),
            Style::Dim,
        ));
    }
    for sentence in explain::rule_sentences(&st.config)
        .into_iter()
        .filter(|_| !compact)
    {
        out.extend(
            wrap(sentence, width)
                .into_iter()
                .map(|l| Line::styled(l, Style::Dim)),
        );
    }
    if let Some((seat, cell)) = st.last_move() {
        out.push(Line::styled(
            format!(
                "Last: {} at {cell} (move {})",
                explain::seat_name(&st.seats, seat),
                st.game.moves().len()
            ),
            Style::Dim,
        ));
    }
    if let Some(b) = view.blunder {
        out.push(Line::styled(b.words(), Style::Bad));
    }
    if let Some(r) = st.result {
        let r = jchomp_protocol::rules::GameResult::from(r);
        let loser = r.loser();
        let won = match (loser, r.winner()) {
            (Some(l), _) => view.me.is_some() && view.me != Some(l),
            (None, winner) => winner.is_some() && winner == view.me,
        };
        let style = if won {
            Style::Good
        } else if loser.is_some() {
            Style::Bad
        } else {
            Style::Accent
        };
        for l in wrap(&explain::outcome(r.into(), &st.seats, view.me), width) {
            out.push(Line::styled(l, style));
        }
    }
    if let Some(text) = rematch_text(view) {
        for l in wrap(&text, width) {
            out.push(Line::styled(l, Style::Accent));
        }
    }
    if let (Some(sel), Some((r, c))) = (sel, view.cursor) {
        if !compact {
            out.push(Line::new());
        }
        // Off turn, the selection is a preview of the next turn, not a threat.
        let when = if view.me.is_some() && view.me == st.to_move {
            ""
        } else {
            " on your turn"
        };
        let normal = st.config.play() == Play::Normal;
        let text = match (&sel.refused, sel.poison) {
            (Some(why), _) => format!("{r},{c}{when}: refused, {why}"),
            (None, true) if normal && when.is_empty() => {
                format!("{r},{c}: eats a MARKED cell, you win")
            }
            (None, true) if normal => format!("{r},{c}{when}: eats a MARKED cell, which wins"),
            (None, true) if when.is_empty() => format!("{r},{c}: eats POISON, you lose"),
            (None, true) => format!("{r},{c}{when}: eats POISON"),
            (None, false) => match sel.cells.count() {
                1 => format!("{r},{c}{when}: eats 1 cell"),
                n => format!("{r},{c}{when}: eats {n} cells"),
            },
        };
        let style = match (&sel.refused, sel.poison) {
            (Some(_), _) => Style::Bad,
            (None, true) => Style::CursorPoison,
            (None, false) => Style::Good,
        };
        for l in wrap(&text, width) {
            out.push(Line::styled(l, style));
        }
        let cell = Cell::new(r.max(0) as u8, c.max(0) as u8);
        let on_poison = st
            .config
            .poison_mask()
            .contains(Bits::index(cell.row, cell.col));
        if let Some(v) = view
            .hints
            .and_then(|h| h.verdict(cell))
            .filter(|_| !on_poison)
        {
            let (text, style) = render_hints::cursor_hint(v);
            for l in wrap(&text, width) {
                out.push(Line::styled(l, style));
            }
        }
    }
    out.extend(render_hints::status_lines(
        view.hints,
        view.analysing,
        view.reviewing,
    ));
    if view.link != Link::Online {
        out.push(Line::styled(
            match view.link {
                Link::Reconnecting => "Connection lost; reconnecting…",
                _ => "Disconnected from the server",
            },
            Style::Bad,
        ));
    }
    out
}

/// Wraps text at spaces to lines of at most `width` characters.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        let extra = if cur.is_empty() { 0 } else { 1 };
        if !cur.is_empty() && text_width(&cur) + extra + text_width(word) > width {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Once someone has asked for a rematch: who has, and which people it waits for (bots always
/// agree; a person who is offline must come back first).
fn rematch_text(view: &GameView<'_>) -> Option<String> {
    let st = view.state;
    if st.rematch.is_empty() {
        return None;
    }
    let name = |i: u8| {
        if view.me == Some(i) {
            "you".to_owned()
        } else {
            explain::seat_name(&st.seats, i)
        }
    };
    let asked: Vec<String> = st.rematch.iter().map(|&i| name(i)).collect();
    let waiting: Vec<String> = (0u8..)
        .zip(&st.seats)
        .filter(|(i, s)| s.as_ref().is_some_and(|s| !s.bot) && !st.rematch.contains(i))
        .map(|(i, s)| match s {
            Some(s) if !s.connected => format!("{} (offline)", name(i)),
            _ => name(i),
        })
        .collect();
    let mut text = format!("Rematch asked by {}", asked.join(", "));
    if !waiting.is_empty() {
        text.push_str(&format!("; waiting for {}", waiting.join(", ")));
    }
    text.push('.');
    Some(text)
}

/// The key help for the game screen: only the keys that work now — moves and `?` while the
/// game is in play (`?` in two-player games only), `b` while the room waits, Esc back to the
/// lobby once the game is over.
fn help(view: &GameView<'_>) -> Line {
    let status = view.state.status;
    let hint = if view.offer_hints && (view.replay.is_some() || status == RoomStatus::Playing) {
        "? hint  "
    } else {
        ""
    };
    let text = if view.replay.is_some() {
        format!("←/→ or h/l step  Home/End first/last  {hint}Esc back  q quit")
    } else if status == RoomStatus::Finished && view.me.is_some() {
        let asked = view.me.is_some_and(|me| view.state.rematch.contains(&me));
        let rematch = if asked { "" } else { "r rematch  " };
        format!("Game over: {rematch}n new room  Esc back to the lobby  q quit")
    } else if status == RoomStatus::Finished {
        "Game over: Esc back to the lobby  q quit".to_owned()
    } else if view.me.is_none() {
        format!("watching  {hint}Esc back to the lobby  q quit")
    } else if status == RoomStatus::Waiting {
        "b add a bot  Esc back to the lobby  q quit".to_owned()
    } else {
        format!("arrows/hjkl move  Enter eat  0-9 row,col  {hint}L leave  q quit")
    };
    Line::styled(text, Style::Dim)
}

/// The height from which the panel also lists the moves.
pub(crate) const MOVE_LIST_HEIGHT: usize = 30;

/// The moves so far, the latest last, in at most `lines` lines: a heading, then `N. name R,C`
/// (the heading says how many earlier moves are left out).
fn moves(view: &GameView<'_>, lines: usize, width: usize) -> Vec<Line> {
    let st = view.state;
    let all = st.game.moves();
    if all.is_empty() || lines < 2 {
        return Vec::new();
    }
    let shown = all.len().min(lines - 1);
    let first = all.len() - shown;
    let head = if first == 0 {
        "Moves".to_owned()
    } else {
        format!("Moves ({first} earlier)")
    };
    let mut out = vec![Line::styled(head, Style::Title)];
    for (i, m) in all.iter().enumerate().skip(first) {
        let mut l = Line::styled(format!("{:>3}. ", i + 1), Style::Dim);
        let name = if view.me == Some(m.seat) {
            "you".to_owned()
        } else {
            explain::seat_name(&st.seats, m.seat)
        };
        l.push(format!("{name} {}", m.cell), Style::Plain);
        l.truncate(width);
        out.push(l);
    }
    out
}

/// The smallest terminal the game screen is drawn in; below it the screen says so.
pub(crate) const MIN_SIZE: (usize, usize) = (24, 8);
/// The narrowest panel beside the board; with less room it goes below the board.
const PANEL_MIN: usize = 24;

/// The part of the board shown: every row and column when it fits, else a window that
/// follows the cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Window {
    rows: std::ops::Range<u8>,
    cols: std::ops::Range<u8>,
}

impl Window {
    /// A window of `rows` × `cols` (at least 1 each) on a board of `total`, around `focus`.
    fn around(total: (u8, u8), size: (usize, usize), focus: (u8, u8)) -> Window {
        let span = |total: u8, size: usize, focus: u8| {
            let size = size.clamp(1, usize::from(total)) as u8;
            let start = focus.saturating_sub(size / 2).min(total - size);
            start..start + size
        };
        Window {
            rows: span(total.0, size.0, focus.0),
            cols: span(total.1, size.1, focus.1),
        }
    }

    /// Whether the whole board is shown.
    fn whole(&self, total: (u8, u8)) -> bool {
        self.rows.len() == usize::from(total.0) && self.cols.len() == usize::from(total.1)
    }

    /// Where the window is, when it is not the whole board.
    fn note(&self, total: (u8, u8)) -> Option<Line> {
        (!self.whole(total)).then(|| {
            Line::styled(
                format!(
                    "rows {}–{}, cols {}–{} of {}×{}",
                    self.rows.start,
                    self.rows.end - 1,
                    self.cols.start,
                    self.cols.end - 1,
                    total.0,
                    total.1
                ),
                Style::Dim,
            )
        })
    }
}

/// Columns a board of `cols` columns of cells `cell` wide takes, labels included.
fn board_width(cols: usize, cell: usize) -> usize {
    LABEL + cell * cols + 1
}

/// Width of a board cell: wider while annotations are shown.
fn cell_width(view: &GameView<'_>) -> usize {
    if view.hints.is_some() {
        render_hints::CELL
    } else {
        CELL
    }
}

/// The cell the board's window follows: the cursor, else the last move, else the corner.
fn focus(view: &GameView<'_>) -> (u8, u8) {
    let config = &view.state.config;
    let clamp = |v: i64, n: u8| v.clamp(0, i64::from(n) - 1) as u8;
    match (view.cursor, view.state.last_move()) {
        (Some((r, c)), _) => (clamp(r, config.rows()), clamp(c, config.cols())),
        (None, Some((_, cell))) => (cell.row, cell.col),
        (None, None) => (0, 0),
    }
}

fn title(view: &GameView<'_>) -> Line {
    let st = view.state;
    let config = &st.config;
    let mut title = Line::styled("JChomp", Style::Title);
    let rule = explain::game_words(config);
    title.push(
        format!(
            "  room {} · {}×{} · {rule} · {} players",
            st.room,
            config.rows(),
            config.cols(),
            config.players()
        ),
        Style::Plain,
    );
    if let Some((i, n)) = view.replay {
        title.push(format!(" · replay {i}/{n}"), Style::Accent);
    } else if view.me.is_none() {
        title.push(" · watching", Style::Accent);
    }
    title
}

/// The lines kept at the bottom whatever the height: the annotations' legend, the message,
/// then the text being typed or the key help (wrapped, never cut).
fn bottom(view: &GameView<'_>, width: usize) -> Vec<Line> {
    let config = &view.state.config;
    let mut bottom: Vec<Line> = view
        .hints
        .map(|h| render_hints::legend(h, config.variant().is_jchomp() || config.no_square_bites()))
        .into_iter()
        .flat_map(|l| wrap_line(&l, width))
        .chain(view.notice.into_iter().flat_map(|n| n.lines(width)))
        .collect();
    if view.input.is_some() {
        bottom.push(input_or_help(view.input, Line::new()));
    } else {
        let help = help(view);
        bottom.extend(
            wrap(&help.text(), width)
                .into_iter()
                .map(|l| Line::styled(l, Style::Dim)),
        );
    }
    bottom
}

/// Renders the whole game screen for a terminal `width` columns wide, at its natural height
/// (without the list of moves a tall terminal shows).
pub(crate) fn render(view: &GameView<'_>, width: usize) -> Vec<Line> {
    render_within(view, width, usize::MAX)
}

/// Renders the game screen within `width` × `height`. The board's panel (seats, turn,
/// selection) goes beside the board when there is room, else below it in short form; a board
/// taller or wider than the room left is shown through a window that follows the cursor (and
/// says which rows and columns it shows). When the height is short the legend goes first, then
/// the title; the annotations' legend, the message and the key help always stay. Below
/// [`MIN_SIZE`] the screen says how large the terminal must be.
pub(crate) fn render_within(view: &GameView<'_>, width: usize, height: usize) -> Vec<Line> {
    if width < MIN_SIZE.0 || height < MIN_SIZE.1 {
        return too_small(width, height);
    }
    let st = view.state;
    let config = &st.config;
    let total = (config.rows(), config.cols());
    let pos = st.position();
    let sel = selection(view, &pos);
    let mut bottom = bottom(view, width);
    // The message gives way (from its top) before the board's last line and the key help.
    let max_bottom = height - 3;
    if bottom.len() > max_bottom {
        bottom.drain(..bottom.len() - max_bottom);
    }
    let cell = cell_width(view);
    let full_width = board_width(usize::from(total.1), cell);
    // A tall terminal (not the unbounded height of [`render`]) also lists the moves.
    let tall = (MOVE_LIST_HEIGHT..usize::MAX).contains(&height);
    let side = width >= full_width + PANEL_MIN;
    // The top-level split: the body above the rows kept at the bottom.
    let [body_area, _] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(cells(bottom.len()))])
            .areas(Rect::new(0, 0, cells(width), cells(height)));
    let room = usize::from(body_area.height);
    let body = if side {
        // The board at its full width, the panel beside it in the rest.
        let [board_area, panel_area] = Layout::horizontal([
            Constraint::Length(cells(full_width)),
            Constraint::Min(cells(PANEL_MIN)),
        ])
        .areas(body_area);
        let panel_width = usize::from(panel_area.width);
        let full_panel = panel(view, sel.as_ref(), panel_width);
        let want = (usize::from(total.0) + 1).max(full_panel.len());
        let room = if want + 2 <= room {
            // A tall terminal gives the rest of its height to the list of moves.
            if tall { room - 2 } else { want }
        } else {
            room.saturating_sub(usize::from(want < room))
        };
        let window = Window::around(total, (room - 1, usize::from(total.1)), focus(view));
        let note = window.note(total);
        let mut right = if full_panel.len() + note.iter().len() <= room {
            full_panel
        } else {
            status(view, sel.as_ref(), panel_width, true)
        };
        right.extend(note);
        // A tall terminal has room for the moves so far, the latest last.
        if tall && right.len() + 3 <= room {
            right.push(Line::new());
            right.extend(moves(view, room - right.len(), panel_width));
        }
        right.truncate(room);
        side_by_side(
            board(view, &pos, sel.as_ref(), &window),
            right,
            usize::from(board_area.width),
        )
    } else {
        let mut below = status(view, sel.as_ref(), width, true);
        let cols = (width - LABEL - 1) / cell;
        // The board (labels and rows) above the short panel and the line saying where a
        // window is; the panel keeps its rows, the board keeps at least its labels and one row.
        let partial = cols < usize::from(total.1) || usize::from(total.0) + 1 + below.len() > room;
        let [board_area, _] = Layout::vertical([
            Constraint::Length(cells(usize::from(total.0) + 1)),
            Constraint::Min(cells(below.len() + usize::from(partial))),
        ])
        .areas(body_area);
        let board_rows = usize::from(board_area.height).saturating_sub(1).max(1);
        let window = Window::around(total, (board_rows, cols), focus(view));
        below.extend(window.note(total));
        let mut body = board(view, &pos, sel.as_ref(), &window);
        below.truncate(room.saturating_sub(body.len()));
        body.extend(below);
        body
    };
    let needed = |title: bool, legend: bool| {
        usize::from(title) + body.len() + usize::from(legend) + bottom.len()
    };
    let keep_legend = needed(true, true) <= height;
    let keep_title = needed(true, keep_legend) <= height;
    let mut out = Vec::new();
    if keep_title {
        out.push(title(view));
    }
    out.extend(body);
    if keep_legend {
        out.push(legend(view.state.config.play() == Play::Normal));
    }
    out.extend(bottom);
    out.truncate(height);
    for l in &mut out {
        l.truncate(width);
    }
    out
}

/// A count of rows or columns as a terminal size.
fn cells(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// The screen of a terminal too small for the game: its size and the size needed.
fn too_small(width: usize, height: usize) -> Vec<Line> {
    let text = format!(
        "The terminal is {width}×{height}; the game needs at least {}×{}. Enlarge it, or q quits.",
        MIN_SIZE.0, MIN_SIZE.1
    );
    let mut out: Vec<Line> = wrap(&text, width.max(1))
        .into_iter()
        .map(|l| Line::styled(l, Style::Bad))
        .collect();
    out.truncate(height);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hint::Verdict;
    use crate::style::to_text;
    use jchomp_protocol::json::ResultJson;
    use jchomp_testkit::fixtures::{Fixture, SeatFixture, SnapshotFixture, seat, snapshot};

    /// Room r7 of alice and a bot playing `board` (30 s a move) after `cells`.
    fn state(board: &str, cells: &[(u8, u8)]) -> RoomState {
        let snapshot = snapshot("r7", board)
            .timed(30_000)
            .seats([seat("alice"), seat("bot").bot()])
            .play(cells)
            .version(cells.len() as u64 + 2);
        RoomState::from_snapshot(snapshot).unwrap()
    }

    fn view(state: &RoomState) -> GameView<'_> {
        GameView {
            state,
            me: Some(0),
            cursor: None,
            hints: None,
            clock_ms: Some(12_300),
            link: Link::Online,
            notice: None,
            input: None,
            replay: None,
            analysing: false,
            offer_hints: true,
            blunder: None,
            reviewing: false,
            offline: Vec::new(),
        }
    }

    #[test]
    fn small_board_shows_labels_symbols_seats_and_clock() {
        let st = state("4x5 eat 1x2 poison 0,0 poison 3,4", &[(2, 3), (0, 1)]);
        let text = to_text(&render(&view(&st), 80));
        let expected = "\
JChomp  room r7 · 4×5 · eat 1×2 · 2 players
    0  1  2  3  4  Seats
 0  P  ~  ~  #  #  > 0 alice (you)
 1  #  #  #  #  #    1 bot [bot]
 2  #  #  #  .  .
 3  #  #  #  #  P  Your turn · 12.3s
                   Clock: 30.0s per move
                   Last: bot at 0,1 (move 2)
# chocolate . eaten ~ last move P poison [ ] selection < > refused
arrows/hjkl move  Enter eat  0-9 row,col  ? hint  L leave  q quit
";
        assert_eq!(text, expected);
    }

    #[test]
    fn cursor_marks_valid_poisoned_and_refused_selections() {
        let st = state("4x5 eat 1x2 poison 0,0 poison 3,4", &[(2, 3)]);
        let mut v = view(&st);
        v.me = Some(1);
        v.cursor = Some((1, 1));
        let text = to_text(&render(&v, 80));
        assert!(text.contains(" 1  # [#][#] #  #"), "{text}");
        assert!(text.contains("1,1: eats 2 cells"), "{text}");

        v.cursor = Some((2, 2));
        let lines = render(&v, 80);
        let text = to_text(&lines);
        assert!(text.contains(" 2  #  # <#><~> ~"), "{text}");
        assert!(
            text.contains("2,2: refused, part of the 1×2 selection at (2,2) is already"),
            "{text}"
        );
        assert!(
            lines
                .iter()
                .flat_map(|l| &l.0)
                .any(|s| s.style == Style::CursorBad)
        );

        v.cursor = Some((3, 4));
        let text = to_text(&render(&v, 80));
        assert!(
            text.contains("3,4: refused, the 1×2 selection at (3,4) reaches outside"),
            "{text}"
        );

        v.cursor = Some((3, 3));
        let text = to_text(&render(&v, 80));
        assert!(text.contains("3,3: eats POISON, you lose"), "{text}");
    }

    #[test]
    fn edge_breaks_in_normal_play_mark_the_piece_a_break_takes_and_a_marked_cell_wins() {
        let st = state("5x6 variant breaks poison 2,3 play normal", &[(4, 3)]);
        let mut v = view(&st);
        v.me = Some(1);
        v.cursor = Some((3, 3));
        let text = to_text(&render(&v, 100));
        assert!(
            text.starts_with("JChomp  room r7 · 5×6 · edge breaks · normal play · 2 players\n"),
            "{text}"
        );
        // A break below the poison takes the rows from it down: here row 3, row 4 being eaten.
        assert!(text.contains(" 3 [#][#][#][#][#][#]"), "{text}");
        assert!(text.contains("3,3: eats 6 cells"), "{text}");
        assert!(
            text.contains("Normal play: whoever eats a marked cell"),
            "{text}"
        );
        assert!(text.contains("P marked (wins)"), "{text}");
        v.cursor = Some((0, 0));
        let text = to_text(&render(&v, 100));
        assert!(
            text.contains("0,0: refused, the cell (0,0) names no break"),
            "{text}"
        );
        v.cursor = Some((2, 3));
        let text = to_text(&render(&v, 100));
        assert!(text.contains("2,3: eats a MARKED cell, you win"), "{text}");
    }

    #[test]
    fn classic_boards_name_their_variant_and_mark_what_a_cell_eats() {
        let st = state("4x5 variant classic poison 0,0 poison 1,3", &[(2, 3)]);
        let mut v = view(&st);
        v.me = Some(1);
        v.cursor = Some((1, 2));
        let text = to_text(&render(&v, 80));
        assert!(
            text.starts_with("JChomp  room r7 · 4×5 · classic · 2 players\n"),
            "{text}"
        );
        // (1,2) eats the uneaten cells below and right of it, poison (1,3) among them.
        assert!(text.contains(" 1  #  # [#][P][#]"), "{text}");
        assert!(text.contains(" 2  #  # [#] ~  ~"), "{text}");
        assert!(text.contains(" 3  #  # [#] ~  ~"), "{text}");
        assert!(text.contains("1,2: eats POISON, you lose"), "{text}");
        v.cursor = Some((2, 4));
        let text = to_text(&render(&v, 80));
        assert!(text.contains(" 2  #  #  #  ~ <~>"), "{text}");
        assert!(
            text.contains("2,4: refused, the cell (2,4) is already eaten"),
            "{text}"
        );
        v.cursor = Some((2, 0));
        let text = to_text(&render(&v, 80));
        assert!(text.contains("2,0: eats 6 cells"), "{text}");
    }

    #[test]
    fn symbols_differ_and_styles_differ_for_each_kind_of_cell() {
        let st = state("4x5 eat 1x2 poison 0,0 poison 3,4", &[(2, 3), (0, 1)]);
        let lines = render(&view(&st), 80);
        let row0 = &lines[2];
        let styles: Vec<Style> = row0.0.iter().map(|s| s.style).collect();
        assert_eq!(
            styles,
            vec![
                Style::Dim,
                Style::Poison,
                Style::LastMove,
                Style::LastMove,
                Style::Uneaten,
                Style::Uneaten,
                Style::Plain,
                Style::Accent,
                Style::Dim,
                Style::Accent,
                Style::Good
            ]
        );
        let row2: Vec<Style> = lines[4].0.iter().map(|s| s.style).collect();
        assert!(row2.contains(&Style::Eaten));
    }

    #[test]
    fn a_15x15_board_fits_80x24() {
        let st = state("15x15 eat 2x2 poison 0,0 poison 14,14", &[(5, 5), (0, 1)]);
        let mut v = view(&st);
        let notice = Notice::new("It is not your turn.", Style::Bad);
        v.notice = Some(&notice);
        v.cursor = Some((7, 7));
        let lines = render(&v, 80);
        assert!(lines.len() <= 24, "{} lines", lines.len());
        assert!(lines.iter().all(|l| l.width() <= 80));
        let text = to_text(&lines);
        assert!(text.contains("14  #  #"), "{text}");
        assert!(text.contains("13 14 "), "{text}");
    }

    #[test]
    fn result_and_dropped_seats_are_shown() {
        let mut st = state("4x5 eat 1x2 poison 0,0 poison 3,4", &[(2, 3)]);
        st.status = RoomStatus::Finished;
        st.to_move = None;
        st.result = Some(ResultJson::Abandoned { loser: 1 });
        st.seats[1] = Some(seat("bob").offline());
        let mut v = view(&st);
        v.link = Link::Reconnecting;
        let text = to_text(&render(&v, 80));
        assert!(text.contains("1 bob [offline]"), "{text}");
        assert!(text.contains("Game over"), "{text}");
        assert!(
            text.contains("bob left the game and lost; you win."),
            "{text}"
        );
        assert!(text.contains("reconnecting"), "{text}");
    }

    #[test]
    fn item5_hints_label_the_valid_anchors_but_never_the_poison() {
        // Was `W3` / `L2`, then `L1` on the poison and `-13-13` run together.
        let st = state("4x5 eat 1x2 poison 0,0 poison 3,4", &[(2, 3)]);
        let hints = Hints {
            selections: vec![
                (Cell::new(0, 0), Verdict::Loss(1)),
                (Cell::new(1, 1), Verdict::Win(4)),
                (Cell::new(1, 2), Verdict::Loss(13)),
                (Cell::new(1, 3), Verdict::Loss(13)),
                (Cell::new(3, 0), Verdict::Loss(3)),
            ],
            ..Hints::default()
        };
        let mut v = view(&st);
        v.hints = Some(&hints);
        v.cursor = Some((0, 0));
        let text = to_text(&render(&v, 80));
        assert!(text.contains("    0   1   2   3   4"), "{text}");
        assert!(text.contains(" 0 [P] [#]  #   #   #"), "{text}");
        assert!(text.contains(" 1  #  +4  -13 -13  #"), "{text}");
        assert!(text.contains(" 3 -3   #   #   #   P"), "{text}");
        // The poison under the cursor says what it does, not a number of half-moves.
        assert!(text.contains("0,0 on your turn: eats POISON"), "{text}");
        assert!(!text.contains("hint: loses in 1"), "{text}");
        // Chocolate: the legend says where the numbers are; `#` is still explained.
        assert!(text.contains("# chocolate"), "{text}");
        assert!(
            text.contains("on chocolate, half-moves to the end if taken"),
            "{text}"
        );
    }

    #[test]
    fn a_short_terminal_keeps_the_message_and_the_keys() {
        let st = state("15x15 poison 0,0 poison 14,14", &[(5, 5)]);
        let mut v = view(&st);
        let notice = Notice::new("It is not your turn.", Style::Bad);
        v.notice = Some(&notice);
        let full = render(&v, 80);
        assert_eq!(full.len(), 20);
        let lines = render_within(&v, 80, 19);
        let text = to_text(&lines);
        assert_eq!(lines.len(), 19);
        assert!(!text.contains("# chocolate"), "{text}");
        assert!(text.starts_with("JChomp"), "{text}");
        let lines = render_within(&v, 80, 12);
        let text = to_text(&lines);
        assert_eq!(lines.len(), 12);
        assert!(text.starts_with("    0  1  2"), "{text}");
        assert!(text.contains("It is not your turn."), "{text}");
        assert!(text.ends_with("q quit\n"), "{text}");
    }

    #[test]
    fn item3_a_small_terminal_scrolls_the_board_to_the_cursor_and_keeps_the_status() {
        let st = state("15x15 eat 2x2 poison 0,0 poison 14,14", &[(5, 5)]);
        let mut v = view(&st);
        v.me = Some(1);
        let notice = Notice::new("It is not your turn.", Style::Bad);
        v.notice = Some(&notice);
        for (cursor, row, label) in [
            ((13, 12), "13", "12"),
            ((0, 0), " 0", " 0"),
            ((7, 3), " 7", " 3"),
        ] {
            v.cursor = Some(cursor);
            let lines = render_within(&v, 40, 12);
            let text = to_text(&lines);
            assert!(
                lines.len() <= 12 && lines.iter().all(|l| l.width() <= 40),
                "{text}"
            );
            // The cursor's row and column are on screen, with its brackets.
            let board_row = text
                .lines()
                .find(|l| l.starts_with(row))
                .unwrap_or_else(|| panic!("{text}"));
            assert!(board_row.contains('[') || board_row.contains('<'), "{text}");
            assert!(
                text.lines()
                    .any(|l| l.starts_with("   ") && l.contains(label)),
                "{text}"
            );
            // The turn, what the selection does, where the window is, the message, the keys.
            for want in [
                "Your turn",
                &format!("{},{}: ", cursor.0, cursor.1),
                "of 15×15",
                "It is not your turn.",
                "q quit",
            ] {
                assert!(text.contains(want), "{want:?} missing:\n{text}");
            }
        }
        // At 120×40 the whole board and the full panel show.
        let text = to_text(&render_within(&v, 120, 40));
        assert!(text.contains("14  #") && text.contains("Seats"), "{text}");
        assert!(!text.contains("of 15×15"), "{text}");
    }

    #[test]
    fn item3_wrapped_status_lines_keep_every_character() {
        let st = state("6x7 eat 1x2 poison 0,0", &[(5, 5)]);
        let mut v = view(&st);
        v.me = Some(1);
        v.cursor = Some((0, 0));
        for (w, h) in [(40, 12), (46, 24), (80, 24)] {
            let lines = render_within(&v, w, h);
            let text = to_text(&lines);
            assert!(lines.iter().all(|l| l.width() <= w), "{text}");
            let words: Vec<&str> = text.split_whitespace().collect();
            for word in ["0,0:", "eats", "POISON,", "you", "lose", "Your", "turn"] {
                assert!(words.contains(&word), "{word:?} at {w}×{h}:\n{text}");
            }
        }
    }

    #[test]
    fn item3_a_terminal_too_small_says_the_size_needed() {
        let st = state("6x7 eat 1x2 poison 0,0", &[]);
        let text = to_text(&render_within(&view(&st), 20, 6));
        assert!(
            text.replace('\n', " ").contains("needs at least 24×8"),
            "{text}"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 20), "{text}");
    }

    /// The game screen drawn on a ratatui test terminal of `width` × `height`.
    fn on_test_terminal(v: &GameView<'_>, width: u16, height: u16) -> String {
        let backend = ratatui::backend::TestBackend::new(width, height);
        let mut t = ratatui::Terminal::new(backend).unwrap();
        crate::terminal::draw(&mut t, true, |w, h| {
            render_within(v, usize::from(w), usize::from(h))
        })
        .unwrap();
        crate::terminal::buffer_text(t.backend().buffer())
    }

    #[test]
    fn the_panel_goes_beside_the_board_or_below_it_with_the_keys_at_the_bottom() {
        let st = state("6x7 eat 1x2 poison 0,0", &[(5, 5)]);
        let v = view(&st);
        let full = board_width(7, CELL);
        for (width, height) in [(80u16, 24u16), (40, 12)] {
            let text = on_test_terminal(&v, width, height);
            let rows: Vec<&str> = text.lines().collect();
            assert_eq!(rows.len(), usize::from(height));
            let last_text = rows.iter().rposition(|r| !r.is_empty()).unwrap();
            assert!(rows[last_text].ends_with("q quit"), "{text}");
            let board_rows: Vec<usize> = (0..rows.len())
                .filter(|&i| rows[i].starts_with(" 5 "))
                .collect();
            assert_eq!(board_rows.len(), 1, "{text}");
            let turn_row = rows
                .iter()
                .position(|r| r.contains("bot to move"))
                .unwrap_or_else(|| panic!("{text}"));
            if usize::from(width) >= full + PANEL_MIN {
                // Beside: the panel starts in the column after the board, on the board's rows.
                let labels = rows.iter().position(|r| r.starts_with("    0  1")).unwrap();
                assert_eq!(rows[labels].chars().skip(full).collect::<String>(), "Seats");
                assert!(turn_row < board_rows[0], "{text}");
            } else {
                // Below: the panel comes after the board's last row, nothing beside the board.
                assert!(!text.contains("Seats"), "{text}");
                assert!(rows[board_rows[0]].chars().count() <= full, "{text}");
                assert!(turn_row > board_rows[0], "{text}");
            }
        }
    }
}
