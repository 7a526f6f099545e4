//! Delivering the core's replies on Discord, and the global component handler.
//!
//! `Audience::Room` → a normal reply (board attached, mentions as `<@id>`, Accept/Decline
//! buttons for the reply's actions); `Audience::Actor` → ephemeral; `Audience::Private(p)` → a
//! DM to `p`. When a DM is refused (50007, closed DMs), the channel is told how to fix it,
//! without the private content.

use bot_core::{
    Actor,
    command::Command,
    model::Place,
    outbox::{Attempt, Entry, Handle, Origin},
    reply::{Audience, Reply},
};
use poise::serenity_prelude as serenity;

pub(crate) use crate::send::Outgoing;
use crate::{
    Bot, Ctx, Error, convert,
    convert::ComponentId,
    errors::new_reference,
    followup::{self, Followup, Hook},
    rest::{Body, Rest},
    send::{self, Retry, SendError},
};

/// Where replies go: a slash command (through poise) or a component interaction.
pub(crate) enum Via<'a> {
    Command(Ctx<'a>),
    Component {
        ctx: &'a serenity::Context,
        ix: &'a serenity::ComponentInteraction,
        responded: bool,
    },
}

/// An interaction being answered, and what Discord will do with the next message: after a
/// public deferral the next message replaces the public "thinking…" and shows to everyone
/// whatever its flags, so nothing private may be sent first.
pub(crate) struct Target<'a> {
    via: Via<'a>,
    retry: Retry,
    public_pending: bool,
    /// A deferral whose "thinking…" no message has replaced yet, and whether it was for the
    /// actor alone. The next message of the same visibility is an edit of it: an edit
    /// repeated after a 5xx that Discord had carried out shows once, where a repeated
    /// followup would show twice (followups take no nonce).
    deferred: Option<bool>,
    /// When the interaction's token stops working (Unix milliseconds).
    until_ms: i64,
    /// Where the last answer went, for a later edit of it ([`crate::edits`]).
    last_sent: Option<crate::edits::Sent>,
    /// The followups sent so far: a later one that says the same is not taken for them.
    followups: Vec<u64>,
}

/// Unix milliseconds now.
pub(crate) fn now_ms() -> i64 {
    bot_core::Clock::now_ms(&bot_core::SystemClock)
}

impl<'a> Target<'a> {
    /// A slash command's answers.
    pub(crate) fn command(ctx: Ctx<'a>) -> Target<'a> {
        Target {
            via: Via::Command(ctx),
            retry: ctx.data().retry,
            public_pending: false,
            deferred: None,
            until_ms: now_ms().saturating_add(ctx.data().handle_life_ms()),
            last_sent: None,
            followups: Vec::new(),
        }
    }

    /// A button's or select menu's answers.
    pub(crate) fn component(
        bot: &Bot,
        ctx: &'a serenity::Context,
        ix: &'a serenity::ComponentInteraction,
    ) -> Target<'a> {
        Target {
            via: Via::Component {
                ctx,
                ix,
                responded: false,
            },
            retry: bot.retry,
            public_pending: false,
            deferred: None,
            until_ms: now_ms().saturating_add(bot.handle_life_ms()),
            last_sent: None,
            followups: Vec::new(),
        }
    }

    /// Marks the interaction answered (a deferral, a message, an update).
    pub(crate) fn responded(&mut self) {
        match &mut self.via {
            Via::Component { responded, .. } => *responded = true,
            Via::Command(poise::Context::Application(a)) => a
                .has_sent_initial_response
                .store(true, std::sync::atomic::Ordering::SeqCst),
            Via::Command(poise::Context::Prefix(_)) => {}
        }
    }

    /// The interaction's id, token and application.
    fn interaction(&self) -> (u64, &str, u64) {
        match &self.via {
            Via::Command(poise::Context::Application(a)) => (
                a.interaction.id.get(),
                &a.interaction.token,
                a.interaction.application_id.get(),
            ),
            Via::Command(poise::Context::Prefix(_)) => (0, "", 0),
            Via::Component { ix, .. } => (ix.id.get(), &ix.token, ix.application_id.get()),
        }
    }

    /// How the outbox's sender can still answer this interaction (until its token runs out).
    pub(crate) fn handle(&self) -> Handle {
        let (id, token, app) = self.interaction();
        Handle {
            token: Hook::token_of(app, token, id),
            until_ms: self.until_ms,
        }
    }

    fn has_responded(&self) -> bool {
        match &self.via {
            Via::Command(poise::Context::Application(a)) => a
                .has_sent_initial_response
                .load(std::sync::atomic::Ordering::SeqCst),
            Via::Command(poise::Context::Prefix(_)) => true,
            Via::Component { responded, .. } => *responded,
        }
    }

    fn http(&self) -> &serenity::Http {
        match &self.via {
            Via::Command(c) => c.http(),
            Via::Component { ctx, .. } => &ctx.http,
        }
    }

    /// The channel the interaction came from.
    fn channel(&self) -> u64 {
        match &self.via {
            Via::Command(c) => c.channel_id().get(),
            Via::Component { ix, .. } => ix.channel_id.get(),
        }
    }

    /// The user who acted.
    fn user(&self) -> u64 {
        match &self.via {
            Via::Command(c) => c.author().id.get(),
            Via::Component { ix, .. } => ix.user.id.get(),
        }
    }

