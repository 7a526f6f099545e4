//! The [`GameStore`] implementation: portable SQL (`$n` placeholders, `RETURNING`,
//! `ON CONFLICT`) that runs unchanged on SQLite and PostgreSQL.
//!
//! Every versioned write starts with `UPDATE games … WHERE id = $ AND version = $`: the row
//! lock (PostgreSQL) or the database write lock (SQLite, taken by `BEGIN IMMEDIATE`) makes a
//! racing writer wait, re-check the version and match nothing, so exactly one of them applies.
//! When the update matches nothing, a second read tells `NotFound` from `Conflict`.

mod variants;

use bot_core::{
    analysis::{AnalysisRecord, AnalysisStart, GameAnalysis},
    model::{
        ChallengeId, ChallengeRecord, ChallengeResolution, GameId, GameRecord, GameStatus,
        GameUpdate, HeldMessage, NewChallenge, NewGame, Platform, PlayerId, PlayerRecord,
        RatingChange, RatingRecord,
    },
    store::{
        ChallengeFilter, GameFilter, GameStore, Missing, Result, StoreError, validate_held,
        validate_new_challenge, validate_new_game,
    },
};
use sqlx::{
    Any, AnyConnection, AssertSqlSafe, Transaction,
    any::{AnyArguments, AnyRow},
    query::Query,
};

use bot_core::outbox::{Backlog, Claim, Entry, Envelope, Key, Mail, Settled};

use crate::{
    analyses,
    codec::{self, backend, get},
    durable::WriteTurn,
    open::{Backend, SqlStore},
    outbox, ratings,
};

/// The columns of `games g`, aliased to the names [`codec::game`] reads (its moves and seats
/// are added by [`game_select`]).
macro_rules! game_columns {
    () => {
        "g.id AS id, g.variant AS variant, g.options AS options, \
         g.start_state AS start_state, g.platform AS platform, g.room AS room, \
         g.thread AS thread, g.status AS status, g.result AS result, g.reason AS reason, \
         g.offer_kind AS offer_kind, g.offer_seat AS offer_seat, \
         g.offer_agreed AS offer_agreed, g.clock AS clock, g.version AS version, \
         g.rating_family AS rating_family, \
         g.created_at AS created_at, g.updated_at AS updated_at"
    };
}

/// `SELECT` of whole games from `games g` (append `WHERE …`): each game one row, its moves
/// and seats aggregated in correlated subqueries, so that one statement reads a game whole.
/// One statement reads one snapshot on both backends, so nothing can change between a game's
/// version and its moves; and one row a game, rather than a row a move, is what the command
/// path's reads cost least as (issue 27's benchmark: fewer round trips to SQLite's
/// connection thread, no game columns decoded again for each move).
fn game_select(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => concat!(
            "SELECT ",
            game_columns!(),
            ", (SELECT json_array(MIN(m.ply), MAX(m.ply), json_group_array(m.mv ORDER BY m.ply)) \
             FROM moves m WHERE m.game_id = g.id) AS moves, \
             (SELECT json_group_array(json_array(s.seat, s.platform, s.user_id) ORDER BY s.seat) \
             FROM seats s WHERE s.game_id = g.id) AS seats FROM games g"
        ),
        Backend::Postgres => concat!(
            "SELECT ",
            game_columns!(),
            ", (SELECT json_build_array(MIN(m.ply), MAX(m.ply), \
             COALESCE(json_agg(m.mv ORDER BY m.ply), '[]'::json))::text \
             FROM moves m WHERE m.game_id = g.id) AS moves, \
             (SELECT COALESCE(json_agg(json_build_array(s.seat, s.platform, s.user_id) \
             ORDER BY s.seat), '[]'::json)::text \
             FROM seats s WHERE s.game_id = g.id) AS seats FROM games g"
        ),
    }
}

/// The columns of `challenges`, as [`codec::challenge`] reads them.
macro_rules! challenge_columns {
    () => {
        "id, challenger_platform, challenger_user, challenged_platform, challenged_user, \
         variant, options, platform, room, thread, status, game_id, created_at, updated_at"
    };
}

/// The columns of `players`, as [`codec::player`] reads them.
macro_rules! player_columns {
    () => {
        "platform, user_id, display_name, reminders, created_at, updated_at"
    };
}

/// Bumps the version and writes status and offer, and the clock when one is given; binds (see
/// [`bind_update`]): status, result, reason, offer_kind, offer_seat, updated_at, id, expected
/// version, offer_agreed, clock text, clock wake. A game no longer active loses its wake, so
/// the scheduler never looks at it again.
macro_rules! update_game {
    () => {
        "UPDATE games SET version = version + 1, status = $1, result = $2, \
         reason = $3, offer_kind = $4, offer_seat = $5, updated_at = $6, offer_agreed = $9, \
         clock = COALESCE($10, clock), \
         clock_wake = CASE WHEN $1 = 'active' THEN COALESCE($11, clock_wake) ELSE NULL END \
         WHERE id = $7 AND version = $8 RETURNING version"
    };
}

/// One move's statements in a batch of moves (see [`crate::batch`]), `$1`-`$18`: the
/// versioned update ([`update_game!`]'s eleven values), which also returns the move's place in
/// the batch (`{job}`, replaced by a number), the move (`$12`) only if the update matched
/// (`changes()`), and its announcement (`$13` key, `$14` platform, `$15` body, `$16` posted,
/// `$17` claim owner, `$18` claim end) only if the move was written and it has one.
pub(crate) const MOVE_STATEMENTS: &str = concat!(
    update_game!(),
    ", {job} AS job; \
     INSERT INTO moves (game_id, ply, mv, created_at) \
     SELECT $7, (SELECT COALESCE(MAX(ply) + 1, 0) FROM moves WHERE game_id = $7), $12, $6 \
     WHERE changes() = 1; \
     INSERT INTO outbox (entry_key, platform, body, posted_ms, claim_owner, claim_until_ms) \
     SELECT $13, $14, $15, $16, $17, $18 WHERE changes() = 1 AND $13 IS NOT NULL; "
);

