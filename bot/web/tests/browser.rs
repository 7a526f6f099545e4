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
        let v = self.try_call(method, path, body).await;
        v.unwrap_or_else(|text| panic!("{method} {path}: {text}"))
    }

    /// [`Driver::call`], WebDriver's error given back as its text.
    async fn try_call(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, String> {
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
        if v["value"]["error"].is_null() {
            Ok(v["value"].clone())
        } else {
            Err(text)
        }
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

    /// A PNG of one element, as Chromium draws it. The live page replaces the board when its
    /// event stream's first update comes, which may be between finding the element and
    /// drawing it: a stale element is found again (the same board, drawn anew).
    async fn element_png(&self, css: &str) -> Vec<u8> {
        let mut tries = 0;
        loop {
            let found = self
                .call(
                    "POST",
                    "/element",
                    Some(json!({"using": "css selector", "value": css})),
                )
                .await;
            let id = found
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("no element {css}: {found}"))
                .to_string();
            match self
                .try_call("GET", &format!("/element/{id}/screenshot"), None)
                .await
            {
                Ok(shot) => return base64(shot.as_str().expect("a screenshot")),
                Err(text) if text.contains("stale element") && tries < 10 => tries += 1,
                Err(text) => panic!("a screenshot of {css}: {text}"),
            }
        }
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

/// Chromium and its driver, or `None` (the test is skipped, unless
/// `FAIRYBOT_REQUIRE_CHROMIUM=1`, as in the test command, makes it fail).
fn browser() -> Option<(String, String)> {
    match (found("chromium"), found("chromedriver")) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => {
            assert!(
                std::env::var("FAIRYBOT_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
                "FAIRYBOT_REQUIRE_CHROMIUM=1 but chromium or chromedriver is missing (apt-get install chromium chromium-driver)"
            );
            println!("SKIP: chromium or chromedriver not installed");
            None
        }
    }
}

const ARROW_LEFT: &str = "\u{E012}";
const ARROW_RIGHT: &str = "\u{E014}";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_watched_live_and_replayed_in_chromium() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
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
    // The move came as an edit of the board the page held: what the script built from it is
    // the server's board of that position, piece for piece.
    let shown = d
        .js("return Array.from(document.querySelectorAll('#board svg use')).map(u => u.getAttribute('transform')).join('|')")
        .await;
    let (_, _, svg3) = get(&s.url(&format!("/game/{}/board.svg?ply=3", g.id))).await;
    let expected: Vec<&str> = svg3
        .split("<use ")
        .skip(1)
        .filter_map(|u| u.split("transform=\"").nth(1)?.split('"').next())
        .collect();
    assert!(expected.len() > 20, "{svg3}");
    assert_eq!(shown, json!(expected.join("|")), "the board after Nf3");
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

/// The approved pictures of game pages' boards (`tests/approved/NAME.png`). With
/// `FAIRYBOT_APPROVE_SCREENSHOTS=1` the test writes what Chromium shows there instead (look at
/// them before committing).
fn approved(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/approved")
        .join(format!("{name}.png"))
}

/// RGBA pixels and size of a PNG.
fn pixels(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(
        png::Transformations::normalize_to_color8() | png::Transformations::ALPHA,
    );
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    buf.truncate(info.buffer_size());
    assert_eq!(info.color_type, png::ColorType::Rgba, "normalised to RGBA");
    (info.width, info.height, buf)
}

/// How many pixels differ visibly (a channel by more than 40 of 255), out of how many.
fn differing(a: &[u8], b: &[u8]) -> (usize, usize) {
    let n = a.len() / 4;
    let differ = a
        .chunks_exact(4)
        .zip(b.chunks_exact(4))
        .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 40))
        .count();
    (differ, n)
}

