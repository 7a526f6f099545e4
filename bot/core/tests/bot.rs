//! Games against the bot through the service on the in-memory store: whole games to the end,
//! every bot move legal and stored before it is announced, stale results dropped, a restart
//! resuming the bot's turn, and the refusals a player can meet.

use std::{sync::Arc, time::Duration};

use bot_core::{
    Actor, GameService,
    command::{ColourChoice, Command},
    model::{
        GameId, GameRecord, GameResult, GameStatus, NewChallenge, NewGame, Place, Platform,
        PlayerId,
    },
    opponent::BotConfig,
    outbox::{Announcement, Announcements},
    store::{GameFilter, GameStore, memory::MemoryStore},
};
use rules::{Catalog, Side, notation};

mod common;
use common::*;

type Svc = GameService<MemoryStore, TestClock>;

fn place() -> Place {
    Place::room(Platform::Matrix, "!room:example.org")
}

/// A started service with the bot at a small node limit (repeatable), and its announcements.
async fn service(store: MemoryStore, nodes: u64) -> (Arc<Svc>, Announcements) {
    let svc = GameService::new(store, TestClock::default(), Arc::new(Catalog::builtin()))
        .with_chance(bot_core::SeededChance::new(7))
        // The tests read a command's replies without reporting them delivered, as an adapter
        // would; their clock runs a second a reading, so a claim outlasting any test keeps
        // them from coming back as announcements.
        .with_lease(Duration::from_secs(u64::from(u32::MAX)))
        .with_bot(BotConfig::repeatable(nodes, 11))
        .unwrap();
    let svc = Arc::new(svc);
    let announcements = Announcements::new(svc.clone(), &[]);
    svc.set_bot_user(bot_id(), "fairybot");
    (svc, announcements)
}

fn bot_id() -> PlayerId {
    PlayerId::new(Platform::Matrix, "@fairybot:example.org")
}

/// A chess game against the bot (level 3, Alice white) from a position of the test's choice.
async fn game_from(svc: &Svc, fen: &str) -> GameId {
    game_at_level(svc, fen, 3).await
}

/// A chess game against the bot at `level` (Alice white) from a position.
async fn game_at_level(svc: &Svc, fen: &str, level: u8) -> GameId {
    let (alice, bot) = (actor("alice").id, bot_id());
    let store = svc.store();
    let c = store
        .create_challenge(NewChallenge {
            challenger: alice.clone(),
            challenged: Some(bot.clone()),
            more_invited: Vec::new(),
            variant: "chess".into(),
            options: format!("colour=first level={level}"),
            place: place(),
            created_at: 0,
        })
        .await
        .unwrap();
    let (_, g) = store
        .accept_challenge(
            c.id,
            &bot,
            NewGame {
                variant: "chess".into(),
                options: c.options.clone(),
                start_state: fen.into(),
                seats: vec![alice, bot.clone()],
                place: place(),
                rating_family: None,
                clock: None,
                created_at: 0,
            },
        )
        .await
        .unwrap();
    g.id
}

async fn next(announcements: &mut Announcements) -> Announcement {
    tokio::time::timeout(Duration::from_secs(60), announcements.next())
        .await
        .expect("the bot answers within a minute")
        .expect("the outbox is open")
}

async fn only_game(svc: &Svc) -> GameRecord {
    let games = svc
        .store()
        .list_games(&GameFilter::default())
        .await
        .unwrap();
    assert_eq!(games.len(), 1);
    games[0].clone()
}

/// Every stored move is legal where it was played; the position at the end.
fn replay_checked(svc: &Svc, record: &GameRecord) -> rules::Position {
    let v = svc.catalog().get(&record.variant).unwrap();
    let mut pos = rules::fen::position(&v, &record.start_state).unwrap();
    for m in &record.moves {
        let mv = notation::parse_coord(&pos, m).unwrap();
        assert!(pos.legal_moves().contains(&mv), "{m} is not legal");
        pos.play_unchecked(mv);
    }
    pos
}

async fn say(svc: &Svc, who: &Actor, text: &str) -> String {
    let r = svc.handle_text(who, &place(), text).await;
    assert!(!r.is_empty(), "no reply to {text:?}");
    r[0].text.clone()
}