/// Binds [`update_game!`]'s eleven values.
fn bind_update<'q>(
    query: Query<'q, Any, AnyArguments>,
    id: GameId,
    expected: i64,
    update: &GameUpdate,
    at: i64,
) -> Query<'q, Any, AnyArguments> {
    let (status, result, reason) = codec::game_status_columns(&update.status);
    let (offer_kind, offer_seat, offer_agreed) = codec::offer_columns(update.pending_offer);
    query
        .bind(status)
        .bind(result)
        .bind(reason)
        .bind(offer_kind)
        .bind(offer_seat)
        .bind(at)
        .bind(id.0)
        .bind(expected)
        .bind(offer_agreed)
        .bind(update.clock.as_ref().map(|c| c.to_text()))
        .bind(update.clock.as_ref().map(|c| c.wake_ms))
}

/// Rows for many ids are read in chunks of this many, well below every backend's bind limit.
const SEAT_CHUNK: usize = 500;

/// Where each id is in `ids`, to put rows read for them in place.
fn positions(ids: &[i64]) -> std::collections::HashMap<i64, usize> {
    ids.iter().enumerate().map(|(i, &id)| (id, i)).collect()
}

/// The rows of `select … WHERE {column} IN (ids) {order}` for every id, read on `conn` in
/// chunks of [`SEAT_CHUNK`] (rows come chunk by chunk, each chunk in `order`).
async fn rows_for_ids(
    conn: &mut AnyConnection,
    select: &str,
    column: &str,
    ids: &[i64],
    order: &str,
) -> Result<Vec<AnyRow>> {
    let mut out = Vec::new();
    for chunk in ids.chunks(SEAT_CHUNK) {
        let placeholders: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "{select} WHERE {column} IN ({}) {order}",
            placeholders.join(", ")
        );
        let binds = chunk.iter().map(|&id| Bind::Int(id)).collect();
        out.extend(
            bind_all(sqlx::query(AssertSqlSafe(sql)), binds)
                .fetch_all(&mut *conn)
                .await
                .map_err(backend)?,
        );
    }
    Ok(out)
}

/// A value for a dynamically built query.
#[derive(Clone)]
enum Bind {
    Text(String),
    Int(i64),
}

fn bind_all<'q>(
    mut query: Query<'q, Any, AnyArguments>,
    binds: Vec<Bind>,
) -> Query<'q, Any, AnyArguments> {
    for b in binds {
        query = match b {
            Bind::Text(t) => query.bind(t),
            Bind::Int(i) => query.bind(i),
        };
    }
    query
}

/// Builds a `WHERE` clause with numbered placeholders from fixed fragments only; values are
/// always bound, never formatted into the SQL.
#[derive(Default)]
struct Where {
    clauses: Vec<String>,
    binds: Vec<Bind>,
}

impl Where {
    /// A placeholder for `value`.
    fn param(&mut self, value: Bind) -> String {
        self.binds.push(value);
        format!("${}", self.binds.len())
    }

    fn place(&mut self, alias: &str, place: &bot_core::model::Place) {
        let platform = self.param(Bind::Text(place.platform.as_str().into()));
        let room = self.param(Bind::Text(place.room.clone()));
        self.clauses.push(format!(
            "{alias}.platform = {platform} AND {alias}.room = {room}"
        ));
        if let Some(thread) = &place.thread {
            let thread = self.param(Bind::Text(thread.clone()));
            self.clauses.push(format!("{alias}.thread = {thread}"));
        }
    }

    fn sql(&self) -> String {
        if self.clauses.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", self.clauses.join(" AND "))
        }
    }
}

/// A write transaction in this process's SQLite write turn. Fields drop in order: an
/// uncommitted transaction starts its rollback before the gate opens for the next writer.
struct WriteTx {
    tx: Transaction<'static, Any>,
    turn: WriteTurn,
}

impl WriteTx {
    /// Commits, and returns once the commit is on disk.
    async fn commit(self) -> Result<()> {
        self.tx.commit().await.map_err(backend)?;
        self.turn.end().await
    }

    async fn rollback(self) -> Result<()> {
        self.tx.rollback().await.map_err(backend)?;
        self.turn.end().await
    }

    /// Commits when `outcome` is a success and rolls back when it is an error, which is then
    /// returned: either way the write turn ends.
    async fn finish<T>(self, outcome: Result<T>) -> Result<T> {
        match outcome {
            Ok(value) => {
                self.commit().await?;
                Ok(value)
            }
            Err(e) => {
                self.rollback().await?;
                Err(e)
            }
        }
    }
}

impl std::ops::Deref for WriteTx {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        &self.tx
    }
}

impl std::ops::DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        &mut self.tx
    }
}

impl SqlStore {
    /// Writes the queued delivery reports now, in one statement (see [`crate::delivery`]): a
    /// turn at the write gate that waits for no fsync, like the report it stands for. Nothing
    /// to do on PostgreSQL, whose reports are written at once, nor when none is queued.
    pub(crate) async fn flush_deliveries(&self) -> Result<()> {
        if self.backend != Backend::Sqlite || self.deliveries.is_empty() {
            return Ok(());
        }
        let turn = self.write_gate.turn_unsynced().await;
        let reports = self.deliveries.take();
        if reports.is_empty() {
            // A move carried them while this waited for its turn.
            return turn.end().await;
        }
        let written = sqlx::query(crate::delivery::MARK_DELIVERED)
            .bind(reports.json())
            .execute(&self.pool)
            .await;
        // A failed write puts them back (with the batch), for the next move or flush.
        if written.is_ok() {
            reports.written();
        }
        turn.end().await?;
        written.map(|_| ()).map_err(backend)
    }

    /// Remembers the keys of envelopes just committed (SQLite), so that their delivery reports
    /// need no read (see [`crate::delivery::Posted`]).
    fn note_posted(&self, envelopes: &[Envelope]) {
        if self.backend == Backend::Sqlite {
            self.posted.add(envelopes.iter().map(|e| &e.key));
        }
    }

