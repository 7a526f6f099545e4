//! Complete games through the service on the in-memory store: the whole lifecycle, every way a
//! game ends, and every refusal a player can meet.

use std::sync::Arc;

use bot_core::{
    Actor, GameService,
    model::{EndReason, GameResult, GameStatus, Place, Platform},
    reply::{Audience, Reply},
    store::{GameFilter, GameStore, memory::MemoryStore},
};
use rules::Catalog;

mod common;
use common::*;

struct Table {
    svc: GameService<MemoryStore, TestClock>,
    place: Place,
    alice: Actor,
    bob: Actor,
}

impl Table {
    fn new() -> Table {
        Table {
            svc: GameService::new(
                MemoryStore::new(),
                TestClock::default(),
                Arc::new(Catalog::builtin()),
            ),
            place: Place::room(Platform::Matrix, "!room:example.org"),
            alice: actor("alice"),
            bob: actor("bob"),
        }
    }

    async fn say(&self, who: &Actor, text: &str) -> Vec<Reply> {
        self.svc.handle_text(who, &self.place, text).await
    }

    /// Says something and returns the text of the first reply.
    async fn text(&self, who: &Actor, text: &str) -> String {
        let r = self.say(who, text).await;
        assert!(!r.is_empty(), "no reply to {text:?}");
        r[0].text.clone()
    }

    /// Starts a game: Alice challenges Bob, Bob accepts; Alice plays first.
    async fn start(&self, variant: &str) {
        let r = self
            .say(
                &self.alice,
                &format!("challenge @bob:example.org {variant}"),
            )
            .await;
        assert_eq!(r[0].audience, Audience::Room, "{:?}", r[0]);
        let r = self.say(&self.bob, "accept").await;
        assert!(r[0].text.contains("starts"), "{:?}", r[0]);
        assert!(r[0].board.is_some());
    }

    async fn play(&self, moves: &str) -> Vec<Reply> {
        let mut last = Vec::new();
        for (i, m) in moves.split_whitespace().enumerate() {
            let who = if i % 2 == 0 { &self.alice } else { &self.bob };
            last = self.say(who, m).await;
            assert_eq!(last[0].audience, Audience::Room, "{m}: {}", last[0].text);
        }
        last
    }

    async fn status(&self) -> GameStatus {
        let games = self
            .svc
            .store()
            .list_games(&GameFilter::default())
            .await
            .unwrap();
        games.last().unwrap().status.clone()
    }
}

#[tokio::test]
async fn checkmate_ends_the_game() {
    let t = Table::new();
    t.start("chess").await;
    let r = t.play("f3 e5 g4 Qh4").await;
    assert!(r[0].text.contains("Checkmate"), "{}", r[0].text);
    assert_eq!(
        t.status().await,
        GameStatus::Finished {
            result: GameResult::Win(1),
            reason: EndReason::Checkmate
        }
    );
    let e = t.text(&t.alice, "e4").await;
    assert!(e.contains("no game") || e.contains("over"), "{e}");
}

#[tokio::test]
async fn stalemate_draws() {
    // The fastest known stalemate from the start (Sam Loyd, 10 moves).
    let t = Table::new();
    t.start("chess").await;
    let r = t
        .play("e3 a5 Qh5 Ra6 Qxa5 h5 h4 Rah6 Qxc7 f6 Qxd7+ Kf7 Qxb7 Qd3 Qxb8 Qh7 Qxc8 Kg6 Qe6")
        .await;
    assert!(r[0].text.contains("stalemate"), "{}", r[0].text);
    assert_eq!(
        t.status().await,
        GameStatus::Finished {
            result: GameResult::Draw,
            reason: EndReason::Stalemate
        }
    );
}

#[tokio::test]
async fn threefold_repetition_draws() {
    let t = Table::new();
    t.start("chess").await;
    let r = t.play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8").await;
    assert!(r[0].text.contains("repetition"), "{}", r[0].text);
}

#[tokio::test]
async fn resignation_and_draw_by_agreement() {
    let t = Table::new();
    t.start("chess").await;
    t.play("e4 e5").await;
    let r = t.say(&t.alice, "draw").await;
    assert!(r[0].text.contains("offers a draw"), "{}", r[0].text);
    assert!(t.text(&t.alice, "draw accept").await.contains("own offer"));
    assert!(
        t.text(&t.bob, "draw accept")
            .await
            .contains("drawn by agreement")
    );
    assert_eq!(
        t.status().await,
        GameStatus::Finished {
            result: GameResult::Draw,
            reason: EndReason::Agreement
        }
    );

    let t = Table::new();
    t.start("chess").await;
    t.play("e4").await;
    assert!(t.text(&t.bob, "resign").await.contains("resigns"));
    assert_eq!(
        t.status().await,
        GameStatus::Finished {
            result: GameResult::Win(0),
            reason: EndReason::Resignation
        }
    );
}

