//! The store port: how the game service persists challenges, games and players.
//!
//! The core defines the trait and an in-memory implementation ([`memory::MemoryStore`]) for
//! fast tests; `bot-store` implements it over sqlx. Every implementation must pass the same
//! conformance suite (`conformance`, behind the `conformance` cargo feature), so the service's
//! tests on the memory store say something about production.
//!
//! # Concurrency
//!
//! Games are written with optimistic concurrency: every write names the `version` it read, and
//! a write against any other version fails with [`StoreError::Conflict`] without changing
//! anything. Two players (or two adapters) racing on one game therefore never both apply; the
//! loser reloads and retries or reports. A write that returns `Ok` is durable before it returns
//! (for the SQL store: committed with `synchronous=FULL`), so the service may acknowledge it.
//!
//! # Ratings
//!
//! A game created with a [`rating_family`](GameRecord::rating_family) is rated by the store
//! itself, in the transaction of the write that leaves it finished ([`to_rate`] says whether
//! and how; [`crate::rating::settle`] computes the new standings). The result and the ratings
//! are therefore one commit: a crash leaves both or neither, and since each game's rating
//! changes are keyed by the game, no later write can rate it twice. Every write path that can
//! finish a game (`append_move`, `update_game`, `truncate_moves`) does this.

use std::future::Future;

use crate::{
    analysis::{AnalysisRecord, AnalysisStart, GameAnalysis},
    model::{
        ChallengeId, ChallengeRecord, ChallengeResolution, ChallengeStatus, GameId, GameRecord,
        GameResult, GameStatus, GameUpdate, HeldMessage, NewChallenge, NewGame, Place, Platform,
        PlayerId, PlayerRecord, RatingChange, RatingRecord,
    },
    outbox::{Backlog, Claim, Entry, Envelope, Key, Mail, Settled},
    rating::Score,
};

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
pub mod memory;
pub mod watched;

/// The error type of every backend's boxed source error.
pub type BackendError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Shorthand for store results.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// What was looked for and not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// No game with this id.
    Game(GameId),
    /// No challenge with this id.
    Challenge(ChallengeId),
    /// No player with this id.
    Player(PlayerId),
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Missing::Game(id) => write!(f, "game {id}"),
            Missing::Challenge(id) => write!(f, "challenge {id}"),
            Missing::Player(id) => write!(f, "player {id}"),
        }
    }
}

/// Why a store operation failed. The first variants are expected outcomes the service turns
/// into replies; `Corrupt` and `Backend` are internal errors to log.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The record does not exist.
    #[error("{0} not found")]
    NotFound(Missing),
    /// The game changed since it was read: another write won the race. Nothing was applied.
    #[error("game {game} changed concurrently: expected version {expected}, found {actual}")]
    Conflict {
        /// The game written to.
        game: GameId,
        /// The version the writer read.
        expected: i64,
        /// The version now stored.
        actual: i64,
    },
    /// The challenge is no longer pending (accepted, declined, cancelled or expired), for
    /// example because a racing accept won. Nothing was applied.
    #[error("challenge {id} is already {status}")]
    ChallengeClosed {
        /// The challenge.
        id: ChallengeId,
        /// Its current status.
        status: ChallengeStatus,
    },
    /// The request itself is impossible (for example truncating beyond the last move, or a
    /// game without seats). A bug in the caller, reported instead of stored.
    #[error("invalid store request: {0}")]
    Invalid(String),
    /// Stored data cannot be read back into a record (an unknown status text, a ply gap).
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The backend failed (I/O, connection, SQL). Nothing can be assumed about whether a
    /// write applied only when the failure happened during commit; otherwise it did not.
    #[error("storage backend failed: {0}")]
    Backend(#[source] BackendError),
    /// The database cannot be reached (no connection within the store's wait, the
    /// connection refused or lost before the request was made). Nothing was applied.
    #[error("the database is unavailable: {0}")]
    Unavailable(#[source] BackendError),
}

/// Which games to list. The default lists every game; the fields narrow it down and combine
/// with AND. Listings are ordered newest first (by id, descending).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameFilter {
    /// Only games whose place this covers (see [`Place::covers`]: a room includes its threads).
    pub place: Option<Place>,
    /// Only games in which this player holds a seat.
    pub player: Option<PlayerId>,
    /// Only [`GameStatus::Active`](crate::model::GameStatus::Active) games.
    pub active_only: bool,
    /// At most this many games (the newest).
    pub limit: Option<u32>,
}

