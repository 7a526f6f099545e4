//! `analyse [#GAME]`: a finished game's post-game analysis, queued, shown as it progresses,
//! and cached.
//!
//! **Never during a game.** Only a finished game is analysed (an aborted one has nothing to
//! show): an analysis of a game in progress would be help for a player still playing. A
//! Looking-Glass game still being played is refused without a word about it; after its end
//! each order is judged from what its player knew ([`analysis::analyse_glass`]).
//!
//! **Queued, at low priority.** The command only checks, records the analysis as started in
//! the store ([`GameStore::begin_analysis`], atomic, so two processes or two players asking
//! at once start it once) and queues it on the analyst's own threads (one by default, at
//! the lowest priority, as the bot's searches): the command answers at once, and analyses
//! wait for each other, never for a command.
//!
//! **Progress through the outbox.** The command's answer is the progress line; its outbox
//! key is kept with the running analysis. The analysis posts each new progress line, and at
//! the end the line "done", as replies that name that key ([`Reply::replaces`]): an adapter
//! that knows the message it sent for the key edits it (Discord: the message; Matrix: an
//! `m.replace` edit); one that does not (it restarted meanwhile) sends the line as a new
//! message. Then the results: the graph with each player's accuracy, and each player's
//! biggest mistakes on a board each. All of it is posted unasked, to the room where it was
//! asked, for the platform's sender: durable like every other reply.
//!
//! **Cached.** The finished analysis is stored by game; asking again shows it at once. A
//! process that stops during an analysis leaves it running in the store: after
//! [`STALE_AFTER_MS`] without progress, asking again starts it afresh.

use std::sync::{
    Arc, OnceLock, Weak,
    atomic::{AtomicBool, AtomicUsize, Ordering},
};

use rules::Move;

use super::*;
use crate::{
    analysis::{
        self, AnalyseError, AnalysisConfig, AnalysisRequest, AnalysisStart, AnalysisState,
        GameAnalysis, STALE_AFTER_MS,
    },
    opponent::{Evaluators, PoolError, SearchPool},
    reply::{GraphMark, GraphPicture},
};

/// Progress is recorded at most this often (each is a store write); a progress line is
/// posted at most this often too, and only when a new quarter of the positions is done.
const PROGRESS_EVERY_MS: i64 = 3_000;

/// Starts an analysis task (set by [`GameService::start_analyst`], which has the service
/// behind an `Arc`).
struct Spawner(Box<dyn Fn(Job) + Send + Sync>);

impl std::fmt::Debug for Spawner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Spawner")
    }
}

/// The analyses' side of the service.
#[derive(Debug)]
pub(super) struct Analyst {
    config: AnalysisConfig,
    pool: SearchPool,
    evaluators: Evaluators,
    spawner: OnceLock<Spawner>,
    /// Analyses queued or running in this process.
    in_flight: Arc<AtomicUsize>,
}

/// One queued analysis.
struct Job {
    record: GameRecord,
    game: JobGame,
    nodes: u64,
    request: AnalysisRequest,
}

/// What an analysis searches.
#[derive(Clone)]
enum JobGame {
    /// A board game: its start and moves.
    Board {
        start: Box<Position>,
        moves: Vec<Move>,
    },
    /// A Looking-Glass game: its variant, options and the referee's actions.
    Glass {
        variant: Arc<rules::Variant>,
        rules: rules::glass::GlassRules,
        actions: Vec<String>,
    },
}

impl Job {
    /// How the positions are searched, for the progress lines: "at 60,000 nodes a position".
    fn how(&self) -> String {
        self.game.how(self.nodes, "a position")
    }
}

