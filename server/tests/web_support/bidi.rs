//! Firefox's side of the browser driver: Debian's headless Firefox ESR started with a fresh
//! profile and driven over WebDriver BiDi (user contexts, tabs, `script.evaluate`,
//! `input.performActions`, screenshots), console errors and uncaught exceptions collected from
//! `log.entryAdded`.

use super::rpc::Rpc;
use super::{Errors, Tab};
use jchomp_testkit::system::{self, FIREFOX};
use jchomp_testkit::temp::TempDir;
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

/// Preferences of the test profile: no first-run pages, updates or telemetry; the light colour
/// scheme whatever the machine's; and background tabs' timers not slowed (the tests keep
/// several pages live at once, as several people would on their own machines).
const PREFS: &str = r#"
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.aboutwelcome.enabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.disabledForTesting", true);
user_pref("app.normandy.enabled", false);
user_pref("browser.tabs.warnOnClose", false);
user_pref("layout.css.prefers-color-scheme.content-override", 1);
user_pref("dom.min_background_timeout_value", 4);
user_pref("dom.timeout.enable_budget_timer_throttling", false);
user_pref("widget.windows.window_occlusion_tracking.enabled", false);
"#;

/// Records every WebSocket a page makes (in `window.__testSockets`), so that the test can
/// close them from outside as a network failure would: BiDi has no heap to search.
const RECORD_SOCKETS: &str = "() => { const Real = window.WebSocket, all = []; \
    window.WebSocket = class extends Real { constructor(...args) { super(...args); all.push(this); } }; \
    Object.defineProperty(window, '__testSockets', { value: all }); }";

/// A running Firefox and its BiDi session.
pub struct Bidi {
    pub child: Child,
    _profile: TempDir,
    rpc: Rpc,
    /// The tab in front (brought there by the last input or screenshot), if known.
    front: Mutex<Option<String>>,
}

impl Bidi {
    /// Starts Firefox (installing Debian's package when missing) and opens a BiDi session.
    pub async fn launch(errors: Errors) -> Bidi {
        let firefox = system::require(FIREFOX);
        let profile = TempDir::new("firefox");
        std::fs::write(profile.path().join("user.js"), PREFS).unwrap();
        let child = Command::new(firefox)
            .args(["--headless", "--no-remote", "--remote-debugging-port=0"])
            .arg("--profile")
            .arg(profile.path())
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("firefox starts");
        let port_file = profile.path().join("WebDriverBiDiServer.json");
        let endpoint = super::poll_file(&port_file, Duration::from_secs(60), |text| {
            let v: Value = serde_json::from_str(text).ok()?;
            Some(format!("ws://127.0.0.1:{}/session", v["ws_port"].as_u64()?))
        })
        .await;
        let rpc = Rpc::connect(&endpoint, move |v| {
            if let Some(err) = console_error(v) {
                errors.lock().unwrap().push(err);
            }
        })
        .await;
        let bidi = Bidi {
            child,
            _profile: profile,
            rpc,
            front: Mutex::new(None),
        };
        bidi.call("session.new", json!({"capabilities": {}})).await;
        bidi.call("session.subscribe", json!({"events": ["log.entryAdded"]}))
            .await;
        bidi
    }

    async fn call(&self, method: &str, params: Value) -> Value {
        let reply = self
            .rpc
            .call(json!({"method": method, "params": params}))
            .await;
        if reply["type"] == "error" {
            panic!("{method} failed: {reply}");
        }
        reply["result"].clone()
    }

    pub async fn new_context(&self) -> String {
        let ctx = self.call("browser.createUserContext", json!({})).await;
        let context = ctx["userContext"].as_str().unwrap().to_string();
        self.call(
            "script.addPreloadScript",
            json!({"functionDeclaration": RECORD_SOCKETS, "userContexts": [context]}),
        )
        .await;
        context
    }

    /// A new tab in `context`, brought to the front (as a person opening it would).
    pub async fn new_tab(&self, context: &str) -> Tab {
        let tab = self
            .call(
                "browsingContext.create",
                json!({"type": "tab", "userContext": context}),
            )
            .await;
        let id = tab["context"].as_str().unwrap().to_string();
        *self.front.lock().unwrap() = Some(id.clone());
        Tab {
            target: id.clone(),
            id,
        }
    }

    pub async fn close(&self, tab: &Tab) {
        self.call("browsingContext.close", json!({"context": tab.id}))
            .await;
        *self.front.lock().unwrap() = None;
    }

    pub async fn navigate(&self, tab: &Tab, url: &str) {
        self.call(
            "browsingContext.navigate",
            json!({"context": tab.id, "url": url, "wait": "complete"}),
        )
        .await;
    }

    pub async fn reload(&self, tab: &Tab) {
        self.call(
            "browsingContext.reload",
            json!({"context": tab.id, "wait": "complete"}),
        )
        .await;
    }

