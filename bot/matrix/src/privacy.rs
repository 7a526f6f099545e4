//! Which rooms are a player's private channel with the bot.
//!
//! The `m.direct` flag says nothing about who reads a room: anyone can create a room flagged
//! direct, invite the bot and a third person, and type a secret there. So a room counts as a
//! player's private channel only by its members, read from the SDK's state store when the
//! command arrives (memberships change): the joined and invited members are exactly the bot
//! and that player. A room the bot created must also be encrypted (the bot promised its
//! player an encrypted room). An unencrypted room the player created with the bot alone
//! counts: nobody else is in it, and whether to encrypt their own room is the player's choice
//! (their homeserver can read it either way).
//!
//! Secrets the bot *sends* go only to a room that passes the stricter test of
//! [`Readers::can_carry_secrets_to`]: encrypted, and nobody but the bot and that player in it.

use matrix_sdk::{
    Room, RoomMemberships, RoomState,
    ruma::{OwnedUserId, UserId},
};

/// Who can read a room, as the bot's state store knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readers {
    /// The joined and invited members (an invited member can join and read on at any time).
    pub members: Vec<OwnedUserId>,
    /// Whether the bot created the room.
    pub bot_created: bool,
    /// Whether the room is encrypted (unknown counts as not).
    pub encrypted: bool,
}

impl Readers {
    /// Reads a room's readers from the client's state store: no request to the homeserver,
    /// unless the encryption state is needed (`for_secrets`, or a room the bot created) and
    /// was never received (an unencrypted room over `/sync` v3): then it is asked once.
    ///
    /// # Errors
    /// When the store cannot be read; callers treat the room as not private.
    pub async fn of(room: &Room, for_secrets: bool) -> Result<Readers, matrix_sdk::StoreError> {
        let members = room
            .client()
            .state_store()
            .get_user_ids(
                room.room_id(),
                RoomMemberships::JOIN | RoomMemberships::INVITE,
            )
            .await?;
        let me = room.own_user_id();
        let bot_created = room
            .creators()
            .is_some_and(|creators| creators.iter().any(|c| c == me));
        let encrypted = if for_secrets || bot_created {
            room.latest_encryption_state()
                .await
                .is_ok_and(|s| s.is_encrypted())
        } else {
            room.encryption_state().is_encrypted()
        };
        Ok(Readers {
            members,
            bot_created,
            encrypted,
        })
    }

    /// Whether `player` may type secrets here: the members are exactly `bot` and `player`,
    /// and a room the bot created is encrypted.
    pub fn is_private_channel(&self, bot: &UserId, player: &UserId) -> bool {
        bot != player
            && self.members.iter().any(|m| m == bot)
            && self.members.iter().any(|m| m == player)
            && self.members.iter().all(|m| m == bot || m == player)
            && (self.encrypted || !self.bot_created)
    }

    /// Whether the bot may send `player`'s secrets here: encrypted, and nobody but `bot` and
    /// `player` joined or invited. `player` may not be listed yet (a room just created, whose
    /// invitation has not come back by sync).
    pub fn can_carry_secrets_to(&self, bot: &UserId, player: &UserId) -> bool {
        bot != player && self.encrypted && self.members.iter().all(|m| m == bot || m == player)
    }

    /// The player this room is private to, if it is: encrypted, and its readers are exactly
    /// the bot and one player. Whoever created it, and whether it is flagged direct, does not
    /// matter (the flag reaches the bot's account by a later sync than the join, or never;
    /// in room version 12 a "trusted private chat" makes the invited bot a creator too).
    pub fn private_to(&self, bot: &UserId) -> Option<&UserId> {
        let mut others = self.members.iter().filter(|m| *m != bot);
        let player = others.next()?;
        let alone = others.next().is_none();
        (alone && self.encrypted && self.is_private_channel(bot, player)).then_some(player.as_ref())
    }
}

/// The player `room` is private to (see [`Readers::private_to`]); the bot must have joined
/// it. A store that cannot be read means none.
pub async fn private_to(room: &Room) -> Option<OwnedUserId> {
    // Cheap checks first, no store read: joined, and encrypted as last synced.
    if room.state() != RoomState::Joined || !room.encryption_state().is_encrypted() {
        return None;
    }
    match Readers::of(room, true).await {
        Ok(r) => r.private_to(room.own_user_id()).map(UserId::to_owned),
        Err(e) => {
            tracing::warn!("cannot read the members of {}: {e}", room.room_id());
            None
        }
    }
}