    /// Whether the interaction came from a DM (no server, so no channel others read).
    fn in_dm(&self) -> bool {
        match &self.via {
            Via::Command(c) => c.guild_id().is_none(),
            Via::Component { ix, .. } => ix.guild_id.is_none(),
        }
    }

    /// Defers the answer ("thinking…"), publicly or for the actor alone. A deferral Discord
    /// recorded although its answer failed (a 500, then 40060 "already acknowledged" on the
    /// retry) counts as done.
    pub(crate) async fn defer(&mut self, ephemeral: bool) -> Result<(), SendError> {
        if self.has_responded() {
            return Ok(());
        }
        let (id, token, _) = self.interaction();
        let rest = Rest::of(self.http());
        let path = format!("interactions/{id}/{token}/callback");
        let flags = if ephemeral { send::EPHEMERAL } else { 0 };
        let body = Body::Json(serde_json::json!({"type": 5, "data": {"flags": flags}}));
        send::retrying(self.retry, "deferring", || {
            rest.call(reqwest::Method::POST, &path, &body)
        })
        .await?;
        self.responded();
        self.public_pending = !ephemeral;
        self.deferred = Some(ephemeral);
        Ok(())
    }

    /// Sends private content (a player's own secrets) to him alone. After a public deferral
    /// Discord shows the next message to everyone whatever its flags, so a neutral line takes
    /// that place first. (Errors and lists, which hold no secret, may take it.)
    pub(crate) async fn send_private(&mut self, mut out: Outgoing) -> Result<(), SendError> {
        if self.public_pending {
            self.send(Outgoing {
                content: "The answer follows, visible to you only.".into(),
                ..Outgoing::default()
            })
            .await?;
        }
        out.ephemeral = true;
        self.send(out).await
    }

    /// Sends a message as the interaction's answer or a followup: fitted to Discord's limits,
    /// each part retried.
    pub(crate) async fn send(&mut self, out: Outgoing) -> Result<(), SendError> {
        self.answer(out).await.map(|_| ())
    }

    /// [`Target::send`], saying where the message went.
    async fn answer(&mut self, out: Outgoing) -> Result<Answered, SendError> {
        self.public_pending = false;
        let policy = self.retry;
        let rest = Rest::of(self.http());
        let mut answered = Answered::Original;
        for part in out.parts() {
            let edit = self.deferred.take() == Some(out.ephemeral);
            let (id, token, app) = self.interaction();
            let token = token.to_owned();
            let token = token.as_str();
            if edit {
                // An edit keeps the visibility the deferral chose: no flags.
                let path = format!("webhooks/{app}/{token}/messages/@original");
                let body = without_flags(out.body(&part, serde_json::json!({})));
                send::retrying(policy, "the deferred answer", || {
                    rest.call(reqwest::Method::PATCH, &path, &body)
                })
                .await?;
                self.last_sent = Some(crate::edits::Sent::Webhook {
                    app,
                    token: token.to_string(),
                    message: "@original".into(),
                    until_ms: self.until_ms,
                });
            } else if self.has_responded() {
                let body = out.body(&part, serde_json::json!({}));
                let app_id = app.to_string();
                let hook = Hook {
                    app: &app_id,
                    token,
                    interaction: Some(id).filter(|i| *i != 0),
                    channel: Some(self.channel()),
                };
                let message = Followup {
                    body: &body,
                    content: &part.content,
                    ephemeral: out.ephemeral,
                    known: &self.followups,
                };
                let findable = !out.ephemeral && hook.interaction.is_some();
                let sent = followup::post(&rest, policy, hook, message, false).await?;
                let sent = send::message_id(sent.as_ref());
                answered = match answered {
                    Answered::Original | Answered::Followup { findable: true } => {
                        Answered::Followup { findable }
                    }
                    Answered::Followup { findable: false } => answered,
                };
                self.followups.extend(sent);
                self.last_sent = sent.map(|m| crate::edits::Sent::Webhook {
                    app,
                    token: token.to_string(),
                    message: m.to_string(),
                    until_ms: self.until_ms,
                });
            } else {
                let path = format!("interactions/{id}/{token}/callback");
                let (payload, files) = out.payload(&part);
                let whole = serde_json::json!({"type": 4, "data": payload});
                let body = if files.is_empty() {
                    Body::Json(whole)
                } else {
                    Body::Multipart {
                        payload: whole,
                        files,
                    }
                };
                send::retrying(policy, "an answer", || {
                    rest.call(reqwest::Method::POST, &path, &body)
                })
                .await?;
                let original = crate::edits::Sent::Webhook {
                    app,
                    token: token.to_string(),
                    message: "@original".into(),
                    until_ms: self.until_ms,
                };
                self.responded();
                self.last_sent = Some(original);
            }
        }
        Ok(answered)
    }
}

/// Where an interaction's answer went: all of it into the interaction's original message,
/// or some of it into followups, each of them findable in the channel or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answered {
    Original,
    Followup {
        /// Every followup is public and names its interaction, so a sender can find it in the
        /// channel.
        findable: bool,
    },
}

