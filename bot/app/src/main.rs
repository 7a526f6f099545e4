//! The fairybot binary: configuration, wiring, and the frontends.
//!
//! `fairybot [--config PATH] [--data DIR] [--as NAME]`, `fairybot invite-url`,
//! `fairybot backup FILE`
//!
//! With no chat platform configured it starts the local console on the embedded SQLite store.

mod admin;
mod config;

use std::{path::PathBuf, process::ExitCode, sync::Arc};

use anyhow::Context;
use bot_core::Games;
use bot_host::{Host, Shutdown};
use bot_store::SqlStore;

const USAGE: &str = "usage: fairybot [--config PATH] [--data DIR] [--as NAME] [COMMAND]
  --config PATH  configuration file (default: fairybot.toml if present; see config.example.toml)
  --data DIR     data directory for the SQLite store and board pictures (default: data)
  --as NAME      console: play as NAME (default: two local players, alice and bob)
commands (without one: run the bot, or the console when no platform is configured):
  invite-url     print the link that adds the configured Discord bot to a server
  backup FILE    write a consistent copy of the SQLite store to FILE, while the bot runs";

struct Args {
    config: Option<PathBuf>,
    data: Option<PathBuf>,
    as_player: Option<String>,
    command: Option<Admin>,
}

/// A command for the people who run the bot, instead of running it.
enum Admin {
    InviteUrl,
    Backup(PathBuf),
}

