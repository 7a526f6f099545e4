//! The process around fairybot's game service, without the chat platforms: the service built
//! over the SQL store, what runs beside it (the scheduler, the web pages, the bot's searches
//! and analyses), the local console, and the stop on SIGTERM or SIGINT.
//!
//! The binary reads the configuration, opens the store and hands it here; the chat adapters
//! then get the service as [`Games`] from [`Host::games`]. Everything generic over the store
//! is made concrete in this crate, which compiles beside the platforms' libraries instead of
//! after them (see `Cargo.toml`).

mod console;
mod input;
mod mailbox;
mod shutdown;

use std::{path::Path, sync::Arc};

use anyhow::Context;
use bot_core::{
    GameService, Games, SystemClock,
    analysis::AnalysisConfig,
    metrics::Metrics,
    opponent::BotConfig,
    service::BoxFuture,
    store::watched::{GameChanges, Watched},
    time_control::ReminderPolicy,
};
use bot_store::SqlStore;

pub use shutdown::Shutdown;

/// The service as this process runs it.
type Service = GameService<Watched<SqlStore>, SystemClock>;

/// What the service is built with (from the validated configuration).
#[derive(Debug)]
pub struct Options {
    /// The variants.
    pub catalog: Arc<rules::Catalog>,
    /// The web pages' public address, for links in replies.
    pub public_url: Option<String>,
    /// When correspondence players are reminded of their move.
    pub reminders: ReminderPolicy,
    /// This process's name on the outbox.
    pub instance: String,
    /// The bot's searches.
    pub bot: BotConfig,
    /// Post-game analyses, when enabled.
    pub analysis: Option<AnalysisConfig>,
    /// How often due deadlines and reminders are fired.
    pub scheduler_interval: std::time::Duration,
    /// The web server, when one is configured.
    pub web: Option<bot_web::WebConfig>,
}

/// The running service and what runs beside it, until [`Host::close`].
#[derive(Debug)]
pub struct Host {
    service: Arc<Service>,
    sql: SqlStore,
    health: bot_web::Health,
    scheduler: tokio::task::JoinHandle<()>,
    web: Option<bot_web::Apart>,
}

impl Host {
    /// Builds the service over `sql` and starts what runs beside it: what this process had
    /// claimed of the outbox when it last stopped is taken back, the bot's pending moves are
    /// queued, the scheduler and the web pages (if configured) run until `stop`.
    ///
    /// A boxed future, so that its code is compiled here (see the crate's note): an `async
    /// fn`'s body is compiled where it is awaited.
    ///
    /// # Errors
    /// When the bot's or the analyses' threads cannot start, the store cannot be read, or
    /// the web server's address cannot be listened on.
    pub fn start(
        sql: SqlStore,
        options: Options,
        stop: &Shutdown,
    ) -> BoxFuture<'static, anyhow::Result<Host>> {
        Box::pin(Self::started(sql, options, stop.clone()))
    }

    async fn started(sql: SqlStore, options: Options, stop: Shutdown) -> anyhow::Result<Host> {
        let Options {
            catalog,
            public_url,
            reminders,
            instance,
            bot,
            analysis,
            scheduler_interval,
            web,
        } = options;
        // Every game write is announced in-process, for the web pages' live updates.
        let changes = GameChanges::new();
        let store = Watched::new(sql.clone(), changes.clone());
        let metrics = Arc::new(Metrics::new());
        let health = bot_web::Health::new();
        let mut service = GameService::new(store.clone(), SystemClock, catalog.clone());
        if let Some(url) = public_url {
            service = service.with_public_url(url);
        }
        let mut service = service
            .with_reminders(reminders)
            .with_metrics(metrics.clone())
            .with_instance(instance)
            .with_bot(bot)?
            // Players' own variants (`variant add`), kept in the same database.
            .with_custom_variants(bot_core::custom::Library::new(sql.clone()));
        // Post-game analyses (`analyse`): their own thread, at the searches' priority.
        if let Some(analysis) = analysis {
            service = service.with_analysis(analysis)?;
        }
        let service = Arc::new(service);
        service.start_analyst();
        // `/metrics` reads the bot's searches running from the service (weakly: the service
        // holds the counters).
        let weak = Arc::downgrade(&service);
        metrics.searches_from(move || {
            weak.upgrade()
                .map_or(0, |s| s.bot_searches_running() as u64)
        });
        // What this process had claimed when it last stopped (killed between a move's commit
        // and its announcement's send): sent again now, before any new command.
        service
            .take_back_claims()
            .await
            .context("cannot read the outbox")?;
        // Games where the bot was to move when the last run stopped: queued now.
        service
            .start_bot()
            .await
            .context("cannot look for games where the bot is to move")?;
        // One scheduler per process, for every platform and the console alike: deadlines and
        // reminders fire whichever frontend runs (several processes on one PostgreSQL
        // database may each run one; the store lets one of them act on each game).
        let scheduler = tokio::spawn(bot_core::scheduler::run(
            service.clone(),
            scheduler_interval,
            stop.stopping(),
        ));
        let web = match web {
            None => None,
            Some(web_config) => {
                let listener = std::net::TcpListener::bind(web_config.listen).with_context(|| {
                        format!(
                            "cannot listen on [web] listen = \"{}\" (in use, or not an address of this machine)",
                            web_config.listen
                        )
                    })?;
                tracing::info!("web pages at http://{}", web_config.listen);
                let web = bot_web::Web::new(
                    store,
                    catalog,
                    metrics,
                    health.clone(),
                    changes,
                    web_config.clone(),
                );
                if let Some(library) = service.custom_library() {
                    web.use_custom_variants(library);
                }
                // Threads of its own, below the commands (see `bot_web::apart`).
                let priority = web_config.priority;
                Some(
                    web.serve_apart(listener, stop.stopping(), priority)
                        .context("cannot start the web server's threads")?,
                )
            }
        };
        Ok(Host {
            service,
            sql,
            health,
            scheduler,
            web,
        })
    }

    /// The service, for the chat adapters.
    pub fn games(&self) -> Arc<dyn Games> {
        self.service.clone()
    }

    /// Where the adapters say whether their connections are up (`/healthz`).
    pub fn health(&self) -> bot_web::Health {
        self.health.clone()
    }

    /// Runs the local console until `stop` or the end of its input: two players sharing the
    /// keyboard, or `as_player` alone (several consoles may share one data directory).
    ///
    /// # Errors
    /// When the console's files cannot be written.
    pub fn console(
        &self,
        as_player: Option<String>,
        data_dir: &Path,
        theme: render::Theme,
        size: u32,
        stop: Shutdown,
    ) -> BoxFuture<'static, anyhow::Result<()>> {
        let announcements = bot_core::outbox::Announcements::new(
            self.service.clone(),
            &[bot_core::model::Platform::Console],
        );
        let console = console::Console::new(self.service.clone(), as_player, data_dir, theme, size)
            .with_announcements(announcements);
        Box::pin(console.run(stop))
    }

    /// Stops what runs beside the service and closes the store. Every acknowledged move is
    /// already durable, so this is all the cleanup there is.
    pub fn close(self) -> BoxFuture<'static, ()> {
        self.scheduler.abort();
        Box::pin(async move {
            if let Some(web) = self.web {
                web.stop();
            }
            self.sql.close().await;
        })
    }
}