    /// Starts the flush task of the delivery reports (see [`crate::delivery`]), for when no
    /// move comes to carry them: it writes the queue once its oldest report has waited
    /// [`crate::delivery::FLUSH_AFTER`], and ends when the queue is empty. A failed flush is
    /// tried again later, until the store is closed.
    fn flush_deliveries_soon(&self) {
        use crate::delivery::Flush;
        let store = self.clone();
        tokio::spawn(async move {
            let mut failures = 0u32;
            loop {
                match store.deliveries.next_flush() {
                    Flush::Done => return,
                    Flush::Wait(left) => tokio::time::sleep(left).await,
                    Flush::Now => match store.flush_deliveries().await {
                        Ok(()) => failures = 0,
                        Err(_) if store.pool.is_closed() => {
                            store.deliveries.disarm();
                            return;
                        }
                        Err(e) => {
                            tracing::warn!("outbox: delivery reports not written yet: {e}");
                            failures = failures.saturating_add(1);
                            let pause =
                                store.deliveries.flush_after * 2u32.saturating_pow(failures);
                            tokio::time::sleep(pause.min(std::time::Duration::from_secs(5))).await;
                        }
                    },
                }
            }
        });
    }

    /// Wait for this process's turn to write (SQLite only; see `SqlStore::write_gate`). A
    /// write outside a transaction (one statement) ends the turn itself, after the statement.
    pub(crate) async fn write_turn(&self) -> WriteTurn {
        match self.backend {
            Backend::Sqlite => {
                let turn = self.write_gate.turn().await;
                self.checkpoint_soon();
                turn
            }
            Backend::Postgres => WriteTurn::none(),
        }
    }

    /// Starts a checkpoint of the write-ahead log beside the writers when one is due (see
    /// `LogSync::checkpoint_due`). `PASSIVE`: it copies what no reader still needs and waits
    /// for nobody; SQLite's own checkpoint inside a commit then seldom has anything to do,
    /// which keeps it out of the command path's slowest moves.
    fn checkpoint_soon(&self) {
        let Some(log) = self.write_gate.log_arc() else {
            return;
        };
        if !log.checkpoint_due() {
            return;
        }
        let pool = self.pool.clone();
        tokio::spawn(async move {
            if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
                .execute(&pool)
                .await
                && !pool.is_closed()
            {
                tracing::warn!("a checkpoint of the database log failed: {e}");
            }
            log.checkpoint_done();
        });
    }

    /// Begin a write transaction. On SQLite, after the write gate, `BEGIN IMMEDIATE` takes
    /// the database write lock up front (another process's writer is waited for up to the
    /// busy timeout), so a transaction never fails half-way for want of an upgrade from a
    /// read lock.
    async fn begin_write(&self) -> Result<WriteTx> {
        let turn = self.write_turn().await;
        self.begin_in(turn).await
    }

    async fn begin_in(&self, turn: WriteTurn) -> Result<WriteTx> {
        let tx = match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => self.pool.begin().await,
        }
        .map_err(backend)?;
        Ok(WriteTx { tx, turn })
    }

    /// The last step of every acceptance, in the caller's write transaction, which it ends:
    /// the game first (the challenge row may only say 'accepted' with its game id), then the
    /// challenge marked accepted with it, and an open challenge's taker recorded as the
    /// challenged player. If the challenge is no longer pending the rollback removes the game
    /// again.
    async fn start_accepted(
        &self,
        mut tx: WriteTx,
        id: ChallengeId,
        by: &PlayerId,
        game: NewGame,
    ) -> Result<(ChallengeRecord, GameRecord)> {
        let at = game.created_at;
        let game = Self::insert_game(&mut tx, game).await?;
        let row = sqlx::query(concat!(
            "UPDATE challenges SET status = 'accepted', game_id = $1, updated_at = $2, \
             challenged_platform = COALESCE(challenged_platform, $3), \
             challenged_user = COALESCE(challenged_user, $4) \
             WHERE id = $5 AND status = 'pending' RETURNING ",
            challenge_columns!()
        ))
        .bind(game.id.0)
        .bind(at)
        .bind(by.platform.as_str())
        .bind(&by.user)
        .bind(id.0)
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?;
        let Some(row) = row else {
            tx.rollback().await?;
            return Err(self.challenge_error(id).await);
        };
        let challenge = Self::read_challenge(&mut tx, Some(row), id).await?;
        tx.commit().await?;
        Ok((challenge, game))
    }

    /// After a versioned write matched no row: was the game missing or at another version?
    /// Asked on the writer's own connection (inside its transaction, if any), because the pool
    /// may have no other: `sqlite::memory:` has exactly one.
    async fn version_error(conn: &mut AnyConnection, id: GameId, expected: i64) -> StoreError {
        let found: std::result::Result<Option<i64>, _> =
            sqlx::query_scalar("SELECT version FROM games WHERE id = $1")
                .bind(id.0)
                .fetch_optional(conn)
                .await;
        match found {
            Ok(Some(actual)) => StoreError::Conflict {
                game: id,
                expected,
                actual,
            },
            Ok(None) => StoreError::NotFound(Missing::Game(id)),
            Err(e) => backend(e),
        }
    }

    /// [`Self::version_error`] on a connection from the pool.
    async fn version_error_pooled(&self, id: GameId, expected: i64) -> StoreError {
        match self.pool.acquire().await {
            Ok(mut conn) => Self::version_error(&mut conn, id, expected).await,
            Err(e) => backend(e),
        }
    }

    /// After a challenge update matched no row: was it missing or no longer pending?
    async fn challenge_error(&self, id: ChallengeId) -> StoreError {
        match self.get_challenge(id).await {
            Ok(c) => StoreError::ChallengeClosed {
                id,
                status: c.status,
            },
            Err(e) => e,
        }
    }

    /// The versioned `UPDATE games` every game write starts with; `None` if it matched nothing.
    async fn bump_version(
        conn: &mut AnyConnection,
        id: GameId,
        expected: i64,
        update: &GameUpdate,
        at: i64,
    ) -> Result<Option<i64>> {
        let row = bind_update(sqlx::query(update_game!()), id, expected, update, at)
            .fetch_optional(conn)
            .await
            .map_err(backend)?;
        row.map(|row| get(&row, "version")).transpose()
    }

    /// Begins a versioned game write: a write transaction in which the game's `UPDATE` is
    /// applied, and the new version. When the game is not at `expected`, nothing is applied
    /// and the error says whether it is missing or has moved on.
    async fn begin_versioned(
        &self,
        id: GameId,
        expected: i64,
        update: &GameUpdate,
        at: i64,
    ) -> Result<(WriteTx, i64)> {
        let mut tx = self.begin_write().await?;
        match Self::bump_version(&mut tx, id, expected, update, at).await? {
            Some(version) => Ok((tx, version)),
            None => {
                let error = Self::version_error(&mut tx, id, expected).await;
                tx.rollback().await?;
                Err(error)
            }
        }
    }

    /// Ends a versioned game write: rates the game if `update` finishes it (see the store
    /// port's ratings section), then commits, so the result and the ratings are one commit.
    async fn commit_versioned(
        &self,
        mut tx: WriteTx,
        id: GameId,
        update: &GameUpdate,
        at: i64,
    ) -> Result<()> {
        ratings::rate_if_finished(&mut tx, self.backend, id, &update.status, at).await?;
        outbox::post(
            &mut tx,
            &update.tell.envelopes,
            update.tell.claim.as_ref(),
            update.tell.posted_ms,
        )
        .await?;
        tx.commit().await?;
        self.note_posted(&update.tell.envelopes);
        Ok(())
    }

    /// Insert a game and its seats inside `conn`'s transaction.
    async fn insert_game(conn: &mut AnyConnection, new: NewGame) -> Result<GameRecord> {
        validate_new_game(&new)?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO games (variant, options, start_state, platform, room, thread, status, \
             version, created_at, updated_at, clock, clock_wake, rating_family) \
             VALUES ($1, $2, $3, $4, $5, $6, 'active', 0, $7, $8, $9, $10, $11) RETURNING id",
        )
        .bind(&new.variant)
        .bind(&new.options)
        .bind(&new.start_state)
        .bind(new.place.platform.as_str())
        .bind(&new.place.room)
        .bind(new.place.thread.as_deref())
        .bind(new.created_at)
        .bind(new.created_at)
        .bind(new.clock.as_ref().map(|c| c.to_text()))
        .bind(new.clock.as_ref().map(|c| c.wake_ms))
        .bind(new.rating_family.as_deref())
        .fetch_one(&mut *conn)
        .await
        .map_err(backend)?;
        let mut game = GameRecord {
            id: GameId(id),
            variant: new.variant,
            options: new.options,
            start_state: new.start_state,
            moves: Vec::new(),
            seats: Vec::with_capacity(new.seats.len()),
            place: new.place,
            status: GameStatus::Active,
            pending_offer: None,
            clock: new.clock,
            version: 0,
            rating_family: new.rating_family,
            created_at: new.created_at,
            updated_at: new.created_at,
        };
        for (seat, player) in new.seats.into_iter().enumerate() {
            sqlx::query(
                "INSERT INTO seats (game_id, seat, platform, user_id) VALUES ($1, $2, $3, $4)",
            )
            .bind(game.id.0)
            .bind(seat as i64)
            .bind(player.platform.as_str())
            .bind(&player.user)
            .execute(&mut *conn)
            .await
            .map_err(backend)?;
            game.seats.push(player);
        }
        Ok(game)
    }
}

