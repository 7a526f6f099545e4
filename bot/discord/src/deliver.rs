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
    outbox::Announcement,
    reply::{Audience, Reply},
};
use poise::serenity_prelude as serenity;

pub(crate) use crate::send::Outgoing;
use crate::{
    Bot, Ctx, Error, convert,
    convert::ComponentId,
    errors::new_reference,
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
}

impl<'a> Target<'a> {
    /// A slash command's answers.
    pub(crate) fn command(ctx: Ctx<'a>) -> Target<'a> {
        Target {
            via: Via::Command(ctx),
            retry: ctx.data().retry,
            public_pending: false,
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
        }
    }

    /// Marks the interaction answered (its message updated by the caller).
    pub(crate) fn responded(&mut self) {
        if let Via::Component { responded, .. } = &mut self.via {
            *responded = true;
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

    pub(crate) async fn defer(&mut self, ephemeral: bool) -> Result<(), SendError> {
        if self.has_responded() {
            return Ok(());
        }
        let policy = self.retry;
        match &mut self.via {
            Via::Command(c) => {
                let c = *c;
                send::retrying(policy, "deferring", || async move {
                    if ephemeral {
                        c.defer_ephemeral().await
                    } else {
                        c.defer().await
                    }
                })
                .await?;
            }
            Via::Component { ctx, ix, responded } => {
                let (ctx, ix) = (*ctx, *ix);
                send::retrying(policy, "deferring", || {
                    let msg =
                        serenity::CreateInteractionResponseMessage::new().ephemeral(ephemeral);
                    ix.create_response(ctx, serenity::CreateInteractionResponse::Defer(msg))
                })
                .await?;
                *responded = true;
            }
        }
        self.public_pending = !ephemeral;
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
        self.public_pending = false;
        let policy = self.retry;
        for part in out.parts() {
            let mentions = || convert::users_allowed(out.mentions.clone());
            let file = || {
                part.png
                    .clone()
                    .map(|b| serenity::CreateAttachment::bytes(b, "board.png"))
            };
            match &mut self.via {
                Via::Command(c) => {
                    let c = *c;
                    send::retrying(policy, "an answer", || {
                        let mut r = poise::CreateReply::default()
                            .allowed_mentions(mentions())
                            .content(part.content.clone())
                            .ephemeral(out.ephemeral)
                            .components(part.components.clone());
                        for e in &part.embeds {
                            r = r.embed(e.clone());
                        }
                        if let Some(f) = file() {
                            r = r.attachment(f);
                        }
                        async move { c.send(r).await.map(|_| ()) }
                    })
                    .await?;
                }
                Via::Component { ctx, ix, responded } => {
                    let (ctx, ix) = (*ctx, *ix);
                    if *responded {
                        send::retrying(policy, "a followup", || {
                            let mut m = serenity::CreateInteractionResponseFollowup::new()
                                .allowed_mentions(mentions())
                                .content(part.content.clone())
                                .ephemeral(out.ephemeral)
                                .components(part.components.clone())
                                .embeds(part.embeds.clone());
                            if let Some(f) = file() {
                                m = m.add_file(f);
                            }
                            async move { ix.create_followup(ctx, m).await.map(|_| ()) }
                        })
                        .await?;
                    } else {
                        send::retrying(policy, "an answer", || {
                            let mut m = serenity::CreateInteractionResponseMessage::new()
                                .allowed_mentions(mentions())
                                .content(part.content.clone())
                                .ephemeral(out.ephemeral)
                                .components(part.components.clone())
                                .embeds(part.embeds.clone());
                            if let Some(f) = file() {
                                m = m.add_file(f);
                            }
                            ix.create_response(ctx, serenity::CreateInteractionResponse::Message(m))
                        })
                        .await?;
                        *responded = true;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Holds a private reply Discord would not deliver, in the game service's store, for its
/// player to be shown at his next command (to him alone); durable, so a restart loses
/// nothing. If even the store fails the reply is lost: logged with a reference, and the
/// player still has `/board`, which draws what he may see from the game.
async fn hold(bot: &Bot, reply: &Reply) {
    if let Err(e) = bot.games.hold_undelivered(reply).await {
        tracing::error!(
            reference = new_reference(),
            "a private message could not be held for its player: {e}"
        );
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
            target.defer(false).await?;
            Ok(work.await)
        }
    }
}

/// Accept/Decline buttons for a reply's actions.
pub(crate) fn action_rows(reply: &Reply) -> Vec<serenity::CreateActionRow> {
    reply
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
        .collect()
}

async fn picture(bot: &Bot, reply: &Reply) -> Option<Vec<u8>> {
    let painter = bot_core::picture::Painter {
        catalog: bot.catalog.clone(),
        renderer: bot.renderer.clone(),
        theme: bot.theme.clone(),
        size: bot.board_size,
    };
    painter
        .png(reply.board.as_ref()?)
        .await
        .map_err(|e| tracing::warn!("{e}"))
        .ok()
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
pub(crate) async fn post(
    bot: &Bot,
    http: &serenity::Http,
    channel: serenity::ChannelId,
    reply: &Reply,
) -> Result<(), Error> {
    let out = outgoing(bot, reply, false).await;
    send::post_message(http, bot.retry, channel, &out, None).await?;
    Ok(())
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

/// Sends the replies to a target, deferring first when a board has to be drawn.
///
/// Nothing is lost quietly: an answer Discord keeps refusing with a server error goes to the
/// channel as a plain message (a public one) or by DM (one for the actor alone); a private
/// message that cannot be delivered is kept for its player and his game's channel is told,
/// mentioning him, without the private content, never in the acting player's DM; the actor's
/// own private message is shown to him alone right here instead.
pub(crate) async fn deliver(
    bot: &Bot,
    target: &mut Target<'_>,
    replies: Vec<Reply>,
) -> Result<(), Error> {
    if replies.iter().any(|r| r.board.is_some()) {
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
    for reply in &replies {
        if let Some(channel) = elsewhere(reply, here) {
            let out = outgoing(bot, reply, false).await;
            let posted = send::post_message(
                target.http(),
                bot.retry,
                serenity::ChannelId::new(channel),
                &out,
                None,
            )
            .await;
            if let Err(e) = posted {
                let r = new_reference();
                tracing::error!(
                    reference = r,
                    "message to the game's channel {channel} failed: {e}"
                );
                target
                    .send(Outgoing {
                        content: format!(
                            "Done, but I could not tell <#{channel}>: Discord refused the \
                             message. Use /board there to see the game. (Reference {r}.)"
                        ),
                        ephemeral: true,
                        ..Outgoing::default()
                    })
                    .await?;
                sent = true;
            }
            continue;
        }
        match &reply.audience {
            Audience::Room | Audience::Actor => {
                let ephemeral = reply.audience == Audience::Actor;
                let out = outgoing(bot, reply, ephemeral).await;
                match target.send(out.clone()).await {
                    Ok(()) => sent = true,
                    Err(e @ SendError::GaveUp { .. }) => {
                        // The interaction's route keeps failing: try the plain way.
                        let r = new_reference();
                        tracing::warn!(
                            reference = r,
                            "an answer failed ({e}); sending it otherwise"
                        );
                        let other = if ephemeral {
                            send::direct_message(target.http(), bot.retry, actor, &out).await
                        } else {
                            send::post_message(
                                target.http(),
                                bot.retry,
                                serenity::ChannelId::new(here),
                                &out,
                                in_dm.then_some(actor),
                            )
                            .await
                        };
                        if let Err(e2) = other {
                            tracing::error!(reference = r, "the answer is lost: {e2}");
                            return Err(e.into());
                        }
                        // Answered otherwise: a "Done." would meet the same failure.
                        sent = true;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Audience::Private(p) => {
                let Some(uid) = convert::user_id(p) else {
                    continue;
                };
                let out = outgoing(bot, reply, false).await;
                let Err(e) = send::direct_message(target.http(), bot.retry, uid, &out).await else {
                    continue;
                };
                let closed = matches!(e, SendError::ClosedDm { .. });
                let r = new_reference();
                if closed {
                    tracing::info!(reference = r, user = uid, "a private message: DMs closed");
                } else {
                    tracing::error!(reference = r, user = uid, "a private message failed: {e}");
                }
                if uid == actor {
                    // He is right here: show it to him alone.
                    let note = if closed {
                        "(Your direct messages are closed, so here it is, visible to you only.)"
                    } else {
                        "(Discord would not deliver it by DM, so here it is, visible to you only.)"
                    };
                    target
                        .send_private(Outgoing {
                            content: format!("{}\n{note}", out.content),
                            mentions: Vec::new(),
                            ..out
                        })
                        .await?;
                    sent = true;
                    continue;
                }
                hold(bot, reply).await;
                let notice = missed_notice(uid, closed);
                match game_channel {
                    Some(c) if c == here => {
                        target.send(notice).await?;
                        sent = true;
                    }
                    Some(c) => {
                        if let Err(e) = send::post_message(
                            target.http(),
                            bot.retry,
                            serenity::ChannelId::new(c),
                            &notice,
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

/// Delivers one announcement (no interaction to answer): room replies posted in the channel
/// (or thread) the reply or the announcement names; a private reply by DM, and when the DM
/// fails it is kept for its player (shown at his next command, to him alone) and the game's
/// channel is told, without the private content, exactly as for a command's replies.
pub(crate) async fn announce(bot: &Bot, http: &serenity::Http, a: Announcement) {
    let channel_of = |p: &Place| {
        p.thread
            .as_deref()
            .unwrap_or(&p.room)
            .parse::<u64>()
            .ok()
            .filter(|c| *c != 0)
    };
    let game_channel = channel_of(&a.place);
    for reply in &a.replies {
        match &reply.audience {
            Audience::Room | Audience::Actor => {
                let channel = reply.place.as_ref().and_then(channel_of).or(game_channel);
                let Some(c) = channel else {
                    tracing::warn!("an announcement has no Discord channel: {}", a.place.room);
                    continue;
                };
                if let Err(e) = post(bot, http, serenity::ChannelId::new(c), reply).await {
                    tracing::error!(
                        reference = new_reference(),
                        "an announcement in {c} failed: {e}"
                    );
                }
            }
            Audience::Private(p) => {
                let Some(uid) = convert::user_id(p) else {
                    continue;
                };
                let out = outgoing(bot, reply, false).await;
                let Err(e) = send::direct_message(http, bot.retry, uid, &out).await else {
                    continue;
                };
                let closed = matches!(e, SendError::ClosedDm { .. });
                tracing::info!(user = uid, "a private announcement was not delivered: {e}");
                hold(bot, reply).await;
                let notice = missed_notice(uid, closed);
                if let Some(c) = game_channel
                    && let Err(e) = send::post_message(
                        http,
                        bot.retry,
                        serenity::ChannelId::new(c),
                        &notice,
                        None,
                    )
                    .await
                {
                    tracing::error!("could not tell {uid} in {c}: {e}");
                }
            }
        }
    }
}

/// The actor of an interaction.
pub(crate) fn actor(user: &serenity::User) -> Actor {
    Actor {
        id: convert::player(user.id.get()),
        name: user
            .global_name
            .clone()
            .unwrap_or_else(|| user.name.clone()),
    }
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
    let actor = actor(&ix.user);
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
            Actor {
                id: PlayerId::new(Platform::Discord, "42"),
                name: "Alice A.".into()
            }
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
    fn closed_dm_notice_says_how_without_secrets() {
        let t = closed_dm_notice(5);
        assert!(t.starts_with("<@5>"));
        assert!(t.contains("Direct Messages"));
    }
}
