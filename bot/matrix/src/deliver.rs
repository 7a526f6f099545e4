//! Sending the core's replies: to the room as replies to the command (in its thread, if it
//! was in one), boards as `m.image` with size and dimensions and the text as caption, and
//! private replies in the player's encrypted direct room. Announcements (what the core says
//! without a command: the bot's moves) go the same way, unanchored, to their game's room.
//! A private reply that cannot be delivered is held in the store for its player (the core
//! then takes him for unreachable: no reminders) and offered again after his next command.

use std::collections::HashMap;

use bot_core::{
    Actor,
    model::{Place, Platform, PlayerId},
    outbox::{Announcement, Attempt, Key},
    reply::{Audience, BoardPicture, Reply},
};
use matrix_sdk::{
    Room,
    config::RequestConfig,
    room::MessagesOptions,
    ruma::{
        EventId, OwnedEventId, OwnedTransactionId, RoomId, TransactionId, UInt, UserId,
        api::error::ErrorKind,
        events::{
            Mentions,
            relation::{InReplyTo, Thread},
            room::{
                ImageInfo, MediaSource,
                message::{
                    FormattedBody, ImageMessageEventContent, MessageType, Relation,
                    RoomMessageEventContent,
                },
            },
        },
    },
};

use crate::{
    bot::{MatrixBot, display_name},
    format::{self, Message, REACTIONS_KEY},
    privacy::{can_carry_secrets_to, has_left},
    sent::EditOf,
};

/// How long an edit waits for the message it replaces when that one is not on its way (its
/// send may be about to start), and at most while it is (an upload, a rate limit).
const EDIT_GRACE: std::time::Duration = std::time::Duration::from_secs(2);
const EDIT_BOUND: std::time::Duration = std::time::Duration::from_secs(60);

/// Why a message could not be sent.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SendError {
    #[error(transparent)]
    Sdk(#[from] matrix_sdk::Error),
    #[error("the message does not serialise: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0} is not a Matrix user")]
    NotMatrix(String),
    #[error("{0} has no account on its homeserver")]
    NoSuchUser(String),
    #[error("{0} left his direct room with me (or was banned from it)")]
    LeftDirectRoom(String),
    #[error("the message it edits ({0}) is still to be sent")]
    OriginalWaiting(Key),
}

impl SendError {
    /// How an attempt that ended with this error is reported to the outbox: a rate limit
    /// waits what the homeserver asked for (never less than the back-off), a server error
    /// or a request that did not get through (time-out, connection) is tried again later, and
    /// only what can never be delivered (the room is gone or refuses the bot, the player does
    /// not exist, the content does not serialise) gives up.
    pub(crate) fn attempt(&self, attempts: u32) -> Attempt {
        let later = |wait: std::time::Duration| Attempt::Later { wait, handle: None };
        let backoff = bot_core::outbox::backoff(attempts);
        match self {
            SendError::Sdk(e) => match e.as_client_api_error() {
                Some(api) => {
                    if let Some(ErrorKind::LimitExceeded(data)) = api.error_kind() {
                        let asked = match data.retry_after {
                            Some(matrix_sdk::ruma::api::error::RetryAfter::Delay(d)) => d,
                            Some(matrix_sdk::ruma::api::error::RetryAfter::DateTime(t)) => t
                                .duration_since(std::time::SystemTime::now())
                                .unwrap_or_default(),
                            None => backoff,
                        };
                        return later(asked.max(backoff));
                    }
                    let status = api.status_code.as_u16();
                    if status == 429 || status >= 500 || status == 408 {
                        later(backoff)
                    } else {
                        Attempt::Failed(format!("refused by the homeserver: {e}"))
                    }
                }
                // Not an answer of the homeserver: the network, a time-out, the local store.
                None => later(backoff),
            },
            SendError::Json(_) | SendError::NotMatrix(_) | SendError::NoSuchUser(_) => {
                Attempt::Failed(self.to_string())
            }
            // Held for him by the caller; should it reach here, try again later.
            SendError::LeftDirectRoom(_) => later(backoff),
            // After the original's next attempt, which waits its own back-off.
            SendError::OriginalWaiting(_) => later(backoff),
        }
    }
}

/// The Matrix transaction id of a message the outbox sends: its key (with `suffix` for a
/// second message of the same reply, such as the reactions hint after an image), so a send
/// repeated after a crash is recognised by the homeserver and shown once. A reply without a
/// key (the store could not take it) gets a fresh one.
fn transaction_id(key: Option<&Key>, suffix: &str) -> OwnedTransactionId {
    match key {
        Some(k) => OwnedTransactionId::from(format!("{k}{suffix}")),
        None => TransactionId::new(),
    }
}

