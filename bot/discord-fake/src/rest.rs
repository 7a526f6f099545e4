//! The REST side: one axum fallback handler that records every request and answers by route.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::fixtures;
use crate::state::{ChannelInfo, DmFailure, Recorded};
use crate::view::{Callback, FilePart, Origin, RecordedRequest, Thread, callback_type};
use crate::{DiscordError, Inner};

pub(crate) async fn serve(listener: TcpListener, inner: Arc<Inner>, stop: oneshot::Receiver<()>) {
    let app = Router::new()
        .fallback(handle)
        .layer(DefaultBodyLimit::max(64 * 1024 * 1024))
        .with_state(inner);
    let _ = axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = stop.await;
        })
        .await;
}

/// The fake's answer to one request.
enum Reply {
    Json(u16, Value),
    Empty(u16),
    Bytes(u16, String, Bytes),
}

impl Reply {
    fn ok(v: Value) -> Self {
        Reply::Json(200, v)
    }
    fn error(e: &DiscordError) -> Self {
        Reply::Json(e.status, fixtures::error_body(e.code, &e.message))
    }
    fn not_found() -> Self {
        Reply::Json(404, fixtures::error_body(0, "404: Not Found"))
    }
    fn status(&self) -> u16 {
        match self {
            Reply::Json(s, _) | Reply::Empty(s) | Reply::Bytes(s, _, _) => *s,
        }
    }
    fn error_code(&self) -> Option<u64> {
        match self {
            Reply::Json(s, v) if *s >= 400 => v["code"].as_u64(),
            _ => None,
        }
    }
}

/// A parsed request body.
#[derive(Default)]
struct ParsedBody {
    json: Option<Value>,
    files: Vec<FilePart>,
    fields: Vec<(String, String)>,
}

async fn parse_body(headers: &HeaderMap, body: &Bytes) -> ParsedBody {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if ct.starts_with("multipart/form-data") {
        let Ok(boundary) = multer::parse_boundary(ct) else {
            return ParsedBody::default();
        };
        let data = body.clone();
        let stream = futures_util::stream::once(async move { Ok::<Bytes, Infallible>(data) });
        let mut mp = multer::Multipart::new(stream, boundary);
        let mut out = ParsedBody::default();
        while let Ok(Some(field)) = mp.next_field().await {
            let name = field.name().unwrap_or_default().to_owned();
            let filename = field.file_name().map(str::to_owned);
            let content_type = field.content_type().map(ToString::to_string);
            let Ok(bytes) = field.bytes().await else {
                break;
            };
            if name == "payload_json" {
                out.json = serde_json::from_slice(&bytes).ok();
            } else if filename.is_some() {
                out.files.push(FilePart {
                    field: name,
                    filename,
                    content_type,
                    bytes,
                });
            } else {
                out.fields
                    .push((name, String::from_utf8_lossy(&bytes).into_owned()));
            }
        }
        out
    } else if body.is_empty() {
        ParsedBody::default()
    } else {
        ParsedBody {
            json: serde_json::from_slice(body).ok(),
            ..ParsedBody::default()
        }
    }
}

