//! Plain records that the game service keeps in a [`GameStore`](crate::store::GameStore).
//!
//! They know nothing of the rules engine on purpose: variant names, options, start states and
//! moves are the strings the engine writes and reads back. The store can then stay unchanged
//! when a variant or a notation is added, and a game is replayed from `start_state` + `moves`,
//! which are the source of truth (a cached position could drift from them; the moves cannot).
//!
//! Times are unix seconds chosen by the caller (the service's clock), never read by the store,
//! so tests are deterministic and every backend stores the same number; a game's clock
//! ([`ClockState`]) counts in milliseconds, because a real-time move is decided by them.

use std::{fmt, str::FromStr};

pub use crate::time_control::ClockState;

/// The chat platform a player or a room belongs to.
///
/// User and room ids are only unique within one platform, so every id carries it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// Discord (users and channels are snowflakes).
    Discord,
    /// Matrix (`@user:server`, `!room:server`).
    Matrix,
    /// The local console frontend.
    Console,
}

impl Platform {
    /// Every platform, for exhaustive tests and help texts.
    pub const ALL: [Platform; 3] = [Platform::Discord, Platform::Matrix, Platform::Console];

    /// The stable lowercase name used in storage and configuration.
    pub const fn as_str(self) -> &'static str {
        match self {
            Platform::Discord => "discord",
            Platform::Matrix => "matrix",
            Platform::Console => "console",
        }
    }
}