/// How every send is made: a few quick retries inside the SDK, then the error comes back to
/// the outbox, which decides when to try again (the SDK's default retries for ever, which
/// would hold up the sender behind one failing room).
fn send_config() -> RequestConfig {
    RequestConfig::new().retry_limit(3)
}

/// Where a message goes in its room.
#[derive(Debug, Clone, Default)]
pub(crate) struct Anchor {
    /// The event it answers.
    reply_to: Option<OwnedEventId>,
    /// The thread it belongs to.
    thread: Option<OwnedEventId>,
}

impl Anchor {
    fn relation(
        &self,
    ) -> Option<
        Relation<matrix_sdk::ruma::events::room::message::RoomMessageEventContentWithoutRelation>,
    > {
        match (&self.thread, &self.reply_to) {
            (Some(root), Some(to)) => {
                Some(Relation::Thread(Thread::reply(root.clone(), to.clone())))
            }
            (Some(root), None) => Some(Relation::Thread(Thread::without_fallback(root.clone()))),
            (None, Some(to)) => Some(Relation::Reply(
                matrix_sdk::ruma::events::relation::Reply::new(InReplyTo::new(to.clone())),
            )),
            (None, None) => None,
        }
    }
}

impl MatrixBot {
    /// Matrix's outbox sender, until stopped: each due entry with [`MatrixBot::announce`],
    /// one after the other (in the order the core posted them), each attempt reported as it
    /// ended.
    pub async fn deliver_announcements(&self) {
        bot_core::outbox::run_sender(&*self.games, Platform::Matrix, |entry| async move {
            let attempts = entry.attempts;
            self.announce(entry.announcement(), attempts).await
        })
        .await;
    }

    /// Delivers one announcement (an outbox entry: one reply) and says how the attempt
    /// ended: room replies to the announcement's room (or the room the reply names), in its
    /// thread if the game has one, answering no event; private replies in the player's direct
    /// room, as for a command. Each message is sent under its entry's key as transaction id.
    /// A room the bot is not in (it left, or the place is not a Matrix room) can never be
    /// delivered to: [`Attempt::Failed`], which is logged; the game itself is stored, and
    /// `board` shows it.
    pub(crate) async fn announce(&self, a: Announcement, attempts: u32) -> Attempt {
        // Every message is sent under its entry's key as transaction id, which the
        // homeserver recognises when it comes again.
        let mut outcome = Attempt::DeliveredUnderKey;
        for reply in a.replies {
            let attempt = match &reply.audience {
                Audience::Room | Audience::Actor => {
                    let place = reply.place.as_ref().unwrap_or(&a.place);
                    match self.room_of(place) {
                        Some((room, anchor)) => match self.post(&room, &anchor, &reply, None).await
                        {
                            Ok(()) => Attempt::DeliveredUnderKey,
                            Err(e) => {
                                tracing::warn!("an announcement in {} failed: {e}", place.room);
                                e.attempt(attempts)
                            }
                        },
                        None => Attempt::Failed(format!("{} is not a room I am in", place.room)),
                    }
                }
                Audience::Private(player) => {
                    let game_room = self
                        .room_of(reply.place.as_ref().unwrap_or(&a.place))
                        .filter(|_| !a.place.private);
                    self.deliver_private(player, &reply, game_room, attempts)
                        .await
                }
            };
            // One reply per entry; should there be more, the worst attempt is reported (a
            // reply held for its player counts as delivered once, not under a key).
            if !attempt.is_delivered() && outcome.is_delivered()
                || attempt == Attempt::Delivered && outcome == Attempt::DeliveredUnderKey
            {
                outcome = attempt;
            }
        }
        outcome
    }

    /// A Matrix place's room, if the bot is in it, with its thread.
    fn room_of(&self, place: &Place) -> Option<(Room, Anchor)> {
        if place.platform != Platform::Matrix {
            return None;
        }
        let room = RoomId::parse(&place.room)
            .ok()
            .and_then(|id| self.client.get_room(&id))?;
        let anchor = Anchor {
            reply_to: None,
            thread: place.thread.as_deref().and_then(|t| EventId::parse(t).ok()),
        };
        Some((room, anchor))
    }

