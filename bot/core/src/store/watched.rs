//! A store that says when a game changed: [`Watched`] wraps any [`GameStore`] and, after each
//! write of a game that succeeded (a move, a status change, a takeback, a new game), sends a
//! [`GameChange`] on an in-process broadcast ([`GameChanges`]).
//!
//! Why a wrapper rather than a call in every command: every path that writes a game (moves,
//! offers, clocks, the scheduler, the bot's own turns, challenges accepted) goes through the
//! store, so a wrapper cannot miss one, and the service needs no change. The notice is sent
//! after the write has returned `Ok`, that is after it is durable and before the command's
//! replies are sent, so a web page that reacts to it shows the move no later than the chat
//! does. It is a hint, not the truth: listeners read the game back from the store (a lagging
//! receiver, or another process sharing a PostgreSQL database, is caught up by reading).

use tokio::sync::broadcast;

use super::{ChallengeFilter, GameFilter, GameStore, Result};
use crate::{
    model::{
        ChallengeId, ChallengeRecord, ChallengeResolution, GameId, GameRecord, GameUpdate,
        HeldMessage, NewChallenge, NewGame, Platform, PlayerId, PlayerRecord, RatingChange,
        RatingRecord,
    },
    outbox::{Backlog, Claim, Entry, Envelope, Key, Mail, Settled},
};

/// One game written: its id and the version the write left it at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameChange {
    /// The game.
    pub game: GameId,
    /// Its version after the write (0 for a new game).
    pub version: i64,
}

/// The in-process broadcast of [`GameChange`]s. Cheap to clone; every clone sends on and
/// subscribes to the same channel. Sending with nobody listening costs nothing.
#[derive(Debug, Clone)]
pub struct GameChanges {
    tx: broadcast::Sender<GameChange>,
}

impl Default for GameChanges {
    fn default() -> Self {
        GameChanges::new()
    }
}

impl GameChanges {
    /// A new channel. Its buffer holds 1024 changes: a listener further behind is told it
    /// lagged ([`broadcast::error::RecvError::Lagged`]) and should re-read what it watches.
    pub fn new() -> GameChanges {
        GameChanges {
            tx: broadcast::channel(1024).0,
        }
    }

    /// A new listener, receiving the changes sent from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<GameChange> {
        self.tx.subscribe()
    }

    /// Says that `game` is now at `version`.
    pub fn send(&self, game: GameId, version: i64) {
        // No receiver is not an error: nobody is watching.
        let _ = self.tx.send(GameChange { game, version });
    }
}

/// A [`GameStore`] that reports its games' writes on a [`GameChanges`]; every other call
/// passes straight through.
#[derive(Debug, Clone)]
pub struct Watched<S> {
    inner: S,
    changes: GameChanges,
}

impl<S> Watched<S> {
    /// Wraps `inner`, reporting on `changes`.
    pub fn new(inner: S, changes: GameChanges) -> Self {
        Watched { inner, changes }
    }

    /// The wrapped store.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The channel the writes are reported on.
    pub fn changes(&self) -> &GameChanges {
        &self.changes
    }

    fn report<T>(&self, game: GameId, r: Result<T>, version: impl Fn(&T) -> i64) -> Result<T> {
        if let Ok(v) = &r {
            self.changes.send(game, version(v));
        }
        r
    }
}

impl<S: GameStore> GameStore for Watched<S> {
    async fn create_challenge(&self, new: NewChallenge) -> Result<ChallengeRecord> {
        self.inner.create_challenge(new).await
    }

    async fn get_challenge(&self, id: ChallengeId) -> Result<ChallengeRecord> {
        self.inner.get_challenge(id).await
    }

    async fn list_challenges(&self, filter: &ChallengeFilter) -> Result<Vec<ChallengeRecord>> {
        self.inner.list_challenges(filter).await
    }