impl JobGame {
    /// How its positions are searched at `nodes` nodes `per` position ("at 60,000 nodes
    /// each"; a Looking-Glass game's orders are judged, not searched by nodes).
    fn how(&self, nodes: u64, per: &str) -> String {
        match self {
            JobGame::Board { .. } => format!("at {} nodes {per}", thousands(nodes)),
            JobGame::Glass { .. } => "order by order, from what each player knew".to_string(),
        }
    }
}

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// The same service answering `analyse` with analyses run as `config` says. Call
    /// [`GameService::start_analyst`] once the service is behind an `Arc`.
    ///
    /// # Errors
    /// When the analysis threads cannot start.
    pub fn with_analysis(mut self, config: AnalysisConfig) -> Result<Self, PoolError> {
        let pool = SearchPool::new(config.threads, config.nice)?;
        self.analyst = Some(Analyst {
            config,
            pool,
            evaluators: Evaluators::default(),
            spawner: OnceLock::new(),
            in_flight: Arc::default(),
        });
        Ok(self)
    }

    /// Analyses queued or running in this process (tests wait for zero).
    pub fn analyses_in_flight(&self) -> usize {
        self.analyst
            .as_ref()
            .map_or(0, |a| a.in_flight.load(Ordering::SeqCst))
    }
}

impl<S: GameStore + 'static, C: Clock + 'static> GameService<S, C> {
    /// Lets `analyse` queue analyses: each runs as a task of the current tokio runtime, its
    /// search on the analyst's threads. Without it (or without
    /// [`GameService::with_analysis`]) `analyse` says analysis is off.
    pub fn start_analyst(self: &Arc<Self>) {
        let Some(analyst) = &self.analyst else { return };
        let weak: Weak<Self> = Arc::downgrade(self);
        let runtime = tokio::runtime::Handle::current();
        let _ = analyst.spawner.set(Spawner(Box::new(move |job| {
            if let Some(this) = weak.upgrade() {
                runtime.spawn(async move { this.run_analysis(job).await });
            }
        })));
    }

    /// Runs one analysis to its end: the search on the analyst's thread, progress lines while
    /// it runs, the results when it ends.
    async fn run_analysis(self: Arc<Self>, job: Job) {
        let Some(analyst) = &self.analyst else { return };
        let id = job.record.id;
        let place = job.request.place.clone();
        let progress_key = job.request.progress.clone();
        let total = job.record.moves.len() + 1;
        let how = job.how();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<usize>();
        let stop = Arc::new(AtomicBool::new(false));
        let searched = {
            let (evaluators, stop) = (analyst.evaluators.clone(), stop.clone());
            let (game, nodes) = (job.game.clone(), job.nodes);
            analyst.pool.run(move || {
                let progress = |done, _| {
                    let _ = tx.send(done);
                    !stop.load(Ordering::Relaxed)
                };
                match game {
                    JobGame::Board { start, moves } => {
                        let eval = evaluators.get(start.variant());
                        analysis::analyse_game(id, eval, &start, &moves, nodes, progress)
                    }
                    JobGame::Glass {
                        variant,
                        rules,
                        actions,
                    } => analysis::analyse_glass(id, variant, rules, &actions, progress),
                }
            })
        };
        tokio::pin!(searched);
        let mut last_ms = self.clock.now_ms();
        // The last quarter a progress line was posted for: lines come at 25, 50 and 75% (a
        // platform that cannot edit shows each as a message of its own: three at most).
        let mut quarter = 0;
        let result = loop {
            tokio::select! {
                Some(done) = rx.recv() => {
                    let now = self.clock.now_ms();
                    if done == total || now - last_ms < PROGRESS_EVERY_MS {
                        continue;
                    }
                    last_ms = now;
                    match self.store.analysis_progress(id, &self.mail.owner, done as u32, now).await {
                        Ok(true) => {}
                        Ok(false) => {
                            // Taken over by another process (it found this one stale).
                            stop.store(true, Ordering::Relaxed);
                            continue;
                        }
                        Err(e) => tracing::warn!(game = id.0, "analysis progress not recorded: {e}"),
                    }
                    let now_quarter = done * 4 / total;
                    if now_quarter > quarter
                        && let Some(key) = &progress_key
                    {
                        quarter = now_quarter;
                        let line = Reply::room(progress_line(id, done, total, &how))
                            .replacing(key.clone());
                        self.announce_unasked(&place, vec![line]).await;
                    }
                }
                r = &mut searched => break r,
            }
        };
        let now = self.clock.now_ms();
        match result {
            Ok(Some(done)) => match self
                .store
                .finish_analysis(&done, &self.mail.owner, now)
                .await
            {
                Ok(true) => {
                    let mut replies = Vec::new();
                    if let Some(key) = &progress_key {
                        replies.push(
                            Reply::room(format!(
                                "Game {id} analysed: {total} positions, {how}. The graph and the biggest mistakes follow."
                            ))
                            .replacing(key.clone()),
                        );
                    }
                    let names = self.seat_names(&job.record).await;
                    replies.extend(result_replies(&job.record, &done, &names));
                    self.announce_unasked(&place, replies).await;
                }
                Ok(false) => tracing::info!(game = id.0, "analysis taken over elsewhere"),
                Err(e) => {
                    self.analysis_failed(id, &place, progress_key, &e.to_string())
                        .await
                }
            },
            Ok(None) => tracing::info!(game = id.0, "analysis stopped: taken over elsewhere"),
            Err(_) => {
                self.analysis_failed(id, &place, progress_key, "the engine failed")
                    .await
            }
        }
        // Only now: an analysis counts as in flight until what it says is posted.
        analyst.in_flight.fetch_sub(1, Ordering::SeqCst);
    }

