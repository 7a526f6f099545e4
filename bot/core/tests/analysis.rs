//! `analyse` through the service on the in-memory store: a short finished game analysed in
//! the background, its progress and results in the outbox, the cache, and every refusal.

use std::{sync::Arc, time::Duration};

use bot_core::{
    Actor, GameService,
    analysis::{AnalysisConfig, AnalysisState},
    model::{EndReason, GameId, GameResult, GameStatus, GameUpdate, NewGame, Place, Platform},
    outbox::Claim,
    reply::{Audience, Reply},
    store::{GameStore, memory::MemoryStore},
};
use rules::Catalog;

mod common;
use common::*;

type Service = GameService<MemoryStore, TestClock>;

struct Table {
    svc: Arc<Service>,
    place: Place,
    alice: Actor,
    bob: Actor,
}

/// Analyses at a small budget, at normal priority (a test waits for them).
fn config() -> AnalysisConfig {
    AnalysisConfig {
        nodes: 4_000,
        threads: 1,
        nice: 0,
    }
}

impl Table {
    async fn new(analysis: bool) -> Table {
        let mut svc = GameService::new(
            MemoryStore::new(),
            TestClock::default(),
            Arc::new(Catalog::builtin()),
        );
        if analysis {
            svc = svc.with_analysis(config()).unwrap();
        }
        let svc = Arc::new(svc);
        svc.start_analyst();
        Table {
            svc,
            place: Place::room(Platform::Matrix, "!room:example.org"),
            alice: actor("alice"),
            bob: actor("bob"),
        }
    }

    async fn say(&self, who: &Actor, text: &str) -> Vec<Reply> {
        self.svc.handle_text(who, &self.place, text).await
    }

    /// Alice (White) and Bob play `moves` in chess.
    async fn game(&self, moves: &str) {
        self.say(&self.alice, "challenge @bob:example.org chess")
            .await;
        self.say(&self.bob, "accept").await;
        for (i, m) in moves.split_whitespace().enumerate() {
            let who = if i % 2 == 0 { &self.alice } else { &self.bob };
            let r = self.say(who, m).await;
            assert_eq!(r[0].audience, Audience::Room, "{m}: {}", r[0].text);
        }
    }

    /// A game of `variant` between `seats` from `start_state` with `moves` (as the store
    /// keeps them), finished by the first seat's win; its id.
    async fn finished(
        &self,
        variant: &str,
        start_state: String,
        seats: &[bot_core::model::PlayerId],
        moves: &[String],
    ) -> GameId {
        let store = self.svc.store();
        let g = store
            .create_game(NewGame {
                variant: variant.into(),
                options: String::new(),
                start_state,
                seats: seats.to_vec(),
                place: self.place.clone(),
                rating_family: None,
                clock: None,
                created_at: 0,
            })
            .await
            .unwrap();
        let mut version = g.version;
        for m in moves {
            version = store
                .append_move(g.id, version, m, &GameUpdate::active(), 0)
                .await
                .unwrap();
        }
        let ended = GameUpdate::ended(GameStatus::Finished {
            result: GameResult::Win(0),
            reason: EndReason::Resignation,
        });
        store.update_game(g.id, version, &ended, 0).await.unwrap();
        g.id
    }

    /// Waits for this process's analyses to end (a few seconds at most at the test budget).
    async fn settle(&self) {
        for _ in 0..6_000 {
            if self.svc.analyses_in_flight() == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the analysis did not end within a minute");
    }

    /// What the service said unasked (for the platform's sender), in order.
    async fn unasked(&self) -> Vec<Reply> {
        let claim = Claim {
            owner: "sender".into(),
            until_ms: i64::MAX,
        };
        self.svc
            .store()
            .claim_due(Platform::Matrix, &claim, i64::MAX / 2, 100)
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.envelope.reply)
            .collect()
    }
}

