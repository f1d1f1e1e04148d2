//! `jchomp` on a pseudo-terminal ([`Tty`]): keys typed into it, and what it wrote read back
//! as the screen a terminal would show ([`render_vt`]).

use jchomp_testkit::temp::TempDir;
use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
use rustix::termios::{Winsize, tcsetwinsize};
use std::fs::File;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `jchomp` running on an 80×24 pseudo-terminal, with everything it wrote collected.
pub struct Tty {
    /// The program.
    pub child: Child,
    /// The user's state directory (`XDG_STATE_HOME`), where kept seats go; held until the
    /// program is gone.
    _state: Arc<TempDir>,
    size: (u16, u16),
    /// The terminal's master side: keys are written to it.
    pub keys: File,
    output: Arc<Mutex<Vec<u8>>>,
    /// The reader saw the end of the output (the program and its terminal are gone).
    drained: Arc<std::sync::atomic::AtomicBool>,
}

impl Tty {
    pub fn spawn(args: &[&str], no_color: bool) -> Tty {
        Tty::spawn_in(
            args,
            no_color,
            Arc::new(TempDir::new("jchomp-state")),
            (80, 24),
        )
    }

    /// Spawns with `state` as the user's state directory, on a terminal of `size` (columns,
    /// rows).
    pub fn spawn_in(args: &[&str], no_color: bool, state: Arc<TempDir>, size: (u16, u16)) -> Tty {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
        grantpt(&master).unwrap();
        unlockpt(&master).unwrap();
        let name = ptsname(&master, Vec::new()).unwrap();
        let slave = File::options()
            .read(true)
            .write(true)
            .open(name.to_str().unwrap())
            .unwrap();
        let winsize = Winsize {
            ws_row: size.1,
            ws_col: size.0,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        tcsetwinsize(&slave, winsize).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_jchomp"));
        cmd.args(args)
            .env("TERM", "xterm")
            .env("XDG_STATE_HOME", state.path())
            .env_remove("JCHOMP_PASSWORD")
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave));
        if no_color {
            cmd.env("NO_COLOR", "1");
        } else {
            cmd.env_remove("NO_COLOR");
        }
        let child = cmd.spawn().unwrap();
        let master = File::from(master);
        let keys = master.try_clone().unwrap();
        let output = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&output);
        let drained = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = Arc::clone(&drained);
        std::thread::spawn(move || {
            let mut master = master;
            let mut buf = [0u8; 4096];
            // Ends when the child is gone and the terminal reports an error.
            while let Ok(n) = master.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            done.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        Tty {
            child,
            _state: state,
            size,
            keys,
            output,
            drained,
        }
    }

    pub fn press(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    pub fn raw(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    /// The screen as the terminal shows it now.
    pub fn screen(&self) -> String {
        render_vt(&self.raw(), self.size)
    }

    /// Waits until the screen shows `text` (at most 15 s).
    pub async fn wait_for(&self, text: &str) -> String {
        for _ in 0..300 {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the screen never showed {text:?}:\n{}", self.screen());
    }

    /// Waits (at most 2 s) until everything the program wrote has been read.
    pub async fn drain(&self) {
        for _ in 0..40 {
            if self.drained.load(std::sync::atomic::Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits for the program to exit (at most 10 s) and returns whether it succeeded.
    pub async fn wait_exit(&mut self) -> bool {
        for _ in 0..200 {
            if let Some(status) = self.child.try_wait().unwrap() {
                self.drain().await;
                return status.success();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = self.child.kill();
        panic!("jchomp did not exit:\n{}", self.screen());
    }
}

impl Drop for Tty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A minimal terminal: applies cursor moves and clears (what the client uses) to a grid of
/// the terminal's size and ignores colours and modes.
pub fn render_vt(data: &str, size: (u16, u16)) -> String {
    let (w, h) = (usize::from(size.0), usize::from(size.1));
    let mut grid = vec![vec![' '; w]; h];
    let (mut y, mut x) = (0usize, 0usize);
    let mut chars = data.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() != Some(&'[') {
                continue;
            }
            chars.next();
            let mut params = String::new();
            let mut fin = ' ';
            for p in chars.by_ref() {
                if p.is_ascii_alphabetic() {
                    fin = p;
                    break;
                }
                params.push(p);
            }
            match fin {
                'H' => {
                    let mut it = params.split(';').map(|v| v.parse::<usize>().unwrap_or(1));
                    y = it.next().unwrap_or(1).saturating_sub(1);
                    x = it.next().unwrap_or(1).saturating_sub(1);
                }
                'K' if y < h => (x..w).for_each(|i| grid[y][i] = ' '),
                'J' if params == "2" => grid.iter_mut().for_each(|l| l.fill(' ')),
                'J' => {
                    for (row, line) in grid.iter_mut().enumerate().skip(y) {
                        let from = if row == y { x } else { 0 };
                        (from..w).for_each(|i| line[i] = ' ');
                    }
                }
                _ => {}
            }
        } else if c == '\r' || c == '\n' {
            continue;
        } else {
            if y < h && x < w {
                grid[y][x] = c;
            }
            x += 1;
        }
    }
    let lines: Vec<String> = grid
        .iter()
        .map(|l| l.iter().collect::<String>().trim_end().to_owned())
        .collect();
    lines.join("\n")
}
