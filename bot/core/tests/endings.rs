//! Every way a game ends reaches the game's room and every player, wherever the deciding
//! command was typed: the property over random games of ordinary chess, Toulousain and both
//! Looking-Glass forms, ended by checkmate or a drawn position, the King's capture, three
//! strikes, resignation, agreement and abort, typed in the game's room, in the player's
//! direct chat, or in another room with `#ID`.

use std::sync::Arc;

use bot_core::{
    Actor, GameService, SeededChance,
    model::{GameRecord, Place, Platform},
    reply::{Audience, Reply},
    store::{GameFilter, GameStore, memory::MemoryStore},
};
use rules::{
    Catalog, Position, Side,
    glass::{self, Glass, GlassRules},
};

mod common;
use common::*;

/// Where a command is typed.
#[derive(Debug, Clone, Copy)]
enum Where {
    /// The game's room.
    Room,
    /// The player's direct chat with the bot.
    Direct,
    /// Some other room, naming the game with `#ID`.
    Elsewhere,
}

struct Table {
    store: MemoryStore,
    svc: GameService<MemoryStore, TestClock>,
    room: Place,
    other_room: Place,
    dm: [Place; 2],
    players: [Actor; 2],
}

impl Table {
    fn new(seed: u64) -> Table {
        let store = MemoryStore::new();
        Table {
            svc: GameService::new(
                store.clone(),
                TestClock::default(),
                Arc::new(Catalog::builtin()),
            )
            .with_chance(SeededChance::new(seed)),
            store,
            room: Place::room(Platform::Matrix, "!game:example.org"),
            other_room: Place::room(Platform::Matrix, "!lobby:example.org"),
            dm: [
                Place::direct(Platform::Matrix, "!alice-dm:example.org"),
                Place::direct(Platform::Matrix, "!bob-dm:example.org"),
            ],
            players: [actor("alice"), actor("bob")],
        }
    }

    async fn record(&self) -> GameRecord {
        self.store
            .list_games(&GameFilter::default())
            .await
            .unwrap()
            .pop()
            .unwrap()
    }

    /// `text` typed by `seat`'s player at `at` (with `#ID` where the room does not say
    /// which game).
    async fn say(&self, seat: usize, at: Where, command: &str, args: &str) -> Vec<Reply> {
        let id = self.record().await.id;
        let (place, text) = match at {
            Where::Room => (&self.room, format!("{command} {args}")),
            Where::Direct => (&self.dm[seat], format!("{command} #{id} {args}")),
            Where::Elsewhere => (&self.other_room, format!("{command} #{id} {args}")),
        };
        self.svc
            .handle_text(&self.players[seat], place, text.trim())
            .await
    }

    fn place(&self, seat: usize, at: Where) -> &Place {
        match at {
            Where::Room => &self.room,
            Where::Direct => &self.dm[seat],
            Where::Elsewhere => &self.other_room,
        }
    }
}

/// What the players and the room were told by the replies to one command.
fn check_ending(
    t: &Table,
    record: &GameRecord,
    replies: &[Reply],
    actor_seat: usize,
    at: Where,
    how: &str,
) {
    let context = format!("{how} typed at {at:?}: {replies:#?}");
    let is_result = |text: &str| {
        [
            "wins", "beats", "drawn", "Draw by", "aborted", "resigns", "Draw.",
        ]
        .iter()
        .any(|w| text.contains(w))
    };
    // The game's room is told the result, and every player is mentioned in a way every
    // platform shows (a placeholder for each mention).
    let in_the_room = |r: &&Reply| {
        r.audience == Audience::Room
            && r.place
                .as_ref()
                .unwrap_or(t.place(actor_seat, at))
                .same_room(&record.place)
            && is_result(&r.text)
    };
    let room = replies
        .iter()
        .find(in_the_room)
        .unwrap_or_else(|| panic!("the game's room is not told the result of {context}"));
    for p in &record.seats {
        let i = room
            .mentions
            .iter()
            .position(|m| m == p)
            .unwrap_or_else(|| panic!("{p} is not mentioned in the result: {context}"));
        assert!(
            room.text.contains(&format!("{{{i}}}")),
            "{p} is mentioned but not named in the result text: {context}"
        );
    }
    // The actor hears back where he typed.
    let here = t.place(actor_seat, at);
    let reaches_actor = replies.iter().any(|r| match &r.audience {
        Audience::Actor => true,
        Audience::Private(p) => *p == t.players[actor_seat].id,
        Audience::Room => r.place.as_ref().is_none_or(|p| p.same_room(here)),
    });
    assert!(reaches_actor, "the actor is not answered: {context}");
    // The room learns the result exactly once.
    let in_room = replies.iter().filter(in_the_room).count();
    assert_eq!(in_room, 1, "the room is told {in_room} times: {context}");
    // Every player is told privately too, exactly once, in every game (his direct channel
    // may be all he reads; a Looking-Glass player gives his orders there).
    for p in &record.seats {
        let told = replies
            .iter()
            .filter(|r| r.audience == Audience::Private(p.clone()) && is_result(&r.text))
            .count();
        assert_eq!(told, 1, "{p} is told privately {told} times: {context}");
    }
    if glass_rules(&record.variant).is_some() {
        assert!(
            replies.iter().any(|r| r.text.contains("revealed")
                && r.audience == Audience::Room
                && r.place.as_ref().is_some_and(|p| p.same_room(&record.place))),
            "no reveal in the game's room: {context}"
        );
    }
}

