//! What the end-to-end tests, the quiet-log test and the round-trip bench share: players
//! (real matrix-sdk clients with their own stores), the bot's account, a running bot over the
//! SQLite game store, and latency statistics. Not every user of this module uses all of it.
#![allow(dead_code)]

use std::{
    future::Future,
    path::{Path, PathBuf},
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicU32, Ordering},
    },
    time::{Duration, Instant},
};

use bot_core::{
    Actor, GameService, SystemClock,
    model::{Place, Platform, PlayerId},
    reply::{Audience, Reply},
};
use bot_matrix::{Games, Login, MatrixBot, MatrixConfig, MatrixError};
use bot_store::SqlStore;
use matrix_sdk::{
    Client,
    config::SyncSettings,
    media::{MediaFormat, MediaRequestParameters},
    ruma::{
        OwnedEventId, OwnedRoomId, OwnedUserId, RoomId,
        api::client::{account::register, room::create_room, uiaa},
        events::{
            reaction::ReactionEventContent,
            relation::Annotation,
            room::message::{ImageMessageEventContent, RoomMessageEventContent},
        },
    },
};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// How long a test waits for one expected event.
pub const WAIT: Duration = Duration::from_secs(30);

/// The homeserver's URL, or `None` to skip (unless the run requires Synapse).
pub fn homeserver() -> Option<String> {
    // RUST_LOG=bot_matrix=debug shows the bot's side.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_test_writer()
        .try_init();
    match std::env::var("FAIRYBOT_TEST_SYNAPSE_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("FAIRYBOT_REQUIRE_SYNAPSE").as_deref() != Ok("1"),
                "FAIRYBOT_REQUIRE_SYNAPSE=1 but FAIRYBOT_TEST_SYNAPSE_URL is not set: start one \
                 with `scripts/synapse-test.sh start`"
            );
            eprintln!(
                "SKIP: no Synapse (export FAIRYBOT_TEST_SYNAPSE_URL=\"$(scripts/synapse-test.sh start)\")"
            );
            None
        }
    }
}