    /// Forgets a failed analysis (so it may be asked for again) and says so.
    async fn analysis_failed(
        &self,
        id: GameId,
        place: &Place,
        progress: Option<crate::outbox::Key>,
        why: &str,
    ) {
        let reference = self.references.next();
        tracing::error!(game = id.0, reference, "analysis failed: {why}");
        if let Err(e) = self.store.abandon_analysis(id, &self.mail.owner).await {
            tracing::warn!(game = id.0, "failed analysis not forgotten: {e}");
        }
        let mut line = Reply::room(format!(
            "Sorry, the analysis of game {id} failed (reference {reference}). Ask again with `analyse #{id}`."
        ));
        line.replaces = progress;
        self.announce_unasked(place, vec![line]).await;
    }
}

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// `analyse [#GAME]`: the cached analysis, where the running one stands, or a new one
    /// queued; or why the game cannot be analysed.
    pub(super) async fn analyse(
        &self,
        actor: &Actor,
        place: &Place,
        game: Option<GameId>,
    ) -> Outcomes {
        let Some(analyst) = &self.analyst else {
            return user(
                "Post-game analysis is off on this bot. Its operator can turn it on (`[analysis] enabled = true`).",
            );
        };
        let record = match game {
            Some(id) => self.load(id).await?.record().clone(),
            None => self.last_finished_here(place).await?,
        };
        let id = record.id;
        let game = match self.rebuild(record.clone())? {
            Loaded::Glass(_) if record.status.is_active() => {
                return user(format!(
                    "Game {id} is a Looking-Glass game still being played: no analysis before its end, where it could help a player. After the end, `history #{id}` shows the whole game revealed."
                ));
            }
            Loaded::Glass(g) => JobGame::Glass {
                variant: g.game.variant().clone(),
                rules: g.game.rules(),
                actions: record.moves.clone(),
            },
            Loaded::Board(g) => {
                let variant = g.position.variant().clone();
                JobGame::Board {
                    start: Box::new(rules::fen::position(&variant, &record.start_state).map_err(
                        |source| ServiceError::Replay {
                            game: id,
                            source: source.into(),
                        },
                    )?),
                    moves: replay_moves(&variant, &record)?,
                }
            }
        };
        match &record.status {
            GameStatus::Active => {
                return user(format!(
                    "Game {id} is still being played: analysis comes after the end, so that it cannot help a player. Ask again when it is over (`analyse #{id}`)."
                ));
            }
            GameStatus::Aborted => {
                return user(format!(
                    "Game {id} was aborted before it really started: there is nothing to analyse."
                ));
            }
            GameStatus::Finished { .. } => {}
        }
        match analysis::check(record.ply()) {
            Ok(()) => {}
            Err(AnalyseError::TooLong(positions)) => {
                return user(format!(
                    "Game {id} is too long to analyse: {positions} positions, and an analysis takes at most {}. `export #{id}` gives the moves for another program.",
                    analysis::MAX_POSITIONS
                ));
            }
        }
        let plies = record.ply() as u32;
        let now = self.clock.now_ms();
        if let Some(a) = self.store.analysis(id).await? {
            match &a.state {
                AnalysisState::Done(done) if a.plies == plies => {
                    let names = self.seat_names(&record).await;
                    let how = game.how(done.nodes, "each");
                    let mut replies = vec![Reply::room(format!(
                        "Game {id} was analysed already ({} positions, {how}):",
                        done.positions(),
                    ))];
                    replies.extend(result_replies(&record, done, &names));
                    return Ok(replies);
                }
                AnalysisState::Running { done, total } if a.updated_ms >= now - STALE_AFTER_MS => {
                    return user(running_text(id, *done, *total, a.started_ms, now));
                }
                _ => {}
            }
        }
        let total = record.ply() + 1;
        // A four-player move the search would not have made costs a second search: count
        // those games' moves twice against the total.
        let searches = match &game {
            JobGame::Board { start, .. } if start.variant().sides > 2 => 2 * total,
            _ => total,
        };
        let nodes = analysis::nodes_per_position(searches, analyst.config.nodes);
        let key = self.mail.keys.next();
        let start = AnalysisStart {
            game: id,
            plies,
            total: total as u32,
            owner: self.mail.owner.clone(),
            request: AnalysisRequest {
                place: record.place.clone(),
                asked_by: actor.id.clone(),
                progress: Some(key.clone()),
            },
            now_ms: now,
        };
        if !self
            .store
            .begin_analysis(&start, now - STALE_AFTER_MS)
            .await?
        {
            // Another start won the race: say where it stands.
            return match self
                .store
                .analysis(id)
                .await?
                .map(|a| (a.state, a.started_ms))
            {
                Some((AnalysisState::Running { done, total }, started)) => {
                    user(running_text(id, done, total, started, now))
                }
                _ => user(format!(
                    "Game {id} was analysed a moment ago: ask again (`analyse #{id}`) to see it."
                )),
            };
        }
        let job = Job {
            game,
            nodes,
            request: start.request,
            record,
        };
        let queued = analyst.in_flight.fetch_add(1, Ordering::SeqCst);
        let mut text = progress_line(id, 0, total, &job.how());
        if nodes < analyst.config.nodes && matches!(job.game, JobGame::Board { .. }) {
            text.push_str(&format!(
                " (a long game: {} nodes a position instead of {}, so that it takes no longer than a shorter one)",
                thousands(nodes),
                thousands(analyst.config.nodes)
            ));
        }
        if queued > 0 {
            text.push_str(&format!(
                " Queued behind {queued} other analys{}.",
                if queued == 1 { "is" } else { "es" }
            ));
        }
        // The progress line is posted here, under the key the analysis keeps, so that its
        // later lines can name it; to the game's room, where the results go too.
        let mut reply = Reply::room(text);
        if !job.record.place.same_room(place) {
            reply = reply.in_place(job.record.place.clone());
        }
        reply.key = Some(key);
        let tell = self.tell(
            &Telling::answer(actor, place),
            std::slice::from_mut(&mut reply),
        );
        if let Err(e) = self
            .store
            .post(&tell.envelopes, tell.claim.as_ref(), now)
            .await
        {
            tracing::warn!(game = id.0, "analysis progress line not kept: {e}");
            reply.key = None;
        }
        match analyst.spawner.get() {
            Some(spawn) => (spawn.0)(job),
            None => {
                analyst.in_flight.fetch_sub(1, Ordering::SeqCst);
                let _ = self.store.abandon_analysis(id, &self.mail.owner).await;
                return user(
                    "Post-game analysis is not running on this bot yet; try again in a moment.",
                );
            }
        }
        Ok(vec![reply])
    }

    /// The most recent finished game in this room, for `analyse` without a game; else the
    /// most recent game here (a game still being played, which is then refused as such).
    async fn last_finished_here(&self, place: &Place) -> Result<GameRecord, Failure> {
        let recent = self
            .store
            .list_games(&GameFilter::default().at(place.clone()).limit(50))
            .await?;
        let finished = recent
            .iter()
            .position(|g| matches!(g.status, GameStatus::Finished { .. }))
            .unwrap_or(0);
        match recent.into_iter().nth(finished) {
            Some(g) => Ok(g),
            None => user(
                "There is no finished game here to analyse. Name one: `analyse #ID` (`games` lists yours).",
            ),
        }
    }
}