impl Answered {
    /// How it was sent, for its delivery report. What a sender finds shown shows once however
    /// often it is given, so its report may ride on the next write: the original answer (the
    /// sender reads it before answering again, [`via_handle`]) and public followups (looked
    /// for in the channel first, [`followup::post`]; past the token, [`answer_shown`]). An
    /// ephemeral followup is listed nowhere, so its report is written before anything else
    /// is sent.
    fn sent(self) -> Sent {
        match self {
            Answered::Original | Answered::Followup { findable: true } => Sent::UnderKey,
            Answered::Followup { findable: false } => Sent::Once,
        }
    }
}

/// Holds a private reply Discord would not deliver, in the game service's store, for its
/// player to be shown at his next command (to him alone); durable, so a restart loses
/// nothing. If even the store fails the reply is lost: logged with a reference, and the
/// player still has `/board`, which draws what he may see from the game. Returns whether his
/// game's channel is to be told he cannot be reached: for the first message held for him
/// from that game since he last read them (or when the store failed), so he is told once
/// per game, not once per report, whatever restarted in between.
async fn hold(bot: &Bot, reply: &Reply) -> bool {
    match bot.games.hold_undelivered(reply).await {
        Ok(first) => first,
        Err(e) => {
            tracing::error!(
                reference = new_reference(),
                "a private message could not be held for its player: {e}"
            );
            true
        }
    }
}

/// Runs the core's work for a target, deferring (publicly) if it takes longer than the bot's
/// `defer_after`, so Discord's 3-second limit is never missed.
pub(crate) async fn in_time(
    bot: &Bot,
    target: &mut Target<'_>,
    work: impl std::future::Future<Output = Vec<Reply>>,
) -> Result<Vec<Reply>, Error> {
    tokio::pin!(work);
    match tokio::time::timeout(bot.defer_after, &mut work).await {
        Ok(replies) => Ok(replies),
        Err(_) => {
            if let Err(e) = target.defer(false).await {
                // The replies still go out: by the interaction if it comes back, else the
                // outbox's sender delivers them.
                tracing::warn!("could not defer: {e}");
            }
            Ok(work.await)
        }
    }
}

/// Accept/Decline buttons for a reply's actions, and a link button to the game's page when
/// the reply has one.
pub(crate) fn action_rows(reply: &Reply) -> Vec<serenity::CreateActionRow> {
    let mut rows: Vec<serenity::CreateActionRow> = reply
        .actions
        .iter()
        .map(|a| {
            let [yes, no] = ComponentId::for_action(a);
            serenity::CreateActionRow::Buttons(vec![
                serenity::CreateButton::new(yes.encode())
                    .label("Accept")
                    .style(serenity::ButtonStyle::Success),
                serenity::CreateButton::new(no.encode())
                    .label("Decline")
                    .style(serenity::ButtonStyle::Danger),
            ])
        })
        .collect();
    // Discord takes only http(s) addresses for a link button; another address stays in the
    // text alone.
    if let Some(page) = reply
        .page
        .as_ref()
        .filter(|p| p.starts_with("https://") || p.starts_with("http://"))
    {
        rows.push(serenity::CreateActionRow::Buttons(vec![
            serenity::CreateButton::new_link(page).label("Watch or replay"),
        ]));
    }
    rows
}

/// The most an attachment may weigh on a server without boosts (10 MiB), less a margin
/// for the request around it: a replay is drawn smaller or with fewer frames to fit, never
/// refused by Discord.
const UPLOAD_LIMIT: usize = (10 << 20) - (256 << 10);

async fn picture(bot: &Bot, reply: &Reply) -> Option<Vec<u8>> {
    let painter = bot_core::picture::Painter {
        catalog: bot.catalog.clone(),
        renderer: bot.renderer.clone(),
        theme: bot.theme.clone(),
        size: bot.board_size,
    };
    if let Some(replay) = &reply.animation {
        return painter
            .replay_gif(replay, UPLOAD_LIMIT)
            .await
            .map(|a| a.bytes)
            .map_err(|e| tracing::warn!("{e}"))
            .ok();
    }
    let drawn = match (&reply.board, &reply.graph) {
        (Some(board), _) => painter.png(board).await,
        // An analysis's evaluation graph (Discord cannot edit an earlier message through
        // the outbox's sender here: a reply that replaces one is sent as a new message).
        (None, Some(graph)) => painter.graph_png(graph).await,
        (None, None) => return None,
    };
    drawn.map_err(|e| tracing::warn!("{e}")).ok()
}

/// A reply as a message: its text with mentions, its picture and buttons.
async fn outgoing(bot: &Bot, reply: &Reply, ephemeral: bool) -> Outgoing {
    Outgoing {
        content: convert::text(reply),
        ephemeral,
        png: picture(bot, reply).await,
        components: action_rows(reply),
        mentions: reply.mentions.iter().filter_map(convert::user_id).collect(),
        embed: convert::table_embed(reply),
    }
}

/// Posts a reply as a plain message in a channel (the game's thread), board and buttons included.
/// Its outbox key is its nonce; the outbox hears how it went ([`settle`]).
pub(crate) async fn post(
    bot: &Bot,
    http: &serenity::Http,
    channel: serenity::ChannelId,
    reply: &Reply,
) -> Result<(), SendError> {
    let out = outgoing(bot, reply, false).await;
    let r = send::post_message_id(http, bot.retry, channel, &out, None, reply.key.as_ref())
        .await
        .map(|id| remember(bot, reply, channel.get(), id));
    settle(bot, reply, &r, None, Sent::UnderKey).await;
    r
}

