//! An in-memory [`GameStore`] for fast tests of the core: no I/O, no persistence.
//!
//! It implements the same semantics as the SQL store (it passes the same conformance suite),
//! so the service's tests on it are meaningful. A std `Mutex` is enough because no lock is
//! ever held across an `await`.

use std::{
    collections::{BTreeMap, HashMap},
    sync::{Arc, Mutex, MutexGuard},
};

use super::{
    ChallengeFilter, GameFilter, GameStore, Missing, Result, StoreError, leaderboard_order,
    to_rate, validate_held, validate_new_challenge, validate_new_game,
};
use crate::{
    analysis::{AnalysisRecord, AnalysisStart, AnalysisState, GameAnalysis},
    model::{
        ChallengeId, ChallengeRecord, ChallengeResolution, ChallengeStatus, GameId, GameRecord,
        GameStatus, GameUpdate, HeldMessage, NewChallenge, NewGame, Platform, PlayerId,
        PlayerRecord, RatingChange, RatingRecord,
    },
    outbox::{Backlog, Claim, Entry, Envelope, Key, Mail, MailState, Settled},
    rating::{self, Standing},
};

/// The in-memory store. Clones share the same data.
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug, Default)]
struct Inner {
    games: BTreeMap<i64, GameRecord>,
    challenges: BTreeMap<i64, ChallengeRecord>,
    players: HashMap<PlayerId, PlayerRecord>,
    /// Standings by player and rating family.
    ratings: HashMap<(PlayerId, String), Standing>,
    /// The rating changes of each rated game, by game id.
    rating_changes: HashMap<i64, Vec<RatingChange>>,
    /// Reminders counted per player: (day, count).
    reminders: HashMap<PlayerId, (i64, u32)>,
    /// Messages held for their players, oldest first.
    held: HashMap<PlayerId, std::collections::VecDeque<HeldMessage>>,
    last_game_id: i64,
    last_challenge_id: i64,
    /// The outbox, in the order posted.
    outbox: Vec<Letter>,
    /// Analyses by game.
    analyses: HashMap<GameId, AnalysisRecord>,
}

/// One outbox entry and its delivery state.
#[derive(Debug)]
struct Letter {
    envelope: Envelope,
    posted_ms: i64,
    attempts: u32,
    claim: Option<Claim>,
    not_before_ms: i64,
    /// `None` while waiting; then delivered (`Ok`) or given up (`Err`).
    settled: Option<std::result::Result<(), String>>,
}

impl Inner {
    /// Posts envelopes; a key already posted gets the new envelope and claim while it waits.
    fn post(&mut self, envelopes: &[Envelope], claim: Option<&Claim>, now_ms: i64) {
        for e in envelopes {
            if let Some(l) = self.outbox.iter_mut().find(|l| l.envelope.key == e.key) {
                if l.settled.is_none() {
                    l.envelope = e.clone();
                    l.claim = claim.cloned();
                }
                continue;
            }
            self.outbox.push(Letter {
                envelope: e.clone(),
                posted_ms: now_ms,
                attempts: 0,
                claim: claim.cloned(),
                not_before_ms: 0,
                settled: None,
            });
        }
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> Result<MutexGuard<'_, Inner>> {
        // A poisoned lock means a panic inside one of the methods below, all of which check
        // before they mutate; report it rather than hide it.
        self.inner
            .lock()
            .map_err(|e| StoreError::Backend(e.to_string().into()))
    }
}

impl Inner {
    fn new_game(&mut self, new: NewGame) -> Result<GameRecord> {
        validate_new_game(&new)?;
        self.last_game_id += 1;
        let game = GameRecord {
            id: GameId(self.last_game_id),
            variant: new.variant,
            options: new.options,
            start_state: new.start_state,
            moves: Vec::new(),
            seats: new.seats,
            place: new.place,
            status: GameStatus::Active,
            pending_offer: None,
            clock: new.clock,
            version: 0,
            rating_family: new.rating_family,
            created_at: new.created_at,
            updated_at: new.created_at,
        };
        self.games.insert(game.id.0, game.clone());
        Ok(game)
    }