    /// Delivers every reply of a command and reports each keyed one to the outbox, exactly
    /// once: delivered once the homeserver took it, to be tried again by the sender after a
    /// failure that may pass, given up when it never can be delivered. A private reply that
    /// cannot be delivered is held for its player (that is its delivery) and his game's room
    /// is told, once, without its content.
    pub(crate) async fn deliver(
        &self,
        room: &Room,
        place: &Place,
        actor: &Actor,
        reply_to: &EventId,
        replies: Vec<Reply>,
    ) {
        let anchor = Anchor {
            reply_to: Some(reply_to.to_owned()),
            thread: place.thread.as_deref().and_then(|t| EventId::parse(t).ok()),
        };
        // The game's room, for the notice that a private message could not be delivered:
        // the room a public reply names (an order given in a private room), else the
        // command's room unless it is private (someone's direct room: never tell him there
        // that another player is cut off).
        let named = replies
            .iter()
            .filter(|r| r.audience == Audience::Room)
            .find_map(|r| self.game_room(room, r));
        let game_room = named.or_else(|| {
            // In the command's room the notice answers the command, as before.
            (!place.private).then(|| (room.clone(), anchor.clone()))
        });
        for reply in replies {
            let attempt = match &reply.audience {
                Audience::Room => {
                    let result = match self.game_room(room, &reply) {
                        // The public part of an order given elsewhere (a Looking-Glass player
                        // orders in his direct room): posted in the game's room, unanchored.
                        Some((game_room, game_anchor)) => {
                            self.post(&game_room, &game_anchor, &reply, None).await
                        }
                        None => self.post(room, &anchor, &reply, None).await,
                    };
                    self.attempt_of(room, result)
                }
                Audience::Actor => {
                    let result = self.post(room, &anchor, &reply, Some(&actor.id)).await;
                    self.attempt_of(room, result)
                }
                Audience::Private(player) => {
                    self.deliver_private(player, &reply, game_room.clone(), 0)
                        .await
                }
            };
            if let Some(key) = &reply.key {
                self.games.settle_mail(key, attempt).await;
            }
        }
    }

    /// How a command's reply went, logged when it failed.
    fn attempt_of(&self, room: &Room, result: Result<(), SendError>) -> Attempt {
        match result {
            // Sent under the reply's key as transaction id.
            Ok(()) => Attempt::DeliveredUnderKey,
            Err(e) => {
                tracing::warn!("reply in {} failed: {e}", room.room_id());
                e.attempt(0)
            }
        }
    }

    /// Sends a private reply to its player's direct room. When that cannot be done (he left
    /// it, he has none and cannot be invited) the reply is held for him, which is its
    /// delivery: he gets it in his direct room or after his next command. His game's room
    /// (`game_room`; never someone's private room) is then told so, mentioning him, once per
    /// game until he has read what was held. A failure that may pass (the homeserver is
    /// down) is tried again later instead.
    async fn deliver_private(
        &self,
        player: &PlayerId,
        reply: &Reply,
        game_room: Option<(Room, Anchor)>,
        attempts: u32,
    ) -> Attempt {
        let e = match self.send_private(player, reply).await {
            Ok(()) => return Attempt::DeliveredUnderKey,
            Err(e) => e,
        };
        tracing::warn!("private message to {} failed: {e}", player.user);
        if let attempt @ Attempt::Later { .. } = e.attempt(attempts)
            && !matches!(e, SendError::LeftDirectRoom(_))
        {
            return attempt;
        }
        let first = match self.games.hold_undelivered(reply).await {
            Ok(first) => first,
            Err(e) => {
                tracing::error!("a private message could not be held for its player: {e}");
                return Attempt::Later {
                    wait: bot_core::outbox::backoff(attempts),
                    handle: None,
                };
            }
        };
        let Some((room, anchor)) = game_room else {
            return Attempt::Delivered;
        };
        // Once per game until he reads what is held: the store says whether this is the
        // first held for him from this game, whichever process held the others.
        if first {
            let mut notice = self.missed_notice(player);
            notice.key = reply.key.clone();
            if let Err(e) = self.post_as(&room, &anchor, &notice, None, ".held").await {
                tracing::warn!(
                    "the notice to {} in {} failed: {e}",
                    player.user,
                    room.room_id()
                );
            }
        }
        Attempt::Delivered
    }

    /// What the room is told, mentioning the player, when a private message to him failed:
    /// not what it said, only how to get it.
    fn missed_notice(&self, player: &PlayerId) -> Reply {
        Reply::room(format!(
            "{{0}}, I could not send you a private message. Accept my invitation to a direct \
             chat, or start an encrypted one with me ({}): what I kept for you comes there \
             (or type any command, `board`, to get it).",
            self.me
        ))
        .mention(player.clone())
    }