/// A user name nobody has used on the test server (it keeps its users between runs).
pub fn unique(name: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        % 10_000_000_000;
    format!(
        "{name}-{t}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}

/// One event a player's client received (decrypted by it, if it was encrypted).
#[derive(Debug, Clone)]
pub struct Seen {
    pub room: OwnedRoomId,
    pub event: Value,
    pub encrypted: bool,
    pub at: Instant,
}

impl Seen {
    pub fn sender(&self) -> &str {
        self.event["sender"].as_str().unwrap_or("")
    }
    pub fn content(&self) -> &Value {
        &self.event["content"]
    }
    pub fn msgtype(&self) -> &str {
        self.content()["msgtype"].as_str().unwrap_or("")
    }
    pub fn body(&self) -> &str {
        self.content()["body"].as_str().unwrap_or("")
    }
    pub fn in_reply_to(&self) -> Option<&str> {
        self.content()["m.relates_to"]["m.in_reply_to"]["event_id"].as_str()
    }
    pub fn id(&self) -> OwnedEventId {
        self.event["event_id"].as_str().unwrap().try_into().unwrap()
    }
}

/// A player: a real matrix-sdk client with its own store, syncing in the background and
/// accepting every invitation (as a person would click "join").
pub struct Player {
    pub client: Client,
    pub events: mpsc::UnboundedReceiver<Seen>,
    pub history: Vec<Seen>,
    pub sync: tokio::task::JoinHandle<()>,
    pub _dir: tempfile::TempDir,
}

impl Drop for Player {
    fn drop(&mut self) {
        self.sync.abort();
    }
}

impl Player {
    pub async fn register(hs: &str, name: &str) -> Player {
        let dir = tempfile::tempdir().unwrap();
        let client = Client::builder()
            .homeserver_url(hs)
            .sqlite_store(dir.path(), None)
            .build()
            .await
            .unwrap();
        let mut request = register::v3::Request::new();
        request.username = Some(unique(name));
        request.password = Some("correct horse battery".into());
        request.auth = Some(uiaa::AuthData::Dummy(uiaa::Dummy::new()));
        client.matrix_auth().register(request).await.unwrap();
        let first = client.sync_once(SyncSettings::default()).await.unwrap();
        let (tx, events) = mpsc::unbounded_channel();
        let sync = tokio::spawn(player_sync(client.clone(), first.next_batch, tx));
        Player {
            client,
            events,
            history: Vec::new(),
            sync,
            _dir: dir,
        }
    }

    pub fn id(&self) -> OwnedUserId {
        self.client.user_id().unwrap().to_owned()
    }

    /// Waits for an event matching `pred`, keeping everything seen on the way.
    pub async fn expect(&mut self, what: &str, pred: impl Fn(&Seen) -> bool) -> Seen {
        self.expect_since(0, what, pred).await
    }

    /// Where the history stands now: events after this mark are new.
    pub fn mark(&mut self) -> usize {
        self.drain().len()
    }

    /// Waits for an event in `room`, after `mark`, whose text contains `text`.
    pub async fn sees_since(&mut self, mark: usize, room: &RoomId, text: &str) -> Seen {
        self.expect_since(mark, &format!("{text:?} in {room}"), |s| {
            s.room == room && s.body().contains(text)
        })
        .await
    }

    /// Runs `action` (someone sending a message), then waits for a new event in `room` whose
    /// text contains `text`.
    pub async fn sees_after(
        &mut self,
        action: impl Future<Output = (OwnedEventId, Instant)>,
        room: &RoomId,
        text: &str,
    ) -> Seen {
        let mark = self.mark();
        action.await;
        self.sees_since(mark, room, text).await
    }

    /// Says `said` in `to`, then waits for a new event in `room` whose text contains `text`.
    pub async fn says_and_sees(
        &mut self,
        to: &RoomId,
        said: &str,
        room: &RoomId,
        text: &str,
    ) -> Seen {
        let mark = self.mark();
        self.say(to, said).await;
        self.sees_since(mark, room, text).await
    }

    /// Waits for an event matching `pred` among those after `mark`.
    pub async fn expect_since(
        &mut self,
        mark: usize,
        what: &str,
        pred: impl Fn(&Seen) -> bool,
    ) -> Seen {
        if let Some(s) = self.history[mark.min(self.history.len())..]
            .iter()
            .find(|s| pred(s))
        {
            return s.clone();
        }
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            match tokio::time::timeout_at(deadline, self.events.recv()).await {
                Ok(Some(s)) => {
                    self.history.push(s.clone());
                    if pred(&s) {
                        return s;
                    }
                }
                _ => {
                    let last: Vec<String> = self
                        .history
                        .iter()
                        .rev()
                        .take(8)
                        .map(|s| format!("{} {}: {}", s.sender(), s.event["type"], s.body()))
                        .collect();
                    panic!("{} never saw {what}; last events: {last:#?}", self.id());
                }
            }
        }
    }

    /// The bot's reply to an event.
    pub async fn reply_to(&mut self, bot: &str, event: &OwnedEventId) -> Seen {
        let id = event.to_string();
        self.expect(&format!("the bot's reply to {id}"), |s| {
            s.sender() == bot && s.in_reply_to() == Some(id.as_str())
        })
        .await
    }

    /// Everything the bot had to say before a sentinel: says a command in `room` (a room
    /// with the bot) and waits for its answer, then returns everything received so far. The
    /// bot handles a room's events in order and a sync response carries every event before
    /// its position, so whatever the bot said before answering the sentinel, here or in any
    /// other room, has arrived: a check that something did *not* happen needs no sleep.
    /// The sentinel and its answer are left out of what is returned.
    pub async fn settle(&mut self, room: &RoomId, bot: &str) -> Vec<Seen> {
        let (sentinel, _) = self.say(room, "!fb variants").await;
        self.reply_to(bot, &sentinel).await;
        let sentinel = sentinel.to_string();
        self.drain()
            .iter()
            .filter(|s| s.id().as_str() != sentinel && s.in_reply_to() != Some(sentinel.as_str()))
            .cloned()
            .collect()
    }

    /// Everything received so far (draining what is queued).
    pub fn drain(&mut self) -> &[Seen] {
        while let Ok(s) = self.events.try_recv() {
            self.history.push(s);
        }
        &self.history
    }

    pub async fn say(&self, room: &RoomId, text: &str) -> (OwnedEventId, Instant) {
        self.send(room, RoomMessageEventContent::text_plain(text))
            .await
    }

    pub async fn send(
        &self,
        room: &RoomId,
        content: RoomMessageEventContent,
    ) -> (OwnedEventId, Instant) {
        let room = self.client.get_room(room).expect("a joined room");
        let at = Instant::now();
        let r = room.send(content).await.unwrap();
        (r.response.event_id, at)
    }

    pub async fn react(&self, room: &RoomId, event: &OwnedEventId, key: &str) -> OwnedEventId {
        let room = self.client.get_room(room).unwrap();
        let content = ReactionEventContent::new(Annotation::new(event.clone(), key.into()));
        room.send(content).await.unwrap().response.event_id
    }

    /// Sends an `m.room.encrypted` event whose session nobody has: what a client sends when
    /// it withholds the room key from the bot's device. Sent raw, past the client's own
    /// encryption.
    pub async fn send_undecryptable(&self, room: &RoomId) -> OwnedEventId {
        use matrix_sdk::ruma::{
            TransactionId, api::client::message::send_message_event, serde::Raw,
        };
        let content = serde_json::json!({
            "algorithm": "m.megolm.v1.aes-sha2",
            "ciphertext": "AwgAEiBmYWlyeWJvdCB0ZXN0IGNpcGhlcnRleHQgdGhhdCBvcGVucyB0byBub3RoaW5n",
            "sender_key": "bm8gc3VjaCBzZW5kZXIga2V5IGV4aXN0cyBhbnl3aGVyZQ",
            "device_id": "NOSUCHDEVICE",
            "session_id": "bm8gc3VjaCBzZXNzaW9uIGV4aXN0cyBhbnl3aGVyZQ",
        });
        let request = send_message_event::v3::Request::new_raw(
            room.to_owned(),
            TransactionId::new(),
            "m.room.encrypted".into(),
            Raw::new(&content).unwrap().cast_unchecked(),
        );
        self.client.send(request).await.unwrap().event_id
    }

    /// Waits until `user` has joined `room`.
    pub async fn see_join(&mut self, room: &RoomId, user: &str) {
        let room = room.to_owned();
        self.expect(&format!("{user} joining"), |s| {
            s.room == room
                && s.event["type"] == "m.room.member"
                && s.event["state_key"] == user
                && s.content()["membership"] == "join"
        })
        .await;
    }

    /// Downloads (and decrypts, in encrypted rooms) an `m.image` and checks it against its
    /// info: a PNG of the announced size and dimensions. Returns the dimensions.
    pub async fn check_image(&self, seen: &Seen) -> (u32, u32) {
        let content = seen.content();
        assert_eq!(content["msgtype"], "m.image", "{content}");
        let info = &content["info"];
        assert_eq!(info["mimetype"], "image/png");
        let image: ImageMessageEventContent = serde_json::from_value(content.clone()).unwrap();
        let bytes = self
            .client
            .media()
            .get_media_content(
                &MediaRequestParameters {
                    source: image.source.clone(),
                    format: MediaFormat::File,
                },
                false,
            )
            .await
            .unwrap();
        assert_eq!(Some(bytes.len() as u64), info["size"].as_u64());
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .expect("a valid PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("sized")];
        let frame = reader.next_frame(&mut buf).expect("a whole frame");
        assert_eq!(Some(u64::from(frame.width)), info["w"].as_u64());
        assert_eq!(Some(u64::from(frame.height)), info["h"].as_u64());
        (frame.width, frame.height)
    }

    /// Creates a room and invites these users.
    pub async fn create_room(&self, invite: &[&str], encrypted: bool) -> OwnedRoomId {
        self.create_room_flagged(invite, encrypted, false).await
    }

    /// Creates a room flagged as a direct chat (`is_direct` on the invitations, as clients do
    /// for "start a direct chat") and invites these users.
    pub async fn create_direct_room(&self, invite: &[&str], encrypted: bool) -> OwnedRoomId {
        self.create_room_flagged(invite, encrypted, true).await
    }

    async fn create_room_flagged(
        &self,
        invite: &[&str],
        encrypted: bool,
        direct: bool,
    ) -> OwnedRoomId {
        let mut request = create_room::v3::Request::new();
        request.is_direct = direct;
        request.invite = invite.iter().map(|u| (*u).try_into().unwrap()).collect();
        request.name = Some("fairybot test".into());
        if encrypted {
            request.initial_state = vec![
                matrix_sdk::ruma::events::InitialStateEvent::with_empty_state_key(
                    matrix_sdk::ruma::events::room::encryption::RoomEncryptionEventContent::with_recommended_defaults(),
                )
                .to_raw_any(),
            ];
        }
        self.client
            .create_room(request)
            .await
            .unwrap()
            .room_id()
            .to_owned()
    }
}

pub async fn player_sync(client: Client, mut token: String, tx: mpsc::UnboundedSender<Seen>) {
    loop {
        let settings = SyncSettings::default()
            .token(token.clone())
            .timeout(Duration::from_secs(10));
        match client.sync_once(settings).await {
            Ok(r) => {
                token = r.next_batch.clone();
                for room_id in r.rooms.invited.keys() {
                    if let Some(room) = client.get_room(room_id) {
                        let _ = room.join().await;
                    }
                }
                for (room_id, update) in &r.rooms.joined {
                    for e in &update.timeline.events {
                        let Ok(event) = e.raw().deserialize_as::<Value>() else {
                            continue;
                        };
                        let seen = Seen {
                            room: room_id.clone(),
                            event,
                            encrypted: e.encryption_info().is_some(),
                            at: Instant::now(),
                        };
                        if tx.send(seen).is_err() {
                            return;
                        }
                    }
                }
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// Registers the bot's account (without logging in: the bot does that itself).
pub async fn bot_account(hs: &str) -> (String, String) {
    let client = Client::builder().homeserver_url(hs).build().await.unwrap();
    let name = unique("fairybot");
    let password = "bot password".to_string();
    let mut request = register::v3::Request::new();
    request.username = Some(name.clone());
    request.password = Some(password.clone());
    request.inhibit_login = true;
    request.auth = Some(uiaa::AuthData::Dummy(uiaa::Dummy::new()));
    let r = client.matrix_auth().register(request).await.unwrap();
    (r.user_id.to_string(), password)
}

/// A test-only wrapper standing in for a hidden-information variant: `board` also sends the
/// board privately to the player who asked, and `whisper @user` sends a secret to `@user`.
/// (It keeps the private-path tests independent of a Looking-Glass game's secret setup; that
/// game's own private messages are tested end to end through the Discord stand-in.)
pub struct PrivateBoards<G>(Arc<G>);

impl<G: Games> Games for PrivateBoards<G> {
    fn hold_undelivered<'a>(
        &'a self,
        reply: &'a Reply,
    ) -> Pin<Box<dyn Future<Output = Result<bool, bot_core::store::StoreError>> + Send + 'a>> {
        self.0.hold_undelivered(reply)
    }

    fn take_undelivered<'a>(
        &'a self,
        player: &'a PlayerId,
    ) -> Pin<Box<dyn Future<Output = Vec<Reply>> + Send + 'a>> {
        self.0.take_undelivered(player)
    }

    fn claim_mail(
        &self,
        platform: bot_core::model::Platform,
        limit: u32,
    ) -> bot_core::service::BoxFuture<
        '_,
        Result<Vec<bot_core::outbox::Entry>, bot_core::store::StoreError>,
    > {
        self.0.claim_mail(platform, limit)
    }

    fn settle_mail<'a>(
        &'a self,
        key: &'a bot_core::outbox::Key,
        attempt: bot_core::outbox::Attempt,
    ) -> bot_core::service::BoxFuture<'a, ()> {
        self.0.settle_mail(key, attempt)
    }

    fn mail_signal(&self) -> std::sync::Arc<tokio::sync::Notify> {
        self.0.mail_signal()
    }

    fn mail<'a>(
        &'a self,
        key: &'a bot_core::outbox::Key,
    ) -> bot_core::service::BoxFuture<
        'a,
        Result<Option<bot_core::outbox::Mail>, bot_core::store::StoreError>,
    > {
        self.0.mail(key)
    }

    fn handle<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        cmd: bot_core::command::Command,
    ) -> Pin<Box<dyn Future<Output = Vec<Reply>> + Send + 'a>> {
        self.0.handle(actor, place, cmd)
    }

    fn current_game<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        game: Option<bot_core::model::GameId>,
    ) -> Pin<Box<dyn Future<Output = Option<bot_core::CurrentGame>> + Send + 'a>> {
        self.0.current_game(actor, place, game)
    }

    fn handle_text<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        text: &'a str,
    ) -> Pin<Box<dyn Future<Output = Vec<Reply>> + Send + 'a>> {
        Box::pin(async move {
            if let Some(who) = text.trim().strip_prefix("whisper ") {
                return vec![Reply {
                    audience: Audience::Private(PlayerId::new(Platform::Matrix, who.trim())),
                    ..Reply::room("SECRET-4711 is the word")
                }];
            }
            let mut replies = self.0.handle_text(actor, place, text).await;
            if text.trim() == "board" {
                let private: Vec<Reply> = replies
                    .iter()
                    .filter(|r| r.board.is_some())
                    .map(|r| Reply {
                        audience: Audience::Private(actor.id.clone()),
                        text: format!("Your private view. {}", r.text),
                        ..r.clone()
                    })
                    .collect();
                replies.extend(private);
            }
            replies
        })
    }

    fn set_bot_user(&self, id: PlayerId, name: &str) {
        self.0.set_bot_user(id, name);
    }
}

