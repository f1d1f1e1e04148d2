//! A titled list as a ratatui `Table` in a `Block`: column widths from `Constraint`s (columns
//! that may not be cut get their full width, the others share what is left and are cut with
//! `…`), the selection marked `> ` and kept in view, drawn into styled lines for the lobby or
//! into plain text for the printing commands.

use crate::style::{Line, Style, ellipsize, printable, text_width};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Block, HighlightSpacing, Row, StatefulWidget, Table, TableState, Widget};

/// The columns between the selection mark and the first cell, and between cells.
const SPACING: u16 = 2;

/// A list to draw: a title, a heading per column, and rows of cells with their styles.
#[derive(Clone, Debug)]
pub struct ListTable<'a, const N: usize> {
    /// The title above the heading.
    pub title: String,
    /// The column headings.
    pub heading: [&'a str; N],
    /// The rows' cells.
    pub rows: &'a [[String; N]],
    /// Each row's style when it is not selected.
    pub styles: &'a [Style],
    /// The columns that may be cut (with `…`) when the row does not fit.
    pub cuttable: &'a [usize],
    /// The selected row.
    pub selected: usize,
}

impl<const N: usize> ListTable<'_, N> {
    /// Each column's widest cell (or heading), in terminal columns.
    fn widest(&self) -> [u16; N] {
        let width = |s: &str| u16::try_from(text_width(s)).unwrap_or(u16::MAX);
        let mut widest = self.heading.map(width);
        for r in self.rows {
            for (w, c) in widest.iter_mut().zip(r) {
                *w = (*w).max(width(&printable(c)));
            }
        }
        widest
    }

    /// The columns the cells take with none cut: every column at its widest cell, with the
    /// spacing between them.
    fn natural_width(&self) -> u16 {
        let gaps = SPACING.saturating_mul((N as u16).saturating_sub(1));
        self.widest()
            .iter()
            .fold(gaps, |sum, &w| sum.saturating_add(w))
    }

    /// The narrowest a cuttable column is cut to while the headings fit: its heading (at least
    /// four columns), or its widest cell if that is narrower.
    fn floor(&self, widest: &[u16; N], i: usize) -> u16 {
        widest[i].min(text_width(self.heading[i]).max(4) as u16)
    }

    /// The columns the cells take with the cuttable columns at their floor and the others
    /// whole.
    fn least_width(&self) -> u16 {
        let widest = self.widest();
        self.cuttable.iter().fold(self.natural_width(), |sum, &i| {
            sum.saturating_sub(widest[i]) + self.floor(&widest, i)
        })
    }

    /// The column constraints for `width` columns of cells: every column at its widest cell
    /// when they all fit; otherwise the uncut columns keep that width and the cuttable ones
    /// share the rest in proportion to their widest cell, none narrower than its heading (or
    /// four columns) while the headings fit, all squeezed in proportion when even they do not.
    pub fn constraints(&self, width: u16) -> [Constraint; N] {
        let widest = self.widest();
        let mut out = widest.map(Constraint::Length);
        let natural = self.natural_width();
        if natural <= width {
            return out;
        }
        let cut_natural = self.cuttable.iter().map(|&i| widest[i]).sum::<u16>();
        let mut avail = width.saturating_sub(natural.saturating_sub(cut_natural));
        let floor = |i: usize| self.floor(&widest, i);
        if self.cuttable.iter().map(|&i| floor(i)).sum::<u16>() > avail {
            for &i in self.cuttable {
                out[i] = Constraint::Fill(widest[i]);
            }
            return out;
        }
        // Pin the columns whose share would fall below their floor, then share again.
        let mut open: Vec<usize> = self.cuttable.to_vec();
        let share = |avail: u16, open: &[usize], i: usize| {
            let weight = open.iter().map(|&j| u32::from(widest[j])).sum::<u32>();
            u32::from(avail) * u32::from(widest[i]) / weight.max(1)
        };
        while let Some(k) = open
            .iter()
            .position(|&i| share(avail, &open, i) < u32::from(floor(i)))
        {
            let i = open.remove(k);
            out[i] = Constraint::Length(floor(i));
            avail -= floor(i);
        }
        let mut lengths: Vec<u16> = open
            .iter()
            .map(|&i| u16::try_from(share(avail, &open, i)).unwrap_or(widest[i]))
            .collect();
        // Hand out what rounding down left over, one column at a time.
        let mut left = avail.saturating_sub(lengths.iter().sum());
        for k in (0..open.len()).cycle().take(open.len() * 2) {
            if left > 0 && lengths[k] < widest[open[k]] {
                lengths[k] += 1;
                left -= 1;
            }
        }
        for (l, &i) in lengths.into_iter().zip(&open) {
            out[i] = Constraint::Length(l);
        }
        out
    }

    /// The `Table` widget with `cells_width` columns for its cells: each cell made safe to
    /// print and cut with `…` to its column's width, the heading above, and with `marked` a
    /// `> ` column before the cells marking the selection.
    fn table(&self, cells_width: u16, marked: bool) -> Table<'_> {
        let constraints = self.constraints(cells_width);
        let widths = Layout::horizontal(constraints)
            .spacing(SPACING)
            .split(Rect::new(0, 0, cells_width, 1));
        let rows = self.rows.iter().map(|r| {
            Row::new(
                r.iter()
                    .zip(widths.iter())
                    .map(|(c, w)| ellipsize(&printable(c), usize::from(w.width))),
            )
        });
        let table = Table::new(rows, constraints)
            .header(Row::new(self.heading))
            .column_spacing(SPACING);
        if marked {
            table
                .highlight_symbol("> ")
                .highlight_spacing(HighlightSpacing::Always)
        } else {
            table.highlight_spacing(HighlightSpacing::Never)
        }
    }

    /// The table drawn `width` × `height` (title, heading, then as many rows as fit, scrolled to
    /// show the selection) as styled lines with trailing blanks cut.
    pub fn lines(&self, width: u16, height: u16) -> Vec<Line> {
        let area = Rect::new(0, 0, width, height);
        let table = self
            .table(width.saturating_sub(SPACING), true)
            .block(Block::new().title(self.title.as_str()));
        let mut state = TableState::default().with_selected(Some(self.selected));
        let mut buf = Buffer::empty(area);
        StatefulWidget::render(table, area, &mut buf, &mut state);
        let shown = usize::from(height.saturating_sub(2));
        let first = state.offset();
        let mut out = Vec::new();
        for y in 0..height {
            let style = match usize::from(y) {
                0 => Style::Title,
                1 => Style::Dim,
                i if i - 2 >= shown || first + i - 2 >= self.rows.len() => break,
                i if first + i - 2 == self.selected => Style::Selected,
                i => self
                    .styles
                    .get(first + i - 2)
                    .copied()
                    .unwrap_or(Style::Plain),
            };
            out.push(Line::styled(row_text(&buf, y), style));
        }
        out
    }

    /// The table as plain text for printing: the heading and every row, one line each, with no
    /// title, no selection mark and no trailing blanks, at most `width` columns wide (and no
    /// wider than the widest row needs, so an unlimited `width` cuts nothing). Ids, dates and
    /// headings are never cut: when even they do not fit, the lines are wider than `width`.
    pub fn plain(&self, width: usize) -> String {
        let width = u16::try_from(width)
            .unwrap_or(u16::MAX)
            .max(self.least_width())
            .min(self.natural_width());
        let height = u16::try_from(self.rows.len() + 1).unwrap_or(u16::MAX);
        let area = Rect::new(0, 0, width, height);
        let mut buf = Buffer::empty(area);
        Widget::render(self.table(width, false), area, &mut buf);
        (0..height).map(|y| row_text(&buf, y) + "\n").collect()
    }
}

