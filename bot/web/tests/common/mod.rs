//! A web server over a memory store and a game service, on a loopback port, with players
//! to play through the service as the chat adapters do.
#![allow(dead_code)]

use std::{net::SocketAddr, sync::Arc, time::Duration};

use bot_core::{
    Actor, GameService, SystemClock,
    metrics::Metrics,
    model::{GameRecord, Place, Platform, PlayerId},
    reply::Reply,
    store::{
        GameFilter, GameStore,
        memory::MemoryStore,
        watched::{GameChanges, Watched},
    },
};
use bot_web::{Health, Web, WebConfig};
use rules::Catalog;

pub type Store = Watched<MemoryStore>;

pub struct Server {
    pub store: Store,
    pub svc: Arc<GameService<Store, SystemClock>>,
    pub web: Arc<Web<Store>>,
    pub addr: SocketAddr,
    pub room: Place,
    pub metrics: Arc<Metrics>,
    pub health: Health,
    /// The server, on threads of its own as the service runs it.
    apart: Option<bot_web::Apart>,
}

pub fn actor(name: &str) -> Actor {
    Actor::new(
        PlayerId::new(Platform::Matrix, format!("@{name}:example.org")),
        name.to_string(),
    )
}

impl Server {
    pub async fn start() -> Server {
        Server::start_with(WebConfig::new("127.0.0.1:0".parse().unwrap())).await
    }

    pub async fn start_with(config: WebConfig) -> Server {
        Server::start_as(config, false).await
    }

    /// A server whose service keeps players' variants in memory, and whose pages draw from a
    /// catalogue of their own, as a web server started after the games were played would:
    /// it knows no player's variant until it loads one.
    pub async fn start_with_players_variants() -> Server {
        Server::start_as(WebConfig::new("127.0.0.1:0".parse().unwrap()), true).await
    }

    async fn start_as(config: WebConfig, custom: bool) -> Server {
        let changes = GameChanges::new();
        let store = Watched::new(MemoryStore::new(), changes.clone());
        let catalog = Arc::new(Catalog::builtin());
        let metrics = Arc::new(Metrics::new());
        // Seeded: who plays which side, and so every page, is the same each run.
        let mut svc = GameService::new(store.clone(), SystemClock, catalog.clone())
            .with_metrics(metrics.clone())
            .with_chance(bot_core::SeededChance::new(7));
        if custom {
            svc = svc.with_custom_variants(bot_core::custom::Library::with(
                bot_core::custom::MemoryVariants::default(),
                bot_core::custom::Quotas::default(),
                rules::validate::Limits {
                    time: Duration::from_secs(20),
                    ..rules::validate::Limits::default()
                },
            ));
        }
        let svc = Arc::new(svc);
        let health = Health::new();
        let priority = config.priority;
        let web = Web::new(
            store.clone(),
            if custom {
                Arc::new(Catalog::builtin())
            } else {
                catalog
            },
            metrics.clone(),
            health.clone(),
            changes,
            config,
        );
        if let Some(library) = svc.custom_library() {
            web.use_custom_variants(library);
        }
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let apart = web
            .clone()
            .serve_apart(listener, std::future::pending(), priority)
            .unwrap();
        Server {
            store,
            svc,
            web,
            addr,
            room: Place::room(Platform::Matrix, "!room:example.org"),
            metrics,
            health,
            apart: Some(apart),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn say(&self, who: &str, text: &str) -> Vec<Reply> {
        self.svc.handle_text(&actor(who), &self.room, text).await
    }

    pub async fn dm(&self, who: &str, text: &str) -> Vec<Reply> {
        let place = Place::direct(Platform::Matrix, format!("!{who}-dm:example.org"));
        self.svc.handle_text(&actor(who), &place, text).await
    }

    /// alice challenges bob to `variant` and bob accepts; the new game's record.
    pub async fn start_game(&self, variant: &str) -> GameRecord {
        let r = self
            .say("alice", &format!("challenge @bob:example.org {variant}"))
            .await;
        assert!(!r.is_empty());
        let r = self.say("bob", "accept").await;
        assert!(r[0].text.contains("starts"), "{:?}", r[0].text);
        self.newest().await
    }

    pub async fn newest(&self) -> GameRecord {
        self.store
            .list_games(&GameFilter::default().limit(1))
            .await
            .unwrap()
            .pop()
            .unwrap()
    }

    pub async fn record(&self, id: bot_core::model::GameId) -> GameRecord {
        self.store.get_game(id).await.unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(apart) = self.apart.take() {
            apart.stop();
        }
    }
}

pub async fn get(url: &str) -> (u16, String, String) {
    let r = reqwest::get(url).await.unwrap();
    let status = r.status().as_u16();
    let ct = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap_or("").to_string())
        .unwrap_or_default();
    (status, ct, r.text().await.unwrap())
}

pub async fn get_bytes(url: &str) -> (u16, Vec<u8>) {
    let r = reqwest::get(url).await.unwrap();
    (r.status().as_u16(), r.bytes().await.unwrap().to_vec())
}

/// An open event stream: the page's state after each `update` event, one at a time (edits
/// applied as the page's script applies them).
pub struct Events {
    resp: reqwest::Response,
    buf: String,
    watcher: bot_web::update::Watcher,
    /// Each update's data as sent (whole or an edit).
    pub sent: Vec<String>,
    /// Every byte received, for privacy checks.
    pub raw: String,
    /// How many updates were read.
    pub updates: usize,
}

impl Events {
    pub async fn open(url: &str) -> Events {
        let resp = reqwest::get(url).await.unwrap();
        assert_eq!(resp.status().as_u16(), 200, "events at {url}");
        Events {
            resp,
            buf: String::new(),
            watcher: bot_web::update::Watcher::default(),
            sent: Vec::new(),
            raw: String::new(),
            updates: 0,
        }
    }

    /// The page's state after the next update, as JSON with every part whole, or `None` if
    /// none comes within `wait`.
    pub async fn next(&mut self, wait: Duration) -> Option<String> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let data: Vec<&str> = block
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: ").or_else(|| l.strip_prefix("data:")))
                    .collect();
                if block.lines().any(|l| l == "event: update") {
                    self.updates += 1;
                    let data = data.join("\n");
                    let state = self.watcher.read(&data).unwrap_or_else(|e| panic!("{e}"));
                    self.sent.push(data);
                    return Some(state);
                }
                continue;
            }
            let chunk = tokio::time::timeout_at(deadline, self.resp.chunk())
                .await
                .ok()?;
            match chunk {
                Ok(Some(b)) => {
                    let s = String::from_utf8_lossy(&b).to_string();
                    self.raw.push_str(&s);
                    self.buf.push_str(&s);
                }
                _ => return None,
            }
        }
    }
}