/// A running bot: the production adapter over a SQLite game store on disk.
pub struct RunningBot {
    pub bot: Arc<MatrixBot>,
    /// What the bot reports for `/healthz`.
    pub health: bot_core::metrics::Health,
    pub stop: Option<oneshot::Sender<()>>,
    pub task: tokio::task::JoinHandle<Result<(), MatrixError>>,
}

pub struct BotSetup {
    pub hs: String,
    pub user: String,
    pub password: String,
    pub state: PathBuf,
    pub db: PathBuf,
    pub _dir: tempfile::TempDir,
}

impl BotSetup {
    pub async fn new(hs: &str) -> BotSetup {
        let (user, password) = bot_account(hs).await;
        let dir = tempfile::tempdir().unwrap();
        BotSetup {
            hs: hs.to_string(),
            user,
            password,
            state: dir.path().join("matrix"),
            db: dir.path().join("fairybot.db"),
            _dir: dir,
        }
    }

    pub async fn start(&self) -> RunningBot {
        let login = Login::Password {
            user: self.user.clone(),
            password: self.password.clone().into(),
        };
        start_bot(&self.hs, login, &self.state, &self.db).await
    }

    /// An access token for a new device of the bot's account, from a bare login request (no
    /// client, so no encryption keys are uploaded for it: like a token made for a bot).
    pub async fn access_token(&self) -> String {
        use matrix_sdk::ruma::api::client::{
            session::login::v3::{LoginInfo, Password, Request},
            uiaa::{MatrixUserIdentifier, UserIdentifier},
        };
        let client = Client::builder()
            .homeserver_url(&self.hs)
            .build()
            .await
            .unwrap();
        let request = Request::new(LoginInfo::Password(Password::new(
            UserIdentifier::Matrix(MatrixUserIdentifier::new(self.user.clone())),
            self.password.clone(),
        )));
        client.send(request).await.unwrap().access_token
    }
}