#[tokio::test]
async fn a_whole_game_against_the_bot_every_move_legal_and_stored_before_it_is_announced() {
    let (svc, mut announcements) = service(MemoryStore::new(), 2_000).await;
    svc.start_bot().await.unwrap();
    let alice = actor("alice");
    let text = say(&svc, &alice, "play chess level 1 white").await;
    assert!(text.contains("against the bot at level 1"), "{text}");
    let mut rng = Lcg(5);
    let mut bot_moves = 0;
    for _ in 0..600 {
        let record = only_game(&svc).await;
        if !record.status.is_active() {
            break;
        }
        // Alice: a capture when there is one (so the game ends), else any legal move.
        let pos = replay_checked(&svc, &record);
        let legal = pos.legal_moves();
        let captures: Vec<_> = legal
            .iter()
            .filter(|m| pos.piece_at(m.to).is_some())
            .collect();
        let mv = match captures.as_slice() {
            [] => legal[rng.below(legal.len())],
            some => *some[rng.below(some.len())],
        };
        let r = svc
            .handle(
                &alice,
                &place(),
                Command::Move {
                    game: None,
                    text: notation::coord(&pos, mv),
                },
            )
            .await;
        assert!(r[0].text.contains("plays"), "{:?}", r[0].text);
        let after = only_game(&svc).await;
        if !after.status.is_active() {
            break;
        }
        // The bot's answer: announced only once stored, with the stored position's board.
        let a = next(&mut announcements).await;
        assert_eq!(a.place, place());
        let stored = only_game(&svc).await;
        assert_eq!(stored.moves.len(), after.moves.len() + 1, "stored first");
        let board = a.replies[0].board.as_ref().expect("a board");
        let pos = replay_checked(&svc, &stored);
        assert_eq!(board.state, rules::fen::write(&pos));
        assert!(
            a.replies[0].text.contains("{0} plays"),
            "{}",
            a.replies[0].text
        );
        assert_eq!(a.replies[0].mentions[0], bot_id());
        assert_eq!(
            board.players,
            vec!["alice".to_string(), "fairybot".to_string()]
        );
        bot_moves += 1;
    }
    let end = only_game(&svc).await;
    assert!(
        matches!(end.status, GameStatus::Finished { .. }),
        "the game ends: {:?} after {} moves",
        end.status,
        end.moves.len()
    );
    assert!(bot_moves > 5, "the bot played {bot_moves} moves");
    replay_checked(&svc, &end);
    assert_eq!(svc.bot_results_dropped(), 0);
}

#[tokio::test]
async fn a_result_is_dropped_when_the_player_resigns_while_the_bot_thinks() {
    // Level 5 with a large node budget: the search runs long enough to resign during it.
    let (svc, mut announcements) = service(MemoryStore::new(), 3_000_000).await;
    svc.start_bot().await.unwrap();
    let alice = actor("alice");
    say(&svc, &alice, "play chess level 5 white").await;
    say(&svc, &alice, "e4").await;
    // About 3 s of search on an idle core, more on a busy machine (the tests' searches run
    // at the normal priority, `BotConfig::repeatable`): the deadline only catches a search
    // that never ends.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while svc.bot_searches_running() == 0 {
        assert!(tokio::time::Instant::now() < deadline, "the search starts");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let text = say(&svc, &alice, "resign").await;
    assert!(text.contains("resigns"), "{text}");
    while svc.bot_turns_in_flight() > 0 {
        assert!(tokio::time::Instant::now() < deadline, "the search ends");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(svc.bot_results_dropped(), 1);
    let g = only_game(&svc).await;
    assert_eq!(
        g.moves,
        vec!["e2e4".to_string()],
        "the bot's move was never stored"
    );
    assert!(matches!(
        g.status,
        GameStatus::Finished {
            result: GameResult::Win(1),
            ..
        }
    ));
    assert!(
        announcements.try_next().await.is_none(),
        "nothing announced"
    );
}

#[tokio::test]
async fn a_restart_resumes_a_game_where_the_bot_is_to_move() {
    let store = MemoryStore::new();
    let alice = actor("alice");
    {
        // Not started: the bot's first move is never searched (as if the process stopped).
        let (svc, mut announcements) = service(store.clone(), 2_000).await;
        let text = say(&svc, &alice, "play toulousain vs bot black level 2").await;
        assert!(text.contains("starts"), "{text}");
        // Meanwhile a move from the player is refused: it is the bot's.
        let text = say(&svc, &alice, "e4").await;
        assert!(
            text.contains("It is the bot's move in game 1; it is thinking"),
            "{text}"
        );
        assert!(announcements.try_next().await.is_none());
        assert!(only_game(&svc).await.moves.is_empty());
    }
    let (svc, mut announcements) = service(store, 2_000).await;
    assert_eq!(svc.start_bot().await.unwrap(), 1, "one game queued");
    let a = next(&mut announcements).await;
    assert!(a.replies[0].text.contains("plays"), "{}", a.replies[0].text);
    let g = only_game(&svc).await;
    assert_eq!(g.moves.len(), 1);
    replay_checked(&svc, &g);
    // And the game goes on: the player's move is answered.
    let pos = replay_checked(&svc, &g);
    let mv = notation::coord(&pos, pos.legal_moves()[0]);
    let text = say(&svc, &alice, &format!("move {mv}")).await;
    assert!(text.contains("plays"), "{text}");
    next(&mut announcements).await;
    assert_eq!(only_game(&svc).await.moves.len(), 3);
}

/// A legal move for the player to move that is not a resignation (in a four-player game
/// the engine lists resigning among the moves it can parse, never among the legal ones, but
/// be explicit), drawn with `rng`.
fn some_move(pos: &rules::Position, rng: &mut Lcg) -> String {
    let legal: Vec<_> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.kind != rules::MoveKind::Resign)
        .collect();
    notation::coord(pos, legal[rng.below(legal.len())])
}

