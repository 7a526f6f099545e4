//! Private messages a platform could not deliver (the player's direct messages are closed,
//! the platform kept failing): held in the store for their player and shown to him, to him
//! alone, when he next uses a command. Held durably, so a restart between the failed
//! delivery and his next command loses nothing he was owed.

use std::collections::HashMap;

use super::*;
use crate::{model::HeldMessage, reply::Audience};

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// Holds a private reply its adapter could not deliver. Its words and its game are kept;
    /// a board it carried is drawn anew when it is shown ([`GameService::take_undelivered`]).
    /// [`StoreError::Invalid`] for a reply that is not private (those are never held: the
    /// room can always be told again). Returns whether it is the first held for its player
    /// from its game since he last read them (see [`GameStore::hold_message`]).
    pub async fn hold_undelivered(&self, reply: &Reply) -> Result<bool, StoreError> {
        let Audience::Private(to) = &reply.audience else {
            return Err(StoreError::Invalid(
                "only a private reply is held for its player".into(),
            ));
        };
        self.store
            .hold_message(HeldMessage {
                to: to.clone(),
                game: reply.game(),
                text: reply.text.clone(),
                mentions: reply.mentions.clone(),
                with_board: reply.board.is_some(),
                at: self.clock.now_secs(),
            })
            .await
    }

    /// The private replies held for a player, oldest first, now his to read (taken from the
    /// store: each is shown once). A game's board comes once, with its last message, as it
    /// is now and as he may see it (his own world in Through the Looking-Glass). A store
    /// failure is logged and shows nothing: the messages stay held for the next command.
    pub async fn take_undelivered(&self, player: &PlayerId) -> Vec<Reply> {
        let held = match self.store.take_held(player).await {
            Ok(held) => held,
            Err(e) => {
                tracing::error!(%player, "held messages could not be read: {e}");
                return Vec::new();
            }
        };
        let last_with_board: HashMap<GameId, usize> = held
            .iter()
            .enumerate()
            .filter(|(_, m)| m.with_board)
            .filter_map(|(i, m)| Some((m.game?, i)))
            .collect();
        let mut replies = Vec::with_capacity(held.len());
        for (i, m) in held.into_iter().enumerate() {
            let mut reply = Reply::private(player.clone(), m.text);
            reply.mentions = m.mentions;
            reply.about = m.game;
            if let Some(game) = m.game
                && last_with_board.get(&game) == Some(&i)
                && let Some(board) = self.board_now(player, game).await
            {
                reply = reply.with_board(board);
            }
            replies.push(reply);
        }
        self.name_players(&mut replies).await;
        replies
    }

    /// The board of a game as the player may see it now (his own world in Looking-Glass).
    async fn board_now(&self, player: &PlayerId, game: GameId) -> Option<BoardPicture> {
        // Only the id decides what a board shows; no name is shown on it.
        let actor = &Actor::new(player.clone(), String::new());
        match self.load(game).await {
            Ok(Loaded::Board(g)) => {
                let seat = g.record.seat_of(&actor.id);
                self.board_reply(&g, "", seat).board
            }
            Ok(Loaded::Glass(g)) => self
                .glass_board(actor, &g)
                .ok()?
                .into_iter()
                .find_map(|r| r.board),
            Err(e) => {
                tracing::warn!(%game, "no board for a held message: {e:?}");
                None
            }
        }
    }
}
