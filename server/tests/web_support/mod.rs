//! A real headless browser — Debian's Chromium over the DevTools protocol, or Debian's Firefox
//! ESR over WebDriver BiDi — driven with the workspace's own tokio-tungstenite behind one
//! interface: browser contexts (each with its own storage, like separate people), pages in
//! them, clicks and hovers as real input events, waits on conditions in the page, screenshots,
//! and every console error or uncaught exception of every page collected; (`ratings`) the
//! profile and leaderboard pages held against the JSON API; (`pairing`) the lobby's "Play
//! now" tiles held against the server's quick pairing; (`room`) moves made by clicks; and
//! (`entry`) tournaments created, entered and played from their pages.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

mod bidi;
mod cdp;
pub mod entry;
pub mod pairing;
pub mod ratings;
pub mod room;
mod rpc;

use serde_json::{Value, json};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a test waits for a condition in a page.
pub const WAIT: Duration = Duration::from_secs(15);

/// Console errors and uncaught exceptions of every page, as text.
type Errors = Arc<Mutex<Vec<String>>>;

/// Closes the open WebSockets among `this` (an array of them); how many were open.
const CLOSE_OPEN_SOCKETS: &str = "function() { const open = this.filter(ws => ws.readyState === WebSocket.OPEN); open.forEach(ws => ws.close()); return open.length; }";

/// Waits two animation frames: what the last change drew is on screen.
const TWO_FRAMES: &str = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))";

/// Runs each browser scenario (an `async fn NAME(engine: Engine)` of the test file) as one test
/// per browser: `NAME::chromium` and `NAME::firefox`.
#[allow(
    unused_macros,
    reason = "the web page bench includes this module but runs no browser scenario"
)]
macro_rules! in_both_browsers {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn chromium() {
                super::$name(crate::web_support::Engine::Chromium).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn firefox() {
                super::$name(crate::web_support::Engine::Firefox).await
            }
        }
    )*};
}
#[allow(
    unused_imports,
    reason = "the web page bench includes this module but runs no browser scenario"
)]
pub(crate) use in_both_browsers;

/// Which browser a test drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Chromium, over the DevTools protocol.
    Chromium,
    /// Firefox ESR, over WebDriver BiDi.
    Firefox,
}

/// One tab in a driver: its session (CDP) or browsing context (BiDi), and its target.
pub struct Tab {
    id: String,
    target: String,
}

enum Driver {
    Cdp(cdp::Cdp),
    Bidi(bidi::Bidi),
}

/// Calls the same method on whichever driver the browser has.
macro_rules! drive {
    ($browser:expr, $method:ident($($arg:expr),*)) => {
        match &$browser.driver {
            Driver::Cdp(d) => d.$method($($arg),*).await,
            Driver::Bidi(d) => d.$method($($arg),*).await,
        }
    };
}

/// A headless browser with a fresh profile, killed when dropped.
pub struct Browser {
    driver: Driver,
    /// Which browser it is.
    pub engine: Engine,
    /// Console errors and uncaught exceptions of every page, as text.
    pub errors: Errors,
}

impl Browser {
    /// Starts the browser (installing Debian's package when missing) and connects to it.
    pub async fn launch(engine: Engine) -> Browser {
        let errors = Errors::default();
        let driver = match engine {
            Engine::Chromium => Driver::Cdp(cdp::Cdp::launch(errors.clone()).await),
            Engine::Firefox => Driver::Bidi(bidi::Bidi::launch(errors.clone()).await),
        };
        Browser {
            driver,
            engine,
            errors,
        }
    }

