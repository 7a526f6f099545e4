//! Every JSON payload the fake sends, in one place.
//!
//! The shapes follow the examples and field tables of Discord's API documentation (API v10):
//! user, guild member, channel, guild (`GUILD_CREATE`), message, attachment, application,
//! application command, interaction, gateway Hello / READY, and the JSON error body. Fields that
//! serenity 0.12.5 requires but Discord documents as optional are always present (serenity logs
//! and drops a gateway event it cannot deserialize, so a missing field shows up as a silent
//! timeout): interactions need `version`, `locale`, `entitlements`, `attachment_size_limit`;
//! READY needs `resume_gateway_url` and `application {id, flags}`; `discriminator` is a string.
//! `tests/fixtures.rs` deserializes each of them into serenity's model types.

use serde_json::{Value, json};

/// Timestamp used for every `timestamp` / `joined_at` field: fixed, so payloads are reproducible.
pub const TIMESTAMP: &str = "2026-01-01T00:00:00.000000+00:00";

/// Permissions of the bot (`app_permissions`) and of members in interactions: Discord's usual
/// value for a member with default permissions plus the bot's text permissions.
pub const PERMISSIONS: &str = "2248473465835073";

/// `attachment_size_limit` on interactions (10 MiB, the default for unboosted guilds).
pub const ATTACHMENT_SIZE_LIMIT: u64 = 10_485_760;

/// Message flag: only the invoking user sees the message.
pub const EPHEMERAL: u64 = 1 << 6;
/// Message flag: the message is an interaction response that is still "thinking" (deferred).
pub const LOADING: u64 = 1 << 7;

fn s(id: u64) -> String {
    id.to_string()
}

/// A user object. Discord's migrated usernames have discriminator `"0"`.
pub fn user(id: u64, name: &str, bot: bool) -> Value {
    let mut u = json!({
        "id": s(id),
        "username": name,
        "discriminator": "0",
        "global_name": if bot { Value::Null } else { Value::from(name) },
        "avatar": null,
        "banner": null,
        "accent_color": null,
        "public_flags": 0,
        "avatar_decoration_data": null,
    });
    if bot {
        u["bot"] = Value::Bool(true);
    }
    u
}

/// The bot's own user as returned by `GET /users/@me` and in READY (a "current user").
pub fn current_user(id: u64, name: &str) -> Value {
    let mut u = user(id, name, true);
    u["verified"] = Value::Bool(true);
    u["mfa_enabled"] = Value::Bool(false);
    u["flags"] = Value::from(0);
    u["email"] = Value::Null;
    u["locale"] = Value::from("en-US");
    u
}

/// A guild member. `permissions` is only present on members sent with interactions.
pub fn member(user: Value, permissions: Option<&str>) -> Value {
    let mut m = json!({
        "user": user,
        "nick": null,
        "avatar": null,
        "banner": null,
        "roles": [],
        "joined_at": TIMESTAMP,
        "premium_since": null,
        "deaf": false,
        "mute": false,
        "flags": 0,
        "pending": false,
        "communication_disabled_until": null,
    });
    if let Some(p) = permissions {
        m["permissions"] = Value::from(p);
    }
    m
}

/// The partial member Discord puts in `resolved.members` (no `user`, no `deaf`/`mute`).
pub fn resolved_member(permissions: &str) -> Value {
    json!({
        "nick": null,
        "avatar": null,
        "roles": [],
        "joined_at": TIMESTAMP,
        "premium_since": null,
        "flags": 0,
        "pending": false,
        "permissions": permissions,
        "communication_disabled_until": null,
    })
}

/// The `@everyone` role of a guild (its id is the guild's id).
pub fn everyone_role(guild_id: u64) -> Value {
    json!({
        "id": s(guild_id),
        "name": "@everyone",
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null},
        "hoist": false,
        "icon": null,
        "unicode_emoji": null,
        "position": 0,
        "permissions": "1071698660929",
        "managed": false,
        "mentionable": false,
        "flags": 0,
    })
}

/// A guild text channel (type 0).
pub fn text_channel(id: u64, guild_id: u64, name: &str, position: u64) -> Value {
    json!({
        "id": s(id),
        "type": 0,
        "guild_id": s(guild_id),
        "name": name,
        "position": position,
        "permission_overwrites": [],
        "nsfw": false,
        "topic": null,
        "last_message_id": null,
        "parent_id": null,
        "rate_limit_per_user": 0,
        "flags": 0,
    })
}

