//! fairybot's web pages: every game live and replayable in a browser, its export and its
//! animated replay for download, and `/healthz` and `/metrics` for the people who run it.
//!
//! The server reads games through the core's store port only ([`GameStore`]), draws boards
//! with the same renderer as the chat pictures (as SVG, crisp at any zoom), and shows a
//! bystander exactly what [`bot_core::watch`] allows: a Looking-Glass game is a name, its
//! players and its status until it ends.
//!
//! Modules: [`page`] (the HTML), [`live`] (server-sent events fed by the store's
//! [`GameChanges`] and a bounded poll for other processes), [`update`] and [`edit`] (what a
//! live page is sent: the parts that changed, as edits of the text it holds), [`ops`] (health
//! and metrics),
//! [`apart`] (the server on threads of its own, below the commands' priority).
//!
//! Pages (all `GET`):
//!
//! | path | what |
//! |---|---|
//! | `/` | live games and the latest finished ones; `?variant=NAME` filters |
//! | `/game/ID` | one game; `?ply=N` a position of it |
//! | `/game/ID/board.svg` | the board at `?ply=N` (default: now) |
//! | `/game/ID/events` | the live page's event stream |
//! | `/game/ID/export.txt` | the PGN-like export |
//! | `/game/ID/replay.gif` | the animated replay |
//! | `/healthz`, `/metrics` | for service managers and Prometheus |

#![warn(missing_docs)]

pub mod apart;
pub mod edit;
pub mod live;
pub mod ops;
pub mod page;
pub mod update;

use std::{net::SocketAddr, sync::Arc, time::Duration};

use axum::{
    Router,
    extract::{Path, Query, State},
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};
use bot_core::{
    Clock, SystemClock,
    metrics::Metrics,
    model::{GameId, GameRecord},
    store::{GameStore, StoreError, watched::GameChanges},
    watch::{self, WatchError},
};
use render::{Theme, animation::AnimationOptions};
use rules::Catalog;

pub use apart::{Apart, Priority};
pub use live::Hub;
pub use ops::Health;

/// How the web server is set up (`[web]` in the configuration).
#[derive(Debug, Clone)]
pub struct WebConfig {
    /// The address to listen on (`127.0.0.1:8080`).
    pub listen: SocketAddr,
    /// The address people reach the pages at, for links in chat (`https://chess.example.org`),
    /// without a trailing slash.
    pub public_url: Option<String>,
    /// How often the pages being watched are checked in the store for moves made by other
    /// processes sharing it (moves made by this process are shown at once).
    pub poll: Duration,
    /// How the downloadable replay is drawn.
    pub animation: AnimationOptions,
    /// The server's threads ([`Web::serve_apart`]).
    pub priority: Priority,
    /// How long a change takes to reach every open stream: the streams are sent it in
    /// [`live::WAVES`] waves spread over this time, so that a thousand watchers do not take
    /// every core at the moment a move is made (zero: all at once).
    pub spread: Duration,
}

impl WebConfig {
    /// Listening on `listen`, no public address, a poll every 500 ms, the default replay,
    /// two threads at nice 10, changes spread over [`DEFAULT_SPREAD`].
    pub fn new(listen: SocketAddr) -> WebConfig {
        WebConfig {
            listen,
            public_url: None,
            poll: Duration::from_millis(500),
            animation: AnimationOptions::default(),
            priority: Priority::default(),
            spread: DEFAULT_SPREAD,
        }
    }
}

/// The default [`WebConfig::spread`]: with 1,000 streams on one game, the moves' p99 on the
/// same two cores was a quarter lower than with every stream at once, for 8 ms more fan-out
/// at p95 (docs/src/web.md, "Measured").
pub const DEFAULT_SPREAD: Duration = Duration::from_millis(32);

/// The link to a game's page under `public_url`.
pub fn game_link(public_url: &str, game: GameId) -> String {
    format!("{}/game/{}", public_url.trim_end_matches('/'), game.0)
}

