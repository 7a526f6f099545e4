//! Issue 27's ending property on Matrix, against a real Synapse (the Discord version is
//! `every_ending_reaches_the_channel_once_and_each_player_by_dm_once` in
//! `bot/discord/tests/outbox_faults.rs`): whatever ends a game, its room shows the result
//! exactly once, and each player finds it exactly once in his own encrypted direct room with
//! the bot, which nobody else reads.
//!
//! What is promised is the core's: every ending reaches each player privately as well as the
//! game's room (`tell_each_player` in `bot/core/src/service.rs` for moves, resignations,
//! agreements and aborts; in Looking-Glass `ending` and `glass_replies` write each player's
//! private word themselves). On Matrix "privately" is the player's direct room with the bot,
//! which the adapter makes (encrypted) with the first private message and uses from then on.
//!
//! One bot and one pair of players play every game in turn, in one room: the first ending
//! opens both direct rooms, which the later games use (Looking-Glass orders and resignations
//! typed there). No sleep stands for "nothing else came": after each ending the test waits
//! until the bot's outbox holds nothing undelivered, then for each player's answer to a
//! sentinel command ([`Player::settle`]), which comes after everything the bot said before.

mod common;

use std::time::Instant;

use bot_store::SqlStore;
use common::*;
use matrix_sdk::{
    RoomMemberships,
    ruma::{OwnedRoomId, RoomId},
};

/// The words a result is given in, whatever ended the game: a move ("Checkmate — A (Black)
/// beats B (White).", "Draw by stalemate."), a resignation ("A (Black) resigns. B (White)
/// wins."), an agreement ("Game 4 is drawn by agreement."), an abort ("Game 5 is aborted by
/// A."), the clock ("Time — B (White) wins."), and Looking-Glass ("The King is captured —
/// White wins.", "Third strike — Black wins."). Found in `bot/core/src/service/moves.rs`,
/// `offers.rs`, `clocks.rs` and `glass.rs`.
const RESULT_WORDS: [&str; 6] = [
    "wins",
    "beats",
    "drawn by",
    "aborted by",
    "resigns",
    "Draw by",
];

/// Whether `body` gives the result of game `game`: it names that game ("Game 3:", "Game 3 is
/// drawn", "Game 3 (you see the Mirror world):", not "Game 30") and words a result. The
/// reveal of a Looking-Glass game ("Game 7 is over — both worlds revealed", with its list of
/// actions) words none; nor do challenges, moves in play, offers and refusals.
fn is_result(game: u64, body: &str) -> bool {
    let name = format!("Game {game}");
    let names_game = body
        .match_indices(&name)
        .any(|(i, m)| !body[i + m.len()..].starts_with(|c: char| c.is_ascii_digit()));
    names_game && RESULT_WORDS.iter().any(|w| body.contains(w))
}