/// A DM channel (type 1) with one recipient, as returned by `POST /users/@me/channels`.
pub fn dm_channel(id: u64, recipient: Value) -> Value {
    json!({
        "id": s(id),
        "type": 1,
        "last_message_id": null,
        "flags": 0,
        "recipients": [recipient],
    })
}

/// A thread channel (type 11 public, 12 private) as returned by the create-thread endpoints and
/// sent in `THREAD_CREATE`.
pub fn thread_channel(
    id: u64,
    guild_id: u64,
    parent_id: u64,
    owner_id: u64,
    name: &str,
    kind: u64,
    auto_archive_duration: u64,
) -> Value {
    json!({
        "id": s(id),
        "type": kind,
        "guild_id": s(guild_id),
        "parent_id": s(parent_id),
        "owner_id": s(owner_id),
        "name": name,
        "last_message_id": null,
        "rate_limit_per_user": 0,
        "flags": 0,
        "message_count": 0,
        "member_count": 1,
        "total_message_sent": 0,
        "thread_metadata": {
            "archived": false,
            "auto_archive_duration": auto_archive_duration,
            "archive_timestamp": TIMESTAMP,
            "locked": false,
            "create_timestamp": TIMESTAMP,
        },
        "member": {
            "id": s(id),
            "user_id": s(owner_id),
            "join_timestamp": TIMESTAMP,
            "flags": 0,
        },
    })
}

/// The partial channel Discord puts in an interaction's `channel` field.
pub fn interaction_channel(channel: &Value) -> Value {
    let mut c = channel.clone();
    if let Some(o) = c.as_object_mut() {
        o.remove("permission_overwrites");
        o.remove("member");
    }
    c
}

/// A `GUILD_CREATE` payload: the full guild with its channels and members.
pub fn guild_create(
    guild_id: u64,
    name: &str,
    owner_id: u64,
    channels: Vec<Value>,
    members: Vec<Value>,
) -> Value {
    let member_count = members.len();
    json!({
        "id": s(guild_id),
        "name": name,
        "icon": null,
        "icon_hash": null,
        "splash": null,
        "discovery_splash": null,
        "owner_id": s(owner_id),
        "afk_channel_id": null,
        "afk_timeout": 300,
        "widget_enabled": false,
        "widget_channel_id": null,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [everyone_role(guild_id)],
        "emojis": [],
        "features": [],
        "mfa_level": 0,
        "application_id": null,
        "system_channel_id": null,
        "system_channel_flags": 0,
        "rules_channel_id": null,
        "max_presences": null,
        "max_members": 500000,
        "vanity_url_code": null,
        "description": null,
        "banner": null,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "preferred_locale": "en-US",
        "public_updates_channel_id": null,
        "max_video_channel_users": 25,
        "max_stage_video_channel_users": 50,
        "nsfw_level": 0,
        "stickers": [],
        "premium_progress_bar_enabled": false,
        "safety_alerts_channel_id": null,
        "incidents_data": null,
        "joined_at": TIMESTAMP,
        "large": false,
        "unavailable": false,
        "member_count": member_count,
        "voice_states": [],
        "members": members,
        "channels": channels,
        "threads": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
    })
}

/// An attachment object of a message, pointing at the fake's own attachment route.
pub fn attachment(
    id: u64,
    filename: &str,
    size: usize,
    content_type: Option<&str>,
    description: Option<&str>,
    url: &str,
) -> Value {
    let mut a = json!({
        "id": s(id),
        "filename": filename,
        "size": size,
        "url": url,
        "proxy_url": url,
    });
    if let Some(ct) = content_type {
        a["content_type"] = Value::from(ct);
    }
    if let Some(d) = description {
        a["description"] = Value::from(d);
    }
    a
}

/// What a message object needs besides its author and content.
#[derive(Debug, Clone, Default)]
pub struct MessageParts {
    pub guild_id: Option<u64>,
    pub flags: u64,
    pub embeds: Vec<Value>,
    pub components: Vec<Value>,
    pub attachments: Vec<Value>,
    pub edited: bool,
    /// Set for messages created by an interaction response or followup: the application id.
    pub webhook_id: Option<u64>,
    /// `(interaction id, type, user)` of the interaction a response message belongs to.
    pub interaction: Option<(u64, u64, Value)>,
    /// For a message of a component interaction: the message the component was on (Discord
    /// sends `interacted_message_id` in the metadata, and serenity requires it).
    pub interacted_message: Option<u64>,
    pub mentions: Vec<Value>,
    pub reactions: Vec<Value>,
    pub thread: Option<Value>,
}

