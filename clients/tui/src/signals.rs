//! The signals that end the interactive client (SIGTERM, SIGHUP, SIGINT): caught while the
//! terminal is in raw mode, so that it is restored and the seat's resume command printed
//! before the program exits, instead of dying with the terminal left raw.

use std::io;

/// A signal that asks the program to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// SIGTERM: asked to terminate.
    Terminate,
    /// SIGHUP: the terminal went away.
    HangUp,
    /// SIGINT: interrupted (Ctrl-C reaches the client as a key in raw mode; this is `kill
    /// -INT`).
    Interrupt,
}

impl Ending {
    /// The exit status of a program ended by this signal, by the shell's convention (128 + the
    /// signal's number).
    pub fn exit_code(self) -> u8 {
        128 + match self {
            Ending::HangUp => 1,
            Ending::Interrupt => 2,
            Ending::Terminate => 15,
        }
    }
}

/// The signal handlers, installed for as long as this lives.
#[derive(Debug)]
pub struct Signals {
    #[cfg(unix)]
    streams: [(Ending, tokio::signal::unix::Signal); 3],
}

impl Signals {
    /// Installs the handlers.
    pub fn install() -> io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                streams: [
                    (Ending::Terminate, signal(SignalKind::terminate())?),
                    (Ending::HangUp, signal(SignalKind::hangup())?),
                    (Ending::Interrupt, signal(SignalKind::interrupt())?),
                ],
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// Waits for the next signal.
    pub async fn next(&mut self) -> Ending {
        #[cfg(unix)]
        {
            let [(a, sa), (b, sb), (c, sc)] = &mut self.streams;
            tokio::select! {
                _ = sa.recv() => *a,
                _ = sb.recv() => *b,
                _ = sc.recv() => *c,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            Ending::Interrupt
        }
    }
}
