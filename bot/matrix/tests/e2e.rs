//! End-to-end tests against a real Synapse on loopback.
//!
//! `scripts/test` starts one with `scripts/synapse-test.sh` and exports its URL as
//! `FAIRYBOT_TEST_SYNAPSE_URL` (and `FAIRYBOT_REQUIRE_SYNAPSE=1`, so these tests fail rather
//! than skip when it is missing). The players are matrix-sdk clients with their own SQLite
//! stores, so encryption is real: what a player reads in an encrypted room was decrypted by
//! their own device. The bot is the production adapter over the production SQLite store.

mod common;

use std::time::{Duration, Instant};

use bot_matrix::Login;
use common::*;
use matrix_sdk::{
    Client,
    ruma::{
        OwnedEventId, OwnedRoomId, RoomId,
        events::{
            relation::Thread,
            room::message::{Relation, RoomMessageEventContent},
        },
    },
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_play_a_complete_game_with_images_reactions_and_mentions() {
    let Some(hs) = homeserver() else { return };
    let setup = BotSetup::new(&hs).await;
    let running = setup.start().await;
    let bot = running.id();
    let Table {
        mut alice,
        mut bob,
        room,
    } = table(&hs, &bot, false).await;
    let mut latency = Latency::default();
    // `/healthz`: connected once a sync went through (the bot answered the table's set-up).
    assert_eq!(running.health.platforms().get("matrix"), Some(&true));

    // A challenge with a short user name; the reply mentions both and offers reactions.
    let bob_local = bob.id().localpart().to_string();
    let (cmd, sent) = alice
        .say(&room, &format!("!fb challenge @{bob_local} chess"))
        .await;
    let challenge = bob.reply_to(&bot, &cmd).await;
    latency.add(
        sent,
        &bob.expect("the challenge", |s| s.in_reply_to() == Some(cmd.as_str()))
            .await,
    );
    assert_eq!(challenge.msgtype(), "m.notice");
    assert!(
        challenge.body().contains("type !fb accept"),
        "{}",
        challenge.body()
    );
    assert!(challenge.body().contains("React 👍"));
    let mentioned = &challenge.content()["m.mentions"]["user_ids"];
    assert!(
        mentioned
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u == bob.id().as_str()),
        "{mentioned}"
    );
    assert!(
        challenge.content()["formatted_body"]
            .as_str()
            .unwrap()
            .contains(&format!("https://matrix.to/#/{}", bob.id())),
    );

    // Bob accepts with Element's thumbs-up (with its presentation selector).
    let reaction = bob.react(&room, &challenge.id(), "👍\u{FE0F}").await;
    let start = alice
        .expect("the game's start", |s| {
            s.sender() == bot && s.msgtype() == "m.image" && s.body().contains("Game")
        })
        .await;
    let (w, h) = alice.check_image(&start).await;
    assert_eq!(
        w.max(h),
        320,
        "the configured board size is the longer side"
    );
    assert_eq!(
        start.in_reply_to(),
        Some(challenge.event["event_id"].as_str().unwrap()),
        "the answer to a reaction replies to the question"
    );
    assert!(!reaction.as_str().is_empty());

    // Fool's mate, each move in another form of address; every move answers with a board.
    let bot_local = running.bot.user_id().localpart().to_string();
    let moves: Vec<(bool, RoomMessageEventContent)> = vec![
        (true, RoomMessageEventContent::text_plain("!fb f3")),
        (
            false,
            RoomMessageEventContent::text_plain(format!("{bot_local}: e5")),
        ),
        (true, RoomMessageEventContent::text_plain("!FB move g4")),
        (
            false,
            RoomMessageEventContent::text_html(
                format!("{bot_local}: Qh4#"),
                format!("<a href=\"https://matrix.to/#/{bot}\">{bot_local}</a>: Qh4#"),
            ),
        ),
    ];
    let mut last = None;
    for (by_alice, content) in moves {
        let (player, other) = if by_alice {
            (&mut alice, &mut bob)
        } else {
            (&mut bob, &mut alice)
        };
        let (cmd, sent) = player.send(&room, content).await;
        let reply = player.reply_to(&bot, &cmd).await;
        latency.add(sent, &reply);
        assert_eq!(reply.msgtype(), "m.image", "{}", reply.body());
        other.reply_to(&bot, &cmd).await;
        last = Some(reply);
    }
    let last = last.unwrap();
    assert!(last.body().contains("Checkmate"), "{}", last.body());
    assert!(last.body().contains("Ratings:"), "{}", last.body());
    alice.check_image(&last).await;

    // The result counted: the leaderboard is an HTML table, with aligned lines in the body.
    let (cmd, sent) = alice.say(&room, "!fb leaderboard chess").await;
    let board = alice.reply_to(&bot, &cmd).await;
    latency.add(sent, &board);
    assert!(
        board.body().contains("You are #2 (1338?)"),
        "{}",
        board.body()
    );
    assert!(board.body().contains("\n#1  "), "{}", board.body());
    let html = board.content()["formatted_body"]
        .as_str()
        .unwrap_or_default();
    assert!(
        html.contains("<table><tr><th>#</th><th>Player</th>"),
        "{html}"
    );
    assert!(html.contains("<td>1662?</td>"), "{html}");

    // Errors answer the one who typed, by reply and mention; chatter is ignored.
    let (chatter, _) = alice.say(&room, "good game!").await;
    let (cmd, sent) = alice.say(&room, "!fb e4").await;
    let error = alice.reply_to(&bot, &cmd).await;
    latency.add(sent, &error);
    assert!(
        error.content()["m.mentions"]["user_ids"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u == alice.id().as_str())
    );

    // A command in a thread is answered in that thread (a thread is a place of its own, so
    // the room's game is not "here").
    let (root, _) = alice.say(&room, "thread for questions").await;
    let mut in_thread = RoomMessageEventContent::text_plain("!fb rules chess");
    in_thread.relates_to = Some(Relation::Thread(Thread::plain(root.clone(), root.clone())));
    let (cmd, sent) = alice.send(&room, in_thread).await;
    let answer = alice.reply_to(&bot, &cmd).await;
    latency.add(sent, &answer);
    assert_eq!(answer.content()["m.relates_to"]["rel_type"], "m.thread");
    assert_eq!(answer.content()["m.relates_to"]["event_id"], root.as_str());
    assert!(answer.body().contains("Chess"), "{}", answer.body());

    // More round trips for the latency numbers: text answers and board pictures. (`board #1`,
    // not `board`, which this test's wrapper also sends privately: production sends no private
    // copy, and the first one would time the creation of a direct room.)
    for text in [
        "!fb help",
        "!fb variants",
        "!fb games",
        "!fb board #1",
        "!fb history",
    ] {
        for _ in 0..3 {
            let (cmd, sent) = alice.say(&room, text).await;
            let reply = alice.reply_to(&bot, &cmd).await;
            latency.add(sent, &reply);
        }
    }

    // Every board has a caption a person reads (the reply's text, or the game, its variant and
    // who is to move), not a file name; the file name is a field of its own.
    let images: Vec<Seen> = alice
        .drain()
        .iter()
        .filter(|s| s.sender() == bot && s.msgtype() == "m.image")
        .cloned()
        .collect();
    assert!(images.len() >= 5);
    for image in &images {
        let body = image.body();
        assert!(
            !body.trim().is_empty() && !body.ends_with(".png"),
            "caption {body:?}"
        );
        let file = image.content()["filename"].as_str().unwrap_or("");
        // A game's board, or a variant's own picture (`rules` answers with its start).
        assert!(
            (file.starts_with("fairybot-game-") && file.ends_with(".png"))
                || file == "fairybot-variant.png",
            "file name {file:?}"
        );
    }
    let board = images.last().unwrap();
    assert!(board.body().contains("Game 1"), "{}", board.body());

    // Nothing was answered twice, and the chatter not at all.
    let seen = alice.settle(&room, &bot).await;
    let replies: Vec<&str> = seen
        .iter()
        .filter(|s| s.sender() == bot)
        .filter_map(Seen::in_reply_to)
        .collect();
    let mut unique_replies = replies.clone();
    unique_replies.sort();
    unique_replies.dedup();
    assert_eq!(
        replies.len(),
        unique_replies.len(),
        "a command was answered twice"
    );
    assert!(!replies.contains(&chatter.as_str()));

    latency.report("command -> reply seen (unencrypted room)");
    // The target is 300 ms on loopback; the bound here only catches a regression like the
    // SDK's one-second sync throttle, on a machine shared with compilers.
    assert!(
        latency.median() < 1000.0,
        "median round trip {:.0} ms",
        latency.median()
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_boards_arrive_in_an_encrypted_direct_room_readable_by_their_recipient() {
    let Some(hs) = homeserver() else { return };
    let (_setup, running, table) = started_game(&hs, "chess").await;
    let bot = running.id();
    let Table {
        mut alice,
        mut bob,
        room,
    } = table;

    // `board` answers in the room and, privately, in a new encrypted direct room.
    let (cmd, _) = alice.say(&room, "!fb board").await;
    alice.reply_to(&bot, &cmd).await;
    let private = alice
        .expect("the private board", |s| {
            s.sender() == bot && s.room != room && s.msgtype() == "m.image"
        })
        .await;
    assert!(
        private.encrypted,
        "the private message was encrypted on the wire"
    );
    assert!(
        private.body().contains("Your private view"),
        "{}",
        private.body()
    );
    alice.check_image(&private).await;
    let dm = alice.client.get_room(&private.room).unwrap();
    assert!(dm.latest_encryption_state().await.unwrap().is_encrypted());
    assert!(dm.is_direct().await.unwrap(), "marked as a direct room");
    // Bob saw nothing of it.
    assert!(
        !bob.settle(&room, &bot)
            .await
            .iter()
            .any(|s| s.body().contains("Your private view"))
    );

    // The next private message reuses the room.
    let (cmd, _) = alice.say(&room, "!fb board").await;
    alice.reply_to(&bot, &cmd).await;
    let first = private.id();
    let again = alice
        .expect("the second private board", |s| {
            s.sender() == bot
                && s.room == private.room
                && s.msgtype() == "m.image"
                && s.id() != first
        })
        .await;
    assert!(again.encrypted);

    // A commands typed in the direct room needs no prefix, and is answered there.
    let (cmd, _) = alice.say(&private.room, "history").await;
    let answer = alice.reply_to(&bot, &cmd).await;
    assert_eq!(answer.room, private.room);
    assert!(answer.encrypted);

    // A private message that cannot be delivered is reported in the room, without its content.
    let ghost = format!("@{}:{}", unique("ghost"), bot.split_once(':').unwrap().1);
    let (cmd, _) = alice.say(&room, &format!("!fb whisper {ghost}")).await;
    let notice = alice.reply_to(&bot, &cmd).await;
    assert_missed_notice(&notice);
    assert!(
        notice.content()["m.mentions"]["user_ids"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u == ghost.as_str())
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_sent_while_the_bot_is_down_are_answered_once_in_order_after_a_restart_even_past_a_sync_limit()
 {
    let Some(hs) = homeserver() else { return };
    let setup = BotSetup::new(&hs).await;
    let running = setup.start().await;
    let bot = running.id();
    let device = running.bot.client().device_id().unwrap().to_owned();
    let Table {
        mut alice,
        mut bob,
        room,
    } = table(&hs, &bot, true).await;
    let mut sent = Vec::new();
    let say = async |p: &mut Player, text: &str, sent: &mut Vec<OwnedEventId>| {
        let (cmd, _) = p.say(&room, text).await;
        sent.push(cmd.clone());
        cmd
    };
    let cmd = say(
        &mut alice,
        &format!("!fb challenge {} chess", bob.id()),
        &mut sent,
    )
    .await;
    bob.reply_to(&bot, &cmd).await;
    let cmd = say(&mut bob, "!fb accept", &mut sent).await;
    bob.reply_to(&bot, &cmd).await;
    let cmd = say(&mut alice, "!fb f3", &mut sent).await;
    let reply = alice.reply_to(&bot, &cmd).await;
    assert!(reply.encrypted, "the game room is encrypted");
    let cmd = say(&mut alice, "!fb board", &mut sent).await;
    alice.reply_to(&bot, &cmd).await;
    let private = alice
        .expect("the private board", |s| s.sender() == bot && s.room != room)
        .await;
    let (dm, first_private) = (private.room.clone(), private.id());

    // Down: two moves that only work in this order, with more chatter between them than one
    // sync returns (100 events per room), so the first is read back from the room's history.
    running.stop().await;
    let e5 = say(&mut bob, "!fb e5", &mut sent).await;
    for n in 0..130 {
        bob.say(&room, &format!("chatter {n} while the bot is away"))
            .await;
    }
    let g4 = say(&mut alice, "!fb g4", &mut sent).await;

    // Up again: the same device (no new login), both moves answered, in order.
    let running = setup.start().await;
    assert_eq!(running.bot.client().device_id().unwrap(), device);
    let first = alice.reply_to(&bot, &e5).await;
    let second = alice.reply_to(&bot, &g4).await;
    assert!(first.body().contains("e5"), "{}", first.body());
    assert!(second.body().contains("g4"), "{}", second.body());
    assert_eq!(second.msgtype(), "m.image", "g4 was legal: e5 came first");

    // The game goes on, and private boards still reach the same encrypted room.
    let mate = say(&mut bob, "!fb Qh4#", &mut sent).await;
    let reply = bob.reply_to(&bot, &mate).await;
    assert!(reply.body().contains("Checkmate"), "{}", reply.body());
    let cmd = say(&mut alice, "!fb board", &mut sent).await;
    alice.reply_to(&bot, &cmd).await;
    let again = alice
        .expect("a private board after the restart", |s| {
            s.sender() == bot && s.room == dm && s.msgtype() == "m.image" && s.id() != first_private
        })
        .await;
    assert!(again.encrypted, "decrypted by alice: the bot kept its keys");
    alice.check_image(&again).await;

    // A second restart with nothing new answers nothing.
    running.stop().await;
    let running = setup.start().await;
    let room_id = room.clone();
    let history = alice.settle(&room, &bot).await;
    for cmd in &sent {
        let answers = history
            .iter()
            .filter(|s| {
                s.room == room_id && s.sender() == bot && s.in_reply_to() == Some(cmd.as_str())
            })
            .count();
        assert_eq!(answers, 1, "command {cmd} answered {answers} times");
    }
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_looking_glass_game_is_refereed_by_encrypted_direct_messages() {
    let Some(hs) = homeserver() else { return };
    let (_setup, running, table) = started_game(&hs, "looking-glass white").await;
    let bot = running.id();
    let Table {
        mut alice,
        mut bob,
        room,
    } = table;

    // Each player is invited, in his own encrypted direct room, to choose a back rank.
    let invitation =
        |s: &Seen| s.sender() == bot && s.room != room && s.body().contains("setup 518");
    let alice_dm = alice.expect("the setup invitation", invitation).await;
    let bob_dm = bob.expect("the setup invitation", invitation).await;
    assert!(alice_dm.encrypted && bob_dm.encrypted);
    assert_ne!(alice_dm.room, bob_dm.room);
    let (alice_dm, bob_dm) = (alice_dm.room, bob_dm.room);

    // A back rank typed in the game's room is read by everyone there: refused, not used.
    let (cmd, _) = alice.say(&room, "!fb setup RNBQKBNR").await;
    let refusal = alice.reply_to(&bot, &cmd).await;
    assert!(refusal.body().contains("are secret"), "{}", refusal.body());
    assert!(!refusal.body().contains("RNBQKBNR"), "{}", refusal.body());

    // In the direct rooms no prefix is needed; the game begins when both have chosen.
    let mark = alice.mark();
    bob.say(&bob_dm, "setup 518").await;
    alice.say(&alice_dm, "setup RNBQKBNR").await;
    alice
        .expect_since(mark, "the game beginning", |s| {
            s.room == room && s.sender() == bot && s.body().contains("begins")
        })
        .await;
    // Each receives his own world as an encrypted picture.
    for (player, dm) in [(&mut alice, &alice_dm), (&mut bob, &bob_dm)] {
        let board = player
            .expect("a private board", |s| {
                s.room == *dm && s.sender() == bot && s.msgtype() == "m.image"
            })
            .await;
        assert!(board.encrypted);
        player.check_image(&board).await;
    }

    // White's Pawn falls through to the Mirror: Black is told where it arrived.
    bob.sees_after(alice.say(&alice_dm, "e2e3"), &bob_dm, "R:e3")
        .await;
    alice
        .sees_after(bob.say(&bob_dm, "f7f6"), &room, "Black has moved")
        .await;
    // A blind order that cannot be carried out is a strike, announced in the room.
    let b = bob.mark();
    alice
        .says_and_sees(&alice_dm, "M:a1a2", &alice_dm, "strike 1 of 3")
        .await;
    bob.sees_since(b, &bob_dm, "M:a1a2").await;
    alice
        .says_and_sees(&alice_dm, "ask", &alice_dm, "yes — you have a legal move")
        .await;
    alice
        .says_and_sees(&alice_dm, "d1h5", &alice_dm, "M:h5")
        .await;
    alice
        .sees_after(bob.say(&bob_dm, "a7a6"), &room, "Black has moved")
        .await;
    // The Queen on the Mirror takes the King, blind; the room sees the whole game.
    alice.say(&alice_dm, "M:h5e8").await;
    let reveal = bob
        .expect("the reveal", |s| {
            s.room == room && s.sender() == bot && s.body().contains("revealed")
        })
        .await;
    assert!(reveal.body().contains("w R:e2e3"), "{}", reveal.body());
    bob.expect("the result", |s| {
        s.room == room && s.body().contains("The King is captured — White wins")
    })
    .await;

    // Before the reveal the room carried no square, no back rank and no picture from the bot;
    // nobody received a message in the other player's direct room.
    let at = reveal.id();
    for player in [&mut alice, &mut bob] {
        let seen = player.drain();
        let end = seen
            .iter()
            .position(|s| s.room == room && s.id() == at)
            .unwrap_or(seen.len());
        for s in seen[..end]
            .iter()
            .filter(|s| s.room == room && s.sender() == bot)
        {
            assert!(!rules::glass::names_a_square(s.body()), "{}", s.body());
            assert!(!s.body().contains("RNBQKBNR"), "{}", s.body());
            assert_ne!(s.msgtype(), "m.image", "{}", s.body());
        }
    }
    assert!(!alice.drain().iter().any(|s| s.room == bob_dm));
    assert!(!bob.drain().iter().any(|s| s.room == alice_dm));
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_the_bot_cannot_decrypt_is_answered_with_what_to_fix() {
    let Some(hs) = homeserver() else { return };
    let setup = BotSetup::new(&hs).await;
    let running = setup.start().await;
    let bot = running.id();
    let Table {
        mut alice, room, ..
    } = table(&hs, &bot, true).await;
    // A private message opens alice's encrypted direct room with the bot.
    alice
        .say(&room, &format!("!fb whisper {}", alice.id()))
        .await;
    let dm = alice
        .expect("a private message", |s| {
            s.sender() == bot && s.room != room && s.body().contains("SECRET-4711")
        })
        .await
        .room;

    // In the direct room every message is for the bot: each one it cannot read is answered.
    for _ in 0..2 {
        let locked = alice.send_undecryptable(&dm).await;
        let notice = alice.reply_to(&bot, &locked).await;
        assert_eq!(notice.room, dm);
        assert!(notice.encrypted, "the notice itself is readable");
        assert!(
            notice
                .body()
                .contains("could not read your encrypted message"),
            "{}",
            notice.body()
        );
        assert!(
            notice
                .body()
                .contains(running.bot.client().device_id().unwrap().as_str()),
            "names the bot's device: {}",
            notice.body()
        );
    }
    // In a shared room most of such messages were chatter: one notice per sender is enough.
    let first = alice.send_undecryptable(&room).await;
    let notice = alice.reply_to(&bot, &first).await;
    assert!(
        notice.body().contains("will not repeat this notice"),
        "{}",
        notice.body()
    );
    let second = alice.send_undecryptable(&room).await;
    // Commands the bot can read still work, and the second locked message got no notice by
    // the time its patience (6 s) is over.
    tokio::time::sleep(Duration::from_secs(8)).await;
    let (cmd, _) = alice.say(&room, "!fb variants").await;
    alice.reply_to(&bot, &cmd).await;
    let second = second.to_string();
    assert!(
        !alice
            .drain()
            .iter()
            .any(|s| s.in_reply_to() == Some(second.as_str())),
        "a second notice in the shared room"
    );
    running.stop().await;
}

/// The bot answers a command in an encrypted room, and privately in an encrypted direct room:
/// the proof that its device can decrypt and be encrypted to.
async fn plays_encrypted(running: &RunningBot, alice: &mut Player, room: &RoomId) {
    let bot = running.id();
    let bot = bot.as_str();
    // Alice's client learns of a new device of the bot from its syncs, as any client does.
    let (user, device) = (
        running.bot.user_id().to_owned(),
        running.bot.client().device_id().unwrap().to_owned(),
    );
    let deadline = Instant::now() + WAIT;
    while alice
        .client
        .encryption()
        .get_device(&user, &device)
        .await
        .unwrap()
        .is_none()
    {
        assert!(
            Instant::now() < deadline,
            "alice never saw the device {device}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Knowing the device is not yet having its one-time keys: a message sent in between is
    // encrypted without a key for it, and the bot says so and asks for it again, as a person
    // would be asked. Then it is sent again, once.
    let (cmd, _) = alice.say(room, "!fb variants").await;
    let mut reply = alice.reply_to(bot, &cmd).await;
    if reply.body().contains("never received its key") {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let (cmd, _) = alice.say(room, "!fb variants").await;
        reply = alice.reply_to(bot, &cmd).await;
    }
    assert!(reply.encrypted);
    assert!(reply.body().contains("toulousain"), "{}", reply.body());
    let mark = alice.mark();
    alice
        .say(room, &format!("!fb whisper {}", alice.id()))
        .await;
    let private = alice
        .expect_since(mark, "a private message", |s| {
            s.sender() == bot && s.body().contains("SECRET-4711")
        })
        .await;
    assert!(private.encrypted);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bot_logs_in_by_access_token_and_again_after_its_session_is_signed_out() {
    let Some(hs) = homeserver() else { return };
    let setup = BotSetup::new(&hs).await;

    // By access token (MATRIX_ACCESS_TOKEN): a device without keys yet becomes the bot's.
    let token = setup.access_token().await;
    let by_token = start_bot(
        &hs,
        Login::AccessToken(token.clone().into()),
        &setup.state,
        &setup.db,
    )
    .await;
    let bot = by_token.id();
    let device = by_token.bot.client().device_id().unwrap().to_owned();
    let mut alice = Player::register(&hs, "alice").await;
    let room = alice.create_room(&[&bot], true).await;
    alice.see_join(&room, &bot).await;
    plays_encrypted(&by_token, &mut alice, &room).await;
    by_token.stop().await;
    // Restarted with the same token: the same device, still encrypting.
    let again = start_bot(
        &hs,
        Login::AccessToken(token.into()),
        &setup.state,
        &setup.db,
    )
    .await;
    assert_eq!(again.bot.client().device_id().unwrap(), device);
    plays_encrypted(&again, &mut alice, &room).await;
    again.stop().await;

    // By password, on its own state; then the session is signed out elsewhere (the device
    // deleted, as Element's "sign out" does) while the bot is down. At the next start it logs
    // in again by itself and works, encrypted, in the same room.
    let state = setup.state.with_file_name("matrix-password");
    let login = || Login::Password {
        user: setup.user.clone(),
        password: setup.password.clone().into(),
    };
    let running = start_bot(&hs, login(), &state, &setup.db).await;
    plays_encrypted(&running, &mut alice, &room).await;
    let revoked = running.bot.client().access_token().unwrap();
    running.stop().await;
    {
        use matrix_sdk::ruma::api::client::session::logout;
        let client = Client::builder().homeserver_url(&hs).build().await.unwrap();
        client
            .restore_session(matrix_sdk::authentication::matrix::MatrixSession {
                meta: matrix_sdk::SessionMeta {
                    user_id: bot.as_str().try_into().unwrap(),
                    device_id: "SIGNOUT".into(),
                },
                tokens: matrix_sdk::SessionTokens {
                    access_token: revoked.clone(),
                    refresh_token: None,
                },
            })
            .await
            .unwrap();
        client.send(logout::v3::Request::new()).await.unwrap();
    }
    let running = start_bot(&hs, login(), &state, &setup.db).await;
    assert_ne!(running.bot.client().access_token().unwrap(), revoked);
    plays_encrypted(&running, &mut alice, &room).await;
    running.stop().await;
}

/// Waits until the bot's client holds `room` for a direct room (the `m.direct` flag the bot
/// sets when it joins a room whose invitation said `is_direct`).
async fn bot_sees_direct(running: &RunningBot, room: &RoomId) {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(r) = running.bot.client().get_room(room)
            && r.is_direct().await.unwrap_or(false)
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the bot never flagged {room} direct"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_are_refused_in_a_room_flagged_direct_that_someone_else_can_read() {
    let Some(hs) = homeserver() else { return };
    let (_setup, running, table) = started_game(&hs, "looking-glass white").await;
    let bot = running.id();
    let Table {
        mut alice,
        mut bob,
        room,
    } = table;
    let mut carol = Player::register(&hs, "carol").await;
    // An account with no client: invited, it never joins, but could at any time.
    let (lurker, _) = bot_account(&hs).await;
    let invitation =
        |s: &Seen| s.sender() == bot && s.room != room && s.body().contains("setup 518");
    alice.expect("the setup invitation", invitation).await;
    let bob_dm = bob.expect("the setup invitation", invitation).await.room;

    // Alice makes rooms flagged direct, unencrypted, with the bot and a third person (joined,
    // or only invited), and types her back rank there without prefix: refused, not used.
    let carol_id = carol.id().to_string();
    let mut carols_room = None;
    for third in [carol_id.as_str(), lurker.as_str()] {
        let trap = alice.create_direct_room(&[&bot, third], false).await;
        alice.see_join(&trap, &bot).await;
        if third == carol_id {
            alice.see_join(&trap, third).await;
            carols_room = Some(trap.clone());
        }
        bot_sees_direct(&running, &trap).await;
        let (cmd, _) = alice.say(&trap, "!fb setup RNBQKBNR").await;
        let refusal = alice.reply_to(&bot, &cmd).await;
        assert!(
            refusal.body().contains("are secret"),
            "with {third} in the room: {}",
            refusal.body()
        );
        assert!(!refusal.body().contains("RNBQKBNR"), "{}", refusal.body());
    }

    // Decided: an unencrypted room flagged direct that alice made with the bot alone is her
    // private channel (nobody else reads it; encrypting her own room is her choice). Her back
    // rank is taken there, and the game begins.
    let own = alice.create_direct_room(&[&bot], false).await;
    alice.see_join(&own, &bot).await;
    bot_sees_direct(&running, &own).await;
    let mark = alice.mark();
    alice.say(&own, "setup RNBQKBNR").await;
    let taken = alice
        .expect_since(mark, "her back rank taken", |s| {
            s.sender() == bot && s.body().contains("Your back rank is RNBQKBNR")
        })
        .await;
    assert!(
        taken.encrypted,
        "the bot's own secrets go to an encrypted room"
    );
    bob.say(&bob_dm, "setup 518").await;
    alice
        .expect_since(mark, "the game beginning", |s| {
            s.room == room && s.sender() == bot && s.body().contains("begins")
        })
        .await;

    // Carol read nothing of the bot's but the refusal: no back rank, no picture.
    let carols_room = carols_room.expect("carol joined a room");
    for s in carol
        .settle(&carols_room, &bot)
        .await
        .iter()
        .filter(|s| s.sender() == bot && s.event["type"] == "m.room.message")
    {
        assert!(s.body().contains("are secret"), "carol read {}", s.body());
        assert_ne!(s.msgtype(), "m.image");
    }
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_messages_leave_a_direct_room_that_someone_else_has_joined() {
    let Some(hs) = homeserver() else { return };
    let setup = BotSetup::new(&hs).await;
    let running = setup.start().await;
    let bot = running.id();
    let Table {
        mut alice, room, ..
    } = table(&hs, &bot, false).await;
    let mut carol = Player::register(&hs, "carol").await;
    let whisper = format!("!fb whisper {}", alice.id());
    let secret = |s: &Seen| s.sender() == bot && s.body().contains("SECRET-4711");

    alice.say(&room, &whisper).await;
    let dm = alice.expect("the first secret", secret).await.room;
    assert_ne!(dm, room);

    // Alice shares her direct room with the bot with carol.
    alice
        .client
        .get_room(&dm)
        .unwrap()
        .invite_user_by_id(&carol.id())
        .await
        .unwrap();
    alice.see_join(&dm, carol.id().as_str()).await;
    // A command typed there is no longer private either (so it needs the prefix, issue 27).
    let (cmd, _) = alice.say(&dm, "!fb games").await;
    alice.reply_to(&bot, &cmd).await;

    // The next secret goes to a new encrypted room, not to the shared one.
    let mark = alice.mark();
    alice.say(&room, &whisper).await;
    let second = alice.expect_since(mark, "the second secret", secret).await;
    assert_ne!(second.room, dm, "a secret was sent where carol reads");
    assert_ne!(second.room, room);
    assert!(second.encrypted);
    let new_dm = alice.client.get_room(&second.room).unwrap();
    assert!(
        new_dm
            .latest_encryption_state()
            .await
            .unwrap()
            .is_encrypted()
    );

    assert!(
        !carol
            .settle(&dm, &bot)
            .await
            .iter()
            .any(|s| s.body().contains("SECRET")),
        "carol read a secret"
    );
    running.stop().await;
}

/// A player who left his direct room is not written to there (nobody reads it; the send
/// would "succeed") nor invited anew: the message is held and the room told, without the
/// secret. Once he opens a direct chat himself, what was held comes there as soon as the bot
/// has joined it, before he types anything (issue 16: an unreachable player is detected, and
/// reached when he is back), and later secrets follow it there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_left_his_direct_room_gets_what_was_held_in_the_one_he_opens() {
    let Some(hs) = homeserver() else { return };
    let mut held = Held::after_leaving(&hs).await;
    // She opens a direct chat with the bot (flagged direct, encrypted).
    let mark = held.alice.mark();
    let bot_id = matrix_sdk::ruma::UserId::parse(held.bot.as_str()).unwrap();
    let mine = held.alice.client.create_dm(&bot_id).await.unwrap();
    held.comes_to(mark, mine.room_id()).await;
}

/// The same with a room she opens without the direct flag (some clients do, and the flag
/// reaches the bot's account only by a later sync): an encrypted room of the bot and her
/// alone is hers, and gets what was held; an unencrypted one she opened first gets nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_was_held_goes_to_an_encrypted_room_the_player_opens_unflagged() {
    let Some(hs) = homeserver() else { return };
    let mut held = Held::after_leaving(&hs).await;
    let bot = held.bot.clone();

    let mark = held.alice.mark();
    let plain = held.alice.create_room(&[bot.as_str()], false).await;
    held.alice.see_join(&plain, bot.as_str()).await;
    assert!(
        !held.alice.settle(&plain, &bot).await[mark..]
            .iter()
            .any(|s| s.body().contains("SECRET")),
        "a secret in an unencrypted room"
    );

    let mark = held.alice.mark();
    let mine = held.alice.create_room(&[bot.as_str()], true).await;
    held.comes_to(mark, &mine).await;
}

/// A bot, and Alice at a table with it, for whom a secret is held: she got one in a direct
/// room the bot made, left that room, and asked again (the room was told, without it).
struct Held {
    running: RunningBot,
    bot: String,
    alice: Player,
    room: OwnedRoomId,
    whisper: String,
}

impl Held {
    async fn after_leaving(hs: &str) -> Held {
        let setup = BotSetup::new(hs).await;
        let running = setup.start().await;
        let bot = running.id();
        let Table {
            mut alice, room, ..
        } = table(hs, &bot, false).await;
        let whisper = format!("!fb whisper {}", alice.id());
        alice.say(&room, &whisper).await;
        let dm = alice
            .expect("the first secret", |s| is_secret(s, &bot))
            .await
            .room;
        alice.client.get_room(&dm).unwrap().leave().await.unwrap();
        // Her leave reaches the bot by its sync (she sees nothing of that room any more): a
        // command answered after it proves the bot's client has read that sync.
        alice.settle(&room, &bot).await;

        let (cmd, _) = alice.say(&room, &whisper).await;
        assert_missed_notice(&alice.reply_to(&bot, &cmd).await);
        Held {
            running,
            bot,
            alice,
            room,
            whisper,
        }
    }

    /// What was held comes to `mine`, the room she opened after `mark`, once the bot has
    /// joined it and with no command from her; her next secret follows it there.
    async fn comes_to(mut self, mark: usize, mine: &RoomId) {
        let bot = self.bot.clone();
        let kept = self
            .alice
            .expect_since(mark, "the held secret", |s| {
                is_secret(s, &bot) && s.body().contains("Kept for you")
            })
            .await;
        assert_eq!(
            kept.room, mine,
            "in the room she opened, not the one she left"
        );
        assert!(kept.encrypted);

        let mark = self.alice.mark();
        self.alice.say(&self.room, &self.whisper).await;
        let next = self
            .alice
            .expect_since(mark, "the next secret", |s| is_secret(s, &bot))
            .await;
        assert_eq!(next.room, mine, "the next secret goes where she is");
        self.running.stop().await;
    }
}

/// The room's notice that a private message could not be sent: it says so, not what.
fn assert_missed_notice(notice: &Seen) {
    assert!(
        notice
            .body()
            .contains("could not send you a private message"),
        "{}",
        notice.body()
    );
    assert!(!notice.body().contains("SECRET"));
}

/// The test secret of `whisper`, from the bot.
fn is_secret(seen: &Seen, bot: &str) -> bool {
    seen.sender() == bot && seen.body().contains("SECRET-4711")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_five_thousand_character_command_gets_a_short_reply() {
    let Some(hs) = homeserver() else { return };
    let setup = BotSetup::new(&hs).await;
    let running = setup.start().await;
    let bot = running.id();
    let Table {
        mut alice, room, ..
    } = table(&hs, &bot, false).await;
    for long in [
        format!("!fb {}", "x".repeat(5_000)),
        format!("!fb challenge {} chess", "y".repeat(5_000)),
        format!("!fb Nf3{}", "`<&*".repeat(1_250)),
    ] {
        let (cmd, _) = alice.say(&room, &long).await;
        let reply = alice.reply_to(&bot, &cmd).await;
        let n = reply.body().chars().count();
        assert!(n < 300, "a {}-character reply: {}", n, reply.body());
    }
    running.stop().await;
}

/// Whether a bot message mentions (notifies) `user`.
fn mentions(seen: &Seen, user: &str) -> bool {
    seen.content()["m.mentions"]["user_ids"]
        .as_array()
        .is_some_and(|ids| ids.iter().any(|u| u == user))
}

/// A four-player Double Cross Besiege game on a real Synapse with four player clients: the
/// challenge names three players and mentions all four; each invitee accepts with 👍 on it
/// (the last one starts the game); turn announcements mention the player to move; Green
/// resigns and the others play on; Blue is checkmated and out; Red's checkmate of Yellow
/// ends it, announced to all four. The moves are those of
/// `bot/core/tests/data/four_player/complete_game.scenario`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_players_play_a_complete_game_with_reactions_and_mentions() {
    let Some(hs) = homeserver() else { return };
    let setup = BotSetup::new(&hs).await;
    let running = setup.start().await;
    let bot = running.id();
    let mut red = Player::register(&hs, "red").await;
    let mut blue = Player::register(&hs, "blue").await;
    let mut yellow = Player::register(&hs, "yellow").await;
    let mut green = Player::register(&hs, "green").await;
    let ids = [red.id(), blue.id(), yellow.id(), green.id()];
    let room = red
        .create_room(
            &[
                bot.as_str(),
                ids[1].as_str(),
                ids[2].as_str(),
                ids[3].as_str(),
            ],
            false,
        )
        .await;
    for user in [&bot, ids[1].as_str(), ids[2].as_str(), ids[3].as_str()] {
        red.see_join(&room, user).await;
    }

    let (cmd, _) = red
        .say(
            &room,
            &format!(
                "!fb challenge {} {} {} dcb-balanced-4p",
                ids[1], ids[2], ids[3]
            ),
        )
        .await;
    let challenge = red.reply_to(&bot, &cmd).await;
    assert!(
        challenge.body().contains("React 👍"),
        "{}",
        challenge.body()
    );
    for id in &ids {
        assert!(
            mentions(&challenge, id.as_str()),
            "{id}: {}",
            challenge.content()
        );
    }
    // Each invitee answers the challenge itself with 👍; the third starts the game.
    blue.react(&room, &challenge.id(), "👍").await;
    red.sees_since(0, &room, "Still waiting for").await;
    yellow.react(&room, &challenge.id(), "👍\u{FE0F}").await;
    let mark = red.mark();
    green.react(&room, &challenge.id(), "👍").await;
    let start = red
        .expect_since(mark, "the game's start", |s| {
            s.sender() == bot && s.body().contains("Game 1 starts")
        })
        .await;
    for id in &ids {
        assert!(mentions(&start, id.as_str()), "{id}: {}", start.content());
    }

    let script: [(usize, &str, &str); 14] = [
        (0, "Ncx", "(Blue) to move"),
        (1, "cw", "(Yellow) to move"),
        (2, "cp", "(Green) to move"),
        (3, "resign", "(Green) resigns and is out"),
        (0, "dw", "(Blue) to move"),
        (1, "Kbw", "(Yellow) to move"),
        (2, "co", "(Red) to move"),
        (0, "Ndv", "(Blue) is checkmated and out"),
        (2, "cn", "(Red) to move"),
        (0, "em", "(Yellow) to move"),
        (2, "Kcq", "(Red) to move"),
        (0, "Qho", "(Yellow) to move"),
        (2, "Qdr", "(Red) to move"),
        (0, "Qco", "the last player left"),
    ];
    let mut last = None;
    for (seat, mv, expected) in script {
        let player = match seat {
            0 => &mut red,
            1 => &mut blue,
            2 => &mut yellow,
            _ => &mut green,
        };
        let (cmd, _) = player.say(&room, &format!("!fb {mv}")).await;
        let reply = player.reply_to(&bot, &cmd).await;
        assert!(reply.body().contains(expected), "{mv}: {}", reply.body());
        // The player to move next is notified.
        if let Some(next) = ["(Red) to move", "(Blue) to move", "(Yellow) to move"]
            .iter()
            .position(|t| expected == *t)
        {
            assert!(
                mentions(&reply, ids[next].as_str()),
                "{mv}: {}",
                reply.content()
            );
        }
        if mv == "Ndv" {
            assert!(mentions(&reply, ids[1].as_str()), "{}", reply.content());
        }
        last = Some(reply);
    }
    let end = last.unwrap();
    assert!(end.body().contains("Checkmate"), "{}", end.body());
    for id in &ids {
        assert!(mentions(&end, id.as_str()), "{id}: {}", end.content());
    }
    // Every player's client saw the end.
    for p in [&mut blue, &mut yellow, &mut green] {
        p.sees_since(0, &room, "the last player left").await;
    }
}

/// A test-only service wrapper: when a player sends `trigger`, it requests the bot's stop (as
/// SIGTERM does through `bot/app`'s `Shutdown`) and then takes its time over the command, so
/// that the stop lands while the command is in flight.
struct StopsDuring<G> {
    inner: G,
    trigger: &'static str,
    stop: std::sync::Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
}

impl<G: bot_matrix::Games> bot_matrix::Games for StopsDuring<G> {
    fn hold_undelivered<'a>(
        &'a self,
        reply: &'a bot_core::reply::Reply,
    ) -> std::pin::Pin<
        Box<
            dyn std::future::Future<Output = Result<bool, bot_core::store::StoreError>> + Send + 'a,
        >,
    > {
        self.inner.hold_undelivered(reply)
    }

    fn take_undelivered<'a>(
        &'a self,
        player: &'a bot_core::model::PlayerId,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Vec<bot_core::reply::Reply>> + Send + 'a>>
    {
        self.inner.take_undelivered(player)
    }

    fn claim_mail(
        &self,
        platform: bot_core::model::Platform,
        limit: u32,
    ) -> bot_core::service::BoxFuture<
        '_,
        Result<Vec<bot_core::outbox::Entry>, bot_core::store::StoreError>,
    > {
        self.inner.claim_mail(platform, limit)
    }

    fn settle_mail<'a>(
        &'a self,
        key: &'a bot_core::outbox::Key,
        attempt: bot_core::outbox::Attempt,
    ) -> bot_core::service::BoxFuture<'a, ()> {
        self.inner.settle_mail(key, attempt)
    }

    fn mail_signal(&self) -> std::sync::Arc<tokio::sync::Notify> {
        self.inner.mail_signal()
    }

    fn mail<'a>(
        &'a self,
        key: &'a bot_core::outbox::Key,
    ) -> bot_core::service::BoxFuture<
        'a,
        Result<Option<bot_core::outbox::Mail>, bot_core::store::StoreError>,
    > {
        self.inner.mail(key)
    }

    fn handle<'a>(
        &'a self,
        actor: &'a bot_core::Actor,
        place: &'a bot_core::model::Place,
        cmd: bot_core::command::Command,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Vec<bot_core::reply::Reply>> + Send + 'a>>
    {
        self.inner.handle(actor, place, cmd)
    }

    fn handle_text<'a>(
        &'a self,
        actor: &'a bot_core::Actor,
        place: &'a bot_core::model::Place,
        text: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Vec<bot_core::reply::Reply>> + Send + 'a>>
    {
        Box::pin(async move {
            if text.trim() == self.trigger {
                let stop = self.stop.lock().unwrap().take();
                if let Some(stop) = stop {
                    let _ = stop.send(());
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
            self.inner.handle_text(actor, place, text).await
        })
    }

    fn current_game<'a>(
        &'a self,
        actor: &'a bot_core::Actor,
        place: &'a bot_core::model::Place,
        game: Option<bot_core::model::GameId>,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = Option<bot_core::CurrentGame>> + Send + 'a>,
    > {
        self.inner.current_game(actor, place, game)
    }
}

/// Shutting down (issue 13, item 7, on Matrix): a stop requested while a command is being
/// handled lets it finish, store the move and answer it; then the bot stops, and after a
/// restart the move is there and is not answered again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_during_a_command_lets_it_finish_and_answer_then_stops() {
    let Some(hs) = homeserver() else { return };
    let (setup, running, mut t) = started_game(&hs, "chess").await;
    let bot = running.id();
    running.stop().await;

    let store = bot_store::SqlStore::open_sqlite(&setup.db).await.unwrap();
    let catalog = std::sync::Arc::new(rules::Catalog::builtin());
    let service = bot_core::GameService::new(store, bot_core::SystemClock, catalog.clone());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let games = StopsDuring {
        inner: service,
        trigger: "e4",
        stop: std::sync::Mutex::new(Some(stop)),
    };
    let config = bot_matrix::MatrixConfig::new(
        &setup.hs,
        Login::Password {
            user: setup.user.clone(),
            password: setup.password.clone().into(),
        },
        &setup.state,
    )
    .unwrap();
    let stopping = bot_matrix::MatrixBot::connect(
        &config,
        std::sync::Arc::new(games),
        catalog,
        std::sync::Arc::new(render::Renderer::new()),
    )
    .await
    .unwrap();
    stopping.first_sync().await.unwrap();
    let task = tokio::spawn(async move {
        stopping
            .run(async {
                let _ = stopped.await;
            })
            .await
    });

    let (e4, _) = t.alice.say(&t.room, "!fb e4").await;
    let reply = t.alice.reply_to(&bot, &e4).await;
    assert!(reply.body().contains("e4"), "{}", reply.body());
    let finished = tokio::time::timeout(Duration::from_secs(20), task)
        .await
        .expect("the bot stops once the command in flight is answered");
    assert!(matches!(finished, Ok(Ok(()))), "{finished:?}");

    // Up again: e4 was stored (e5 is legal and answered with a board), and e4 is not answered
    // a second time.
    let running = setup.start().await;
    let (e5, _) = t.bob.say(&t.room, "!fb e5").await;
    let reply = t.bob.reply_to(&bot, &e5).await;
    assert!(reply.body().contains("e5"), "{}", reply.body());
    let room = t.room.clone();
    let answers = t
        .alice
        .settle(&room, &bot)
        .await
        .iter()
        .filter(|s| s.room == room && s.sender() == bot && s.in_reply_to() == Some(e4.as_str()))
        .count();
    assert_eq!(answers, 1, "e4 answered {answers} times");
    running.stop().await;
}

/// Playing the bot on Matrix: `!fb play chess vs bot` starts the game at once, the bot's move
/// (searched on its own threads) arrives in the room as a board image answering no command,
/// and challenging the bot's own user is a game against it too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_plays_the_bot_and_its_moves_arrive_in_the_room() {
    let Some(hs) = homeserver() else { return };
    let setup = BotSetup::new(&hs).await;
    let running = setup.start().await;
    let bot = running.id();
    let Table {
        mut alice, room, ..
    } = table(&hs, &bot, false).await;
    let (cmd, _) = alice
        .say(&room, "!fb play chess vs bot white level 1")
        .await;
    let start = alice.reply_to(&bot, &cmd).await;
    assert!(
        start.body().contains("against the bot at level 1"),
        "{}",
        start.body()
    );
    let (cmd, _) = alice.say(&room, "!fb e4").await;
    let mine = alice.reply_to(&bot, &cmd).await;
    assert!(mine.body().contains("plays e4"), "{}", mine.body());
    let answer = alice
        .expect("the bot's move", |s| {
            s.sender() == bot
                && s.room == room
                && s.in_reply_to().is_none()
                && s.body().contains("plays")
                && !s.body().contains("plays e4")
        })
        .await;
    assert_eq!(answer.msgtype(), "m.image", "{}", answer.body());
    assert!(answer.body().contains("to move"), "{}", answer.body());
    let (cmd, _) = alice
        .say(&room, &format!("!fb challenge {bot} toulousain"))
        .await;
    let game = alice.reply_to(&bot, &cmd).await;
    assert!(
        game.body().contains("against the bot at level 3"),
        "{}",
        game.body()
    );
    running.stop().await;
}

/// Issue 29 item 3: `!fb analyse` after a game answers with a progress line, which is then
/// edited in place (`m.replace`) into "analysed"; the graph follows as an image, then White's
/// blunder with the better move on a board.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_analysis_edits_its_progress_line_and_posts_the_graph() {
    let Some(hs) = homeserver() else { return };
    let (_setup, running, table) = started_game(&hs, "chess").await;
    let bot = running.id();
    let Table {
        mut alice,
        mut bob,
        room,
    } = table;
    for (i, mv) in ["f3", "e5", "g4", "Qh4#"].into_iter().enumerate() {
        let player = if i % 2 == 0 { &mut alice } else { &mut bob };
        let (cmd, _) = player.say(&room, &format!("!fb {mv}")).await;
        player.reply_to(&bot, &cmd).await;
    }
    let (cmd, _) = alice.say(&room, "!fb analyse").await;
    let line = alice.reply_to(&bot, &cmd).await;
    assert!(
        line.body().contains("Analysing game 1 at 3,000 nodes"),
        "{}",
        line.body()
    );
    let original = line.id().to_string();
    let edit = alice
        .expect("the progress line edited into its end", |s| {
            let c = s.content();
            s.sender() == bot
                && c["m.relates_to"]["rel_type"] == "m.replace"
                && c["m.relates_to"]["event_id"] == original.as_str()
                && c["m.new_content"]["body"]
                    .as_str()
                    .is_some_and(|b| b.starts_with("Game 1 analysed"))
        })
        .await;
    assert_eq!(edit.room, room);
    let graph = alice
        .expect("the graph", |s| {
            s.sender() == bot && s.msgtype() == "m.image" && s.body().contains("Analysis of game 1")
        })
        .await;
    alice.check_image(&graph).await;
    let blunder = alice
        .expect("the blunder", |s| {
            s.sender() == bot && s.body().contains("g4??")
        })
        .await;
    assert_eq!(blunder.msgtype(), "m.image", "on a board");
    assert!(blunder.body().contains("Better was"), "{}", blunder.body());
    running.stop().await;
}

/// Issue 29: a line that replaces a message sent before a restart (an analysis's progress,
/// when the bot restarted in the middle) edits that message: the restarted bot asks the
/// homeserver which event its transaction id (the entry's key) became, rather than post the
/// line anew, even behind 150 messages said since.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_after_a_restart_edits_the_message_sent_before_it() {
    use bot_core::{
        outbox::{Envelope, Keys},
        reply::Reply,
        store::GameStore,
    };
    let Some(hs) = homeserver() else { return };
    // A room in the clear, and an encrypted one (the SDK keeps the event's `unsigned` part
    // when it decrypts the bot's own message).
    for encrypted in [false, true] {
        let setup = BotSetup::new(&hs).await;
        let running = setup.start().await;
        let bot = running.id();
        let Table {
            mut alice, room, ..
        } = table(&hs, &bot, encrypted).await;
        // What the analyst would post, written to the bot's store as the service writes it.
        let store = bot_store::SqlStore::open_sqlite(&setup.db).await.unwrap();
        let place = bot_core::model::Place::room(bot_core::model::Platform::Matrix, room.as_str());
        let now = || bot_core::Clock::now_ms(&bot_core::SystemClock);
        let keys = Keys::new(0x29 + u64::from(encrypted));
        let first = keys.next();
        let line = Envelope::unasked(first.clone(), &place, Reply::room("Analysing game 7: 25 %"));
        store.post(&[line], None, now()).await.unwrap();
        let original = alice
            .expect("the first line", |s| {
                s.sender() == bot && s.body().contains("Analysing game 7: 25 %")
            })
            .await;
        running.stop().await;
        // In the clear room, a busy one: 150 messages said meanwhile, more than the newest
        // page the bot reads back, so it pages further.
        if !encrypted {
            for i in 0..150 {
                alice
                    .send(
                        &room,
                        RoomMessageEventContent::text_plain(format!("chatter {i}")),
                    )
                    .await;
            }
        }

        let running = setup.start().await;
        let end = Envelope::unasked(
            keys.next(),
            &place,
            Reply::room("Game 7 analysed").replacing(first),
        );
        store.post(&[end], None, now()).await.unwrap();
        let shown = alice
            .expect("the end of the analysis", |s| {
                s.sender() == bot && s.body().contains("Game 7 analysed")
            })
            .await;
        let c = shown.content();
        assert_eq!(c["m.relates_to"]["rel_type"], "m.replace", "{c}");
        assert_eq!(c["m.relates_to"]["event_id"], original.id().as_str(), "{c}");
        running.stop().await;
    }
}

/// Issue 30: a variant file sent to the room with the caption `!fb variant add` is added (its
/// extension chooses the format), and the room can play it at once; a file over the size
/// limit is refused, naming the limit; a file without the caption in a group room is not a
/// command.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variant_file_sent_with_its_caption_is_added() {
    use matrix_sdk::ruma::events::room::message::{FileInfo, FileMessageEventContent, MessageType};
    let Some(hs) = homeserver() else { return };
    let setup = BotSetup::new(&hs).await;
    let running = setup.start().await;
    let bot = running.id();
    let Table {
        mut alice, room, ..
    } = table(&hs, &bot, false).await;
    let file = |caption: &str, name: &str, bytes: &[u8], url| {
        let mut content = FileMessageEventContent::plain(caption.to_string(), url);
        content.filename = Some(name.to_string());
        let mut info = FileInfo::new();
        info.size = Some((bytes.len() as u32).into());
        content.info = Some(Box::new(info));
        RoomMessageEventContent::new(MessageType::File(content))
    };
    let uploader = alice.client.clone();
    let upload = |bytes: Vec<u8>| {
        let client = uploader.clone();
        async move {
            client
                .media()
                .upload(&"text/plain".parse().unwrap(), bytes, None)
                .await
                .unwrap()
                .content_uri
        }
    };

    let ini = b"[centaur-king:chess]\nking = k:KN\n".to_vec();
    let url = upload(ini.clone()).await;
    let (sent, _) = alice
        .send(&room, file("!fb variant add", "centaur.ini", &ini, url))
        .await;
    let added = alice.reply_to(&bot, &sent).await;
    assert!(
        added.body().contains("Added centaur-king"),
        "{}",
        added.body()
    );
    // The start position comes as a picture, with the reply's text as its caption.
    assert_eq!(added.msgtype(), "m.image", "{:?}", added.content());
    let (cmd, _) = alice.say(&room, "!fb variant list").await;
    let list = alice.reply_to(&bot, &cmd).await;
    assert!(list.body().contains("centaur-king"), "{}", list.body());

    // Too large: refused by its announced size, before it is fetched.
    let big = vec![b'#'; bot_core::command::MAX_DEFINITION_BYTES + 1];
    let url = upload(big.clone()).await;
    let (sent, _) = alice
        .send(&room, file("!fb variant add", "huge.toml", &big, url))
        .await;
    let refused = alice.reply_to(&bot, &sent).await;
    assert!(
        refused.body().contains("a variant definition has at most"),
        "{}",
        refused.body()
    );

    // Not text: refused with what to send instead.
    let binary = vec![0xff, 0xfe, 0x00, 0x9f, b'k'];
    let url = upload(binary.clone()).await;
    let (sent, _) = alice
        .send(&room, file("!fb variant add", "broken.ini", &binary, url))
        .await;
    let refused = alice.reply_to(&bot, &sent).await;
    assert!(
        refused.body().contains("is not text (UTF-8)"),
        "{}",
        refused.body()
    );

    // A file the homeserver does not have: the player is told to send it again.
    let missing = matrix_sdk::ruma::OwnedMxcUri::from(format!(
        "mxc://{}/NoSuchMediaAnywhere",
        alice.id().server_name()
    ));
    let (sent, _) = alice
        .send(&room, file("!fb variant add", "gone.ini", &ini, missing))
        .await;
    let refused = alice.reply_to(&bot, &sent).await;
    assert!(
        refused.body().contains("could not fetch") && refused.body().contains("again"),
        "{}",
        refused.body()
    );

    // Without the caption, in a room others read, a file is just a file.
    let url = upload(ini.clone()).await;
    let mark = alice.mark();
    alice
        .send(&room, file("centaur.ini", "centaur.ini", &ini, url))
        .await;
    alice.settle(&room, &bot).await;
    let after = &alice.drain()[mark..];
    assert!(
        !after
            .iter()
            .any(|s| s.sender() == bot && s.body().contains("centaur")),
        "{:?}",
        after.iter().map(|s| s.body()).collect::<Vec<_>>()
    );
    running.stop().await;
}