async fn handle(
    State(inner): State<Arc<Inner>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let parsed = parse_body(&headers, &body).await;
    let path = uri.path().to_owned();
    let route = path
        .strip_prefix("/api/v10/")
        .or_else(|| path.strip_prefix("/api/v10"))
        .unwrap_or_else(|| path.trim_start_matches('/'))
        .trim_end_matches('/')
        .to_owned();
    let query = uri.query().map(str::to_owned);

    let (reply, extra_headers) = {
        let mut st = inner.lock();
        // Discord checks the rate limit first: a 429 did nothing.
        let (limited, extra_headers) = match st.rate_limited(method.as_str(), &route) {
            None => (None, Vec::new()),
            Some(Ok(h)) => (None, h),
            Some(Err((body, h))) => (Some(Reply::Json(429, body)), h),
        };
        let failure = match limited {
            Some(_) => None,
            None => st.take_failure(method.as_str(), &route),
        };
        let reply = match (limited, failure) {
            (Some(r), _) => r,
            (None, Some((e, false))) => Reply::error(&e),
            (None, Some((e, true))) => {
                // Done, then answered with the error.
                let _ = answer(
                    &inner,
                    &mut st,
                    method.as_str(),
                    &route,
                    query.as_deref(),
                    &parsed,
                );
                Reply::error(&e)
            }
            (None, None) => answer(
                &inner,
                &mut st,
                method.as_str(),
                &route,
                query.as_deref(),
                &parsed,
            ),
        };
        let index = st.requests.len();
        st.requests.push(RecordedRequest {
            index,
            method: method.to_string(),
            path: path.clone(),
            route: route.clone(),
            query,
            headers: headers
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str().to_owned(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body,
            json: parsed.json.clone(),
            files: parsed.files.clone(),
            form_fields: parsed.fields.clone(),
            status: reply.status(),
            error_code: reply.error_code(),
        });
        // Callbacks point at the request that carried them.
        if let Some(cb) = st.callbacks.last_mut()
            && cb.request_index == usize::MAX
        {
            cb.request_index = index;
        }
        (reply, extra_headers)
    };
    inner.changed.notify_waiters();

    let mut response = match reply {
        Reply::Json(status, v) => (
            StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            [(header::CONTENT_TYPE, "application/json")],
            v.to_string(),
        )
            .into_response(),
        Reply::Empty(status) => StatusCode::from_u16(status)
            .unwrap_or(StatusCode::NO_CONTENT)
            .into_response(),
        Reply::Bytes(status, ct, b) => Response::builder()
            .status(status)
            .header(header::CONTENT_TYPE, ct)
            .body(Body::from(b))
            .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response()),
    };
    for (k, v) in extra_headers {
        if let (Ok(k), Ok(v)) = (
            header::HeaderName::try_from(k),
            header::HeaderValue::try_from(v),
        ) {
            response.headers_mut().insert(k, v);
        }
    }
    response
}

fn id_of(s: &str) -> Option<u64> {
    s.parse().ok()
}

fn json_id(v: &Value) -> Option<u64> {
    v.as_str().and_then(id_of).or_else(|| v.as_u64())
}

