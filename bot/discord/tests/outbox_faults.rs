//! Issue 27, "Nothing lost, everyone told", on Discord: the real client and the outbox's
//! sender against `discord-fake` with injected faults. For each fault the move's
//! announcement reaches Discord exactly once, nothing stays "thinking…", and a 429 is
//! waited out for at least what it asked.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use bot_core::{
    GameService, SystemClock,
    store::{GameStore, memory::MemoryStore},
};
use bot_discord::{Bot, Registration};
use discord_fake::{
    DiscordError, FakeDiscord, RateLimit, RetryAfterIn, SentMessage, callback_type, ids,
};
use rules::Catalog;

/// Retries as in production, but quick for server errors (a 429 still waits what it asks).
const QUICK: bot_discord::Retry = bot_discord::Retry {
    attempts: 4,
    first_delay: Duration::from_millis(20),
    max_delay: Duration::from_millis(80),
};

struct Running {
    fake: FakeDiscord,
    /// The bot's store: its outbox says when nothing more can be sent.
    store: MemoryStore,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// One process's bot over `store`, retrying quickly, taking players' own variants.
fn bot_over(store: &MemoryStore) -> Bot {
    let catalog = Arc::new(Catalog::builtin());
    let service = Arc::new(
        GameService::new(store.clone(), SystemClock, catalog.clone()).with_custom_variants(
            bot_core::custom::Library::with(
                bot_core::custom::MemoryVariants::default(),
                bot_core::custom::Quotas::default(),
                rules::validate::Limits {
                    // Validation time that a machine busy with other tests keeps.
                    time: Duration::from_secs(20),
                    ..rules::validate::Limits::default()
                },
            ),
        ),
    );
    Bot::new(service, catalog, Arc::new(render::Renderer::new()), 160).with_retry(QUICK)
}

/// `bot`'s outbox sender against `fake`, until aborted (a restart is a new one).
fn sender(fake: &FakeDiscord, bot: Bot) -> tokio::task::JoinHandle<()> {
    tokio::spawn(bot_discord::deliver_announcements(
        bot,
        Arc::new(fake.serenity_http()),
    ))
}

/// The bot, its client and its outbox sender over a fresh fake; the interaction tokens
/// last `handle_life` for the sender.
async fn start(handle_life: Duration) -> Running {
    let fake = FakeDiscord::start().await;
    let store = MemoryStore::new();
    let bot = bot_over(&store).with_handle_life(handle_life);
    let sender = sender(&fake, bot.clone());
    let mut client =
        bot_discord::client(fake.serenity_http(), Registration::Guild(ids::GUILD), bot)
            .await
            .expect("client builds");
    let client = tokio::spawn(async move {
        if let Err(e) = client.start().await {
            eprintln!("client stopped: {e}");
        }
    });
    fake.wait_guild_commands(ids::GUILD).await.unwrap();
    fake.wait_global_commands().await.unwrap();
    Running {
        fake,
        store,
        tasks: vec![sender, client],
    }
}

/// Alice challenges Bob to chess as white, Bob accepts: the game is on in #general.
async fn start_game(fake: &FakeDiscord) {
    let ix = fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "chess")
        .integer("colour", 0)
        .send();
    let challenge = fake
        .wait_until("the challenge", Duration::from_secs(10), |r| {
            r.original_response(ix.id)
                .filter(|m| !m.is_loading() && !m.custom_ids().is_empty())
                .cloned()
        })
        .await
        .unwrap();
    let accept = challenge
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:ch:accept:"))
        .unwrap();
    fake.click(challenge.id, &accept).by(ids::BOB).send();
    fake.wait_until("the game", Duration::from_secs(10), |r| {
        r.messages()
            .iter()
            .find(|m| !m.deleted && !m.is_loading() && m.content.contains("Game 1"))
            .cloned()
    })
    .await
    .unwrap();
}

/// The messages anywhere that announce Alice's `e4`.
fn announced(r: &discord_fake::Recorded) -> Vec<SentMessage> {
    r.messages()
        .iter()
        .filter(|m| !m.deleted && m.content.contains("plays e4"))
        .cloned()
        .collect()
}

fn announcements(fake: &FakeDiscord) -> Vec<SentMessage> {
    fake.inspect(announced)
}