/// The bot's three seats answer one move of the person's (Red), in seat order: each move
/// announced once stored, by the seat whose turn it was, every stored move legal.
async fn three_bot_answers(svc: &Svc, announcements: &mut Announcements, before: usize) {
    for (i, colour) in ["Blue", "Yellow", "Green"].into_iter().enumerate() {
        let a = next(announcements).await;
        let text = &a.replies[0].text;
        assert!(text.contains(&format!("{{0}} ({colour}) plays")), "{text}");
        assert_eq!(a.replies[0].mentions[0], bot_id());
        // Stored before it is announced (the next seat may have moved since: the bot's
        // seats do not wait for the test).
        let mut stored = only_game(svc).await;
        assert!(stored.moves.len() > before + i, "stored first");
        stored.moves.truncate(before + i + 1);
        let pos = replay_checked(svc, &stored);
        let board = a.replies[0].board.as_ref().expect("a board");
        assert_eq!(
            board.state,
            rules::fen::write(&pos),
            "the board after this move"
        );
    }
}

#[tokio::test]
async fn four_players_against_the_bot_its_three_seats_answer_each_move_in_turn() {
    let (svc, mut announcements) = service(MemoryStore::new(), 2_000).await;
    svc.start_bot().await.unwrap();
    let alice = actor("alice");
    let text = say(&svc, &alice, "play dcb-balanced-4p vs bot level 1").await;
    assert!(text.contains("starts"), "{text}");
    assert!(text.contains("against the bot at level 1"), "{text}");
    let g = only_game(&svc).await;
    // The person first (Red), the bot at every other seat; a restart reads the seat back.
    assert_eq!(
        g.seats,
        vec![alice.id.clone(), bot_id(), bot_id(), bot_id()]
    );
    assert_eq!(g.options, "colour=first rated=no level=1 seat=0");
    let mut rng = Lcg(3);
    for round in 0..4 {
        let record = only_game(&svc).await;
        assert!(record.status.is_active(), "{:?}", record.status);
        assert_eq!(record.moves.len(), round * 4, "whole rounds, no pass");
        let pos = replay_checked(&svc, &record);
        assert_eq!(pos.turn(), Side(0), "Red, the person, to move");
        let mv = some_move(&pos, &mut rng);
        let text = say(&svc, &alice, &format!("move {mv}")).await;
        assert!(text.contains("(Red) plays"), "{text}");
        three_bot_answers(&svc, &mut announcements, round * 4 + 1).await;
    }
    // The bot's seats never move for the person, nor out of turn.
    let end = only_game(&svc).await;
    assert_eq!(end.moves.len(), 16);
    assert_eq!(replay_checked(&svc, &end).turn(), Side(0));
    assert_eq!(svc.bot_results_dropped(), 0);
    // Draws and takebacks are refused with what to do instead.
    let text = say(&svc, &alice, "draw").await;
    assert!(text.contains("declines draws"), "{text}");
    let text = say(&svc, &alice, "takeback").await;
    assert!(text.contains("no takebacks against the bot"), "{text}");
    assert!(only_game(&svc).await.status.is_active());
}

#[tokio::test]
async fn a_restart_resumes_the_bots_seats_in_a_four_player_game() {
    let store = MemoryStore::new();
    let alice = actor("alice");
    let first_move;
    {
        // Not started: the person moves, and the bot's three answers are never searched.
        let (svc, mut announcements) = service(store.clone(), 2_000).await;
        let text = say(&svc, &alice, "play dcb-balanced-4p vs bot level 1").await;
        assert!(text.contains("starts"), "{text}");
        let pos = replay_checked(&svc, &only_game(&svc).await);
        first_move = some_move(&pos, &mut Lcg(9));
        let text = say(&svc, &alice, &format!("move {first_move}")).await;
        assert!(text.contains("(Red) plays"), "{text}");
        // Meanwhile the person may not move for Blue, the bot's seat.
        let text = say(&svc, &alice, "moves").await;
        assert!(!text.is_empty());
        let pos = replay_checked(&svc, &only_game(&svc).await);
        let blue = some_move(&pos, &mut Lcg(9));
        let text = say(&svc, &alice, &format!("move {blue}")).await;
        assert!(text.contains("It is the bot's move"), "{text}");
        assert!(announcements.try_next().await.is_none());
        assert_eq!(only_game(&svc).await.moves.len(), 1);
    }
    let (svc, mut announcements) = service(store, 2_000).await;
    assert_eq!(svc.start_bot().await.unwrap(), 1, "one game queued");
    three_bot_answers(&svc, &mut announcements, 1).await;
    let g = only_game(&svc).await;
    assert_eq!(g.moves[0], first_move);
    assert_eq!(
        replay_checked(&svc, &g).turn(),
        Side(0),
        "Red to move again"
    );
    // Not queued again: nothing is left for the bot to do.
    assert_eq!(svc.start_bot().await.unwrap(), 0);
}

