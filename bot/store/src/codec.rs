//! Between the core's typed records and the portable column values (text and i64 only, as
//! sqlx `Any` requires). Unknown text read back is [`StoreError::Corrupt`], never a panic or a
//! silent default.

use bot_core::{
    model::{
        ChallengeId, ChallengeRecord, ChallengeStatus, EndReason, GameId, GameRecord, GameResult,
        GameStatus, Offer, OfferKind, Place, Platform, PlayerId, PlayerRecord, SeatSet,
    },
    store::StoreError,
};
use sqlx::{Row, any::AnyRow};

/// A backend error, boxed for the port: [`StoreError::Unavailable`] when the database could
/// not be reached (no connection in time, the pool closed, the connection refused or lost),
/// so the player is told so (issue 27).
pub(crate) fn backend(e: sqlx::Error) -> StoreError {
    match e {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => StoreError::Unavailable(Box::new(e)),
        e => StoreError::Backend(Box::new(e)),
    }
}

fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

/// Read one column, mapping decode errors to `Backend` (a type mismatch is a schema bug).
pub(crate) fn get<'r, T>(row: &'r AnyRow, column: &str) -> Result<T, StoreError>
where
    T: sqlx::Decode<'r, sqlx::Any> + sqlx::Type<sqlx::Any>,
{
    row.try_get(column).map_err(backend)
}

pub(crate) fn platform(text: &str) -> Result<Platform, StoreError> {
    text.parse().map_err(corrupt)
}

/// Status columns: (status, result, reason).
pub(crate) fn game_status_columns(
    status: &GameStatus,
) -> (&'static str, Option<String>, Option<&'static str>) {
    match status {
        GameStatus::Active => ("active", None, None),
        GameStatus::Finished { result, reason } => {
            ("finished", Some(result.as_text()), Some(reason.as_str()))
        }
        GameStatus::Aborted => ("aborted", None, None),
    }
}

fn game_status(
    status: &str,
    result: Option<String>,
    reason: Option<String>,
) -> Result<GameStatus, StoreError> {
    match (status, result, reason) {
        ("active", None, None) => Ok(GameStatus::Active),
        ("finished", Some(result), Some(reason)) => Ok(GameStatus::Finished {
            result: GameResult::parse(&result).map_err(corrupt)?,
            reason: EndReason::parse(&reason).map_err(corrupt)?,
        }),
        ("aborted", None, None) => Ok(GameStatus::Aborted),
        (status, result, reason) => Err(corrupt(format_args!(
            "game status {status:?} with result {result:?} and reason {reason:?}"
        ))),
    }
}

/// Offer columns: (offer_kind, offer_seat, offer_agreed).
pub(crate) fn offer_columns(offer: Option<Offer>) -> (Option<&'static str>, Option<i64>, i64) {
    match offer {
        Some(o) => (
            Some(o.kind.as_str()),
            Some(i64::from(o.by_seat)),
            i64::from(o.agreed.0),
        ),
        None => (None, None, 0),
    }
}

fn offer(
    kind: Option<String>,
    seat: Option<i64>,
    agreed: i64,
) -> Result<Option<Offer>, StoreError> {
    let (kind, seat) = match (kind, seat) {
        (None, None) => return Ok(None),
        (Some(kind), Some(seat)) => (kind, seat),
        (kind, seat) => return Err(corrupt(format_args!("offer {kind:?} by seat {seat:?}"))),
    };
    let kind = match kind.as_str() {
        "draw" => OfferKind::Draw,
        "takeback" => OfferKind::Takeback,
        other => return Err(corrupt(format_args!("offer kind {other:?}"))),
    };
    let by_seat = u8::try_from(seat).map_err(|_| corrupt(format_args!("offer seat {seat}")))?;
    let agreed = u32::try_from(agreed)
        .map(SeatSet)
        .map_err(|_| corrupt(format_args!("offer agreement {agreed}")))?;
    Ok(Some(Offer {
        kind,
        by_seat,
        agreed,
    }))
}

/// A game row's own columns (no moves, no seats), in the aliases `game_columns!` uses.
fn game_columns(row: &AnyRow) -> Result<GameRecord, StoreError> {
    Ok(GameRecord {
        id: GameId(get(row, "id")?),
        variant: get(row, "variant")?,
        options: get(row, "options")?,
        start_state: get(row, "start_state")?,
        moves: Vec::new(),
        seats: Vec::new(),
        place: Place {
            platform: platform(&get::<String>(row, "platform")?)?,
            room: get(row, "room")?,
            thread: get(row, "thread")?,
            private: false,
        },
        status: game_status(
            &get::<String>(row, "status")?,
            get(row, "result")?,
            get(row, "reason")?,
        )?,
        pending_offer: offer(
            get(row, "offer_kind")?,
            get(row, "offer_seat")?,
            get(row, "offer_agreed")?,
        )?,
        clock: get::<Option<String>>(row, "clock")?
            .map(|t| bot_core::time_control::ClockState::parse(&t))
            .transpose()
            .map_err(corrupt)?,
        version: get(row, "version")?,
        rating_family: get(row, "rating_family")?,
        created_at: get(row, "created_at")?,
        updated_at: get(row, "updated_at")?,
    })
}

