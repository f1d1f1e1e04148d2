//! The live progress line on standard error: games done, rate and ETA (and the SPRT's LLR).
//! `indicatif` draws it: only when standard error is a terminal, at most ten times a second,
//! cleared at the end, so that logs and pipes get no noise. Its text is [`line()`].

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// How often the line is redrawn at most, per second.
const REDRAWS: u8 = 10;
/// Width of the bar in characters.
const WIDTH: usize = 30;

/// The progress line.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    first: u64,
    total: Option<u64>,
}

/// `h:mm:ss` for a number of seconds.
pub fn clock(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The text of the line: bar (when the total is known), games, rate, ETA, and `extra`.
pub fn line(done: u64, first: u64, total: Option<u64>, elapsed: Duration, extra: &str) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        (done.saturating_sub(first)) as f64 / secs
    } else {
        0.0
    };
    let mut text = String::new();
    match total {
        Some(total) => {
            let filled = (done.min(total) as usize * WIDTH)
                .checked_div(total as usize)
                .unwrap_or(WIDTH);
            text.push('[');
            text.push_str(&"#".repeat(filled));
            text.push_str(&"-".repeat(WIDTH - filled));
            text.push_str(&format!("] {done}/{total} games  {rate:.0}/s"));
            if rate > 0.0 {
                let left = total.saturating_sub(done) as f64 / rate;
                text.push_str(&format!("  ETA {}", clock(left)));
            }
        }
        None => text.push_str(&format!("{done} games  {rate:.0}/s")),
    }
    if !extra.is_empty() {
        text.push_str("  ");
        text.push_str(extra);
    }
    text
}

impl Progress {
    /// A progress line for games `first..total`, shown if `wanted` and standard error is a
    /// terminal.
    pub fn new(wanted: bool, first: u64, total: Option<u64>) -> Progress {
        let target = if wanted {
            ProgressDrawTarget::stderr_with_hz(REDRAWS)
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(total, target);
        if let Ok(style) = ProgressStyle::with_template("{msg}") {
            bar.set_style(style);
        }
        bar.set_position(first);
        Progress { bar, first, total }
    }

    /// Shows `done` games (and `extra` after them); `indicatif` redraws when it is time to.
    pub fn update(&mut self, done: u64, extra: &str) {
        if self.bar.is_hidden() {
            return;
        }
        let text = line(done, self.first, self.total, self.bar.elapsed(), extra);
        self.bar.set_message(text);
        self.bar.set_position(done);
    }

    /// Clears the line.
    pub fn finish(&mut self) {
        self.bar.finish_and_clear();
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.bar.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_games_rate_and_eta() {
        let text = line(250, 0, Some(1000), Duration::from_secs(5), "LLR 1.00");
        assert_eq!(
            text,
            "[#######-----------------------] 250/1000 games  50/s  ETA 0:00:15  LLR 1.00"
        );
        assert_eq!(line(7, 2, None, Duration::from_secs(1), ""), "7 games  5/s");
        assert_eq!(clock(3725.0), "1:02:05");
    }
}