#[tokio::test]
async fn the_persons_resignation_ends_a_four_player_game_against_the_bot() {
    let (svc, mut announcements) = service(MemoryStore::new(), 2_000).await;
    svc.start_bot().await.unwrap();
    let alice = actor("alice");
    // Seated Blue (`second`): the bot's Red moves first.
    let text = say(&svc, &alice, "play dcb-balanced-4p vs bot second level 1").await;
    assert!(text.contains("starts"), "{text}");
    let g = only_game(&svc).await;
    assert_eq!(
        g.seats,
        vec![bot_id(), alice.id.clone(), bot_id(), bot_id()]
    );
    let a = next(&mut announcements).await;
    assert!(
        a.replies[0].text.contains("(Red) plays"),
        "{}",
        a.replies[0].text
    );
    let pos = replay_checked(&svc, &only_game(&svc).await);
    let text = say(
        &svc,
        &alice,
        &format!("move {}", some_move(&pos, &mut Lcg(1))),
    )
    .await;
    assert!(text.contains("(Blue) plays"), "{text}");
    // Yellow's and Green's answers, then Red's: Alice resigns on her turn.
    for colour in ["Yellow", "Green", "Red"] {
        let a = next(&mut announcements).await;
        let text = &a.replies[0].text;
        assert!(text.contains(&format!("({colour}) plays")), "{text}");
    }
    let text = say(&svc, &alice, "resign").await;
    assert!(text.contains("(Blue) resigns and is out"), "{text}");
    assert!(
        text.contains("the bot holds every seat still in, so the game ends"),
        "{text}"
    );
    let g = only_game(&svc).await;
    assert_eq!(
        g.status,
        GameStatus::Finished {
            result: GameResult::Win(0),
            reason: bot_core::model::EndReason::Resignation
        },
        "won by the bot's first seat still in"
    );
    // Red, Blue, Yellow, Green, Red, and Blue's resignation.
    assert_eq!(g.moves.len(), 6);
    assert_eq!(g.moves[5], "resign:blue");
    replay_resigned(&svc, &g);
    // The bot does not play on among itself: its turn (woken by Red's move) ends with
    // nothing more stored or announced.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while svc.bot_turns_in_flight() > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the bot's turn ends"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(only_game(&svc).await.moves.len(), 6);
    assert!(
        announcements.try_next().await.is_none(),
        "nothing more announced"
    );
    let text = say(&svc, &alice, "resign").await;
    assert!(text.contains("You have no game here"), "{text}");
}

#[tokio::test]
async fn a_seat_named_by_its_colour_and_the_bots_seats_before_it_move_first() {
    let (svc, mut announcements) = service(MemoryStore::new(), 2_000).await;
    svc.start_bot().await.unwrap();
    let alice = actor("alice");
    let text = say(&svc, &alice, "play dcb-kamil-4p vs bot green level 1").await;
    assert!(text.contains("starts"), "{text}");
    let g = only_game(&svc).await;
    assert_eq!(
        g.seats,
        vec![bot_id(), bot_id(), bot_id(), alice.id.clone()]
    );
    assert!(g.options.ends_with("seat=3"), "{}", g.options);
    for colour in ["Red", "Blue", "Yellow"] {
        let a = next(&mut announcements).await;
        let text = &a.replies[0].text;
        assert!(text.contains(&format!("{{0}} ({colour}) plays")), "{text}");
    }
    let g = only_game(&svc).await;
    assert_eq!(g.moves.len(), 3);
    assert_eq!(
        replay_checked(&svc, &g).turn(),
        Side(3),
        "Green, Alice, to move"
    );
}

/// Every stored move of a game that ends with a resignation replays (the resignation is no
/// legal board move, so it is parsed and played, not looked up).
fn replay_resigned(svc: &Svc, record: &GameRecord) {
    let v = svc.catalog().get(&record.variant).unwrap();
    let mut pos = rules::fen::position(&v, &record.start_state).unwrap();
    for m in &record.moves {
        let mv = notation::parse_coord(&pos, m).unwrap();
        pos.play_unchecked(mv);
    }
    assert!(pos.is_out(Side(1)));
    assert_eq!(pos.remaining().len(), 3);
}