pub async fn start_bot(hs: &str, login: Login, state: &Path, db: &Path) -> RunningBot {
    start_bot_sized(hs, login, state, db, 320).await
}

/// A running bot drawing boards `board_size` pixels wide.
pub async fn start_bot_sized(
    hs: &str,
    login: Login,
    state: &Path,
    db: &Path,
    board_size: u32,
) -> RunningBot {
    let store = SqlStore::open_sqlite(db).await.unwrap();
    let catalog = Arc::new(rules::Catalog::builtin());
    // The bot plays too (`play chess vs bot`), repeatably: small searches, no clock.
    // Post-game analyses too (`analyse`), small and at the normal priority; and players'
    // own variants, kept in the same database, as the app does.
    let library = bot_core::custom::Library::new(store.clone());
    let service = Arc::new(
        GameService::new(store, SystemClock, catalog.clone())
            .with_custom_variants(library)
            .with_bot(bot_core::opponent::BotConfig::repeatable(2_000, 1))
            .unwrap()
            .with_analysis(bot_core::analysis::AnalysisConfig {
                nodes: 3_000,
                threads: 1,
                nice: 0,
            })
            .unwrap(),
    );
    service.start_bot().await.unwrap();
    service.start_analyst();
    let config = MatrixConfig {
        board_size,
        ..MatrixConfig::new(hs, login, state).unwrap()
    };
    let bot = MatrixBot::connect(
        &config,
        Arc::new(PrivateBoards(service)),
        catalog,
        Arc::new(render::Renderer::new()),
    )
    .await
    .unwrap();
    let health = bot_core::metrics::Health::new();
    let bot = bot.with_health(health.clone());
    assert_eq!(health.platforms().get("matrix"), Some(&false));
    bot.first_sync().await.unwrap();
    let bot = Arc::new(bot);
    let (stop, stopped) = oneshot::channel::<()>();
    let running = bot.clone();
    let task = tokio::spawn(async move {
        running
            .run_with_announcements(async {
                let _ = stopped.await;
            })
            .await
    });
    RunningBot {
        bot,
        health,
        stop: Some(stop),
        task,
    }
}