    /// Holds a private reply that could not be delivered, in the game service's store, for
    /// its player: a room he opens with the bot, or his next command, offers it to him again
    /// (see [`MatrixBot::deliver_kept`]), and until then the core takes him for unreachable
    /// (no reminders go out to him, as they would only fail in turn). Durable, so a restart
    /// loses nothing. If even the store fails the reply is lost, which is logged: `board`
    /// still shows him his games.
    async fn hold(&self, reply: &Reply) {
        if let Err(e) = self.games.hold_undelivered(reply).await {
            tracing::error!("a private message could not be held for its player: {e}");
        }
    }

    /// After a player's command, or once he opens a room with the bot, what was held for him
    /// (private messages that could not be delivered): sent to his direct room now, oldest
    /// first. Matrix has no message only one member of a room sees, so they go privately or
    /// not at all: one that fails again is held again (he is still unreachable, and is still
    /// skipped by the reminders), for his next command. A read, no write, when nothing is
    /// held.
    pub(crate) async fn deliver_kept(&self, actor: &Actor) {
        let kept = self.games.take_undelivered(&actor.id).await;
        if kept.is_empty() {
            return;
        }
        let mut unreachable = false;
        for reply in kept {
            if !unreachable {
                let mut shown = reply.clone();
                shown.text = format!(
                    "Kept for you (I could not send it privately before):\n{}",
                    reply.text
                );
                match self.send_private(&actor.id, &shown).await {
                    Ok(()) => continue,
                    Err(e) => {
                        tracing::warn!("kept messages for {} failed again: {e}", actor.id.user);
                        unreachable = true;
                    }
                }
            }
            // Held again as it was, in its order; the rest are not tried (they would fail).
            self.hold(&reply).await;
        }
        if !unreachable {}
    }

    /// The game's room for a room reply that names one other than the command's room, with
    /// its thread. `None`: answer in the command's room (also when the named room is not one
    /// the bot is in, which is logged: the text is public, so the command's room may see it).
    fn game_room(&self, here: &Room, reply: &Reply) -> Option<(Room, Anchor)> {
        let place = reply.place.as_ref()?;
        if place.platform != Platform::Matrix || place.room == here.room_id().as_str() {
            return None;
        }
        let found = RoomId::parse(&place.room)
            .ok()
            .and_then(|id| self.client.get_room(&id));
        let Some(room) = found else {
            tracing::warn!("the game's room {} is not a room I am in", place.room);
            return None;
        };
        let anchor = Anchor {
            reply_to: None,
            thread: place.thread.as_deref().and_then(|t| EventId::parse(t).ok()),
        };
        Some((room, anchor))
    }

    /// Sends a reply to the player's direct room (found, or created encrypted).
    async fn send_private(&self, player: &PlayerId, reply: &Reply) -> Result<(), SendError> {
        if player.platform != Platform::Matrix {
            return Err(SendError::NotMatrix(player.to_string()));
        }
        let user =
            UserId::parse(&player.user).map_err(|_| SendError::NotMatrix(player.user.clone()))?;
        let room = self.direct_room(&user).await?;
        self.post(&room, &Anchor::default(), reply, None).await
    }

