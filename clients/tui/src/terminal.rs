//! The terminal: raw mode and the alternate screen (always restored, on exit and on panic), and
//! painting styled [`Line`]s with colours, or without them when `NO_COLOR` is set.

use crate::style::{Line, Style, printable};
use crossterm::style::{
    Attribute, Color, Print, ResetColor, SetAttribute, SetBackgroundColor, SetForegroundColor,
};
use crossterm::terminal::{self, ClearType};
use crossterm::{cursor, execute, queue};
use std::io::{self, Write};
use std::sync::Once;

/// Whether to use colours: not when `NO_COLOR` is set to anything non-empty.
pub fn colour_enabled() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Puts the terminal back as it was: cooked mode, main screen, visible cursor. Safe to call
/// more than once.
pub fn restore() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        ResetColor,
        cursor::Show,
        terminal::LeaveAlternateScreen
    );
}

/// Holds the terminal in raw mode on the alternate screen; restores it when dropped, and a
/// panic hook restores it before the panic message is printed.
#[derive(Debug)]
pub struct TerminalGuard(());

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
                restore();
                previous(info);
            }));
        });
        terminal::enable_raw_mode()?;
        let guard = TerminalGuard(());
        execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
        Ok(guard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// The terminal's size as (columns, rows), 80×24 if unknown.
pub fn size() -> (usize, usize) {
    terminal::size()
        .map(|(w, h)| (w as usize, h as usize))
        .unwrap_or((80, 24))
}

/// Foreground, background and boldness of a style.
pub fn colours(style: Style) -> (Option<Color>, Option<Color>, bool) {
    match style {
        Style::Plain => (None, None, false),
        Style::Title => (None, None, true),
        Style::Dim => (Some(Color::DarkGrey), None, false),
        Style::Uneaten => (Some(Color::DarkYellow), None, false),
        Style::Eaten => (Some(Color::DarkGrey), None, false),
        Style::Poison => (Some(Color::Red), None, true),
        Style::LastMove => (Some(Color::Cyan), None, false),
        Style::CursorOk => (Some(Color::Black), Some(Color::Green), true),
        Style::CursorPoison => (Some(Color::Black), Some(Color::Magenta), true),
        Style::CursorBad => (Some(Color::White), Some(Color::DarkRed), true),
        Style::Good => (Some(Color::Green), None, false),
        Style::Bad => (Some(Color::Red), None, true),
        Style::Accent => (Some(Color::Yellow), None, true),
        Style::Selected => (Some(Color::Black), Some(Color::White), false),
    }
}

/// Draws `lines` from the top of the screen, clearing what is left of each line and below.
pub fn paint(out: &mut impl Write, lines: &[Line], colour: bool, height: usize) -> io::Result<()> {
    for (y, line) in lines.iter().take(height).enumerate() {
        queue!(out, cursor::MoveTo(0, y as u16))?;
        for span in &line.0 {
            let (fg, bg, bold) = if colour {
                colours(span.style)
            } else {
                (None, None, false)
            };
            if let Some(c) = fg {
                queue!(out, SetForegroundColor(c))?;
            }
            if let Some(c) = bg {
                queue!(out, SetBackgroundColor(c))?;
            }
            if bold {
                queue!(out, SetAttribute(Attribute::Bold))?;
            }
            queue!(out, Print(printable(&span.text)))?;
            if fg.is_some() || bg.is_some() || bold {
                queue!(out, SetAttribute(Attribute::Reset), ResetColor)?;
            }
        }
        queue!(out, terminal::Clear(ClearType::UntilNewLine))?;
    }
    let next = lines.len().min(height) as u16;
    if (next as usize) < height {
        queue!(
            out,
            cursor::MoveTo(0, next),
            terminal::Clear(ClearType::FromCursorDown)
        )?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

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
        let mut out = Vec::new();
        paint(&mut out, &lines, false, 24).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("?]0;pwned?bob"), "{out:?}");
        assert!(!out.contains("\u{1b}]0"), "{out:?}");
    }

    #[test]
    fn without_colour_no_escape_sets_a_colour() {
        let lines = vec![Line::styled("P", Style::Poison)];
        let mut plain = Vec::new();
        paint(&mut plain, &lines, false, 24).unwrap();
        let plain = String::from_utf8(plain).unwrap();
        assert!(plain.contains('P'));
        assert!(!plain.contains("[38;5;"), "{plain:?}");
        assert!(!plain.contains("[1m"), "{plain:?}");
        let mut coloured = Vec::new();
        paint(&mut coloured, &lines, true, 24).unwrap();
        assert!(coloured.len() > plain.len());
    }
}