/// Whether `player` may type secrets in `room` (see [`Readers::is_private_channel`]). A store
/// that cannot be read means no.
pub async fn is_private_channel(room: &Room, player: &UserId) -> bool {
    if room.state() != RoomState::Joined {
        return false;
    }
    match Readers::of(room, false).await {
        Ok(r) => r.is_private_channel(room.own_user_id(), player),
        Err(e) => {
            tracing::warn!(
                "cannot read the members of {} ({e}): treating it as a shared room",
                room.room_id()
            );
            false
        }
    }
}

/// Whether the bot may send `player`'s secrets to `room` (see
/// [`Readers::can_carry_secrets_to`]); the bot must have joined it.
pub async fn can_carry_secrets_to(room: &Room, player: &UserId) -> bool {
    if room.state() != RoomState::Joined {
        return false;
    }
    match Readers::of(room, true).await {
        Ok(r) => r.can_carry_secrets_to(room.own_user_id(), player),
        Err(e) => {
            tracing::warn!(
                "cannot read the members of {} ({e}): not sending secrets there",
                room.room_id()
            );
            false
        }
    }
}

/// Whether `player` has left `room` or was banned from it, as the bot's state store knows:
/// he reads it no more, so a message sent there reaches nobody (the send itself succeeds).
/// A store that cannot be read means no (the room is judged by
/// [`can_carry_secrets_to`] as before).
pub async fn has_left(room: &Room, player: &UserId) -> bool {
    match room
        .client()
        .state_store()
        .get_user_ids(
            room.room_id(),
            RoomMemberships::LEAVE | RoomMemberships::BAN,
        )
        .await
    {
        Ok(gone) => gone.iter().any(|u| u == player),
        Err(e) => {
            tracing::warn!("cannot read the members of {}: {e}", room.room_id());
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> OwnedUserId {
        UserId::parse(s).unwrap()
    }

    /// Every room of up to four members drawn from the bot, the player and two others, with
    /// every creator and encryption: a room is private for the player exactly when nobody else
    /// is in it, and never where a third person is, whatever else holds.
    #[test]
    fn only_a_room_of_the_bot_and_the_player_alone_is_private() {
        let (bot, player) = (id("@bot:hs"), id("@alice:hs"));
        let people = [
            bot.clone(),
            player.clone(),
            id("@carol:hs"),
            id("@alice:other"),
        ];
        for mask in 0u32..16 {
            let members: Vec<OwnedUserId> = (0..4)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| people[i].clone())
                .collect();
            for bot_created in [false, true] {
                for encrypted in [false, true] {
                    let r = Readers {
                        members: members.clone(),
                        bot_created,
                        encrypted,
                    };
                    let third = mask & 0b1100 != 0;
                    let both = mask & 0b11 == 0b11;
                    assert_eq!(
                        r.is_private_channel(&bot, &player),
                        both && !third && (encrypted || !bot_created),
                        "{r:?}"
                    );
                    assert_eq!(
                        r.can_carry_secrets_to(&bot, &player),
                        !third && encrypted,
                        "{r:?}"
                    );
                    // A room private to someone is one his secrets may go to, and only his.
                    let owner = r.private_to(&bot);
                    if let Some(p) = owner {
                        assert!(
                            r.is_private_channel(&bot, p) && r.can_carry_secrets_to(&bot, p),
                            "{r:?} private to {p}"
                        );
                    }
                    if both && !third && encrypted {
                        assert_eq!(owner, Some(player.as_ref()), "{r:?}");
                    }
                    if (third && both) || mask & 0b01 == 0 {
                        assert_eq!(owner, None, "{r:?}");
                    }
                    // Nobody else is ever the player of this room's secrets.
                    for other in &people[2..] {
                        if mask & 0b01 != 0 && members.contains(&player) {
                            assert!(
                                !r.is_private_channel(&bot, other)
                                    && !r.can_carry_secrets_to(&bot, other),
                                "{r:?} private to {other}"
                            );
                        }
                    }
                }
            }
        }
        // The bot is nobody's private channel with itself.
        let alone = Readers {
            members: vec![bot.clone()],
            bot_created: true,
            encrypted: true,
        };
        assert!(!alone.is_private_channel(&bot, &bot));
        assert!(!alone.can_carry_secrets_to(&bot, &bot));
    }
}