/// Everything the handlers share. Cheap to clone (an `Arc`).
#[derive(Debug)]
pub struct Web<S> {
    store: S,
    catalog: Arc<Catalog>,
    renderer: Arc<render::Renderer>,
    metrics: Arc<Metrics>,
    health: Health,
    hub: Arc<Hub>,
    clock: SystemClock,
    config: WebConfig,
    /// The players' variants, to load the definition of a game's variant that this process
    /// has not loaded yet (after a restart, the page of such a game may be the first to ask).
    custom: std::sync::OnceLock<Arc<dyn bot_core::custom::CustomLibrary>>,
    /// The runtime that answers commands, when the server runs apart from it
    /// ([`Web::serve_apart`]): store calls are made there (see [`Web::at_home`]).
    home: std::sync::OnceLock<tokio::runtime::Handle>,
}

impl<S: GameStore + Clone + 'static> Web<S> {
    /// Makes a store call on the commands' runtime when the server runs apart from it: the
    /// store's connections are then opened and driven by the commands' threads, at their
    /// priority. A connection opened on the pages' threads would answer commands at the
    /// pages' priority (SQLite runs each connection on a thread that inherits it; a
    /// PostgreSQL socket is driven by the runtime it was opened on). Served on the caller's
    /// runtime, the call is made right here.
    async fn at_home<T, E, F>(&self, call: F) -> Result<T, E>
    where
        F: std::future::Future<Output = Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let Some(home) = self.home.get() else {
            return call.await;
        };
        match home.spawn(call).await {
            Ok(r) => r,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => Err(StoreError::Unavailable("the service is stopping".into()).into()),
        }
    }

    /// Lets the pages draw games of players' own variants: `library` is the game service's
    /// ([`bot_core::GameService::custom_library`]).
    pub fn use_custom_variants(&self, library: Arc<dyn bot_core::custom::CustomLibrary>) {
        let _ = self.custom.set(library);
    }

    /// Makes sure the catalogue knows a stored game's variant: a player's own is loaded by its
    /// hash and registered (see [`rules::Catalog::register`]). A definition that does not load
    /// is left to the page's own error.
    async fn know_variant(&self, stored: &str) {
        let Some(hash) = bot_core::custom::hash_of_game_variant(stored) else {
            return;
        };
        if self.catalog.get(stored).is_ok() {
            return;
        }
        let Some(library) = self.custom.get() else {
            return;
        };
        let (library, owned) = (library.clone(), hash.to_string());
        match self
            .at_home(async move { library.by_hash(&owned).await })
            .await
        {
            Ok(v) => {
                self.catalog.register(stored, v);
            }
            Err(e) => tracing::warn!("web: the variant of a game did not load: {e}"),
        }
    }

    /// The evaluation graph of a finished game's analysis, as SVG, when one covers all its
    /// moves (analyses are only made of finished games, never of a hidden one).
    async fn graph(&self, record: &GameRecord, names: &[String], theme: &Theme) -> Option<String> {
        if record.status.is_active() {
            return None;
        }
        let (store, id) = (self.store.clone(), record.id);
        let analysis = self
            .at_home(async move { store.analysis(id).await })
            .await
            .ok()
            .flatten()?;
        let bot_core::analysis::AnalysisState::Done(done) = analysis.state else {
            return None;
        };
        if analysis.plies as usize != record.moves.len() {
            return None;
        }
        let graph = bot_core::service::evaluation_graph(record, &done, names)?;
        Some(bot_core::picture::graph_svg(&graph, theme))
    }

    /// The server's state over a store, its variants, the process's counters, its health
    /// and the store's change notices.
    pub fn new(
        store: S,
        catalog: Arc<Catalog>,
        metrics: Arc<Metrics>,
        health: Health,
        changes: GameChanges,
        config: WebConfig,
    ) -> Arc<Web<S>> {
        Arc::new(Web {
            store,
            catalog,
            renderer: Arc::new(render::Renderer::new()),
            metrics,
            health,
            hub: Arc::new(Hub::new(changes)),
            clock: SystemClock,
            config,
            custom: std::sync::OnceLock::new(),
            home: std::sync::OnceLock::new(),
        })
    }

    /// The live hub (for the benchmark and tests).
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// The routes.
    pub fn router(self: &Arc<Self>) -> Router {
        Router::new()
            .route("/", get(index::<S>))
            .route("/game/{id}", get(game_page::<S>))
            .route("/game/{id}/board.svg", get(board_svg::<S>))
            .route("/game/{id}/events", get(live::events::<S>))
            .route("/game/{id}/export.txt", get(export::<S>))
            .route("/game/{id}/replay.gif", get(replay_gif::<S>))
            .route("/healthz", get(ops::healthz::<S>))
            .route("/metrics", get(ops::metrics::<S>))
            .route("/assets/app.js", get(app_js))
            .route("/assets/style.css", get(style_css))
            .fallback(not_found)
            .with_state(self.clone())
    }

    /// Serves on `listener` until `stop` completes, with the live hub running beside it.
    ///
    /// # Errors
    /// When the server fails (the listener breaks).
    pub async fn serve(
        self: Arc<Self>,
        listener: tokio::net::TcpListener,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let hub = tokio::spawn(live::run(self.clone()));
        let r = axum::serve(listener, self.router())
            .with_graceful_shutdown(stop)
            .await;
        hub.abort();
        r
    }

    /// The game with its players' names, or the page to answer instead.
    // The error is the answer itself, as axum handlers return it: boxing it would buy nothing.
    #[allow(clippy::result_large_err)]
    /// The game a path names (`/game/ID/...`): a page saying what is wrong when `id` is not
    /// a number or no such game exists.
    async fn load_path(&self, id: &str) -> Result<(GameRecord, Vec<String>), Response> {
        self.load(game_id(id)?).await
    }

    async fn load(&self, id: i64) -> Result<(GameRecord, Vec<String>), Response> {
        let store = self.store.clone();
        let record = match self
            .at_home(async move { store.get_game(GameId(id)).await })
            .await
        {
            Ok(r) => r,
            Err(StoreError::NotFound(_)) => {
                return Err(error_page(
                    StatusCode::NOT_FOUND,
                    &format!("There is no game {id}. The list of games is at /."),
                ));
            }
            Err(e) => {
                tracing::warn!("web: game {id} not read: {e}");
                return Err(error_page(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The games cannot be read just now; try again in a moment.",
                ));
            }
        };
        self.know_variant(&record.variant).await;
        let names = self.names(&record).await;
        Ok((record, names))
    }

    /// The seats' display names (their ids when unknown).
    async fn names(&self, record: &GameRecord) -> Vec<String> {
        let mut names = Vec::with_capacity(record.seats.len());
        for p in &record.seats {
            let (store, player) = (self.store.clone(), p.clone());
            names.push(
                match self
                    .at_home(async move { store.get_player(&player).await })
                    .await
                {
                    Ok(r) => r.display_name,
                    Err(_) => p.user.clone(),
                },
            );
        }
        names
    }

    fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}