/// Remembers where a reply's message went, for a later edit of it ([`crate::edits`]).
fn remember(bot: &Bot, reply: &Reply, channel: u64, message: Option<u64>) {
    if let (Some(key), Some(message)) = (&reply.key, message) {
        bot.sent
            .remember(key, crate::edits::Sent::Channel { channel, message });
    }
}

/// How a reply was sent, for its delivery report: so that a repeat after a crash shows once
/// (under its outbox key as a message nonce that Discord enforces, or as an interaction's
/// original answer, see [`Answered::sent`]), or not (a followup).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    UnderKey,
    Once,
}

/// Reports to the outbox how sending a reply went, when it has a key: delivered, or to be
/// sent later by the sender (after what Discord asked to wait, with the interaction's handle
/// when there is one, so that the sender can still answer it).
pub(crate) async fn settle(
    bot: &Bot,
    reply: &Reply,
    result: &Result<(), SendError>,
    handle: Option<Handle>,
    sent: Sent,
) {
    let Some(key) = &reply.key else {
        return;
    };
    let attempt = match result {
        Ok(()) if sent == Sent::UnderKey => Attempt::DeliveredUnderKey,
        Ok(()) => Attempt::Delivered,
        Err(e) => {
            tracing::warn!(%key, "a reply goes to the outbox's sender: {e}");
            Attempt::Later {
                wait: e.wait(),
                handle,
            }
        }
    };
    bot.games.settle_mail(key, attempt).await;
}

/// Reports a reply delivered (sent as `sent` says, or kept for its player when Discord will
/// not deliver it: [`Sent::Once`], as keeping it again would show it twice).
async fn delivered(bot: &Bot, reply: &Reply, sent: Sent) {
    settle(bot, reply, &Ok(()), None, sent).await;
}

/// What the channel is told when a player's DMs are closed (nothing of the private content).
pub fn closed_dm_notice(user_id: u64) -> String {
    format!(
        "<@{user_id}>, I could not send you a private message: your direct messages are closed. \
         To receive them, open this server's menu → Privacy Settings and turn on \
         \"Direct Messages\" (or allow DMs from server members in your own Privacy & Safety \
         settings), then use /board here: I show you what you missed, to you alone."
    )
}

/// What the channel is told when Discord kept failing to deliver a private message.
pub fn undelivered_notice(user_id: u64) -> String {
    format!(
        "<@{user_id}>, Discord did not let me deliver a private message to you just now. Use \
         /board here: I show you what you missed, to you alone."
    )
}

/// The channel's word to a player whose private message was held: his DMs are closed, or
/// Discord kept failing. It mentions him and says nothing of the private content.
fn missed_notice(user_id: u64, closed: bool) -> Outgoing {
    Outgoing {
        content: if closed {
            closed_dm_notice(user_id)
        } else {
            undelivered_notice(user_id)
        },
        mentions: vec![user_id],
        ..Outgoing::default()
    }
}

/// The channel of a room reply meant for the game's room elsewhere (a Looking-Glass order
/// given in a DM, a command for a game in another channel).
fn elsewhere(reply: &Reply, here: u64) -> Option<u64> {
    reply
        .place
        .as_ref()
        .filter(|_| reply.audience == Audience::Room)
        .and_then(|p| p.thread.as_deref().unwrap_or(&p.room).parse::<u64>().ok())
        .filter(|c| *c != 0 && *c != here)
}

