//! The annotations as the game screen draws them: a verdict in a three-column board cell, the
//! legend line that explains the numbers and marks, and the panel's lines about them. Win and
//! loss differ in colour and in their sign, so they stay apart with `NO_COLOR`.

use crate::hint::{Hints, MAX_SHOWN_PLIES, Source, Verdict};
use crate::style::{Line, Style};

/// The style of a verdict: green for a win, red for a loss, yellow for a tie, dim if unknown.
pub fn style(v: Verdict) -> Style {
    match v {
        Verdict::Win(_) => Style::Good,
        Verdict::Loss(_) => Style::Bad,
        Verdict::Tie => Style::Accent,
        Verdict::Unknown => Style::Dim,
    }
}

/// Width of a board cell while annotations are shown: a space, then up to three characters,
/// so neighbouring numbers never run together (` +4  -13  = `).
pub const CELL: usize = 4;

/// A board cell showing a verdict, ending in a space: a signed number with its first digit
/// where the cell's symbol would be (`+4  `, `-13 `), a lone mark in the symbol's place
/// (` =  `, ` ?  `).
pub fn cell(v: Verdict) -> (String, Style) {
    let label = v.label();
    let text = if label.chars().count() == 1 {
        format!(" {label}  ")
    } else {
        format!("{label:<3} ")
    };
    (text, style(v))
}

/// The legend of the annotations: where they are, what the numbers count and what each mark
/// means (a tie only where the game can tie, `?` and `+…` only when shown).
pub fn legend(hints: &Hints, ties: bool) -> Line {
    let mut l = Line::styled("on chocolate, half-moves to the end if taken: ", Style::Dim);
    l.push("+N", Style::Good)
        .push(" win, ", Style::Dim)
        .push("-N", Style::Bad)
        .push(" loss (longest delay)", Style::Dim);
    if ties {
        l.push(", ", Style::Dim)
            .push("=", Style::Accent)
            .push(" tie", Style::Dim);
    }
    if hints.has_unknown() {
        l.push(", ", Style::Dim)
            .push("?", Style::Dim)
            .push(" unproven", Style::Dim);
    }
    if hints.has_long() {
        l.push(", ", Style::Dim)
            .push("+…", Style::Good)
            .push(format!(" over {MAX_SHOWN_PLIES}"), Style::Dim);
    }
    l
}

/// The panel's text about the selection under the cursor (`hint: wins in 4 half-moves (+4)`)
/// and its style.
pub fn cursor_hint(v: Verdict) -> (String, Style) {
    (format!("hint: {}", v.words()), style(v))
}

/// The panel's lines about where the annotations stand: being computed, given by the engine
/// while the classic database is prepared, a replay's moves being reviewed.
pub fn status_lines(hints: Option<&Hints>, analysing: bool, reviewing: bool) -> Vec<Line> {
    let mut out = Vec::new();
    if analysing {
        out.push(Line::styled("hint: analysing…", Style::Dim));
    }
    if hints.is_some_and(|h| h.source == Source::EngineWhileDatabasePrepares) {
        out.push(Line::styled("preparing the classic database…", Style::Dim));
    }
    if reviewing {
        out.push(Line::styled("reviewing the moves…", Style::Dim));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hint::analyse_within;
    use crate::render_game::{GameView, render};
    use crate::room_state::RoomState;
    use crate::style::to_text;
    use crate::terminal::{buffer_text, colours, draw};
    use jchomp_protocol::rules::Cell;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    #[test]
    fn item5_an_annotated_board_reads_with_and_without_colour() {
        // The 4×4 classic start, annotated by the engine: 1,1 is the one winning move.
        let record = jchomp_testkit::fixtures::record("4x4 variant classic poison 0,0");
        let state = RoomState::from_record(&record, 0).unwrap();
        let hints = analyse_within(&state.config, &state.position(), None).unwrap();
        let mut view = GameView::replay(&state, 0, 0);
        view.hints = Some(&hints);
        let lines = render(&view, 80);
        let text = to_text(&lines);
        // Numbers a cell apart (never `-13-13`), the poison still `P`, never a number.
        assert!(text.contains(" 0  P  -3  -9  -9  "), "{text}");
        assert!(text.contains(" 1 -3  +8  -9  -9  "), "{text}");
        assert!(
            text.contains(
                "on chocolate, half-moves to the end if taken: +N win, -N loss (longest delay)\n"
            ),
            "{text}"
        );
        // Without colour (NO_COLOR) the signs and the legend are all there is, and enough.
        let mut plain = Terminal::new(TestBackend::new(80, 24)).unwrap();
        draw(&mut plain, false, |_, _| lines.clone()).unwrap();
        let buf = plain.backend().buffer();
        let text = buffer_text(buf);
        for want in [" 1 -3  +8  -9  -9", "+N win, -N loss"] {
            assert!(text.contains(want), "{text}");
        }
        assert!(
            buf.content()
                .iter()
                .all(|c| c.fg == ratatui::style::Color::Reset)
        );
        // With colour, a win and a loss are also told apart by their colours.
        let cell_colours = |sign: char| {
            let spans = lines.iter().skip(2).take(4).flat_map(|l| &l.0);
            let styles: Vec<_> = spans
                .filter(|s| s.text.starts_with(sign))
                .map(|s| colours(s.style))
                .collect();
            assert!(!styles.is_empty(), "no {sign} cell");
            styles
        };
        let (wins, losses) = (cell_colours('+'), cell_colours('-'));
        assert!(wins.iter().all(|c| *c == wins[0] && !losses.contains(c)));
        let mut coloured = Terminal::new(TestBackend::new(80, 24)).unwrap();
        draw(&mut coloured, true, |_, _| lines.clone()).unwrap();
        let buf = coloured.backend().buffer();
        assert!(
            buf.content()
                .iter()
                .any(|c| c.fg == colours(Style::Good).fg.unwrap())
        );
    }

    #[test]
    fn item5_cells_are_four_columns_apart_and_win_and_loss_differ_in_text_and_colour() {
        for v in [
            Verdict::Win(2),
            Verdict::Loss(13),
            Verdict::Win(120),
            Verdict::Tie,
            Verdict::Unknown,
        ] {
            assert_eq!(crate::style::text_width(&cell(v).0), CELL, "{v:?}");
            assert!(cell(v).0.ends_with(' '), "{v:?}");
        }
        assert_eq!(cell(Verdict::Win(4)).0, "+4  ");
        assert_eq!(cell(Verdict::Loss(13)).0, "-13 ");
        assert_eq!(cell(Verdict::Tie).0, " =  ");
        assert_eq!(cell(Verdict::Unknown).0, " ?  ");
        assert_ne!(style(Verdict::Win(4)), style(Verdict::Loss(5)));
        assert_ne!(style(Verdict::Tie), style(Verdict::Unknown));
    }

    #[test]
    fn the_legend_names_only_the_marks_that_can_show() {
        let mut hints = Hints {
            selections: vec![(Cell::new(0, 0), Verdict::Loss(1))],
            ..Hints::default()
        };
        let text = legend(&hints, false).text();
        assert_eq!(
            text,
            "on chocolate, half-moves to the end if taken: +N win, -N loss (longest delay)"
        );
        hints.selections.push((Cell::new(0, 1), Verdict::Unknown));
        hints.selections.push((Cell::new(0, 2), Verdict::Win(104)));
        let text = legend(&hints, true).text();
        assert!(text.ends_with("= tie, ? unproven, +… over 99"), "{text}");
    }
}