#[tokio::test]
async fn a_declined_draw_and_a_move_withdraw_the_offer() {
    let t = Table::new();
    t.start("chess").await;
    t.say(&t.alice, "draw").await;
    assert!(t.text(&t.bob, "draw decline").await.contains("declines"));
    t.say(&t.alice, "draw").await;
    t.play("e4").await;
    assert!(
        t.text(&t.bob, "draw accept")
            .await
            .contains("Nobody has offered")
    );
}

#[tokio::test]
async fn takeback_undoes_the_requesters_last_move() {
    let t = Table::new();
    t.start("chess").await;
    t.play("e4 e5 Nf3").await;
    // Bob asks to take back e5: it is his turn, so Nf3 is undone too.
    assert!(
        t.text(&t.bob, "takeback")
            .await
            .contains("offers a takeback")
    );
    let r = t.say(&t.alice, "takeback accept").await;
    assert!(r[0].text.contains("2 moves taken back"), "{}", r[0].text);
    let games = t
        .svc
        .store()
        .list_games(&GameFilter::default())
        .await
        .unwrap();
    assert_eq!(games[0].moves, vec!["e2e4".to_string()]);
    // Bob moves again.
    t.say(&t.bob, "c5").await;
}

#[tokio::test]
async fn abort_only_before_both_sides_moved() {
    let t = Table::new();
    t.start("chess").await;
    t.play("e4").await;
    assert!(t.text(&t.bob, "abort").await.contains("aborted"));
    assert_eq!(t.status().await, GameStatus::Aborted);

    let t = Table::new();
    t.start("chess").await;
    t.play("e4 e5").await;
    assert!(
        t.text(&t.alice, "abort")
            .await
            .contains("no longer be aborted")
    );
}

#[tokio::test]
async fn refusals_are_specific() {
    let t = Table::new();
    assert!(
        t.text(&t.alice, "challenge @bob:example.org chesss")
            .await
            .contains("Did you mean `chess`")
    );
    t.start("chess").await;
    let carol = actor("carol");
    // Out of turn, not a player, illegal, unknown, near miss.
    assert!(t.text(&t.bob, "e5").await.contains("not your turn"));
    assert!(t.text(&carol, "move e4").await.contains("no game"));
    let e = t.text(&t.alice, "b1b4").await;
    assert!(e.contains("the Knight on b1 cannot reach b4"), "{e}");
    let e = t.text(&t.alice, "Nf4").await;
    assert!(
        e.contains("not a legal move") && e.contains("Did you mean"),
        "{e}"
    );
    // Errors go to the actor only; anyone may look at the board.
    let r = t.say(&t.alice, "b1b4").await;
    assert_eq!(r[0].audience, Audience::Actor);
    let r = t.say(&carol, "board").await;
    assert!(r[0].board.is_some());
    // Only the challenged player accepts.
    let t = Table::new();
    t.say(&t.alice, "challenge @bob:example.org chess").await;
    assert!(
        t.text(&carol, "accept")
            .await
            .contains("No challenge here is waiting for you")
    );
    assert!(
        t.text(&carol, "accept 1")
            .await
            .contains("not addressed to you")
    );
    assert!(
        t.text(&t.alice, "decline")
            .await
            .contains("No challenge here is waiting")
    );
    assert!(t.text(&t.bob, "decline").await.contains("declines"));
    assert!(
        t.text(&t.bob, "accept 1")
            .await
            .contains("already declined")
    );
}