/// A message object (REST responses, `MESSAGE_CREATE`, the `message` of component interactions).
pub fn message(
    id: u64,
    channel_id: u64,
    author: Value,
    content: &str,
    parts: MessageParts,
) -> Value {
    let mut m = json!({
        "id": s(id),
        "type": if parts.interaction.is_some() { 20 } else { 0 },
        "channel_id": s(channel_id),
        "author": author,
        "content": content,
        "timestamp": TIMESTAMP,
        "edited_timestamp": if parts.edited { Value::from(TIMESTAMP) } else { Value::Null },
        "tts": false,
        "mention_everyone": false,
        "mentions": parts.mentions,
        "mention_roles": [],
        "attachments": parts.attachments,
        "embeds": parts.embeds,
        "pinned": false,
        "flags": parts.flags,
        "components": parts.components,
    });
    if !parts.reactions.is_empty() {
        m["reactions"] = Value::Array(parts.reactions);
    }
    if let Some(g) = parts.guild_id {
        m["guild_id"] = Value::from(s(g));
    }
    if let Some(w) = parts.webhook_id {
        m["webhook_id"] = Value::from(s(w));
        m["application_id"] = Value::from(s(w));
    }
    if let Some((iid, kind, user)) = parts.interaction {
        let uid = user["id"].clone();
        m["interaction_metadata"] = json!({
            "id": s(iid),
            "type": kind,
            "user": user,
            "authorizing_integration_owners": {},
        });
        m["interaction_metadata"]["user_id"] = uid;
        if let Some(mid) = parts.interacted_message {
            m["interaction_metadata"]["interacted_message_id"] = Value::from(s(mid));
        }
    }
    if let Some(t) = parts.thread {
        m["thread"] = t;
    }
    m
}

/// A reaction summary on a message (`reactions[]`), for a unicode emoji the bot added.
pub fn reaction(emoji: &str, count: u64, me: bool) -> Value {
    json!({
        "count": count,
        "count_details": {"burst": 0, "normal": count},
        "me": me,
        "me_burst": false,
        "burst_colors": [],
        "emoji": {"id": null, "name": emoji},
    })
}

/// `GET /oauth2/applications/@me`.
pub fn application_info(app_id: u64, name: &str, bot: Value, owner: Value) -> Value {
    json!({
        "id": s(app_id),
        "name": name,
        "icon": null,
        "description": "fairy chess variants",
        "type": null,
        "bot": bot,
        "bot_public": true,
        "bot_require_code_grant": false,
        "verify_key": "1e0a356058d627ca38a5c8c9648818061d49e49bd9da9e3ab17d98ad4d6bg2u8",
        "owner": owner,
        "team": null,
        "flags": 0,
        "summary": "",
        "rpc_origins": [],
        "tags": [],
        "install_params": null,
        "approximate_guild_count": 1,
        "redirect_uris": [],
        "interactions_endpoint_url": null,
    })
}

/// `GET /gateway` (the unauthenticated variant returns only the URL).
pub fn gateway(url: &str) -> Value {
    json!({ "url": url })
}

/// `GET /gateway/bot`.
pub fn gateway_bot(url: &str) -> Value {
    json!({
        "url": url,
        "shards": 1,
        "session_start_limit": {
            "total": 1000,
            "remaining": 999,
            "reset_after": 14_400_000,
            "max_concurrency": 1,
        },
    })
}

/// An application command as Discord echoes it after registration: the bot's payload plus the
/// fields Discord fills in.
pub fn registered_command(sent: &Value, id: u64, app_id: u64, guild_id: Option<u64>) -> Value {
    let mut c = sent.clone();
    let Some(o) = c.as_object_mut() else {
        return c;
    };
    o.insert("id".into(), Value::from(s(id)));
    o.insert("application_id".into(), Value::from(s(app_id)));
    o.insert("version".into(), Value::from(s(id)));
    o.entry("type").or_insert(Value::from(1));
    o.entry("description").or_insert(Value::from(""));
    o.entry("default_member_permissions").or_insert(Value::Null);
    o.entry("nsfw").or_insert(Value::Bool(false));
    match guild_id {
        Some(g) => {
            o.insert("guild_id".into(), Value::from(s(g)));
        }
        None => {
            o.entry("integration_types").or_insert(json!([0]));
            o.entry("contexts").or_insert(Value::Null);
        }
    }
    c
}