/// The moves of a board game's record, as the engine's moves.
fn replay_moves(variant: &Arc<Variant>, record: &GameRecord) -> Result<Vec<Move>, Failure> {
    let replay_error = |source| ServiceError::Replay {
        game: record.id,
        source,
    };
    let mut pos =
        rules::fen::position(variant, &record.start_state).map_err(|e| replay_error(e.into()))?;
    let mut out = Vec::with_capacity(record.moves.len());
    for (i, m) in record.moves.iter().enumerate() {
        let mv = notation::parse_coord(&pos, m).map_err(|source| {
            replay_error(export::ReplayError::Move {
                ply: i + 1,
                text: m.clone(),
                source: Box::new(source),
            })
        })?;
        pos.play_unchecked(mv);
        out.push(mv);
    }
    Ok(out)
}

/// `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The progress line: a bar, the count and the share.
fn progress_line(id: GameId, done: usize, total: usize, how: &str) -> String {
    const WIDTH: usize = 20;
    let filled = (done * WIDTH).checked_div(total).unwrap_or(0);
    format!(
        "Analysing game {id} {how}: [{}{}] {done} of {total} positions ({}%).",
        "#".repeat(filled),
        "-".repeat(WIDTH - filled),
        (done * 100).checked_div(total).unwrap_or(0)
    )
}