/// Answers one request by route.
fn answer(
    inner: &Inner,
    st: &mut Recorded,
    method: &str,
    route: &str,
    query: Option<&str>,
    body: &ParsedBody,
) -> Reply {
    let seg: Vec<&str> = route.split('/').collect();
    let payload = body.json.clone().unwrap_or(Value::Null);
    let app = st.app_id.to_string();
    match (method, seg.as_slice()) {
        ("GET", ["gateway"]) => Reply::ok(fixtures::gateway(&inner.gateway_url)),
        ("GET", ["gateway", "bot"]) => Reply::ok(fixtures::gateway_bot(&inner.gateway_url)),
        ("GET", ["oauth2", "applications", "@me"]) | ("GET", ["applications", "@me"]) => {
            let bot = st.user_json(st.bot_id);
            let owner = st.user_json(crate::ids::ALICE);
            Reply::ok(fixtures::application_info(
                st.app_id,
                &st.bot_name,
                bot,
                owner,
            ))
        }
        ("GET", ["users", "@me"]) => Reply::ok(fixtures::current_user(st.bot_id, &st.bot_name)),
        ("GET", ["users", uid]) => match id_of(uid) {
            Some(u) if st.users.contains_key(&u) || u == st.bot_id => Reply::ok(st.user_json(u)),
            _ => Reply::error(&DiscordError::new(404, 10013, "Unknown User")),
        },
        ("POST", ["users", "@me", "channels"]) => open_dm(st, &payload),

        // Application commands, global and per guild.
        (_, ["applications", a, "commands", rest @ ..]) if *a == app => {
            commands(st, method, None, rest, &payload)
        }
        (_, ["applications", a, "guilds", g, "commands", rest @ ..]) if *a == app => {
            match id_of(g) {
                Some(g) => commands(st, method, Some(g), rest, &payload),
                None => Reply::not_found(),
            }
        }
        (_, ["applications", _, ..]) => {
            Reply::error(&DiscordError::new(404, 10002, "Unknown Application"))
        }

        ("POST", ["interactions", iid, token, "callback"]) => {
            interaction_callback(inner, st, iid, token, &payload, &body.files)
        }

        // Interaction webhooks: followups and the original response.
        ("POST", ["webhooks", a, token]) if *a == app => followup(st, token, &payload, &body.files),
        (_, ["webhooks", a, token, "messages", mid]) if *a == app => {
            webhook_message(st, method, token, mid, &payload, &body.files)
        }

        ("GET", ["channels", cid]) => match id_of(cid).and_then(|c| st.channel_json(c)) {
            Some(c) => Reply::ok(c),
            None => Reply::error(&DiscordError::unknown_channel()),
        },
        ("POST", ["channels", cid, "typing"]) => match id_of(cid) {
            Some(c) if st.channels.contains_key(&c) => Reply::Empty(204),
            _ => Reply::error(&DiscordError::unknown_channel()),
        },
        ("POST", ["channels", cid, "messages"]) => send_message(st, cid, &payload, &body.files),
        ("GET", ["channels", cid, "messages"]) => list_messages(st, cid, query),
        (_, ["channels", cid, "messages", mid]) => {
            channel_message(st, method, cid, mid, &payload, &body.files)
        }
        ("POST", ["channels", cid, "threads"]) => create_thread(st, cid, None, &payload),
        ("POST", ["channels", cid, "messages", mid, "threads"]) => {
            create_thread(st, cid, Some(mid), &payload)
        }
        (m @ ("PUT" | "DELETE"), ["channels", _, "messages", mid, "reactions", emoji, "@me"]) => {
            react(st, m, mid, emoji)
        }

        ("GET", ["guilds", g])
            if id_of(g) == Some(crate::ids::GUILD) && inner.config.with_guild =>
        {
            let guilds = guild_json(inner, st);
            Reply::ok(guilds)
        }
        ("GET", ["guilds", g, "members", uid]) if id_of(g) == Some(crate::ids::GUILD) => {
            match id_of(uid).and_then(|u| st.users.get(&u).filter(|x| x.member).map(|x| x.id)) {
                Some(u) => Reply::ok(fixtures::member(st.user_json(u), None)),
                None => Reply::error(&DiscordError::new(404, 10007, "Unknown Member")),
            }
        }

        ("GET", ["attachments", "uploads", aid, _name]) => {
            match id_of(aid).and_then(|a| st.uploads.get(&a)) {
                Some((_, bytes)) => Reply::Bytes(
                    200,
                    "text/plain; charset=utf-8".into(),
                    Bytes::from(bytes.clone()),
                ),
                None => Reply::not_found(),
            }
        }
        ("GET", ["attachments", cid, aid, _name]) => {
            let (Some(c), Some(a)) = (id_of(cid), id_of(aid)) else {
                return Reply::not_found();
            };
            let found = st
                .messages
                .iter()
                .filter(|m| m.channel_id == c)
                .find_map(|m| m.attachments.iter().find(|x| x.id == a).cloned());
            match found {
                Some(att) => Reply::Bytes(
                    200,
                    att.content_type
                        .unwrap_or_else(|| "application/octet-stream".into()),
                    att.bytes,
                ),
                None => Reply::not_found(),
            }
        }
        _ => Reply::not_found(),
    }
}

/// `GET /guilds/{id}`: the guild without its gateway-only fields.
fn guild_json(inner: &Inner, st: &Recorded) -> Value {
    // Built from the same fixture as GUILD_CREATE; REST guilds have no member/channel lists.
    let _ = st;
    let mut g = fixtures::guild_create(
        crate::ids::GUILD,
        &inner.config.guild_name,
        crate::ids::ALICE,
        Vec::new(),
        Vec::new(),
    );
    if let Some(o) = g.as_object_mut() {
        for k in [
            "members",
            "channels",
            "threads",
            "presences",
            "voice_states",
            "joined_at",
            "large",
            "member_count",
        ] {
            o.remove(k);
        }
    }
    g
}

