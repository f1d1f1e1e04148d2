//! A real headless Chromium driven over the DevTools protocol with the workspace's own
//! tokio-tungstenite: browser contexts (each with its own storage, like separate people),
//! pages in them, clicks and hovers as real input events, waits on conditions in the page,
//! screenshots, and every console error or uncaught exception of every page collected.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use futures_util::{SinkExt, StreamExt};
use jchomp_testkit::system::{self, CHROMIUM};
use jchomp_testkit::temp::TempDir;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

/// How long a test waits for a condition in a page.
pub const WAIT: Duration = Duration::from_secs(15);

type Replies = Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>;

/// A headless Chromium with a fresh profile, killed when dropped.
pub struct Browser {
    child: Child,
    _profile: TempDir,
    out: mpsc::UnboundedSender<String>,
    replies: Replies,
    next: AtomicU64,
    /// Console errors and uncaught exceptions of every page, as text.
    pub errors: Arc<Mutex<Vec<String>>>,
}

impl Browser {
    /// Starts Chromium (installing Debian's package when missing) and connects to it.
    pub async fn launch() -> Browser {
        let chromium = system::require(CHROMIUM);
        let profile = TempDir::new("chromium");
        let child = Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--remote-debugging-port=0",
                "--window-size=1280,800",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromium starts");
        let port_file = profile.path().join("DevToolsActivePort");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        let endpoint = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    break format!("ws://127.0.0.1:{port}{path}");
                }
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "chromium wrote no DevToolsActivePort in 30 s"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let (ws, _) = tokio_tungstenite::connect_async(endpoint)
            .await
            .expect("the DevTools endpoint answers");
        let (mut sink, mut stream) = ws.split();
        let (out, mut rx) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(text) = rx.recv().await {
                if sink.send(Message::text(text)).await.is_err() {
                    break;
                }
            }
        });
        let replies: Replies = Arc::default();
        let errors: Arc<Mutex<Vec<String>>> = Arc::default();
        let (r, e) = (replies.clone(), errors.clone());
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let Message::Text(text) = msg else { continue };
                let Ok(v) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                if let Some(id) = v["id"].as_u64() {
                    if let Some(tx) = r.lock().unwrap().remove(&id) {
                        let _ = tx.send(v);
                    }
                } else if let Some(err) = console_error(&v) {
                    e.lock().unwrap().push(err);
                }
            }
        });
        Browser {
            child,
            _profile: profile,
            out,
            replies,
            next: AtomicU64::new(1),
            errors,
        }
    }

    /// Sends one command (to a page's session, or to the browser) and returns its result.
    pub async fn call(&self, session: Option<&str>, method: &str, params: Value) -> Value {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let (tx, rx) = oneshot::channel();
        self.replies.lock().unwrap().insert(id, tx);
        self.out.send(msg.to_string()).unwrap();
        let reply = tokio::time::timeout(WAIT, rx)
            .await
            .unwrap_or_else(|_| panic!("no answer to {method}"))
            .unwrap();
        if let Some(err) = reply.get("error") {
            panic!("{method} failed: {err}");
        }
        reply["result"].clone()
    }

    /// A new page in a browser context of its own (its own storage and cookies), at 1280×800.
    pub async fn page(&self) -> Page<'_> {
        let ctx = self
            .call(None, "Target.createBrowserContext", json!({}))
            .await;
        let context = ctx["browserContextId"].as_str().unwrap().to_string();
        self.page_in(&context).await
    }

    /// A new page in this browser context (sharing its storage).
    pub async fn page_in(&self, context: &str) -> Page<'_> {
        let target = self
            .call(
                None,
                "Target.createTarget",
                json!({"url": "about:blank", "browserContextId": context}),
            )
            .await;
        let target = target["targetId"].as_str().unwrap().to_string();
        let attached = self
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target, "flatten": true}),
            )
            .await;
        let session = attached["sessionId"].as_str().unwrap().to_string();
        let page = Page {
            browser: self,
            target,
            session,
            context: context.to_string(),
            last_click: Mutex::new(None),
        };
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
            page.call(domain, json!({})).await;
        }
        // Every page behaves as the focused one, so that focus and keys work in each.
        page.call(
            "Emulation.setFocusEmulationEnabled",
            json!({"enabled": true}),
        )
        .await;
        page.resize(1280, 800, false).await;
        page
    }

    /// Fails if any page logged a console error or threw an uncaught exception.
    pub fn assert_no_console_errors(&self) {
        let errors = self.errors.lock().unwrap();
        assert!(errors.is_empty(), "console errors: {errors:#?}");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a console error or uncaught exception event, if `event` is one.
fn console_error(event: &Value) -> Option<String> {
    let p = &event["params"];
    match event["method"].as_str()? {
        "Runtime.consoleAPICalled" if matches!(p["type"].as_str(), Some("error" | "assert")) => {
            Some(format!("console.{}: {}", p["type"], p["args"]))
        }
        "Runtime.exceptionThrown" => Some(format!("exception: {}", p["exceptionDetails"])),
        "Log.entryAdded" if p["entry"]["level"] == "error" => Some(format!("log: {}", p["entry"])),
        _ => None,
    }
}

/// One page (tab) of a [`Browser`].
pub struct Page<'b> {
    browser: &'b Browser,
    target: String,
    session: String,
    /// Its browser context.
    pub context: String,
    /// Where the mouse last pressed, for the report of a failed wait.
    last_click: Mutex<Option<(f64, f64)>>,
}