    async fn resolve_challenge(
        &self,
        id: ChallengeId,
        resolution: ChallengeResolution,
        at: i64,
    ) -> Result<ChallengeRecord> {
        self.inner.resolve_challenge(id, resolution, at).await
    }

    async fn accept_challenge(
        &self,
        id: ChallengeId,
        by: &PlayerId,
        game: NewGame,
    ) -> Result<(ChallengeRecord, GameRecord)> {
        let r = self.inner.accept_challenge(id, by, game).await;
        if let Ok((_, g)) = &r {
            self.changes.send(g.id, g.version);
        }
        r
    }

    async fn accept_invitation(
        &self,
        id: ChallengeId,
        by: &PlayerId,
        game: NewGame,
    ) -> Result<(ChallengeRecord, Option<GameRecord>)> {
        let r = self.inner.accept_invitation(id, by, game).await;
        if let Ok((_, Some(g))) = &r {
            self.changes.send(g.id, g.version);
        }
        r
    }

    async fn create_game(&self, new: NewGame) -> Result<GameRecord> {
        let r = self.inner.create_game(new).await;
        if let Ok(g) = &r {
            self.changes.send(g.id, g.version);
        }
        r
    }

    async fn get_game(&self, id: GameId) -> Result<GameRecord> {
        self.inner.get_game(id).await
    }

    async fn list_games(&self, filter: &GameFilter) -> Result<Vec<GameRecord>> {
        self.inner.list_games(filter).await
    }

    async fn append_move(
        &self,
        id: GameId,
        expected_version: i64,
        mv: &str,
        update: &GameUpdate,
        at: i64,
    ) -> Result<i64> {
        let r = self
            .inner
            .append_move(id, expected_version, mv, update, at)
            .await;
        self.report(id, r, |v| *v)
    }

    async fn update_game(
        &self,
        id: GameId,
        expected_version: i64,
        update: &GameUpdate,
        at: i64,
    ) -> Result<i64> {
        let r = self
            .inner
            .update_game(id, expected_version, update, at)
            .await;
        self.report(id, r, |v| *v)
    }

    async fn truncate_moves(
        &self,
        id: GameId,
        expected_version: i64,
        keep: usize,
        update: &GameUpdate,
        at: i64,
    ) -> Result<i64> {
        let r = self
            .inner
            .truncate_moves(id, expected_version, keep, update, at)
            .await;
        self.report(id, r, |v| *v)
    }

    async fn upsert_player(
        &self,
        id: &PlayerId,
        display_name: &str,
        at: i64,
    ) -> Result<PlayerRecord> {
        self.inner.upsert_player(id, display_name, at).await
    }

    async fn get_player(&self, id: &PlayerId) -> Result<PlayerRecord> {
        self.inner.get_player(id).await
    }

    async fn due_games(&self, now_ms: i64, limit: u32) -> Result<Vec<GameId>> {
        self.inner.due_games(now_ms, limit).await
    }

    async fn set_reminders(&self, id: &PlayerId, on: bool, at: i64) -> Result<PlayerRecord> {
        self.inner.set_reminders(id, on, at).await
    }

    async fn count_reminder(&self, id: &PlayerId, day: i64, cap: u32) -> Result<bool> {
        self.inner.count_reminder(id, day, cap).await
    }

    async fn hold_message(&self, held: HeldMessage) -> Result<bool> {
        self.inner.hold_message(held).await
    }

    async fn take_held(&self, player: &PlayerId) -> Result<Vec<HeldMessage>> {
        self.inner.take_held(player).await
    }

    async fn has_held(&self, player: &PlayerId) -> Result<bool> {
        self.inner.has_held(player).await
    }

    async fn post(&self, envelopes: &[Envelope], claim: Option<&Claim>, now_ms: i64) -> Result<()> {
        self.inner.post(envelopes, claim, now_ms).await
    }