fn args() -> anyhow::Result<Args> {
    let mut a = Args {
        config: None,
        data: None,
        as_player: None,
        command: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .with_context(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--config" => a.config = Some(value("--config")?.into()),
            "--data" => a.data = Some(value("--data")?.into()),
            "--as" => a.as_player = Some(value("--as")?),
            "invite-url" if a.command.is_none() => a.command = Some(Admin::InviteUrl),
            "backup" if a.command.is_none() => {
                let file = it
                    .next()
                    .with_context(|| format!("backup needs the file to write\n{USAGE}"))?;
                a.command = Some(Admin::Backup(file.into()));
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => anyhow::bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    Ok(a)
}

#[tokio::main]
async fn main() -> ExitCode {
    // First of all, so that a SIGTERM during start-up is a request to stop, not a kill.
    let stop = match Shutdown::on_signals() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fairybot: cannot install the signal handlers: {e}");
            return ExitCode::FAILURE;
        }
    };
    match run(stop).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One message, every cause on one line: "cannot open the store: <file> is not a
            // SQLite database: ...".
            eprintln!("fairybot: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(stop: Shutdown) -> anyhow::Result<()> {
    let args = args()?;
    // The configuration first: it is the one reader of the environment, `RUST_LOG` included.
    let mut config = config::Config::load(args.config.as_deref())?;
    if let Some(d) = args.data {
        config.store.data_dir = Some(d);
    }
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_new(config.log_filter())?)
        .with_writer(std::io::stderr)
        .init();
    // Every value is checked before anything is opened or connected.
    let settings = config.validate()?;
    if let Some(Admin::InviteUrl) = args.command {
        print!("{}", admin::invite_text(config.discord_application()?));
        return Ok(());
    }
    let data_dir = config.data_dir();
    let sql = match &config.store.url {
        Some(url) => SqlStore::connect(url)
            .await
            .context("cannot open the store named by [store] url / FAIRYBOT_DATABASE_URL")?,
        None => SqlStore::open_sqlite(data_dir.join("fairybot.db"))
            .await
            .context("cannot open the store")?,
    };
    if let Some(Admin::Backup(file)) = &args.command {
        let bytes = sql.backup_to(file).await?;
        println!(
            "wrote {} ({bytes} bytes): a consistent copy of the store; to restore it, stop \
             the bot and put it in place of {}",
            file.display(),
            data_dir.join("fairybot.db").display()
        );
        sql.close().await;
        return Ok(());
    }
    let catalog = Arc::new(rules::Catalog::builtin());
    let bot = bot_core::opponent::BotConfig {
        threads: settings.engine_threads,
        nice: settings.engine_nice,
        // The weaker levels' mistakes are seeded: a new seed per run, so two games from the
        // same position differ.
        seed: bot_core::Chance::below(&bot_core::OsChance, u32::MAX).into(),
        ..bot_core::opponent::BotConfig::default()
    };
    let (theme, size) = (settings.theme.clone(), settings.size);
    #[cfg(feature = "matrix")]
    let matrix = config.matrix_adapter(size)?;
    #[cfg(not(feature = "matrix"))]
    let matrix = left_out("Matrix", "matrix", config.has_matrix())?;
    #[cfg(feature = "discord")]
    let discord = config.discord_adapter(&settings);
    #[cfg(not(feature = "discord"))]
    let discord = left_out("Discord", "discord", config.has_discord())?;
    let console = matrix.is_none() && discord.is_none();
    let options = bot_host::Options {
        catalog: catalog.clone(),
        public_url: settings.web.as_ref().and_then(|w| w.public_url.clone()),
        reminders: settings.reminders.clone(),
        instance: instance_name(
            &settings.instance,
            console.then_some(args.as_player.as_deref()).flatten(),
        ),
        bot,
        analysis: config.analysis.settings(settings.engine_nice)?,
        scheduler_interval: settings.scheduler_interval,
        web: settings.web.clone(),
    };
    let host = Host::start(sql, options, &stop).await?;
    let result = if !console {
        let (games, health) = (host.games(), host.health());
        run_chat(matrix, discord, games, catalog, theme, stop, health).await
    } else {
        host.console(args.as_player, &data_dir, theme, size, stop)
            .await
    };
    host.close().await;
    result
}

/// This process's name on the outbox: the configured instance, and for a named console
/// (`--as NAME`, several of which may share one database) its player too, so that one
/// console starting never takes back what another, still running, is printing.
fn instance_name(instance: &str, console_player: Option<&str>) -> String {
    match console_player {
        None => instance.to_owned(),
        Some(name) => {
            let safe: String = name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .take(40)
                .collect();
            format!("{instance}-console-{safe}")
        }
    }
}

/// A platform this build leaves out (its cargo feature is off): there is never one to run.
#[cfg(not(all(feature = "matrix", feature = "discord")))]
enum LeftOut {}

#[cfg(feature = "matrix")]
type MatrixConfig = bot_matrix::MatrixConfig;
#[cfg(not(feature = "matrix"))]
type MatrixConfig = LeftOut;
#[cfg(feature = "discord")]
type DiscordConfig = bot_discord::DiscordConfig;
#[cfg(not(feature = "discord"))]
type DiscordConfig = LeftOut;

/// No adapter for a platform this build leaves out; configured anyway, a refusal that says
/// how to build it in.
#[cfg(not(all(feature = "matrix", feature = "discord")))]
fn left_out(platform: &str, feature: &str, configured: bool) -> anyhow::Result<Option<LeftOut>> {
    if configured {
        anyhow::bail!(
            "{platform} is configured, but this fairybot was built without it: build it with \
             `cargo build --release -p fairybot --features {feature}` (both platforms are in the \
             default build), or remove the {platform} settings"
        );
    }
    Ok(None)
}

/// Runs the configured chat adapters until SIGTERM or SIGINT (or until one fails). On a stop
/// both stop taking new commands and answer the ones in flight: Matrix finishes the commands
/// of its current sync, Discord waits (up to its grace period) for the interactions being
/// handled. Every acknowledged move is already durable, so closing the store is all the
/// cleanup there is.
async fn run_chat(
    matrix: Option<MatrixConfig>,
    discord: Option<DiscordConfig>,
    games: Arc<dyn Games>,
    catalog: Arc<rules::Catalog>,
    theme: render::Theme,
    stop: Shutdown,
    health: bot_web::Health,
) -> anyhow::Result<()> {
    // `/healthz` reports each configured platform as its adapter sees its connection
    // (Discord's gateway, Matrix's syncs), and as not connected once the adapter stopped.
    let shared = Shared {
        games,
        catalog,
        renderer: Arc::new(render::Renderer::new()),
        health,
        stop,
    };
    let matrix_run = {
        let shared = shared.clone();
        async move {
            let Some(config) = matrix else {
                return Ok(());
            };
            let health = shared.health.clone();
            let r = run_matrix(config, shared, theme).await;
            health.set("matrix", false);
            r
        }
    };
    let discord_run = async move {
        let Some(config) = discord else {
            return Ok(());
        };
        let health = shared.health.clone();
        let r = run_discord(config, shared).await;
        health.set("discord", false);
        r
    };
    tokio::try_join!(matrix_run, discord_run).map(|_| ())
}

/// What every chat adapter runs with.
#[derive(Clone)]
#[cfg_attr(not(any(feature = "matrix", feature = "discord")), allow(dead_code))]
struct Shared {
    games: Arc<dyn Games>,
    catalog: Arc<rules::Catalog>,
    renderer: Arc<render::Renderer>,
    health: bot_web::Health,
    stop: Shutdown,
}

/// The Matrix adapter until it stops.
#[cfg(feature = "matrix")]
async fn run_matrix(config: MatrixConfig, s: Shared, theme: render::Theme) -> anyhow::Result<()> {
    tracing::info!(
        "connecting to Matrix at {} (state in {})",
        config.homeserver,
        config.state_dir.display()
    );
    let stopped = s.stop.stopping();
    bot_matrix::run(
        config, s.games, s.catalog, s.renderer, theme, s.health, stopped,
    )
    .await
    .context("Matrix stopped")
}

#[cfg(not(feature = "matrix"))]
async fn run_matrix(config: MatrixConfig, _: Shared, _: render::Theme) -> anyhow::Result<()> {
    match config {}
}

/// The Discord adapter until it stops.
#[cfg(feature = "discord")]
async fn run_discord(config: DiscordConfig, s: Shared) -> anyhow::Result<()> {
    tracing::info!(
        "connecting to Discord (commands registered {})",
        match config.registration {
            bot_discord::Registration::Guild(g) => format!("in server {g}"),
            _ => "globally".into(),
        }
    );
    let stopped = s.stop.stopping();
    bot_discord::run(config, s.games, s.catalog, s.renderer, s.health, stopped)
        .await
        .context("Discord stopped")
}

#[cfg(not(feature = "discord"))]
async fn run_discord(config: DiscordConfig, _: Shared) -> anyhow::Result<()> {
    match config {}
}
