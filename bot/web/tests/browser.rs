//! The game page in a real browser: Debian's headless Chromium driven over WebDriver
//! (chromedriver) by a small client written here. A game played through the service appears
//! live; the replay controls, the arrow keys and `?ply=N` show the right positions; the page
//! logs no error and asks nothing of another host.
//!
//! Skipped (with a printed SKIP) when `chromium` or `chromedriver` is missing, unless
//! `FAIRYBOT_REQUIRE_CHROMIUM=1` (set by scripts/test, which installs them).

use std::{
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{Value, json};

mod common;
use common::*;

fn found(program: &str) -> Option<String> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .output()
        .ok()?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !path.is_empty()).then_some(path)
}

/// chromedriver on a free port, killed when dropped.
struct Driver {
    child: Child,
    url: String,
    http: reqwest::Client,
    session: String,
    _profile: tempfile::TempDir,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    async fn start(chromium: &str, chromedriver: &str) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let http = reqwest::Client::new();
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(r) = http.get(format!("{url}/status")).send().await
                && r.status().is_success()
            {
                break;
            }
            assert!(Instant::now() < deadline, "chromedriver did not answer");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let profile = tempfile::tempdir().unwrap();
        let mut d = Driver {
            child,
            url,
            http,
            session: String::new(),
            _profile: profile,
        };
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--window-size=1000,1200",
                    format!("--user-data-dir={}", d._profile.path().display()),
                ]
            }
        }}});
        let v = d.call("POST", "/session", Some(caps)).await;
        d.session = v["sessionId"].as_str().expect("a session").to_string();
        d
    }

    async fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = if path == "/session" {
            format!("{}{path}", self.url)
        } else {
            format!("{}/session/{}{path}", self.url, self.session)
        };
        let req = match method {
            "POST" => self.http.post(&url),
            "DELETE" => self.http.delete(&url),
            _ => self.http.get(&url),
        };
        let req = match body {
            Some(b) => req
                .header("content-type", "application/json")
                .body(b.to_string()),
            None => req,
        };
        let text = req.send().await.unwrap().text().await.unwrap();
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert!(v["value"]["error"].is_null(), "{method} {path}: {text}");
        v["value"].clone()
    }

    async fn go(&self, url: &str) {
        self.call("POST", "/url", Some(json!({"url": url}))).await;
    }

    async fn js(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
        .await
    }

    /// Waits until `script` returns true.
    async fn until(&self, script: &str, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline {
            if self.js(script).await == Value::Bool(true) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    async fn click(&self, css: &str) {
        let e = self
            .call(
                "POST",
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        let id = e
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap()
            .to_string();
        self.call("POST", &format!("/element/{id}/click"), Some(json!({})))
            .await;
    }

    async fn key(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}
        ]}]});
        self.call("POST", "/actions", Some(actions)).await;
    }

    async fn browser_log(&self) -> Vec<Value> {
        self.call("POST", "/se/log", Some(json!({"type": "browser"})))
            .await
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

fn name(p: &bot_core::model::PlayerId) -> String {
    p.user
        .trim_start_matches('@')
        .split(':')
        .next()
        .unwrap()
        .to_string()
}

const ARROW_LEFT: &str = "\u{E012}";
const ARROW_RIGHT: &str = "\u{E014}";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_watched_live_and_replayed_in_chromium() {
    let (chromium, chromedriver) = match (found("chromium"), found("chromedriver")) {
        (Some(a), Some(b)) => (a, b),
        _ => {
            assert!(
                std::env::var("FAIRYBOT_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
                "FAIRYBOT_REQUIRE_CHROMIUM=1 but chromium or chromedriver is missing (apt-get install chromium chromium-driver)"
            );
            println!("SKIP: chromium or chromedriver not installed");
            return;
        }
    };
    let s = Server::start().await;
    let g = s.start_game("chess").await;
    let (white, black) = (name(&g.seats[0]), name(&g.seats[1]));
    s.say(&white, "e4").await;
    s.say(&black, "e5").await;
    let d = Driver::start(&chromium, &chromedriver).await;
    let page = s.url(&format!("/game/{}", g.id));
    d.go(&page).await;
    assert_eq!(
        d.js("return document.querySelector('#game').dataset.ply")
            .await,
        json!("2")
    );
    assert_eq!(
        d.js("return document.querySelectorAll('#moves li').length")
            .await,
        json!(2)
    );
    // Wait for the event stream's first update (the page is then live).
    assert!(
        d.until(
            "return document.querySelector('#moves a[aria-current]') !== null",
            Duration::from_secs(5)
        )
        .await
    );
    // A move through the service appears without a reload.
    let marker = d.js("window.__notReloaded = true; return true").await;
    assert_eq!(marker, json!(true));
    let played = Instant::now();
    s.say(&white, "Nf3").await;
    assert!(
        d.until(
            "return document.querySelectorAll('#moves li').length === 3",
            Duration::from_secs(2)
        )
        .await,
        "the move did not appear live"
    );
    println!(
        "live move shown in the browser after {:?}",
        played.elapsed()
    );
    assert_eq!(
        d.js("return window.__notReloaded === true && document.querySelector('#game').dataset.ply")
            .await,
        json!("3")
    );
    let label = d
        .js("return document.querySelector('#board').getAttribute('aria-label')")
        .await;
    assert!(
        label
            .as_str()
            .unwrap()
            .contains("Position after move 3 (Nf3)"),
        "{label}"
    );
    // First, then the arrow keys.
    d.click("#first").await;
    assert!(
        d.until(
            "return document.querySelector('#game').dataset.ply === '0'",
            Duration::from_secs(3)
        )
        .await
    );
    assert_eq!(d.js("return location.search").await, json!("?ply=0"));
    assert_eq!(
        d.js("return document.querySelector('#board').getAttribute('aria-label')")
            .await,
        json!("The start position.")
    );
    d.key(ARROW_RIGHT).await;
    d.key(ARROW_RIGHT).await;
    assert!(
        d.until(
            "return document.querySelector('#game').dataset.ply === '2'",
            Duration::from_secs(3)
        )
        .await
    );
    assert_eq!(
        d.js("return document.querySelector('#moves a[aria-current]').textContent")
            .await,
        json!("e5")
    );
    d.key(ARROW_LEFT).await;
    assert!(
        d.until(
            "return document.querySelector('#game').dataset.ply === '1'",
            Duration::from_secs(3)
        )
        .await
    );
    // The board the script shows is the server's board of that position.
    let shown = d
        .js("return document.querySelector('#board svg').querySelectorAll('*').length")
        .await;
    let (_, _, svg1) = get(&s.url(&format!("/game/{}/board.svg?ply=1", g.id))).await;
    let expected =
        svg1.matches('<').count() - svg1.matches("</").count() - svg1.matches("<!").count() - 1;
    assert_eq!(shown, json!(expected), "the SVG of position 1");
    // A click on a move.
    d.click("#moves li:nth-child(3) a").await;
    assert!(
        d.until(
            "return document.querySelector('#game').dataset.ply === '3'",
            Duration::from_secs(3)
        )
        .await
    );
    // A link to a position.
    d.go(&format!("{page}?ply=1")).await;
    assert_eq!(
        d.js("return document.querySelector('#game').dataset.ply")
            .await,
        json!("1")
    );
    assert_eq!(
        d.js("return document.querySelector('#moves a[aria-current]').textContent")
            .await,
        json!("e4")
    );
    // Following the game from a past position does not jump: the move list grows, the
    // position stays.
    s.say(&black, "Nc6").await;
    assert!(
        d.until(
            "return document.querySelectorAll('#moves li').length === 4",
            Duration::from_secs(2)
        )
        .await
    );
    assert_eq!(
        d.js("return document.querySelector('#game').dataset.ply")
            .await,
        json!("1")
    );
    // Nothing from another host, no console errors.
    let hosts = d
        .js("return performance.getEntriesByType('resource').map(e => e.name).concat([location.href])")
        .await;
    let origin = s.url("/");
    for u in hosts.as_array().unwrap() {
        let u = u.as_str().unwrap();
        assert!(
            u.starts_with(&origin) || u.starts_with("data:"),
            "a request to another host: {u}"
        );
    }
    let errors: Vec<Value> = d
        .browser_log()
        .await
        .into_iter()
        .filter(|e| e["level"] == json!("SEVERE") || e["level"] == json!("WARNING"))
        .collect();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    // A picture of the page for the book (written under the target directory, not compared).
    let shot = d.call("GET", "/screenshot", None).await;
    let png = base64(shot.as_str().unwrap());
    assert_eq!(&png[1..4], b"PNG");
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-game-page.png");
    std::fs::write(&path, png).unwrap();
    println!("screenshot: {}", path.display());
    d.call("DELETE", "", None).await;
}

/// Standard base64 (WebDriver's screenshots).
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for v in text.bytes().filter_map(value) {
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}