#[tokio::test]
async fn history_export_and_import_round_trip() {
    let t = Table::new();
    t.start("chess").await;
    t.play("e4 e5 Nf3 Nc6 Bb5").await;
    let h = t.text(&t.alice, "history").await;
    assert!(h.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5"), "{h}");
    let pgn = t.text(&t.alice, "export").await;
    assert!(
        pgn.contains("[Variant \"chess\"]") && pgn.contains("[White \"alice\"]"),
        "{pgn}"
    );
    let back = bot_core::export::import(&Catalog::builtin(), &pgn).unwrap();
    let games = t
        .svc
        .store()
        .list_games(&GameFilter::default())
        .await
        .unwrap();
    assert_eq!(back.moves, games[0].moves);
    assert_eq!(back.variant, "chess");
}

#[tokio::test]
async fn racing_the_same_move_applies_it_once() {
    let t = Arc::new(Table::new());
    t.start("chess").await;
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let t = t.clone();
        tasks.push(tokio::spawn(async move { t.say(&t.alice, "e4").await }));
    }
    let mut played = 0;
    let mut refused = 0;
    for task in tasks {
        let r = task.await.unwrap();
        if r[0].audience == Audience::Room {
            played += 1;
        } else {
            assert!(
                r[0].text.contains("not your turn") || r[0].text.contains("not a legal"),
                "{}",
                r[0].text
            );
            refused += 1;
        }
    }
    assert_eq!((played, refused), (1, 7));
    let games = t
        .svc
        .store()
        .list_games(&GameFilter::default())
        .await
        .unwrap();
    assert_eq!(games[0].moves, vec!["e2e4".to_string()]);
}

#[tokio::test]
async fn several_games_in_one_room_ask_which() {
    let t = Table::new();
    t.start("chess").await;
    t.start("toulousain").await;
    let e = t.text(&t.alice, "board").await;
    assert!(
        e.contains("Which game?") && e.contains("#1") && e.contains("#2"),
        "{e}"
    );
    let r = t.say(&t.alice, "move #2 e4e6").await;
    assert_eq!(r[0].audience, Audience::Room, "{}", r[0].text);
}

#[tokio::test]
async fn toulousain_through_the_service() {
    let t = Table::new();
    t.start("toulousain").await;
    // Fast pawns, a Corporal's diagonal step, the Gryphon, castling by sliding three cells.
    t.play("c2b4 c9c8 d2c1 d9d8 e2g1 e9e8 O-O-O").await;
    let games = t
        .svc
        .store()
        .list_games(&GameFilter::default())
        .await
        .unwrap();
    assert_eq!(games[0].moves.last().unwrap(), "f2c2");
    assert!(
        t.text(&t.bob, "rules toulousain")
            .await
            .contains("Reconstructed")
    );
    assert!(
        t.text(&t.bob, "piece toulousain gryphon")
            .await
            .contains("onward")
    );
}

/// Plays a whole game of `variant` through the service with a fixed seed: mate in one when
/// there is one, otherwise a capture if any, otherwise any move, every move typed in SAN by the
/// player whose turn it is. It must end in checkmate; returns the number of plies.
async fn play_to_mate(variant: &str, seed: u64) -> usize {
    play_to_win(variant, seed, EndReason::Checkmate).await
}

/// As [`play_to_mate`], for a game that must end in a win for `reason` (the stored status's
/// reason: checkmate, or the captures for CoBlaChe); its announcement must say so.
async fn play_to_win(variant: &str, mut seed: u64, reason: EndReason) -> usize {
    let t = Table::new();
    t.start(variant).await;
    let catalog = Catalog::builtin();
    let v = catalog.get(variant).unwrap();
    let mut pos = rules::Position::start(&v);
    let mut plies = 0;
    loop {
        let legal = pos.legal_moves();
        assert!(!legal.is_empty());
        let mate = legal.iter().copied().find(|m| {
            let mut p = pos.clone();
            p.play_unchecked(*m);
            matches!(p.outcome(), Some(rules::Outcome::Win { .. }))
        });
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let captures: Vec<_> = legal.iter().copied().filter(|m| m.is_capture()).collect();
        let m = mate.unwrap_or_else(|| {
            let pool = if captures.is_empty() {
                &legal
            } else {
                &captures
            };
            pool[(seed >> 33) as usize % pool.len()]
        });
        let who = if plies % 2 == 0 { &t.alice } else { &t.bob };
        let text = rules::notation::san(&pos, m);
        let r = t.say(who, &text).await;
        assert_eq!(r[0].audience, Audience::Room, "{text}: {}", r[0].text);
        assert!(
            r[0].board.is_some(),
            "{variant}: every move shows the board"
        );
        pos.play_unchecked(m);
        plies += 1;
        if let Some(o) = pos.outcome() {
            assert!(
                matches!(o, rules::Outcome::Win { .. }),
                "{variant} ended by {o} after {plies} plies"
            );
            // The announcement names the real reason, and no other.
            assert!(r[0].text.contains(reason.headline()), "{}", r[0].text);
            for other in EndReason::ALL.into_iter().filter(|o| *o != reason) {
                assert!(!r[0].text.contains(other.headline()), "{}", r[0].text);
            }
            break;
        }
        assert!(plies < 600, "the {variant} game did not end");
    }
    let status = t.status().await;
    assert!(
        matches!(&status, GameStatus::Finished { reason: r, .. } if *r == reason),
        "{variant}: {status:?}"
    );
    // The stored game replays: its history reads back.
    assert!(t.text(&t.alice, "history").await.contains("1."));
    plies
}

