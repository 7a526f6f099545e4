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
    outbox::{Announcement, Attempt},
    reply::{Audience, BoardPicture, Reply},
};
use matrix_sdk::{
    Room,
    ruma::{
        EventId, OwnedEventId, RoomId, UInt, UserId,
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
};

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
    /// one after the other (in the order the core posted them).
    pub async fn deliver_announcements(&self) {
        bot_core::outbox::run_sender(&*self.games, Platform::Matrix, |entry| async move {
            self.announce(entry.announcement()).await;
            Attempt::Delivered
        })
        .await;
    }

    /// Delivers one announcement: room replies to the announcement's room (or the room the
    /// reply names), in its thread if the game has one, answering no event; private replies
    /// in the player's direct room, as for a command. A room the bot is not in (it left, or
    /// the place is not a Matrix room) loses the public part, which is logged: the game
    /// itself is stored, and `board` shows it.
    pub(crate) async fn announce(&self, a: Announcement) {
        for reply in a.replies {
            let result = match &reply.audience {
                Audience::Room | Audience::Actor => {
                    let place = reply.place.as_ref().unwrap_or(&a.place);
                    match self.room_of(place) {
                        Some((room, anchor)) => self.post(&room, &anchor, &reply, None).await,
                        None => {
                            tracing::warn!(
                                "an announcement for {} was not delivered: not a room I am in",
                                place.room
                            );
                            Ok(())
                        }
                    }
                }
                Audience::Private(player) => match self.send_private(player, &reply).await {
                    Ok(()) => Ok(()),
                    Err(e) => {
                        tracing::warn!("private message to {} failed: {e}", player.user);
                        self.hold(&reply).await;
                        match self.room_of(&a.place) {
                            Some((room, anchor)) => {
                                self.post(&room, &anchor, &self.missed_notice(player), None)
                                    .await
                            }
                            None => Ok(()),
                        }
                    }
                },
            };
            if let Err(e) = result {
                tracing::warn!("an announcement in {} failed: {e}", a.place.room);
            }
        }
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

    /// Delivers every reply of a command. Failures are logged; a private reply that cannot
    /// be delivered is reported in the command's room without its content.
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
        for reply in replies {
            let result = match &reply.audience {
                Audience::Room => match self.game_room(room, &reply) {
                    // The public part of an order given elsewhere (a Looking-Glass player
                    // orders in his direct room): posted in the game's room, unanchored.
                    Some((game_room, game_anchor)) => {
                        self.post(&game_room, &game_anchor, &reply, None).await
                    }
                    None => self.post(room, &anchor, &reply, None).await,
                },
                Audience::Actor => self.post(room, &anchor, &reply, Some(&actor.id)).await,
                Audience::Private(player) => {
                    if let Err(e) = self.send_private(player, &reply).await {
                        tracing::warn!("private message to {} failed: {e}", player.user);
                        self.hold(&reply).await;
                        self.post(room, &anchor, &self.missed_notice(player), None)
                            .await
                    } else {
                        Ok(())
                    }
                }
            };
            if let Err(e) = result {
                tracing::warn!("reply in {} failed: {e}", room.room_id());
            }
        }
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
    /// `notify` adds someone to the mentions without naming them in the text.
    async fn post(
        &self,
        room: &Room,
        anchor: &Anchor,
        reply: &Reply,
        notify: Option<&PlayerId>,
    ) -> Result<(), SendError> {
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
        let drawing = std::time::Instant::now();
        let picture = match &reply.board {
            Some(b) => match self.draw(b).await {
                Ok(picture) => Some((b.game, picture)),
                Err(e) => {
                    tracing::warn!("{e}");
                    None
                }
            },
            None => None,
        };
        let drawn = drawing.elapsed();
        let Some((game, picture)) = picture else {
            return send_text(room, anchor, &message).await;
        };
        let sending = std::time::Instant::now();
        self.send_image(room, anchor, &message, picture).await?;
        tracing::debug!(
            "board of game {game}: drawn in {:.1} ms, uploaded and sent in {:.1} ms",
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
            send_text(room, anchor, &hint).await?;
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
    ) -> Result<(), SendError> {
        let Picture {
            png,
            caption,
            filename,
        } = picture;
        let (width, height) = format::png_size(&png).unwrap_or((0, 0));
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
            let uploaded = self
                .client
                .media()
                .upload(&mime::IMAGE_PNG, png, None)
                .await?;
            MediaSource::Plain(uploaded.content_uri)
        };
        let mut info = ImageInfo::new();
        info.width = Some(UInt::from(width));
        info.height = Some(UInt::from(height));
        info.size = UInt::new(size);
        info.mimetype = Some(mime::IMAGE_PNG.to_string());
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
        room.send(content).await?;
        Ok(())
    }
}

/// A board drawn for a message.
pub(crate) struct Picture {
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
            let view = bot_core::picture::board_view(&board, &painter.catalog)
                .map_err(|e| format!("board picture of game {} failed: {e}", board.game))?;
            let png = painter
                .renderer
                .png(&view, &painter.theme, painter.size)
                .map_err(|e| format!("board picture of game {} failed: {e}", board.game))?;
            Ok(Picture {
                png,
                caption: caption(board.game.0, &view),
                filename: match view.move_number {
                    Some(n) => format!("fairybot-game-{}-move-{n}.png", board.game),
                    None => format!("fairybot-game-{}.png", board.game),
                },
            })
        })
        .await
        .map_err(|e| format!("board picture task failed: {e}"))?
    }
}

/// A board's caption: the game, the variant, and who is to move.
pub(crate) fn caption(game: i64, view: &render::BoardView) -> String {
    let mut caption = format!("Game {game}");
    if let Some(title) = &view.title {
        caption.push_str(": ");
        caption.push_str(title);
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

async fn send_text(room: &Room, anchor: &Anchor, message: &Message) -> Result<(), SendError> {
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
    room.send_raw("m.room.message", value).await?;
    Ok(())
}