impl SqlStore {
    /// Fill in the further invitees and the acceptances of `challenges` from
    /// `challenge_invitees` (only challenges to more than one player have rows there).
    async fn load_invitees(
        conn: &mut AnyConnection,
        challenges: &mut [ChallengeRecord],
    ) -> Result<()> {
        for c in challenges.iter_mut() {
            c.more_invited.clear();
            c.accepted.clear();
        }
        let ids: Vec<i64> = challenges.iter().map(|c| c.id.0).collect();
        let index = positions(&ids);
        let rows = rows_for_ids(
            conn,
            "SELECT challenge_id, seat, platform, user_id, accepted_at FROM challenge_invitees",
            "challenge_id",
            &ids,
            "ORDER BY challenge_id, seat",
        )
        .await?;
        for row in &rows {
            let id: i64 = get(row, "challenge_id")?;
            let Some(&i) = index.get(&id) else { continue };
            codec::push_invitee(&mut challenges[i], row)?;
        }
        Ok(())
    }

    /// One challenge with its invitees, read on `conn`.
    async fn read_challenge(
        conn: &mut AnyConnection,
        row: Option<AnyRow>,
        id: ChallengeId,
    ) -> Result<ChallengeRecord> {
        let row = row.ok_or(StoreError::NotFound(Missing::Challenge(id)))?;
        let mut challenge = [codec::challenge(&row)?];
        Self::load_invitees(conn, &mut challenge).await?;
        let [challenge] = challenge;
        Ok(challenge)
    }
}

impl GameStore for SqlStore {
    async fn create_challenge(&self, new: NewChallenge) -> Result<ChallengeRecord> {
        validate_new_challenge(&new)?;
        let mut tx = self.begin_write().await?;
        let (challenged_platform, challenged_user) = match &new.challenged {
            Some(p) => (Some(p.platform.as_str()), Some(p.user.as_str())),
            None => (None, None),
        };
        let row = sqlx::query(concat!(
            "INSERT INTO challenges (challenger_platform, challenger_user, challenged_platform, \
             challenged_user, variant, options, platform, room, thread, status, created_at, \
             updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, $11) \
             RETURNING ",
            challenge_columns!()
        ))
        .bind(new.challenger.platform.as_str())
        .bind(&new.challenger.user)
        .bind(challenged_platform)
        .bind(challenged_user)
        .bind(&new.variant)
        .bind(&new.options)
        .bind(new.place.platform.as_str())
        .bind(&new.place.room)
        .bind(new.place.thread.as_deref())
        .bind(new.created_at)
        .bind(new.created_at)
        .fetch_one(&mut *tx)
        .await
        .map_err(backend)?;
        let mut challenge = codec::challenge(&row)?;
        if !new.more_invited.is_empty() {
            let invited = new.challenged.iter().chain(&new.more_invited);
            for (seat, p) in (1i64..).zip(invited) {
                sqlx::query(
                    "INSERT INTO challenge_invitees (challenge_id, seat, platform, user_id) \
                     VALUES ($1, $2, $3, $4)",
                )
                .bind(challenge.id.0)
                .bind(seat)
                .bind(p.platform.as_str())
                .bind(&p.user)
                .execute(&mut *tx)
                .await
                .map_err(backend)?;
            }
            challenge.more_invited = new.more_invited;
        }
        tx.commit().await?;
        Ok(challenge)
    }