fn open_dm(st: &mut Recorded, payload: &Value) -> Reply {
    let Some(uid) = json_id(&payload["recipient_id"]) else {
        return Reply::Json(
            400,
            json!({"code": 50035, "message": "Invalid Form Body",
            "errors": {"recipient_id": {"_errors": [{"code": "BASE_TYPE_REQUIRED", "message": "This field is required"}]}}}),
        );
    };
    if !st.users.contains_key(&uid) {
        return Reply::error(&DiscordError::new(400, 50033, "Invalid Recipient(s)"));
    }
    if st.closed_dms.get(&uid) == Some(&DmFailure::OnOpen) {
        return Reply::error(&DiscordError::cannot_send_messages_to_user());
    }
    let cid = match st.dm_channels.get(&uid) {
        Some(c) => *c,
        None => {
            let c = st.new_id();
            st.dm_channels.insert(uid, c);
            st.channels.insert(c, ChannelInfo::Dm { recipient: uid });
            c
        }
    };
    Reply::ok(fixtures::dm_channel(cid, st.user_json(uid)))
}

fn commands(
    st: &mut Recorded,
    method: &str,
    guild: Option<u64>,
    rest: &[&str],
    payload: &Value,
) -> Reply {
    let current = |st: &Recorded| -> Vec<Value> {
        match guild {
            Some(g) => st.guild_commands.get(&g).cloned().unwrap_or_default(),
            None => st.global_commands.clone(),
        }
    };
    let store = |st: &mut Recorded, list: Vec<Value>| match guild {
        Some(g) => {
            st.guild_commands.insert(g, list);
        }
        None => st.global_commands = list,
    };
    match (method, rest) {
        ("PUT", []) => {
            let Some(list) = payload.as_array() else {
                return Reply::error(&DiscordError::new(400, 50035, "Invalid Form Body"));
            };
            let echoed: Vec<Value> = list.iter().map(|c| st.register_command(c, guild)).collect();
            store(st, echoed.clone());
            Reply::ok(Value::Array(echoed))
        }
        ("GET", []) => Reply::ok(Value::Array(current(st))),
        ("POST", []) => {
            let echoed = st.register_command(payload, guild);
            let mut list = current(st);
            list.retain(|c| c["name"] != echoed["name"]);
            list.push(echoed.clone());
            store(st, list);
            Reply::Json(201, echoed)
        }
        (m, [cid]) => {
            let mut list = current(st);
            let Some(pos) = list.iter().position(|c| c["id"].as_str() == Some(cid)) else {
                return Reply::error(&DiscordError::new(
                    404,
                    10063,
                    "Unknown application command",
                ));
            };
            match m {
                "GET" => Reply::ok(list[pos].clone()),
                "DELETE" => {
                    list.remove(pos);
                    store(st, list);
                    Reply::Empty(204)
                }
                "PATCH" => {
                    if let (Some(o), Some(p)) = (list[pos].as_object_mut(), payload.as_object()) {
                        for (k, v) in p {
                            o.insert(k.clone(), v.clone());
                        }
                    }
                    let v = list[pos].clone();
                    store(st, list);
                    Reply::ok(v)
                }
                _ => Reply::not_found(),
            }
        }
        _ => Reply::not_found(),
    }
}