#[tokio::test]
async fn bad_requests_to_play_the_bot_say_what_to_do() {
    let (svc, _announcements) = service(MemoryStore::new(), 2_000).await;
    svc.start_bot().await.unwrap();
    let alice = actor("alice");
    for (typed, says) in [
        (
            "play chess level 9",
            "`9` is not a level: choose 1 (beginner) to 5",
        ),
        ("play chess level x", "`x` is not a level"),
        ("play looking-glass vs bot position 5", "Drop `position 5`"),
        (
            "play dcb-balanced-4p vs bot position 5",
            "Drop `position 5`",
        ),
        ("play toulousain vs bot position 5", "Drop `position 5`"),
        (
            "play chess vs bot green",
            "a seat colour like `green` is for the four-player",
        ),
        ("play chesss vs bot", "Did you mean `chess`"),
    ] {
        let text = say(&svc, &alice, typed).await;
        assert!(text.contains(says), "{typed}: {text}");
    }
    // Discord sends the level as a number: the service checks it too.
    let r = svc
        .handle(
            &alice,
            &place(),
            Command::PlayBot {
                variant: "chess".into(),
                level: Some(0),
                colour: ColourChoice::Random,
                position: None,
                seat: None,
            },
        )
        .await;
    assert!(
        r[0].text.contains("level 0 does not exist"),
        "{}",
        r[0].text
    );
    assert!(
        svc.store()
            .list_games(&GameFilter::default())
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn challenging_the_bots_user_plays_it_and_takebacks_and_draws_are_answered_at_once() {
    let (svc, mut announcements) = service(MemoryStore::new(), 2_000).await;
    svc.start_bot().await.unwrap();
    let alice = actor("alice");
    let text = say(&svc, &alice, "challenge @fairybot:example.org chess white").await;
    assert!(text.contains("against the bot at level 3"), "{text}");
    let g = only_game(&svc).await;
    assert!(g.options.contains("level=3"), "{}", g.options);
    say(&svc, &alice, "e4").await;
    next(&mut announcements).await;
    assert_eq!(only_game(&svc).await.moves.len(), 2);
    // A takeback: the bot's reply and the player's move.
    let text = say(&svc, &alice, "takeback").await;
    assert!(text.contains("2 moves taken back"), "{text}");
    assert!(only_game(&svc).await.moves.is_empty());
    // Resigning ends it as against a person.
    let text = say(&svc, &alice, "resign").await;
    assert!(text.contains("resigns"), "{text}");
}

#[tokio::test]
async fn the_bot_accepts_a_draw_only_where_it_judges_the_game_drawn() {
    let (svc, _announcements) = service(MemoryStore::new(), 2_000).await;
    let alice = actor("alice");
    // Alice has a Rook more: the bot, far behind... still declines, the position is won.
    let won = game_from(&svc, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1").await;
    let text = say(&svc, &alice, &format!("draw #{won}")).await;
    assert!(text.contains("declines"), "{text}");
    let g = svc.store().get_game(won).await.unwrap();
    assert!(g.status.is_active() && g.pending_offer.is_none());
    // Locked pawns and bare Kings: drawn, and accepted.
    let locked = game_from(&svc, "4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1").await;
    let text = say(&svc, &alice, &format!("draw #{locked}")).await;
    assert!(text.contains("the bot accepts"), "{text}");
    assert!(matches!(
        svc.store().get_game(locked).await.unwrap().status,
        GameStatus::Finished {
            result: GameResult::Draw,
            ..
        }
    ));
}

#[tokio::test]
async fn at_level_five_the_bot_resigns_when_it_finds_itself_mated_and_not_before() {
    let (svc, mut announcements) = service(MemoryStore::new(), 20_000).await;
    // Black (the bot) to move: whatever it plays (Kb8, g6, g5), Rh8 mates.
    let mated = "k7/6p1/1K6/8/8/8/8/7R b - - 0 1";
    let lost = game_at_level(&svc, mated, 5).await;
    // The same at level 4: it plays on (only level 5 resigns).
    let played = game_at_level(&svc, mated, 4).await;
    assert_eq!(
        svc.start_bot().await.unwrap(),
        2,
        "both games queued at start"
    );
    let mut texts = Vec::new();
    for _ in 0..2 {
        let a = next(&mut announcements).await;
        texts.push(a.replies[0].text.clone());
    }
    assert!(
        texts
            .iter()
            .any(|t| t.contains(&format!("Game {lost}: {{0}} resigns"))),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains(&format!("Game {played}: {{0}} plays"))),
        "{texts:?}"
    );
    let g = svc.store().get_game(lost).await.unwrap();
    assert!(
        matches!(
            g.status,
            GameStatus::Finished {
                result: GameResult::Win(0),
                reason: bot_core::model::EndReason::Resignation,
            }
        ),
        "{:?}",
        g.status
    );
    assert!(g.moves.is_empty());
}

// ----- Through the Looking-Glass against the bot ------------------------------------------

fn dm() -> Place {
    Place::direct(Platform::Matrix, "!alice-dm:example.org")
}

/// The referee's state of the stored game (the test sees everything; the bot does not).
fn glass_of(record: &GameRecord) -> rules::glass::Glass {
    let rules =
        bot_core::rules_engine::GameKind::glass(&record.variant).expect("a Looking-Glass game");
    rules::glass::Glass::replay(rules::glass::variant(), rules, &record.moves).unwrap()
}

/// Checks one announcement of a Looking-Glass game against the bot: nothing private goes
/// to the bot's user, the room never names a square before the reveal, and every private
/// reply goes to Alice.
fn check_glass_announcement(a: &Announcement) {
    use bot_core::reply::Audience;
    for r in &a.replies {
        match &r.audience {
            Audience::Private(p) => {
                assert_ne!(p, &bot_id(), "a private reply to the bot: {}", r.text);
                assert_eq!(p, &actor("alice").id, "{}", r.text);
            }
            _ => {
                if !r.text.contains("both worlds revealed") {
                    assert!(
                        !rules::glass::names_a_square(&r.text),
                        "the room is told a square: {}",
                        r.text
                    );
                    assert!(r.board.as_ref().is_none_or(|b| b.viewer.is_none()));
                }
            }
        }
    }
}

/// Alice's order: a capture on her world if there is one, else a move there, sometimes an
/// order for her pieces on the other world (from the referee's list: a legal one), and
/// under "no strikes" a move for the bot's army when she chooses it.
fn alice_order(game: &rules::glass::Glass, alice: Side, rng: &mut Lcg) -> String {
    let army = if game.is_forced() {
        rules::glass::other(alice)
    } else {
        alice
    };
    let mine = rules::glass::world_of(alice);
    let mut moves = game.moves_on(army, mine);
    if moves.is_empty() || rng.below(4) == 0 {
        let blind = game.moves_on(army, 1 - mine);
        if !blind.is_empty() {
            moves = blind;
        }
    }
    let v = game.variant();
    let captures: Vec<&String> = moves
        .iter()
        .filter(|m| {
            rules::glass::Order::parse(&v.geometry, mine, m).is_ok_and(|o| match o {
                rules::glass::Order::Move { to, .. } => game.piece_at(to).is_some(),
                rules::glass::Order::Castle { .. } => false,
            })
        })
        .collect();
    if !captures.is_empty() && !game.is_forced() {
        return captures[rng.below(captures.len())].clone();
    }
    moves[rng.below(moves.len())].clone()
}

/// Plays Alice's side from the DM until the game ends or `limit` of her orders; the bot's
/// turns are awaited through the outbox, each announcement checked.
async fn play_glass_against_the_bot(
    svc: &Svc,
    announcements: &mut Announcements,
    seed: u64,
    limit: usize,
    moved_for_her: &mut bool,
) -> GameRecord {
    let alice = actor("alice");
    let mut rng = Lcg(seed);
    let mut orders = 0;
    loop {
        let record = only_game(svc).await;
        if !record.status.is_active() {
            return record;
        }
        let seat = record.seat_of(&alice.id).unwrap();
        let side = Side(seat);
        let game = glass_of(&record);
        let hers = match game.phase() {
            rules::glass::Phase::Setup(chosen) => !chosen[side.index()],
            rules::glass::Phase::Play => game.turn() == side,
            rules::glass::Phase::Over(_) => false,
        };
        if !hers {
            let a = next(announcements).await;
            check_glass_announcement(&a);
            *moved_for_her |= a.replies.iter().any(|r| r.text.contains("has moved for"));
            continue;
        }
        if game.phase() != rules::glass::Phase::Play {
            let r = svc.handle_text(&alice, &dm(), "setup random").await;
            assert!(r[0].text.contains("Your back rank is"), "{}", r[0].text);
            continue;
        }
        if orders == limit {
            say(svc, &alice, "resign").await;
            return only_game(svc).await;
        }
        let order = if game.rules().no_strikes && !game.is_forced() && rng.below(5) == 0 {
            // An impossible blind order (no piece of hers on that square): under "no
            // strikes" the bot then chooses her army's move.
            let other_world = 1 - rules::glass::world_of(side);
            let g = &game.variant().geometry;
            let empty = g
                .cells()
                .find(|c| {
                    g.info(*c).board == other_world
                        && game.piece_at(*c).is_none_or(|p| p.side != side)
                        && g.info(*c).rank < 7
                })
                .unwrap();
            let to = g
                .at(
                    other_world,
                    g.info(empty).file as i32,
                    g.info(empty).rank as i32 + 1,
                )
                .unwrap();
            format!("{}{}", g.name(empty), &g.name(to)[2..])
        } else {
            alice_order(&game, side, &mut rng)
        };
        let r = svc.handle_text(&alice, &dm(), &order).await;
        assert!(!r.is_empty());
        for reply in &r {
            if let bot_core::reply::Audience::Private(p) = &reply.audience {
                assert_eq!(p, &alice.id, "{}", reply.text);
            }
        }
        orders += 1;
    }
}

#[tokio::test]
async fn looking_glass_against_the_bot_from_start_to_end_in_both_forms() {
    for (variant, colour, seed) in [
        ("looking-glass", "white", 3),
        ("looking-glass", "black", 4),
        ("looking-glass-no-strikes", "white", 5),
        ("looking-glass-no-strikes", "black", 6),
    ] {
        let (svc, mut announcements) = service(MemoryStore::new(), 2_000).await;
        svc.start_bot().await.unwrap();
        let alice = actor("alice");
        let text = say(
            &svc,
            &alice,
            &format!("play {variant} vs bot {colour} level 2"),
        )
        .await;
        assert!(text.contains("starts"), "{text}");
        let mut moved_for_her = false;
        let record =
            play_glass_against_the_bot(&svc, &mut announcements, seed, 60, &mut moved_for_her)
                .await;
        // Under "no strikes" her impossible orders made the bot choose her army's move.
        assert_eq!(
            moved_for_her,
            variant.ends_with("no-strikes"),
            "{variant}: {:?}",
            record.moves
        );
        // Everything stored replays; the bot acted (its setup and orders are in the record).
        let game = glass_of(&record);
        let bot_side = Side(record.seat_of(&bot_id()).unwrap());
        let letter = if bot_side == Side::WHITE { "w " } else { "b " };
        let bot_actions = record
            .moves
            .iter()
            .filter(|m| m.starts_with(letter))
            .count();
        assert!(bot_actions >= 5, "{variant}: {:?}", record.moves);
        assert!(game.setup(bot_side).is_some());
        assert!(!record.status.is_active());
        // The end is announced with the reveal, once the game is over.
        while let Ok(Some(a)) =
            tokio::time::timeout(Duration::from_millis(200), announcements.next()).await
        {
            check_glass_announcement(&a);
        }
        assert_eq!(svc.bot_turns_in_flight(), 0);
    }
}

#[tokio::test]
async fn a_restart_resumes_the_bots_back_rank_and_its_order() {
    let store = MemoryStore::new();
    let alice = actor("alice");
    {
        // Not started: the bot (White) never chooses its back rank, as if the process stopped.
        let (svc, mut announcements) = service(store.clone(), 2_000).await;
        let text = say(&svc, &alice, "play looking-glass vs bot black level 1").await;
        assert!(text.contains("starts"), "{text}");
        let r = svc.handle_text(&alice, &dm(), "setup 518").await;
        assert!(
            r[0].text.contains("Your back rank is RNBQKBNR"),
            "{}",
            r[0].text
        );
        assert!(announcements.try_next().await.is_none());
        assert_eq!(
            only_game(&svc).await.moves,
            vec!["b setup RNBQKBNR".to_string()]
        );
    }
    let (svc, mut announcements) = service(store, 2_000).await;
    assert_eq!(svc.start_bot().await.unwrap(), 1, "one game queued");
    // Its back rank (the game starts), then its first order, each announced.
    let a = next(&mut announcements).await;
    check_glass_announcement(&a);
    assert!(
        a.replies[0].text.contains("White has chosen a back rank"),
        "{}",
        a.replies[0].text
    );
    let a = next(&mut announcements).await;
    check_glass_announcement(&a);
    assert!(
        a.replies[0].text.contains("White has moved"),
        "{}",
        a.replies[0].text
    );
    // Alice is told privately what she sees of it, with her board.
    assert!(a.replies.iter().any(|r| matches!(&r.audience,
        bot_core::reply::Audience::Private(p) if *p == alice.id)
        && r.board.is_some()));
    let record = only_game(&svc).await;
    assert_eq!(record.moves.len(), 3, "{:?}", record.moves);
    assert!(record.moves[2].starts_with("w "));
    // A draw offer is declined at once; the game goes on.
    let text = say(&svc, &alice, "draw").await;
    assert!(text.contains("declines draws"), "{text}");
    assert!(only_game(&svc).await.status.is_active());
}

/// Resuming a game in play: the bot's order waits for a restart where it is to move.
#[tokio::test]
async fn a_restart_resumes_the_bots_order_in_play() {
    let store = MemoryStore::new();
    let alice = actor("alice");
    {
        let (svc, mut announcements) = service(store.clone(), 2_000).await;
        svc.start_bot().await.unwrap();
        say(&svc, &alice, "play looking-glass vs bot white level 1").await;
        let a = next(&mut announcements).await; // the bot's back rank
        check_glass_announcement(&a);
        svc.handle_text(&alice, &dm(), "setup 518").await;
        let game = glass_of(&only_game(&svc).await);
        assert_eq!(game.turn(), Side::WHITE);
        // The turn woken by Alice's setup ends (it finds nothing to do) before the "restart":
        // a real restart ends the process's tasks with it.
        while svc.bot_turns_in_flight() > 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    {
        // A service that is not started takes Alice's order but never answers it.
        let (svc, _announcements) = service(store.clone(), 2_000).await;
        let r = svc.handle_text(&alice, &dm(), "e2e4").await;
        assert!(!r.is_empty());
        assert_eq!(glass_of(&only_game(&svc).await).turn(), Side::BLACK);
    }
    let (svc, mut announcements) = service(store, 2_000).await;
    assert_eq!(svc.start_bot().await.unwrap(), 1);
    let a = next(&mut announcements).await;
    check_glass_announcement(&a);
    let record = only_game(&svc).await;
    assert_eq!(record.moves.len(), 4, "{:?}", record.moves);
    assert!(record.moves[3].starts_with("b "));
}

/// Issue 27: a four-player challenge naming the bot among people is refused when it is made
/// (it used to be stored and wait forever for the bot), with what to type instead.
#[tokio::test]
async fn a_four_player_challenge_naming_the_bot_and_people_is_refused() {
    let (svc, _announcements) = service(MemoryStore::new(), 2_000).await;
    svc.start_bot().await.unwrap();
    let alice = actor("alice");
    let text = say(
        &svc,
        &alice,
        "challenge @bob:example.org @carol:example.org @fairybot:example.org dcb-balanced-4p",
    )
    .await;
    assert!(text.contains("cannot take a seat"), "{text}");
    assert!(text.contains("play dcb-balanced-4p vs bot"), "{text}");
    assert!(
        svc.store()
            .list_challenges(&Default::default())
            .await
            .unwrap()
            .is_empty(),
        "nothing stored"
    );
}

/// Issue 27: `play … seat blue` sometimes posted the bot's first move before "Game N
/// starts": the bot was woken while the command ran, before its replies were posted. The
/// outbox keeps what was posted in order; the start must come first, every time (a search of
/// one node is quick enough to win the race when it can be won).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_start_is_posted_before_the_bots_first_move() {
    for round in 0..20 {
        let (svc, mut announcements) = service(MemoryStore::new(), 1).await;
        svc.start_bot().await.unwrap();
        let alice = actor("alice");
        let text = say(&svc, &alice, "play dcb-balanced-4p vs bot blue level 1").await;
        assert!(text.contains("starts"), "{text}");
        // Held, not reported delivered: it stays in the outbox to be read back in order.
        tokio::time::timeout(Duration::from_secs(60), announcements.next_held())
            .await
            .expect("the bot answers within a minute")
            .expect("the outbox is open");
        let claim = bot_core::outbox::Claim {
            owner: "test".into(),
            until_ms: i64::MAX,
        };
        let posted: Vec<String> = svc
            .store()
            .claim_due(Platform::Matrix, &claim, i64::MAX - 1, 100)
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.envelope.reply.text)
            .collect();
        let start = posted.iter().position(|t| t.contains("starts"));
        let first_move = posted.iter().position(|t| t.contains(") plays "));
        assert!(
            start.is_some() && start < first_move,
            "round {round}: {posted:#?}"
        );
    }
}

/// Issue 27: a resignation names both players with their sides ("white resigns. White wins.
/// fairybot" read wrong when the console's player was called white and played Black).
#[tokio::test]
async fn a_resignation_names_the_loser_and_the_winner_with_their_sides() {
    let (svc, _announcements) = service(MemoryStore::new(), 2_000).await;
    let alice = actor("alice");
    let id = game_from(
        &svc,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    )
    .await;
    let r = svc.handle_text(&alice, &place(), "resign").await;
    let text = r[0].render_text(|p| {
        if p == &bot_id() {
            "fairybot".into()
        } else {
            "alice".into()
        }
    });
    assert_eq!(
        text,
        format!("Game {id}: alice (White) resigns. fairybot (Black) wins."),
        "{r:?}"
    );
}