    /// The value of `expr`, carried out of the page as JSON (`undefined` is null).
    pub async fn eval(&self, tab: &Tab, expr: &str) -> Value {
        let wrapped = format!(
            "(async () => {{ const v = await ({expr}); return v === undefined ? undefined : JSON.stringify(v); }})()"
        );
        let r = self
            .call(
                "script.evaluate",
                json!({"expression": wrapped, "target": {"context": tab.id},
                       "awaitPromise": true, "resultOwnership": "none"}),
            )
            .await;
        if r["type"] == "exception" {
            panic!("{expr} threw {}", r["exceptionDetails"]);
        }
        match r["result"]["value"].as_str() {
            Some(text) => serde_json::from_str(text).unwrap(),
            None => Value::Null,
        }
    }

    /// Brings the tab to the front: input goes to the front tab, and only it draws frames.
    async fn activate(&self, tab: &Tab) {
        if self.front.lock().unwrap().as_deref() == Some(tab.id.as_str()) {
            return;
        }
        self.call("browsingContext.activate", json!({"context": tab.id}))
            .await;
        *self.front.lock().unwrap() = Some(tab.id.clone());
    }

    async fn act(&self, tab: &Tab, source: Value) {
        self.activate(tab).await;
        self.call(
            "input.performActions",
            json!({"context": tab.id, "actions": [source]}),
        )
        .await;
    }

    /// Moves the mouse to (x, y), and presses and releases its button there when `click`.
    pub async fn pointer(&self, tab: &Tab, x: f64, y: f64, click: bool) {
        let (x, y) = (x.round() as i64, y.round() as i64);
        let mut actions =
            vec![json!({"type": "pointerMove", "x": x, "y": y, "origin": "viewport"})];
        if click {
            actions.push(json!({"type": "pointerDown", "button": 0}));
            actions.push(json!({"type": "pointerUp", "button": 0}));
        }
        self.act(
            tab,
            json!({"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}),
        )
        .await;
    }

    /// Types `chars` (WebDriver's key values: a character, or a code such as U+E012).
    async fn keys(&self, tab: &Tab, chars: &str) {
        let actions: Vec<Value> = chars
            .chars()
            .flat_map(|c| {
                let value = c.to_string();
                [
                    json!({"type": "keyDown", "value": value}),
                    json!({"type": "keyUp", "value": value}),
                ]
            })
            .collect();
        self.act(
            tab,
            json!({"type": "key", "id": "keyboard", "actions": actions}),
        )
        .await;
    }

    pub async fn key(&self, tab: &Tab, key: &str) {
        let code = match key {
            "ArrowLeft" => '\u{E012}',
            "ArrowUp" => '\u{E013}',
            "ArrowRight" => '\u{E014}',
            "ArrowDown" => '\u{E015}',
            "Enter" => '\u{E007}',
            "Tab" => '\u{E004}',
            other => panic!("no key code for {other}"),
        };
        self.keys(tab, &code.to_string()).await;
    }

    pub async fn insert_text(&self, tab: &Tab, text: &str) {
        self.keys(tab, text).await;
    }

    /// Closes the page's open WebSockets, as recorded by [`RECORD_SOCKETS`]; how many were open.
    pub async fn drop_sockets(&self, tab: &Tab) -> u64 {
        let expr = format!("({}).call(window.__testSockets)", super::CLOSE_OPEN_SOCKETS);
        self.eval(tab, &expr).await.as_u64().unwrap()
    }

    pub async fn resize(&self, tab: &Tab, width: u32, height: u32, mobile: bool) {
        assert!(!mobile, "Firefox's BiDi has no phone emulation");
        self.call(
            "browsingContext.setViewport",
            json!({"context": tab.id, "viewport": {"width": width, "height": height}, "devicePixelRatio": 1}),
        )
        .await;
    }

    /// Firefox ESR 153's BiDi cannot emulate a colour scheme (`emulation.setMediaFeaturesOverride`
    /// comes with Firefox 159): says so.
    pub async fn dark(&self, _tab: &Tab, _on: bool) -> bool {
        false
    }

    /// A PNG of the viewport, base64.
    pub async fn screenshot(&self, tab: &Tab) -> String {
        self.activate(tab).await;
        self.eval(tab, super::TWO_FRAMES).await;
        let shot = self
            .call(
                "browsingContext.captureScreenshot",
                json!({"context": tab.id}),
            )
            .await;
        shot["data"].as_str().unwrap().to_string()
    }
}

/// The text of a console error or uncaught exception, if `event` is one.
fn console_error(event: &Value) -> Option<String> {
    let p = &event["params"];
    (event["method"] == "log.entryAdded" && p["level"] == "error")
        .then(|| format!("{}: {} {}", p["type"], p["text"], p["stackTrace"]))
}