/// Sends the replies to a target, deferring first when a board has to be drawn, and reports
/// each one to the outbox by its key, exactly once.
///
/// Nothing is lost: a reply Discord does not take now (a server error that does not stop, a
/// rate limit asking for a long wait, a refused followup) is reported for later with the
/// interaction's handle, and the outbox's sender delivers it (answering the interaction while
/// its token lasts, else in the channel or by DM). A private message that cannot be
/// delivered is kept for its player and his game's channel is told, mentioning him, without
/// the private content, never in the acting player's DM; the actor's own private message is
/// shown to him alone right here instead.
pub(crate) async fn deliver(
    bot: &Bot,
    target: &mut Target<'_>,
    replies: Vec<Reply>,
) -> Result<(), Error> {
    if replies
        .iter()
        .any(|r| r.board.is_some() || r.graph.is_some())
    {
        // Drawing may take a while on big boards: acknowledge within Discord's 3 seconds.
        let first_private = !matches!(replies.first().map(|r| &r.audience), Some(Audience::Room));
        if let Err(e) = target.defer(first_private).await {
            // The answers below find another way if the interaction's route stays down.
            tracing::warn!("could not defer: {e}");
        }
    }
    let here = target.channel();
    let actor = target.user();
    let in_dm = target.in_dm();
    // Where notices about the game go: the game's channel, else this one if others read it.
    let game_channel = replies
        .iter()
        .find_map(|r| elsewhere(r, here))
        .or((!in_dm).then_some(here));
    let mut sent = false;
    // Once the interaction's route failed, the rest goes to the sender too, in order.
    let mut route_down = false;
    for reply in &replies {
        if let Some(channel) = elsewhere(reply, here) {
            let out = outgoing(bot, reply, false).await;
            let posted = send::post_message_id(
                target.http(),
                bot.retry,
                serenity::ChannelId::new(channel),
                &out,
                None,
                reply.key.as_ref(),
            )
            .await
            .map(|id| remember(bot, reply, channel, id));
            settle(bot, reply, &posted, None, Sent::UnderKey).await;
            continue;
        }
        match &reply.audience {
            Audience::Room | Audience::Actor => {
                let ephemeral = reply.audience == Audience::Actor;
                let out = outgoing(bot, reply, ephemeral).await;
                let result = if route_down {
                    Err(SendError::GaveUp {
                        attempts: 0,
                        wait: std::time::Duration::ZERO,
                        source: Box::new(send::Failure::Network(
                            "an earlier reply of this command failed".into(),
                        )),
                    })
                } else {
                    target.answer(out).await
                };
                let how = match &result {
                    Ok(answered) => {
                        sent = true;
                        if let (Some(key), Some(at)) = (&reply.key, target.last_sent.take()) {
                            bot.sent.remember(key, at);
                        }
                        answered.sent()
                    }
                    Err(_) => {
                        route_down = true;
                        Sent::Once
                    }
                };
                let result = result.map(|_| ());
                settle(bot, reply, &result, Some(target.handle()), how).await;
            }
            Audience::Private(p) => {
                let Some(uid) = convert::user_id(p) else {
                    delivered(bot, reply, Sent::Once).await;
                    continue;
                };
                let out = outgoing(bot, reply, false).await;
                let result =
                    send::direct_message(target.http(), bot.retry, uid, &out, reply.key.as_ref())
                        .await;
                let e = match result {
                    Ok(()) => {
                        delivered(bot, reply, Sent::UnderKey).await;
                        continue;
                    }
                    Err(e) if e.transient() => {
                        // Discord may take it later: the sender tries again.
                        settle(bot, reply, &Err(e), None, Sent::Once).await;
                        continue;
                    }
                    Err(e) => e,
                };
                let closed = matches!(e, SendError::ClosedDm { .. });
                let r = new_reference();
                if closed {
                    tracing::info!(reference = r, user = uid, "a private message: DMs closed");
                } else {
                    tracing::error!(reference = r, user = uid, "a private message failed: {e}");
                }
                if uid == actor && !route_down {
                    // He is right here: show it to him alone.
                    let note = if closed {
                        "(Your direct messages are closed, so here it is, visible to you only.)"
                    } else {
                        "(Discord would not deliver it by DM, so here it is, visible to you only.)"
                    };
                    let shown = target
                        .send_private(Outgoing {
                            content: format!("{}\n{note}", out.content),
                            mentions: Vec::new(),
                            ..out
                        })
                        .await;
                    if shown.is_ok() {
                        sent = true;
                        delivered(bot, reply, Sent::Once).await;
                        continue;
                    }
                    route_down = true;
                }
                let tell = hold(bot, reply).await;
                delivered(bot, reply, Sent::Once).await;
                let notice = missed_notice(uid, closed);
                match game_channel {
                    // Told already in this game: once until he reads what is held.
                    _ if !tell => {}
                    Some(c) if c == here && !route_down => {
                        if target.send(notice).await.is_ok() {
                            sent = true;
                        } else {
                            route_down = true;
                        }
                    }
                    Some(c) => {
                        if let Err(e) = send::post_message(
                            target.http(),
                            bot.retry,
                            serenity::ChannelId::new(c),
                            &notice,
                            None,
                            None,
                        )
                        .await
                        {
                            tracing::error!(reference = r, "could not tell {uid} in {c}: {e}");
                        }
                    }
                    None => tracing::warn!(reference = r, "no channel to tell {uid} in"),
                }
            }
        }
    }
    if route_down {
        // What is left was reported for later: the sender answers the interaction.
        return Ok(());
    }
    // What could not reach the actor privately before, now that he asks: to him alone.
    let kept = bot.games.take_undelivered(&convert::player(actor)).await;
    if !kept.is_empty() && !sent {
        target
            .send(Outgoing {
                content: "Done.".into(),
                ephemeral: true,
                ..Outgoing::default()
            })
            .await?;
        sent = true;
    }
    for reply in &kept {
        let mut out = outgoing(bot, reply, true).await;
        out.content = format!("Kept for you (I could not send it by DM):\n{}", out.content);
        out.components.clear();
        if let Err(e) = target.send_private(out).await {
            tracing::warn!("a kept report could not be shown: {e}");
            // He is the one here: held for him, without a notice in the channel.
            hold(bot, reply).await;
        }
    }
    if !sent {
        target
            .send(Outgoing {
                content: "Done.".into(),
                ephemeral: true,
                ..Outgoing::default()
            })
            .await?;
    }
    Ok(())
}

/// The Discord channel of a place: its thread, else its room.
pub(crate) fn channel_of(p: &Place) -> Option<u64> {
    p.thread
        .as_deref()
        .unwrap_or(&p.room)
        .parse::<u64>()
        .ok()
        .filter(|c| *c != 0)
}

/// How an attempt of the sender ended, from a send's result: a refusal for good is given up
/// with its reason.
fn attempt_of(result: Result<(), SendError>, handle: Option<Handle>) -> Attempt {
    match result {
        Ok(()) => Attempt::DeliveredUnderKey,
        Err(e) if e.transient() => Attempt::Later {
            wait: e.wait(),
            handle,
        },
        Err(e) => Attempt::Failed(e.to_string()),
    }
}

