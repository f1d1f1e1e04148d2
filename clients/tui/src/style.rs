//! Styled text as the renderers produce it: [`Line`]s of [`Span`]s tagged with a [`Style`].
//! The renderers are pure; the terminal maps each style to colours (or to none with `NO_COLOR`).

/// What a piece of text shows; the terminal picks its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// Ordinary text.
    Plain,
    /// Headings.
    Title,
    /// Row and column labels, hints about keys.
    Dim,
    /// An uneaten cell.
    Uneaten,
    /// An eaten cell.
    Eaten,
    /// An uneaten poison cell.
    Poison,
    /// A cell eaten by the last move.
    LastMove,
    /// A cell of the selection under the cursor, when the selection is valid.
    CursorOk,
    /// A cell of the selection under the cursor, when the selection is valid but eats poison.
    CursorPoison,
    /// A cell of the selection under the cursor, when the rules refuse it.
    CursorBad,
    /// Good news (your turn, a win, a connected seat).
    Good,
    /// Bad news (an error, a loss, a dropped seat).
    Bad,
    /// Something to notice (the seat to move, the clock).
    Accent,
    /// The selected line of a list.
    Selected,
}

/// A piece of text in one style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The text (no newlines).
    pub text: String,
    /// How it is shown.
    pub style: Style,
}

/// One line of the screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line(pub Vec<Span>);

impl Line {
    /// An empty line.
    pub(crate) fn new() -> Line {
        Line(Vec::new())
    }

    /// A line of one span.
    pub(crate) fn styled(text: impl Into<String>, style: Style) -> Line {
        Line(vec![Span {
            text: text.into(),
            style,
        }])
    }

    /// A line of plain text.
    pub(crate) fn plain(text: impl Into<String>) -> Line {
        Line::styled(text, Style::Plain)
    }

    /// Appends a span.
    pub(crate) fn push(&mut self, text: impl Into<String>, style: Style) -> &mut Line {
        self.0.push(Span {
            text: text.into(),
            style,
        });
        self
    }

    /// Appends another line's spans.
    pub(crate) fn append(&mut self, other: Line) -> &mut Line {
        self.0.extend(other.0);
        self
    }

    /// The text without styles.
    pub(crate) fn text(&self) -> String {
        self.0.iter().map(|s| s.text.as_str()).collect()
    }

    /// Width in terminal columns.
    pub(crate) fn width(&self) -> usize {
        self.0.iter().map(|s| text_width(&s.text)).sum()
    }

    /// Pads the line with spaces to `width` columns.
    pub(crate) fn pad_to(&mut self, width: usize) -> &mut Line {
        let w = self.width();
        if w < width {
            self.push(" ".repeat(width - w), Style::Plain);
        }
        self
    }

    /// Cuts the line to at most `width` columns; a line that loses anything ends in `…`, so
    /// that a cut is never silent.
    pub(crate) fn truncate(&mut self, width: usize) -> &mut Line {
        if self.width() <= width {
            return self;
        }
        let mut left = width.saturating_sub(1);
        let mut out = Vec::new();
        let mut last_style = Style::Plain;
        for span in self.0.drain(..) {
            last_style = span.style;
            let n = text_width(&span.text);
            if n <= left {
                left -= n;
                out.push(span);
                continue;
            }
            let mut text = String::new();
            for c in span.text.chars() {
                let w = char_width(c);
                if w > left {
                    break;
                }
                left -= w;
                text.push(c);
            }
            out.push(Span {
                text,
                style: span.style,
            });
            break;
        }
        if width > 0 {
            out.push(Span {
                text: "…".to_owned(),
                style: last_style,
            });
        }
        self.0 = out;
        self
    }
}

/// Columns a character takes on a terminal: 2 for East Asian wide characters and emoji, 0 for
/// combining marks and zero-width characters, 1 otherwise. (An approximation of Unicode's
/// width tables that covers the characters names are likely to hold.)
pub(crate) fn char_width(c: char) -> usize {
    match c as u32 {
        0x0300..=0x036F | 0x200B..=0x200F | 0xFE00..=0xFE0F | 0x20D0..=0x20FF => 0,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD => 2,
        _ => 1,
    }
}

/// Columns a text takes on a terminal (see [`char_width`]).
pub(crate) fn text_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// Text cut to at most `width` columns, ending in `…` when something was cut.
pub(crate) fn ellipsize(text: &str, width: usize) -> String {
    if text_width(text) <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = char_width(c);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    if width > 0 {
        // A cut right after a space reads better without it: `5×5…`, not `5×5 …`.
        out.truncate(out.trim_end().len());
        out.push('…');
    }
    out
}

/// Text safe to print on a terminal: control characters (escape sequences a hostile player
/// name could carry, newlines, tabs) become `?`.
pub(crate) fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(char::is_control) {
        text.chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect::<String>()
            .into()
    } else {
        text.into()
    }
}