fn interaction_callback(
    inner: &Inner,
    st: &mut Recorded,
    iid: &str,
    token: &str,
    payload: &Value,
    files: &[FilePart],
) -> Reply {
    let Some(rec) = id_of(iid).and_then(|i| st.interactions.get(&i)).cloned() else {
        return Reply::error(&DiscordError::unknown_interaction());
    };
    if rec.token != token {
        return Reply::error(&DiscordError::new(401, 50027, "Invalid Webhook Token"));
    }
    let late = inner
        .config
        .interaction_deadline
        .is_some_and(|d| rec.created.elapsed() > d);
    if !rec.responded && (rec.expired || late) {
        return Reply::error(&DiscordError::unknown_interaction());
    }
    let kind = payload["type"].as_u64().unwrap_or(0);
    let data = payload.get("data").cloned().unwrap_or(Value::Null);
    let mut cb = Callback {
        interaction_id: rec.id,
        token: rec.token.clone(),
        kind,
        data: data.clone(),
        attachments: Vec::new(),
        message_id: None,
        request_index: usize::MAX,
    };
    if rec.responded {
        st.callbacks.push(cb);
        return Reply::error(&DiscordError::already_acknowledged());
    }
    // Type 6 answers components and modal submits; type 7 needs a message to update.
    let can_defer_update = rec.kind == 3 || rec.kind == 5;
    let can_update = rec.message_id.is_some() && can_defer_update;
    let reply = match kind {
        callback_type::PONG
        | callback_type::APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
        | callback_type::MODAL => Reply::Empty(204),
        callback_type::CHANNEL_MESSAGE_WITH_SOURCE => {
            let mid = st.create_message(
                rec.channel_id,
                &data,
                files,
                Origin::InteractionResponse {
                    interaction_id: rec.id,
                },
                0,
            );
            cb.message_id = Some(mid);
            Reply::Empty(204)
        }
        callback_type::DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE => {
            let flags = data["flags"].as_u64().unwrap_or(0) & fixtures::EPHEMERAL;
            let mid = st.create_message(
                rec.channel_id,
                &json!({"content": "", "flags": flags}),
                &[],
                Origin::InteractionResponse {
                    interaction_id: rec.id,
                },
                fixtures::LOADING,
            );
            cb.message_id = Some(mid);
            Reply::Empty(204)
        }
        callback_type::DEFERRED_UPDATE_MESSAGE if can_defer_update => {
            cb.message_id = rec.message_id;
            Reply::Empty(204)
        }
        callback_type::UPDATE_MESSAGE if can_update => {
            cb.message_id = rec.message_id;
            if let Some(mid) = rec.message_id {
                st.edit_message(mid, &data, files);
            }
            Reply::Empty(204)
        }
        _ => Reply::Json(
            400,
            json!({"code": 50035, "message": "Invalid Form Body",
                "errors": {"type": {"_errors": [{"code": "INTERACTION_RESPONSE_TYPE_INVALID",
                    "message": "Invalid interaction response type for this interaction"}]}}}),
        ),
    };
    if reply.status() < 300 {
        // The files of the callback, as stored on the message they went to.
        cb.attachments = match cb.message_id.and_then(|m| st.message(m)) {
            Some(m) if !files.is_empty() => {
                m.attachments[m.attachments.len().saturating_sub(files.len())..].to_vec()
            }
            _ => Vec::new(),
        };
        let r = st
            .interactions
            .get_mut(&rec.id)
            .expect("interaction exists");
        r.responded = true;
        r.original = cb.message_id.or(r.original);
    }
    st.callbacks.push(cb);
    reply
}

fn interaction_by_token(st: &Recorded, token: &str) -> Option<crate::state::InteractionRecord> {
    st.interactions.values().find(|i| i.token == token).cloned()
}

fn followup(st: &mut Recorded, token: &str, payload: &Value, files: &[FilePart]) -> Reply {
    let Some(rec) = interaction_by_token(st, token) else {
        return Reply::error(&DiscordError::new(404, 10015, "Unknown Webhook"));
    };
    if !rec.responded {
        return Reply::error(&DiscordError::new(404, 10015, "Unknown Webhook"));
    }
    // After a deferred response (type 5), the first followup replaces the "thinking" message.
    let loading = rec
        .original
        .filter(|m| st.message(*m).is_some_and(|x| x.is_loading()));
    let mid = match loading {
        Some(m) => {
            st.edit_message(m, payload, files);
            m
        }
        None => st.create_message(
            rec.channel_id,
            payload,
            files,
            Origin::Followup {
                interaction_id: rec.id,
            },
            0,
        ),
    };
    let m = st.message(mid).cloned().expect("just created");
    Reply::ok(st.message_json(&m))
}