/// Where an interaction happens, for [`interaction`].
#[derive(Debug, Clone)]
pub enum InteractionPlace {
    /// In a guild channel: the invoker is a member.
    Guild {
        guild_id: u64,
        channel: Value,
        member: Value,
    },
    /// In the bot's DM channel with the invoker.
    Dm { channel: Value, user: Value },
}

/// An interaction object (`INTERACTION_CREATE` payload). `kind`: 2 command, 3 component,
/// 4 autocomplete, 5 modal submit. `message`: the message a component was on.
pub fn interaction(
    id: u64,
    app_id: u64,
    kind: u64,
    token: &str,
    data: Value,
    place: &InteractionPlace,
    message: Option<Value>,
) -> Value {
    let mut i = json!({
        "id": s(id),
        "application_id": s(app_id),
        "type": kind,
        "data": data,
        "token": token,
        "version": 1,
        "app_permissions": PERMISSIONS,
        "locale": "en-US",
        "entitlements": [],
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
    });
    match place {
        InteractionPlace::Guild {
            guild_id,
            channel,
            member,
        } => {
            i["guild_id"] = Value::from(s(*guild_id));
            i["guild"] = json!({"id": s(*guild_id), "locale": "en-US", "features": []});
            i["guild_locale"] = Value::from("en-US");
            i["channel_id"] = channel["id"].clone();
            i["channel"] = interaction_channel(channel);
            i["member"] = member.clone();
            i["authorizing_integration_owners"] = json!({"0": s(*guild_id)});
            i["context"] = Value::from(0);
        }
        InteractionPlace::Dm { channel, user } => {
            i["channel_id"] = channel["id"].clone();
            i["channel"] = interaction_channel(channel);
            i["user"] = user.clone();
            // A guild-installed bot in its own DM: the guild owner key is "0" (Discord docs).
            i["authorizing_integration_owners"] = json!({"0": "0"});
            i["context"] = Value::from(1);
        }
    }
    if let Some(m) = message {
        i["message"] = m;
    }
    i
}

/// Gateway Hello (op 10).
pub fn hello(heartbeat_interval_ms: u64) -> Value {
    json!({"op": 10, "s": null, "t": null, "d": {"heartbeat_interval": heartbeat_interval_ms}})
}

/// Heartbeat ACK (op 11).
pub fn heartbeat_ack() -> Value {
    json!({"op": 11, "s": null, "t": null, "d": null})
}

/// Reconnect (op 7).
pub fn reconnect() -> Value {
    json!({"op": 7, "s": null, "t": null, "d": null})
}

/// Invalid session (op 9).
pub fn invalid_session(resumable: bool) -> Value {
    json!({"op": 9, "s": null, "t": null, "d": resumable})
}

/// A dispatch (op 0).
pub fn dispatch(seq: u64, t: &str, d: Value) -> Value {
    json!({"op": 0, "s": seq, "t": t, "d": d})
}

/// The READY dispatch's data.
pub fn ready(
    bot: Value,
    guild_ids: &[u64],
    session_id: &str,
    resume_gateway_url: &str,
    app_id: u64,
) -> Value {
    json!({
        "v": 10,
        "user": bot,
        "guilds": guild_ids.iter().map(|g| json!({"id": s(*g), "unavailable": true})).collect::<Vec<_>>(),
        "session_id": session_id,
        "resume_gateway_url": resume_gateway_url,
        "shard": [0, 1],
        "application": {"id": s(app_id), "flags": 0},
        "private_channels": [],
        "presences": [],
        "relationships": [],
        "guild_join_requests": [],
        "geo_ordered_rtc_regions": ["us-east"],
        "auth": {},
        "user_settings": {},
        "_trace": ["[\"fake-discord-gateway\",{\"micros\":0}]"],
    })
}

/// Discord's JSON error body.
pub fn error_body(code: u64, message: &str) -> Value {
    json!({"message": message, "code": code})
}