/// Waits until the move's announcement is there, and checks it stays there exactly once
/// (until the outbox has nothing waiting, so no duplicate can follow), with nothing left
/// "thinking…" and no error
/// shown in its place.
async fn told_once(bot: &Running, within: Duration) -> SentMessage {
    let fake = &bot.fake;
    fake.wait_until("the move's announcement", within, |r| {
        let thinking = r.messages().iter().any(|m| !m.deleted && m.is_loading());
        (!announced(r).is_empty() && !thinking).then_some(())
    })
    .await
    .unwrap_or_else(|e| panic!("{e}\nthinking: {:?}", fake.thinking()));
    // No sleep for a duplicate to show: once the outbox has nothing waiting (every entry
    // delivered or given up), the sender has nothing left to send.
    let deadline = Instant::now() + within;
    while bot.store.backlog().await.unwrap().waiting > 0 {
        assert!(Instant::now() < deadline, "the outbox never emptied");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let a = announcements(fake);
    assert_eq!(a.len(), 1, "exactly once: {a:#?}");
    assert!(fake.thinking().is_empty(), "{:?}", fake.thinking());
    let wrong = fake.inspect(|r| {
        r.messages()
            .iter()
            .filter(|m| m.content.contains("Something went wrong"))
            .count()
    });
    assert_eq!(wrong, 0, "no error replaces the announcement");
    a[0].clone()
}

fn callbacks(method: &str, route: &str) -> bool {
    method == "POST" && route.starts_with("interactions/") && route.ends_with("/callback")
}

fn followups(method: &str, route: &str) -> bool {
    method == "POST" && route.starts_with("webhooks/") && route.split('/').count() == 3
}

/// An interaction's answers after its deferral: the edit of its "thinking…" original (the
/// first answer), and followups.
fn answers(method: &str, route: &str) -> bool {
    followups(method, route)
        || (method == "PATCH"
            && route.starts_with("webhooks/")
            && route.ends_with("/messages/@original"))
}

fn e4(fake: &FakeDiscord) {
    fake.slash("move")
        .string("move", "e4")
        .by(ids::ALICE)
        .send();
}

#[tokio::test]
async fn a_deferral_recorded_but_answered_500_counts_as_deferred() {
    let bot = start(Duration::from_secs(600)).await;
    let fake = &bot.fake;
    start_game(fake).await;
    fake.fail_after_doing(callbacks, DiscordError::internal_server_error(), Some(1));
    e4(fake);
    let m = told_once(&bot, Duration::from_secs(10)).await;
    assert!(m.attachment("board.png").is_some());
    // The retry met "already acknowledged", and was taken for the deferral it is.
    let refused = fake.inspect(|r| {
        r.requests()
            .iter()
            .filter(|q| q.error_code == Some(40060))
            .count()
    });
    assert_eq!(refused, 1);
}

#[tokio::test]
async fn an_answer_carried_out_but_answered_500_is_shown_once() {
    // The deferral's "thinking…" is edited into the announcement, Discord's edge answers 500,
    // and the retry repeats the edit: one message. (A retried followup would post a second.)
    let bot = start(Duration::from_secs(600)).await;
    let fake = &bot.fake;
    start_game(fake).await;
    fake.fail_after_doing(answers, DiscordError::internal_server_error(), Some(1));
    e4(fake);
    let m = told_once(&bot, Duration::from_secs(10)).await;
    assert!(!m.is_ephemeral());
    assert!(m.attachment("board.png").is_some());
    let failed = fake.inspect(|r| {
        r.requests()
            .iter()
            .filter(|q| q.status == 500 && answers(&q.method, &q.route))
            .count()
    });
    assert_eq!(failed, 1, "the fault was met");
}

#[tokio::test]
async fn a_refused_followup_is_answered_by_the_sender_for_every_4xx() {
    for e in [
        DiscordError::new(400, 50035, "Invalid Form Body"),
        DiscordError::new(401, 50027, "Invalid Webhook Token"),
        DiscordError::missing_access(),
        DiscordError::new(404, 10015, "Unknown Webhook"),
    ] {
        let bot = start(Duration::from_secs(600)).await;
        let fake = &bot.fake;
        start_game(fake).await;
        fake.fail_requests(answers, e.clone(), None);
        e4(fake);
        let m = told_once(&bot, Duration::from_secs(10)).await;
        assert!(!m.is_ephemeral(), "{}: {}", e.status, m.content);
    }
}

#[tokio::test]
async fn a_4xx_on_every_answer_goes_to_the_channel_and_leaves_no_thinking() {
    let bot = start(Duration::from_secs(600)).await;
    let fake = &bot.fake;
    start_game(fake).await;
    // Followups and edits refused; only deleting the "thinking…" original still works.
    fake.fail_requests(
        |m, r| r.starts_with("webhooks/") && m != "DELETE" && m != "GET",
        DiscordError::new(403, 50001, "Missing Access"),
        None,
    );
    e4(fake);
    let m = told_once(&bot, Duration::from_secs(10)).await;
    assert_eq!(m.channel_id, ids::GENERAL);
    assert!(m.nonce().is_some(), "posted with its outbox key as nonce");
}

#[tokio::test]
async fn a_503_that_does_not_stop_is_delivered_by_the_sender_in_place_of_thinking() {
    let bot = start(Duration::from_secs(600)).await;
    let fake = &bot.fake;
    start_game(fake).await;
    // Every answer the command's own tries make (four with `QUICK`); the sender's comes after.
    fake.fail_requests(
        answers,
        DiscordError::service_unavailable(),
        Some(QUICK.attempts as usize),
    );
    e4(fake);
    let m = told_once(&bot, Duration::from_secs(10)).await;
    // The deferred original became the announcement.
    assert!(!m.is_ephemeral());
}

#[tokio::test]
async fn past_the_token_a_503_on_the_interaction_goes_to_the_channel_once_by_nonce() {
    // The token is already past for the sender: it posts in the channel. Its first post is
    // recorded but answered 500, and the retry is shown once thanks to the nonce.
    let bot = start(Duration::ZERO).await;
    let fake = &bot.fake;
    start_game(fake).await;
    fake.fail_requests(answers, DiscordError::service_unavailable(), None);
    fake.fail_after_doing(
        |m, r| m == "POST" && r == format!("channels/{}/messages", ids::GENERAL),
        DiscordError::internal_server_error(),
        Some(1),
    );
    e4(fake);
    let m = told_once(&bot, Duration::from_secs(10)).await;
    assert_eq!(m.channel_id, ids::GENERAL);
    assert_eq!(
        fake.inspect(|r| r.nonce_repeats()),
        1,
        "the repeat was recognised"
    );
}

#[tokio::test]
async fn past_the_token_an_answer_discord_showed_before_its_report_is_not_posted_again() {
    // Discord carries out every edit of the "thinking…" original and answers 500, so the
    // command never learns that its answer is shown (as a process killed before its report
    // never does); the sender comes after the token: it finds the answer in the channel.
    let bot = start(Duration::ZERO).await;
    let fake = &bot.fake;
    start_game(fake).await;
    fake.fail_after_doing(answers, DiscordError::internal_server_error(), None);
    e4(fake);
    let m = told_once(&bot, Duration::from_secs(10)).await;
    assert!(m.interaction_id().is_some(), "the interaction's own answer");
    let posts = fake.inspect(|r| {
        r.requests()
            .iter()
            .filter(|q| {
                q.method == "POST" && q.route == format!("channels/{}/messages", ids::GENERAL)
            })
            .count()
    });
    assert_eq!(posts, 0, "nothing posted in the channel");
}

/// A 429 on the followups of `form`, the window opened by a first followup: the move's
/// announcement waits at least what was asked, asks once, and is told once.
async fn rate_limited(form: RetryAfterIn, global: bool, window: Duration) {
    let bot = start(Duration::from_secs(600)).await;
    let fake = &bot.fake;
    start_game(fake).await;
    fake.rate_limit(
        move |m, r| answers(m, r) || (global && r.starts_with("channels/")),
        RateLimit {
            bucket: "followups".into(),
            limit: 1,
            window,
            form,
            global,
        },
    );
    // Opens the window: one followup (the ephemeral list of games).
    let opened = Instant::now();
    let ix = fake.slash("board").by(ids::ALICE).send();
    fake.wait_until("the board", Duration::from_secs(10), |r| {
        r.messages()
            .iter()
            .any(|m| m.interaction_id() == Some(ix.id) && !m.is_loading())
            .then_some(())
    })
    .await
    .unwrap();
    e4(fake);
    told_once(&bot, window + Duration::from_secs(12)).await;
    let told_at = fake.inspect(|r| {
        r.requests()
            .iter()
            .rposition(|q| q.status < 300 && answers(&q.method, &q.route))
    });
    assert!(told_at.is_some());
    // The announcement was sent no earlier than the window's end (it opened after
    // `opened`), and not much later.
    let waited = opened.elapsed();
    assert!(waited >= window, "{form:?}: waited {waited:?} < {window:?}");
    assert!(
        waited < window + Duration::from_secs(3) + Duration::from_secs(2),
        "{form:?}: waited {waited:?}"
    );
    let limited = fake.inspect(|r| r.requests().iter().filter(|q| q.status == 429).count());
    assert_eq!(
        limited, 1,
        "{form:?}: asked once, then waited what Discord said"
    );
}

#[tokio::test]
async fn a_429_with_the_header_only_is_waited_out() {
    rate_limited(RetryAfterIn::HeaderOnly, false, Duration::from_millis(2200)).await;
}

#[tokio::test]
async fn a_429_with_the_body_only_is_waited_out() {
    rate_limited(RetryAfterIn::Body, false, Duration::from_millis(2500)).await;
}

#[tokio::test]
async fn a_429_with_header_and_body_is_waited_out() {
    rate_limited(RetryAfterIn::Header, false, Duration::from_millis(2000)).await;
}

#[tokio::test]
async fn a_global_429_is_waited_out() {
    rate_limited(RetryAfterIn::Body, true, Duration::from_millis(2500)).await;
}

#[tokio::test]
async fn a_long_global_429_is_left_to_the_sender_and_waited_in_full() {
    // Longer than a send waits itself: the sender answers the interaction after the wait.
    rate_limited(RetryAfterIn::Header, true, Duration::from_secs(7)).await;
}

#[tokio::test]
async fn the_challenge_reply_is_an_interaction_answer_as_before() {
    let bot = start(Duration::from_secs(600)).await;
    let ix = bot
        .fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "chess")
        .send();
    let cb = bot.fake.wait_callback(&ix).await.unwrap();
    assert_eq!(cb.kind, callback_type::CHANNEL_MESSAGE_WITH_SOURCE);
}