    /// The player's encrypted direct room: the one used before, one marked direct with them,
    /// one they opened with the bot alone, or a new one (encrypted; they are invited). Each
    /// is checked when used: encrypted, and nobody but the bot and the player joined or
    /// invited (a room the player has since shared with someone else is left alone, and a new
    /// one made).
    ///
    /// A room the player left (or declined, or was banned from) reaches nobody, though a
    /// message sent there "succeeds": it is not used. When he has left every direct room he
    /// had with the bot and has no other, [`SendError::LeftDirectRoom`]: he is not invited
    /// anew (he chose to leave, and every private message would be another invitation); the
    /// message is held for him and he is told how to get it (start a direct chat himself).
    async fn direct_room(&self, user: &UserId) -> Result<Room, SendError> {
        // This player's lock only: creating one player's room (several requests to the
        // homeserver) does not hold up another player's private reply.
        let mut known = self.direct.lock(&user.to_owned()).await;
        let mut left = false;
        if let Some(id) = known.as_ref()
            && let Some(room) = self.client.get_room(id)
        {
            if has_left(&room, user).await {
                tracing::info!("{user} left {}", room.room_id());
                left = true;
            } else if can_carry_secrets_to(&room, user).await {
                return Ok(room);
            } else {
                tracing::info!(
                    "{} is no longer private to {user}: making a new direct room",
                    room.room_id()
                );
            }
            *known = None;
        }
        for room in self.client.get_dm_rooms(user) {
            if has_left(&room, user).await {
                left = true;
            } else if can_carry_secrets_to(&room, user).await {
                *known = Some(room.room_id().to_owned());
                return Ok(room);
            }
        }
        // A room private to him (he opened it with the bot alone), flagged direct or not: the
        // flag reaches the bot's account data by a later sync than the join (or never), and a
        // command can come in between. Only encrypted rooms are read from the store, and only
        // on this path: a player not yet known, or one with nothing but rooms he left.
        for room in self.client.joined_rooms() {
            if crate::privacy::private_to(&room).await.as_deref() == Some(user) {
                tracing::info!(
                    "{} is private to {user}: his direct room now",
                    room.room_id()
                );
                *known = Some(room.room_id().to_owned());
                return Ok(room);
            }
        }
        if left {
            return Err(SendError::LeftDirectRoom(user.to_string()));
        }
        // Servers let anyone invite an id that does not exist (and encrypting for nobody
        // "works"), so check the account exists before creating the room: a 404 (Synapse says
        // M_UNKNOWN "No row found", others M_NOT_FOUND). A server that hides profiles (403)
        // is trusted.
        if let Err(e) = self.client.account().fetch_user_profile_of(user).await
            && e.as_client_api_error()
                .is_some_and(|c| c.status_code.as_u16() == 404)
        {
            return Err(SendError::NoSuchUser(user.to_string()));
        }
        let room = self.client.create_dm(user).await?;
        tracing::info!("created the direct room {} for {user}", room.room_id());
        *known = Some(room.room_id().to_owned());
        Ok(room)
    }

    /// Posts one reply: a board as an image with the text as caption, otherwise a notice.
    /// `notify` adds someone to the mentions without naming them in the text. Sent under the
    /// reply's key as transaction id (see [`transaction_id`]).
    async fn post(
        &self,
        room: &Room,
        anchor: &Anchor,
        reply: &Reply,
        notify: Option<&PlayerId>,
    ) -> Result<(), SendError> {
        self.post_as(room, anchor, reply, notify, "").await
    }

    /// [`MatrixBot::post`], the transaction ids made from the reply's key and `suffix` (a
    /// message said because of an entry, besides the entry itself).
    async fn post_as(
        &self,
        room: &Room,
        anchor: &Anchor,
        reply: &Reply,
        notify: Option<&PlayerId>,
        suffix: &str,
    ) -> Result<(), SendError> {
        let key = reply.key.as_ref();
        let mut names = HashMap::new();
        for p in &reply.mentions {
            if let Ok(u) = UserId::parse(&p.user) {
                names.insert(p.clone(), display_name(room, &u).await);
            }
        }
        let mut message = format::message(reply, &self.invocation.prefix, &names);
        if let Some(p) = notify
            && !message.mentions.contains(&p.user)
        {
            message.mentions.push(p.user.clone());
        }
        // A text that replaces an earlier message of this run: an edit of it. The original
        // may still be on its way (a short analysis ends while its first line is being sent):
        // it is waited for while it is. One whose send failed waits in the outbox for its next
        // attempt: this waits too, so that it edits it rather than show a second message. An
        // original neither sent in this run nor waiting is not known here: this is sent anew.
        if let (Some(replaced), None, None, "") =
            (&reply.replaces, &reply.board, &reply.graph, suffix)
        {
            let edit = self
                .sent_events
                .edit_of(&*self.games, replaced, EDIT_GRACE, EDIT_BOUND);
            match edit.await {
                EditOf::Edit(original) => {
                    send_edit(room, &message, &original, transaction_id(key, suffix)).await?;
                    return Ok(());
                }
                EditOf::Wait => return Err(SendError::OriginalWaiting(replaced.clone())),
                EditOf::New => {
                    // Sent before a restart: the homeserver tells the device that sent it
                    // which event its transaction id became.
                    let txn = transaction_id(Some(replaced), "");
                    if let Some(original) = sent_under(room, &txn).await {
                        send_edit(room, &message, &original, transaction_id(key, suffix)).await?;
                        return Ok(());
                    }
                }
            }
        }
        // Known as on its way, for an edit of it that comes meanwhile.
        let _sending = key
            .filter(|_| suffix.is_empty())
            .map(|k| self.sent_events.sending(k));
        let drawing = std::time::Instant::now();
        let picture = match (&reply.board, &reply.graph, &reply.animation) {
            (Some(b), _, _) => match self.draw(b).await {
                Ok(picture) => Some((
                    b.game
                        .map_or_else(|| b.variant.clone(), |g| format!("game {g}")),
                    picture,
                )),
                Err(e) => {
                    tracing::warn!("{e}");
                    None
                }
            },
            (None, Some(g), _) => match self.draw_graph(g).await {
                Ok(picture) => Some((format!("game {}", g.game), picture)),
                Err(e) => {
                    tracing::warn!("{e}");
                    None
                }
            },
            (None, None, Some(a)) => match self.draw_replay(a).await {
                Ok(picture) => Some((format!("game {}", a.game), picture)),
                Err(e) => {
                    tracing::warn!("{e}");
                    None
                }
            },
            (None, None, None) => None,
        };
        let drawn = drawing.elapsed();
        let Some((about, picture)) = picture else {
            let event = send_text(room, anchor, &message, transaction_id(key, suffix)).await?;
            self.remember_sent(key, suffix, event);
            return Ok(());
        };
        let sending = std::time::Instant::now();
        let event = self
            .send_image(room, anchor, &message, picture, transaction_id(key, suffix))
            .await?;
        self.remember_sent(key, suffix, event);
        tracing::debug!(
            "picture of {about}: drawn in {:.1} ms, uploaded and sent in {:.1} ms",
            drawn.as_secs_f64() * 1e3,
            sending.elapsed().as_secs_f64() * 1e3
        );
        if !message.reactions.is_empty() {
            // An image cannot carry the reactions: ask the question in a notice after it.
            let hint = Message {
                plain: format!(
                    "React {} to accept or {} to decline.",
                    format::YES,
                    format::NO
                ),
                html: format!(
                    "React {} to accept or {} to decline.",
                    format::YES,
                    format::NO
                ),
                mentions: Vec::new(),
                reactions: message.reactions,
            };
            let txn = transaction_id(key, &format!("{suffix}.ask"));
            send_text(room, anchor, &hint, txn).await?;
        }
        Ok(())
    }
}

