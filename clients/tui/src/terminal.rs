//! The terminal: raw mode and the alternate screen (always restored, on exit, on panic and on
//! a signal), and drawing screens through ratatui — styled [`Line`]s as a [`Screen`] widget,
//! with colours, or without them when `NO_COLOR` is set; ratatui's buffer diffing sends only
//! the cells that changed.

use crate::style::{Line, Style, printable};
use crossterm::terminal;
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use ratatui::widgets::Widget;
use std::io::{self, Stdout, Write};
use std::sync::{Mutex, Once};

/// What to print after the terminal is restored if the program panics: the seat left open and
/// how to take it back.
static FAREWELL: Mutex<Option<String>> = Mutex::new(None);

/// Sets what a panic prints after restoring the terminal (the runner keeps it up to date).
pub fn set_farewell(text: Option<String>) {
    if let Ok(mut f) = FAREWELL.lock() {
        *f = text;
    }
}

/// Whether to use colours: not when `NO_COLOR` is set to anything non-empty.
pub fn colour_enabled() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// How wide printed output may be: the terminal's width when standard output is one, else
/// `$COLUMNS` when set, else unlimited (a pipe or a file gets whole lines).
pub fn output_width() -> usize {
    use std::io::IsTerminal;
    if io::stdout().is_terminal()
        && let Ok((w, _)) = terminal::size()
    {
        return usize::from(w);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or(usize::MAX)
}

/// Puts the terminal back as it was: cooked mode, main screen, visible cursor, default
/// colours. Safe to call more than once, and from a signal's handling.
pub fn restore() {
    restore_on(&mut io::stdout());
}

/// [`restore`], with the screen's escape sequences written to `screen`.
fn restore_on(screen: &mut impl Write) {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(
        screen,
        crossterm::style::ResetColor,
        cursor::Show,
        terminal::LeaveAlternateScreen
    );
}

/// What the panic hook does, apart from where it writes: puts the terminal back (its escape
/// sequences on `screen`), lets `report` print the panic message on the restored terminal, then
/// prints the `farewell` (the seat's resume command) on `err`, taking it so it is printed once.
fn on_panic(
    screen: &mut impl Write,
    report: impl FnOnce(),
    farewell: &Mutex<Option<String>>,
    err: &mut impl Write,
) {
    restore_on(screen);
    report();
    if let Some(text) = farewell.lock().ok().and_then(|mut f| f.take()) {
        let _ = writeln!(err, "{text}");
        let _ = err.flush();
    }
}

/// Holds the terminal in raw mode on the alternate screen, with the ratatui terminal that
/// draws on it; restores it when dropped, and a panic hook restores it before the panic
/// message is printed.
pub struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl std::fmt::Debug for TerminalGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TerminalGuard")
    }
}

impl TerminalGuard {
    /// Enters raw mode and the alternate screen.
    pub fn enter() -> io::Result<TerminalGuard> {
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                // A failure inside the hint engine is reported on screen, not here.
                if std::thread::current().name() == Some(crate::hint::ENGINE_THREAD) {
                    return;
                }
                on_panic(
                    &mut io::stdout(),
                    || previous(info),
                    &FAREWELL,
                    &mut io::stderr(),
                );
            }));
        });
        terminal::enable_raw_mode()?;
        // From here on, a failure leaves through the guard's drop, which restores.
        let guard = TerminalGuard {
            terminal: Terminal::new(CrosstermBackend::new(io::stdout()))?,
        };
        // Ratatui's own clear asks the terminal where its cursor is; a blank screen needs no
        // answer.
        execute!(
            io::stdout(),
            terminal::EnterAlternateScreen,
            cursor::Hide,
            terminal::Clear(terminal::ClearType::All)
        )?;
        Ok(guard)
    }

    /// Draws a screen: `render` is given the terminal's size (columns, rows) and returns its
    /// lines.
    pub fn draw(
        &mut self,
        colour: bool,
        render: impl FnOnce(u16, u16) -> Vec<Line>,
    ) -> io::Result<()> {
        draw(&mut self.terminal, colour, render)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Draws `render`'s lines on any ratatui terminal (the real one, or a test backend).
pub fn draw<B: Backend>(
    terminal: &mut Terminal<B>,
    colour: bool,
    render: impl FnOnce(u16, u16) -> Vec<Line>,
) -> Result<(), B::Error> {
    terminal.draw(|frame| {
        let area = frame.area();
        let lines = render(area.width, area.height);
        frame.render_widget(Screen::new(&lines, colour), area);
    })?;
    Ok(())
}

/// A screen of styled lines as a ratatui widget: each line from the top of the area, cut at
/// its width; what is below the last line stays blank.
#[derive(Clone, Copy, Debug)]
pub struct Screen<'a> {
    lines: &'a [Line],
    colour: bool,
}

impl<'a> Screen<'a> {
    /// The widget for `lines`, in colour or not.
    pub fn new(lines: &'a [Line], colour: bool) -> Screen<'a> {
        Screen { lines, colour }
    }
}

impl Widget for Screen<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        for (y, line) in (area.y..area.bottom()).zip(self.lines) {
            let spans: Vec<ratatui::text::Span<'_>> = line
                .0
                .iter()
                .map(|s| {
                    let style = if self.colour {
                        colours(s.style)
                    } else {
                        ratatui::style::Style::default()
                    };
                    ratatui::text::Span::styled(printable(&s.text).into_owned(), style)
                })
                .collect();
            buf.set_line(area.x, y, &ratatui::text::Line::from(spans), area.width);
        }
    }
}