/// Waits until the outbox has nothing waiting: every entry delivered or given up, so nothing
/// more can be sent. (A check that something was sent once needs this, not a sleep.)
async fn quiet(store: &MemoryStore) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while store.backlog().await.unwrap().waiting > 0 {
        assert!(Instant::now() < deadline, "the outbox never emptied");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Sends a command (built by `ix`) and waits until its answer is finished (not "thinking…").
async fn answered(fake: &FakeDiscord, ix: discord_fake::InteractionRef) -> SentMessage {
    fake.wait_until("the answer", Duration::from_secs(10), |r| {
        r.messages()
            .iter()
            .find(|m| m.interaction_id() == Some(ix.id) && !m.is_loading() && !m.deleted)
            .cloned()
    })
    .await
    .unwrap()
}

/// `/resign` by `who`, in the channel or his DM (naming game 1), confirmed with the button.
async fn resign(fake: &FakeDiscord, who: u64, in_dm: bool) {
    let mut b = fake.slash("resign").by(who);
    if in_dm {
        b = b.in_dm().integer("game", 1);
    }
    let ask = answered(fake, b.send()).await;
    let confirm = ask
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:resign:confirm:"))
        .unwrap_or_else(|| panic!("no confirmation: {}", ask.content));
    answered(fake, fake.click(ask.id, &confirm).by(who).send()).await;
}

/// A move by `who`, in the channel or (Looking-Glass orders) in his DM.
async fn play(fake: &FakeDiscord, who: u64, mv: &str, in_dm: bool) {
    let mut b = fake.slash("move").string("move", mv).by(who);
    if in_dm {
        b = b.in_dm();
    }
    answered(fake, b.send()).await;
}

/// A result, as every ending words it.
fn is_result(text: &str) -> bool {
    ["wins", "beats", "drawn", "aborted", "resigns", "Draw"]
        .iter()
        .any(|w| text.contains(w))
}

/// Issue 27's ending property on Discord, with the outbox's sender delivering: whatever ends
/// the game (checkmate, resignation in the channel or a DM, agreement, abort; in
/// Looking-Glass the King captured, three strikes, a resignation by DM), the channel shows
/// the result once and each player finds it once among his DMs.
#[tokio::test]
async fn every_ending_reaches_the_channel_once_and_each_player_by_dm_once() {
    for (variant, ending) in [
        ("chess", "checkmate"),
        ("chess", "resign in the channel"),
        ("chess", "resign by DM"),
        ("chess", "agreement"),
        ("chess", "abort"),
        ("looking-glass", "king captured"),
        ("looking-glass", "strikes"),
        ("looking-glass", "resign by DM"),
    ] {
        let bot = start(Duration::from_secs(600)).await;
        let fake = &bot.fake;
        let glass = variant == "looking-glass";
        let challenge = answered(
            fake,
            fake.slash("challenge")
                .user("opponent", ids::BOB)
                .string("variant", variant)
                .integer("colour", 0)
                .send(),
        )
        .await;
        let accept = challenge
            .custom_ids()
            .into_iter()
            .find(|c| c.starts_with("fb:ch:accept:"))
            .unwrap();
        answered(fake, fake.click(challenge.id, &accept).by(ids::BOB).send()).await;
        if glass {
            for who in [ids::ALICE, ids::BOB] {
                answered(
                    fake,
                    fake.slash("setup")
                        .string("choice", "518")
                        .by(who)
                        .in_dm()
                        .send(),
                )
                .await;
            }
        }
        match ending {
            "checkmate" => {
                for (who, mv) in [
                    (ids::ALICE, "f3"),
                    (ids::BOB, "e5"),
                    (ids::ALICE, "g4"),
                    (ids::BOB, "Qh4#"),
                ] {
                    play(fake, who, mv, false).await;
                }
            }
            "resign in the channel" => {
                play(fake, ids::ALICE, "e4", false).await;
                resign(fake, ids::BOB, false).await;
            }
            "resign by DM" => {
                play(fake, ids::ALICE, "e2e4", glass).await;
                resign(fake, ids::BOB, true).await;
            }
            "agreement" => {
                let offer = answered(fake, fake.slash("draw").by(ids::ALICE).send()).await;
                let accept = offer
                    .custom_ids()
                    .into_iter()
                    .find(|c| c.starts_with("fb:draw:accept:"))
                    .unwrap();
                answered(fake, fake.click(offer.id, &accept).by(ids::BOB).send()).await;
            }
            "abort" => {
                answered(fake, fake.slash("abort").by(ids::BOB).send()).await;
            }
            "king captured" => {
                // White's Queen reaches the Mirror and takes the King there, blind.
                for (who, mv) in [
                    (ids::ALICE, "e2e3"),
                    (ids::BOB, "f7f6"),
                    (ids::ALICE, "d1h5"),
                    (ids::BOB, "a7a6"),
                    (ids::ALICE, "M:h5e8"),
                ] {
                    play(fake, who, mv, true).await;
                }
            }
            "strikes" => {
                // Three orders White's Rook cannot carry out on the world it cannot see.
                for _ in 0..3 {
                    play(fake, ids::ALICE, "M:a1a5", true).await;
                }
            }
            other => unreachable!("{other}"),
        }
        quiet(&bot.store).await;
        let context = format!("{variant}, {ending}");
        let in_channel: Vec<String> = fake
            .messages_in(ids::GENERAL)
            .into_iter()
            .filter(|m| !m.deleted && !m.is_ephemeral() && is_result(&m.content))
            .map(|m| m.content)
            .collect();
        let all: Vec<(u64, bool, String)> = fake.inspect(|r| {
            r.messages()
                .iter()
                .map(|m| (m.channel_id, m.is_ephemeral(), m.content.clone()))
                .collect()
        });
        assert_eq!(
            in_channel.len(),
            1,
            "{context}: the channel: {in_channel:#?} {all:#?}"
        );
        for who in [ids::ALICE, ids::BOB] {
            let dms: Vec<String> = fake
                .dm_messages_to(who)
                .into_iter()
                .filter(|m| !m.deleted && is_result(&m.content))
                .map(|m| m.content)
                .collect();
            assert_eq!(dms.len(), 1, "{context}: the DMs of {who}: {dms:#?}");
        }
        assert!(
            fake.thinking().is_empty(),
            "{context}: {:?}",
            fake.thinking()
        );
    }
}

/// Issue 29: a line that replaces a message sent before a restart (an analysis's progress,
/// when the bot restarted in the middle) edits that message: the restarted sender finds the
/// original's entry in the outbox and the bot's own message saying its text in the channel,
/// rather than post the line anew.
#[tokio::test]
async fn an_edit_after_a_restart_edits_the_message_sent_before_it() {
    edit_after_restart(0).await;
}

/// The same in a busy channel: 250 messages said after the original, beyond the newest
/// page the channel gives: the sender pages back until it finds it.
#[tokio::test]
async fn an_edit_after_a_restart_finds_its_message_behind_250_others() {
    edit_after_restart(250).await;
}

async fn edit_after_restart(said_since: usize) {
    use bot_core::{
        model::{Place, Platform},
        outbox::{Envelope, Keys},
        reply::Reply,
    };
    let fake = FakeDiscord::start().await;
    let store = MemoryStore::new();
    let place = Place::room(Platform::Discord, ids::GENERAL.to_string());
    let now = || bot_core::Clock::now_ms(&SystemClock);
    let ours = |r: &discord_fake::Recorded| -> Vec<SentMessage> {
        r.messages_in(ids::GENERAL)
            .into_iter()
            .filter(|m| m.content.contains("game 7") || m.content.contains("Game 7"))
            .cloned()
            .collect()
    };
    let keys = Keys::new(0x29);
    let first = keys.next();

    let before = sender(&fake, bot_over(&store));
    let line = Envelope::unasked(first.clone(), &place, Reply::room("Analysing game 7: 25 %"));
    store.post(&[line], None, now()).await.unwrap();
    let original = fake
        .wait_until("the first line", Duration::from_secs(10), |r| {
            ours(r).first().cloned()
        })
        .await
        .unwrap();
    quiet(&store).await;
    before.abort();
    for i in 0..said_since {
        fake.user_message(ids::GENERAL, &format!("chatter {i}"))
            .send();
    }

    let after = sender(&fake, bot_over(&store));
    post_last_line(&store, &keys, &place, first).await;
    let edited = fake
        .wait_until("the edit", Duration::from_secs(10), |r| {
            ours(r)
                .into_iter()
                .find(|m| m.content.contains("Game 7 analysed"))
        })
        .await
        .unwrap();
    after.abort();
    assert_eq!(edited.id, original.id, "the same message, edited");
    let all = fake.inspect(ours);
    assert_eq!(all.len(), 1, "{all:#?}");
}

/// Posts an analysis's last line, replacing the line with key `first` (its first).
async fn post_last_line(
    store: &MemoryStore,
    keys: &bot_core::outbox::Keys,
    place: &bot_core::model::Place,
    first: bot_core::outbox::Key,
) {
    let end = bot_core::outbox::Envelope::unasked(
        keys.next(),
        place,
        bot_core::reply::Reply::room("Game 7 analysed").replacing(first),
    );
    let now = bot_core::Clock::now_ms(&SystemClock);
    store.post(&[end], None, now).await.unwrap();
}

/// The same when the message replaced is an interaction's answer (an analysis's first line
/// answers `/analyse`): found in the channel after a restart, it is edited through the
/// interaction's webhook while the token the entry kept lasts.
#[tokio::test]
async fn an_edit_after_a_restart_edits_an_interactions_answer_through_its_webhook() {
    use bot_core::{
        model::{Place, Platform, PlayerId},
        outbox::{Envelope, Handle, Keys, Origin, Settled},
        reply::Reply,
    };
    let fake = FakeDiscord::start().await;
    let store = MemoryStore::new();
    let now = || bot_core::Clock::now_ms(&SystemClock);
    let place = Place::room(Platform::Discord, ids::GENERAL.to_string());
    // `/analyse` answered by a process that is gone: its answer, and its entry, delivered.
    let ix = fake.slash("analyse").by(ids::ALICE).send();
    let http = fake.serenity_http();
    let answer = serde_json::json!({"type": 4, "data": {"content": "Analysing game 7: 25 %"}});
    http.create_interaction_response(ix.id.into(), &ix.token, &answer, Vec::new())
        .await
        .unwrap();
    let keys = Keys::new(0x30);
    let first = keys.next();
    let handle = Handle {
        token: format!("{}:{}:{}", ids::APPLICATION, ix.token, ix.id),
        until_ms: now() + 600_000,
    };
    let line = Envelope {
        origin: Origin::Command {
            actor: PlayerId::new(Platform::Discord, ids::ALICE.to_string()),
            handle: Some(handle),
        },
        ..Envelope::unasked(first.clone(), &place, Reply::room("Analysing game 7: 25 %"))
    };
    store.post(&[line], None, now()).await.unwrap();
    store
        .settle(&first, &Settled::Delivered, now())
        .await
        .unwrap();

    let sender = sender(&fake, bot_over(&store));
    post_last_line(&store, &keys, &place, first).await;
    let edited = fake
        .wait_until("the edit", Duration::from_secs(10), |r| {
            r.original_response(ix.id)
                .filter(|m| m.content.contains("Game 7 analysed"))
                .cloned()
        })
        .await
        .unwrap();
    sender.abort();
    assert!(edited.interaction_id() == Some(ix.id));
    let through_webhook = fake.inspect(|r| {
        r.requests()
            .iter()
            .filter(|q| q.method == "PATCH" && q.route.starts_with("webhooks/"))
            .count()
    });
    assert_eq!(through_webhook, 1);
    let new = fake.inspect(|r| {
        r.messages_in(ids::GENERAL)
            .iter()
            .filter(|m| m.content.contains("Game 7"))
            .count()
    });
    assert_eq!(new, 1, "no new message");
}

/// Issue 30's picture replies take the same way as a move's: `/variant add` answers with a
/// picture of the new variant's start, for the actor alone. Its answer carried out but
/// answered 500, then every answer refused with a 4xx: each time the picture is shown once
/// (in the original, or by DM under its nonce), nothing stays "thinking…", and the variant
/// is added once.
#[tokio::test]
async fn a_picture_reply_is_shown_once_after_a_500_and_after_a_4xx() {
    let bot = start(Duration::from_secs(600)).await;
    let fake = &bot.fake;
    let add = |name: &str| {
        fake.slash("variant")
            .integer("action", 0)
            .string(
                "definition",
                &format!("[{name}:chess]\nknight = -\ncustomPiece1 = n:NN\n"),
            )
            .send();
    };
    fake.fail_after_doing(answers, DiscordError::internal_server_error(), Some(1));
    add("knightmare");
    let once = added_once(&bot, "knightmare").await;
    assert!(once.attachment("board.png").is_some(), "{once:#?}");
    fake.clear_failures();

    fake.fail_requests(
        |m, r| r.starts_with("webhooks/") && m != "DELETE" && m != "GET",
        DiscordError::new(403, 50001, "Missing Access"),
        None,
    );
    add("nightrider");
    let once = added_once(&bot, "nightrider").await;
    // The answer was for the actor alone: refused by the interaction, it goes to his DM.
    assert_eq!(Some(once.channel_id), fake.dm_channel_of(ids::ALICE));
    assert!(once.attachment("board.png").is_some(), "{once:#?}");
    assert!(fake.thinking().is_empty(), "{:?}", fake.thinking());
    fake.clear_failures();

    let ix = fake.slash("variant").integer("action", 2).send();
    let listed = answered(fake, ix).await;
    for name in ["knightmare", "nightrider"] {
        assert_eq!(
            listed.content.matches(name).count(),
            1,
            "{}",
            listed.content
        );
    }
}

/// The message saying variant `name` was added, once it is there and the outbox has nothing
/// waiting (so no duplicate can follow); checks it is there exactly once.
async fn added_once(bot: &Running, name: &str) -> SentMessage {
    let said = format!("Added `{name}`");
    let find = |r: &discord_fake::Recorded| {
        r.messages()
            .iter()
            .filter(|m| !m.deleted && m.content.contains(&said))
            .cloned()
            .collect::<Vec<_>>()
    };
    bot.fake
        .wait_until("the variant's picture", Duration::from_secs(10), |r| {
            (!find(r).is_empty()).then_some(())
        })
        .await
        .unwrap();
    quiet(&bot.store).await;
    let shown = bot.fake.inspect(find);
    assert_eq!(shown.len(), 1, "exactly once: {shown:#?}");
    shown[0].clone()
}