fn mentions(message: &Message) -> Mentions {
    Mentions::with_user_ids(
        message
            .mentions
            .iter()
            .filter_map(|u| UserId::parse(u.as_str()).ok()),
    )
}

/// Sends a notice with its relation, mentions and (as an extra content key) its reactions.
impl MatrixBot {
    /// Uploads a PNG (encrypted in an encrypted room) and sends it as an `m.image` with its
    /// size and dimensions, the message as caption, and the anchor's relation. Built here
    /// rather than with `Room::send_attachment`, whose reply option fetches the replied-to
    /// event from the server first: a round trip on every board, for what the anchor knows.
    async fn send_image(
        &self,
        room: &Room,
        anchor: &Anchor,
        message: &Message,
        picture: Picture,
        txn: OwnedTransactionId,
    ) -> Result<OwnedEventId, SendError> {
        let Picture {
            png,
            caption,
            filename,
        } = picture;
        // A board is a PNG; a replay (`replay`) a GIF, whose screen size is at bytes 6..10.
        let gif = png.starts_with(b"GIF8") && png.len() >= 10;
        let (width, height) = if gif {
            (
                u32::from(u16::from_le_bytes([png[6], png[7]])),
                u32::from(u16::from_le_bytes([png[8], png[9]])),
            )
        } else {
            format::png_size(&png).unwrap_or((0, 0))
        };
        let mimetype = if gif {
            mime::IMAGE_GIF
        } else {
            mime::IMAGE_PNG
        };
        let size = png.len() as u64;
        // Unknown encryption state: encrypt (an encrypted file is readable in any room).
        let encrypted = room
            .latest_encryption_state()
            .await
            .map_or(true, |s| s.is_encrypted());
        let source = if encrypted {
            let file = self
                .client
                .upload_encrypted_file(&mut std::io::Cursor::new(png))
                .await?;
            MediaSource::Encrypted(Box::new(file))
        } else {
            let uploaded = self.client.media().upload(&mimetype, png, None).await?;
            MediaSource::Plain(uploaded.content_uri)
        };
        let mut info = ImageInfo::new();
        info.width = Some(UInt::from(width));
        info.height = Some(UInt::from(height));
        info.size = UInt::new(size);
        info.mimetype = Some(mimetype.to_string());
        // The body is the caption clients show under the image (a body equal to the file
        // name would show the file name): the reply's text, or the picture's own caption.
        let mut image = if message.plain.trim().is_empty() {
            ImageMessageEventContent::new(caption, source)
        } else {
            let mut image = ImageMessageEventContent::new(message.plain.clone(), source);
            image.formatted = Some(FormattedBody::html(message.html.clone()));
            image
        };
        image.filename = Some(filename);
        image.info = Some(Box::new(info));
        let mut content = RoomMessageEventContent::new(MessageType::Image(image));
        content.mentions = Some(mentions(message));
        content.relates_to = anchor.relation();
        // Only the send carries the transaction id: an upload repeated after a crash is one
        // more file nobody links to.
        let sent = room
            .send(content)
            .with_transaction_id(txn)
            .with_request_config(send_config())
            .await?;
        Ok(sent.response.event_id)
    }