/// The colours and boldness of a style.
pub fn colours(style: Style) -> ratatui::style::Style {
    let s = ratatui::style::Style::default();
    let bold = Modifier::BOLD;
    match style {
        Style::Plain => s,
        Style::Title => s.add_modifier(bold),
        Style::Dim => s.fg(Color::DarkGray),
        Style::Uneaten => s.fg(Color::Yellow),
        Style::Eaten => s.fg(Color::DarkGray),
        Style::Poison => s.fg(Color::LightRed).add_modifier(bold),
        Style::LastMove => s.fg(Color::LightCyan),
        Style::CursorOk => s.fg(Color::Black).bg(Color::LightGreen).add_modifier(bold),
        Style::CursorPoison => s
            .fg(Color::Black)
            .bg(Color::LightMagenta)
            .add_modifier(bold),
        Style::CursorBad => s.fg(Color::White).bg(Color::Red).add_modifier(bold),
        Style::Good => s.fg(Color::LightGreen),
        Style::Bad => s.fg(Color::LightRed).add_modifier(bold),
        Style::Accent => s.fg(Color::LightYellow).add_modifier(bold),
        Style::Selected => s.fg(Color::Black).bg(Color::White),
    }
}

/// The text of a buffer, one line per row with trailing blanks cut (for tests of what a
/// ratatui terminal shows).
#[cfg(test)]
pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.y..area.bottom() {
        let mut line = String::new();
        for x in area.x..area.right() {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;
    use std::collections::HashSet;

    fn shown(lines: &[Line], colour: bool, w: u16, h: u16) -> Terminal<TestBackend> {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        draw(&mut t, colour, |_, _| lines.to_vec()).unwrap();
        t
    }

    /// A writer that keeps what it is given and notes, in a shared log, when it was written to.
    struct Noted<'a> {
        name: &'static str,
        log: &'a std::cell::RefCell<Vec<&'static str>>,
        bytes: Vec<u8>,
    }

    impl Write for Noted<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let mut log = self.log.borrow_mut();
            if log.last() != Some(&self.name) {
                log.push(self.name);
            }
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn item2_a_panic_restores_the_terminal_then_prints_the_resume_command() {
        let farewell = Mutex::new(Some(
            "To take your seat back:\njchomp resume tok".to_owned(),
        ));
        let log = std::cell::RefCell::new(Vec::new());
        let noted = |name| Noted {
            name,
            log: &log,
            bytes: Vec::new(),
        };
        let (mut screen, mut err) = (noted("screen"), noted("err"));
        on_panic(
            &mut screen,
            || log.borrow_mut().push("report"),
            &farewell,
            &mut err,
        );
        let shown = String::from_utf8(screen.bytes).unwrap();
        // The main screen, a visible cursor and default colours are back…
        assert!(shown.contains("\u{1b}[?1049l"), "{shown:?}");
        assert!(shown.contains("\u{1b}[?25h"), "{shown:?}");
        assert!(shown.contains("\u{1b}[0m"), "{shown:?}");
        // …before the panic is reported, and the command follows it, whole.
        assert_eq!(*log.borrow(), ["screen", "report", "err"]);
        assert_eq!(
            String::from_utf8(err.bytes).unwrap(),
            "To take your seat back:\njchomp resume tok\n"
        );
        // Printed once: a second panic has nothing more to say.
        let mut again = noted("again");
        on_panic(&mut noted("screen"), || {}, &farewell, &mut again);
        assert!(again.bytes.is_empty());
    }

    #[test]
    fn every_board_style_has_its_own_colours() {
        let board = [
            Style::Uneaten,
            Style::Eaten,
            Style::Poison,
            Style::LastMove,
            Style::CursorOk,
            Style::CursorPoison,
            Style::CursorBad,
        ];
        let distinct: HashSet<_> = board.iter().map(|&s| colours(s)).collect();
        assert_eq!(distinct.len(), board.len());
    }

    #[test]
    fn names_cannot_inject_escape_sequences() {
        let lines = vec![Line::plain("\u{1b}]0;pwned\u{7}bob")];
        let t = shown(&lines, false, 20, 2);
        let text = buffer_text(t.backend().buffer());
        assert!(text.starts_with("?]0;pwned?bob\n"), "{text:?}");
    }

    #[test]
    fn without_colour_no_cell_has_a_colour() {
        let lines = vec![Line::styled("P", Style::Poison)];
        let plain = shown(&lines, false, 4, 1);
        let cell = &plain.backend().buffer()[(0, 0)];
        assert_eq!(cell.symbol(), "P");
        assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset));
        assert!(cell.modifier.is_empty());
        let coloured = shown(&lines, true, 4, 1);
        assert_eq!(coloured.backend().buffer()[(0, 0)].fg, Color::LightRed);
    }

    #[test]
    fn lines_are_cut_at_the_width_and_height_and_the_rest_is_blank() {
        let lines = vec![
            Line::plain("abcdef"),
            Line::plain("gh"),
            Line::plain("never shown"),
        ];
        let mut t = Terminal::new(TestBackend::new(4, 2)).unwrap();
        draw(&mut t, false, |_, _| vec![Line::plain("xxxx"); 2]).unwrap();
        draw(&mut t, false, |w, h| {
            assert_eq!((w, h), (4, 2));
            lines
        })
        .unwrap();
        assert_eq!(buffer_text(t.backend().buffer()), "abcd\ngh\n");
    }
}
