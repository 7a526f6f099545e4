//! Live pages: server-sent events.
//!
//! Each watched game (and theme) is a *topic* with one broadcast channel. When the game
//! changes, its update is built **once** (the replay, the SVG, the move list) and the same
//! bytes go to every open stream, so a thousand watchers cost a thousand small writes, not a
//! thousand renders.
//!
//! **Edits, not pages.** Each state a topic publishes has an id, and each update says which
//! state it edits ([`crate::update`]). A stream remembers the id of the state its watcher
//! holds: it sends the edit when the watcher holds the state edited (a move: a few hundred
//! bytes) and the whole state otherwise (a new watcher, one that fell behind). The server
//! decides, so a watcher can never apply an edit to the wrong text.
//!
//! **Waves.** Each stream waits its wave (a sixteenth of [`WebConfig::spread`](crate::WebConfig)
//! times its number modulo [`WAVES`]) before it sends a change, and then sends the newest: a
//! move's thousand writes come as sixteen small bursts, not one that holds every core while
//! the players' commands wait.
//!
//! Two sources wake a topic:
//! - the store's [`GameChanges`](bot_core::store::watched::GameChanges), sent by this process
//!   right after a write is durable, before the bot's reply is sent: a move appears on the
//!   page as soon as in the chat;
//! - a poll every [`WebConfig::poll`](crate::WebConfig) of the watched games' versions, for
//!   moves made by another process on the same database (PostgreSQL) and for notices lost
//!   when the channel overflowed. Only games with open streams are read.
//!
//! **Privacy.** An update is sent only when its text differs from the last one sent on the
//! topic. A Looking-Glass game's page shows nothing that changes while it is played, so its
//! watchers receive nothing until it ends: neither what happened nor when.

use std::{
    collections::HashMap,
    convert::Infallible,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering},
    },
    time::Duration,
};

use axum::{
    body::{Body, Bytes},
    extract::{Path, Query, State},
    http::header,
    response::{IntoResponse, Response},
};
use bot_core::{
    model::GameId,
    store::{GameStore, watched::GameChanges},
};
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::{PageQuery, Web, page::GamePage, update::Live};