    /// The game at `expected` version, for a versioned write.
    fn game_at(&mut self, id: GameId, expected: i64) -> Result<&mut GameRecord> {
        let game = self
            .games
            .get_mut(&id.0)
            .ok_or(StoreError::NotFound(Missing::Game(id)))?;
        if game.version != expected {
            return Err(StoreError::Conflict {
                game: id,
                expected,
                actual: game.version,
            });
        }
        Ok(game)
    }

    fn pending_challenge(&mut self, id: ChallengeId) -> Result<&mut ChallengeRecord> {
        let challenge = self
            .challenges
            .get_mut(&id.0)
            .ok_or(StoreError::NotFound(Missing::Challenge(id)))?;
        if challenge.status != ChallengeStatus::Pending {
            return Err(StoreError::ChallengeClosed {
                id,
                status: challenge.status,
            });
        }
        Ok(challenge)
    }
}

impl Inner {
    /// Applies a versioned write's update to game `id` (already checked to be at the
    /// expected version) and rates the game if the update finishes it: both under the one
    /// lock, as the SQL store does both in one transaction.
    fn apply(&mut self, id: GameId, update: &GameUpdate, at: i64) -> i64 {
        let Some(game) = self.games.get_mut(&id.0) else {
            return 0;
        };
        game.status = update.status.clone();
        game.pending_offer = update.pending_offer;
        if let Some(clock) = &update.clock {
            game.clock = Some(clock.clone());
        }
        game.version += 1;
        game.updated_at = at;
        let version = game.version;
        let rate = to_rate(game.rating_family.as_deref(), &game.seats, &update.status);
        self.post(
            &update.tell.envelopes,
            update.tell.claim.as_ref(),
            update.tell.posted_ms,
        );
        if let Some(rate) = rate
            && !self.rating_changes.contains_key(&id.0)
        {
            let [first, second] = rate.players;
            let standing = |p: &PlayerId| {
                self.ratings
                    .get(&(p.clone(), rate.family.clone()))
                    .copied()
                    .unwrap_or_else(|| Standing::new_player(at))
            };
            let (a, b) = (standing(&first), standing(&second));
            let (new_a, new_b) = rating::settle(a, b, rate.score, at);
            self.rating_changes.insert(
                id.0,
                vec![
                    RatingChange {
                        seat: 0,
                        player: first.clone(),
                        before: a.rating.rating,
                        after: new_a.rating.rating,
                    },
                    RatingChange {
                        seat: 1,
                        player: second.clone(),
                        before: b.rating.rating,
                        after: new_b.rating.rating,
                    },
                ],
            );
            self.ratings.insert((first, rate.family.clone()), new_a);
            self.ratings.insert((second, rate.family), new_b);
        }
        version
    }

    fn rating_record(&self, player: &PlayerId, family: &str, standing: Standing) -> RatingRecord {
        RatingRecord {
            player: player.clone(),
            name: self
                .players
                .get(player)
                .map(|p| p.display_name.clone())
                .unwrap_or_default(),
            family: family.to_owned(),
            standing,
        }
    }

    fn leaderboard(&self, platform: Platform, family: &str) -> Vec<RatingRecord> {
        let mut board: Vec<RatingRecord> = self
            .ratings
            .iter()
            .filter(|((p, f), _)| p.platform == platform && f == family)
            .map(|((p, f), s)| self.rating_record(p, f, *s))
            .collect();
        board.sort_by(leaderboard_order);
        board
    }
}

/// The refusal of [`GameStore::accept_challenge`] for a challenge to several players, which
/// only every invitee's acceptance can start.
fn multi_seat(id: ChallengeId) -> StoreError {
    StoreError::Invalid(format!(
        "challenge {id} invites several players: each accepts with accept_invitation"
    ))
}

/// Adds `by` to the challenge's acceptances, kept in seat order as the SQL store reads them.
fn mark_accepted(challenge: &mut ChallengeRecord, by: &PlayerId) {
    let mut accepted = std::mem::take(&mut challenge.accepted);
    accepted.push(by.clone());
    challenge.accepted = challenge
        .invitees()
        .filter(|p| accepted.contains(p))
        .cloned()
        .collect();
}

