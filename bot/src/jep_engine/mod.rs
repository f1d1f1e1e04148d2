//! The reference engine of the JChomp engine protocol (docs/ENGINE.md): [`run`] answers a
//! runner's lines with any built-in bot. The reader loop answers `isready` at once; the search
//! runs on a thread of its own with the bot's stop flag, which `stop`, `quit` and the time a
//! `go` allots raise; one writer prints every reply.

mod allowance;
mod input;
mod output;
mod search;
mod session;

use crate::jep::{Command, MAX_LINE};
use input::Line;
use jchomp_engine::classic::ClassicLibrary;
use jchomp_engine::spec::BotSpec;
use output::Output;
use session::{Flow, Session};
use std::io::{self, BufRead, Write};
use std::sync::Arc;

/// Plays `spec` as an engine: reads the runner's commands from `input` and writes the replies
/// to `output` until `quit`, the end of `input`, or a `jep` version it does not speak. `level:5`
/// plays classic games from `library`. Any running search is stopped and answered before it
/// returns. An error is one reading `input`.
pub fn run(
    spec: BotSpec,
    library: Option<Arc<ClassicLibrary>>,
    mut input: impl BufRead,
    output: impl Write + Send + 'static,
) -> io::Result<()> {
    let out = Output::new(output);
    let mut session = Session::new(spec, library, out.clone());
    loop {
        let text = match input::read_line(&mut input) {
            Ok(Line::Text(text)) => text,
            Ok(Line::TooLong) => {
                out.error(format_args!(
                    "a line longer than {MAX_LINE} bytes is ignored"
                ));
                continue;
            }
            Ok(Line::NotUtf8) => {
                out.error("a line that is not UTF-8 is ignored");
                continue;
            }
            Ok(Line::End) => break,
            Err(e) => {
                session.settle();
                return Err(e);
            }
        };
        if read(&mut session, &out, &text) == Flow::Quit {
            break;
        }
    }
    session.settle();
    Ok(())
}

/// Reads one line and does what it says; a line that does not read is refused with
/// `info string error: …` (a `position` line leaves no valid position).
fn read(session: &mut Session, out: &Output, text: &str) -> Flow {
    match Command::parse(text) {
        Ok(Some(command)) => session.handle(command),
        Ok(None) => {
            if !text.trim().is_empty() {
                let line = format!("jchomp-bot engine: ignored an unknown line: {text}");
                let _ = writeln!(io::stderr(), "{line}");
            }
            Flow::Go
        }
        Err(e) => {
            if text.split_whitespace().next() == Some("position") {
                session.forget_position();
            }
            out.error(e);
            Flow::Go
        }
    }
}