/// Wraps a styled line at spaces into lines of at most `width` columns, each word keeping its
/// style (a word wider than `width` is cut).
pub(crate) fn wrap_line(line: &Line, width: usize) -> Vec<Line> {
    let mut out = Vec::new();
    let mut cur = Line::new();
    // Words with their styles; a space between spans or words is a break opportunity.
    let mut pending_space = false;
    for span in &line.0 {
        for (i, word) in span.text.split(' ').enumerate() {
            if i > 0 {
                pending_space = true;
            }
            if word.is_empty() {
                continue;
            }
            let gap = usize::from(pending_space && cur.width() > 0);
            if cur.width() > 0 && cur.width() + gap + text_width(word) > width {
                out.push(std::mem::take(&mut cur));
            } else if gap == 1 {
                cur.push(" ", span.style);
            }
            pending_space = false;
            cur.push(word, span.style);
        }
        if span.text.ends_with(' ') {
            pending_space = true;
        }
    }
    if cur.width() > 0 {
        out.push(cur);
    }
    for l in &mut out {
        l.truncate(width);
    }
    out
}

/// Puts two columns side by side: `left` padded to `width`, then `right`.
pub(crate) fn side_by_side(left: Vec<Line>, right: Vec<Line>, width: usize) -> Vec<Line> {
    let n = left.len().max(right.len());
    let mut left = left.into_iter();
    let mut right = right.into_iter();
    (0..n)
        .map(|_| {
            let mut line = left.next().unwrap_or_default();
            if let Some(r) = right.next() {
                line.pad_to(width);
                line.append(r);
            }
            line
        })
        .collect()
}

/// The lines as plain text, one per line (for tests and non-terminal output).
pub fn to_text(lines: &[Line]) -> String {
    let mut out = String::new();
    for l in lines {
        out.push_str(l.text().trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_count_twice() {
        assert_eq!(text_width("ann"), 3);
        assert_eq!(text_width("山田"), 4);
        assert_eq!(text_width("e\u{301}"), 1);
        let mut l = Line::plain("山田太郎");
        l.truncate(5);
        assert_eq!(l.text(), "山田…");
        assert_eq!(
            to_text(&side_by_side(
                vec![Line::plain("山")],
                vec![Line::plain("x")],
                4
            )),
            "山  x\n"
        );
    }

    #[test]
    fn styled_lines_wrap_at_spaces_and_keep_their_styles() {
        let mut l = Line::styled("half-moves: ", Style::Dim);
        l.push("+N", Style::Good)
            .push(" win, ", Style::Dim)
            .push("-N", Style::Bad);
        l.push(" loss", Style::Dim);
        let lines = wrap_line(&l, 15);
        assert_eq!(to_text(&lines), "half-moves: +N\nwin, -N loss\n");
        assert_eq!(lines[0].0.last().unwrap().style, Style::Good);
        assert!(
            lines[1]
                .0
                .iter()
                .any(|s| s.text == "-N" && s.style == Style::Bad)
        );
        assert_eq!(wrap_line(&l, 80)[0].text(), "half-moves: +N win, -N loss");
    }

    #[test]
    fn cut_text_ends_in_an_ellipsis() {
        assert_eq!(ellipsize("alexandra", 9), "alexandra");
        assert_eq!(ellipsize("alexandra", 6), "alexa…");
        assert_eq!(ellipsize("山田太郎", 5), "山田…");
        assert_eq!(text_width(&ellipsize("山田太郎", 4)), 3);
        assert_eq!(ellipsize("5×5 eat 1×1", 5), "5×5…");
    }

    #[test]
    fn control_characters_never_reach_the_terminal() {
        assert_eq!(printable("ann"), "ann");
        assert_eq!(printable("\u{1b}[2Jevil\nname\u{7}"), "?[2Jevil?name?");
    }

    #[test]
    fn columns_line_up_and_lines_truncate() {
        let left = vec![Line::plain("ab"), Line::plain("abcd")];
        let right = vec![Line::plain("X"), Line::plain("Y"), Line::plain("Z")];
        let text = to_text(&side_by_side(left, right, 5));
        assert_eq!(text, "ab   X\nabcd Y\n     Z\n");
        let mut l = Line::plain("hello");
        l.push("world", Style::Bad).truncate(7);
        assert_eq!(l.text(), "hellow…");
        assert_eq!(l.0.len(), 3);
        // A line that fits is left alone.
        let mut fits = Line::plain("hello");
        fits.truncate(5);
        assert_eq!(fits.text(), "hello");
    }

    #[test]
    fn item3_a_cut_line_says_so_with_an_ellipsis() {
        let mut l = Line::plain("Last: random at 3,2 (moves 7)");
        l.truncate(24);
        assert_eq!(l.text(), "Last: random at 3,2 (mo…");
        assert_eq!(text_width(&l.text()), 24);
    }
}