/// One outbox entry, delivered by the sender ([`crate::deliver_announcements`]).
///
/// A command's reply with a live interaction handle answers the interaction still: the
/// deferred "thinking…" original is edited into it, else it follows up (ephemeral for the
/// actor's own replies). Past the handle's deadline, or when Discord refuses the handle (a
/// 4xx), a room reply is posted in its channel (its key as the nonce) and the actor's is sent
/// to him by DM; a "thinking…" original left behind is deleted. A private reply goes by DM;
/// when the DM is refused it is kept for its player and the game's channel is told, without
/// the private content.
pub(crate) async fn send_entry(bot: &Bot, http: &serenity::Http, entry: Entry) -> Attempt {
    let env = &entry.envelope;
    // A line that replaces an earlier one (an analysis's progress) edits its message.
    if env.reply.audience == Audience::Room
        && let Some(edited) = crate::edits::edit_in_place(bot, http, &env.reply).await
    {
        return edited;
    }
    let given = match &env.origin {
        Origin::Command { handle, .. } => handle.clone(),
        Origin::Unasked => None,
    };
    let handle = given.clone().filter(|h| h.until_ms > now_ms());
    let answers_here = env.reply.place.is_none() || env.reply.place.as_ref() == Some(&env.place);
    if let Some(h) = &handle
        && answers_here
        && matches!(env.reply.audience, Audience::Room | Audience::Actor)
    {
        let ephemeral = env.reply.audience == Audience::Actor;
        let out = outgoing(bot, &env.reply, ephemeral).await;
        match via_handle(bot, http, h, channel_of(&env.place), &out).await {
            Ok(()) => return Attempt::Delivered,
            Err(e) if e.transient() => {
                return Attempt::Later {
                    wait: e.wait(),
                    handle,
                };
            }
            Err(e) => {
                tracing::info!(key = %env.key, "the interaction refused an answer ({e}): sent otherwise");
            }
        }
    }
    if let Some(h) = &given {
        // Answered elsewhere: a "thinking…" original left behind goes (as far as Discord
        // still takes the token).
        clear_thinking(http, h).await;
    }
    let reply = env.as_sent_later();
    match &reply.audience {
        Audience::Room | Audience::Actor => {
            let Some(c) = channel_of(env.room()) else {
                return Attempt::Failed(format!("no Discord channel: {}", env.room().room));
            };
            let out = outgoing(bot, &reply, false).await;
            // A public answer the interaction showed before its report was written is not
            // posted again.
            let shown = match &given {
                Some(h) if answers_here && env.reply.audience == Audience::Room => {
                    match answer_shown(bot, http, h, channel_of(&env.place), &out).await {
                        Ok(n) => n,
                        Err(e) => return attempt_of(Err(e), None),
                    }
                }
                _ => 0,
            };
            if shown > 0 && shown == out.parts().len() {
                tracing::info!(key = %env.key, "an interaction's answer was shown before its token ran out: not posted again");
                return Attempt::DeliveredUnderKey;
            }
            let r = send::post_parts_from(
                http,
                bot.retry,
                serenity::ChannelId::new(c),
                &out,
                shown,
                None,
                Some(&env.key),
            )
            .await
            .map(|id| remember(bot, &reply, c, id));
            attempt_of(r, None)
        }
        Audience::Private(p) => {
            let Some(uid) = convert::user_id(p) else {
                return Attempt::Failed(format!("not a Discord user: {}", p.user));
            };
            let out = outgoing(bot, &reply, false).await;
            let e = match send::direct_message(http, bot.retry, uid, &out, Some(&env.key)).await {
                Ok(()) => return Attempt::DeliveredUnderKey,
                Err(e) if e.transient() => return attempt_of(Err(e), None),
                Err(e) => e,
            };
            let closed = matches!(e, SendError::ClosedDm { .. });
            tracing::info!(user = uid, "a private message was not delivered: {e}");
            let tell = hold(bot, &reply).await;
            let notice = missed_notice(uid, closed);
            if tell
                && !env.place.private
                && let Some(c) = channel_of(&env.place)
                && let Err(e) = send::post_message(
                    http,
                    bot.retry,
                    serenity::ChannelId::new(c),
                    &notice,
                    None,
                    None,
                )
                .await
            {
                tracing::error!("could not tell {uid} in {c}: {e}");
            }
            Attempt::Delivered
        }
    }
}

/// How many of `out`'s parts the interaction of `h` shows already in its `channel`, its token
/// past (see [`followup::parts_shown`]).
async fn answer_shown(
    bot: &Bot,
    http: &serenity::Http,
    h: &Handle,
    channel: Option<u64>,
    out: &Outgoing,
) -> Result<usize, SendError> {
    let Some(hook) = Hook::of(h, channel) else {
        return Ok(0);
    };
    let parts = out.parts();
    let texts: Vec<&str> = parts.iter().map(|p| p.content.as_str()).collect();
    let rest = Rest::of(http);
    let shown = send::retrying(bot.retry, "looking for an answer shown before", || {
        followup::parts_shown(&rest, hook, &texts)
    })
    .await?;
    Ok(shown.unwrap_or(0))
}

