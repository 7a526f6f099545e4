//! The outbox in SQL (see `bot_core::outbox`): one row per envelope, its body as JSON.
//!
//! Claims are one `UPDATE … WHERE seq IN (SELECT … LIMIT n) RETURNING`: on SQLite the
//! database write lock makes it atomic; on PostgreSQL the inner select takes its rows
//! `FOR UPDATE SKIP LOCKED`, so two processes claiming at once take disjoint entries without
//! waiting for each other.

use bot_core::{
    model::Platform,
    outbox::{Backlog, Claim, Entry, Envelope, Key, Mail, MailState, Origin, Settled},
    store::{Result, StoreError},
};
use sqlx::{AnyConnection, AssertSqlSafe, any::AnyRow};

use crate::{
    codec::{backend, get},
    open::Backend,
};

/// Delivered and given-up entries are kept this long (for a look after a fault), then
/// dropped when a process starts ([`release_claims`]).
const KEEP_SETTLED_MS: i64 = 7 * 24 * 3600 * 1000;

pub(crate) fn encode(envelope: &Envelope) -> Result<String> {
    serde_json::to_string(envelope)
        .map_err(|e| StoreError::Invalid(format!("an envelope that cannot be stored: {e}")))
}

fn decode(row: &AnyRow) -> Result<Entry> {
    let body: String = get(row, "body")?;
    let envelope: Envelope = serde_json::from_str(&body).map_err(|e| {
        let key: String = get(row, "entry_key").unwrap_or_default();
        StoreError::Corrupt(format!("outbox entry {key} cannot be read: {e}"))
    })?;
    Ok(Entry {
        envelope,
        attempts: u32::try_from(get::<i64>(row, "attempts")?).unwrap_or(u32::MAX),
        posted_ms: get(row, "posted_ms")?,
    })
}

/// Posts envelopes inside `conn`'s transaction; a key already there gets the new envelope and
/// claim while it waits, and is left alone once settled.
pub(crate) async fn post(
    conn: &mut AnyConnection,
    envelopes: &[Envelope],
    claim: Option<&Claim>,
    now_ms: i64,
) -> Result<()> {
    for e in envelopes {
        sqlx::query(
            "INSERT INTO outbox (entry_key, platform, body, posted_ms, claim_owner, \
             claim_until_ms) VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (entry_key) DO UPDATE SET body = excluded.body, \
             claim_owner = excluded.claim_owner, claim_until_ms = excluded.claim_until_ms \
             WHERE outbox.state = 'waiting'",
        )
        .bind(e.key.as_str())
        .bind(e.platform().as_str())
        .bind(encode(e)?)
        .bind(now_ms)
        .bind(claim.map(|c| c.owner.as_str()))
        .bind(claim.map(|c| c.until_ms))
        .execute(&mut *conn)
        .await
        .map_err(backend)?;
    }
    Ok(())
}

/// Whether anything is due for `platform` at `now_ms`: a read without the write lock, so an
/// idle sender's polls cost neither a write turn nor an fsync.
pub(crate) async fn any_due(
    conn: &mut AnyConnection,
    platform: Platform,
    now_ms: i64,
) -> Result<bool> {
    let due: Option<i64> = sqlx::query_scalar(
        "SELECT seq FROM outbox WHERE state = 'waiting' AND platform = $1 \
         AND not_before_ms <= $2 AND (claim_until_ms IS NULL OR claim_until_ms < $2) LIMIT 1",
    )
    .bind(platform.as_str())
    .bind(now_ms)
    .fetch_optional(&mut *conn)
    .await
    .map_err(backend)?;
    Ok(due.is_some())
}