impl GameStore for MemoryStore {
    async fn create_challenge(&self, new: NewChallenge) -> Result<ChallengeRecord> {
        validate_new_challenge(&new)?;
        let mut inner = self.lock()?;
        inner.last_challenge_id += 1;
        let challenge = ChallengeRecord {
            id: ChallengeId(inner.last_challenge_id),
            challenger: new.challenger,
            challenged: new.challenged,
            more_invited: new.more_invited,
            accepted: Vec::new(),
            variant: new.variant,
            options: new.options,
            place: new.place,
            status: ChallengeStatus::Pending,
            created_at: new.created_at,
            updated_at: new.created_at,
        };
        inner.challenges.insert(challenge.id.0, challenge.clone());
        Ok(challenge)
    }

    async fn get_challenge(&self, id: ChallengeId) -> Result<ChallengeRecord> {
        self.lock()?
            .challenges
            .get(&id.0)
            .cloned()
            .ok_or(StoreError::NotFound(Missing::Challenge(id)))
    }

    async fn list_challenges(&self, filter: &ChallengeFilter) -> Result<Vec<ChallengeRecord>> {
        let inner = self.lock()?;
        Ok(inner
            .challenges
            .values()
            .rev()
            .filter(|c| filter.place.as_ref().is_none_or(|p| p.covers(&c.place)))
            .filter(|c| {
                filter
                    .player
                    .as_ref()
                    .is_none_or(|p| c.challenger == *p || c.is_invited(p))
            })
            .filter(|c| !filter.pending_only || c.status == ChallengeStatus::Pending)
            .cloned()
            .collect())
    }

    async fn resolve_challenge(
        &self,
        id: ChallengeId,
        resolution: ChallengeResolution,
        at: i64,
    ) -> Result<ChallengeRecord> {
        let mut inner = self.lock()?;
        let challenge = inner.pending_challenge(id)?;
        challenge.status = resolution.into();
        challenge.updated_at = at;
        Ok(challenge.clone())
    }

    async fn accept_challenge(
        &self,
        id: ChallengeId,
        by: &PlayerId,
        game: NewGame,
    ) -> Result<(ChallengeRecord, GameRecord)> {
        // Check everything before the first mutation, so a failure leaves nothing behind (and
        // in the same order as the SQL store: the request first, then the challenge).
        validate_new_game(&game)?;
        let mut inner = self.lock()?;
        if !inner.pending_challenge(id)?.more_invited.is_empty() {
            return Err(multi_seat(id));
        }
        let at = game.created_at;
        let game = inner.new_game(game)?;
        let challenge = inner.pending_challenge(id)?;
        challenge.status = ChallengeStatus::Accepted(game.id);
        challenge.challenged.get_or_insert_with(|| by.clone());
        challenge.updated_at = at;
        Ok((challenge.clone(), game))
    }

    async fn accept_invitation(
        &self,
        id: ChallengeId,
        by: &PlayerId,
        game: NewGame,
    ) -> Result<(ChallengeRecord, Option<GameRecord>)> {
        validate_new_game(&game)?;
        let mut inner = self.lock()?;
        let challenge = inner.pending_challenge(id)?;
        if !challenge.is_invited(by) {
            return Err(StoreError::Invalid(format!(
                "{by} is not invited to challenge {id}"
            )));
        }
        let at = game.created_at;
        let waiting: Vec<PlayerId> = challenge
            .waiting_for()
            .into_iter()
            .filter(|p| p != by)
            .collect();
        if !waiting.is_empty() {
            if !challenge.accepted.contains(by) {
                mark_accepted(challenge, by);
                challenge.updated_at = at;
            }
            return Ok((challenge.clone(), None));
        }
        let game = inner.new_game(game)?;
        let challenge = inner.pending_challenge(id)?;
        mark_accepted(challenge, by);
        challenge.status = ChallengeStatus::Accepted(game.id);
        challenge.updated_at = at;
        Ok((challenge.clone(), Some(game)))
    }

    async fn create_game(&self, new: NewGame) -> Result<GameRecord> {
        self.lock()?.new_game(new)
    }