#[tokio::test]
async fn a_complete_toulousain_game_ends_in_checkmate() {
    play_to_mate("toulousain", 7).await;
}

#[tokio::test]
async fn a_complete_double_besiege_ecumenical_game_ends_in_checkmate() {
    // Both armies fight on two fronts across the glued ends (rank 16 touches rank 1).
    assert!(play_to_mate("ecumenical-double-besiege", 1).await > 100);
}

#[tokio::test]
async fn a_complete_double_cross_moebius_game_ends_in_checkmate() {
    // The cruciform board with holes, solid blocks and the twisted join.
    assert!(play_to_mate("dcb-balanced-moebius", 7).await > 100);
}

#[tokio::test]
async fn a_complete_coblache_game_is_won_by_captures() {
    // No King: the game ends when one side has taken the enemy Queen, Prince, and a Marshal, a
    // Bishop and a Frog.
    assert!(play_to_win("dcb-coblache", 7, EndReason::Captures).await > 10);
}

#[tokio::test]
async fn besiege_games_by_hand() {
    // Single Besiege: White's Gnu mates the besieged King by its Camel leap d5-e8.
    let t = Table::new();
    t.start("ecumenical-besiege").await;
    let r = t.play("Gb4 Lb11 Ca4 f12 Gd5").await;
    assert!(r[0].text.contains("Checkmate"), "{}", r[0].text);
    assert_eq!(
        t.status().await,
        GameStatus::Finished {
            result: GameResult::Win(0),
            reason: EndReason::Checkmate
        }
    );
    // Moebius: White's Camel b1 leaps over the twisted join to h14, and Black's Camel mates.
    let t = Table::new();
    t.start("ecumenical-moebius").await;
    let r = t.play("b1h14 Cc5 Cc14 Cf4").await;
    assert!(r[0].text.contains("Checkmate"), "{}", r[0].text);
    let rules_text = t.text(&t.bob, "rules ecumenical-moebius").await;
    assert!(rules_text.contains("Reconstructed"), "{rules_text}");
    assert!(rules_text.contains("Moebius"), "{rules_text}");
}

#[tokio::test]
async fn a_double_cross_game_by_hand() {
    // 32 plies on the Double Cross board (letters for files and ranks), ending in a Queen mate.
    let t = Table::new();
    t.start("dcb-balanced").await;
    let r = t
        .play(
            "cm cp fn dv dw cv Ncx Ncq Qcl Ncep Bdy Baw dxcv Bbx New Nds \
             Bex Nefr dn fp Kfl eu Rcez Baw Bdl Bcu Bgv fu Bek Qcq Bhw Qxfn",
        )
        .await;
    assert!(r[0].text.contains("Checkmate"), "{}", r[0].text);
    assert_eq!(
        t.status().await,
        GameStatus::Finished {
            result: GameResult::Win(1),
            reason: EndReason::Checkmate
        }
    );
    // A Pawn may not leave files c-f: the refusal says why.
    let t = Table::new();
    t.start("dcb-balanced").await;
    let e = t.text(&t.alice, "cl-bm").await;
    assert!(e.contains("cannot reach"), "{e}");
    let rules_text = t.text(&t.bob, "rules dcb-balanced").await;
    assert!(rules_text.contains("Reconstructed"), "{rules_text}");
}

#[tokio::test]
async fn help_variants_and_unknown_commands() {
    let t = Table::new();
    assert!(
        t.text(&t.alice, "help")
            .await
            .contains("challenge @user VARIANT")
    );
    assert!(t.text(&t.alice, "variants").await.contains("toulousain"));
    assert!(
        t.text(&t.alice, "chalenge")
            .await
            .contains("did you mean `challenge`")
    );
    assert!(
        t.text(&t.alice, "piece toulousain dragon")
            .await
            .contains("Gryphon")
    );
}