/// Where a running analysis stands, for a second `analyse`.
fn running_text(id: GameId, done: u32, total: u32, started_ms: i64, now_ms: i64) -> String {
    let secs = (now_ms - started_ms).max(0) / 1000;
    let ago = if secs < 60 {
        format!("{secs} s")
    } else {
        format!("{} min", secs / 60)
    };
    format!(
        "Game {id} is being analysed already: {done} of {total} positions searched ({}%), started {ago} ago. The results will be posted in the game's room when it ends.",
        (u64::from(done) * 100)
            .checked_div(u64::from(total))
            .unwrap_or(0)
    )
}

/// "12." for the first seat, "12…" for the others: the mistake's move number, or (in an
/// analysis stored before numbers were kept, always of two seats) the number half-move `ply`
/// has from a start with the first seat to move.
fn move_label(m: &analysis::Mistake, seat: u8) -> String {
    let number = if m.number > 0 {
        m.number
    } else {
        m.ply / 2 + 1
    };
    format!("{number}{}", if seat == 0 { "." } else { "…" })
}

/// Chances (0 to 1) in tenths of a percent, as a graph carries them.
fn tenths(chances: &[f32]) -> Vec<u16> {
    chances
        .iter()
        .map(|c| (c.clamp(0.0, 1.0) * 1000.0).round() as u16)
        .collect()
}

fn percent(chance: f32) -> String {
    format!("{:.0}%", chance * 100.0)
}

/// A finished analysis's evaluation graph, as the chat reply carries it: for the game's web
/// page, which shows the same graph under the board.
pub fn evaluation_graph(
    record: &GameRecord,
    analysis: &GameAnalysis,
    names: &[String],
) -> Option<crate::reply::GraphPicture> {
    result_replies(record, analysis, names)
        .into_iter()
        .find_map(|r| r.graph)
}

