//! Ratings in SQL: rating a game inside the transaction that finishes it, and the reads of
//! profiles and leaderboards.
//!
//! Rating one game reads and writes both players' rows. Two games finishing at once for one
//! player must not both read his old rating (a lost update), so the rows are created if
//! missing and then locked in one fixed order (by platform, user id) before they are read:
//! on PostgreSQL with `SELECT … FOR UPDATE` (the insert of a missing row also waits for a
//! concurrent insert of the same key to commit); on SQLite the whole write transaction
//! already holds the database's write lock.

use bot_core::{
    model::{GameId, GameStatus, Platform, PlayerId, RatingChange, RatingRecord},
    rating::{self, PROVISIONAL_DEVIATION, Rating, Standing},
    store::{Result, StoreError, to_rate},
};
use sqlx::{AnyConnection, any::AnyRow};

use crate::{
    codec::{self, backend, get},
    open::Backend,
};

/// The columns of `ratings r` joined with `players p`, as [`record`] reads them.
const RATING_COLUMNS: &str = "r.platform AS platform, r.user_id AS user_id, r.family AS family, \
     r.rating AS rating, r.deviation AS deviation, r.volatility AS volatility, \
     r.games AS games, r.wins AS wins, r.draws AS draws, r.losses AS losses, \
     r.updated_at AS updated_at, COALESCE(p.display_name, '') AS display_name";

/// `ratings r LEFT JOIN players p`, for the display name.
const RATINGS_WITH_NAMES: &str = "ratings r LEFT JOIN players p \
     ON p.platform = r.platform AND p.user_id = r.user_id";

/// The leaderboard's order in SQL, kept equal to [`bot_core::store::leaderboard_order`]:
/// established first (`$1` is [`PROVISIONAL_DEVIATION`]), then rating, games, user id.
const LEADERBOARD_ORDER: &str = "CASE WHEN r.deviation > $1 THEN 1 ELSE 0 END, \
     r.rating DESC, r.games DESC, r.user_id";

