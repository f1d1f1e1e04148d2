//! Chromium's side of the browser driver: Debian's headless Chromium started with a fresh
//! profile and driven over the DevTools protocol (browser contexts, targets attached in flat
//! sessions, input events, `Runtime.evaluate`, screenshots), console errors collected.

use super::rpc::Rpc;
use super::{Errors, Tab};
use jchomp_testkit::system::{self, CHROMIUM};
use jchomp_testkit::temp::TempDir;
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running Chromium and its DevTools connection.
pub struct Cdp {
    pub child: Child,
    _profile: TempDir,
    rpc: Rpc,
}

impl Cdp {
    /// Starts Chromium (installing Debian's package when missing) and connects to it.
    pub async fn launch(errors: Errors) -> Cdp {
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
        let endpoint = super::poll_file(&port_file, Duration::from_secs(30), |text| {
            let mut lines = text.lines();
            let (port, path) = (lines.next()?, lines.next()?);
            Some(format!("ws://127.0.0.1:{port}{path}"))
        })
        .await;
        let rpc = Rpc::connect(&endpoint, move |v| {
            if let Some(err) = console_error(v) {
                errors.lock().unwrap().push(err);
            }
        })
        .await;
        Cdp {
            child,
            _profile: profile,
            rpc,
        }
    }

    /// One command, to a page's session or (`None`) to the browser; its result.
    async fn call(&self, session: Option<&str>, method: &str, params: Value) -> Value {
        let mut msg = json!({"method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let reply = self.rpc.call(msg).await;
        if let Some(err) = reply.get("error") {
            panic!("{method} failed: {err}");
        }
        reply["result"].clone()
    }

    async fn on(&self, tab: &Tab, method: &str, params: Value) -> Value {
        self.call(Some(&tab.id), method, params).await
    }

    pub async fn new_context(&self) -> String {
        let ctx = self
            .call(None, "Target.createBrowserContext", json!({}))
            .await;
        ctx["browserContextId"].as_str().unwrap().to_string()
    }

    pub async fn new_tab(&self, context: &str) -> Tab {
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
        let tab = Tab {
            id: attached["sessionId"].as_str().unwrap().to_string(),
            target,
        };
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
            self.on(&tab, domain, json!({})).await;
        }
        // Every page behaves as the focused one, so that focus and keys work in each.
        self.on(
            &tab,
            "Emulation.setFocusEmulationEnabled",
            json!({"enabled": true}),
        )
        .await;
        tab
    }

    pub async fn close(&self, tab: &Tab) {
        self.call(None, "Target.closeTarget", json!({"targetId": tab.target}))
            .await;
    }

    pub async fn navigate(&self, tab: &Tab, url: &str) {
        self.on(tab, "Page.navigate", json!({"url": url})).await;
    }

    pub async fn reload(&self, tab: &Tab) {
        self.on(tab, "Page.reload", json!({})).await;
    }

    pub async fn eval(&self, tab: &Tab, expr: &str) -> Value {
        let r = self
            .on(
                tab,
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
            )
            .await;
        if let Some(e) = r.get("exceptionDetails") {
            panic!("{expr} threw {e}");
        }
        r["result"]["value"].clone()
    }

    /// Moves the mouse to (x, y), and presses and releases its button there when `click`.
    pub async fn pointer(&self, tab: &Tab, x: f64, y: f64, click: bool) {
        let kinds: &[&str] = if click {
            &["mouseMoved", "mousePressed", "mouseReleased"]
        } else {
            &["mouseMoved"]
        };
        for kind in kinds {
            self.on(
                tab,
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            )
            .await;
        }
    }

    pub async fn key(&self, tab: &Tab, key: &str) {
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
        self.on(tab, "Input.dispatchKeyEvent", down).await;
        self.on(
            tab,
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk}),
        )
        .await;
    }

    pub async fn insert_text(&self, tab: &Tab, text: &str) {
        self.on(tab, "Input.insertText", json!({"text": text}))
            .await;
    }

    /// Closes the page's open WebSockets, found through the DevTools heap (not the page's
    /// code); how many were open.
    pub async fn drop_sockets(&self, tab: &Tab) -> u64 {
        let proto = self
            .on(
                tab,
                "Runtime.evaluate",
                json!({"expression": "WebSocket.prototype"}),
            )
            .await;
        let proto = proto["result"]["objectId"].as_str().unwrap().to_string();
        let all = self
            .on(
                tab,
                "Runtime.queryObjects",
                json!({"prototypeObjectId": proto}),
            )
            .await;
        let all = all["objects"]["objectId"].as_str().unwrap().to_string();
        let closed = self
            .on(
                tab,
                "Runtime.callFunctionOn",
                json!({
                    "objectId": all,
                    "functionDeclaration": super::CLOSE_OPEN_SOCKETS,
                    "returnByValue": true,
                }),
            )
            .await;
        closed["result"]["value"].as_u64().unwrap()
    }

    pub async fn resize(&self, tab: &Tab, width: u32, height: u32, mobile: bool) {
        self.on(
            tab,
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        )
        .await;
    }

    pub async fn dark(&self, tab: &Tab, on: bool) -> bool {
        let scheme = if on { "dark" } else { "light" };
        self.on(
            tab,
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
        )
        .await;
        true
    }

    /// A PNG of the viewport, base64.
    pub async fn screenshot(&self, tab: &Tab) -> String {
        self.eval(tab, super::TWO_FRAMES).await;
        let shot = self
            .on(tab, "Page.captureScreenshot", json!({"format": "png"}))
            .await;
        shot["data"].as_str().unwrap().to_string()
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