impl RunningBot {
    pub fn id(&self) -> String {
        self.bot.user_id().to_string()
    }

    /// Stops the bot between syncs and waits until it has.
    pub async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        (&mut self.task).await.unwrap().unwrap();
    }
}

/// Command → reply round trips in milliseconds, for text answers and for board images.
#[derive(Default)]
pub struct Latency {
    pub text: Vec<f64>,
    pub image: Vec<f64>,
}

impl Latency {
    pub fn add(&mut self, sent: Instant, seen: &Seen) {
        let ms = seen.at.duration_since(sent).as_secs_f64() * 1000.0;
        if seen.msgtype() == "m.image" {
            self.image.push(ms);
        } else {
            self.text.push(ms);
        }
    }

    pub fn quantile(v: &[f64], q: f64) -> f64 {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        let i = ((v.len() as f64 - 1.0) * q).round() as usize;
        v[i]
    }

    pub fn median(&self) -> f64 {
        let all: Vec<f64> = self.text.iter().chain(&self.image).copied().collect();
        Self::quantile(&all, 0.5)
    }

    pub fn report(&self, what: &str) {
        for (kind, v) in [("text reply", &self.text), ("board image", &self.image)] {
            eprintln!(
                "LATENCY {what}, {kind}: n={} median={:.0} ms p95={:.0} ms max={:.0} ms; in order: {:?}",
                v.len(),
                Self::quantile(v, 0.5),
                Self::quantile(v, 0.95),
                Self::quantile(v, 1.0),
                v.iter().map(|ms| ms.round() as u32).collect::<Vec<_>>()
            );
        }
    }
}