    /// A new page in a browser context of its own (its own storage and cookies), at 1280×800.
    pub async fn page(&self) -> Page<'_> {
        let context = drive!(self, new_context());
        self.page_in(&context).await
    }

    /// A new page in this browser context (sharing its storage).
    pub async fn page_in(&self, context: &str) -> Page<'_> {
        let tab = drive!(self, new_tab(context));
        let page = Page {
            browser: self,
            tab,
            context: context.to_string(),
            last_click: Mutex::new(None),
        };
        page.resize(1280, 800, false).await;
        page
    }

    /// Fails if any page logged a console error or threw an uncaught exception.
    pub fn assert_no_console_errors(&self) {
        let errors = self.errors.lock().unwrap();
        assert!(
            errors.is_empty(),
            "console errors in {:?}: {errors:#?}",
            self.engine
        );
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let child = match &mut self.driver {
            Driver::Cdp(d) => &mut d.child,
            Driver::Bidi(d) => &mut d.child,
        };
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Reads the file at `path` until `parse` finds in it what it looks for (the port a browser
/// writes into its profile once it listens), for up to `limit`.
async fn poll_file(path: &Path, limit: Duration, parse: impl Fn(&str) -> Option<String>) -> String {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if let Some(found) = std::fs::read_to_string(path).ok().and_then(|t| parse(&t)) {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the browser wrote no {} in {limit:?}",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One page (tab) of a [`Browser`].
pub struct Page<'b> {
    browser: &'b Browser,
    tab: Tab,
    /// Its browser context.
    pub context: String,
    /// Where the mouse last pressed, for the report of a failed wait.
    last_click: Mutex<Option<(f64, f64)>>,
}

impl Page<'_> {
    /// Opens `url` (without waiting for anything in it).
    pub async fn navigate(&self, url: &str) {
        drive!(self.browser, navigate(&self.tab, url));
    }

    /// Opens `url` and waits until its document has loaded.
    pub async fn goto(&self, url: &str) {
        self.navigate(url).await;
        self.wait("document.readyState === 'complete' && !!document.querySelector('#main > :not(.loading)')", "the page loads")
            .await;
    }

    /// Reloads the page and waits until it has loaded again.
    pub async fn reload(&self) {
        self.eval("window.__reloading = true").await;
        drive!(self.browser, reload(&self.tab));
        self.wait(
            "!window.__reloading && document.readyState === 'complete' && !!document.querySelector('#main > :not(.loading)')",
            "the page reloads",
        )
        .await;
    }

    /// Closes the tab, as a person closing it would.
    pub async fn close(self) {
        drive!(self.browser, close(&self.tab));
    }

    /// The value of a JavaScript expression in the page (promises are awaited).
    pub async fn eval(&self, expr: &str) -> Value {
        drive!(self.browser, eval(&self.tab, expr))
    }

    /// Waits until `condition` (a JavaScript expression) is true in the page.
    pub async fn wait(&self, condition: &str, what: &str) {
        self.wait_within(condition, what, WAIT).await;
    }

    /// Waits until `condition` is true in the page, for up to `limit` (a whole tournament).
    pub async fn wait_within(&self, condition: &str, what: &str, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        let probe =
            format!("(() => {{ try {{ return !!({condition}); }} catch {{ return false; }} }})()");
        loop {
            if self.eval(&probe).await == json!(true) {
                return;
            }
            if tokio::time::Instant::now() > deadline {
                let text = self
                    .eval("document.querySelector('#main')?.innerText")
                    .await;
                let at = *self.last_click.lock().unwrap();
                let clicked = match at {
                    Some((x, y)) => {
                        self.eval(&format!("document.elementFromPoint({x}, {y})?.outerHTML"))
                            .await
                    }
                    None => Value::Null,
                };
                panic!(
                    "{:?}: timed out waiting for {what} ({condition}); the last click at {at:?} was on {clicked}; the page shows:\n{text}",
                    self.browser.engine
                );
            }
            tokio::time::sleep(Duration::from_millis(15)).await;
        }
    }

    /// The centre of the first element matching `selector`, scrolled into view.
    ///
    /// `settled`: the page may still be laying out (a list drawn above the element moves it
    /// down), so the centre is taken once two looks in a row find it at the same place with
    /// the element itself there (not something drawn over it), or after a second as last found.
    async fn centre(&self, selector: &str, settled: bool) -> (f64, f64) {
        let sel = serde_json::to_string(selector).unwrap();
        self.wait(&format!("document.querySelector({sel})"), selector)
            .await;
        let mut last: Option<(f64, f64)> = None;
        for _ in 0..40 {
            let v = self
                .eval(&format!(
                    "(() => {{ const e = document.querySelector({sel}); e.scrollIntoView({{block: 'center', inline: 'center'}}); \
                     const r = e.getBoundingClientRect(); const x = r.x + r.width / 2, y = r.y + r.height / 2; \
                     const hit = document.elementFromPoint(x, y); \
                     return [x, y, !!hit && (hit === e || e.contains(hit))]; }})()"
                ))
                .await;
            let at = (v[0].as_f64().unwrap(), v[1].as_f64().unwrap());
            if !settled || (v[2] == true && last == Some(at)) {
                return at;
            }
            last = Some(at);
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        last.unwrap()
    }

    /// Moves the mouse over the element (a real pointer event).
    pub async fn hover(&self, selector: &str) {
        let (x, y) = self.centre(selector, false).await;
        drive!(self.browser, pointer(&self.tab, x, y, false));
    }

    /// Clicks the element with the mouse (moves, presses, releases).
    pub async fn click(&self, selector: &str) {
        let (x, y) = self.centre(selector, true).await;
        *self.last_click.lock().unwrap() = Some((x, y));
        drive!(self.browser, pointer(&self.tab, x, y, true));
    }

    /// Presses and releases a key (`ArrowLeft`, `Enter`, …) on the focused element.
    pub async fn key(&self, key: &str) {
        drive!(self.browser, key(&self.tab, key));
    }

    /// Replaces the text of an input (focus, select all, type).
    pub async fn fill(&self, selector: &str, text: &str) {
        self.click(selector).await;
        let sel = serde_json::to_string(selector).unwrap();
        self.eval(&format!("document.querySelector({sel}).select()"))
            .await;
        drive!(self.browser, insert_text(&self.tab, text));
        self.eval(&format!(
            "document.querySelector({sel}).dispatchEvent(new Event('change', {{bubbles: true}}))"
        ))
        .await;
    }

    /// Chooses an option of a `<select>` by value, as a person would (then `change`).
    pub async fn choose(&self, selector: &str, value: &str) {
        let sel = serde_json::to_string(selector).unwrap();
        let val = serde_json::to_string(value).unwrap();
        self.eval(&format!(
            "(() => {{ const s = document.querySelector({sel}); s.focus(); s.value = {val}; \
             s.dispatchEvent(new Event('change', {{bubbles: true}})); }})()"
        ))
        .await;
    }

    /// Closes every WebSocket of the page from the browser's side, as a network failure
    /// would end them (not through the page's code). Returns how many were open.
    pub async fn drop_sockets(&self) -> u64 {
        drive!(self.browser, drop_sockets(&self.tab))
    }

    /// Sets the viewport (and a phone's touch and scale when `mobile`, Chromium only).
    pub async fn resize(&self, width: u32, height: u32, mobile: bool) {
        drive!(self.browser, resize(&self.tab, width, height, mobile));
    }

    /// Emulates the dark (or light) colour scheme; false when the browser cannot (Firefox
    /// ESR 153).
    pub async fn dark(&self, on: bool) -> bool {
        drive!(self.browser, dark(&self.tab, on))
    }

    /// Writes a PNG of the viewport to `path`.
    pub async fn screenshot(&self, path: &Path) {
        let shot = drive!(self.browser, screenshot(&self.tab));
        let png = data_encoding::BASE64.decode(shot.as_bytes()).unwrap();
        assert!(
            png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1024,
            "the screenshot for {} is not a picture ({} bytes)",
            path.display(),
            png.len()
        );
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }
}
