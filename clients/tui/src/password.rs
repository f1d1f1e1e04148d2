//! Where `jchomp register` and `jchomp login` take the password from: `JCHOMP_PASSWORD` when
//! it is set, else the first line of standard input when that is not a terminal (for scripts),
//! else a prompt on the terminal that does not echo what is typed (raw mode).

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use std::io::{self, BufRead, IsTerminal, Write};

/// The environment variable a script may give the password in.
pub const PASSWORD_ENV: &str = "JCHOMP_PASSWORD";

/// Why no password was read.
#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    /// Reading the terminal or standard input failed.
    #[error("cannot read the password: {0}")]
    Io(#[from] io::Error),
    /// Ctrl-C or Esc at the prompt.
    #[error("cancelled")]
    Cancelled,
    /// Nothing was given.
    #[error("no password given")]
    Empty,
    /// The two passwords typed at `register` differ.
    #[error("the two passwords differ")]
    Mismatch,
}

/// The password: from [`PASSWORD_ENV`], standard input or the terminal, in that order. At the
/// terminal, `confirm` asks for it twice (a new account's).
pub fn read_password(confirm: bool) -> Result<String, PasswordError> {
    let password = if let Some(p) = std::env::var_os(PASSWORD_ENV) {
        p.to_string_lossy().into_owned()
    } else if !io::stdin().is_terminal() {
        first_line(io::stdin().lock())?
    } else {
        let first = prompt("Password: ")?;
        if confirm && !first.is_empty() && prompt("Password again: ")? != first {
            return Err(PasswordError::Mismatch);
        }
        first
    };
    if password.is_empty() {
        return Err(PasswordError::Empty);
    }
    Ok(password)
}

/// The first line of `input`, without its line ending.
fn first_line(mut input: impl BufRead) -> io::Result<String> {
    let mut line = String::new();
    input.read_line(&mut line)?;
    let end = line.trim_end_matches(['\r', '\n']).len();
    line.truncate(end);
    Ok(line)
}

/// Raw mode while it lives: nothing typed is echoed.
struct RawMode;

impl RawMode {
    fn enter() -> io::Result<RawMode> {
        crossterm::terminal::enable_raw_mode()?;
        Ok(RawMode)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        // Nothing more can be done if the terminal will not go back to cooked mode.
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// Shows `text` on standard error and reads a line from the terminal without echoing it. The
/// terminal stops echoing before the prompt shows, so nothing typed after it is ever echoed.
fn prompt(text: &str) -> Result<String, PasswordError> {
    let mut err = io::stderr();
    let typed = {
        let _raw = RawMode::enter()?;
        write!(err, "{text}")?;
        err.flush()?;
        read_hidden()
    };
    writeln!(err)?;
    typed
}

/// Keys until Enter: characters kept, Backspace takes the last one back, Ctrl-C and Esc
/// cancel.
fn read_hidden() -> Result<String, PasswordError> {
    let mut typed = String::new();
    loop {
        let Event::Key(key) = event::read()? else {
            continue;
        };
        if key.kind == KeyEventKind::Release {
            continue;
        }
        match key.code {
            KeyCode::Enter => return Ok(typed),
            KeyCode::Esc => return Err(PasswordError::Cancelled),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return Err(PasswordError::Cancelled);
            }
            KeyCode::Backspace => {
                typed.pop();
            }
            KeyCode::Char(c) => typed.push(c),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_give_the_first_line_without_its_ending() {
        assert_eq!(
            first_line(&b"correct horse\r\nmore"[..]).unwrap(),
            "correct horse"
        );
        assert_eq!(first_line(&b"pw"[..]).unwrap(), "pw");
        assert_eq!(first_line(&b""[..]).unwrap(), "");
    }
}