    async fn get_challenge(&self, id: ChallengeId) -> Result<ChallengeRecord> {
        // One connection for both reads: `sqlite::memory:` pools have only one.
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        let row = sqlx::query(concat!(
            "SELECT ",
            challenge_columns!(),
            " FROM challenges WHERE id = $1"
        ))
        .bind(id.0)
        .fetch_optional(&mut *conn)
        .await
        .map_err(backend)?;
        Self::read_challenge(&mut conn, row, id).await
    }

    async fn list_challenges(&self, filter: &ChallengeFilter) -> Result<Vec<ChallengeRecord>> {
        let mut w = Where::default();
        if let Some(place) = &filter.place {
            w.place("c", place);
        }
        if let Some(player) = &filter.player {
            let (p1, u1) = (
                w.param(Bind::Text(player.platform.as_str().into())),
                w.param(Bind::Text(player.user.clone())),
            );
            let (p2, u2) = (
                w.param(Bind::Text(player.platform.as_str().into())),
                w.param(Bind::Text(player.user.clone())),
            );
            let (p3, u3) = (
                w.param(Bind::Text(player.platform.as_str().into())),
                w.param(Bind::Text(player.user.clone())),
            );
            w.clauses.push(format!(
                "((c.challenger_platform = {p1} AND c.challenger_user = {u1}) OR \
                 (c.challenged_platform = {p2} AND c.challenged_user = {u2}) OR \
                 EXISTS (SELECT 1 FROM challenge_invitees i WHERE i.challenge_id = c.id \
                 AND i.platform = {p3} AND i.user_id = {u3}))"
            ));
        }
        if filter.pending_only {
            w.clauses.push("c.status = 'pending'".into());
        }
        let sql = format!(
            "SELECT {} FROM challenges c{} ORDER BY c.id DESC",
            challenge_columns!(),
            w.sql()
        );
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        let rows = bind_all(sqlx::query(AssertSqlSafe(sql)), w.binds)
            .fetch_all(&mut *conn)
            .await
            .map_err(backend)?;
        let mut challenges = rows
            .iter()
            .map(codec::challenge)
            .collect::<Result<Vec<_>>>()?;
        Self::load_invitees(&mut conn, &mut challenges).await?;
        Ok(challenges)
    }

    async fn resolve_challenge(
        &self,
        id: ChallengeId,
        resolution: ChallengeResolution,
        at: i64,
    ) -> Result<ChallengeRecord> {
        let turn = self.write_turn().await;
        let row = sqlx::query(concat!(
            "UPDATE challenges SET status = $1, updated_at = $2 \
             WHERE id = $3 AND status = 'pending' RETURNING ",
            challenge_columns!()
        ))
        .bind(codec::challenge_status_text(resolution.into()))
        .bind(at)
        .bind(id.0)
        .fetch_optional(&self.pool)
        .await;
        turn.end().await?;
        let row = row.map_err(backend)?;
        match row {
            Some(_) => self.get_challenge(id).await,
            None => Err(self.challenge_error(id).await),
        }
    }

    async fn accept_challenge(
        &self,
        id: ChallengeId,
        by: &PlayerId,
        game: NewGame,
    ) -> Result<(ChallengeRecord, GameRecord)> {
        validate_new_game(&game)?;
        let mut tx = self.begin_write().await?;
        // A challenge to several players starts only when every invitee has accepted.
        let invitees: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM challenge_invitees WHERE challenge_id = $1")
                .bind(id.0)
                .fetch_one(&mut *tx)
                .await
                .map_err(backend)?;
        if invitees > 0 {
            tx.rollback().await?;
            return Err(StoreError::Invalid(format!(
                "challenge {id} invites several players: each accepts with accept_invitation"
            )));
        }
        self.start_accepted(tx, id, by, game).await
    }

    async fn accept_invitation(
        &self,
        id: ChallengeId,
        by: &PlayerId,
        game: NewGame,
    ) -> Result<(ChallengeRecord, Option<GameRecord>)> {
        validate_new_game(&game)?;
        let at = game.created_at;
        let mut tx = self.begin_write().await?;
        // Writing the challenge row first takes its lock (PostgreSQL; SQLite holds the
        // database's since BEGIN IMMEDIATE), so two acceptances of one challenge run one after
        // the other and the second sees the first's: the last one always starts the game.
        let row = sqlx::query(concat!(
            "UPDATE challenges SET updated_at = $1 WHERE id = $2 AND status = 'pending' \
             RETURNING ",
            challenge_columns!()
        ))
        .bind(at)
        .bind(id.0)
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?;
        let Some(row) = row else {
            tx.rollback().await?;
            return Err(self.challenge_error(id).await);
        };
        let mut challenge = Self::read_challenge(&mut tx, Some(row), id).await?;
        if !challenge.is_invited(by) {
            tx.rollback().await?;
            return Err(StoreError::Invalid(format!(
                "{by} is not invited to challenge {id}"
            )));
        }
        if !challenge.more_invited.is_empty() {
            sqlx::query(
                "UPDATE challenge_invitees SET accepted_at = $1 WHERE challenge_id = $2 \
                 AND platform = $3 AND user_id = $4 AND accepted_at IS NULL",
            )
            .bind(at)
            .bind(id.0)
            .bind(by.platform.as_str())
            .bind(&by.user)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
            Self::load_invitees(&mut tx, std::slice::from_mut(&mut challenge)).await?;
        }
        if challenge.waiting_for().iter().any(|p| p != by) {
            tx.commit().await?;
            return Ok((challenge, None));
        }
        let (challenge, game) = self.start_accepted(tx, id, by, game).await?;
        Ok((challenge, Some(game)))
    }