impl Platform {
    /// Whether a command typed in a room is read by everyone there. On Matrix a command is an
    /// ordinary message; a Discord slash command's options are shown to nobody but the bot;
    /// the console is one shared keyboard. Secret input (a Looking-Glass back rank or order)
    /// is refused in a game's room where this holds, before the bot acts on it.
    pub const fn commands_are_public(self) -> bool {
        matches!(self, Platform::Matrix)
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A platform name that is not one of [`Platform::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown platform {0:?} (expected discord, matrix or console)")]
pub struct UnknownPlatform(pub String);

impl FromStr for Platform {
    type Err = UnknownPlatform;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Platform::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownPlatform(s.to_owned()))
    }
}

/// Who a player is: a user id on one platform. Display names live in [`PlayerRecord`],
/// because they change while the id does not.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct PlayerId {
    /// The platform the user id belongs to.
    pub platform: Platform,
    /// The platform's own user id (a Discord snowflake, a Matrix `@user:server`, a console name).
    pub user: String,
}

impl PlayerId {
    /// A player id from its parts.
    pub fn new(platform: Platform, user: impl Into<String>) -> Self {
        PlayerId {
            platform,
            user: user.into(),
        }
    }
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.platform, self.user)
    }
}

/// Where a game or a challenge lives: a room (Discord channel, Matrix room, console session),
/// optionally a thread inside it, so that several games can share a room.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Place {
    /// The platform the room belongs to.
    pub platform: Platform,
    /// The platform's room or channel id.
    pub room: String,
    /// A thread inside the room, when the game has its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// Whether only the speaker and the bot read this room (a direct chat). Not stored with
    /// games: it describes where a command came from, and decides where secret input (a
    /// Looking-Glass back rank or order) may be typed. Left out of JSON when false (the
    /// outbox stores a place with every reply).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
}

impl Place {
    /// A place for a whole room (no thread).
    pub fn room(platform: Platform, room: impl Into<String>) -> Self {
        Place {
            platform,
            room: room.into(),
            thread: None,
            private: false,
        }
    }

    /// A player's direct chat with the bot, which nobody else reads.
    pub fn direct(platform: Platform, room: impl Into<String>) -> Self {
        Place {
            private: true,
            ..Place::room(platform, room)
        }
    }

    /// The same room, narrowed to one thread.
    pub fn in_thread(mut self, thread: impl Into<String>) -> Self {
        self.thread = Some(thread.into());
        self
    }

    /// Whether two places are the same room and thread (whether the command came from a
    /// direct chat is not part of where a message goes).
    pub fn same_room(&self, other: &Place) -> bool {
        self.platform == other.platform && self.room == other.room && self.thread == other.thread
    }

    /// Whether `other` lies within `self` when `self` is used as a filter: a place without a
    /// thread covers the whole room including its threads; with a thread, only that thread.
    /// This is how the store's listings match places.
    pub fn covers(&self, other: &Place) -> bool {
        self.platform == other.platform
            && self.room == other.room
            && (self.thread.is_none() || self.thread == other.thread)
    }
}

/// A game's id, assigned by the store.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct GameId(pub i64);

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A challenge's id, assigned by the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChallengeId(pub i64);

impl fmt::Display for ChallengeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Where a game is in its lifecycle.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GameStatus {
    /// Being played.
    Active,
    /// Over, with a result and the reason the engine or a player gave.
    Finished {
        /// Who won, if anyone.
        result: GameResult,
        /// Why it ended.
        reason: EndReason,
    },
    /// Called off before it really started; counts for nobody.
    Aborted,
}

impl GameStatus {
    /// Whether moves may still be played.
    pub fn is_active(&self) -> bool {
        matches!(self, GameStatus::Active)
    }
}

/// How a finished game came out, by seat (the index into [`GameRecord::seats`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// This seat won.
    Win(u8),
    /// Nobody won.
    Draw,
}

impl GameResult {
    /// The result as stored and exported: PGN's `1-0`, `0-1` and `1/2-1/2` for two seats,
    /// `seat N wins` beyond them.
    pub fn as_text(self) -> String {
        match self {
            GameResult::Win(0) => "1-0".into(),
            GameResult::Win(1) => "0-1".into(),
            GameResult::Win(n) => format!("seat {n} wins"),
            GameResult::Draw => "1/2-1/2".into(),
        }
    }

    /// Reads [`GameResult::as_text`] back.
    ///
    /// # Errors
    /// When the text is none of those forms.
    pub fn parse(text: &str) -> Result<GameResult, UnknownName> {
        match text {
            "1-0" => Ok(GameResult::Win(0)),
            "0-1" => Ok(GameResult::Win(1)),
            "1/2-1/2" => Ok(GameResult::Draw),
            other => other
                .strip_prefix("seat ")
                .and_then(|s| s.strip_suffix(" wins"))
                .and_then(|n| n.parse().ok())
                .map(GameResult::Win)
                .ok_or_else(|| UnknownName::new("game result", other)),
        }
    }
}

/// Why a game ended. Each engine's ending and each player's decision is one reason, so an
/// announcement, an export and a rating all read the same value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The loser's royal piece is attacked and it has no legal move.
    Checkmate,
    /// The winner captured every piece the variant's victory rule lists (CoBlaChe).
    Captures,
    /// The King was captured (Through the Looking-Glass has no check).
    KingCaptured,
    /// The loser's third impossible order (Through the Looking-Glass).
    ThirdStrike,
    /// The player to move has no legal move and is not in check.
    Stalemate,
    /// The same position occurred the variant's number of times.
    Repetition,
    /// The fifty-move rule: 100 plies without a capture or a pawn move.
    FiftyMoves,
    /// Neither side can win any more.
    InsufficientMaterial,
    /// The bare-King rule (Courier): the loser was left with his King alone and did not bare
    /// the winner's at once; a draw when both Kings are bare.
    BareKing,
    /// A player resigned.
    Resignation,
    /// The players agreed to a draw.
    Agreement,
    /// The loser's time ran out (a draw when his opponent could not have mated).
    Timeout,
}

impl EndReason {
    /// Every reason, for round-trip tests.
    pub const ALL: [EndReason; 12] = [
        EndReason::Checkmate,
        EndReason::Captures,
        EndReason::KingCaptured,
        EndReason::ThirdStrike,
        EndReason::Stalemate,
        EndReason::Repetition,
        EndReason::FiftyMoves,
        EndReason::InsufficientMaterial,
        EndReason::BareKing,
        EndReason::Resignation,
        EndReason::Agreement,
        EndReason::Timeout,
    ];

    /// The stable name used in storage.
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Captures => "captures",
            EndReason::KingCaptured => "king-captured",
            EndReason::ThirdStrike => "third-strike",
            EndReason::Stalemate => "stalemate",
            EndReason::Repetition => "repetition",
            EndReason::FiftyMoves => "fifty-moves",
            EndReason::InsufficientMaterial => "insufficient-material",
            EndReason::BareKing => "bare-king",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Timeout => "timeout",
        }
    }

    /// Reads a stored name, including the sentences stored before reasons were typed
    /// (`the fifty-move rule`, `King captured`, `third strike`, `insufficient material`).
    ///
    /// # Errors
    /// When the text names no reason.
    pub fn parse(text: &str) -> Result<EndReason, UnknownName> {
        let legacy = match text {
            "the fifty-move rule" => Some(EndReason::FiftyMoves),
            "insufficient material" => Some(EndReason::InsufficientMaterial),
            "King captured" => Some(EndReason::KingCaptured),
            "third strike" => Some(EndReason::ThirdStrike),
            _ => None,
        };
        legacy
            .or_else(|| Self::ALL.into_iter().find(|r| r.as_str() == text))
            .ok_or_else(|| UnknownName::new("end reason", text))
    }

    /// The reason as players read it, in a sentence ("Draw by {}.", PGN's `Termination`).
    pub const fn describe(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Captures => "the capture of every piece that wins",
            EndReason::KingCaptured => "the capture of the King",
            EndReason::ThirdStrike => "a third strike",
            EndReason::Stalemate => "stalemate",
            EndReason::Repetition => "repetition",
            EndReason::FiftyMoves => "the fifty-move rule",
            EndReason::InsufficientMaterial => "insufficient material",
            EndReason::BareKing => "the bare King rule",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Timeout => "time running out",
        }
    }

    /// The headline of a win by this reason, as announced ("Checkmate — A beats B").
    pub const fn headline(self) -> &'static str {
        match self {
            EndReason::Checkmate => "Checkmate",
            EndReason::Captures => "Every piece that wins is captured",
            EndReason::KingCaptured => "The King is captured",
            EndReason::ThirdStrike => "Third strike",
            EndReason::Stalemate => "Stalemate",
            EndReason::Repetition => "Repetition",
            EndReason::FiftyMoves => "Fifty-move rule",
            EndReason::InsufficientMaterial => "Insufficient material",
            EndReason::BareKing => "Bare King",
            EndReason::Resignation => "Resignation",
            EndReason::Agreement => "Agreement",
            EndReason::Timeout => "Time",
        }
    }
}

/// A stored name that names nothing of its kind (a corrupt or newer record).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} {text:?}")]
pub struct UnknownName {
    /// What was being read.
    pub kind: &'static str,
    /// The text found.
    pub text: String,
}

impl UnknownName {
    fn new(kind: &'static str, text: &str) -> Self {
        UnknownName {
            kind,
            text: text.chars().take(40).collect(),
        }
    }
}

/// What a pending offer asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OfferKind {
    /// End the game as a draw.
    Draw,
    /// Undo the last move (or the last full round, as the service decides).
    Takeback,
}

impl OfferKind {
    /// The stable lowercase name used in storage.
    pub const fn as_str(self) -> &'static str {
        match self {
            OfferKind::Draw => "draw",
            OfferKind::Takeback => "takeback",
        }
    }
}

/// An offer one seat has made and the others have not answered yet. At most one is pending per
/// game; a move normally withdraws it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Offer {
    /// What is offered.
    pub kind: OfferKind,
    /// The index into [`GameRecord::seats`] of the seat that made the offer.
    pub by_seat: u8,
    /// The other seats that have agreed so far. In a game of more than two seats an offer
    /// needs several answers, each its own command, so the agreements are stored with the
    /// offer (two seats: always empty, the one answer settles it).
    pub agreed: SeatSet,
}

impl Offer {
    /// A new offer by `by_seat`, nobody agreeing yet.
    pub fn new(kind: OfferKind, by_seat: u8) -> Self {
        Offer {
            kind,
            by_seat,
            agreed: SeatSet::EMPTY,
        }
    }
}

/// A set of seat indices (0..32), as a bit mask: small, `Copy`, and stored as one integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SeatSet(pub u32);

impl SeatSet {
    /// No seat.
    pub const EMPTY: SeatSet = SeatSet(0);

    /// Whether `seat` is in the set.
    pub fn contains(self, seat: u8) -> bool {
        seat < 32 && self.0 & (1 << seat) != 0
    }

    /// The set with `seat` added (seats beyond 31 cannot be held and are ignored; games have
    /// at most four).
    #[must_use]
    pub fn with(self, seat: u8) -> SeatSet {
        if seat < 32 {
            SeatSet(self.0 | (1 << seat))
        } else {
            self
        }
    }

    /// The seats in the set, in order.
    pub fn seats(self) -> impl Iterator<Item = u8> {
        (0..32u8).filter(move |&s| self.contains(s))
    }
}

/// One game as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    /// The store's id.
    pub id: GameId,
    /// The variant's name as the engine knows it.
    pub variant: String,
    /// Variant options (TOML or JSON text), opaque to the store.
    pub options: String,
    /// The engine's text for the starting position.
    pub start_state: String,
    /// Every move played, in order, in the engine's coordinate notation: the source of truth.
    pub moves: Vec<String>,
    /// The players, in turn order (2 or 4 for the current variants).
    pub seats: Vec<PlayerId>,
    /// Where the game is played.
    pub place: Place,
    /// Lifecycle state.
    pub status: GameStatus,
    /// The offer waiting for an answer, if any.
    pub pending_offer: Option<Offer>,
    /// The clock, in a game with a time control (see [`crate::time_control`]).
    pub clock: Option<ClockState>,
    /// Bumped by every change; writers pass the version they read (optimistic concurrency).
    pub version: i64,
    /// The rating family the game counts for, fixed when it was created; `None`: unrated.
    /// The store rates a two-seat game when it finishes (see the store's ratings section).
    pub rating_family: Option<String>,
    /// Unix seconds when the game was created.
    pub created_at: i64,
    /// Unix seconds of the last change.
    pub updated_at: i64,
}

impl GameRecord {
    /// Number of half-moves played.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// The seat index of `player`, if they play in this game (the first seat if they hold
    /// several, as in a game against oneself).
    pub fn seat_of(&self, player: &PlayerId) -> Option<u8> {
        self.seats
            .iter()
            .position(|p| p == player)
            .and_then(|i| u8::try_from(i).ok())
    }
}

/// What the service supplies to create a game; the store adds the id, an empty move list,
/// [`GameStatus::Active`], no offer and version 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGame {
    /// See [`GameRecord::variant`].
    pub variant: String,
    /// See [`GameRecord::options`].
    pub options: String,
    /// See [`GameRecord::start_state`].
    pub start_state: String,
    /// See [`GameRecord::seats`]; must not be empty.
    pub seats: Vec<PlayerId>,
    /// See [`GameRecord::place`].
    pub place: Place,
    /// See [`GameRecord::rating_family`].
    pub rating_family: Option<String>,
    /// See [`GameRecord::clock`]: started when the game is created.
    pub clock: Option<ClockState>,
    /// Unix seconds; also the first `updated_at`.
    pub created_at: i64,
}

/// The state a versioned write leaves the game in. Status and offer are always written, so
/// the service states the whole outcome of a command (for example: the move mated, so the
/// status is finished and the pending draw offer is gone) and nothing is left half-updated.
/// The clock is written when given; a write that leaves it `None` (an offer, a resignation)
/// keeps the stored one, and once a game is no longer active the store forgets when to wake
/// for it, so no deadline of a finished game is ever fired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameUpdate {
    /// The status after the write.
    pub status: GameStatus,
    /// The offer pending after the write.
    pub pending_offer: Option<Offer>,
    /// The clock after the write; `None`: unchanged.
    pub clock: Option<ClockState>,
    /// What to say about the write, posted to the outbox in its transaction
    /// ([`crate::outbox`]): the write and its announcement are stored both or neither.
    pub tell: crate::outbox::Tell,
}

impl GameUpdate {
    /// Still active, no offer pending: what most moves leave behind.
    pub fn active() -> Self {
        GameUpdate {
            status: GameStatus::Active,
            pending_offer: None,
            clock: None,
            tell: Default::default(),
        }
    }

    /// The game ends with `status` (a result, or aborted): no offer stays pending, and the
    /// stored clock is kept as it stands.
    pub fn ended(status: GameStatus) -> Self {
        GameUpdate {
            status,
            ..GameUpdate::active()
        }
    }

    /// The game finishes with `result` for `reason`.
    pub fn finished(result: GameResult, reason: EndReason) -> Self {
        GameUpdate::ended(GameStatus::Finished { result, reason })
    }

    /// The same update, also writing `clock`.
    #[must_use]
    pub fn with_clock(mut self, clock: Option<ClockState>) -> Self {
        self.clock = clock;
        self
    }
}

/// Where a challenge is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChallengeStatus {
    /// Waiting for an answer.
    Pending,
    /// Accepted; the game it started.
    Accepted(GameId),
    /// Turned down by the challenged player.
    Declined,
    /// Withdrawn by the challenger.
    Cancelled,
    /// Not answered in time.
    Expired,
}

impl fmt::Display for ChallengeStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChallengeStatus::Pending => f.write_str("pending"),
            ChallengeStatus::Accepted(game) => write!(f, "accepted (game {game})"),
            ChallengeStatus::Declined => f.write_str("declined"),
            ChallengeStatus::Cancelled => f.write_str("cancelled"),
            ChallengeStatus::Expired => f.write_str("expired"),
        }
    }
}

/// The ways a pending challenge can end without a game; acceptance goes through
/// [`GameStore::accept_challenge`](crate::store::GameStore::accept_challenge) instead, because
/// it must create the game in the same transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChallengeResolution {
    /// See [`ChallengeStatus::Declined`].
    Declined,
    /// See [`ChallengeStatus::Cancelled`].
    Cancelled,
    /// See [`ChallengeStatus::Expired`].
    Expired,
}

impl From<ChallengeResolution> for ChallengeStatus {
    fn from(r: ChallengeResolution) -> Self {
        match r {
            ChallengeResolution::Declined => ChallengeStatus::Declined,
            ChallengeResolution::Cancelled => ChallengeStatus::Cancelled,
            ChallengeResolution::Expired => ChallengeStatus::Expired,
        }
    }
}

/// One challenge as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeRecord {
    /// The store's id.
    pub id: ChallengeId,
    /// Who challenged.
    pub challenger: PlayerId,
    /// Who is challenged; `None` for an open challenge that anyone in the place may accept.
    /// Acceptance fills it in with the accepting player. In a challenge to several players,
    /// the first of them (the second seat).
    pub challenged: Option<PlayerId>,
    /// The further players challenged, in seat order after `challenged` (a four-player game
    /// names three opponents); empty for a two-player challenge.
    pub more_invited: Vec<PlayerId>,
    /// The invitees who have accepted so far, while a challenge to several players waits for
    /// the rest (each accepts by his own command); empty for a two-player challenge, whose one
    /// acceptance starts the game at once.
    pub accepted: Vec<PlayerId>,
    /// The variant's name as the engine knows it.
    pub variant: String,
    /// Variant options (TOML or JSON text), opaque to the store.
    pub options: String,
    /// Where the challenge was made, and where its game will live.
    pub place: Place,
    /// Lifecycle state.
    pub status: ChallengeStatus,
    /// Unix seconds when the challenge was made.
    pub created_at: i64,
    /// Unix seconds of the last change (the resolution, once resolved).
    pub updated_at: i64,
}

impl ChallengeRecord {
    /// Every invited player in seat order (empty for an open challenge not yet accepted).
    pub fn invitees(&self) -> impl Iterator<Item = &PlayerId> {
        self.challenged.iter().chain(self.more_invited.iter())
    }

    /// Whether `player` is one of the invited players.
    pub fn is_invited(&self, player: &PlayerId) -> bool {
        self.invitees().any(|p| p == player)
    }

    /// The invitees who have not accepted yet, in seat order.
    pub fn waiting_for(&self) -> Vec<PlayerId> {
        self.invitees()
            .filter(|p| !self.accepted.contains(p))
            .cloned()
            .collect()
    }
}

/// What the service supplies to create a challenge; the store adds the id and
/// [`ChallengeStatus::Pending`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewChallenge {
    /// See [`ChallengeRecord::challenger`].
    pub challenger: PlayerId,
    /// See [`ChallengeRecord::challenged`].
    pub challenged: Option<PlayerId>,
    /// See [`ChallengeRecord::more_invited`]; empty for a two-player challenge. Only a
    /// challenge with `challenged` set may have more.
    pub more_invited: Vec<PlayerId>,
    /// See [`ChallengeRecord::variant`].
    pub variant: String,
    /// See [`ChallengeRecord::options`].
    pub options: String,
    /// See [`ChallengeRecord::place`].
    pub place: Place,
    /// Unix seconds; also the first `updated_at`.
    pub created_at: i64,
}

/// One player's standing in one rating family, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingRecord {
    /// Who.
    pub player: PlayerId,
    /// His display name as last seen (empty if never recorded).
    pub name: String,
    /// The rating family ([`rules::Variant::rating_family`]).
    pub family: String,
    /// His rating and tally there.
    pub standing: crate::rating::Standing,
}

/// What one rated game did to one seat's rating.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingChange {
    /// The seat.
    pub seat: u8,
    /// Its player.
    pub player: PlayerId,
    /// The rating before the game (idle time charged).
    pub before: f64,
    /// The rating after it.
    pub after: f64,
}

/// One player as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerRecord {
    /// Who the player is.
    pub id: PlayerId,
    /// The name last seen on the platform.
    pub display_name: String,
    /// Whether he wants reminders of his correspondence moves (`remind on|off`; on unless he
    /// said otherwise).
    pub reminders: bool,
    /// Unix seconds when the player was first seen.
    pub created_at: i64,
    /// Unix seconds of the last change.
    pub updated_at: i64,
}

/// A private message its platform would not deliver (the player's direct messages are
/// closed, or the platform kept failing), held by the store until the player next asks:
/// kept durably, so a restart loses nothing a player was owed.
///
/// Only the words and the game are kept, not the picture: when the message is shown, the
/// game's board is drawn as it is then (the player's own view), which is what he needs to
/// play on, and it cannot show him anything he was not told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldMessage {
    /// Who it is for.
    pub to: PlayerId,
    /// The game it is about, if any.
    pub game: Option<GameId>,
    /// The text, with `{0}`, `{1}`... for the mentions, as in a reply.
    pub text: String,
    /// Players mentioned, on the recipient's platform.
    pub mentions: Vec<PlayerId>,
    /// Whether the message carried a board picture (shown again, drawn anew, with it).
    pub with_board: bool,
    /// Unix seconds when it was held.
    pub at: i64,
}

impl HeldMessage {
    /// How many messages are held per player at most: past it the oldest go (a player away
    /// for a long game is shown the latest, and his board shows the rest of the story).
    pub const PER_PLAYER: usize = 20;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_and_reasons_round_trip_and_read_their_old_names() {
        for r in [
            GameResult::Win(0),
            GameResult::Win(1),
            GameResult::Win(3),
            GameResult::Draw,
        ] {
            assert_eq!(GameResult::parse(&r.as_text()), Ok(r));
        }
        assert!(GameResult::parse("½-½").is_err());
        let mut headlines = std::collections::HashSet::new();
        for r in EndReason::ALL {
            assert_eq!(EndReason::parse(r.as_str()), Ok(r));
            // Each reason is announced as itself: no win by captures called a checkmate.
            assert!(headlines.insert(r.headline()), "{r:?}");
            assert!(
                r == EndReason::Checkmate || !r.headline().contains("heckmate"),
                "{r:?}"
            );
        }
        for (old, r) in [
            ("the fifty-move rule", EndReason::FiftyMoves),
            ("insufficient material", EndReason::InsufficientMaterial),
            ("King captured", EndReason::KingCaptured),
            ("third strike", EndReason::ThirdStrike),
        ] {
            assert_eq!(EndReason::parse(old), Ok(r));
        }
        assert!(EndReason::parse("flag").is_err());
    }

    #[test]
    fn platform_names_round_trip() {
        for p in Platform::ALL {
            assert_eq!(p.as_str().parse::<Platform>(), Ok(p));
        }
        assert!("irc".parse::<Platform>().is_err());
    }

    #[test]
    fn room_place_covers_its_threads_but_not_other_rooms() {
        let room = Place::room(Platform::Discord, "1");
        let thread = room.clone().in_thread("9");
        assert!(room.covers(&room));
        assert!(room.covers(&thread));
        assert!(thread.covers(&thread));
        assert!(!thread.covers(&room));
        assert!(!room.covers(&Place::room(Platform::Discord, "2")));
        assert!(!room.covers(&Place::room(Platform::Matrix, "1")));
    }
}
