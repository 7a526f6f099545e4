//! The fairybot binary: configuration, wiring, and the frontends.
//!
//! `fairybot [--config PATH] [--data DIR] [--as NAME]`
//!
//! With no chat platform configured it starts the local console on the embedded SQLite store.

mod config;
mod console;

use std::{path::PathBuf, sync::Arc};

use anyhow::Context;
use bot_core::{GameService, SystemClock};
use bot_store::SqlStore;
use tokio::sync::watch;

const USAGE: &str = "usage: fairybot [--config PATH] [--data DIR] [--as NAME]
  --config PATH  configuration file (default: fairybot.toml if present; see config.example.toml)
  --data DIR     data directory for the SQLite store and board pictures (default: data)
  --as NAME      console: play as NAME (default: two local players, white and black)";

struct Args {
    config: Option<PathBuf>,
    data: Option<PathBuf>,
    as_player: Option<String>,
}

fn args() -> anyhow::Result<Args> {
    let mut a = Args {
        config: None,
        data: None,
        as_player: None,
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
async fn main() -> anyhow::Result<()> {
    let args = args()?;
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "warn,fairybot=info,bot_discord=info,bot_matrix=info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let mut config = config::Config::load(args.config.as_deref())?;
    if let Some(d) = args.data {
        config.store.data_dir = Some(d);
    }
    let data_dir = config.data_dir();
    let store = match &config.store.url {
        Some(url) => SqlStore::connect(url)
            .await
            .with_context(|| format!("cannot open the store at {url}"))?,
        None => SqlStore::open_sqlite(data_dir.join("fairybot.db"))
            .await
            .with_context(|| format!("cannot open the store in {}", data_dir.display()))?,
    };
    let catalog = Arc::new(rules::Catalog::builtin());
    let service = Arc::new(GameService::new(
        store.clone(),
        SystemClock,
        catalog.clone(),
    ));
    let theme_name = config
        .render
        .theme
        .clone()
        .unwrap_or_else(|| "light".into());
    let theme = render::Theme::by_name(&theme_name).with_context(|| {
        format!("unknown theme {theme_name:?}: use light, dark or colour-blind")
    })?;
    let size = config.render.size.unwrap_or(768);

    let matrix = config.matrix_adapter(size)?;
    let discord = config.discord_adapter(size);
    if matrix.is_some() || discord.is_some() {
        let result = run_chat(matrix, discord, service, catalog, theme).await;
        store.close().await;
        return result;
    }
    let result = console::Console::new(service, args.as_player, &data_dir, theme, size)
        .run()
        .await;
    store.close().await;
    result
}

/// Runs the configured chat adapters until Ctrl-C (or until one fails). Ctrl-C stops Discord
/// between events and lets Matrix finish the commands of its current sync; every
/// acknowledged move is already durable, so closing the store is all the cleanup there is.
async fn run_chat(
    matrix: Option<bot_matrix::MatrixConfig>,
    discord: Option<bot_discord::DiscordConfig>,
    service: Arc<GameService<SqlStore, SystemClock>>,
    catalog: Arc<rules::Catalog>,
    theme: render::Theme,
) -> anyhow::Result<()> {
    let renderer = Arc::new(render::Renderer::new());
    let (stop, stopping) = watch::channel(false);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            tracing::info!("Ctrl-C: stopping");
            let _ = stop.send(true);
        }
    });
    let matrix_run = {
        let (service, catalog, renderer, stopping) = (
            service.clone(),
            catalog.clone(),
            renderer.clone(),
            stopping.clone(),
        );
        async move {
            let Some(config) = matrix else {
                return Ok(());
            };
            tracing::info!(
                "connecting to Matrix at {} (state in {})",
                config.homeserver,
                config.state_dir.display()
            );
            bot_matrix::run(config, service, catalog, renderer, theme, stopped(stopping))
                .await
                .context("Matrix stopped")
        }
    };
    let discord_run = async move {
        let Some(discord) = discord else {
            return Ok(());
        };
        tracing::info!(
            "connecting to Discord (commands registered {})",
            match discord.registration {
                bot_discord::Registration::Guild(g) => format!("in server {g}"),
                _ => "globally".into(),
            }
        );
        tokio::select! {
            r = bot_discord::run(discord, service, catalog, renderer) => r.context("Discord stopped"),
            () = stopped(stopping) => Ok(()),
        }
    };
    tokio::try_join!(matrix_run, discord_run).map(|_| ())
}

/// Completes when Ctrl-C was pressed.
async fn stopped(mut stopping: watch::Receiver<bool>) {
    let _ = stopping.wait_for(|s| *s).await;
}
