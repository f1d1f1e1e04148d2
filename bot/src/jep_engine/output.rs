//! [`Output`]: the one writer of the engine's replies. Each line is written whole and flushed
//! under one lock, so the reader's lines and the search's never interleave.

use crate::jep::{Info, Reply};
use std::fmt::Display;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// The engine's standard output, shared by the reader loop and the search thread.
#[derive(Clone)]
pub(crate) struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    /// The replies go to `out`.
    pub(crate) fn new(out: impl Write + Send + 'static) -> Output {
        Output(Arc::new(Mutex::new(Box::new(out))))
    }

    /// Writes one reply as one line. A write that fails (the runner has gone) is dropped: the
    /// engine ends when its input does.
    pub(crate) fn send(&self, reply: &Reply) {
        let mut out = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = writeln!(out, "{reply}").and_then(|()| out.flush());
    }

    /// Writes replies as consecutive lines in one write (a search's `info` lines and its
    /// `bestmove` reach the runner together).
    pub(crate) fn send_all(&self, replies: &[Reply]) {
        let mut text = String::new();
        for reply in replies {
            text.push_str(&reply.to_string());
            text.push('\n');
        }
        let mut out = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    }

    /// `info string TEXT`.
    pub(crate) fn say(&self, text: impl Display) {
        self.send(&Reply::Info(Info {
            string: Some(text.to_string()),
            ..Info::default()
        }));
    }

    /// `info string error: WHY`: a line or command the engine refuses, and goes on.
    pub(crate) fn error(&self, why: impl Display) {
        self.say(format_args!("error: {why}"));
    }
}