    async fn get_game(&self, id: GameId) -> Result<GameRecord> {
        self.lock()?
            .games
            .get(&id.0)
            .cloned()
            .ok_or(StoreError::NotFound(Missing::Game(id)))
    }

    async fn list_games(&self, filter: &GameFilter) -> Result<Vec<GameRecord>> {
        let inner = self.lock()?;
        let limit = filter.limit.map_or(usize::MAX, |n| n as usize);
        Ok(inner
            .games
            .values()
            .rev()
            .filter(|g| filter.place.as_ref().is_none_or(|p| p.covers(&g.place)))
            .filter(|g| filter.player.as_ref().is_none_or(|p| g.seats.contains(p)))
            .filter(|g| !filter.active_only || g.status.is_active())
            .take(limit)
            .cloned()
            .collect())
    }

    async fn append_move(
        &self,
        id: GameId,
        expected_version: i64,
        mv: &str,
        update: &GameUpdate,
        at: i64,
    ) -> Result<i64> {
        let mut inner = self.lock()?;
        let game = inner.game_at(id, expected_version)?;
        game.moves.push(mv.to_owned());
        Ok(inner.apply(id, update, at))
    }

    async fn update_game(
        &self,
        id: GameId,
        expected_version: i64,
        update: &GameUpdate,
        at: i64,
    ) -> Result<i64> {
        let mut inner = self.lock()?;
        inner.game_at(id, expected_version)?;
        Ok(inner.apply(id, update, at))
    }

    async fn truncate_moves(
        &self,
        id: GameId,
        expected_version: i64,
        keep: usize,
        update: &GameUpdate,
        at: i64,
    ) -> Result<i64> {
        let mut inner = self.lock()?;
        let game = inner.game_at(id, expected_version)?;
        if keep > game.moves.len() {
            return Err(StoreError::Invalid(format!(
                "cannot keep {keep} moves of game {id}, which has {}",
                game.moves.len()
            )));
        }
        game.moves.truncate(keep);
        Ok(inner.apply(id, update, at))
    }

    async fn upsert_player(
        &self,
        id: &PlayerId,
        display_name: &str,
        at: i64,
    ) -> Result<PlayerRecord> {
        let mut inner = self.lock()?;
        let player = inner
            .players
            .entry(id.clone())
            .and_modify(|p| {
                if p.display_name != display_name {
                    p.display_name = display_name.to_owned();
                    p.updated_at = at;
                }
            })
            .or_insert_with(|| PlayerRecord {
                id: id.clone(),
                display_name: display_name.to_owned(),
                reminders: true,
                created_at: at,
                updated_at: at,
            });
        Ok(player.clone())
    }

    async fn get_player(&self, id: &PlayerId) -> Result<PlayerRecord> {
        self.lock()?
            .players
            .get(id)
            .cloned()
            .ok_or_else(|| StoreError::NotFound(Missing::Player(id.clone())))
    }

    async fn ratings_of(&self, player: &PlayerId) -> Result<Vec<RatingRecord>> {
        let inner = self.lock()?;
        let mut mine: Vec<RatingRecord> = inner
            .ratings
            .iter()
            .filter(|((p, _), _)| p == player)
            .map(|((p, f), s)| inner.rating_record(p, f, *s))
            .collect();
        mine.sort_by(|a, b| {
            (b.standing.games.cmp(&a.standing.games)).then_with(|| a.family.cmp(&b.family))
        });
        Ok(mine)
    }

    async fn leaderboard(
        &self,
        platform: Platform,
        family: &str,
        limit: u32,
    ) -> Result<Vec<RatingRecord>> {
        let mut board = self.lock()?.leaderboard(platform, family);
        board.truncate(limit as usize);
        Ok(board)
    }

    async fn leaderboard_place(&self, player: &PlayerId, family: &str) -> Result<Option<u32>> {
        let board = self.lock()?.leaderboard(player.platform, family);
        Ok(board
            .iter()
            .position(|r| r.player == *player)
            .and_then(|i| u32::try_from(i + 1).ok()))
    }

    async fn rating_changes(&self, game: GameId) -> Result<Vec<RatingChange>> {
        Ok(self
            .lock()?
            .rating_changes
            .get(&game.0)
            .cloned()
            .unwrap_or_default())
    }

