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
    reply::{Audience, Reply},
};
use poise::serenity_prelude as serenity;

use crate::{Bot, Ctx, Error, convert, convert::ComponentId};

/// Discord's error code for "Cannot send messages to this user".
pub const CANNOT_DM: isize = 50007;

/// One message to send, platform-shaped.
#[derive(Debug, Default)]
pub(crate) struct Outgoing {
    pub content: String,
    pub ephemeral: bool,
    pub png: Option<Vec<u8>>,
    pub components: Vec<serenity::CreateActionRow>,
    /// The users this message may notify (nobody else: no `@everyone`, no roles).
    pub mentions: Vec<u64>,
}

/// Where replies go: a slash command (through poise) or a component interaction.
pub(crate) enum Target<'a> {
    Command(Ctx<'a>),
    Component {
        ctx: &'a serenity::Context,
        ix: &'a serenity::ComponentInteraction,
        responded: bool,
    },
}

impl Target<'_> {
    fn http(&self) -> &serenity::Http {
        match self {
            Target::Command(c) => c.http(),
            Target::Component { ctx, .. } => &ctx.http,
        }
    }

    /// The channel the interaction came from.
    fn channel(&self) -> u64 {
        match self {
            Target::Command(c) => c.channel_id().get(),
            Target::Component { ix, .. } => ix.channel_id.get(),
        }
    }

    async fn defer(&mut self, ephemeral: bool) -> Result<(), Error> {
        match self {
            Target::Command(c) => {
                if ephemeral {
                    c.defer_ephemeral().await?;
                } else {
                    c.defer().await?;
                }
            }
            Target::Component { ctx, ix, responded } => {
                if !*responded {
                    let msg =
                        serenity::CreateInteractionResponseMessage::new().ephemeral(ephemeral);
                    ix.create_response(*ctx, serenity::CreateInteractionResponse::Defer(msg))
                        .await?;
                    *responded = true;
                }
            }
        }
        Ok(())
    }

    pub(crate) async fn send(&mut self, out: Outgoing) -> Result<(), Error> {
        let file = out
            .png
            .map(|b| serenity::CreateAttachment::bytes(b, "board.png"));
        match self {
            Target::Command(c) => {
                let mut r = poise::CreateReply::default()
                    .allowed_mentions(convert::users_allowed(out.mentions))
                    .content(out.content)
                    .ephemeral(out.ephemeral)
                    .components(out.components);
                if let Some(f) = file {
                    r = r.attachment(f);
                }
                c.send(r).await?;
            }
            Target::Component { ctx, ix, responded } => {
                if *responded {
                    let mut m = serenity::CreateInteractionResponseFollowup::new()
                        .allowed_mentions(convert::users_allowed(out.mentions))
                        .content(out.content)
                        .ephemeral(out.ephemeral)
                        .components(out.components);
                    if let Some(f) = file {
                        m = m.add_file(f);
                    }
                    ix.create_followup(*ctx, m).await?;
                } else {
                    let mut m = serenity::CreateInteractionResponseMessage::new()
                        .allowed_mentions(convert::users_allowed(out.mentions))
                        .content(out.content)
                        .ephemeral(out.ephemeral)
                        .components(out.components);
                    if let Some(f) = file {
                        m = m.add_file(f);
                    }
                    ix.create_response(*ctx, serenity::CreateInteractionResponse::Message(m))
                        .await?;
                    *responded = true;
                }
            }
        }
        Ok(())
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

/// Posts a reply as a plain message in a channel (the game's thread), board and buttons included.
pub(crate) async fn post(
    bot: &Bot,
    http: &serenity::Http,
    channel: serenity::ChannelId,
    reply: &Reply,
) -> Result<(), Error> {
    let mut msg = serenity::CreateMessage::new()
        .allowed_mentions(convert::allowed_mentions(reply))
        .content(convert::text(reply))
        .components(action_rows(reply));
    if let Some(b) = picture(bot, reply).await {
        msg = msg.add_file(serenity::CreateAttachment::bytes(b, "board.png"));
    }
    channel.send_message(http, msg).await?;
    Ok(())
}

/// Whether a serenity error is Discord refusing a DM.
pub fn is_closed_dm(e: &serenity::Error) -> bool {
    matches!(e, serenity::Error::Http(serenity::HttpError::UnsuccessfulRequest(r))
        if r.error.code == CANNOT_DM)
}

/// What the channel is told when a player's DMs are closed (nothing of the private content).
pub fn closed_dm_notice(user_id: u64) -> String {
    format!(
        "<@{user_id}>, I could not send you a private message: your direct messages are closed. \
         To receive them, open this server's menu → Privacy Settings and turn on \
         \"Direct Messages\" (or allow DMs from server members in your own Privacy & Safety \
         settings), then use /board to see it again."
    )
}

/// Sends the replies to a target, deferring first when a board has to be drawn.
pub(crate) async fn deliver(
    bot: &Bot,
    target: &mut Target<'_>,
    replies: Vec<Reply>,
) -> Result<(), Error> {
    if replies.iter().any(|r| r.board.is_some()) {
        // Drawing may take a while on big boards: acknowledge within Discord's 3 seconds.
        let first_private = !matches!(replies.first().map(|r| &r.audience), Some(Audience::Room));
        target.defer(first_private).await?;
    }
    let mut sent = false;
    for reply in &replies {
        let png = picture(bot, reply).await;
        let content = convert::text(reply);
        // A room reply for the game's room, when the command came from elsewhere (a
        // Looking-Glass order given in a DM): posted there, not as the interaction's answer.
        let elsewhere = reply
            .place
            .as_ref()
            .filter(|_| reply.audience == Audience::Room)
            .and_then(|p| p.thread.as_deref().unwrap_or(&p.room).parse::<u64>().ok())
            .filter(|c| *c != 0 && *c != target.channel());
        if let Some(channel) = elsewhere {
            let mut msg = serenity::CreateMessage::new()
                .allowed_mentions(convert::allowed_mentions(reply))
                .content(content)
                .components(action_rows(reply));
            if let Some(b) = png {
                msg = msg.add_file(serenity::CreateAttachment::bytes(b, "board.png"));
            }
            if let Err(e) = serenity::ChannelId::new(channel)
                .send_message(target.http(), msg)
                .await
            {
                tracing::warn!("message to the game's channel {channel} failed: {e}");
            }
            continue;
        }
        match &reply.audience {
            Audience::Room | Audience::Actor => {
                // Discord takes at most 2000 characters a message (serenity refuses more
                // before sending): a longer text, such as the list of variants, goes as
                // several messages, the board and the buttons with the last.
                let mut parts = convert::split_content(&content, convert::MAX_CONTENT);
                let last = parts.pop().unwrap_or_default();
                let mentions: Vec<u64> =
                    reply.mentions.iter().filter_map(convert::user_id).collect();
                for part in parts {
                    target
                        .send(Outgoing {
                            content: part,
                            ephemeral: reply.audience == Audience::Actor,
                            mentions: mentions.clone(),
                            ..Outgoing::default()
                        })
                        .await?;
                }
                target
                    .send(Outgoing {
                        content: last,
                        ephemeral: reply.audience == Audience::Actor,
                        png,
                        components: action_rows(reply),
                        mentions,
                    })
                    .await?;
                sent = true;
            }
            Audience::Private(p) => {
                let Some(uid) = convert::user_id(p) else {
                    continue;
                };
                let mut msg = serenity::CreateMessage::new()
                    .allowed_mentions(convert::allowed_mentions(reply))
                    .content(content)
                    .components(action_rows(reply));
                if let Some(b) = png {
                    msg = msg.add_file(serenity::CreateAttachment::bytes(b, "board.png"));
                }
                match serenity::UserId::new(uid)
                    .direct_message(target.http(), msg)
                    .await
                {
                    Ok(_) => {}
                    Err(e) if is_closed_dm(&e) => {
                        target
                            .send(Outgoing {
                                content: closed_dm_notice(uid),
                                mentions: vec![uid],
                                ..Outgoing::default()
                            })
                            .await?;
                        sent = true;
                    }
                    Err(e) => {
                        tracing::warn!("DM to {uid} failed: {e}");
                    }
                }
            }
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
    let Some(id) = ComponentId::decode(&ix.data.custom_id) else {
        return Ok(());
    };
    let bot = fw.user_data;
    let ctx = fw.serenity_context;
    let actor = actor(&ix.user);
    let place: Place = convert::place(ix.channel_id.get(), ix.channel.as_ref());
    let mut target = Target::Component {
        ctx,
        ix,
        responded: false,
    };
    let command = match (&id, &ix.data.kind) {
        (
            ComponentId::ChooseMove(g),
            serenity::ComponentInteractionDataKind::StringSelect { values },
        ) => {
            let Some(v) = values.first() else {
                return Ok(());
            };
            // The choice is made: close the menu, then play the move.
            let msg = serenity::CreateInteractionResponseMessage::new()
                .content(format!("You play {v}."))
                .components(vec![]);
            ix.create_response(ctx, serenity::CreateInteractionResponse::UpdateMessage(msg))
                .await?;
            if let Target::Component { responded, .. } = &mut target {
                *responded = true;
            }
            Command::Move {
                game: Some(*g),
                text: v.clone(),
            }
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
            ix.create_response(ctx, serenity::CreateInteractionResponse::UpdateMessage(msg))
                .await?;
            if let Target::Component { responded, .. } = &mut target {
                *responded = true;
            }
            match id.command() {
                Some(c) => c,
                None => return Ok(()),
            }
        }
        _ => match id.command() {
            Some(c) => c,
            None => return Ok(()),
        },
    };
    let replies = in_time(bot, &mut target, bot.games.handle(&actor, &place, command)).await?;
    let answered = matches!(
        id,
        ComponentId::Challenge(..) | ComponentId::Draw(..) | ComponentId::Takeback(..)
    ) && matches!(replies.first().map(|r| &r.audience), Some(Audience::Room))
        && !matches!(
            target,
            Target::Component {
                responded: true,
                ..
            }
        );
    if answered {
        // The question is settled: take its buttons away (same text and board), so nobody
        // clicks a stale Accept; the answer follows as new messages.
        let msg = serenity::CreateInteractionResponseMessage::new().components(vec![]);
        ix.create_response(ctx, serenity::CreateInteractionResponse::UpdateMessage(msg))
            .await?;
        if let Target::Component { responded, .. } = &mut target {
            *responded = true;
        }
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