    /// Remembers the event an entry was sent as (its main message, not the extra ones sent
    /// with a suffix).
    fn remember_sent(
        &self,
        key: Option<&bot_core::outbox::Key>,
        suffix: &str,
        event: OwnedEventId,
    ) {
        if let (Some(key), "") = (key, suffix) {
            self.sent_events.sent(key, event);
        }
    }

    /// Draws an analysis's evaluation graph on tokio's blocking threads, with a text
    /// alternative as caption.
    async fn draw_graph(&self, graph: &bot_core::reply::GraphPicture) -> Result<Picture, String> {
        let painter = self.pictures.clone();
        let graph = graph.clone();
        let caption = render::graph_alt_text(&bot_core::picture::eval_graph(&graph));
        let png = painter
            .graph_png(&graph)
            .await
            .map_err(|e| format!("graph of game {} failed: {e}", graph.game))?;
        Ok(Picture {
            png,
            caption,
            filename: format!("fairybot-game-{}-analysis.png", graph.game),
        })
    }
}

/// How many of a room's events are read at a time to find the one sent under a transaction
/// id before a restart, and how many pages back at most: an analysis's progress line is
/// edited within minutes of being sent, but a busy room may have said a lot meanwhile.
const SENT_PAGE: u32 = 100;
const SENT_PAGES: u32 = 10;

/// The event this device sent under `txn` in `room`, among its latest
/// [`SENT_PAGES`] × [`SENT_PAGE`] events, read a page at a time from the newest until it is
/// found. The homeserver puts `unsigned.transaction_id` on an event only for the device
/// that sent it (the bot's own session survives a restart), and the SDK keeps that part when
/// it decrypts an event of an encrypted room. Not found (older, or sent by a device since
/// replaced) or a failed read (logged): the caller sends anew.
async fn sent_under(room: &Room, txn: &TransactionId) -> Option<OwnedEventId> {
    let mut from: Option<String> = None;
    for _ in 0..SENT_PAGES {
        let mut options = MessagesOptions::backward();
        if let Some(token) = &from {
            options = options.from(token.as_str());
        }
        options.limit = UInt::from(SENT_PAGE);
        let page = match room.messages(options).await {
            Ok(page) => page,
            Err(e) => {
                tracing::info!(
                    "cannot look for an earlier message in {}: {e}",
                    room.room_id()
                );
                return None;
            }
        };
        let found = page.chunk.iter().find_map(|e| {
            let raw = e.raw();
            let unsigned: serde_json::Value = raw.get_field("unsigned").ok().flatten()?;
            (unsigned["transaction_id"].as_str() == Some(txn.as_str()))
                .then(|| raw.get_field::<OwnedEventId>("event_id").ok().flatten())
                .flatten()
        });
        if found.is_some() {
            return found;
        }
        // The room's beginning, or nothing more to read.
        match page.end {
            Some(end) if !page.chunk.is_empty() => from = Some(end),
            _ => return None,
        }
    }
    None
}

/// Sends `message` as an `m.replace` edit of `original` (the Matrix way to change a message
/// in place: clients show the new content where the old was, marked as edited).
async fn send_edit(
    room: &Room,
    message: &Message,
    original: &EventId,
    txn: OwnedTransactionId,
) -> Result<(), SendError> {
    let new_content = serde_json::json!({
        "msgtype": "m.notice",
        "body": message.plain,
        "format": "org.matrix.custom.html",
        "formatted_body": message.html,
    });
    let value = serde_json::json!({
        "msgtype": "m.notice",
        "body": format!("* {}", message.plain),
        "format": "org.matrix.custom.html",
        "formatted_body": format!("* {}", message.html),
        "m.new_content": new_content,
        "m.relates_to": { "rel_type": "m.replace", "event_id": original.as_str() },
    });
    room.send_raw("m.room.message", value)
        .with_transaction_id(&txn)
        .with_request_config(send_config())
        .await?;
    Ok(())
}