/// A topic's key: the game and the theme its board is drawn in.
type Key = (GameId, &'static str);

/// The live topics of one server.
#[derive(Debug)]
pub struct Hub {
    changes: GameChanges,
    topics: Mutex<HashMap<Key, Topic>>,
    streams: Arc<AtomicUsize>,
    /// Streams opened so far (wrapping, a multiple of [`WAVES`] apart): a stream's number
    /// picks its wave.
    opened: AtomicU32,
    /// The next state's id (unique in this server).
    ids: AtomicU64,
}

/// How many waves a change is sent in ([`crate::WebConfig::spread`]).
pub const WAVES: u32 = 16;

/// A published state: its id, and the bytes a stream sends for it.
#[derive(Debug)]
struct Update {
    /// The state this one edits (the topic's state before it), if any.
    from: Option<u64>,
    /// This state's id.
    to: u64,
    /// The whole state, as an event-stream frame.
    whole: Bytes,
    /// The edit from `from`, as an event-stream frame, when shorter than `whole`.
    edit: Option<Bytes>,
}

#[derive(Debug)]
struct Topic {
    tx: broadcast::Sender<Arc<Update>>,
    /// The game's version the last update was built from.
    version: i64,
    /// The last state published (or the one a watcher was shown first, if newer), and its id.
    last: Option<(u64, Live)>,
}

impl Hub {
    /// A hub woken by `changes`.
    pub fn new(changes: GameChanges) -> Hub {
        Hub {
            changes,
            topics: Mutex::new(HashMap::new()),
            streams: Arc::new(AtomicUsize::new(0)),
            opened: AtomicU32::new(0),
            ids: AtomicU64::new(1),
        }
    }

    /// Event streams open now.
    pub fn open_streams(&self) -> usize {
        self.streams.load(Ordering::Relaxed)
    }

    /// Games with at least one open stream.
    pub fn watched_games(&self) -> usize {
        let topics = self
            .topics
            .lock()
            .map(|t| t.keys().map(|k| k.0).collect::<Vec<_>>());
        let mut games = topics.unwrap_or_default();
        games.sort();
        games.dedup();
        games.len()
    }

    /// The wait of a new stream before it sends each change: streams opened one after
    /// another take the [`WAVES`] waves in turn, the first wave at once.
    fn wave_delay(&self, spread: Duration) -> Duration {
        spread * (self.opened.fetch_add(1, Ordering::Relaxed) % WAVES) / WAVES
    }

    fn next_id(&self) -> u64 {
        self.ids.fetch_add(1, Ordering::Relaxed)
    }

    fn subscribe(&self, key: Key) -> broadcast::Receiver<Arc<Update>> {
        let mut topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        topics
            .entry(key)
            .or_insert_with(|| Topic {
                // A watcher who falls behind is sent the newest state whole: a short buffer
                // is enough.
                tx: broadcast::channel(16).0,
                version: -1,
                last: None,
            })
            .tx
            .subscribe()
    }

    /// The id of the state `live` (read at `version`) that a new watcher is shown first: the
    /// topic's own when they are the same, else a new one, kept as the topic's state if newer.
    fn seed(&self, key: Key, version: i64, live: &Live) -> u64 {
        let mut topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        let Some(t) = topics.get_mut(&key) else {
            return self.next_id();
        };
        if let Some((id, last)) = &t.last
            && last == live
        {
            return *id;
        }
        let id = self.next_id();
        if t.version < version {
            t.version = version;
            t.last = Some((id, live.clone()));
        }
        id
    }

    /// Sends `live` (built at `version`) to the topic's watchers if it says something new.
    fn publish(&self, key: Key, version: i64, live: Live) {
        let mut topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        let Some(t) = topics.get_mut(&key) else {
            return;
        };
        if version < t.version {
            return;
        }
        t.version = version;
        if t.last.as_ref().is_some_and(|(_, l)| *l == live) {
            return;
        }
        let to = self.next_id();
        let before = t.last.take();
        let update = Update {
            from: before.as_ref().map(|(id, _)| *id),
            to,
            whole: frame(&live.whole()),
            edit: before
                .as_ref()
                .and_then(|(_, b)| live.edit_from(b))
                .map(|json| frame(&json)),
        };
        t.last = Some((to, live));
        let _ = t.tx.send(Arc::new(update));
    }

    /// The watched topics and their versions; forgets those nobody watches any more.
    fn watched(&self) -> Vec<(Key, i64)> {
        let mut topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        topics.retain(|_, t| t.tx.receiver_count() > 0);
        topics.iter().map(|(k, t)| (*k, t.version)).collect()
    }
}

/// The theme names a topic can be drawn in (the query's `theme`, normalised).
fn theme_key(q: &PageQuery) -> &'static str {
    match q.theme.as_deref() {
        Some("colour-blind" | "colorblind" | "colour_blind") => "colour-blind",
        Some("dark") => "dark",
        _ => "light",
    }
}

fn theme_of(key: &str) -> render::Theme {
    PageQuery {
        theme: Some(key.to_string()),
        ..PageQuery::default()
    }
    .theme()
}

/// Builds the live state of `game` drawn in `theme` from the store, and its version.
async fn update<S: GameStore + Clone + 'static>(
    web: &Web<S>,
    game: GameId,
    theme: &str,
) -> Option<(i64, Live)> {
    let (record, names) = web.load(game.0).await.ok()?;
    let page = GamePage::build(
        &record,
        &names,
        &web.catalog,
        None,
        &theme_of(theme),
        web.now_ms(),
    )
    .ok()?;
    web.metrics.render("svg");
    Some((record.version, page.live()))
}

/// Refreshes the topics of `game` (every theme watched).
async fn refresh<S: GameStore + Clone + 'static>(web: &Web<S>, keys: &[Key]) {
    for &key in keys {
        if let Some((version, live)) = update(web, key.0, key.1).await {
            web.hub.publish(key, version, live);
        }
    }
}