/// Claims due entries inside `conn`'s transaction (see the module's note on atomicity).
/// An entry whose body cannot be read is given up on the spot (logged), never returned.
pub(crate) async fn claim_due(
    conn: &mut AnyConnection,
    backend_kind: Backend,
    platform: Platform,
    claim: &Claim,
    now_ms: i64,
    limit: u32,
) -> Result<Vec<Entry>> {
    let lock = match backend_kind {
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    let sql = format!(
        "UPDATE outbox SET claim_owner = $1, claim_until_ms = $2 WHERE seq IN \
         (SELECT seq FROM outbox WHERE state = 'waiting' AND platform = $3 \
          AND not_before_ms <= $4 AND (claim_until_ms IS NULL OR claim_until_ms < $4) \
          ORDER BY seq LIMIT $5{lock}) \
         RETURNING seq, entry_key, body, attempts, posted_ms"
    );
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(claim.owner.as_str())
        .bind(claim.until_ms)
        .bind(platform.as_str())
        .bind(now_ms)
        .bind(i64::from(limit))
        .fetch_all(&mut *conn)
        .await
        .map_err(backend)?;
    let mut taken = Vec::with_capacity(rows.len());
    for row in &rows {
        let seq: i64 = get(row, "seq")?;
        match decode(row) {
            Ok(entry) => taken.push((seq, entry)),
            Err(e) => {
                tracing::error!("{e}; given up");
                sqlx::query(
                    "UPDATE outbox SET state = 'given_up', detail = $1, settled_ms = $2, \
                     claim_owner = NULL, claim_until_ms = NULL WHERE seq = $3",
                )
                .bind(e.to_string())
                .bind(now_ms)
                .bind(seq)
                .execute(&mut *conn)
                .await
                .map_err(backend)?;
            }
        }
    }
    // RETURNING promises no order.
    taken.sort_by_key(|(seq, _)| *seq);
    Ok(taken.into_iter().map(|(_, e)| e).collect())
}

/// Records a delivery in one statement (its own transaction). Already settled: nothing; an
/// unknown key: [`StoreError::Invalid`].
pub(crate) async fn mark_delivered(conn: &mut AnyConnection, key: &Key, now_ms: i64) -> Result<()> {
    let changed = sqlx::query(
        "UPDATE outbox SET state = 'delivered', settled_ms = $1, claim_owner = NULL, \
         claim_until_ms = NULL WHERE entry_key = $2 AND state = 'waiting'",
    )
    .bind(now_ms)
    .bind(key.as_str())
    .execute(&mut *conn)
    .await
    .map_err(backend)?
    .rows_affected();
    if changed == 0 {
        let known: Option<i64> = sqlx::query_scalar("SELECT seq FROM outbox WHERE entry_key = $1")
            .bind(key.as_str())
            .fetch_optional(&mut *conn)
            .await
            .map_err(backend)?;
        if known.is_none() {
            return Err(StoreError::Invalid(format!("no outbox entry {key}")));
        }
    }
    Ok(())
}

/// Records an attempt's end inside `conn`'s transaction.
pub(crate) async fn settle(
    conn: &mut AnyConnection,
    key: &Key,
    settled: &Settled,
    now_ms: i64,
) -> Result<()> {
    let row = sqlx::query("SELECT state, body FROM outbox WHERE entry_key = $1")
        .bind(key.as_str())
        .fetch_optional(&mut *conn)
        .await
        .map_err(backend)?;
    let Some(row) = row else {
        return Err(StoreError::Invalid(format!("no outbox entry {key}")));
    };
    if get::<String>(&row, "state")? != "waiting" {
        return Ok(());
    }
    let result = match settled {
        Settled::Delivered | Settled::DeliveredUnderKey => {
            sqlx::query(
                "UPDATE outbox SET state = 'delivered', settled_ms = $1, claim_owner = NULL, \
                 claim_until_ms = NULL WHERE entry_key = $2",
            )
            .bind(now_ms)
            .bind(key.as_str())
            .execute(&mut *conn)
            .await
        }
        Settled::GaveUp(why) => {
            sqlx::query(
                "UPDATE outbox SET state = 'given_up', detail = $1, settled_ms = $2, \
                 claim_owner = NULL, claim_until_ms = NULL WHERE entry_key = $3",
            )
            .bind(why.as_str())
            .bind(now_ms)
            .bind(key.as_str())
            .execute(&mut *conn)
            .await
        }
        Settled::Later {
            not_before_ms,
            handle,
        } => {
            // A handle to keep is written into the body's origin.
            let body = match handle {
                Some(h) => {
                    let body: String = get(&row, "body")?;
                    let mut envelope: Envelope = serde_json::from_str(&body).map_err(|e| {
                        StoreError::Corrupt(format!("outbox entry {key} cannot be read: {e}"))
                    })?;
                    if let Origin::Command { handle, .. } = &mut envelope.origin {
                        *handle = Some(h.clone());
                    }
                    Some(encode(&envelope)?)
                }
                None => None,
            };
            sqlx::query(
                "UPDATE outbox SET attempts = attempts + 1, not_before_ms = $1, \
                 claim_owner = NULL, claim_until_ms = NULL, body = COALESCE($2, body) \
                 WHERE entry_key = $3",
            )
            .bind(*not_before_ms)
            .bind(body)
            .bind(key.as_str())
            .execute(&mut *conn)
            .await
        }
    };
    result.map_err(backend)?;
    Ok(())
}

/// Drops `owner`'s claims, and the settled entries older than [`KEEP_SETTLED_MS`].
pub(crate) async fn release_claims(
    conn: &mut AnyConnection,
    owner: &str,
    now_ms: i64,
) -> Result<u64> {
    let released = sqlx::query(
        "UPDATE outbox SET claim_owner = NULL, claim_until_ms = NULL \
         WHERE claim_owner = $1 AND state = 'waiting'",
    )
    .bind(owner)
    .execute(&mut *conn)
    .await
    .map_err(backend)?
    .rows_affected();
    sqlx::query("DELETE FROM outbox WHERE state <> 'waiting' AND settled_ms < $1")
        .bind(now_ms.saturating_sub(KEEP_SETTLED_MS))
        .execute(&mut *conn)
        .await
        .map_err(backend)?;
    Ok(released)
}

/// The entry with `key` and where it stands, if it is in the outbox.
pub(crate) async fn mail(conn: &mut AnyConnection, key: &Key) -> Result<Option<Mail>> {
    let row = sqlx::query(
        "SELECT state, body, entry_key, attempts, posted_ms FROM outbox WHERE entry_key = $1",
    )
    .bind(key.as_str())
    .fetch_optional(&mut *conn)
    .await
    .map_err(backend)?;
    let Some(row) = row else { return Ok(None) };
    let state = match get::<String>(&row, "state")?.as_str() {
        "waiting" => MailState::Waiting,
        "delivered" => MailState::Delivered,
        "given_up" => MailState::GivenUp,
        other => {
            return Err(StoreError::Corrupt(format!(
                "outbox entry {key} is in an unknown state {other:?}"
            )));
        }
    };
    Ok(Some(Mail {
        state,
        envelope: decode(&row)?.envelope,
    }))
}

/// What waits.
pub(crate) async fn backlog(conn: &mut AnyConnection) -> Result<Backlog> {
    let row = sqlx::query(
        "SELECT COUNT(*) AS waiting, MIN(posted_ms) AS oldest FROM outbox \
         WHERE state = 'waiting'",
    )
    .fetch_one(&mut *conn)
    .await
    .map_err(backend)?;
    Ok(Backlog {
        waiting: u64::try_from(get::<i64>(&row, "waiting")?).unwrap_or(0),
        oldest_ms: get(&row, "oldest")?,
    })
}

#[cfg(test)]
mod tests {
    /// A board stored in the outbox before pictures could belong to no game still reads (its
    /// game a plain number), and one of no game goes back and forth.
    #[test]
    fn stored_board_pictures_read_back() {
        let old = r#"{"game":7,"engine":"Board","variant":"chess","state":"8/8/8/8/8/8/8/K6k w - - 0 1","viewer":null,"players":[]}"#;
        let b: bot_core::reply::BoardPicture = serde_json::from_str(old).unwrap();
        assert_eq!(
            (b.game, b.diagram),
            (Some(bot_core::model::GameId(7)), None)
        );
        let diagram = bot_core::reply::BoardPicture {
            game: None,
            diagram: Some('N'),
            ..b
        };
        let text = serde_json::to_string(&diagram).unwrap();
        assert_eq!(
            serde_json::from_str::<bot_core::reply::BoardPicture>(&text).unwrap(),
            diagram
        );
    }
}
