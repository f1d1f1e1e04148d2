//! The thread that reads an engine's standard output: whole lines of at most [`MAX_LINE`]
//! bytes, handed over a bounded channel, so that the runner's memory stays bounded whatever the
//! engine prints.

use crate::jep::MAX_LINE;
use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// Lines read ahead of the runner at most.
const AHEAD: usize = 64;

/// What the reader saw.
#[derive(Debug)]
pub(crate) enum Event {
    /// A line, without its `\n` (and without a `\r` before it).
    Line(String),
    /// A line longer than [`MAX_LINE`]: the reader stopped reading.
    TooLong,
    /// The output ended (the engine exited or closed it), or could not be read.
    End,
}

/// Starts the reader of `output`; its events arrive on the receiver. The thread ends at the
/// end of the output, after a line too long, or once the receiver is dropped.
pub(crate) fn spawn(output: impl Read + Send + 'static) -> Receiver<Event> {
    let (tx, rx) = sync_channel(AHEAD);
    std::thread::spawn(move || read_lines(BufReader::new(output), &tx));
    rx
}

fn read_lines(mut output: impl BufRead, tx: &SyncSender<Event>) {
    let mut line = Vec::new();
    loop {
        let event = match next_line(&mut output, &mut line) {
            Ok(true) => Event::Line(text(&line)),
            Ok(false) if !line.is_empty() => Event::Line(text(&line)),
            Ok(false) | Err(Problem::Io) => Event::End,
            Err(Problem::TooLong) => Event::TooLong,
        };
        let last = !matches!(event, Event::Line(_));
        line.clear();
        if tx.send(event).is_err() || last {
            return;
        }
    }
}

/// Why a line could not be had.
enum Problem {
    TooLong,
    Io,
}

/// Reads up to the next `\n` into `line` (without it). `Ok(false)` at the end of the output.
fn next_line(output: &mut impl BufRead, line: &mut Vec<u8>) -> Result<bool, Problem> {
    loop {
        let buf = output.fill_buf().map_err(|_| Problem::Io)?;
        if buf.is_empty() {
            return Ok(false);
        }
        let (part, found) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        // One byte over: room for the `\r` a line may end with.
        if line.len() + part.len() > MAX_LINE + 1 {
            return Err(Problem::TooLong);
        }
        line.extend_from_slice(part);
        let used = part.len() + usize::from(found);
        output.consume(used);
        if found {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.len() > MAX_LINE {
                return Err(Problem::TooLong);
            }
            return Ok(true);
        }
    }
}

/// A line as text; bytes that are not UTF-8 become U+FFFD.
fn text(line: &[u8]) -> String {
    String::from_utf8_lossy(line).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(input: &[u8]) -> Vec<String> {
        let rx = spawn(std::io::Cursor::new(input.to_vec()));
        rx.iter()
            .map(|e| match e {
                Event::Line(l) => l,
                Event::TooLong => "<too long>".into(),
                Event::End => "<end>".into(),
            })
            .collect()
    }

    #[test]
    fn lines_are_whole_and_bounded() {
        assert_eq!(
            events(b"readyok\r\n\nbestmove 1,2\nlast"),
            vec!["readyok", "", "bestmove 1,2", "last", "<end>"]
        );
        let mut long = vec![b'x'; MAX_LINE];
        long.push(b'\n');
        assert_eq!(events(&long).len(), 2);
        let mut longer = vec![b'x'; MAX_LINE + 1];
        longer.extend_from_slice(b"\nreadyok\n");
        assert_eq!(events(&longer), vec!["<too long>"]);
        // A megabyte without a newline is refused before it is all held.
        assert_eq!(events(&vec![b'y'; 1 << 20]), vec!["<too long>"]);
    }
}