/// A board drawn for a message.
pub(crate) struct Picture {
    /// The picture: a PNG board, or a GIF replay.
    pub png: Vec<u8>,
    /// What it shows, in words: "Game 10: Toulousain Chess, White (alice) to move".
    pub caption: String,
    /// A file name for saving it: `fairybot-game-10-move-12.png`.
    pub filename: String,
}

impl MatrixBot {
    /// Draws a reply's board on tokio's blocking threads (a big board takes milliseconds of
    /// CPU, which must not stall the sync loop), with its caption and file name.
    async fn draw(&self, board: &BoardPicture) -> Result<Picture, String> {
        let (painter, board) = (self.pictures.clone(), board.clone());
        tokio::task::spawn_blocking(move || {
            let what = board
                .game
                .map_or_else(|| board.variant.clone(), |g| format!("game {g}"));
            let view = bot_core::picture::board_view(&board, &painter.catalog)
                .map_err(|e| format!("board picture of {what} failed: {e}"))?;
            let png = painter
                .renderer
                .png(&view, &painter.theme, painter.size)
                .map_err(|e| format!("board picture of {what} failed: {e}"))?;
            Ok(Picture {
                png,
                caption: caption(board.game.map(|g| g.0), &view),
                filename: match (board.game, view.move_number) {
                    (Some(g), Some(n)) => format!("fairybot-game-{g}-move-{n}.png"),
                    (Some(g), None) => format!("fairybot-game-{g}.png"),
                    (None, _) if board.diagram.is_some() => "fairybot-piece.png".into(),
                    (None, _) => "fairybot-variant.png".into(),
                },
            })
        })
        .await
        .map_err(|e| format!("board picture task failed: {e}"))?
    }
}

/// The most a replay may weigh: under Synapse's default upload limit (50 MB) and small
/// enough for phones on slow networks; a longer game is drawn smaller or with fewer frames.
const REPLAY_LIMIT: usize = 8 << 20;

impl MatrixBot {
    /// Draws a reply's replay as an animated GIF, with its caption and file name.
    async fn draw_replay(
        &self,
        replay: &bot_core::reply::ReplayPicture,
    ) -> Result<Picture, String> {
        let anim = self
            .pictures
            .replay_gif(replay, REPLAY_LIMIT)
            .await
            .map_err(|e| format!("replay of game {} failed: {e}", replay.game))?;
        Ok(Picture {
            png: anim.bytes,
            caption: format!("Game {}: replay", replay.game),
            filename: format!("fairybot-game-{}-replay.gif", replay.game),
        })
    }
}

/// A board's caption: the game, the variant, and who is to move; a variant's own picture
/// (no game) is captioned by its title alone.
pub(crate) fn caption(game: Option<i64>, view: &render::BoardView) -> String {
    let mut caption = game.map(|g| format!("Game {g}")).unwrap_or_default();
    if let Some(title) = &view.title {
        if !caption.is_empty() {
            caption.push_str(": ");
        }
        caption.push_str(title);
    }
    if caption.is_empty() {
        caption.push_str("Board");
    }
    if let Some(army) = view.side_to_move {
        let side = format!("{army:?}");
        let player = view
            .players
            .iter()
            .find(|p| p.army == army)
            .and_then(|p| p.name.as_deref())
            .filter(|n| *n != side)
            // A display name is the user's text: one line, not too long.
            .map(|n| {
                n.chars()
                    .map(|c| if c.is_control() { ' ' } else { c })
                    .take(64)
                    .collect::<String>()
            });
        caption.push_str(&match player {
            Some(name) => format!(", {side} ({name}) to move"),
            None => format!(", {side} to move"),
        });
    }
    caption
}

async fn send_text(
    room: &Room,
    anchor: &Anchor,
    message: &Message,
    txn: OwnedTransactionId,
) -> Result<OwnedEventId, SendError> {
    let mut content = RoomMessageEventContent::notice_html(&message.plain, &message.html);
    content.mentions = Some(mentions(message));
    content.relates_to = anchor.relation();
    let mut value = serde_json::to_value(&content)?;
    if !message.reactions.is_empty()
        && let Some(object) = value.as_object_mut()
    {
        let map: serde_json::Map<String, serde_json::Value> = message
            .reactions
            .iter()
            .map(|(k, c)| (k.clone(), serde_json::Value::String(c.clone())))
            .collect();
        object.insert(REACTIONS_KEY.into(), serde_json::Value::Object(map));
    }
    let sent = room
        .send_raw("m.room.message", value)
        .with_transaction_id(&txn)
        .with_request_config(send_config())
        .await?;
    Ok(sent.response.event_id)
}