/// A page's query: which position, which theme, which variant.
#[derive(Debug, Default, serde::Deserialize)]
pub struct PageQuery {
    /// The position (0 = start); the last when absent.
    pub ply: Option<String>,
    /// `colour-blind` or `dark` for those themes.
    pub theme: Option<String>,
    /// The index's variant filter.
    pub variant: Option<String>,
}

impl PageQuery {
    /// The theme asked for (light by default).
    pub fn theme(&self) -> Theme {
        match self.theme.as_deref() {
            Some("colour-blind" | "colorblind" | "colour_blind") => Theme::colour_blind(),
            Some("dark") => Theme::dark(),
            _ => Theme::light(),
        }
    }

    /// The position asked for, checked against the game's `last`.
    ///
    /// # Errors
    /// A page that says what may be asked instead.
    #[allow(clippy::result_large_err)] // the answer itself, as axum handlers return it
    pub fn ply(&self, record: &GameRecord) -> Result<Option<usize>, Response> {
        let last = record.moves.len();
        let Some(text) = self.ply.as_deref() else {
            return Ok(None);
        };
        // Checked against nothing: how many actions a hidden game has is hidden too.
        if watch::is_hidden(record) {
            return Err(watch_error(&WatchError::Hidden(record.id)));
        }
        match text.trim().parse::<usize>() {
            Ok(n) if n <= last => Ok(Some(n)),
            Ok(n) => Err(watch_error(&WatchError::NoSuchPly {
                game: record.id,
                asked: n,
                last,
            })),
            Err(_) => Err(error_page(
                StatusCode::BAD_REQUEST,
                &format!(
                    "?ply= takes a position number from 0 (the start) to {last} (now); {} is not one.",
                    page::escape(text)
                ),
            )),
        }
    }
}