    async fn due_games(&self, now_ms: i64, limit: u32) -> Result<Vec<GameId>> {
        let inner = self.lock()?;
        let mut due: Vec<(i64, GameId)> = inner
            .games
            .values()
            .filter(|g| g.status.is_active())
            .filter_map(|g| g.clock.as_ref().map(|c| (c.wake_ms, g.id)))
            .filter(|&(wake, _)| wake <= now_ms)
            .collect();
        due.sort();
        Ok(due
            .into_iter()
            .take(limit as usize)
            .map(|(_, id)| id)
            .collect())
    }

    async fn set_reminders(&self, id: &PlayerId, on: bool, at: i64) -> Result<PlayerRecord> {
        let mut inner = self.lock()?;
        let player = inner
            .players
            .get_mut(id)
            .ok_or_else(|| StoreError::NotFound(Missing::Player(id.clone())))?;
        if player.reminders != on {
            player.reminders = on;
            player.updated_at = at;
        }
        Ok(player.clone())
    }

    async fn count_reminder(&self, id: &PlayerId, day: i64, cap: u32) -> Result<bool> {
        let mut inner = self.lock()?;
        if !inner.players.contains_key(id) {
            return Err(StoreError::NotFound(Missing::Player(id.clone())));
        }
        let entry = inner.reminders.entry(id.clone()).or_insert((day, 0));
        if entry.0 != day {
            *entry = (day, 0);
        }
        if entry.1 >= cap {
            return Ok(false);
        }
        entry.1 += 1;
        Ok(true)
    }

    async fn hold_message(&self, held: HeldMessage) -> Result<bool> {
        validate_held(&held)?;
        let mut inner = self.lock()?;
        let queue = inner.held.entry(held.to.clone()).or_default();
        let first = !queue.iter().any(|h| h.game == held.game);
        queue.push_back(held);
        while queue.len() > HeldMessage::PER_PLAYER {
            queue.pop_front();
        }
        Ok(first)
    }

    async fn take_held(&self, player: &PlayerId) -> Result<Vec<HeldMessage>> {
        let mut inner = self.lock()?;
        Ok(inner.held.remove(player).map(Vec::from).unwrap_or_default())
    }

    async fn has_held(&self, player: &PlayerId) -> Result<bool> {
        let inner = self.lock()?;
        Ok(inner.held.get(player).is_some_and(|q| !q.is_empty()))
    }

    async fn analysis(&self, game: GameId) -> Result<Option<AnalysisRecord>> {
        Ok(self.lock()?.analyses.get(&game).cloned())
    }

    async fn begin_analysis(&self, start: &AnalysisStart, stale_before_ms: i64) -> Result<bool> {
        let mut inner = self.lock()?;
        if !inner.games.contains_key(&start.game.0) {
            return Err(StoreError::NotFound(Missing::Game(start.game)));
        }
        if let Some(a) = inner.analyses.get(&start.game) {
            let counts = match &a.state {
                AnalysisState::Running { .. } => a.updated_ms >= stale_before_ms,
                AnalysisState::Done(_) => a.plies == start.plies,
            };
            if counts {
                return Ok(false);
            }
        }
        inner.analyses.insert(
            start.game,
            AnalysisRecord {
                game: start.game,
                plies: start.plies,
                owner: start.owner.clone(),
                request: start.request.clone(),
                state: AnalysisState::Running {
                    done: 0,
                    total: start.total,
                },
                started_ms: start.now_ms,
                updated_ms: start.now_ms,
            },
        );
        Ok(true)
    }

    async fn analysis_progress(
        &self,
        game: GameId,
        owner: &str,
        done: u32,
        now_ms: i64,
    ) -> Result<bool> {
        let mut inner = self.lock()?;
        match inner.analyses.get_mut(&game) {
            Some(a) if a.owner == owner => match &mut a.state {
                AnalysisState::Running { done: d, .. } => {
                    *d = done;
                    a.updated_ms = now_ms;
                    Ok(true)
                }
                AnalysisState::Done(_) => Ok(false),
            },
            _ => Ok(false),
        }
    }