/// Rates game `id` if the write that just left it with `status` (inside `conn`'s open
/// transaction) finishes a rated game that was not rated before. See the store port's
/// ratings section for the rule.
pub(crate) async fn rate_if_finished(
    conn: &mut AnyConnection,
    backend_kind: Backend,
    id: GameId,
    status: &GameStatus,
    at: i64,
) -> Result<()> {
    if !matches!(status, GameStatus::Finished { .. }) {
        return Ok(());
    }
    let family: Option<String> =
        sqlx::query_scalar("SELECT rating_family FROM games WHERE id = $1")
            .bind(id.0)
            .fetch_one(&mut *conn)
            .await
            .map_err(backend)?;
    let Some(family) = family else {
        return Ok(());
    };
    let rows = sqlx::query("SELECT platform, user_id FROM seats WHERE game_id = $1 ORDER BY seat")
        .bind(id.0)
        .fetch_all(&mut *conn)
        .await
        .map_err(backend)?;
    let seats = rows
        .iter()
        .map(|row| {
            Ok(PlayerId {
                platform: codec::platform(&get::<String>(row, "platform")?)?,
                user: get(row, "user_id")?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let Some(rate) = to_rate(Some(&family), &seats, status) else {
        return Ok(());
    };
    let rated_before: Option<i64> =
        sqlx::query_scalar("SELECT seat FROM rating_changes WHERE game_id = $1 LIMIT 1")
            .bind(id.0)
            .fetch_optional(&mut *conn)
            .await
            .map_err(backend)?;
    if rated_before.is_some() {
        return Ok(());
    }
    let [first, second] = &rate.players;
    // Lock in one order whatever the seats, so two games of the same two players finishing
    // at once cannot deadlock.
    let mut in_order = [first, second];
    in_order.sort_by(|a, b| (a.platform.as_str(), &a.user).cmp(&(b.platform.as_str(), &b.user)));
    let mut standings = Vec::with_capacity(2);
    for player in in_order {
        standings.push((
            player,
            lock_standing(conn, backend_kind, player, &rate.family, at).await?,
        ));
    }
    let standing_of = |p: &PlayerId| {
        standings
            .iter()
            .find(|(q, _)| *q == p)
            .map(|(_, s)| *s)
            .ok_or_else(|| StoreError::Corrupt(format!("no standing locked for {p}")))
    };
    let (a, b) = (standing_of(first)?, standing_of(second)?);
    let (new_a, new_b) = rating::settle(a, b, rate.score, at);
    for (seat, player, before, after) in [(0, first, a, new_a), (1, second, b, new_b)] {
        write_standing(conn, player, &rate.family, &after).await?;
        sqlx::query(
            "INSERT INTO rating_changes (game_id, seat, platform, user_id, family, \
             rating_before, rating_after, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(id.0)
        .bind(seat as i64)
        .bind(player.platform.as_str())
        .bind(&player.user)
        .bind(&rate.family)
        .bind(before.rating.rating)
        .bind(after.rating.rating)
        .bind(at)
        .execute(&mut *conn)
        .await
        .map_err(backend)?;
    }
    Ok(())
}

/// The player's standing in `family`, created as a new player's if missing, and locked for
/// the rest of the transaction.
async fn lock_standing(
    conn: &mut AnyConnection,
    backend_kind: Backend,
    player: &PlayerId,
    family: &str,
    at: i64,
) -> Result<Standing> {
    let fresh = Standing::new_player(at);
    sqlx::query(
        "INSERT INTO ratings (platform, user_id, family, rating, deviation, volatility, \
         games, wins, draws, losses, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 0, 0, 0, 0, $7) \
         ON CONFLICT (platform, user_id, family) DO NOTHING",
    )
    .bind(player.platform.as_str())
    .bind(&player.user)
    .bind(family)
    .bind(fresh.rating.rating)
    .bind(fresh.rating.deviation)
    .bind(fresh.rating.volatility)
    .bind(at)
    .execute(&mut *conn)
    .await
    .map_err(backend)?;
    let lock = match backend_kind {
        Backend::Postgres => " FOR UPDATE",
        Backend::Sqlite => "",
    };
    let sql = format!(
        "SELECT rating, deviation, volatility, games, wins, draws, losses, updated_at \
         FROM ratings WHERE platform = $1 AND user_id = $2 AND family = $3{lock}"
    );
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(player.platform.as_str())
        .bind(&player.user)
        .bind(family)
        .fetch_one(&mut *conn)
        .await
        .map_err(backend)?;
    standing(&row)
}

async fn write_standing(
    conn: &mut AnyConnection,
    player: &PlayerId,
    family: &str,
    s: &Standing,
) -> Result<()> {
    sqlx::query(
        "UPDATE ratings SET rating = $1, deviation = $2, volatility = $3, games = $4, \
         wins = $5, draws = $6, losses = $7, updated_at = $8 \
         WHERE platform = $9 AND user_id = $10 AND family = $11",
    )
    .bind(s.rating.rating)
    .bind(s.rating.deviation)
    .bind(s.rating.volatility)
    .bind(i64::from(s.games))
    .bind(i64::from(s.wins))
    .bind(i64::from(s.draws))
    .bind(i64::from(s.losses))
    .bind(s.updated_at)
    .bind(player.platform.as_str())
    .bind(&player.user)
    .bind(family)
    .execute(&mut *conn)
    .await
    .map_err(backend)?;
    Ok(())
}

fn count(row: &AnyRow, column: &str) -> Result<u32> {
    let n: i64 = get(row, column)?;
    u32::try_from(n).map_err(|_| StoreError::Corrupt(format!("{column} {n} out of range")))
}

fn standing(row: &AnyRow) -> Result<Standing> {
    let rating = Rating {
        rating: get(row, "rating")?,
        deviation: get(row, "deviation")?,
        volatility: get(row, "volatility")?,
    };
    if !(rating.rating.is_finite() && rating.deviation > 0.0 && rating.volatility > 0.0) {
        return Err(StoreError::Corrupt(format!("impossible rating {rating:?}")));
    }
    Ok(Standing {
        rating,
        games: count(row, "games")?,
        wins: count(row, "wins")?,
        draws: count(row, "draws")?,
        losses: count(row, "losses")?,
        updated_at: get(row, "updated_at")?,
    })
}

fn record(row: &AnyRow) -> Result<RatingRecord> {
    Ok(RatingRecord {
        player: PlayerId {
            platform: codec::platform(&get::<String>(row, "platform")?)?,
            user: get(row, "user_id")?,
        },
        name: get(row, "display_name")?,
        family: get(row, "family")?,
        standing: standing(row)?,
    })
}

pub(crate) async fn ratings_of(
    conn: &mut AnyConnection,
    player: &PlayerId,
) -> Result<Vec<RatingRecord>> {
    let sql = format!(
        "SELECT {RATING_COLUMNS} FROM {RATINGS_WITH_NAMES} \
         WHERE r.platform = $1 AND r.user_id = $2 ORDER BY r.games DESC, r.family"
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(player.platform.as_str())
        .bind(&player.user)
        .fetch_all(conn)
        .await
        .map_err(backend)?;
    rows.iter().map(record).collect()
}

pub(crate) async fn leaderboard(
    conn: &mut AnyConnection,
    platform: Platform,
    family: &str,
    limit: u32,
) -> Result<Vec<RatingRecord>> {
    let sql = format!(
        "SELECT {RATING_COLUMNS} FROM {RATINGS_WITH_NAMES} \
         WHERE r.platform = $2 AND r.family = $3 ORDER BY {LEADERBOARD_ORDER} LIMIT $4"
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(PROVISIONAL_DEVIATION)
        .bind(platform.as_str())
        .bind(family)
        .bind(i64::from(limit))
        .fetch_all(conn)
        .await
        .map_err(backend)?;
    rows.iter().map(record).collect()
}

/// The player's place: one more than the number of rows that [`LEADERBOARD_ORDER`] puts
/// before his.
pub(crate) async fn leaderboard_place(
    conn: &mut AnyConnection,
    player: &PlayerId,
    family: &str,
) -> Result<Option<u32>> {
    let ahead: Option<i64> = sqlx::query_scalar(
        "SELECT (SELECT COUNT(*) FROM ratings o \
           WHERE o.platform = me.platform AND o.family = me.family AND ( \
             (CASE WHEN o.deviation > $1 THEN 1 ELSE 0 END) \
               < (CASE WHEN me.deviation > $1 THEN 1 ELSE 0 END) \
             OR ((CASE WHEN o.deviation > $1 THEN 1 ELSE 0 END) \
                   = (CASE WHEN me.deviation > $1 THEN 1 ELSE 0 END) \
                 AND (o.rating > me.rating \
                   OR (o.rating = me.rating AND (o.games > me.games \
                     OR (o.games = me.games AND o.user_id < me.user_id))))))) \
         FROM ratings me WHERE me.platform = $2 AND me.user_id = $3 AND me.family = $4",
    )
    .bind(PROVISIONAL_DEVIATION)
    .bind(player.platform.as_str())
    .bind(&player.user)
    .bind(family)
    .fetch_optional(conn)
    .await
    .map_err(backend)?;
    ahead
        .map(|n| u32::try_from(n + 1).map_err(|_| StoreError::Corrupt(format!("place {n}"))))
        .transpose()
}

pub(crate) async fn rating_changes(
    conn: &mut AnyConnection,
    game: GameId,
) -> Result<Vec<RatingChange>> {
    let rows = sqlx::query(
        "SELECT seat, platform, user_id, rating_before, rating_after FROM rating_changes \
         WHERE game_id = $1 ORDER BY seat",
    )
    .bind(game.0)
    .fetch_all(conn)
    .await
    .map_err(backend)?;
    rows.iter()
        .map(|row| {
            let seat: i64 = get(row, "seat")?;
            Ok(RatingChange {
                seat: u8::try_from(seat)
                    .map_err(|_| StoreError::Corrupt(format!("seat {seat} out of range")))?,
                player: PlayerId {
                    platform: codec::platform(&get::<String>(row, "platform")?)?,
                    user: get(row, "user_id")?,
                },
                before: get(row, "rating_before")?,
                after: get(row, "rating_after")?,
            })
        })
        .collect()
}
