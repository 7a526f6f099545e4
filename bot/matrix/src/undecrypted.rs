//! Messages the bot could not decrypt.
//!
//! A room key usually arrives a moment after the message it opens (by to-device message, in
//! the same or a later sync), so an undecryptable message is first kept and tried again after
//! each sync for a few seconds; if it opens, it is handled like any message (a command is
//! answered once: the ledger sees to that). If it stays closed, its sender is told, since a
//! command that gets no answer looks like a broken bot: in a direct room every time (everything
//! there is addressed to the bot), in other rooms once per sender and room while the bot runs
//! (most of those messages were chatter, and one notice says what to fix).

use std::time::{Duration, Instant};

use bot_core::{
    Actor,
    model::{Place, Platform, PlayerId},
    reply::Reply,
};
use matrix_sdk::{
    Room,
    ruma::{
        OwnedEventId, OwnedUserId,
        events::{AnySyncMessageLikeEvent, AnySyncTimelineEvent, SyncMessageLikeEvent},
    },
};

use crate::{MatrixBot, MatrixError, bot::display_name};

/// How long a message may wait for its key before the sender is told.
pub(crate) const PATIENCE: Duration = Duration::from_secs(6);
/// How long a sync may be held open while messages wait for their keys (so they are tried
/// again soon even in a quiet room).
pub(crate) const TICK: Duration = Duration::from_secs(1);

/// An encrypted message whose key the bot did not have.
pub(crate) struct Undecrypted {
    pub(crate) room: Room,
    pub(crate) event: OwnedEventId,
    pub(crate) sender: OwnedUserId,
    pub(crate) since: Instant,
}

impl MatrixBot {
    /// Tries the waiting messages again: those that open now are handled, those that waited
    /// longer than [`PATIENCE`] are reported to their senders; the others keep waiting.
    ///
    /// # Errors
    /// When the ledger cannot be written.
    pub(crate) async fn retry_undecrypted(
        &self,
        waiting: &mut Vec<Undecrypted>,
    ) -> Result<(), MatrixError> {
        let mut still = Vec::new();
        for u in waiting.drain(..) {
            let opened = match u.room.event(&u.event, None).await {
                Ok(e) => match e.raw().deserialize() {
                    Ok(AnySyncTimelineEvent::MessageLike(
                        AnySyncMessageLikeEvent::RoomMessage(SyncMessageLikeEvent::Original(m)),
                    )) => Some(m),
                    _ => None,
                },
                Err(e) => {
                    tracing::debug!("cannot fetch {} again: {e}", u.event);
                    None
                }
            };
            if let Some(m) = opened {
                tracing::info!("{} in {} decrypted late", u.event, u.room.room_id());
                self.on_message(&u.room, &m).await?;
            } else if u.since.elapsed() >= PATIENCE {
                self.tell_undecrypted(&u).await?;
            } else {
                still.push(u);
            }
        }
        *waiting = still;
        Ok(())
    }

    async fn tell_undecrypted(&self, u: &Undecrypted) -> Result<(), MatrixError> {
        let direct = u.room.is_direct().await.unwrap_or(false);
        let first_here = self
            .told_undecrypted
            .lock()
            .map(|mut told| told.insert((u.room.room_id().to_owned(), u.sender.clone())))
            .unwrap_or(false);
        tracing::warn!(
            "{} from {} in {} could not be decrypted",
            u.event,
            u.sender,
            u.room.room_id()
        );
        if !direct && !first_here {
            return Ok(());
        }
        {
            let mut ledger = self.ledger.lock().await;
            if ledger.is_handled(u.event.as_str()) || ledger.was_begun(u.event.as_str()) {
                return Ok(());
            }
            ledger.mark(u.event.as_str()).await?;
        }
        let device = self
            .client
            .device_id()
            .map_or_else(|| "?".to_string(), |d| d.to_string());
        let text = format!(
            "I could not read your encrypted message: my device ({device}) never received its \
             key, so I cannot tell whether it was a command. Please send it again. If this \
             keeps happening, your client is not sharing keys with my device: allow sending to \
             unverified devices in this room (or verify {device}){}.",
            if direct {
                ""
            } else {
                "; I will not repeat this notice for your other messages here"
            }
        );
        let actor = Actor::new(
            PlayerId::new(Platform::Matrix, u.sender.as_str()),
            display_name(&u.room, &u.sender).await,
        );
        let place = Place::room(Platform::Matrix, u.room.room_id().as_str());
        self.deliver(&u.room, &place, &actor, &u.event, vec![Reply::actor(text)])
            .await;
        Ok(())
    }
}