impl GameFilter {
    /// Narrow to a place.
    pub fn at(mut self, place: Place) -> Self {
        self.place = Some(place);
        self
    }

    /// Narrow to games of a player.
    pub fn of(mut self, player: PlayerId) -> Self {
        self.player = Some(player);
        self
    }

    /// Narrow to active games.
    pub fn active(mut self) -> Self {
        self.active_only = true;
        self
    }

    /// Keep only the newest `n`.
    pub fn limit(mut self, n: u32) -> Self {
        self.limit = Some(n);
        self
    }
}

/// Which challenges to list. The default lists every challenge; the fields narrow it down and
/// combine with AND. Listings are ordered newest first (by id, descending).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChallengeFilter {
    /// Only challenges whose place this covers (see [`Place::covers`]).
    pub place: Option<Place>,
    /// Only challenges this player made or received (open challenges are found by place).
    pub player: Option<PlayerId>,
    /// Only [`ChallengeStatus::Pending`] challenges.
    pub pending_only: bool,
}

impl ChallengeFilter {
    /// Narrow to a place.
    pub fn at(mut self, place: Place) -> Self {
        self.place = Some(place);
        self
    }

    /// Narrow to challenges a player made or received.
    pub fn of(mut self, player: PlayerId) -> Self {
        self.player = Some(player);
        self
    }

    /// Narrow to pending challenges.
    pub fn pending(mut self) -> Self {
        self.pending_only = true;
        self
    }
}

/// The persistence port of the game service.
///
/// Methods return `impl Future + Send` (rather than being `async fn`) so that a service generic
/// over the store can run its futures on a multi-threaded runtime. Implementations should be
/// cheap to clone handles to shared state (a pool, an `Arc`), because the service and tests
/// clone them into tasks.
///
/// Times (`at`, `created_at`) are unix seconds from the caller's clock; clock times
/// (`now_ms`, [`ClockState`](crate::time_control::ClockState)) are Unix milliseconds.
pub trait GameStore: Send + Sync {
    /// Record a new pending challenge.
    fn create_challenge(
        &self,
        new: NewChallenge,
    ) -> impl Future<Output = Result<ChallengeRecord>> + Send;

    /// Load a challenge. [`StoreError::NotFound`] if there is none with this id.
    fn get_challenge(
        &self,
        id: ChallengeId,
    ) -> impl Future<Output = Result<ChallengeRecord>> + Send;

    /// List challenges matching `filter`, newest first.
    fn list_challenges(
        &self,
        filter: &ChallengeFilter,
    ) -> impl Future<Output = Result<Vec<ChallengeRecord>>> + Send;

    /// End a pending challenge without a game. [`StoreError::ChallengeClosed`] if it is no
    /// longer pending.
    fn resolve_challenge(
        &self,
        id: ChallengeId,
        resolution: ChallengeResolution,
        at: i64,
    ) -> impl Future<Output = Result<ChallengeRecord>> + Send;

    /// Accept a pending challenge: in one transaction, mark it accepted by `by` (filling in
    /// `challenged` for an open challenge) and create `game` (whose seats and start state the
    /// service chose). Of two racing accepts exactly one succeeds; the other gets
    /// [`StoreError::ChallengeClosed`] and no game is created for it. A challenge to several
    /// players is [`StoreError::Invalid`] here: it starts only through
    /// [`GameStore::accept_invitation`], when every invitee has accepted.
    fn accept_challenge(
        &self,
        id: ChallengeId,
        by: &PlayerId,
        game: NewGame,
    ) -> impl Future<Output = Result<(ChallengeRecord, GameRecord)>> + Send;