#[allow(clippy::result_large_err)] // the answer itself, as axum handlers return it
fn game_id(text: &str) -> Result<i64, Response> {
    text.parse::<i64>().map_err(|_| {
        error_page(
            StatusCode::NOT_FOUND,
            &format!(
                "{} is not a game number. Game pages are /game/NUMBER; the list is at /.",
                page::escape(text)
            ),
        )
    })
}

async fn index<S: GameStore + Clone + 'static>(
    State(web): State<Arc<Web<S>>>,
    Query(q): Query<PageQuery>,
) -> Response {
    let filter = bot_core::store::GameFilter::default().limit(200);
    let store = web.store.clone();
    let games = match web
        .at_home(async move { store.list_games(&filter).await })
        .await
    {
        Ok(g) => g,
        Err(e) => {
            tracing::warn!("web: games not listed: {e}");
            return error_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "The games cannot be read just now; try again in a moment.",
            );
        }
    };
    let mut rows = Vec::new();
    for g in games {
        // A player's own variant is listed by its name, not its stored `custom:<hash>`.
        web.know_variant(&g.variant).await;
        let variant = watch::variant_name(&g, &web.catalog);
        if let Some(want) = q.variant.as_deref().filter(|w| !w.is_empty())
            && !g.variant.eq_ignore_ascii_case(want)
            && !variant.eq_ignore_ascii_case(want)
        {
            continue;
        }
        let names = web.names(&g).await;
        rows.push(page::IndexRow {
            id: g.id,
            variant,
            variant_key: g.variant.clone(),
            players: names,
            status: page::status_text(&g),
            active: g.status.is_active(),
        });
    }
    html(page::index(&rows, q.variant.as_deref()))
}

async fn game_page<S: GameStore + Clone + 'static>(
    State(web): State<Arc<Web<S>>>,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Response {
    let (record, names) = match web.load_path(&id).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let ply = match q.ply(&record) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let graph = web.graph(&record, &names, &q.theme()).await;
    match page::GamePage::build(&record, &names, &web.catalog, ply, &q.theme(), web.now_ms()) {
        Ok(p) => {
            web.metrics.render("svg");
            html(p.with_graph(graph).html(web.config.public_url.as_deref()))
        }
        Err(e) => watch_error(&e),
    }
}