impl Page<'_> {
    /// A command on this page's session.
    pub async fn call(&self, method: &str, params: Value) -> Value {
        self.browser.call(Some(&self.session), method, params).await
    }

    /// Opens `url` and waits until its document has loaded.
    pub async fn goto(&self, url: &str) {
        self.call("Page.navigate", json!({"url": url})).await;
        self.wait("document.readyState === 'complete' && !!document.querySelector('#main > :not(.loading)')", "the page loads")
            .await;
    }

    /// Reloads the page and waits until it has loaded again.
    pub async fn reload(&self) {
        self.eval("window.__reloading = true").await;
        self.call("Page.reload", json!({})).await;
        self.wait(
            "!window.__reloading && document.readyState === 'complete' && !!document.querySelector('#main > :not(.loading)')",
            "the page reloads",
        )
        .await;
    }

    /// Closes the tab, as a person closing it would.
    pub async fn close(self) {
        let target = self.target.clone();
        self.browser
            .call(None, "Target.closeTarget", json!({"targetId": target}))
            .await;
    }

    /// The value of a JavaScript expression in the page (promises are awaited).
    pub async fn eval(&self, expr: &str) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
            )
            .await;
        if let Some(e) = r.get("exceptionDetails") {
            panic!("{expr} threw {e}");
        }
        r["result"]["value"].clone()
    }

    /// Waits until `condition` (a JavaScript expression) is true in the page.
    pub async fn wait(&self, condition: &str, what: &str) {
        let deadline = tokio::time::Instant::now() + WAIT;
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
                    "timed out waiting for {what} ({condition}); the last click at {at:?} was on {clicked}; the page shows:\n{text}"
                );
            }
            tokio::time::sleep(Duration::from_millis(15)).await;
        }
    }

    /// The centre of the first element matching `selector`, scrolled into view.
    async fn centre(&self, selector: &str) -> (f64, f64) {
        let sel = serde_json::to_string(selector).unwrap();
        self.wait(&format!("document.querySelector({sel})"), selector)
            .await;
        let v = self
            .eval(&format!(
                "(() => {{ const e = document.querySelector({sel}); e.scrollIntoView({{block: 'center', inline: 'center'}}); \
                 const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
            ))
            .await;
        (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
    }

    /// Moves the mouse over the element (a real pointer event).
    pub async fn hover(&self, selector: &str) {
        let (x, y) = self.centre(selector).await;
        self.mouse("mouseMoved", x, y).await;
    }

    /// Clicks the element with the mouse (moves, presses, releases).
    pub async fn click(&self, selector: &str) {
        let (x, y) = self.centre(selector).await;
        *self.last_click.lock().unwrap() = Some((x, y));
        self.mouse("mouseMoved", x, y).await;
        self.mouse("mousePressed", x, y).await;
        self.mouse("mouseReleased", x, y).await;
    }

    async fn mouse(&self, kind: &str, x: f64, y: f64) {
        self.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        )
        .await;
    }

    /// Presses and releases a key (`ArrowLeft`, `Enter`, …) on the focused element.
    pub async fn key(&self, key: &str) {
        let (code, vk, text) = match key {
            "ArrowLeft" => ("ArrowLeft", 37, ""),
            "ArrowUp" => ("ArrowUp", 38, ""),
            "ArrowRight" => ("ArrowRight", 39, ""),
            "ArrowDown" => ("ArrowDown", 40, ""),
            "Enter" => ("Enter", 13, "\r"),
            "Tab" => ("Tab", 9, ""),
            other => panic!("no key code for {other}"),
        };
        let mut down =
            json!({"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk});
        if !text.is_empty() {
            down["text"] = json!(text);
        }
        self.call("Input.dispatchKeyEvent", down).await;
        self.call(
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk}),
        )
        .await;
    }

    /// Replaces the text of an input (focus, select all, type).
    pub async fn fill(&self, selector: &str, text: &str) {
        self.click(selector).await;
        let sel = serde_json::to_string(selector).unwrap();
        self.eval(&format!("document.querySelector({sel}).select()"))
            .await;
        self.call("Input.insertText", json!({"text": text})).await;
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
    /// would end them (found through the DevTools heap, not through the page's code). Returns
    /// how many were open.
    pub async fn drop_sockets(&self) -> u64 {
        let proto = self
            .call(
                "Runtime.evaluate",
                json!({"expression": "WebSocket.prototype"}),
            )
            .await;
        let proto = proto["result"]["objectId"].as_str().unwrap().to_string();
        let all = self
            .call("Runtime.queryObjects", json!({"prototypeObjectId": proto}))
            .await;
        let all = all["objects"]["objectId"].as_str().unwrap().to_string();
        let closed = self
            .call(
                "Runtime.callFunctionOn",
                json!({
                    "objectId": all,
                    "functionDeclaration": "function() { const open = this.filter(ws => ws.readyState === WebSocket.OPEN); open.forEach(ws => ws.close()); return open.length; }",
                    "returnByValue": true,
                }),
            )
            .await;
        closed["result"]["value"].as_u64().unwrap()
    }

    /// Sets the viewport (and a phone's touch and scale when `mobile`).
    pub async fn resize(&self, width: u32, height: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        )
        .await;
    }

    /// Emulates the dark (or light) colour scheme.
    pub async fn dark(&self, on: bool) {
        let scheme = if on { "dark" } else { "light" };
        self.call(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
        )
        .await;
    }

    /// Writes a PNG of the viewport to `path`.
    pub async fn screenshot(&self, path: &Path) {
        // Two animation frames: what the last change drew is on screen.
        self.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            .await;
        let shot = self
            .call("Page.captureScreenshot", json!({"format": "png"}))
            .await;
        let png = data_encoding::BASE64
            .decode(shot["data"].as_str().unwrap().as_bytes())
            .unwrap();
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
