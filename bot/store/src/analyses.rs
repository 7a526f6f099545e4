//! Post-game analyses in SQL (see `bot_core::analysis`): one row per game, the request and
//! the finished analysis as JSON. Every write is one statement whose `WHERE` decides (who
//! owns a running analysis, whether one still counts), so two processes racing are settled
//! by the row lock (PostgreSQL) or the write lock (SQLite).

use bot_core::{
    analysis::{AnalysisRecord, AnalysisRequest, AnalysisStart, AnalysisState, GameAnalysis},
    model::GameId,
    store::{Result, StoreError},
};
use sqlx::{AnyConnection, any::AnyRow};

use crate::codec::{backend, get};

/// The columns [`decode`] reads.
pub(crate) const COLUMNS: &str =
    "game_id, plies, owner, request, done, total, result, started_ms, updated_ms";

fn corrupt(game: i64, what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!(
        "analysis of game {game}: {what} cannot be read: {e}"
    ))
}

fn count(game: i64, v: i64) -> Result<u32> {
    u32::try_from(v).map_err(|e| corrupt(game, "a count", e))
}

pub(crate) fn decode(row: &AnyRow) -> Result<AnalysisRecord> {
    let game: i64 = get(row, "game_id")?;
    let request: String = get(row, "request")?;
    let request: AnalysisRequest =
        serde_json::from_str(&request).map_err(|e| corrupt(game, "its request", e))?;
    let result: Option<String> = get(row, "result")?;
    let state = match result {
        Some(text) => AnalysisState::Done(Box::new(
            serde_json::from_str::<GameAnalysis>(&text)
                .map_err(|e| corrupt(game, "its result", e))?,
        )),
        None => AnalysisState::Running {
            done: count(game, get(row, "done")?)?,
            total: count(game, get(row, "total")?)?,
        },
    };
    Ok(AnalysisRecord {
        game: GameId(game),
        plies: count(game, get(row, "plies")?)?,
        owner: get(row, "owner")?,
        request,
        state,
        started_ms: get(row, "started_ms")?,
        updated_ms: get(row, "updated_ms")?,
    })
}

fn encode<T: AsJson>(value: &T) -> Result<String> {
    value
        .json()
        .map_err(|e| StoreError::Invalid(format!("an analysis that cannot be stored: {e}")))
}

/// What is stored as JSON (`serde` is the core's: no dependency of its own here).
trait AsJson {
    fn json(&self) -> serde_json::Result<String>;
}

impl AsJson for AnalysisRequest {
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string(self)
    }
}

impl AsJson for GameAnalysis {
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string(self)
    }
}

/// Records a start unless a running analysis with recent progress, or a finished one of the
/// same moves, is there; `true` if recorded. The game must exist (checked by the caller in
/// the same transaction).
pub(crate) async fn begin(
    conn: &mut AnyConnection,
    start: &AnalysisStart,
    stale_before_ms: i64,
) -> Result<bool> {
    let done = sqlx::query(
        "INSERT INTO analyses (game_id, plies, owner, request, done, total, result, \
         started_ms, updated_ms) VALUES ($1, $2, $3, $4, 0, $5, NULL, $6, $6) \
         ON CONFLICT (game_id) DO UPDATE SET plies = excluded.plies, owner = excluded.owner, \
         request = excluded.request, done = 0, total = excluded.total, result = NULL, \
         started_ms = excluded.started_ms, updated_ms = excluded.updated_ms \
         WHERE (analyses.result IS NULL AND analyses.updated_ms < $7) \
         OR (analyses.result IS NOT NULL AND analyses.plies <> excluded.plies)",
    )
    .bind(start.game.0)
    .bind(i64::from(start.plies))
    .bind(&start.owner)
    .bind(encode(&start.request)?)
    .bind(i64::from(start.total))
    .bind(start.now_ms)
    .bind(stale_before_ms)
    .execute(conn)
    .await
    .map_err(backend)?;
    Ok(done.rows_affected() == 1)
}

pub(crate) async fn progress(
    conn: &mut AnyConnection,
    game: GameId,
    owner: &str,
    done: u32,
    now_ms: i64,
) -> Result<bool> {
    let r = sqlx::query(
        "UPDATE analyses SET done = $1, updated_ms = $2 \
         WHERE game_id = $3 AND owner = $4 AND result IS NULL",
    )
    .bind(i64::from(done))
    .bind(now_ms)
    .bind(game.0)
    .bind(owner)
    .execute(conn)
    .await
    .map_err(backend)?;
    Ok(r.rows_affected() == 1)
}

pub(crate) async fn finish(
    conn: &mut AnyConnection,
    analysis: &GameAnalysis,
    owner: &str,
    now_ms: i64,
) -> Result<bool> {
    let r = sqlx::query(
        "UPDATE analyses SET result = $1, plies = $2, done = total, updated_ms = $3 \
         WHERE game_id = $4 AND owner = $5 AND result IS NULL",
    )
    .bind(encode(analysis)?)
    .bind(i64::from(analysis.plies))
    .bind(now_ms)
    .bind(analysis.game.0)
    .bind(owner)
    .execute(conn)
    .await
    .map_err(backend)?;
    Ok(r.rows_affected() == 1)
}

pub(crate) async fn abandon(conn: &mut AnyConnection, game: GameId, owner: &str) -> Result<bool> {
    let r =
        sqlx::query("DELETE FROM analyses WHERE game_id = $1 AND owner = $2 AND result IS NULL")
            .bind(game.0)
            .bind(owner)
            .execute(conn)
            .await
            .map_err(backend)?;
    Ok(r.rows_affected() == 1)
}