fn glass_rules(variant: &str) -> Option<GlassRules> {
    bot_core::rules_engine::GameKind::glass(variant)
}

/// A random legal move for the side to move, as the player would type it, or `None` when
/// the game is over.
fn random_move(record: &GameRecord, catalog: &Catalog, rng: &mut Lcg) -> Option<(usize, String)> {
    if let Some(rules) = glass_rules(&record.variant) {
        let game = Glass::replay(glass::variant(), rules, &record.moves).ok()?;
        let side = game.turn();
        let army = if game.is_forced() {
            glass::other(side)
        } else {
            side
        };
        let world = glass::world_of(side);
        let moves = game.moves_on(army, world);
        if moves.is_empty() {
            return None;
        }
        return Some((side.index(), moves[rng.below(moves.len())].clone()));
    }
    let v = catalog.get(&record.variant).ok()?;
    let mut pos = rules::fen::position(&v, &record.start_state).ok()?;
    for m in &record.moves {
        let mv = rules::notation::parse_coord(&pos, m).ok()?;
        pos.play_unchecked(mv);
    }
    let legal = pos.legal_moves();
    if legal.is_empty() {
        return None;
    }
    let m = legal[rng.below(legal.len())];
    Some((pos.turn().index(), rules::notation::san(&pos, m)))
}

async fn start(t: &Table, variant: &str, rng: &mut Lcg) {
    t.svc
        .handle_text(
            &t.players[0],
            &t.room,
            &format!("challenge @bob:example.org {variant}"),
        )
        .await;
    let r = t.svc.handle_text(&t.players[1], &t.room, "accept").await;
    assert!(r[0].text.contains("starts"), "{r:#?}");
    if glass_rules(variant).is_some() {
        for seat in [0, 1] {
            let choice = (rng.below(960)).to_string();
            t.svc
                .handle_text(&t.players[seat], &t.dm[seat], &format!("setup {choice}"))
                .await;
        }
    }
}

fn anywhere(rng: &mut Lcg) -> Where {
    [Where::Room, Where::Direct, Where::Elsewhere][rng.below(3)]
}

#[tokio::test]
async fn every_ending_reaches_the_room_and_every_player() {
    let catalog = Catalog::builtin();
    let mut rng = Lcg(2026);
    let variants = ["chess", "toulousain", glass::NAME, glass::NAME_NO_STRIKES];
    let endings = ["resign", "agreement", "abort", "played out", "strikes"];
    let mut seen = std::collections::BTreeSet::new();
    for game_no in 0..60 {
        let t = Table::new(game_no);
        let variant = variants[game_no as usize % variants.len()];
        let glass_game = glass_rules(variant).is_some();
        let mut ending = endings[rng.below(endings.len())];
        if ending == "strikes" && variant != glass::NAME {
            ending = "played out";
        }
        start(&t, variant, &mut rng).await;
        // Some random moves first (none before an abort, which needs an unplayed game).
        let plies = match ending {
            "abort" => 0,
            "played out" => 400,
            _ => rng.below(12),
        };
        let mut last = None;
        for _ in 0..plies {
            let record = t.record().await;
            if !record.status.is_active() {
                break;
            }
            let Some((seat, text)) = random_move(&record, &catalog, &mut rng) else {
                break;
            };
            // Looking-Glass orders are secret: typed in the direct chat only.
            let at = if glass_game {
                Where::Direct
            } else {
                anywhere(&mut rng)
            };
            let replies = t.say(seat, at, "move", &text).await;
            last = Some((seat, at, replies));
        }
        let record = t.record().await;
        let seat = rng.below(2);
        let at = anywhere(&mut rng);
        let (actor_seat, at, replies, how) = if !record.status.is_active() {
            // Played out: the last move decided the game.
            let (s, a, r) = last.expect("a game over before any move");
            (s, a, r, "the deciding move")
        } else {
            match ending {
                "agreement" => {
                    let offer = t.say(seat, at, "draw", "").await;
                    assert!(
                        offer.iter().any(|r| r.audience == Audience::Room
                            && r.place.as_ref().is_some_and(|p| p.same_room(&record.place))),
                        "the offer does not reach the game's room: {offer:#?}"
                    );
                    let at = anywhere(&mut rng);
                    (
                        1 - seat,
                        at,
                        t.say(1 - seat, at, "draw", "accept").await,
                        "agreement",
                    )
                }
                "abort" => (seat, at, t.say(seat, at, "abort", "").await, "abort"),
                "strikes" => {
                    // Three orders that cannot be carried out, by the player to move: a
                    // Rook's jump over its own Pawn on the world it cannot see.
                    let mut replies = Vec::new();
                    let mut actor = 0;
                    for _ in 0..40 {
                        let record = t.record().await;
                        if !record.status.is_active() {
                            break;
                        }
                        let game =
                            Glass::replay(glass::variant(), GlassRules::default(), &record.moves)
                                .unwrap();
                        actor = game.turn().index();
                        let world = if game.turn() == Side::WHITE { "M" } else { "R" };
                        let (from, to) = if game.turn() == Side::WHITE {
                            ("a1", "a5")
                        } else {
                            ("a8", "a4")
                        };
                        replies = t
                            .say(actor, Where::Direct, "move", &format!("{world}:{from}{to}"))
                            .await;
                    }
                    (actor, Where::Direct, replies, "strikes")
                }
                _ => (seat, at, t.say(seat, at, "resign", "").await, "resign"),
            }
        };
        let record = t.record().await;
        if record.status.is_active() {
            // A random game that did not end (a long Toulousain game): nothing to check.
            continue;
        }
        seen.insert(format!("{how}/{:?}/{}", at, glass_game));
        check_ending(&t, &record, &replies, actor_seat, at, how);
    }
    // The random choices covered every ending in every kind of place.
    for how in [
        "resign",
        "agreement",
        "abort",
        "the deciding move",
        "strikes",
    ] {
        assert!(
            seen.iter().any(|s| s.starts_with(how)),
            "no {how} ending was checked: {seen:?}"
        );
    }
    for at in ["Room", "Direct", "Elsewhere"] {
        assert!(
            seen.iter().any(|s| s.contains(&format!("/{at}/"))),
            "no ending typed at {at}: {seen:?}"
        );
    }
}