/// The game number in "Game N starts: ...".
fn game_number(body: &str) -> u64 {
    body.split("Game ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|digits| digits.parse().ok())
        .unwrap_or_else(|| panic!("no game number in {body:?}"))
}

/// Says `text` in `room` and waits for the bot's answer to it there, which must be about
/// game `game` (a refusal would not name it so).
async fn command(p: &mut Player, room: &RoomId, bot: &str, game: u64, text: &str) -> Seen {
    let (cmd, _) = p.say(room, text).await;
    let answer = p.reply_to(bot, &cmd).await;
    assert!(
        answer.body().contains(&format!("Game {game}")),
        "{text}: {}",
        answer.body()
    );
    answer
}

/// Alice challenges Bob to `variant` as White, Bob accepts: the game's number.
async fn start_game(
    alice: &mut Player,
    bob: &mut Player,
    room: &RoomId,
    bot: &str,
    variant: &str,
) -> u64 {
    let (cmd, _) = alice
        .say(room, &format!("!fb challenge {} {variant} white", bob.id()))
        .await;
    bob.reply_to(bot, &cmd).await;
    let (cmd, _) = bob.say(room, "!fb accept").await;
    let start = bob.reply_to(bot, &cmd).await;
    assert!(start.body().contains("starts"), "{}", start.body());
    game_number(start.body())
}

/// A Looking-Glass action typed without prefix in the player's direct room; then, with
/// `ack`, waits for the game's room to be told its public part (`ack` names the player's
/// side, so what the other player's last order said there is not taken for it).
async fn order(
    p: &mut Player,
    dm: &RoomId,
    room: &RoomId,
    bot: &str,
    game: u64,
    text: &str,
    ack: Option<&str>,
) {
    let mark = p.mark();
    p.say(dm, text).await;
    if let Some(ack) = ack {
        let head = format!("Game {game}:");
        p.expect_since(mark, &format!("{ack:?} after {text}"), |s| {
            s.room == room
                && s.sender() == bot
                && s.body().contains(&head)
                && s.body().contains(ack)
        })
        .await;
    }
}

/// The bot's messages giving game `game`'s result that `p` received after `mark`.
fn results(p: &mut Player, mark: usize, bot: &str, game: u64) -> Vec<Seen> {
    p.drain()[mark..]
        .iter()
        .filter(|s| s.sender() == bot && is_result(game, s.body()))
        .cloned()
        .collect()
}

/// The endings, in the order played: the first opens each player's direct room (a chess
/// game gives nothing privately before its end), which the Looking-Glass games and the
/// resignations typed in private need.
const ENDINGS: [(&str, &str); 8] = [
    ("chess", "checkmate"),
    ("chess", "resign in the room"),
    ("chess", "resign in private"),
    ("chess", "agreement"),
    ("chess", "abort"),
    ("looking-glass", "king captured"),
    ("looking-glass", "strikes"),
    ("looking-glass", "resign in private"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_ending_reaches_the_room_once_and_each_player_privately_once() {
    let Some(hs) = homeserver() else { return };
    let began = Instant::now();
    let setup = BotSetup::new(&hs).await;
    let running = setup.start().await;
    let bot = running.id();
    let store = SqlStore::open_sqlite(&setup.db).await.unwrap();
    let Table {
        mut alice,
        mut bob,
        room,
    } = table(&hs, &bot, false).await;
    // Each player's direct room with the bot, once the first ending has opened it.
    let mut dms: Option<(OwnedRoomId, OwnedRoomId)> = None;
    // The Looking-Glass game whose King was captured, analysed after the loop.
    let mut king_captured = None;

    for (variant, ending) in ENDINGS {
        let context = format!("{variant}, {ending}");
        let played = Instant::now();
        let marks = [alice.mark(), bob.mark()];
        let game = start_game(&mut alice, &mut bob, &room, &bot, variant).await;
        let glass = variant == "looking-glass";
        if glass && ending == "king captured" {
            king_captured = Some(game);
        }
        if glass || ending == "resign in private" {
            assert!(
                dms.is_some(),
                "{context}: played before any direct room exists"
            );
        }
        match ending {
            "checkmate" => {
                command(&mut alice, &room, &bot, game, "!fb f3").await;
                command(&mut bob, &room, &bot, game, "!fb e5").await;
                command(&mut alice, &room, &bot, game, "!fb g4").await;
                command(&mut bob, &room, &bot, game, "!fb Qh4#").await;
            }
            "resign in the room" => {
                command(&mut alice, &room, &bot, game, "!fb e4").await;
                command(&mut bob, &room, &bot, game, "!fb resign").await;
            }
            "resign in private" if !glass => {
                // Typed in his direct room, where no game lives: he names it.
                let (_, bob_dm) = dms.clone().unwrap();
                command(&mut alice, &room, &bot, game, "!fb e4").await;
                bob.say(&bob_dm, &format!("resign #{game}")).await;
            }
            "agreement" => {
                command(&mut alice, &room, &bot, game, "!fb draw").await;
                command(&mut bob, &room, &bot, game, "!fb draw accept").await;
            }
            "abort" => {
                command(&mut bob, &room, &bot, game, "!fb abort").await;
            }
            _ if glass => {
                // Every action typed in the player's direct room: both back ranks, then the
                // orders (`true`: White's, alice's), each but the last acknowledged in the
                // game's room before the next.
                let back_ranks = [
                    (true, "setup 518", Some("White has chosen")),
                    (false, "setup 518", Some("the game begins")),
                ];
                let play: &[(bool, &str, Option<&str>)] = match ending {
                    // White's Queen reaches the Mirror and takes the King there, blind.
                    "king captured" => &[
                        (true, "e2e3", Some("White has moved")),
                        (false, "f7f6", Some("Black has moved")),
                        (true, "d1h5", Some("White has moved")),
                        (false, "a7a6", Some("Black has moved")),
                        (true, "M:h5e8", None),
                    ],
                    // Three orders White's Rook cannot carry out on the world it cannot see.
                    "strikes" => &[
                        (true, "M:a1a5", Some("White's order was impossible")),
                        (true, "M:a1a5", Some("White's order was impossible")),
                        (true, "M:a1a5", None),
                    ],
                    // His Looking-Glass game is the one a command there acts on: no number.
                    "resign in private" => &[
                        (true, "e2e4", Some("White has moved")),
                        (false, "resign", None),
                    ],
                    other => unreachable!("{other}"),
                };
                let (alice_dm, bob_dm) = dms.clone().unwrap();
                for &(white, text, ack) in back_ranks.iter().chain(play) {
                    let (p, dm) = if white {
                        (&mut alice, &alice_dm)
                    } else {
                        (&mut bob, &bob_dm)
                    };
                    order(p, dm, &room, &bot, game, text, ack).await;
                }
            }
            other => unreachable!("{other}"),
        }

        // The result comes to the room and to each player's direct room (the first time,
        // found so: the only room besides the game's where the bot gives the result).
        let is_this = |s: &Seen| s.sender() == bot && is_result(game, s.body());
        let mut found = Vec::new();
        for (p, mark, dm) in [
            (&mut alice, marks[0], dms.as_ref().map(|d| d.0.clone())),
            (&mut bob, marks[1], dms.as_ref().map(|d| d.1.clone())),
        ] {
            p.expect_since(mark, &format!("{context}: the result in the room"), |s| {
                s.room == room && is_this(s)
            })
            .await;
            let private = p
                .expect_since(mark, &format!("{context}: the result privately"), |s| {
                    s.room != room && dm.as_ref().is_none_or(|dm| s.room == *dm) && is_this(s)
                })
                .await;
            found.push(private.room);
        }
        if dms.is_none() {
            assert_ne!(
                found[0], found[1],
                "{context}: one direct room for both players"
            );
            dms = Some((found[0].clone(), found[1].clone()));
        }
        let (alice_dm, bob_dm) = dms.clone().unwrap();

        // Nothing more can come: the outbox is empty, and each player has the answer to a
        // command given after that.
        quiet(&store).await;
        alice.settle(&room, &bot).await;
        bob.settle(&room, &bot).await;

        for (p, mark, dm, who) in [
            (&mut alice, marks[0], &alice_dm, "alice"),
            (&mut bob, marks[1], &bob_dm, "bob"),
        ] {
            let seen = results(p, mark, &bot, game);
            let texts: Vec<String> = seen
                .iter()
                .map(|s| format!("{} in {}", s.body(), s.room))
                .collect();
            let in_room = seen.iter().filter(|s| s.room == room).count();
            let private: Vec<&Seen> = seen.iter().filter(|s| s.room == *dm).collect();
            let elsewhere = seen.len() - in_room - private.len();
            assert_eq!(in_room, 1, "{context}: {who} saw in the room {texts:#?}");
            assert_eq!(
                private.len(),
                1,
                "{context}: {who}'s direct room: {texts:#?}"
            );
            assert_eq!(elsewhere, 0, "{context}: {who} elsewhere: {texts:#?}");
            assert!(
                private[0].encrypted,
                "{context}: {who}'s copy was not encrypted"
            );
        }
        eprintln!(
            "{context}: game {game} told once in the room and once to each player ({:.1} s)",
            played.elapsed().as_secs_f64()
        );
    }

    // Issue 29: a Looking-Glass game is analysed once it is over, in its room, each order
    // judged from what its player knew: the progress line, then the graph as a picture.
    let game = king_captured.expect("a Looking-Glass game ended by a captured King");
    let (cmd, _) = bob.say(&room, &format!("!fb analyse #{game}")).await;
    let line = bob.reply_to(&bot, &cmd).await;
    assert!(
        line.body().contains(&format!("Analysing game {game}")),
        "{}",
        line.body()
    );
    let title = format!("Analysis of game {game}");
    let graph = bob
        .expect("the Looking-Glass game's graph", |s| {
            s.room == room
                && s.sender() == bot
                && s.msgtype() == "m.image"
                && s.body().contains(&title)
        })
        .await;
    assert!(
        graph.body().contains("from what he knew"),
        "{}",
        graph.body()
    );
    bob.check_image(&graph).await;

    // Each direct room is read by its player and the bot alone (joined or invited, as the
    // bot's client knows them): neither player's result ever reached the other's.
    let (alice_dm, bob_dm) = dms.unwrap();
    for (dm, player) in [(&alice_dm, alice.id()), (&bob_dm, bob.id())] {
        let mut members: Vec<String> = running
            .bot
            .client()
            .state_store()
            .get_user_ids(dm, RoomMemberships::JOIN | RoomMemberships::INVITE)
            .await
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        members.sort();
        let mut expected = vec![bot.clone(), player.to_string()];
        expected.sort();
        assert_eq!(members, expected, "the members of {dm}");
    }
    assert!(
        alice.client.get_room(&bob_dm).is_none(),
        "alice is in bob's direct room"
    );
    assert!(
        bob.client.get_room(&alice_dm).is_none(),
        "bob is in alice's direct room"
    );
    eprintln!(
        "every ending told once in the room and once privately: {:.1} s in all",
        began.elapsed().as_secs_f64()
    );
    running.stop().await;
}

#[test]
fn a_result_is_recognised_for_its_own_game_only() {
    for (game, body) in [
        (
            1,
            "Game 1: bob plays Qh4#. Checkmate — bob (Black) beats alice (White). Ratings: alice 1338 (-162).",
        ),
        (2, "Game 2: bob (Black) resigns. alice (White) wins."),
        (
            3,
            "Done; the game's room is told: Game 3: bob (Black) resigns. alice (White) wins.",
        ),
        (4, "Game 4 is drawn by agreement."),
        (5, "Game 5 is aborted by bob."),
        (
            6,
            "Game 6 (you see the Mirror world):\nThe King is captured — White wins. Both worlds are revealed in the game's room.",
        ),
        (
            7,
            "Game 7: White's order was impossible: strike 3 of 3. Third strike — Black wins.",
        ),
    ] {
        assert!(is_result(game, body), "{body}");
        assert!(!is_result(game + 10, body), "{body}");
        assert!(!is_result(game * 10, body), "{body}");
    }
    for (game, body) in [
        (
            1,
            "Game 1 starts: Chess — alice (White) against bob (Black). alice to move.",
        ),
        (
            4,
            "Game 4: alice offers a draw. bob: `draw accept` or `draw decline`.",
        ),
        (7, "Game 7: White's order was impossible: strike 1 of 3."),
        (
            6,
            "Game 6 is over — both worlds revealed. White's back rank: RNBQKBNR; Black's: RNBQKBNR.\nEvery action:\n1. w setup RNBQKBNR",
        ),
        (2, "Game 2: alice plays e4. bob to move."),
    ] {
        assert!(!is_result(game, body), "{body}");
    }
    assert_eq!(game_number("Game 12 starts: Chess — a against b."), 12);
}
