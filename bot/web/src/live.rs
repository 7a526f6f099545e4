//! Live pages: server-sent events.
//!
//! Each watched game (and theme) is a *topic* with one broadcast channel. When the game
//! changes, its update is built **once** (the replay, the SVG, the move list) and the same
//! bytes go to every open stream, so a thousand watchers cost a thousand small writes, not a
//! thousand renders.
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
        atomic::{AtomicUsize, Ordering},
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

use crate::{PageQuery, Web, page::GamePage};

/// A topic's key: the game and the theme its board is drawn in.
type Key = (GameId, &'static str);

/// The live topics of one server.
#[derive(Debug)]
pub struct Hub {
    changes: GameChanges,
    topics: Mutex<HashMap<Key, Topic>>,
    streams: Arc<AtomicUsize>,
}

#[derive(Debug)]
struct Topic {
    tx: broadcast::Sender<Bytes>,
    /// The game's version the last update was built from.
    version: i64,
    /// The last update sent (or the page's state when the first watcher came), as its
    /// event-stream frame.
    last: Bytes,
}

impl Hub {
    /// A hub woken by `changes`.
    pub fn new(changes: GameChanges) -> Hub {
        Hub {
            changes,
            topics: Mutex::new(HashMap::new()),
            streams: Arc::new(AtomicUsize::new(0)),
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

    fn subscribe(&self, key: Key) -> broadcast::Receiver<Bytes> {
        let mut topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        topics
            .entry(key)
            .or_insert_with(|| Topic {
                // Each update carries the whole state: a watcher who falls behind needs
                // only the newest, so a short buffer is enough.
                tx: broadcast::channel(16).0,
                version: -1,
                last: Bytes::new(),
            })
            .tx
            .subscribe()
    }

    /// Records the state a new watcher was shown, if newer than the topic's.
    fn seed(&self, key: Key, version: i64, payload: &Bytes) {
        let mut topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = topics.get_mut(&key)
            && t.version < version
        {
            t.version = version;
            t.last = payload.clone();
        }
    }

    /// Sends `payload` (built at `version`) to the topic's watchers if it says something new.
    fn publish(&self, key: Key, version: i64, payload: Bytes) {
        let mut topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        let Some(t) = topics.get_mut(&key) else {
            return;
        };
        if version < t.version {
            return;
        }
        t.version = version;
        if t.last != payload {
            t.last = payload.clone();
            let _ = t.tx.send(payload);
        }
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

/// Builds the update of `game` drawn in `theme` from the store: its version and text.
async fn update<S: GameStore + Clone + 'static>(
    web: &Web<S>,
    game: GameId,
    theme: &str,
) -> Option<(i64, Bytes)> {
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
    Some((record.version, frame(&page.event_json())))
}

/// Refreshes the topics of `game` (every theme watched).
async fn refresh<S: GameStore + Clone + 'static>(web: &Web<S>, keys: &[Key]) {
    for &key in keys {
        if let Some((version, payload)) = update(web, key.0, key.1).await {
            web.hub.publish(key, version, payload);
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
/// data is [`GamePage::event_json`].
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
    let first = frame(&page.event_json());
    web.hub.seed(key, record.version, &first);
    let body = Body::from_stream(stream_of(first, rx, Open::new(&web.hub.streams)));
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

fn stream_of(
    first: Bytes,
    rx: broadcast::Receiver<Bytes>,
    open: Open,
) -> impl Stream<Item = Result<Bytes, Infallible>> {
    // The state: the snapshot not sent yet, or the one sent while no update has come since
    // (a refresh that raced the snapshot's read may publish the same state again: it is
    // not sent twice; later updates differ from the one before by construction).
    enum Shown {
        Pending(Bytes),
        Snapshot(Bytes),
        Updates,
    }
    stream::unfold(
        (Shown::Pending(first), rx, open),
        |(shown, mut rx, open)| async move {
            let snapshot = match shown {
                Shown::Pending(f) => {
                    return Some((Ok(f.clone()), (Shown::Snapshot(f), rx, open)));
                }
                Shown::Snapshot(f) => Some(f),
                Shown::Updates => None,
            };
            loop {
                match tokio::time::timeout(KEEP_ALIVE, rx.recv()).await {
                    Ok(Ok(p)) if snapshot.as_ref() == Some(&p) => continue,
                    Ok(Ok(p)) => return Some((Ok(p), (Shown::Updates, rx, open))),
                    // Each update is the whole state: the next one catches up.
                    Ok(Err(RecvError::Lagged(_))) => continue,
                    Ok(Err(RecvError::Closed)) => return None,
                    Err(_) => {
                        let keep = snapshot.map_or(Shown::Updates, Shown::Snapshot);
                        return Some((Ok(Bytes::from_static(b":\n\n")), (keep, rx, open)));
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

    #[tokio::test]
    async fn a_stream_does_not_send_its_snapshot_twice_but_sends_every_change() {
        let (tx, rx) = broadcast::channel(16);
        let count = Arc::new(AtomicUsize::new(0));
        let snapshot = Bytes::from_static(b"event: update\ndata: {\"last\":0}\n\n");
        let moved = Bytes::from_static(b"event: update\ndata: {\"last\":1}\n\n");
        // A refresh that raced the snapshot's read publishes the same state; then a move.
        tx.send(Bytes::copy_from_slice(&snapshot)).unwrap();
        tx.send(moved.clone()).unwrap();
        // A state seen before, but not just before, is news again (a takeback).
        tx.send(snapshot.clone()).unwrap();
        drop(tx);
        let sent: Vec<Bytes> = stream_of(snapshot.clone(), rx, Open::new(&count))
            .map(|r| r.unwrap())
            .collect()
            .await;
        assert_eq!(sent, vec![snapshot.clone(), moved, snapshot]);
        assert_eq!(
            count.load(Ordering::Relaxed),
            0,
            "the stream counted closed"
        );
    }
}