/// Two players and a running bot in one room.
pub struct Table {
    pub alice: Player,
    pub bob: Player,
    pub room: OwnedRoomId,
}

pub async fn table(hs: &str, bot: &str, encrypted: bool) -> Table {
    let mut alice = Player::register(hs, "alice").await;
    let bob = Player::register(hs, "bob").await;
    let room = alice
        .create_room(&[bot, bob.id().as_str()], encrypted)
        .await;
    alice.see_join(&room, bot).await;
    alice.see_join(&room, bob.id().as_str()).await;
    Table { alice, bob, room }
}

/// A running bot and a room where alice has challenged bob (`VARIANT [colour]`) and bob has
/// accepted. The setup must outlive the bot (it holds its state directory).
pub async fn started_game(hs: &str, variant: &str) -> (BotSetup, RunningBot, Table) {
    let setup = BotSetup::new(hs).await;
    let running = setup.start().await;
    let bot = running.id();
    let mut t = table(hs, &bot, false).await;
    let (cmd, _) = t
        .alice
        .say(&t.room, &format!("!fb challenge {} {variant}", t.bob.id()))
        .await;
    t.bob.reply_to(&bot, &cmd).await;
    let (cmd, _) = t.bob.say(&t.room, "!fb accept").await;
    t.bob.reply_to(&bot, &cmd).await;
    (setup, running, t)
}

/// Waits until the bot's outbox holds nothing undelivered: every reply is with the
/// homeserver (or given up), so nothing more about what was done can come.
pub async fn quiet(store: &SqlStore) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let backlog = bot_core::store::GameStore::backlog(store).await.unwrap();
        if backlog.waiting == 0 {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the outbox still holds {} entries",
            backlog.waiting
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