async fn board_svg<S: GameStore + Clone + 'static>(
    State(web): State<Arc<Web<S>>>,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Response {
    let (record, names) = match web.load_path(&id).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let ply = match q.ply(&record) {
        Ok(p) => p,
        Err(r) => return r,
    };
    match watch::frames(&record, &web.catalog, &names, ply) {
        Ok(frames) => {
            let Some(last) = frames.last() else {
                return watch_error(&WatchError::Hidden(record.id));
            };
            web.metrics.render("svg");
            let svg = page::board_svg(&last.view, &q.theme());
            (
                [
                    (
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("image/svg+xml"),
                    ),
                    (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
                ],
                svg,
            )
                .into_response()
        }
        Err(e) => watch_error(&e),
    }
}

async fn export<S: GameStore + Clone + 'static>(
    State(web): State<Arc<Web<S>>>,
    Path(id): Path<String>,
) -> Response {
    let (record, names) = match web.load_path(&id).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let text = if watch::is_hidden(&record) {
        return watch_error(&WatchError::Hidden(record.id));
    } else if bot_core::rules_engine::GameKind::glass(&record.variant).is_some() {
        page::glass_export(&record, &names)
    } else {
        let Ok(v) = web.catalog.get(&record.variant) else {
            return watch_error(&WatchError::Variant {
                game: record.id,
                variant: record.variant.clone(),
            });
        };
        match bot_core::export::pgn(&v, &record, &names) {
            Ok(t) => t,
            Err(_) => {
                return watch_error(&WatchError::Replay {
                    game: record.id,
                    ply: 0,
                });
            }
        }
    };
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            ),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_str(&format!("inline; filename=\"game-{}.txt\"", record.id.0))
                    .unwrap_or(HeaderValue::from_static("inline")),
            ),
        ],
        text,
    )
        .into_response()
}

async fn replay_gif<S: GameStore + Clone + 'static>(
    State(web): State<Arc<Web<S>>>,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Response {
    let (record, names) = match web.load_path(&id).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let frames = match watch::frames(&record, &web.catalog, &names, None) {
        Ok(f) => f,
        Err(e) => return watch_error(&e),
    };
    let (renderer, theme, options) = (
        web.renderer.clone(),
        q.theme(),
        web.config.animation.clone(),
    );
    let views: Vec<render::BoardView> = frames.into_iter().map(|f| f.view).collect();
    let made = tokio::task::spawn_blocking(move || {
        render::animation::gif(&renderer, &views, &theme, &options)
    })
    .await;
    match made {
        Ok(Ok(a)) => {
            web.metrics.render("gif");
            (
                [
                    (header::CONTENT_TYPE, HeaderValue::from_static("image/gif")),
                    (
                        header::CONTENT_DISPOSITION,
                        HeaderValue::from_str(&format!(
                            "inline; filename=\"game-{}.gif\"",
                            record.id.0
                        ))
                        .unwrap_or(HeaderValue::from_static("inline")),
                    ),
                ],
                a.bytes,
            )
                .into_response()
        }
        Ok(Err(e)) => {
            tracing::warn!("web: replay of game {id} not drawn: {e}");
            error_page(
                StatusCode::UNPROCESSABLE_ENTITY,
                &format!(
                    "The replay of game {id} could not be drawn: {}.",
                    page::escape(&e.to_string())
                ),
            )
        }
        Err(_) => error_page(
            StatusCode::SERVICE_UNAVAILABLE,
            "The replay could not be drawn just now; try again in a moment.",
        ),
    }
}

/// The answer to a game that cannot be shown as asked.
fn watch_error(e: &WatchError) -> Response {
    let status = match e {
        WatchError::Hidden(_) => StatusCode::FORBIDDEN,
        WatchError::NoSuchPly { .. } => StatusCode::NOT_FOUND,
        WatchError::Variant { .. } | WatchError::Replay { .. } => StatusCode::UNPROCESSABLE_ENTITY,
    };
    error_page(
        status,
        &page::escape(&bot_core::text::sentence(&e.to_string())),
    )
}

/// A short page with `message` (already HTML).
fn error_page(status: StatusCode, message: &str) -> Response {
    (status, html_body(page::error(message))).into_response()
}

fn html_body(body: String) -> ([(header::HeaderName, HeaderValue); 2], String) {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            // Only our own scripts, styles and images: nothing from another host.
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(
                    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'",
                ),
            ),
        ],
        body,
    )
}

fn html(body: String) -> Response {
    html_body(body).into_response()
}

async fn not_found() -> Response {
    error_page(
        StatusCode::NOT_FOUND,
        "There is no such page. The games are listed at /; a game is at /game/NUMBER.",
    )
}

async fn app_js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../assets/app.js"),
    )
        .into_response()
}

async fn style_css() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("../assets/style.css"),
    )
        .into_response()
}