/// Fool's mate: White's 2.g4 allows mate in one. The analysis finds it as White's blunder
/// with a better move on a board, Black more accurate, a graph with one point per position;
/// the progress line is replaced by the "done" line; asking again shows the cache at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_finished_game_is_analysed_with_graph_mistakes_and_accuracy() {
    let t = Table::new(true).await;
    t.game("f3 e5 g4 Qh4#").await;
    let r = t.say(&t.alice, "analyse").await;
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].audience, Audience::Room);
    assert!(
        r[0].text
            .starts_with("Analysing game 1 at 4,000 nodes a position: [")
            && r[0].text.contains("0 of 5 positions"),
        "{}",
        r[0].text
    );
    let progress = r[0].key.clone().expect("posted to the outbox");
    t.settle().await;

    let said = t.unasked().await;
    // Progress lines (the test clock ticks a second a reading, so some are due), then the
    // last: done. Each replaces the command's progress line.
    let lines: Vec<&Reply> = said
        .iter()
        .filter(|r| r.replaces.as_ref() == Some(&progress))
        .collect();
    let (done, running) = lines.split_last().expect("the progress line is replaced");
    for r in running {
        assert!(
            r.text.starts_with("Analysing game 1 at 4,000"),
            "{}",
            r.text
        );
    }
    assert!(
        done.text.starts_with("Game 1 analysed: 5 positions"),
        "{}",
        done.text
    );
    let graph_reply = said.iter().find(|r| r.graph.is_some()).expect("a graph");
    let graph = graph_reply.graph.as_ref().unwrap();
    assert_eq!(graph.chances.len(), 5);
    // The start is about even: White's move counts for a little, in tenths of a percent.
    assert!(
        (480..=540).contains(&graph.chances[0]),
        "the start is about even: {:?}",
        graph.chances
    );
    assert_eq!(*graph.chances.last().unwrap(), 0, "White is mated");
    assert!(
        graph.captions[0].starts_with("alice (White) "),
        "{:?}",
        graph.captions
    );
    assert!(graph.captions[1].starts_with("bob (Black) "));
    assert!(
        graph_reply.text.contains("accuracy alice (White) "),
        "{}",
        graph_reply.text
    );
    let accuracy = |caption: &str| -> f32 {
        caption
            .rsplit(' ')
            .next()
            .unwrap()
            .trim_end_matches('%')
            .parse()
            .unwrap()
    };
    assert!(accuracy(&graph.captions[1]) > accuracy(&graph.captions[0]));
    let blunder = said
        .iter()
        .find(|r| r.text.contains("g4??"))
        .expect("g4 is White's blunder");
    assert!(
        blunder
            .text
            .starts_with("Game 1, alice (White): move 2. g4?? was a blunder"),
        "{}",
        blunder.text
    );
    assert!(blunder.text.contains("Better was "), "{}", blunder.text);
    let board = blunder.board.as_ref().expect("a board");
    assert!(board.last_move.is_some(), "the better move is marked");
    assert_eq!(board.viewer, Some(0));
    assert!(
        board.state.starts_with("rnbqkbnr/pppp1ppp/8/4p3/8/5P2/"),
        "{}",
        board.state
    );
    // Every picture draws.
    let renderer = render::Renderer::new();
    let png = bot_core::picture::graph_png(graph, &renderer, &render::Theme::light(), 800).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let svg = bot_core::picture::graph_svg(graph, &render::Theme::dark());
    assert!(svg.contains("Game 1 · chess · alice vs bob"), "{svg}");
    bot_core::picture::png(
        board,
        &Catalog::builtin(),
        &renderer,
        &render::Theme::light(),
        400,
    )
    .unwrap();

    // Cached: stored as done, and shown at once.
    let stored = t.svc.store().analysis(GameId(1)).await.unwrap().unwrap();
    assert!(matches!(stored.state, AnalysisState::Done(_)));
    let again = t.say(&t.bob, "analyse #1").await;
    assert!(
        again[0].text.starts_with("Game 1 was analysed already"),
        "{}",
        again[0].text
    );
    assert!(again.iter().any(|r| r.graph.as_ref() == Some(graph)));
    assert!(again.iter().any(|r| r.text.contains("g4??")));
    assert_eq!(t.svc.analyses_in_flight(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_analyse_says_where_the_running_one_stands() {
    let t = Table::new(true).await;
    t.game("e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#").await;
    // Hold the only analysis thread's queue behind a long analysis of the same game? No:
    // record a running analysis of another owner, as a second process would.
    let start = bot_core::analysis::AnalysisStart {
        game: GameId(1),
        plies: 7,
        total: 8,
        owner: "other-process".into(),
        request: bot_core::analysis::AnalysisRequest {
            place: t.place.clone(),
            asked_by: t.bob.id.clone(),
            progress: None,
        },
        now_ms: bot_core::Clock::now_ms(&TestClock::default()),
    };
    assert!(t.svc.store().begin_analysis(&start, 0).await.unwrap());
    t.svc
        .store()
        .analysis_progress(GameId(1), "other-process", 3, start.now_ms)
        .await
        .unwrap();
    let r = t.say(&t.alice, "analyse #1").await;
    assert_eq!(r[0].audience, Audience::Actor);
    assert!(
        r[0].text
            .starts_with("Game 1 is being analysed already: 3 of 8 positions searched (37%)"),
        "{}",
        r[0].text
    );
    assert_eq!(t.svc.analyses_in_flight(), 0, "nothing queued here");
}

/// A four-player game of random moves analysed through the service: a line per seat on
/// the graph, one point per position each, every seat's accuracy, mistakes named for their
/// movers with the game's own move numbers, and the pictures draw.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_four_player_game_is_analysed_for_every_seat() {
    let t = Table::new(true).await;
    let store = t.svc.store();
    let catalog = Catalog::builtin();
    let four = catalog.get("dcb-balanced-4p").unwrap();
    let mut pos = rules::Position::start(&four);
    let start = rules::fen::write(&pos);
    // Random moves: a searching engine finds some of them costly.
    let mut moves = Vec::new();
    let mut seed = 11u64;
    for _ in 0..16 {
        let legal = pos.legal_moves();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let m = legal[(seed >> 33) as usize % legal.len()];
        moves.push(rules::notation::coord(&pos, m));
        pos.play_unchecked(m);
    }
    let seats = ["alice", "bob", "carol", "dave"].map(|n| actor(n).id);
    let g = t.finished("dcb-balanced-4p", start, &seats, &moves).await;

    let r = t.say(&t.alice, &format!("analyse #{g}")).await;
    assert!(r[0].text.contains("0 of 17 positions"), "{}", r[0].text);
    t.settle().await;
    let said = t.unasked().await;
    let graph_reply = said.iter().find(|r| r.graph.is_some()).expect("a graph");
    let graph = graph_reply.graph.as_ref().unwrap();
    assert_eq!(graph.chances.len(), 17);
    assert_eq!(graph.others.len(), 3, "a line for each other seat");
    assert!(graph.others.iter().all(|l| l.len() == 17));
    for (caption, (who, army)) in graph.captions.iter().zip([
        ("alice", "(Red) "),
        ("bob", "(Blue) "),
        ("carol", "(Yellow) "),
        ("dave", "(Green) "),
    ]) {
        assert!(
            caption.contains(who) && caption.contains(army) && caption.ends_with('%'),
            "{caption}"
        );
    }
    assert!(
        graph_reply
            .text
            .contains("each player's chances against the table"),
        "{}",
        graph_reply.text
    );
    // Each mistake is its mover's, numbered as the game counts moves (four half-moves a
    // round), with the position before it drawn from the mover's side.
    let mistakes: Vec<&Reply> = said.iter().filter(|r| r.board.is_some()).collect();
    assert!(
        !mistakes.is_empty(),
        "random moves cost something: {said:?}"
    );
    for r in &mistakes {
        let board = r.board.as_ref().unwrap();
        let seat = board.viewer.unwrap();
        let name = ["alice", "bob", "carol", "dave"][usize::from(seat)];
        assert!(
            r.text.starts_with(&format!("Game {g}, ")) && r.text.contains(name),
            "{}",
            r.text
        );
        let number: u32 = r
            .text
            .split("move ")
            .nth(1)
            .unwrap()
            .split(['.', '…'])
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            (1..=4).contains(&number),
            "16 half-moves are 4 rounds: {}",
            r.text
        );
        let mark = graph
            .marks
            .iter()
            .find(|m| m.seat == seat)
            .expect("the mistake is marked on the graph");
        assert!(mark.position >= 1 && mark.position <= 16);
    }
    let renderer = render::Renderer::new();
    let png = bot_core::picture::graph_png(graph, &renderer, &render::Theme::light(), 800).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let stored = store.analysis(g).await.unwrap().unwrap();
    let AnalysisState::Done(done) = stored.state else {
        panic!("stored as done")
    };
    assert_eq!(done.seat_scores.len(), 4);
    // The game's own move numbers: a round of four half-moves.
    assert_eq!(&done.numbers[..6], [0, 1, 1, 1, 1, 2]);
    assert_eq!(graph.numbers, done.numbers);
    assert_eq!(
        done.seats.iter().map(|s| s.moves).collect::<Vec<_>>(),
        [4, 4, 4, 4]
    );
    assert!(done.seats.iter().all(|s| s.accuracy.is_some()));
}

