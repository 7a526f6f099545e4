//! `replay [#GAME]`: the game so far as an animated picture, posted like a board picture
//! (the reply carries a [`ReplayPicture`]; the adapter draws it within its platform's upload
//! limit, see [`crate::picture::Painter::replay_gif`]).

use super::*;
use crate::{reply::ReplayPicture, watch};

/// The most positions one replay draws: a longer game is replayed from this many moves
/// before its end (its export has every move). At a second a frame, ten minutes of replay,
/// and a few seconds of drawing.
pub const MAX_REPLAY_PLIES: usize = 600;

impl<S: GameStore, C: Clock> GameService<S, C> {
    pub(super) async fn replay(
        &self,
        actor: &Actor,
        place: &Place,
        game: Option<GameId>,
    ) -> Outcomes {
        let loaded = self.pick_game(actor, place, game, false).await?;
        let record = loaded.record();
        if watch::is_hidden(record) {
            return user(format!(
                "Game {} is a hidden-information game: its replay is shown to everybody when it ends. Type `replay #{}` then.",
                record.id, record.id.0
            ));
        }
        let n = record.moves.len();
        if n == 0 {
            return user(format!(
                "Game {} has no moves yet: nothing to replay. `board` shows its start.",
                record.id
            ));
        }
        let from_ply = n.saturating_sub(MAX_REPLAY_PLIES);
        let moves = if n == 1 { "move" } else { "moves" };
        let text = if from_ply == 0 {
            format!("Game {}: a replay of its {n} {moves}.", record.id)
        } else {
            format!(
                "Game {}: a replay of its last {MAX_REPLAY_PLIES} moves, of {n} (`export` lists them all).",
                record.id
            )
        };
        let players = self.seat_names(record).await;
        let mut reply = Reply::room(text);
        reply.animation = Some(ReplayPicture {
            game: record.id,
            variant: record.variant.clone(),
            start_state: record.start_state.clone(),
            moves: record.moves.clone(),
            from_ply,
            players,
        });
        Ok(vec![reply])
    }
}