/// The text of one buffer row, the cells hidden under a wide character skipped and trailing
/// blanks cut.
fn row_text(buf: &Buffer, y: u16) -> String {
    let mut text = String::new();
    let mut skip = 0;
    for x in 0..buf.area.width {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        let symbol = buf[(x, y)].symbol();
        skip = text_width(symbol).saturating_sub(1);
        text.push_str(symbol);
    }
    text.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::to_text;

    fn table<'a>(
        rows: &'a [[String; 3]],
        styles: &'a [Style],
        selected: usize,
    ) -> ListTable<'a, 3> {
        ListTable {
            title: "Things".into(),
            heading: ["ID", "WHEN", "WHAT"],
            rows,
            styles,
            cuttable: &[2],
            selected,
        }
    }

    fn row(id: &str, what: &str) -> [String; 3] {
        [id.into(), "2026-01-01 10:00".into(), what.into()]
    }

    #[test]
    fn rows_that_fit_are_whole_with_the_selection_marked() {
        let rows = [row("a1", "short"), row("b22", "also short")];
        let lines = table(&rows, &[Style::Plain, Style::Dim], 1).lines(80, 10);
        assert_eq!(
            to_text(&lines),
            "Things\n  ID   WHEN              WHAT\n  a1   2026-01-01 10:00  short\n> b22  2026-01-01 10:00  also short\n"
        );
        assert_eq!(lines[2].0[0].style, Style::Plain);
        assert_eq!(lines[3].0[0].style, Style::Selected);
    }

    #[test]
    fn at_40_columns_only_the_cuttable_column_is_cut() {
        let rows = [row("game-0042", "alexandra v bartholomew v cornelius")];
        let lines = table(&rows, &[Style::Plain], 0).lines(40, 10);
        let text = to_text(&lines);
        let r = text.lines().nth(2).unwrap();
        assert!(
            r.starts_with("> game-0042  2026-01-01 10:00  alex"),
            "{text}"
        );
        assert!(r.ends_with('…'), "{text}");
        assert!(lines.iter().all(|l| l.width() <= 40), "{text}");
    }

    #[test]
    fn a_long_list_scrolls_to_the_selection() {
        let rows: Vec<[String; 3]> = (0..30).map(|i| row(&format!("r{i}"), "x")).collect();
        let lines = table(&rows, &[], 25).lines(80, 7);
        let text = to_text(&lines);
        assert_eq!(lines.len(), 7, "{text}");
        assert!(text.contains("> r25 "), "{text}");
    }

    #[test]
    fn wide_characters_are_read_back_once() {
        let rows = [row("z1", "名人 v 棋士")];
        let lines = table(&rows, &[Style::Plain], 0).lines(80, 5);
        assert_eq!(lines[2].text(), "> z1  2026-01-01 10:00  名人 v 棋士");
    }

    #[test]
    fn plain_text_has_no_title_or_mark_and_cuts_like_the_lobby() {
        let rows = [
            row("game-0042", "alexandra v bartholomew v cornelius"),
            row("g7", "ann v bob"),
        ];
        let t = table(&rows, &[], 1);
        assert_eq!(
            t.plain(usize::MAX),
            "ID         WHEN              WHAT\n\
             game-0042  2026-01-01 10:00  alexandra v bartholomew v cornelius\n\
             g7         2026-01-01 10:00  ann v bob\n"
        );
        let text = t.plain(40);
        assert!(text.lines().all(|l| text_width(l) <= 40), "{text}");
        let first = text.lines().nth(1).unwrap();
        assert!(
            first.starts_with("game-0042  2026-01-01 10:00  al"),
            "{text}"
        );
        assert!(first.ends_with('…'), "{text}");
        // The lobby cuts the same column at the same width, only shifted by the mark.
        let lobby = t.lines(42, 10);
        assert_eq!(lobby[2].text(), format!("  {first}"));
    }

    #[test]
    fn plain_text_too_narrow_for_the_whole_columns_keeps_them_whole_and_is_wider() {
        let rows = [row("game-0042", "alexandra v bartholomew")];
        let text = table(&rows, &[], 0).plain(20);
        assert_eq!(
            text,
            "ID         WHEN              WHAT\ngame-0042  2026-01-01 10:00  ale…\n"
        );
    }
}