/// A Looking-Glass game after its end: each order judged from what its player knew, a line
/// per player, the mistakes drawn on the player's own view of the moment (never the hidden
/// world), and the pictures draw.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_looking_glass_game_is_analysed_after_its_end_from_what_each_player_knew() {
    use rules::glass::{BackRank, Glass, GlassRules};
    let t = Table::new(true).await;
    let store = t.svc.store();
    // Two weak players (level 1: random orders now and then) give the analysis something
    // to find.
    let variant = rules::glass::variant();
    let mut g = Glass::with_variant(variant.clone(), GlassRules::default());
    let mut actions = vec![
        g.choose(rules::Side::WHITE, BackRank::orthodox())
            .unwrap()
            .action,
        g.choose(rules::Side::BLACK, BackRank::from_number(300).unwrap())
            .unwrap()
            .action,
    ];
    let level = engine::Level::new(1).unwrap();
    let mut players = [
        engine::glass::GlassPlayer::new(variant.clone(), level, 1),
        engine::glass::GlassPlayer::new(variant.clone(), level, 2),
    ];
    while actions.len() < 14 && g.is_over().is_none() {
        let side = g.turn();
        let k = engine::glass::Knowledge::for_side(
            side,
            g.view(side),
            g.told(side).to_vec(),
            g.rules(),
            g.setup(side).cloned(),
        )
        .unwrap();
        let choice = players[side.index()].choose(&k).unwrap();
        let report = choice
            .ranked
            .iter()
            .find_map(|o| g.clone().order(side, o).ok().map(|_| o.clone()))
            .map(|o| g.order(side, &o).unwrap())
            .unwrap();
        actions.push(report.action);
    }
    let seats = [t.alice.id.clone(), t.bob.id.clone()];
    let created = t
        .finished(rules::glass::NAME, String::new(), &seats, &actions)
        .await;

    let r = t.say(&t.alice, &format!("analyse #{created}")).await;
    assert!(
        r[0].text
            .contains("order by order, from what each player knew")
            && r[0]
                .text
                .contains(&format!("0 of {} positions", actions.len() + 1)),
        "{}",
        r[0].text
    );
    t.settle().await;
    let said = t.unasked().await;
    let graph_reply = said.iter().find(|r| r.graph.is_some()).expect("a graph");
    let graph = graph_reply.graph.as_ref().unwrap();
    assert_eq!(graph.chances.len(), actions.len() + 1);
    assert_eq!(graph.others.len(), 1, "a line for each player");
    assert!(
        graph_reply
            .text
            .contains("as he could judge them from what he knew"),
        "{}",
        graph_reply.text
    );
    let stored = store.analysis(created).await.unwrap().unwrap();
    let AnalysisState::Done(done) = stored.state else {
        panic!("stored as done")
    };
    let orders = actions.len() as u32 - 2;
    // The setups have no move number; White's first order is move 1.
    assert_eq!(&done.numbers[..4], [0, 0, 0, 1]);
    assert_eq!(graph.numbers, done.numbers);
    assert_eq!(
        done.seats.iter().map(|s| s.moves).sum::<u32>(),
        orders,
        "every order judged, the setups not"
    );
    assert!(done.seats.iter().all(|s| s.accuracy.is_some()));
    assert!(
        said.iter().any(|r| r.board.is_some()),
        "level 1's orders cost something"
    );
    for r in said.iter().filter(|r| r.board.is_some()) {
        let board = r.board.as_ref().unwrap();
        assert_eq!(board.engine, bot_core::rules_engine::EngineKind::Glass);
        let seat = board.viewer.unwrap();
        assert!(
            board
                .state
                .starts_with(&format!("view {} ", ["w", "b"][usize::from(seat)])),
            "the mover's own view, never the full state: {}",
            board.state
        );
        assert!(r.text.contains("from what he knew then"), "{}", r.text);
        bot_core::picture::png(
            board,
            &Catalog::builtin(),
            &render::Renderer::new(),
            &render::Theme::light(),
            400,
        )
        .unwrap();
    }
    let png = bot_core::picture::graph_png(
        graph,
        &render::Renderer::new(),
        &render::Theme::light(),
        800,
    )
    .unwrap();
    assert_eq!(&png[1..4], b"PNG");
}

