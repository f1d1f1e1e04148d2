//! Reading the runner's lines without ever holding more than [`MAX_LINE`] bytes of one.

use crate::jep::MAX_LINE;
use std::io::{self, BufRead};

/// One line of input, or why there is none.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A line, without its `\n`.
    Text(String),
    /// A line longer than [`MAX_LINE`] bytes, skipped whole.
    TooLong,
    /// A line that is not UTF-8.
    NotUtf8,
    /// The input has ended.
    End,
}

/// Reads the next line of `input`; the rest of a line too long is read and dropped.
pub(crate) fn read_line(input: &mut impl BufRead) -> io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        read_any = true;
        let newline = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..newline.unwrap_or(chunk.len())];
        if line.len() + part.len() > MAX_LINE {
            too_long = true;
            line.clear();
        } else if !too_long {
            line.extend_from_slice(part);
        }
        let used = newline.map_or(chunk.len(), |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            break;
        }
    }
    Ok(match (read_any, too_long) {
        (false, _) => Line::End,
        (true, true) => Line::TooLong,
        (true, false) => String::from_utf8(line).map_or(Line::NotUtf8, Line::Text),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<Line> {
        // A small buffer, so that lines span many reads.
        let mut input = io::BufReader::with_capacity(7, bytes);
        let mut out = Vec::new();
        loop {
            let line = read_line(&mut input).unwrap();
            if line == Line::End {
                return out;
            }
            out.push(line);
        }
    }

    #[test]
    fn lines_are_read_whole_and_long_ones_skipped() {
        let long = "x".repeat(MAX_LINE + 1);
        let most = "y".repeat(MAX_LINE);
        let text = format!("isready\r\n\n{long}\n{most}\nquit");
        assert_eq!(
            lines(text.as_bytes()),
            [
                Line::Text("isready\r".into()),
                Line::Text(String::new()),
                Line::TooLong,
                Line::Text(most),
                Line::Text("quit".into()),
            ]
        );
        assert_eq!(lines(b"\xff\xfe\nstop\n")[0], Line::NotUtf8);
        assert_eq!(lines(b""), []);
    }
}