/// A game row of [`crate::store`]'s game reads: its columns, with its moves and seats
/// aggregated into one JSON text each (`moves`: `[first ply, last ply, [move, …]]`; `seats`:
/// `[[seat, platform, user], …]`), checked so that a gap in either is [`StoreError::Corrupt`]
/// (a missing ply would silently change the position replayed from the moves).
pub(crate) fn game(row: &AnyRow) -> Result<GameRecord, StoreError> {
    let mut game = game_columns(row)?;
    let moves: String = get(row, "moves")?;
    let (first, last, moves): (Option<i64>, Option<i64>, Vec<String>) =
        serde_json::from_str(&moves)
            .map_err(|e| corrupt(format_args!("game {} has unreadable moves: {e}", game.id)))?;
    let plies = i64::try_from(moves.len()).unwrap_or(i64::MAX);
    let contiguous = match (first, last) {
        (None, None) => moves.is_empty(),
        (Some(first), Some(last)) => first == 0 && last == plies - 1,
        _ => false,
    };
    if !contiguous {
        return Err(corrupt(format_args!(
            "game {} has {plies} moves from ply {first:?} to ply {last:?}",
            game.id
        )));
    }
    game.moves = moves;
    let seats: String = get(row, "seats")?;
    let seats: Vec<(i64, String, String)> = serde_json::from_str(&seats)
        .map_err(|e| corrupt(format_args!("game {} has unreadable seats: {e}", game.id)))?;
    for (expected, (seat, platform_name, user)) in seats.into_iter().enumerate() {
        if usize::try_from(seat).ok() != Some(expected) {
            return Err(corrupt(format_args!(
                "game {} has seat {seat} where seat {expected} was expected",
                game.id
            )));
        }
        game.seats.push(PlayerId {
            platform: platform(&platform_name)?,
            user,
        });
    }
    Ok(game)
}

pub(crate) fn challenge_status_text(status: ChallengeStatus) -> &'static str {
    match status {
        ChallengeStatus::Pending => "pending",
        ChallengeStatus::Accepted(_) => "accepted",
        ChallengeStatus::Declined => "declined",
        ChallengeStatus::Cancelled => "cancelled",
        ChallengeStatus::Expired => "expired",
    }
}

fn challenge_status(status: &str, game: Option<i64>) -> Result<ChallengeStatus, StoreError> {
    match (status, game) {
        ("pending", None) => Ok(ChallengeStatus::Pending),
        ("accepted", Some(id)) => Ok(ChallengeStatus::Accepted(GameId(id))),
        ("declined", None) => Ok(ChallengeStatus::Declined),
        ("cancelled", None) => Ok(ChallengeStatus::Cancelled),
        ("expired", None) => Ok(ChallengeStatus::Expired),
        (status, game) => Err(corrupt(format_args!(
            "challenge status {status:?} with game {game:?}"
        ))),
    }
}

/// A challenge row in the aliases `challenge_columns!` uses.
pub(crate) fn challenge(row: &AnyRow) -> Result<ChallengeRecord, StoreError> {
    let challenged = match (
        get::<Option<String>>(row, "challenged_platform")?,
        get::<Option<String>>(row, "challenged_user")?,
    ) {
        (None, None) => None,
        (Some(p), Some(user)) => Some(PlayerId {
            platform: platform(&p)?,
            user,
        }),
        (p, u) => return Err(corrupt(format_args!("challenged player {p:?} / {u:?}"))),
    };
    Ok(ChallengeRecord {
        id: ChallengeId(get(row, "id")?),
        challenger: PlayerId {
            platform: platform(&get::<String>(row, "challenger_platform")?)?,
            user: get(row, "challenger_user")?,
        },
        challenged,
        // Filled in from `challenge_invitees` by the store (`SqlStore::load_invitees`).
        more_invited: Vec::new(),
        accepted: Vec::new(),
        variant: get(row, "variant")?,
        options: get(row, "options")?,
        place: Place {
            platform: platform(&get::<String>(row, "platform")?)?,
            room: get(row, "room")?,
            thread: get(row, "thread")?,
            private: false,
        },
        status: challenge_status(&get::<String>(row, "status")?, get(row, "game_id")?)?,
        created_at: get(row, "created_at")?,
        updated_at: get(row, "updated_at")?,
    })
}

/// Add a `challenge_invitees` row (read in seat order from 1): seat 1 is the challenged
/// player already read from the challenge row, later seats are further invitees, and an
/// acceptance time marks who has accepted.
pub(crate) fn push_invitee(
    challenge: &mut ChallengeRecord,
    row: &AnyRow,
) -> Result<(), StoreError> {
    let seat: i64 = get(row, "seat")?;
    let player = PlayerId {
        platform: platform(&get::<String>(row, "platform")?)?,
        user: get(row, "user_id")?,
    };
    let expected = 2 + challenge.more_invited.len() as i64;
    match seat {
        1 if challenge.challenged.as_ref() == Some(&player)
            && challenge.more_invited.is_empty() => {}
        s if s == expected && s > 1 => challenge.more_invited.push(player.clone()),
        _ => {
            return Err(corrupt(format_args!(
                "challenge {} has invitee seat {seat} ({player}) out of order",
                challenge.id
            )));
        }
    }
    if get::<Option<i64>>(row, "accepted_at")?.is_some() {
        challenge.accepted.push(player);
    }
    Ok(())
}

/// A player row in the aliases `player_columns!` uses.
pub(crate) fn player(row: &AnyRow) -> Result<PlayerRecord, StoreError> {
    Ok(PlayerRecord {
        id: PlayerId {
            platform: platform(&get::<String>(row, "platform")?)?,
            user: get(row, "user_id")?,
        },
        display_name: get(row, "display_name")?,
        reminders: get::<i64>(row, "reminders")? != 0,
        created_at: get(row, "created_at")?,
        updated_at: get(row, "updated_at")?,
    })
}