    /// Record that `by`, one of the players a pending challenge invites, accepts. When every
    /// invitee has then accepted, in the same transaction the challenge is accepted and `game`
    /// is created, as [`GameStore::accept_challenge`] does; otherwise the challenge stays
    /// pending with `by` among its [`accepted`](ChallengeRecord::accepted) and no game is
    /// returned. One transaction, so of two last acceptances racing neither is lost and exactly
    /// one game is created. Accepting twice is harmless (nothing changes).
    /// [`StoreError::ChallengeClosed`] if it is no longer pending, [`StoreError::Invalid`] if
    /// `by` is not invited.
    fn accept_invitation(
        &self,
        id: ChallengeId,
        by: &PlayerId,
        game: NewGame,
    ) -> impl Future<Output = Result<(ChallengeRecord, Option<GameRecord>)>> + Send;

    /// Create a game directly (console games, imports). It starts active at version 0.
    fn create_game(&self, new: NewGame) -> impl Future<Output = Result<GameRecord>> + Send;

    /// Load a game with all its moves, as one consistent snapshot.
    fn get_game(&self, id: GameId) -> impl Future<Output = Result<GameRecord>> + Send;

    /// List games matching `filter`, newest first, each with all its moves.
    fn list_games(
        &self,
        filter: &GameFilter,
    ) -> impl Future<Output = Result<Vec<GameRecord>>> + Send;

    /// Append one move and set the resulting status and offer, if the game is still at
    /// `expected_version`; returns the new version (`expected_version + 1`). The move, the
    /// update and the version bump are one transaction: on any error nothing is applied, and a
    /// lost race is [`StoreError::Conflict`].
    fn append_move(
        &self,
        id: GameId,
        expected_version: i64,
        mv: &str,
        update: &GameUpdate,
        at: i64,
    ) -> impl Future<Output = Result<i64>> + Send;

    /// Set status and offer (resign, draw offers and answers, abort) if the game is still at
    /// `expected_version`; returns the new version. Moves are untouched.
    fn update_game(
        &self,
        id: GameId,
        expected_version: i64,
        update: &GameUpdate,
        at: i64,
    ) -> impl Future<Output = Result<i64>> + Send;

    /// Keep only the first `keep` moves (a takeback) and set status and offer, if the game is
    /// still at `expected_version`; returns the new version. [`StoreError::Invalid`] if `keep`
    /// exceeds the number of moves.
    fn truncate_moves(
        &self,
        id: GameId,
        expected_version: i64,
        keep: usize,
        update: &GameUpdate,
        at: i64,
    ) -> impl Future<Output = Result<i64>> + Send;

    /// Record that a player was seen with `display_name`: creates them, or updates the name
    /// (and `updated_at`) if it changed and keeps everything else; an unchanged name writes
    /// nothing. Returns the stored record.
    fn upsert_player(
        &self,
        id: &PlayerId,
        display_name: &str,
        at: i64,
    ) -> impl Future<Output = Result<PlayerRecord>> + Send;

    /// Load a player. [`StoreError::NotFound`] if never seen.
    fn get_player(&self, id: &PlayerId) -> impl Future<Output = Result<PlayerRecord>> + Send;