    async fn create_game(&self, new: NewGame) -> Result<GameRecord> {
        validate_new_game(&new)?;
        let mut tx = self.begin_write().await?;
        let game = Self::insert_game(&mut tx, new).await?;
        tx.commit().await?;
        Ok(game)
    }

    async fn get_game(&self, id: GameId) -> Result<GameRecord> {
        let sql = format!("{} WHERE g.id = $1", game_select(self.backend));
        let row = sqlx::query(AssertSqlSafe(sql))
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await
            .map_err(backend)?
            .ok_or(StoreError::NotFound(Missing::Game(id)))?;
        codec::game(&row)
    }

    async fn list_games(&self, filter: &GameFilter) -> Result<Vec<GameRecord>> {
        let mut w = Where::default();
        if let Some(place) = &filter.place {
            w.place("g", place);
        }
        if let Some(player) = &filter.player {
            let platform = w.param(Bind::Text(player.platform.as_str().into()));
            let user = w.param(Bind::Text(player.user.clone()));
            w.clauses.push(format!(
                "EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id \
                 AND s.platform = {platform} AND s.user_id = {user})"
            ));
        }
        if filter.active_only {
            w.clauses.push("g.status = 'active'".into());
        }
        let limit = match filter.limit {
            Some(n) => format!(" LIMIT {}", w.param(Bind::Int(i64::from(n)))),
            None => String::new(),
        };
        let sql = format!(
            "{}{} ORDER BY g.id DESC{limit}",
            game_select(self.backend),
            w.sql()
        );
        let rows = bind_all(sqlx::query(AssertSqlSafe(sql)), w.binds)
            .fetch_all(&self.pool)
            .await
            .map_err(backend)?;
        rows.iter().map(codec::game).collect()
    }

    async fn append_move(
        &self,
        id: GameId,
        expected_version: i64,
        mv: &str,
        update: &GameUpdate,
        at: i64,
    ) -> Result<i64> {
        if self.backend == Backend::Sqlite
            && !matches!(update.status, GameStatus::Finished { .. })
            && update.tell.envelopes.len() <= 1
        {
            let row = crate::batch::MoveRow::new(id, expected_version, mv, update, at)?;
            return match self.append_move_batched(row).await? {
                Some(version) => {
                    self.note_posted(&update.tell.envelopes);
                    Ok(version)
                }
                None => Err(self.version_error_pooled(id, expected_version).await),
            };
        }
        let (mut tx, version) = self
            .begin_versioned(id, expected_version, update, at)
            .await?;
        sqlx::query(
            "INSERT INTO moves (game_id, ply, mv, created_at) \
             SELECT $1, COALESCE(MAX(ply) + 1, 0), $2, $3 FROM moves WHERE game_id = $4",
        )
        .bind(id.0)
        .bind(mv)
        .bind(at)
        .bind(id.0)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        self.commit_versioned(tx, id, update, at).await?;
        Ok(version)
    }

    async fn update_game(
        &self,
        id: GameId,
        expected_version: i64,
        update: &GameUpdate,
        at: i64,
    ) -> Result<i64> {
        if !matches!(update.status, GameStatus::Finished { .. }) && update.tell.is_empty() {
            // A single statement is its own transaction.
            let turn = self.write_turn().await;
            let mut conn = self.pool.acquire().await.map_err(backend)?;
            let bumped = Self::bump_version(&mut conn, id, expected_version, update, at).await;
            turn.end().await?;
            return match bumped? {
                Some(version) => Ok(version),
                None => Err(Self::version_error(&mut conn, id, expected_version).await),
            };
        }
        // A result: the game and its ratings in one transaction.
        let (tx, version) = self
            .begin_versioned(id, expected_version, update, at)
            .await?;
        self.commit_versioned(tx, id, update, at).await?;
        Ok(version)
    }

    async fn truncate_moves(
        &self,
        id: GameId,
        expected_version: i64,
        keep: usize,
        update: &GameUpdate,
        at: i64,
    ) -> Result<i64> {
        let (mut tx, version) = self
            .begin_versioned(id, expected_version, update, at)
            .await?;
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM moves WHERE game_id = $1")
            .bind(id.0)
            .fetch_one(&mut *tx)
            .await
            .map_err(backend)?;
        let keep_i64 = i64::try_from(keep).unwrap_or(i64::MAX);
        if keep_i64 > count {
            tx.rollback().await?;
            return Err(StoreError::Invalid(format!(
                "cannot keep {keep} moves of game {id}, which has {count}"
            )));
        }
        sqlx::query("DELETE FROM moves WHERE game_id = $1 AND ply >= $2")
            .bind(id.0)
            .bind(keep_i64)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        self.commit_versioned(tx, id, update, at).await?;
        Ok(version)
    }

    async fn upsert_player(
        &self,
        id: &PlayerId,
        display_name: &str,
        at: i64,
    ) -> Result<PlayerRecord> {
        // Every command upserts its sender; nearly always nothing changed, and a read costs no
        // fsync and waits for no writer.
        if let Ok(known) = self.get_player(id).await
            && known.display_name == display_name
        {
            return Ok(known);
        }
        let turn = self.write_turn().await;
        let row = sqlx::query(concat!(
            "INSERT INTO players (platform, user_id, display_name, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (platform, user_id) DO UPDATE \
             SET display_name = excluded.display_name, updated_at = excluded.updated_at \
             RETURNING ",
            player_columns!()
        ))
        .bind(id.platform.as_str())
        .bind(&id.user)
        .bind(display_name)
        .bind(at)
        .bind(at)
        .fetch_one(&self.pool)
        .await;
        turn.end().await?;
        codec::player(&row.map_err(backend)?)
    }

    async fn get_player(&self, id: &PlayerId) -> Result<PlayerRecord> {
        let row = sqlx::query(concat!(
            "SELECT ",
            player_columns!(),
            " FROM players WHERE platform = $1 AND user_id = $2"
        ))
        .bind(id.platform.as_str())
        .bind(&id.user)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?
        .ok_or_else(|| StoreError::NotFound(Missing::Player(id.clone())))?;
        codec::player(&row)
    }