/// The results of an analysis as replies to the game's room: the graph with each seat's
/// accuracy, then each seat's biggest mistakes with the better move marked on the board
/// (the position before the mistake, from the mover's side).
pub(crate) fn result_replies(
    record: &GameRecord,
    analysis: &GameAnalysis,
    names: &[String],
) -> Vec<Reply> {
    let id = record.id;
    let sides = record.seats.len().max(2);
    let who = |seat: u8| {
        format!(
            "{} ({})",
            names
                .get(usize::from(seat))
                .cloned()
                .unwrap_or_else(|| Side(seat).name(sides).to_string()),
            Side(seat).name(sides)
        )
    };
    let accuracy = |seat: &analysis::SeatReport| match seat.accuracy {
        Some(a) => format!("{a:.0}%"),
        None => "no moves".to_string(),
    };
    let captions: Vec<String> = analysis
        .seats
        .iter()
        .map(|s| format!("{} {}", who(s.seat), accuracy(s)))
        .collect();
    let marks = analysis
        .seats
        .iter()
        .flat_map(|s| {
            s.mistakes.iter().map(|m| GraphMark {
                position: m.ply + 1,
                seat: s.seat,
                severity: m.severity,
            })
        })
        .collect();
    let graph = GraphPicture {
        game: id,
        title: format!(
            "Game {id} · {} · {}",
            record.variant,
            analysis
                .seats
                .iter()
                .map(|s| names.get(usize::from(s.seat)).cloned().unwrap_or_default())
                .collect::<Vec<_>>()
                .join(" vs ")
        ),
        chances: tenths(&analysis.chances()),
        others: analysis
            .seat_chances()
            .iter()
            .skip(1)
            .map(|c| tenths(c))
            .collect(),
        captions: captions.clone(),
        marks,
        numbers: analysis.numbers.clone(),
    };
    let glass = GameKind::glass(&record.variant).is_some();
    let shows = if glass {
        "each player's chances as he could judge them from what he knew, at his turns and after his orders"
            .to_string()
    } else if analysis.seat_scores.is_empty() {
        format!("{}'s winning chances after each move", who(0))
    } else {
        "each player's chances against the table, measured at his turns and after his moves"
            .to_string()
    };
    let mut summary = format!(
        "Analysis of game {id}: accuracy {}. The graph shows {shows}; marked moves lost at least {:.0} points of winning chances.",
        captions.join(", "),
        engine::analysis::INACCURACY
    );
    let mut replies = Vec::new();
    let mut boards = Vec::new();
    for s in &analysis.seats {
        if s.mistakes.is_empty() {
            summary.push_str(&format!(
                "\n{}: no move lost {:.0} points or more.",
                who(s.seat),
                engine::analysis::INACCURACY
            ));
            continue;
        }
        for m in &s.mistakes {
            let better = match (&m.best, &m.best_cells) {
                (Some(b), Some(_)) => format!(" Better was {b}, marked on the board."),
                (Some(b), None) if glass => {
                    format!(" Better was {b}, from what he knew then (his view on the board).")
                }
                (Some(b), None) => format!(" Better was {b}."),
                (None, _) => String::new(),
            };
            let text = format!(
                "Game {id}, {}: move {} {}{} was {}: winning chances {} → {} ({:.0} points).{better}",
                who(s.seat),
                move_label(m, s.seat),
                m.played,
                m.severity.sign(),
                m.severity.name(),
                percent(m.before),
                percent(m.after),
                m.loss,
            );
            boards.push(Reply::room(text).with_board(BoardPicture {
                game: Some(id),
                diagram: None,
                engine: if glass {
                    EngineKind::Glass
                } else {
                    EngineKind::Board
                },
                variant: analysis.variant.clone(),
                state: m.state.clone(),
                // The better move, marked where the last move usually is.
                last_move: m.best_cells.clone(),
                viewer: Some(s.seat),
                players: names.to_vec(),
                clock: None,
            }));
        }
    }
    replies.push(Reply::room(summary).with_graph(graph));
    replies.extend(boards);
    replies
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_well() {
        assert_eq!(thousands(60_000), "60,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(24_000_000), "24,000,000");
        assert_eq!(
            progress_line(GameId(4), 5, 10, "at 1,000 nodes a position"),
            "Analysing game 4 at 1,000 nodes a position: [##########----------] 5 of 10 positions (50%)."
        );
        assert!(progress_line(GameId(4), 0, 0, "").contains("(0%)"));
        let mistake = |ply, number| analysis::Mistake {
            ply,
            number,
            severity: analysis::Severity::Mistake,
            loss: 12.0,
            before: 0.5,
            after: 0.38,
            played: "e4".into(),
            best: None,
            best_cells: None,
            state: String::new(),
        };
        assert_eq!(move_label(&mistake(0, 0), 0), "1.");
        assert_eq!(move_label(&mistake(3, 0), 1), "2…");
        // Four seats: the number is the game's own, not the half-move's half.
        assert_eq!(move_label(&mistake(6, 2), 2), "2…");
        assert!(
            running_text(GameId(2), 3, 12, 0, 125_000)
                .contains("3 of 12 positions searched (25%), started 2 min ago")
        );
    }
}