/// The ending reaches the room even when the deciding command is typed in a direct chat: the
/// example of the issue, a Looking-Glass game resigned in private.
#[tokio::test]
async fn a_resignation_typed_in_private_is_announced_in_the_room() {
    let t = Table::new(1);
    let mut rng = Lcg(3);
    start(&t, glass::NAME, &mut rng).await;
    let replies = t.say(1, Where::Direct, "resign", "").await;
    let record = t.record().await;
    assert!(!record.status.is_active());
    check_ending(&t, &record, &replies, 1, Where::Direct, "resign");
    let room: Vec<&Reply> = replies
        .iter()
        .filter(|r| r.place.as_ref().is_some_and(|p| p.same_room(&t.room)))
        .collect();
    assert!(
        room.iter().any(|r| r.text.contains("resigns")),
        "{replies:#?}"
    );
    assert!(
        room.iter().any(|r| r.text.contains("revealed")),
        "{replies:#?}"
    );
}

/// Ordinary chess: a position's rebuild for the checker is the engine's.
#[test]
fn the_random_mover_plays_legal_moves() {
    let catalog = Catalog::builtin();
    let chess = catalog.get("chess").unwrap();
    let start = Position::start(&chess);
    let record = GameRecord {
        id: bot_core::model::GameId(1),
        variant: "chess".into(),
        options: String::new(),
        start_state: rules::fen::write(&start),
        moves: vec!["e2e4".into()],
        seats: vec![],
        place: Place::room(Platform::Matrix, "!x:y"),
        status: bot_core::model::GameStatus::Active,
        pending_offer: None,
        clock: None,
        version: 1,
        rating_family: None,
        created_at: 0,
        updated_at: 0,
    };
    let (seat, text) = random_move(&record, &catalog, &mut Lcg(1)).unwrap();
    assert_eq!(seat, 1);
    let mut pos = start.clone();
    pos.play_unchecked(rules::notation::parse_coord(&pos, "e2e4").unwrap());
    assert!(rules::notation::parse_move(&pos, &text).is_ok(), "{text}");
}

/// A player who cannot be reached is told so in his game's room once per game: the private
/// copy of a result carries no board, and still counts with its game's messages.
#[tokio::test]
async fn a_held_private_copy_of_a_result_counts_with_its_game() {
    let (svc, place, alice, bob) = chess_game().await;
    let mut mate = Vec::new();
    for (who, mv) in [
        (&alice, "e4"),
        (&bob, "f6"),
        (&alice, "d4"),
        (&bob, "g5"),
        (&alice, "Qh5#"),
    ] {
        mate = svc.handle_text(who, &place, mv).await;
    }
    let room = mate
        .iter()
        .find(|r| r.audience == Audience::Room && r.board.is_some())
        .expect("the result with its board");
    let copy = mate
        .iter()
        .find(|r| r.audience == Audience::Private(bob.id.clone()))
        .expect("Bob's private copy");
    assert!(copy.board.is_none());
    // What his adapter could not deliver: a report with the game's board first, then the copy.
    let report = Reply {
        audience: Audience::Private(bob.id.clone()),
        ..room.clone()
    };
    assert!(
        svc.hold_undelivered(&report).await.unwrap(),
        "the first held from the game: its room is told"
    );
    assert!(
        !svc.hold_undelivered(copy).await.unwrap(),
        "the copy is of the same game: not told again"
    );
    let taken = svc.take_undelivered(&bob.id).await;
    assert_eq!(taken.len(), 2);
    assert!(taken.iter().all(|r| r.game() == room.game()), "{taken:#?}");
}