    async fn claim_due(
        &self,
        platform: Platform,
        claim: &Claim,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<Entry>> {
        self.inner.claim_due(platform, claim, now_ms, limit).await
    }

    async fn settle(&self, key: &Key, settled: &Settled, now_ms: i64) -> Result<()> {
        self.inner.settle(key, settled, now_ms).await
    }

    async fn release_claims(&self, owner: &str, now_ms: i64) -> Result<u64> {
        self.inner.release_claims(owner, now_ms).await
    }

    async fn backlog(&self) -> Result<Backlog> {
        self.inner.backlog().await
    }

    async fn mail(&self, key: &Key) -> Result<Option<Mail>> {
        self.inner.mail(key).await
    }

    async fn ratings_of(&self, player: &PlayerId) -> Result<Vec<RatingRecord>> {
        self.inner.ratings_of(player).await
    }

    async fn leaderboard(
        &self,
        platform: Platform,
        family: &str,
        limit: u32,
    ) -> Result<Vec<RatingRecord>> {
        self.inner.leaderboard(platform, family, limit).await
    }

    async fn leaderboard_place(&self, player: &PlayerId, family: &str) -> Result<Option<u32>> {
        self.inner.leaderboard_place(player, family).await
    }

    async fn rating_changes(&self, game: GameId) -> Result<Vec<RatingChange>> {
        self.inner.rating_changes(game).await
    }

    async fn analysis(&self, game: GameId) -> Result<Option<crate::analysis::AnalysisRecord>> {
        self.inner.analysis(game).await
    }

    async fn begin_analysis(
        &self,
        start: &crate::analysis::AnalysisStart,
        stale_before_ms: i64,
    ) -> Result<bool> {
        self.inner.begin_analysis(start, stale_before_ms).await
    }

    async fn analysis_progress(
        &self,
        game: GameId,
        owner: &str,
        done: u32,
        now_ms: i64,
    ) -> Result<bool> {
        self.inner
            .analysis_progress(game, owner, done, now_ms)
            .await
    }

    async fn finish_analysis(
        &self,
        analysis: &crate::analysis::GameAnalysis,
        owner: &str,
        now_ms: i64,
    ) -> Result<bool> {
        self.inner.finish_analysis(analysis, owner, now_ms).await
    }

    async fn abandon_analysis(&self, game: GameId, owner: &str) -> Result<bool> {
        self.inner.abandon_analysis(game, owner).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        model::{GameStatus, Place},
        store::memory::MemoryStore,
    };

    fn new_game() -> NewGame {
        NewGame {
            variant: "chess".into(),
            options: String::new(),
            start_state: "start".into(),
            seats: vec![
                PlayerId::new(Platform::Console, "a"),
                PlayerId::new(Platform::Console, "b"),
            ],
            place: Place::room(Platform::Console, "console"),
            rating_family: None,
            clock: None,
            created_at: 0,
        }
    }

    #[tokio::test]
    async fn every_successful_game_write_is_reported_and_failures_are_not() {
        let changes = GameChanges::new();
        let mut rx = changes.subscribe();
        let store = Watched::new(MemoryStore::new(), changes);
        let g = store.create_game(new_game()).await.unwrap();
        assert_eq!(
            rx.try_recv().unwrap(),
            GameChange {
                game: g.id,
                version: 0
            }
        );
        let v = store
            .append_move(g.id, 0, "e2e4", &GameUpdate::active(), 1)
            .await
            .unwrap();
        assert_eq!(
            rx.try_recv().unwrap(),
            GameChange {
                game: g.id,
                version: v
            }
        );
        // A lost race changes nothing and says nothing.
        assert!(
            store
                .append_move(g.id, 0, "e7e5", &GameUpdate::active(), 1)
                .await
                .is_err()
        );
        assert!(rx.try_recv().is_err());
        let v = store
            .update_game(g.id, v, &GameUpdate::ended(GameStatus::Aborted), 2)
            .await
            .unwrap();
        assert_eq!(rx.try_recv().unwrap().version, v);
        // Reads say nothing.
        store.get_game(g.id).await.unwrap();
        assert!(rx.try_recv().is_err());
    }
}