/// What an interaction's original answer shows.
#[derive(Debug, PartialEq, Eq)]
enum Original {
    /// "thinking…" (flag 128): deferred, not answered yet.
    Thinking,
    /// An answer, with this text.
    Shows(String),
}

/// What the interaction's original answer shows now.
async fn original(rest: &Rest, app: &str, token: &str) -> Result<Original, send::Failure> {
    let original = rest
        .call(
            reqwest::Method::GET,
            &format!("webhooks/{app}/{token}/messages/@original"),
            &Body::Empty,
        )
        .await?;
    Ok(if original["flags"].as_u64().unwrap_or(0) & LOADING != 0 {
        Original::Thinking
    } else {
        Original::Shows(original["content"].as_str().unwrap_or_default().to_owned())
    })
}

/// Discord's message flag of a deferred answer not given yet.
const LOADING: u64 = 128;

/// Answers an interaction by its handle: the "thinking…" original is edited into the first
/// part, or every part follows up. What a process killed before it could report it (or
/// whose report was lost with a 5xx) showed already is not given again: an original that
/// shows the first part is that answer, and a public followup is looked for in the
/// interaction's `channel` before it is sent ([`followup`]).
async fn via_handle(
    bot: &Bot,
    http: &serenity::Http,
    h: &Handle,
    channel: Option<u64>,
    out: &Outgoing,
) -> Result<(), SendError> {
    let Some(hook) = Hook::of(h, channel) else {
        return Err(SendError::Refused(Box::new(send::Failure::Network(
            "a malformed interaction handle".into(),
        ))));
    };
    let (app, token) = (hook.app, hook.token);
    let rest = Rest::of(http);
    let shown = send::retrying(bot.retry, "looking at the original answer", || {
        original(&rest, app, token)
    })
    .await?;
    let mut known = Vec::new();
    for (i, part) in out.parts().iter().enumerate() {
        if i == 0 && shown == Some(Original::Shows(part.content.clone())) {
            tracing::info!("an interaction's answer was shown before: not given again");
            continue;
        }
        if i == 0 && shown == Some(Original::Thinking) {
            // An edit keeps the visibility the deferral chose: no flags.
            let body = without_flags(out.body(part, serde_json::json!({})));
            let path = format!("webhooks/{app}/{token}/messages/@original");
            send::retrying(bot.retry, "editing the original answer", || {
                rest.call(reqwest::Method::PATCH, &path, &body)
            })
            .await?;
        } else {
            let body = out.body(part, serde_json::json!({}));
            let message = Followup {
                body: &body,
                content: &part.content,
                ephemeral: out.ephemeral,
                known: &known,
            };
            let sent = followup::post(&rest, bot.retry, hook, message, true).await?;
            known.extend(send::message_id(sent.as_ref()));
        }
    }
    Ok(())
}

/// A message's body for an edit of a deferred answer, which keeps the deferral's visibility
/// (Discord takes no flags there).
fn without_flags(mut body: Body) -> Body {
    if let Body::Json(p) | Body::Multipart { payload: p, .. } = &mut body
        && let Some(o) = p.as_object_mut()
    {
        o.remove("flags");
    }
    body
}

/// Deletes the interaction's original answer if it still shows "thinking…" (once, quietly:
/// the answer went elsewhere).
async fn clear_thinking(http: &serenity::Http, h: &Handle) {
    let Some(Hook { app, token, .. }) = Hook::of(h, None) else {
        return;
    };
    let rest = Rest::of(http);
    if matches!(original(&rest, app, token).await, Ok(Original::Thinking)) {
        let path = format!("webhooks/{app}/{token}/messages/@original");
        if let Err(e) = rest
            .call(reqwest::Method::DELETE, &path, &Body::Empty)
            .await
        {
            tracing::info!("a \"thinking…\" answer could not be deleted: {e}");
        }
    }
}

/// The actor of an interaction.
pub(crate) fn actor(user: &serenity::User) -> Actor {
    Actor::new(
        convert::player(user.id.get()),
        user.global_name
            .clone()
            .unwrap_or_else(|| user.name.clone()),
    )
}

/// What a click on a component the bot cannot read is told (a button of an older version of
/// the bot, a menu sent without a value): every interaction gets an answer.
pub(crate) const OUTDATED_COMPONENT: &str = "This button or menu is from an older version of \
    fairybot and no longer works. Use the slash commands instead (/board shows your game).";

/// Answers a component interaction by updating its message (closing a menu or a
/// confirmation), retried like every send.
async fn update_message(
    bot: &Bot,
    target: &mut Target<'_>,
    ctx: &serenity::Context,
    ix: &serenity::ComponentInteraction,
    msg: serenity::CreateInteractionResponseMessage,
) -> Result<(), Error> {
    send::retrying(bot.retry, "updating a message", || {
        ix.create_response(
            ctx,
            serenity::CreateInteractionResponse::UpdateMessage(msg.clone()),
        )
    })
    .await?;
    target.responded();
    Ok(())
}