    async fn ratings_of(&self, player: &PlayerId) -> Result<Vec<RatingRecord>> {
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        ratings::ratings_of(&mut conn, player).await
    }

    async fn leaderboard(
        &self,
        platform: Platform,
        family: &str,
        limit: u32,
    ) -> Result<Vec<RatingRecord>> {
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        ratings::leaderboard(&mut conn, platform, family, limit).await
    }

    async fn leaderboard_place(&self, player: &PlayerId, family: &str) -> Result<Option<u32>> {
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        ratings::leaderboard_place(&mut conn, player, family).await
    }

    async fn rating_changes(&self, game: GameId) -> Result<Vec<RatingChange>> {
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        ratings::rating_changes(&mut conn, game).await
    }

    async fn analysis(&self, game: GameId) -> Result<Option<AnalysisRecord>> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT {} FROM analyses WHERE game_id = $1",
            analyses::COLUMNS
        )))
        .bind(game.0)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        row.as_ref().map(analyses::decode).transpose()
    }

    async fn begin_analysis(&self, start: &AnalysisStart, stale_before_ms: i64) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let outcome = async {
            let exists: Option<i64> = sqlx::query_scalar("SELECT id FROM games WHERE id = $1")
                .bind(start.game.0)
                .fetch_optional(&mut *tx.tx)
                .await
                .map_err(backend)?;
            if exists.is_none() {
                return Err(StoreError::NotFound(Missing::Game(start.game)));
            }
            analyses::begin(&mut tx, start, stale_before_ms).await
        }
        .await;
        tx.finish(outcome).await
    }

    async fn analysis_progress(
        &self,
        game: GameId,
        owner: &str,
        done: u32,
        now_ms: i64,
    ) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let outcome = analyses::progress(&mut tx, game, owner, done, now_ms).await;
        tx.finish(outcome).await
    }

    async fn finish_analysis(
        &self,
        analysis: &GameAnalysis,
        owner: &str,
        now_ms: i64,
    ) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let outcome = analyses::finish(&mut tx, analysis, owner, now_ms).await;
        tx.finish(outcome).await
    }

    async fn abandon_analysis(&self, game: GameId, owner: &str) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let outcome = analyses::abandon(&mut tx, game, owner).await;
        tx.finish(outcome).await
    }

    async fn due_games(&self, now_ms: i64, limit: u32) -> Result<Vec<GameId>> {
        let ids: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM games WHERE clock_wake IS NOT NULL AND clock_wake <= $1 \
             ORDER BY clock_wake, id LIMIT $2",
        )
        .bind(now_ms)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        Ok(ids.into_iter().map(GameId).collect())
    }

    async fn set_reminders(&self, id: &PlayerId, on: bool, at: i64) -> Result<PlayerRecord> {
        let turn = self.write_turn().await;
        let row = sqlx::query(concat!(
            "UPDATE players SET \
             updated_at = CASE WHEN reminders = $1 THEN updated_at ELSE $2 END, \
             reminders = $1 \
             WHERE platform = $3 AND user_id = $4 RETURNING ",
            player_columns!()
        ))
        .bind(i64::from(on))
        .bind(at)
        .bind(id.platform.as_str())
        .bind(&id.user)
        .fetch_optional(&self.pool)
        .await;
        turn.end().await?;
        let row = row
            .map_err(backend)?
            .ok_or_else(|| StoreError::NotFound(Missing::Player(id.clone())))?;
        codec::player(&row)
    }

    async fn count_reminder(&self, id: &PlayerId, day: i64, cap: u32) -> Result<bool> {
        // One statement: the row lock (PostgreSQL) or the write lock (SQLite) makes two
        // processes counting at once take turns, and the second sees the first's count.
        let turn = self.write_turn().await;
        let counted: std::result::Result<Option<i64>, _> = sqlx::query_scalar(
            "UPDATE players SET \
             reminder_count = CASE WHEN reminder_day = $1 THEN reminder_count + 1 ELSE 1 END, \
             reminder_day = $1 \
             WHERE platform = $2 AND user_id = $3 AND $4 > 0 \
             AND (reminder_day <> $1 OR reminder_count < $4) RETURNING reminder_count",
        )
        .bind(day)
        .bind(id.platform.as_str())
        .bind(&id.user)
        .bind(i64::from(cap))
        .fetch_optional(&self.pool)
        .await;
        turn.end().await?;
        match counted.map_err(backend)? {
            Some(_) => Ok(true),
            None => self.get_player(id).await.map(|_| false),
        }
    }

    async fn hold_message(&self, held: HeldMessage) -> Result<bool> {
        validate_held(&held)?;
        let mentions = held
            .mentions
            .iter()
            .map(|m| m.user.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let mut tx = self.begin_write().await?;
        // In the write transaction, so that of two holds at once only one is the first.
        let same_game = match self.backend {
            Backend::Sqlite => "game_id IS $3",
            Backend::Postgres => "game_id IS NOT DISTINCT FROM $3",
        };
        let earlier: Option<i64> = sqlx::query_scalar(AssertSqlSafe(format!(
            "SELECT id FROM held_messages WHERE platform = $1 AND user_id = $2 AND {same_game} \
             LIMIT 1"
        )))
        .bind(held.to.platform.as_str())
        .bind(&held.to.user)
        .bind(held.game.map(|g| g.0))
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?;
        sqlx::query(
            "INSERT INTO held_messages \
             (platform, user_id, game_id, body, mentions, with_board, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(held.to.platform.as_str())
        .bind(&held.to.user)
        .bind(held.game.map(|g| g.0))
        .bind(&held.text)
        .bind(mentions)
        .bind(i64::from(held.with_board))
        .bind(held.at)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        // The player's oldest past the cap go, in the same commit.
        sqlx::query(
            "DELETE FROM held_messages WHERE platform = $1 AND user_id = $2 AND id NOT IN \
             (SELECT id FROM held_messages WHERE platform = $1 AND user_id = $2 \
              ORDER BY id DESC LIMIT $3)",
        )
        .bind(held.to.platform.as_str())
        .bind(&held.to.user)
        .bind(HeldMessage::PER_PLAYER as i64)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        tx.commit().await?;
        Ok(earlier.is_none())
    }

    async fn post(&self, envelopes: &[Envelope], claim: Option<&Claim>, now_ms: i64) -> Result<()> {
        if envelopes.is_empty() {
            return Ok(());
        }
        let mut tx = self.begin_write().await?;
        let posted = outbox::post(&mut tx, envelopes, claim, now_ms).await;
        tx.finish(posted).await?;
        self.note_posted(envelopes);
        Ok(())
    }

    async fn claim_due(
        &self,
        platform: Platform,
        claim: &Claim,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<Entry>> {
        self.flush_deliveries().await?;
        {
            let mut conn = self.pool.acquire().await.map_err(backend)?;
            if !outbox::any_due(&mut conn, platform, now_ms).await? {
                return Ok(Vec::new());
            }
        }
        let mut tx = self.begin_write().await?;
        let taken = outbox::claim_due(&mut tx, self.backend, platform, claim, now_ms, limit).await;
        let taken = tx.finish(taken).await?;
        if self.backend == Backend::Sqlite {
            self.posted.add(taken.iter().map(|e| &e.envelope.key));
        }
        Ok(taken)
    }

    async fn settle(&self, key: &Key, settled: &Settled, now_ms: i64) -> Result<()> {
        if matches!(settled, Settled::Delivered | Settled::DeliveredUnderKey) {
            return match self.backend {
                // The command path's report after every reply: queued, and carried by the
                // next write (see `crate::delivery`); only its key is checked now, by a read,
                // which takes no write turn.
                Backend::Sqlite => {
                    if !self.posted.take(key) {
                        let known: Option<i64> =
                            sqlx::query_scalar("SELECT seq FROM outbox WHERE entry_key = $1")
                                .bind(key.as_str())
                                .fetch_optional(&self.pool)
                                .await
                                .map_err(backend)?;
                        if known.is_none() {
                            return Err(StoreError::Invalid(format!("no outbox entry {key}")));
                        }
                    }
                    if self.deliveries.queue(key.clone(), now_ms) {
                        self.flush_deliveries_soon();
                    }
                    // Under its key, a repeat after a crash is recognised by the platform: the
                    // report rides on the next move's transaction, or the flush task writes
                    // it after `FLUSH_AFTER`.
                    if *settled == Settled::DeliveredUnderKey {
                        return Ok(());
                    }
                    // Otherwise written before this returns (in one statement with every
                    // report queued meanwhile, or carried by a move that took the queue
                    // first): a kill -9 after a Discord interaction's followup must not send it
                    // again. A failed write leaves the report queued for the flush task, which
                    // is watching the queue.
                    if let Err(e) = self.flush_deliveries().await {
                        tracing::warn!("outbox: delivery report not written yet: {e}");
                    }
                    Ok(())
                }
                // One statement, its own transaction; PostgreSQL's row lock is the only wait.
                Backend::Postgres => {
                    let mut conn = self.pool.acquire().await.map_err(backend)?;
                    outbox::mark_delivered(&mut conn, key, now_ms).await
                }
            };
        }
        self.flush_deliveries().await?;
        self.posted.take(key);
        let mut tx = self.begin_write().await?;
        let done = outbox::settle(&mut tx, key, settled, now_ms).await;
        tx.finish(done).await
    }

    async fn release_claims(&self, owner: &str, now_ms: i64) -> Result<u64> {
        self.flush_deliveries().await?;
        let mut tx = self.begin_write().await?;
        let released = outbox::release_claims(&mut tx, owner, now_ms).await;
        tx.finish(released).await
    }

    async fn backlog(&self) -> Result<Backlog> {
        self.flush_deliveries().await?;
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        outbox::backlog(&mut conn).await
    }

    async fn mail(&self, key: &Key) -> Result<Option<Mail>> {
        // Queued reports first (a delivery reported under its key may still wait for the
        // next write), then a read of the unique index on the key.
        self.flush_deliveries().await?;
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        outbox::mail(&mut conn, key).await
    }

    async fn has_held(&self, player: &PlayerId) -> Result<bool> {
        // A read only: no write turn, no fsync; the index on (platform, user_id) answers it.
        let any: Option<i64> = sqlx::query_scalar(
            "SELECT id FROM held_messages WHERE platform = $1 AND user_id = $2 LIMIT 1",
        )
        .bind(player.platform.as_str())
        .bind(&player.user)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        Ok(any.is_some())
    }

    async fn take_held(&self, player: &PlayerId) -> Result<Vec<HeldMessage>> {
        // A read first: adapters ask at every command, and almost always nobody is owed
        // anything, so the common case takes no write lock and no fsync.
        if !self.has_held(player).await? {
            return Ok(Vec::new());
        }
        let mut tx = self.begin_write().await?;
        // One statement takes and removes: two takers at once (PostgreSQL row locks, the
        // SQLite write lock) never both get a row.
        let rows = sqlx::query(
            "DELETE FROM held_messages WHERE platform = $1 AND user_id = $2 \
             RETURNING id, game_id, body, mentions, with_board, created_at",
        )
        .bind(player.platform.as_str())
        .bind(&player.user)
        .fetch_all(&mut *tx)
        .await
        .map_err(backend)?;
        tx.commit().await?;
        let mut held = rows
            .iter()
            .map(|row| {
                let mentions: String = get(row, "mentions")?;
                let message = HeldMessage {
                    to: player.clone(),
                    game: get::<Option<i64>>(row, "game_id")?.map(GameId),
                    text: get(row, "body")?,
                    mentions: mentions
                        .lines()
                        .map(|user| PlayerId::new(player.platform, user))
                        .collect(),
                    with_board: get::<i64>(row, "with_board")? != 0,
                    at: get(row, "created_at")?,
                };
                Ok((get::<i64>(row, "id")?, message))
            })
            .collect::<Result<Vec<_>>>()?;
        held.sort_by_key(|(id, _)| *id);
        Ok(held.into_iter().map(|(_, m)| m).collect())
    }
}
