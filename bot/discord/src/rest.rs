//! The requests that deliver the bot's messages, made directly rather than through serenity's
//! helpers, so that a refusal keeps what Discord said: the status, the code, and for a 429 how
//! long to wait (the `Retry-After` header, the body's `retry_after`) and whether the limit is
//! global (`X-RateLimit-Global`, the body's `global`). serenity's error keeps none of the
//! headers and loses a 429's body, and its own rate limiter is off behind `DISCORD_API_URL`
//! (it would send to discord.com), so without this nothing would honour a 429 there.
//!
//! Requests go to serenity's address (`Http::proxy`, else discord.com) with its token. A
//! global 429 closes a gate for every request of this address until Discord's wait is over.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, OnceLock},
    time::{Duration, Instant},
};

use poise::serenity_prelude as serenity;
use serde_json::Value;

use crate::send::Failure;

/// A request's body.
#[derive(Debug, Clone)]
pub(crate) enum Body {
    /// None.
    Empty,
    /// JSON.
    Json(Value),
    /// `payload_json` and files (`files[i]`, as Discord wants them).
    Multipart {
        payload: Value,
        files: Vec<(String, Vec<u8>)>,
    },
}

/// Discord's REST API at one address.
#[derive(Clone)]
pub(crate) struct Rest {
    client: reqwest::Client,
    base: String,
    token: bot_core::secret::Secret,
    gate: Arc<Mutex<Option<Instant>>>,
}

impl std::fmt::Debug for Rest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rest").field("base", &self.base).finish()
    }
}

/// Until when every request to one API address waits (a global 429).
type GlobalGate = Arc<Mutex<Option<Instant>>>;

/// The clients and gates by API address.
type Shared = Mutex<HashMap<String, (reqwest::Client, GlobalGate)>>;

/// One client and one global gate per address (a bot has one token per address).
fn shared(base: &str) -> (reqwest::Client, GlobalGate) {
    static ALL: OnceLock<Shared> = OnceLock::new();
    let mut all = ALL
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    all.entry(base.to_owned())
        .or_insert_with(|| {
            let local = base.contains("://127.0.0.1") || base.contains("://localhost");
            // reqwest honours HTTP_PROXY even for a loopback stand-in.
            let builder = if local {
                reqwest::Client::builder().no_proxy()
            } else {
                reqwest::Client::builder()
            };
            let client = builder
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap_or_default();
            (client, Arc::default())
        })
        .clone()
}

impl Rest {
    /// The API serenity's `http` talks to, with its token.
    pub(crate) fn of(http: &serenity::Http) -> Rest {
        let base = http
            .proxy
            .as_deref()
            .unwrap_or("https://discord.com")
            .trim_end_matches('/')
            .to_owned();
        let (client, gate) = shared(&base);
        Rest {
            client,
            base,
            token: http.token().to_owned().into(),
            gate,
        }
    }

    /// Waits while a global 429 holds.
    async fn wait_gate(&self) {
        loop {
            let until = *self.gate.lock().unwrap_or_else(|e| e.into_inner());
            match until {
                Some(t) if t > Instant::now() => tokio::time::sleep_until(t.into()).await,
                _ => return,
            }
        }
    }

    /// Makes one request (`path` after `/api/v10/`) and returns its JSON answer (`Null` for
    /// none).
    ///
    /// # Errors
    /// [`Failure::Discord`] with what Discord said, [`Failure::Network`] without an answer.
    pub(crate) async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: &Body,
    ) -> Result<Value, Failure> {
        self.wait_gate().await;
        let url = format!("{}/api/v10/{path}", self.base);
        let mut req = self
            .client
            .request(method, url)
            .header(reqwest::header::AUTHORIZATION, self.token.expose())
            .header(
                reqwest::header::USER_AGENT,
                "DiscordBot (https://github.com/serenity-rs/serenity, 0.12) fairybot",
            );
        req = match body {
            Body::Empty => req,
            Body::Json(v) => req
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(v.to_string()),
            Body::Multipart { payload, files } => {
                let mut form =
                    reqwest::multipart::Form::new().text("payload_json", payload.to_string());
                for (i, (name, bytes)) in files.iter().enumerate() {
                    let part = reqwest::multipart::Part::bytes(bytes.clone())
                        .file_name(name.clone())
                        .mime_str("image/png")
                        .map_err(|e| Failure::Network(e.to_string()))?;
                    form = form.part(format!("files[{i}]"), part);
                }
                req.multipart(form)
            }
        };
        let response = req
            .send()
            .await
            .map_err(|e| Failure::Network(e.to_string()))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap_or_default();
        let json: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if (200..300).contains(&status) {
            return Ok(json);
        }
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let seconds = |v: Option<f64>| {
            v.filter(|s| s.is_finite() && *s >= 0.0)
                .map(Duration::from_secs_f64)
        };
        let in_header = seconds(header("retry-after").and_then(|v| v.trim().parse().ok()));
        let in_body = seconds(json["retry_after"].as_f64());
        let retry_after = match (in_header, in_body) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let global = status == 429
            && (header("x-ratelimit-global").is_some_and(|v| v.eq_ignore_ascii_case("true"))
                || json["global"].as_bool() == Some(true));
        if global && let Some(wait) = retry_after {
            let until = Instant::now() + wait;
            let mut gate = self.gate.lock().unwrap_or_else(|e| e.into_inner());
            if gate.is_none_or(|g| g < until) {
                *gate = Some(until);
            }
        }
        Err(Failure::Discord {
            status,
            code: json["code"]
                .as_i64()
                .and_then(|c| isize::try_from(c).ok())
                .unwrap_or(0),
            message: json["message"]
                .as_str()
                .unwrap_or("(no message)")
                .to_owned(),
            retry_after,
            global,
        })
    }
}