    async fn finish_analysis(
        &self,
        analysis: &GameAnalysis,
        owner: &str,
        now_ms: i64,
    ) -> Result<bool> {
        let mut inner = self.lock()?;
        match inner.analyses.get_mut(&analysis.game) {
            Some(a) if a.owner == owner && matches!(a.state, AnalysisState::Running { .. }) => {
                a.plies = analysis.plies;
                a.state = AnalysisState::Done(Box::new(analysis.clone()));
                a.updated_ms = now_ms;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    async fn abandon_analysis(&self, game: GameId, owner: &str) -> Result<bool> {
        let mut inner = self.lock()?;
        let running = inner
            .analyses
            .get(&game)
            .is_some_and(|a| a.owner == owner && matches!(a.state, AnalysisState::Running { .. }));
        if running {
            inner.analyses.remove(&game);
        }
        Ok(running)
    }

    async fn post(&self, envelopes: &[Envelope], claim: Option<&Claim>, now_ms: i64) -> Result<()> {
        self.lock()?.post(envelopes, claim, now_ms);
        Ok(())
    }

    async fn claim_due(
        &self,
        platform: Platform,
        claim: &Claim,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<Entry>> {
        let mut inner = self.lock()?;
        let mut taken = Vec::new();
        for l in &mut inner.outbox {
            if taken.len() >= limit as usize {
                break;
            }
            let due = l.settled.is_none()
                && l.envelope.platform() == platform
                && l.not_before_ms <= now_ms
                && l.claim.as_ref().is_none_or(|c| c.until_ms < now_ms);
            if due {
                l.claim = Some(claim.clone());
                taken.push(Entry {
                    envelope: l.envelope.clone(),
                    attempts: l.attempts,
                    posted_ms: l.posted_ms,
                });
            }
        }
        Ok(taken)
    }

    async fn settle(&self, key: &Key, settled: &Settled, _now_ms: i64) -> Result<()> {
        let mut inner = self.lock()?;
        let Some(l) = inner.outbox.iter_mut().find(|l| &l.envelope.key == key) else {
            return Err(StoreError::Invalid(format!("no outbox entry {key}")));
        };
        if l.settled.is_some() {
            return Ok(());
        }
        l.claim = None;
        match settled {
            Settled::Delivered | Settled::DeliveredUnderKey => l.settled = Some(Ok(())),
            Settled::GaveUp(why) => l.settled = Some(Err(why.clone())),
            Settled::Later {
                not_before_ms,
                handle,
            } => {
                l.attempts += 1;
                l.not_before_ms = *not_before_ms;
                if let (Some(h), crate::outbox::Origin::Command { handle: kept, .. }) =
                    (handle, &mut l.envelope.origin)
                {
                    *kept = Some(h.clone());
                }
            }
        }
        Ok(())
    }

    async fn release_claims(&self, owner: &str, _now_ms: i64) -> Result<u64> {
        let mut inner = self.lock()?;
        let mut n = 0;
        for l in &mut inner.outbox {
            if l.settled.is_none() && l.claim.as_ref().is_some_and(|c| c.owner == owner) {
                l.claim = None;
                n += 1;
            }
        }
        Ok(n)
    }

    async fn backlog(&self) -> Result<Backlog> {
        let inner = self.lock()?;
        let waiting = inner.outbox.iter().filter(|l| l.settled.is_none());
        Ok(Backlog {
            waiting: waiting.clone().count() as u64,
            oldest_ms: waiting.map(|l| l.posted_ms).min(),
        })
    }

    async fn mail(&self, key: &Key) -> Result<Option<Mail>> {
        Ok(self
            .lock()?
            .outbox
            .iter()
            .find(|l| &l.envelope.key == key)
            .map(|l| Mail {
                state: match &l.settled {
                    None => MailState::Waiting,
                    Some(Ok(())) => MailState::Delivered,
                    Some(Err(_)) => MailState::GivenUp,
                },
                envelope: l.envelope.clone(),
            }))
    }
}

#[cfg(test)]
mod tests {
    use super::MemoryStore;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn memory_store_passes_the_conformance_suite() {
        crate::store::conformance::run_all(|| async { MemoryStore::new() }).await;
    }
}