/// Keeps the topics up to date until aborted: on every change notice, and every poll.
pub async fn run<S: GameStore + Clone + 'static>(web: Arc<Web<S>>) {
    let mut rx = web.hub.changes.subscribe();
    let mut tick = tokio::time::interval(web.config.poll);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut notices = true;
    loop {
        tokio::select! {
            r = rx.recv(), if notices => match r {
                Ok(change) => {
                    let keys: Vec<Key> = web
                        .hub
                        .watched()
                        .into_iter()
                        .filter(|(k, v)| k.0 == change.game && *v < change.version)
                        .map(|(k, _)| k)
                        .collect();
                    refresh(&web, &keys).await;
                }
                // Notices were lost: the poll below reads every watched game.
                Err(RecvError::Lagged(_)) => tick.reset_immediately(),
                Err(RecvError::Closed) => notices = false,
            },
            _ = tick.tick() => {
                for (key, version) in web.hub.watched() {
                    let store = web.store.clone();
                    match web.at_home(async move { store.get_game(key.0).await }).await {
                        Ok(r) if r.version != version => refresh(&web, &[key]).await,
                        _ => {}
                    }
                }
            }
        }
    }
}

/// Counts an open stream while it lives.
struct Open(Arc<AtomicUsize>);

impl Open {
    fn new(count: &Arc<AtomicUsize>) -> Open {
        count.fetch_add(1, Ordering::Relaxed);
        Open(count.clone())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `GET /game/ID/events`: the page's state now, then each change, as `update` events whose
/// data is [`crate::update`]'s JSON.
pub async fn events<S: GameStore + Clone + 'static>(
    State(web): State<Arc<Web<S>>>,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Response {
    let id = match crate::game_id(&id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let key = (GameId(id), theme_key(&q));
    // Subscribe before reading, so that no change falls between the two.
    let rx = web.hub.subscribe(key);
    let (record, names) = match web.load(id).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let page = match GamePage::build(
        &record,
        &names,
        &web.catalog,
        None,
        &theme_of(key.1),
        web.now_ms(),
    ) {
        Ok(p) => p,
        Err(e) => return crate::watch_error(&e),
    };
    let live = page.live();
    let shown = web.hub.seed(key, record.version, &live);
    let first = frame(&live.whole());
    let wave = web.hub.wave_delay(web.config.spread);
    let body = Body::from_stream(stream_of(
        first,
        shown,
        rx,
        wave,
        Open::new(&web.hub.streams),
    ));
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// An update as one event-stream frame, built once and shared by every stream: the JSON is
/// one line (its strings escape line breaks), so it is one `data:` field.
fn frame(json: &str) -> Bytes {
    let mut out = String::with_capacity(json.len() + 24);
    out.push_str("event: update\ndata: ");
    out.push_str(json);
    out.push_str("\n\n");
    Bytes::from(out)
}

/// How often an idle stream sends a comment, so that proxies and browsers keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A stream's frames: `first` (the state `shown`), then each newer state the topic publishes,
/// as an edit when the watcher holds the state it edits and whole otherwise, each `wave`
/// after it was published.
fn stream_of(
    first: Bytes,
    shown: u64,
    rx: broadcast::Receiver<Arc<Update>>,
    wave: Duration,
    open: Open,
) -> impl Stream<Item = Result<Bytes, Infallible>> {
    stream::unfold(
        (Some(first), shown, rx, open),
        move |(first, mut shown, mut rx, open)| async move {
            if let Some(f) = first {
                return Some((Ok(f), (None, shown, rx, open)));
            }
            loop {
                match tokio::time::timeout(KEEP_ALIVE, rx.recv()).await {
                    // The state the watcher holds already (a refresh that raced its first
                    // read): not sent twice.
                    Ok(Ok(u)) if u.to == shown => continue,
                    Ok(Ok(mut u)) => {
                        if !wave.is_zero() {
                            tokio::time::sleep(wave).await;
                            // Newer states published meanwhile: the newest is sent instead.
                            while let Ok(newer) = rx.try_recv() {
                                u = newer;
                            }
                        }
                        let bytes = match &u.edit {
                            Some(edit) if u.from == Some(shown) => edit.clone(),
                            _ => u.whole.clone(),
                        };
                        shown = u.to;
                        return Some((Ok(bytes), (None, shown, rx, open)));
                    }
                    // Updates were missed: the next one is sent whole (its `from` is not
                    // `shown`).
                    Ok(Err(RecvError::Lagged(_))) => continue,
                    Ok(Err(RecvError::Closed)) => return None,
                    Err(_) => {
                        return Some((Ok(Bytes::from_static(b":\n\n")), (None, shown, rx, open)));
                    }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;

    fn update(from: Option<u64>, to: u64, edit: bool) -> Arc<Update> {
        Arc::new(Update {
            from,
            to,
            whole: Bytes::from(format!("whole {to}")),
            edit: edit.then(|| Bytes::from(format!("edit {to}"))),
        })
    }

    /// What a stream whose watcher holds state `shown` sends, as text.
    async fn sent(shown: u64, rx: broadcast::Receiver<Arc<Update>>) -> Vec<String> {
        sent_in_wave(shown, rx, Duration::ZERO).await
    }

    /// The same for a stream whose wave waits `wave`.
    async fn sent_in_wave(
        shown: u64,
        rx: broadcast::Receiver<Arc<Update>>,
        wave: Duration,
    ) -> Vec<String> {
        let count = Arc::new(AtomicUsize::new(0));
        let out = stream_of(
            Bytes::from_static(b"first"),
            shown,
            rx,
            wave,
            Open::new(&count),
        )
        .map(|r| String::from_utf8_lossy(&r.unwrap()).into_owned())
        .collect()
        .await;
        assert_eq!(
            count.load(Ordering::Relaxed),
            0,
            "the stream counted closed"
        );
        out
    }

    #[tokio::test]
    async fn a_stream_sends_edits_of_what_its_watcher_holds_and_whole_states_otherwise() {
        let (tx, rx) = broadcast::channel(16);
        // A refresh that raced the first read publishes the state shown (1): not sent again.
        tx.send(update(None, 1, false)).unwrap();
        // A move: an edit of 1.
        tx.send(update(Some(1), 2, true)).unwrap();
        // An edit of a state this watcher never held (another watcher's first state): whole.
        tx.send(update(Some(9), 3, true)).unwrap();
        // A change with no edit shorter than the whole: whole.
        tx.send(update(Some(3), 4, false)).unwrap();
        tx.send(update(Some(4), 5, true)).unwrap();
        drop(tx);
        let got = sent(1, rx).await;
        assert_eq!(got, ["first", "edit 2", "whole 3", "whole 4", "edit 5"]);
    }

    #[tokio::test]
    async fn a_watcher_who_fell_behind_is_sent_the_newest_state_whole() {
        let (tx, rx) = broadcast::channel(2);
        for to in 2..=6 {
            tx.send(update(Some(to - 1), to, true)).unwrap();
        }
        drop(tx);
        let got = sent(1, rx).await;
        // 2 to 4 were lost to the short buffer: 5 edits 4, which this watcher has not.
        assert_eq!(got, ["first", "whole 5", "edit 6"]);
    }

    #[tokio::test]
    async fn a_stream_in_a_later_wave_sends_the_newest_state_after_its_wait() {
        let (tx, rx) = broadcast::channel(16);
        // Two moves published before the stream's wait is over: only the newer is sent,
        // whole, since the watcher never held the state it edits.
        tx.send(update(Some(1), 2, true)).unwrap();
        tx.send(update(Some(2), 3, true)).unwrap();
        drop(tx);
        let start = std::time::Instant::now();
        let got = sent_in_wave(1, rx, Duration::from_millis(30)).await;
        assert_eq!(got, ["first", "whole 3"]);
        assert!(
            start.elapsed() >= Duration::from_millis(30),
            "sent before its wave"
        );
    }

    #[test]
    fn streams_take_the_waves_in_turn_the_first_at_once() {
        let hub = Hub::new(GameChanges::default());
        let spread = Duration::from_millis(32);
        let waits: Vec<u128> = (0..WAVES + 2)
            .map(|_| hub.wave_delay(spread).as_millis())
            .collect();
        assert_eq!(&waits[..3], [0, 2, 4]);
        assert_eq!(waits[WAVES as usize - 1], 30);
        assert_eq!(&waits[WAVES as usize..], [0, 2]);
        assert_eq!(hub.wave_delay(Duration::ZERO), Duration::ZERO);
    }
}