fn webhook_message(
    st: &mut Recorded,
    method: &str,
    token: &str,
    mid: &str,
    payload: &Value,
    files: &[FilePart],
) -> Reply {
    let Some(rec) = interaction_by_token(st, token) else {
        return Reply::error(&DiscordError::new(404, 10015, "Unknown Webhook"));
    };
    let target = if mid == "@original" {
        rec.original
    } else {
        id_of(mid)
    };
    let Some(target) = target.filter(|t| st.message(*t).is_some_and(|m| !m.deleted)) else {
        return Reply::error(&DiscordError::unknown_message());
    };
    match method {
        "GET" => {
            let m = st.message(target).cloned().expect("exists");
            Reply::ok(st.message_json(&m))
        }
        "PATCH" => {
            st.edit_message(target, payload, files);
            let m = st.message(target).cloned().expect("exists");
            Reply::ok(st.message_json(&m))
        }
        "DELETE" => {
            if let Some(m) = st.messages.iter_mut().find(|m| m.id == target) {
                m.deleted = true;
            }
            Reply::Empty(204)
        }
        _ => Reply::not_found(),
    }
}

fn send_message(st: &mut Recorded, cid: &str, payload: &Value, files: &[FilePart]) -> Reply {
    let Some(c) = id_of(cid).filter(|c| st.channels.contains_key(c)) else {
        return Reply::error(&DiscordError::unknown_channel());
    };
    if let Some(ChannelInfo::Dm { recipient }) = st.channels.get(&c)
        && st.closed_dms.contains_key(recipient)
    {
        return Reply::error(&DiscordError::cannot_send_messages_to_user());
    }
    let empty = payload["content"].as_str().unwrap_or_default().is_empty()
        && payload["embeds"].as_array().is_none_or(Vec::is_empty)
        && payload["components"].as_array().is_none_or(Vec::is_empty)
        && payload["sticker_ids"].as_array().is_none_or(Vec::is_empty)
        && files.is_empty();
    if empty {
        return Reply::error(&DiscordError::new(
            400,
            50006,
            "Cannot send an empty message",
        ));
    }
    // `enforce_nonce`: a message whose nonce the channel has already seen is not created
    // again; Discord answers with the message created the first time.
    let nonce = payload["nonce"]
        .as_str()
        .map(str::to_owned)
        .or_else(|| payload["nonce"].as_u64().map(|n| n.to_string()));
    if payload["enforce_nonce"].as_bool() == Some(true)
        && let Some(n) = &nonce
        && let Some(m) = st
            .messages
            .iter()
            .find(|m| m.channel_id == c && !m.deleted && m.nonce().as_deref() == Some(n.as_str()))
            .cloned()
    {
        st.nonce_repeats += 1;
        return Reply::ok(st.message_json(&m));
    }
    let mid = st.create_message(c, payload, files, Origin::Channel, 0);
    let m = st.message(mid).cloned().expect("just created");
    Reply::ok(st.message_json(&m))
}

fn list_messages(st: &Recorded, cid: &str, query: Option<&str>) -> Reply {
    let Some(c) = id_of(cid).filter(|c| st.channels.contains_key(c)) else {
        return Reply::error(&DiscordError::unknown_channel());
    };
    let param = |name: &str| {
        query.and_then(|q| {
            q.split('&')
                .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
        })
    };
    // Discord takes 1 to 100, 50 when not given.
    let limit = param("limit")
        .and_then(|l| l.parse::<usize>().ok())
        .unwrap_or(50)
        .clamp(1, 100);
    // Messages older than `before` (an id), newest first, as Discord pages back.
    let before = param("before").and_then(|b| b.parse::<u64>().ok());
    // Ephemeral messages belong to one user's view: Discord lists none of them.
    let list: Vec<Value> = st
        .messages_in(c)
        .into_iter()
        .filter(|m| m.flags & fixtures::EPHEMERAL == 0)
        .filter(|m| before.is_none_or(|b| m.id < b))
        .rev()
        .take(limit)
        .map(|m| st.message_json(m))
        .collect();
    Reply::ok(Value::Array(list))
}