#[tokio::test]
async fn refusals_say_what_to_do() {
    let t = Table::new(true).await;
    let first = |r: Vec<Reply>| r[0].text.clone();
    assert!(
        first(t.say(&t.alice, "analyse").await)
            .starts_with("There is no finished game here to analyse.")
    );
    assert_eq!(
        first(t.say(&t.alice, "analyse #99").await),
        "There is no game 99."
    );
    t.game("e4 e5").await;
    let r = first(t.say(&t.alice, "analyse #1").await);
    assert!(
        r.starts_with("Game 1 is still being played: analysis comes after the end"),
        "{r}"
    );
    assert!(
        first(t.say(&t.alice, "analyse #1 now").await).contains("analyse [#GAME]"),
        "a stray word gets the usage"
    );
    let store = t.svc.store();
    let finish = |status: GameStatus| GameUpdate::ended(status);

    // Aborted.
    let g = store.get_game(GameId(1)).await.unwrap();
    store
        .update_game(g.id, g.version, &finish(GameStatus::Aborted), 0)
        .await
        .unwrap();
    let r = first(t.say(&t.alice, "analyse #1").await);
    assert!(r.contains("was aborted"), "{r}");

    let resigned = GameStatus::Finished {
        result: GameResult::Win(1),
        reason: EndReason::Resignation,
    };
    let new = |variant: &str, state: String, seats: usize| NewGame {
        variant: variant.into(),
        options: String::new(),
        start_state: state,
        seats: (0..seats).map(|i| actor(&format!("p{i}")).id).collect(),
        place: t.place.clone(),
        rating_family: None,
        clock: None,
        created_at: 0,
    };
    let catalog = Catalog::builtin();
    // A huge game: 1,000 knight moves back and forth.
    let chess = catalog.get("chess").unwrap();
    let g = store
        .create_game(new(
            "chess",
            rules::fen::write(&rules::Position::start(&chess)),
            2,
        ))
        .await
        .unwrap();
    let mut version = g.version;
    for i in 0..1_000 {
        let m = ["g1f3", "g8f6", "f3g1", "f6g8"][i % 4];
        version = store
            .append_move(g.id, version, m, &GameUpdate::active(), 0)
            .await
            .unwrap();
    }
    store
        .update_game(g.id, version, &finish(resigned.clone()), 0)
        .await
        .unwrap();
    let r = first(t.say(&t.alice, &format!("analyse #{}", g.id)).await);
    assert!(
        r.contains("is too long to analyse: 1001 positions, and an analysis takes at most 1000"),
        "{r}"
    );

    // Looking-Glass before its end (after it, see the test below).
    let g = store
        .create_game(new(rules::glass::NAME, String::new(), 2))
        .await
        .unwrap();
    let r = first(t.say(&t.alice, &format!("analyse #{}", g.id)).await);
    assert!(
        r.contains("Looking-Glass game still being played: no analysis before its end"),
        "{r}"
    );
    assert_eq!(t.svc.analyses_in_flight(), 0);
    assert!(t.unasked().await.iter().all(|r| r.graph.is_none()));
}

#[tokio::test]
async fn without_analysis_configured_the_command_says_it_is_off() {
    let t = Table::new(false).await;
    t.game("f3 e5 g4 Qh4#").await;
    let r = t.say(&t.alice, "analyse").await;
    assert!(
        r[0].text
            .starts_with("Post-game analysis is off on this bot."),
        "{}",
        r[0].text
    );
}