/// The global event handler: every button and select menu of the bot, by its `custom_id`.
pub(crate) async fn on_event(
    fw: poise::FrameworkContext<'_, Bot, Error>,
    event: &serenity::FullEvent,
) -> Result<(), Error> {
    let serenity::FullEvent::InteractionCreate {
        interaction: serenity::Interaction::Component(ix),
    } = event
    else {
        return Ok(());
    };
    let bot = fw.user_data;
    let ctx = fw.serenity_context;
    let mut target = Target::component(bot, ctx, ix);
    let outdated = Outgoing {
        content: OUTDATED_COMPONENT.into(),
        ephemeral: true,
        ..Outgoing::default()
    };
    let Some(id) = ComponentId::decode(&ix.data.custom_id) else {
        tracing::info!("a click on an unknown component id");
        target.send(outdated).await?;
        return Ok(());
    };
    let mut actor = actor(&ix.user);
    actor.answer = Some(target.handle());
    let place: Place = convert::place(ix.channel_id.get(), ix.channel.as_ref());
    let command = match (&id, &ix.data.kind) {
        (
            ComponentId::ChooseMove(g),
            serenity::ComponentInteractionDataKind::StringSelect { values },
        ) if !values.is_empty() => {
            let v = &values[0];
            // The choice is made: close the menu, then play the move.
            let msg = serenity::CreateInteractionResponseMessage::new()
                .content(format!("You play {}.", bot_core::quote::quote(v)))
                .components(vec![]);
            update_message(bot, &mut target, ctx, ix, msg).await?;
            Command::Move {
                game: Some(*g),
                text: v.clone(),
            }
        }
        (ComponentId::ChooseMove(_), _) => {
            target.send(outdated).await?;
            return Ok(());
        }
        (ComponentId::Resign(confirm, g), _) => {
            // Close the confirmation either way, then resign if confirmed.
            let text = if *confirm {
                format!("Resigning game {g}.")
            } else {
                format!("You keep playing game {g}.")
            };
            let msg = serenity::CreateInteractionResponseMessage::new()
                .content(text)
                .components(vec![]);
            update_message(bot, &mut target, ctx, ix, msg).await?;
            match id.command() {
                Some(c) => c,
                None => return Ok(()),
            }
        }
        _ => match id.command() {
            Some(c) => c,
            None => {
                target.send(outdated).await?;
                return Ok(());
            }
        },
    };
    let replies = in_time(bot, &mut target, bot.games.handle(&actor, &place, command)).await?;
    let answered = matches!(
        id,
        ComponentId::Challenge(..) | ComponentId::Draw(..) | ComponentId::Takeback(..)
    ) && matches!(replies.first().map(|r| &r.audience), Some(Audience::Room))
        && !target.has_responded();
    if answered {
        // The question is settled: take its buttons away (same text and board), so nobody
        // clicks a stale Accept; the answer follows as new messages.
        let msg = serenity::CreateInteractionResponseMessage::new().components(vec![]);
        update_message(bot, &mut target, ctx, ix, msg).await?;
    }
    deliver(bot, &mut target, replies).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use bot_core::{
        model::{GameId, Platform, PlayerId},
        reply::Action,
    };

    fn user(json: serde_json::Value) -> serenity::User {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn users_become_actors() {
        let u = user(serde_json::json!({
            "id": "42", "username": "alice", "discriminator": "0", "global_name": "Alice A.",
            "avatar": null,
        }));
        assert_eq!(
            actor(&u),
            Actor::new(PlayerId::new(Platform::Discord, "42"), "Alice A.")
        );
        let u = user(serde_json::json!({
            "id": "43", "username": "bob", "discriminator": "0", "global_name": null,
            "avatar": null,
        }));
        assert_eq!(actor(&u).name, "bob");
    }

    #[test]
    fn actions_become_accept_and_decline_buttons() {
        let r = Reply::room("x")
            .with_action(Action::AnswerChallenge(12))
            .with_action(Action::AnswerDraw(GameId(7)));
        let rows = serde_json::to_value(action_rows(&r)).unwrap();
        let ids: Vec<Vec<(String, String, u64)>> = rows
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                row["components"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| {
                        (
                            b["custom_id"].as_str().unwrap().to_string(),
                            b["label"].as_str().unwrap().to_string(),
                            b["style"].as_u64().unwrap(),
                        )
                    })
                    .collect()
            })
            .collect();
        assert_eq!(
            ids,
            [
                [
                    ("fb:ch:accept:12".to_string(), "Accept".to_string(), 3),
                    ("fb:ch:decline:12".to_string(), "Decline".to_string(), 4)
                ],
                [
                    ("fb:draw:accept:7".to_string(), "Accept".to_string(), 3),
                    ("fb:draw:decline:7".to_string(), "Decline".to_string(), 4)
                ]
            ]
        );
        assert!(action_rows(&Reply::room("y")).is_empty());
    }

    #[test]
    fn a_game_page_becomes_a_link_button() {
        let mut r = Reply::room("Game 7 starts.");
        r.page = Some("https://chess.example.org/game/7".into());
        let rows = serde_json::to_value(action_rows(&r)).unwrap();
        let button = &rows[0]["components"][0];
        assert_eq!(button["style"], 5, "a link button: {button}");
        assert_eq!(button["url"], "https://chess.example.org/game/7");
        assert_eq!(button["label"], "Watch or replay");
        r.page = Some("ftp://example.org/7".into());
        assert!(action_rows(&r).is_empty(), "not an address Discord takes");
    }

    #[test]
    fn closed_dm_notice_says_how_without_secrets() {
        let t = closed_dm_notice(5);
        assert!(t.starts_with("<@5>"));
        assert!(t.contains("Direct Messages"));
    }
}
