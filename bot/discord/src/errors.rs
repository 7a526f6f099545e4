//! The framework's error handler: every failure the player could see becomes a short
//! ephemeral reply saying what to do instead, and the detail goes to the log under a reference
//! that the reply quotes. Raw library errors ("500: Internal Server Error", "[Serenity] Could
//! not decode json...") never reach a channel.

use std::{
    hash::{BuildHasher, Hasher},
    sync::{
        OnceLock,
        atomic::{AtomicU64, Ordering},
    },
};

use poise::{FrameworkError, serenity_prelude as serenity};

use crate::{
    Bot, Error,
    deliver::{Outgoing, Target},
    send::{self, Retry},
};

/// A reference for one error, unique for the life of the process and unlikely to repeat
/// across restarts: a random tag drawn once per process, then a counter (`3f9a06c2-17`).
/// Two errors in the same second get different references.
pub fn new_reference() -> String {
    static TAG: OnceLock<u32> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let tag = TAG.get_or_init(|| {
        // std's hash keys are drawn from the OS's entropy once per process.
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(u64::from(std::process::id()));
        h.finish() as u32
    });
    format!("{tag:08x}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// What went wrong, as far as the player is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Problem {
    /// The bot failed while handling the command (Discord or the bot itself).
    Failed,
    /// An option could not be read.
    BadOption,
    /// The command's options are not the registered ones, or the command is unknown: the
    /// player's Discord shows an outdated version.
    Outdated,
    /// The command needs a subcommand.
    SubcommandRequired,
    /// Used too soon again.
    Cooldown(u64),
    /// The bot lacks permissions in this channel.
    BotPermissions(String),
    /// The player lacks permissions.
    UserPermissions,
    /// Not allowed here (owner only, server only, DM only, a check).
    NotHere(&'static str),
}

/// The reply for a problem: what happened in a few words, what to do, and the reference.
pub(crate) fn advice(problem: &Problem, command: &str, reference: &str) -> String {
    let what = match problem {
        Problem::Failed => format!(
            "Something went wrong while answering /{command}. Use /board to see where your game \
             stands, then try again."
        ),
        Problem::BadOption => format!(
            "I could not read the options of /{command}. Pick the values Discord offers as you \
             type, then send the command again."
        ),
        Problem::Outdated => format!(
            "/{command} has changed since your Discord loaded it. Reload Discord (Ctrl+R, or \
             restart the app) and try again."
        ),
        Problem::SubcommandRequired => {
            format!("/{command} needs one of its subcommands: pick one from the list.")
        }
        Problem::Cooldown(secs) => format!("Wait {secs} s before using /{command} again."),
        Problem::BotPermissions(p) => format!(
            "I lack the permission {p} in this channel. Ask a server admin to grant it, or use \
             /{command} in another channel."
        ),
        Problem::UserPermissions => {
            format!("You do not have the permissions /{command} needs here.")
        }
        Problem::NotHere(where_) => format!("/{command} {where_}."),
    };
    format!("{what} (Reference {reference}.)")
}

/// poise's `on_error`: replaces the default handler, which shows raw error text.
pub(crate) async fn on_error(error: FrameworkError<'_, Bot, Error>) {
    let reference = new_reference();
    let r = reference.as_str();
    let serenity_ctx = error.serenity_context();
    let (ctx, problem) = match error {
        FrameworkError::Command { error, ctx, .. } => {
            tracing::error!(
                reference = r,
                command = %ctx.command().qualified_name,
                user = ctx.author().id.get(),
                "the command failed: {error}"
            );
            (ctx, Problem::Failed)
        }
        FrameworkError::CommandPanic { payload, ctx, .. } => {
            tracing::error!(
                reference = r,
                command = %ctx.command().qualified_name,
                "the command panicked: {}",
                payload.as_deref().unwrap_or("(no message)")
            );
            (ctx, Problem::Failed)
        }
        FrameworkError::ArgumentParse {
            error, input, ctx, ..
        } => {
            tracing::info!(
                reference = r,
                command = %ctx.command().qualified_name,
                "an option did not read ({} chars): {error}",
                input.as_deref().map_or(0, |i| i.chars().count())
            );
            (ctx, Problem::BadOption)
        }
        FrameworkError::CommandStructureMismatch {
            description, ctx, ..
        } => {
            tracing::warn!(
                reference = r,
                command = %ctx.command().qualified_name,
                "the options do not match the registered command ({description}): the user's \
                 Discord has an outdated schema"
            );
            (poise::Context::Application(ctx), Problem::Outdated)
        }
        FrameworkError::SubcommandRequired { ctx } => (ctx, Problem::SubcommandRequired),
        FrameworkError::CooldownHit {
            remaining_cooldown,
            ctx,
            ..
        } => (ctx, Problem::Cooldown(remaining_cooldown.as_secs().max(1))),
        FrameworkError::MissingBotPermissions {
            missing_permissions,
            ctx,
            ..
        } => {
            tracing::warn!(
                reference = r,
                channel = ctx.channel_id().get(),
                "missing permissions: {missing_permissions}"
            );
            (
                ctx,
                Problem::BotPermissions(missing_permissions.to_string()),
            )
        }
        FrameworkError::MissingUserPermissions { ctx, .. } => (ctx, Problem::UserPermissions),
        FrameworkError::PermissionFetchFailed { ctx, .. } => {
            tracing::warn!(reference = r, "could not fetch the permissions to check");
            (ctx, Problem::Failed)
        }
        FrameworkError::NotAnOwner { ctx, .. } => {
            (ctx, Problem::NotHere("is for the bot's owner only"))
        }
        FrameworkError::GuildOnly { ctx, .. } => {
            (ctx, Problem::NotHere("works in a server channel only"))
        }
        FrameworkError::DmOnly { ctx, .. } => (ctx, Problem::NotHere("works in a DM only")),
        FrameworkError::NsfwOnly { ctx, .. } => (
            ctx,
            Problem::NotHere("works in an age-restricted channel only"),
        ),
        FrameworkError::CommandCheckFailed { error, ctx, .. } => {
            if let Some(e) = error {
                tracing::warn!(reference = r, "a command check failed: {e}");
            }
            (ctx, Problem::NotHere("cannot be used here"))
        }
        FrameworkError::UnknownInteraction { interaction, .. } => {
            // A command Discord still offers but the bot no longer has (an old registration).
            tracing::warn!(
                reference = r,
                command = %interaction.data.name,
                "an unknown command: the registration is outdated"
            );
            let text = advice(&Problem::Outdated, &interaction.data.name, r);
            let msg = serenity::CreateInteractionResponseMessage::new()
                .content(text)
                .ephemeral(true);
            let answered = send::retrying(Retry::default(), "answering", || {
                interaction.create_response(
                    serenity_ctx,
                    serenity::CreateInteractionResponse::Message(msg.clone()),
                )
            })
            .await;
            if let Err(e) = answered {
                tracing::warn!(reference = r, "could not answer the unknown command: {e}");
            }
            return;
        }
        FrameworkError::EventHandler { error, event, .. } => {
            // The buttons and select menus: answer the click.
            tracing::error!(reference = r, "handling an event failed: {error}");
            if let serenity::FullEvent::InteractionCreate {
                interaction: serenity::Interaction::Component(ix),
            } = event
            {
                let text = format!(
                    "Something went wrong while answering that. Use /board to see where your \
                     game stands, then try again. (Reference {r}.)"
                );
                answer_component(serenity_ctx, ix, text, r).await;
            }
            return;
        }
        FrameworkError::Setup { error, .. } => {
            tracing::error!(reference = r, "setting up on Discord failed: {error}");
            return;
        }
        other => {
            // Prefix commands (not used by this bot) and future variants: log only.
            tracing::warn!(reference = r, "framework error: {other}");
            return;
        }
    };
    let text = advice(&problem, &ctx.command().qualified_name, r);
    let reply = Outgoing {
        content: text,
        ephemeral: true,
        ..Outgoing::default()
    };
    if let Err(e) = Target::command(ctx).send(reply).await {
        tracing::warn!(
            reference = r,
            "could not tell the user about the error: {e}"
        );
    }
}

/// Tells the player who clicked, privately: as the interaction's response if it has none
/// yet, as a followup otherwise.
async fn answer_component(
    ctx: &serenity::Context,
    ix: &serenity::ComponentInteraction,
    text: String,
    reference: &str,
) {
    let msg = serenity::CreateInteractionResponseMessage::new()
        .content(text.clone())
        .ephemeral(true);
    let answered = send::retrying(Retry::default(), "answering", || {
        ix.create_response(
            ctx,
            serenity::CreateInteractionResponse::Message(msg.clone()),
        )
    })
    .await;
    if answered.is_ok() {
        return;
    }
    let followup = serenity::CreateInteractionResponseFollowup::new()
        .content(text)
        .ephemeral(true);
    let followed = send::retrying(Retry::default(), "a followup", || {
        ix.create_followup(ctx, followup.clone())
    })
    .await;
    if let Err(e) = followed {
        tracing::warn!(reference, "could not tell the user about the error: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_unique_even_within_one_second() {
        let refs: std::collections::HashSet<String> = (0..1000).map(|_| new_reference()).collect();
        assert_eq!(refs.len(), 1000);
        let r = new_reference();
        let (tag, n) = r.split_once('-').unwrap();
        assert_eq!(tag.len(), 8, "{r}");
        assert!(n.parse::<u64>().is_ok(), "{r}");
    }

    #[test]
    fn every_advice_says_what_to_do_and_quotes_the_reference() {
        for p in [
            Problem::Failed,
            Problem::BadOption,
            Problem::Outdated,
            Problem::SubcommandRequired,
            Problem::Cooldown(3),
            Problem::BotPermissions("Attach Files".into()),
            Problem::UserPermissions,
            Problem::NotHere("works in a server channel only"),
        ] {
            let text = advice(&p, "move", "0badcafe-7");
            assert!(text.contains("/move"), "{text}");
            assert!(text.ends_with("(Reference 0badcafe-7.)"), "{text}");
            assert!(text.chars().count() < 300, "{text}");
        }
    }
}