fn channel_message(
    st: &mut Recorded,
    method: &str,
    cid: &str,
    mid: &str,
    payload: &Value,
    files: &[FilePart],
) -> Reply {
    let (Some(c), Some(m)) = (id_of(cid), id_of(mid)) else {
        return Reply::not_found();
    };
    if !st.channels.contains_key(&c) {
        return Reply::error(&DiscordError::unknown_channel());
    }
    let Some(msg) = st
        .message(m)
        .filter(|x| x.channel_id == c && !x.deleted)
        .cloned()
    else {
        return Reply::error(&DiscordError::unknown_message());
    };
    match method {
        "GET" => Reply::ok(st.message_json(&msg)),
        "PATCH" => {
            if msg.author_id != st.bot_id {
                return Reply::error(&DiscordError::new(
                    403,
                    50005,
                    "Cannot edit a message authored by another user",
                ));
            }
            st.edit_message(m, payload, files);
            let msg = st.message(m).cloned().expect("exists");
            Reply::ok(st.message_json(&msg))
        }
        "DELETE" => {
            if let Some(x) = st.messages.iter_mut().find(|x| x.id == m) {
                x.deleted = true;
            }
            Reply::Empty(204)
        }
        _ => Reply::not_found(),
    }
}

fn create_thread(st: &mut Recorded, cid: &str, mid: Option<&str>, payload: &Value) -> Reply {
    let Some(c) = id_of(cid) else {
        return Reply::not_found();
    };
    let Some(ChannelInfo::Text { guild_id, .. }) = st.channels.get(&c).cloned() else {
        return Reply::error(&DiscordError::unknown_channel());
    };
    let name = payload["name"].as_str().unwrap_or_default().to_owned();
    if name.is_empty() {
        return Reply::Json(
            400,
            json!({"code": 50035, "message": "Invalid Form Body",
            "errors": {"name": {"_errors": [{"code": "BASE_TYPE_REQUIRED", "message": "This field is required"}]}}}),
        );
    }
    let archive = payload["auto_archive_duration"].as_u64().unwrap_or(4320);
    let (id, kind, message_id) = match mid {
        Some(mid) => {
            let Some(m) = id_of(mid).filter(|m| st.message(*m).is_some_and(|x| x.channel_id == c))
            else {
                return Reply::error(&DiscordError::unknown_message());
            };
            if st.message(m).is_some_and(|x| x.thread_id.is_some()) {
                return Reply::error(&DiscordError::new(
                    400,
                    160004,
                    "A thread has already been created for this message",
                ));
            }
            // A thread started from a message has the message's id.
            (m, 11, Some(m))
        }
        None => (st.new_id(), payload["type"].as_u64().unwrap_or(12), None),
    };
    let thread = Thread {
        id,
        parent_id: c,
        name: name.clone(),
        kind,
        message_id,
    };
    st.threads.push(thread.clone());
    st.channels
        .insert(id, ChannelInfo::Thread(thread, guild_id));
    if let Some(m) = message_id
        && let Some(x) = st.messages.iter_mut().find(|x| x.id == m)
    {
        x.thread_id = Some(id);
    }
    let json = fixtures::thread_channel(id, guild_id, c, st.bot_id, &name, kind, archive);
    let mut created = json.clone();
    created["newly_created"] = Value::Bool(true);
    st.dispatch("THREAD_CREATE", created);
    Reply::Json(201, json)
}

fn react(st: &mut Recorded, method: &str, mid: &str, emoji: &str) -> Reply {
    let Some(m) = id_of(mid) else {
        return Reply::not_found();
    };
    let emoji = percent_decode(emoji);
    let Some(msg) = st.messages.iter_mut().find(|x| x.id == m && !x.deleted) else {
        return Reply::error(&DiscordError::unknown_message());
    };
    if method == "PUT" {
        if !msg.reactions.contains(&emoji) {
            msg.reactions.push(emoji);
        }
    } else {
        msg.reactions.retain(|e| *e != emoji);
    }
    Reply::Empty(204)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(s.get(i + 1..i + 3).unwrap_or(""), 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
