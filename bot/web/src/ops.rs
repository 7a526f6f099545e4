//! For the people who run the bot: `/healthz` for a service manager or a load balancer, and
//! `/metrics` in Prometheus' text exposition format (version 0.0.4), written by hand.
//!
//! Nothing here is global: the counters are the [`Metrics`](bot_core::metrics::Metrics)
//! value the binary owns, the platforms' states are the [`Health`] value it hands to each
//! adapter, which reports its connection (Discord's gateway, Matrix's sync).

use std::{fmt::Write, sync::Arc, time::Duration};

use axum::{
    extract::State,
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};
use bot_core::{
    metrics::BUCKETS,
    store::{GameFilter, GameStore},
};

use crate::Web;

pub use bot_core::metrics::Health;

/// How long the store may take to answer a health check before it counts as down.
const STORE_WAIT: Duration = Duration::from_secs(2);

/// `GET /healthz`: 200 and `ok` lines when the store answers and every configured platform
/// is connected; 503 and what is wrong otherwise.
pub async fn healthz<S: GameStore + Clone + 'static>(State(web): State<Arc<Web<S>>>) -> Response {
    let mut lines = Vec::new();
    let mut ok = true;
    let store = web.store.clone();
    let backlog = web.at_home(async move { store.backlog().await });
    match tokio::time::timeout(STORE_WAIT, backlog).await {
        Ok(Ok(_)) => lines.push("store: ok".to_string()),
        Ok(Err(e)) => {
            ok = false;
            lines.push(format!("store: failing: {e}"));
        }
        Err(_) => {
            ok = false;
            lines.push(format!(
                "store: no answer within {} s",
                STORE_WAIT.as_secs()
            ));
        }
    }
    for (name, up) in web.health.platforms() {
        ok &= up;
        lines.push(format!(
            "{name}: {}",
            if up { "connected" } else { "not connected" }
        ));
    }
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        lines.join("\n") + "\n",
    )
        .into_response()
}

/// Writes one metric's `# HELP` and `# TYPE` lines.
fn head(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// A label value with `\`, `"` and newlines escaped, as the format requires.
fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// `GET /metrics`.
pub async fn metrics<S: GameStore + Clone + 'static>(State(web): State<Arc<Web<S>>>) -> Response {
    let mut out = String::new();
    let commands = web.metrics.commands();
    head(
        &mut out,
        "fairybot_commands_total",
        "counter",
        "Commands handled, by kind.",
    );
    for (kind, h) in &commands {
        let _ = writeln!(
            out,
            "fairybot_commands_total{{kind=\"{}\"}} {}",
            label(kind),
            h.count
        );
    }
    head(
        &mut out,
        "fairybot_command_duration_seconds",
        "histogram",
        "Time from a command's arrival to its replies being in the outbox, by kind.",
    );
    for (kind, h) in &commands {
        let k = label(kind);
        for (bound, n) in BUCKETS.iter().zip(h.cumulative()) {
            let _ = writeln!(
                out,
                "fairybot_command_duration_seconds_bucket{{kind=\"{k}\",le=\"{bound}\"}} {n}"
            );
        }
        let _ = writeln!(
            out,
            "fairybot_command_duration_seconds_bucket{{kind=\"{k}\",le=\"+Inf\"}} {}",
            h.count
        );
        let _ = writeln!(
            out,
            "fairybot_command_duration_seconds_sum{{kind=\"{k}\"}} {}",
            h.sum
        );
        let _ = writeln!(
            out,
            "fairybot_command_duration_seconds_count{{kind=\"{k}\"}} {}",
            h.count
        );
    }
    head(
        &mut out,
        "fairybot_renders_total",
        "counter",
        "Pictures drawn by the web server, by kind.",
    );
    for (kind, n) in web.metrics.renders() {
        let _ = writeln!(
            out,
            "fairybot_renders_total{{kind=\"{}\"}} {n}",
            label(kind)
        );
    }
    if let Some(n) = web.metrics.searches() {
        head(
            &mut out,
            "fairybot_engine_searches",
            "gauge",
            "Engine searches for the bot's moves running now.",
        );
        let _ = writeln!(out, "fairybot_engine_searches {n}");
    }
    head(
        &mut out,
        "fairybot_web_streams",
        "gauge",
        "Live event streams open.",
    );
    let _ = writeln!(out, "fairybot_web_streams {}", web.hub.open_streams());
    head(
        &mut out,
        "fairybot_web_watched_games",
        "gauge",
        "Games with at least one live stream.",
    );
    let _ = writeln!(
        out,
        "fairybot_web_watched_games {}",
        web.hub.watched_games()
    );
    let mut up = 1;
    let store = web.store.clone();
    match web.at_home(async move { store.backlog().await }).await {
        Ok(b) => {
            head(
                &mut out,
                "fairybot_outbox_waiting",
                "gauge",
                "Replies in the outbox not yet delivered.",
            );
            let _ = writeln!(out, "fairybot_outbox_waiting {}", b.waiting);
            head(
                &mut out,
                "fairybot_outbox_oldest_age_seconds",
                "gauge",
                "Age of the oldest reply waiting in the outbox (0 when none waits).",
            );
            let age = b
                .oldest_ms
                .map_or(0.0, |t| (web.now_ms() - t).max(0) as f64 / 1000.0);
            let _ = writeln!(out, "fairybot_outbox_oldest_age_seconds {age}");
        }
        Err(e) => {
            up = 0;
            tracing::warn!("metrics: outbox not read: {e}");
        }
    }
    let store = web.store.clone();
    match web
        .at_home(async move { store.list_games(&GameFilter::default().active()).await })
        .await
    {
        Ok(games) => {
            head(
                &mut out,
                "fairybot_live_games",
                "gauge",
                "Games being played.",
            );
            let _ = writeln!(out, "fairybot_live_games {}", games.len());
        }
        Err(e) => {
            up = 0;
            tracing::warn!("metrics: games not read: {e}");
        }
    }
    head(
        &mut out,
        "fairybot_store_up",
        "gauge",
        "Whether the store answered this scrape.",
    );
    let _ = writeln!(out, "fairybot_store_up {up}");
    head(
        &mut out,
        "fairybot_platform_connected",
        "gauge",
        "Whether each configured platform is connected.",
    );
    for (name, c) in web.health.platforms() {
        let _ = writeln!(
            out,
            "fairybot_platform_connected{{platform=\"{}\"}} {}",
            label(&name),
            u8::from(c)
        );
    }
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    )
        .into_response()
}