/// Compares what Chromium shows of the element `css` (the board) with the approved picture: the same size,
/// and at most 0.5 % of the pixels visibly different (antialiasing and font hinting vary a
/// little between builds of Chromium; a misdrawn piece, square or hole does not fit in that).
async fn looks_as_approved(d: &Driver, name: &str, css: &str) {
    let shot = d.element_png(css).await;
    let path = approved(name);
    if std::env::var("FAIRYBOT_APPROVE_SCREENSHOTS").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &shot).unwrap();
        println!("approved: {}", path.display());
        return;
    }
    let seen = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("seen-{name}.png"));
    std::fs::write(&seen, &shot).unwrap();
    let want = std::fs::read(&path).unwrap_or_else(|_| {
        panic!(
            "no approved picture {} (run with FAIRYBOT_APPROVE_SCREENSHOTS=1, look at it, commit it)",
            path.display()
        )
    });
    let (w1, h1, a) = pixels(&want);
    let (w2, h2, b) = pixels(&shot);
    assert_eq!(
        (w2, h2),
        (w1, h1),
        "{name}: the board's size changed (what Chromium showed: {})",
        seen.display()
    );
    let (differ, n) = differing(&a, &b);
    assert!(
        differ * 200 <= n,
        "{name}: {differ} of {n} pixels differ from the approved picture (what Chromium showed: {})",
        seen.display()
    );
    println!("{name}: {differ} of {n} pixels differ");
}

/// Plays `plies` moves of the game `id`, each the first legal move in coordinate notation
/// (always the same game), by whoever is to move.
async fn play_first_moves(s: &Server, id: bot_core::model::GameId, plies: usize) {
    let catalog = rules::Catalog::builtin();
    for _ in 0..plies {
        let record = s.record(id).await;
        let v = catalog.get(&record.variant).unwrap();
        let mut pos = rules::fen::position(&v, &record.start_state).unwrap();
        for m in &record.moves {
            let mv = rules::notation::parse_coord(&pos, m).unwrap();
            pos.play_unchecked(mv);
        }
        let legal = pos.legal_moves();
        let mv = rules::notation::coord(&pos, legal[legal.len() / 2]);
        let who = name(&record.seats[pos.turn().index()]);
        let r = s.say(&who, &format!("move #{id} {mv}")).await;
        assert!(
            r[0].text.contains(" plays ") || r[0].text.contains(" moves "),
            "{mv}: {}",
            r[0].text
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toulousain_four_player_and_looking_glass_pages_look_as_approved() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let s = Server::start().await;
    // Toulousain, a few moves in.
    s.say("alice", "challenge @bob:example.org toulousain white")
        .await;
    s.say("bob", "accept").await;
    let toulousain = s.newest().await;
    play_first_moves(&s, toulousain.id, 4).await;
    // A four-player Double Cross Besiege, a few moves in.
    s.say(
        "alice",
        "challenge @bob:example.org @carol:example.org @dave:example.org dcb-balanced-4p",
    )
    .await;
    for p in ["bob", "carol", "dave"] {
        s.say(p, "accept").await;
    }
    let four = s.newest().await;
    assert_eq!(four.seats.len(), 4, "{four:?}");
    play_first_moves(&s, four.id, 4).await;
    // Looking-Glass in play: what a bystander sees.
    s.say(
        "alice",
        &format!("challenge @bob:example.org {} white", rules::glass::NAME),
    )
    .await;
    s.say("bob", "accept").await;
    let glass = s.newest().await;
    s.dm("alice", "setup 518").await;
    s.dm("bob", "setup 518").await;
    let order = s.dm("alice", "e2e4").await;
    assert!(
        order.iter().any(|r| r.text.contains("has moved")),
        "the order was not taken: {order:#?}"
    );

    let d = Driver::start(&chromium, &chromedriver).await;
    for (name, id) in [("toulousain", toulousain.id), ("four-players", four.id)] {
        d.go(&s.url(&format!("/game/{id}"))).await;
        assert!(
            d.until(
                "return document.querySelector('#board svg') !== null",
                Duration::from_secs(5)
            )
            .await,
            "{name}: no board on the page"
        );
        looks_as_approved(&d, name, "#board svg").await;
    }
    // While it is played, a bystander is told the boards are secret; once it ends, both
    // worlds are shown.
    d.go(&s.url(&format!("/game/{}", glass.id))).await;
    assert!(
        d.until(
            "return document.querySelector('.hidden-board') !== null",
            Duration::from_secs(5)
        )
        .await
    );
    looks_as_approved(&d, "looking-glass-in-play", "#game").await;
    s.dm("bob", "resign").await;
    d.go(&s.url(&format!("/game/{}", glass.id))).await;
    assert!(
        d.until(
            "return document.querySelector('#board svg') !== null",
            Duration::from_secs(5)
        )
        .await,
        "the revealed game has no board"
    );
    looks_as_approved(&d, "looking-glass-revealed", "#board svg").await;
    d.call("DELETE", "", None).await;
}