    /// The active games whose clock wants attention at `now_ms` (a deadline or a reminder
    /// is due: [`ClockState::wake_ms`](crate::time_control::ClockState::wake_ms) ≤ `now_ms`), most
    /// overdue first, at most `limit`. Only a hint of what to look at: the scheduler claims
    /// each by its versioned write, so two processes asking at once both get the same ids and
    /// exactly one of them acts on each.
    fn due_games(
        &self,
        now_ms: i64,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<GameId>>> + Send;

    /// Switch a known player's reminders on or off (`remind on|off`). [`StoreError::NotFound`]
    /// if never seen.
    fn set_reminders(
        &self,
        id: &PlayerId,
        on: bool,
        at: i64,
    ) -> impl Future<Output = Result<PlayerRecord>> + Send;

    /// Count one reminder for a player on `day` (days since the Unix epoch, UTC) if fewer
    /// than `cap` were counted that day; `false` (and nothing counted) once the cap is
    /// reached. Atomic: two processes reminding one player at once never pass the cap.
    /// [`StoreError::NotFound`] if never seen.
    fn count_reminder(
        &self,
        id: &PlayerId,
        day: i64,
        cap: u32,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// Hold a message its platform would not deliver, for its player to be shown when he
    /// next asks; past [`HeldMessage::PER_PLAYER`] held for him, his oldest is dropped.
    /// Durable when it returns. [`StoreError::Invalid`] if a mention is on another platform
    /// than the recipient. Returns whether it is the first message held for him from its game
    /// (or, for one of no game, the first of no game) since he last read what was held: the
    /// adapters tell the game's room that he cannot be reached only then, once, whatever
    /// process held the earlier ones and however often it restarted.
    fn hold_message(&self, held: HeldMessage) -> impl Future<Output = Result<bool>> + Send;

    /// Take the messages held for a player, oldest first, removing them. Atomic: two
    /// takers at once (two commands, two processes) never both get one. Cheap when there
    /// are none (no write), since adapters ask at every command.
    fn take_held(&self, player: &PlayerId)
    -> impl Future<Output = Result<Vec<HeldMessage>>> + Send;

    /// Whether any message is held for a player: he is unreachable until his next command
    /// takes them, so the reminder scheduler skips him rather than send another message his
    /// platform would not deliver. A read only (no write, no lock): it is asked at every
    /// reminder point.
    fn has_held(&self, player: &PlayerId) -> impl Future<Output = Result<bool>> + Send;

    /// Post envelopes to the outbox in one transaction: claimed by `claim` (a command's
    /// replies, which its process sends at once) or due now for the platform's sender.
    /// Posting a key that is already there replaces its envelope and claim while it is
    /// neither delivered nor given up (the service completes a reply posted with a write,
    /// [`GameService::amend`](crate::GameService)), and changes nothing after; so a retried
    /// post is harmless. Durable when it returns. The same happens inside [`GameStore::append_move`],
    /// [`GameStore::update_game`] and [`GameStore::truncate_moves`] for their update's
    /// [`tell`](GameUpdate::tell), in their own transaction.
    fn post(
        &self,
        envelopes: &[Envelope],
        claim: Option<&Claim>,
        now_ms: i64,
    ) -> impl Future<Output = Result<()>> + Send;

    /// Claim for `claim.owner` up to `limit` entries of `platform` that are due at `now_ms`:
    /// neither delivered nor given up, not waiting for a later attempt, and unclaimed or
    /// claimed until before `now_ms`; oldest first. Atomic: two processes claiming at once
    /// never both get one entry.
    fn claim_due(
        &self,
        platform: Platform,
        claim: &Claim,
        now_ms: i64,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<Entry>>> + Send;

    /// Record how an attempt to deliver the entry `key` ended, and drop its claim. Settling an
    /// entry already delivered or given up changes nothing; an unknown key is
    /// [`StoreError::Invalid`]. Unlike other writes, a delivery need not be on disk when this
    /// returns (lost in a power cut, the entry is only sent again); [`Settled::Delivered`]
    /// must be written (a process killed after this returns does not send it again), while
    /// [`Settled::DeliveredUnderKey`] may wait for the store's next write, as a repeat is
    /// recognised by the platform (the command path then saves a write per reply).
    fn settle(
        &self,
        key: &Key,
        settled: &Settled,
        now_ms: i64,
    ) -> impl Future<Output = Result<()>> + Send;

    /// Drop every claim of `owner` (a process starting again takes back at once what it
    /// held when it stopped, rather than wait for the claims to run out). Returns how many.
    /// A store may also forget entries settled long before `now_ms` here.
    fn release_claims(&self, owner: &str, now_ms: i64) -> impl Future<Output = Result<u64>> + Send;

    /// What waits in the outbox: entries neither delivered nor given up.
    fn backlog(&self) -> impl Future<Output = Result<Backlog>> + Send;

    /// The entry with this key and where it stands, `None` if it was never posted (or was
    /// settled so long ago that the store forgot it, see [`GameStore::release_claims`]).
    /// How a command delivered again after a crash learns that its first run was stored
    /// ([`crate::outbox::CommandKeys`]), and how an edit learns whether the message it
    /// replaces is still to be sent, or what it said.
    fn mail(&self, key: &Key) -> impl Future<Output = Result<Option<Mail>>> + Send;

    /// The player's standings, one per rating family he has finished a rated game in, most
    /// games first (then by family name).
    fn ratings_of(
        &self,
        player: &PlayerId,
    ) -> impl Future<Output = Result<Vec<RatingRecord>>> + Send;

    /// The best `limit` standings in `family` among `platform`'s players (identities are per
    /// platform): established ratings first, then provisional ones (see
    /// [`crate::rating::PROVISIONAL_DEVIATION`]), each by rating, highest first; ties by more
    /// games, then by user id.
    fn leaderboard(
        &self,
        platform: Platform,
        family: &str,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<RatingRecord>>> + Send;

    /// The player's place (from 1) on his platform's leaderboard of `family`, in the order of
    /// [`GameStore::leaderboard`]; `None` if he has no rating there.
    fn leaderboard_place(
        &self,
        player: &PlayerId,
        family: &str,
    ) -> impl Future<Output = Result<Option<u32>>> + Send;

    /// What rating a finished game changed, by seat; empty if it was not rated.
    fn rating_changes(
        &self,
        game: GameId,
    ) -> impl Future<Output = Result<Vec<RatingChange>>> + Send;

    /// The analysis of `game` ([`crate::analysis`]): queued or running, or finished (the
    /// cache); `None` if none was started.
    fn analysis(&self, game: GameId)
    -> impl Future<Output = Result<Option<AnalysisRecord>>> + Send;

    /// Records an analysis as started (0 of `start.total` positions), unless the game has one
    /// that still counts: a running one whose last progress is at or after
    /// `stale_before_ms`, or a finished one of the same `plies`. Returns whether it was
    /// recorded. Atomic: of two processes starting one game's analysis at once, one gets
    /// `true`. [`StoreError::NotFound`] for an unknown game.
    fn begin_analysis(
        &self,
        start: &AnalysisStart,
        stale_before_ms: i64,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// Records that `owner`'s running analysis of `game` has searched `done` positions.
    /// `false` (nothing written) if the game has no running analysis of `owner`'s (another
    /// process took a stale one over).
    fn analysis_progress(
        &self,
        game: GameId,
        owner: &str,
        done: u32,
        now_ms: i64,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// Stores `owner`'s finished analysis in place of the running one: the game's cached
    /// analysis from now on. `false` (nothing written) as for
    /// [`GameStore::analysis_progress`].
    fn finish_analysis(
        &self,
        analysis: &GameAnalysis,
        owner: &str,
        now_ms: i64,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// Forgets `owner`'s running analysis of `game` (it failed or was stopped), so that it
    /// may be asked for again at once. A finished analysis is kept. Returns whether one was
    /// forgotten.
    fn abandon_analysis(
        &self,
        game: GameId,
        owner: &str,
    ) -> impl Future<Output = Result<bool>> + Send;
}

/// What a store rates when a write leaves `game` (as it is after the write) in this status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToRate {
    /// The rating family.
    pub family: String,
    /// The two players, by seat.
    pub players: [PlayerId; 2],
    /// The first seat's score.
    pub score: Score,
}

/// Whether a write that leaves a game of this rating family and these seats with `status`
/// rates it: a game with a rating family, two seats held by two different players, finishing
/// with a result. Aborted games and games against oneself count for nobody. (Whether it was
/// rated before is the store's business: its rating changes are keyed by the game.)
pub fn to_rate(family: Option<&str>, seats: &[PlayerId], status: &GameStatus) -> Option<ToRate> {
    let family = family?;
    let GameStatus::Finished { result, .. } = status else {
        return None;
    };
    let [first, second] = seats else {
        return None;
    };
    if first == second {
        return None;
    }
    let score = match result {
        GameResult::Win(0) => Score::Win,
        GameResult::Win(1) => Score::Loss,
        GameResult::Win(_) => return None,
        GameResult::Draw => Score::Draw,
    };
    Some(ToRate {
        family: family.to_owned(),
        players: [first.clone(), second.clone()],
        score,
    })
}

/// The leaderboard's order of standings: established first, then by rating, then by more
/// games, then by user id (the memory store sorts by it; SQL stores say the same in SQL).
pub fn leaderboard_order(a: &RatingRecord, b: &RatingRecord) -> std::cmp::Ordering {
    let provisional = |r: &RatingRecord| r.standing.rating.is_provisional();
    provisional(a)
        .cmp(&provisional(b))
        .then(
            b.standing
                .rating
                .rating
                .total_cmp(&a.standing.rating.rating),
        )
        .then(b.standing.games.cmp(&a.standing.games))
        .then(a.player.user.cmp(&b.player.user))
}

/// The checks every backend makes on a [`NewChallenge`](crate::model::NewChallenge): further
/// invitees only after a first one, nobody invited twice, at most 255 of them.
pub fn validate_new_challenge(new: &crate::model::NewChallenge) -> Result<()> {
    if new.challenged.is_none() && !new.more_invited.is_empty() {
        return Err(StoreError::Invalid(
            "an open challenge cannot invite further players".into(),
        ));
    }
    let invited: Vec<&PlayerId> = new.challenged.iter().chain(&new.more_invited).collect();
    if invited.len() > usize::from(u8::MAX) {
        return Err(StoreError::Invalid(format!(
            "{} invitees are too many",
            invited.len()
        )));
    }
    for (i, p) in invited.iter().enumerate() {
        if invited[..i].contains(p) {
            return Err(StoreError::Invalid(format!("{p} is invited twice")));
        }
    }
    Ok(())
}

/// Checks a message to hold: its mentions are on the recipient's platform (a message goes to
/// one platform), and no id holds a line break (the stores keep the mentions one per line).
pub fn validate_held(held: &HeldMessage) -> Result<()> {
    for m in &held.mentions {
        if m.platform != held.to.platform {
            return Err(StoreError::Invalid(format!(
                "a message for {} mentions {m} of another platform",
                held.to
            )));
        }
    }
    if std::iter::once(&held.to)
        .chain(&held.mentions)
        .any(|p| p.user.contains('\n'))
    {
        return Err(StoreError::Invalid("a player id with a line break".into()));
    }
    Ok(())
}

/// The checks every backend makes on a [`NewGame`] before storing it, shared so that they
/// cannot drift apart: at least one seat, and few enough that a seat index fits [`Offer`]'s
/// `u8`.
///
/// [`Offer`]: crate::model::Offer
pub fn validate_new_game(new: &NewGame) -> Result<()> {
    if new.seats.is_empty() {
        return Err(StoreError::Invalid("a game needs at least one seat".into()));
    }
    if new.seats.len() > usize::from(u8::MAX) + 1 {
        return Err(StoreError::Invalid(format!(
            "{} seats do not fit a u8 seat index",
            new.seats.len()
        )));
    }
    Ok(())
}
