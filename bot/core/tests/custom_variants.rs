//! Players' own variants through the service (issue 30): `variant add` in each format, list,
//! show, export, a game between two people to a result, a game against the bot, removal, and
//! the finished game replaying unchanged afterwards.

use std::{sync::Arc, time::Duration};

use bot_core::{
    Actor, GameService,
    custom::{Library, MemoryVariants, Quotas},
    model::{GameRecord, GameStatus, Place, Platform, PlayerId},
    opponent::BotConfig,
    outbox::Announcements,
    rules_engine::GameEngine,
    store::{GameFilter, GameStore, memory::MemoryStore},
};
use rules::{Catalog, notation, validate::Limits};

mod common;
use common::*;

type Svc = GameService<MemoryStore, TestClock>;

const INI: &str = "variant add ```ini\n[centaur-king:chess]\nking = k:KN\n```";

const TOML: &str = "variant add\n```toml\nname = \"knightriders\"\nextends = \"chess\"\ndisplay_name = \"Knightrider Chess\"\n[pieces.N]\nname = \"Nightrider\"\nmoves = \"NN\"\n```";

fn place() -> Place {
    Place::room(Platform::Matrix, "!room:example.org")
}

fn bot_id() -> PlayerId {
    PlayerId::new(Platform::Matrix, "@fairybot:example.org")
}

/// A service with the bot (small node budget, repeatable) and an in-memory library whose
/// check has a long deadline: a loaded test machine may take longer than the bot's 80 ms
/// (rules/benches/validate.rs measures the real time).
fn service() -> (Arc<Svc>, Announcements) {
    let library = Library::with(
        MemoryVariants::default(),
        Quotas::default(),
        Limits {
            time: Duration::from_secs(20),
            ..Limits::default()
        },
    );
    let svc = GameService::new(
        MemoryStore::new(),
        TestClock::default(),
        Arc::new(Catalog::builtin()),
    )
    .with_chance(bot_core::SeededChance::new(3))
    .with_lease(Duration::from_secs(u64::from(u32::MAX)))
    .with_bot(BotConfig::repeatable(2_000, 11))
    .unwrap()
    .with_custom_variants(library);
    let svc = Arc::new(svc);
    let announcements = Announcements::new(svc.clone(), &[]);
    svc.set_bot_user(bot_id(), "fairybot");
    (svc, announcements)
}

async fn say(svc: &Svc, who: &Actor, text: &str) -> String {
    // Boxed: the service's future is large for a test thread's stack.
    let r = Box::pin(svc.handle_text(who, &place(), text)).await;
    assert!(!r.is_empty(), "no reply to {text:?}");
    r.iter()
        .map(|r| r.text.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

async fn games(svc: &Svc) -> Vec<GameRecord> {
    svc.store()
        .list_games(&GameFilter::default())
        .await
        .unwrap()
}

fn position(svc: &Svc, record: &GameRecord) -> rules::Position {
    match svc.engine(record).expect("the game replays") {
        GameEngine::Board(p) => p,
        GameEngine::Glass(_) => panic!("a board game"),
    }
}

#[tokio::test]
async fn a_players_variant_in_each_format_is_added_played_removed_and_still_replays() {
    let (svc, _announcements) = service();
    let (alice, bob) = (actor("alice"), actor("bob"));

    // Added in both formats, each answered with its check's result and start position.
    let text = say(&svc, &alice, INI).await;
    assert!(text.contains("Added `centaur-king`"), "{text}");
    assert!(text.contains("ini"), "{text}");
    assert!(text.contains("perft 1-3: 22,"), "{text}");
    let text = say(&svc, &bob, TOML).await;
    assert!(text.contains("Added `knightriders`"), "{text}");
    assert!(text.contains("Knightrider Chess"), "{text}");

    let list = say(&svc, &alice, "variant list").await;
    assert!(list.contains("`centaur-king`"), "{list}");
    assert!(
        list.contains("`knightriders` Knightrider Chess (toml, by bob)"),
        "{list}"
    );
    let show = say(&svc, &alice, "variant show knightriders").await;
    assert!(show.contains("Nightrider"), "{show}");
    let rules = say(&svc, &alice, "rules knightriders").await;
    assert!(rules.contains("Nightrider"), "{rules}");
    let piece = say(&svc, &alice, "piece knightriders N").await;
    assert!(piece.contains("Nightrider"), "{piece}");
    let export = say(&svc, &alice, "variant export centaur-king").await;
    assert_eq!(export, "```ini\n[centaur-king:chess]\nking = k:KN\n```");

    // Another room has its own library: the name means nothing there.
    let other = Place::room(Platform::Matrix, "!other:example.org");
    let r = svc
        .handle_text(&alice, &other, "variant show centaur-king")
        .await;
    assert!(
        r[0].text.contains("no variant `centaur-king` here"),
        "{}",
        r[0].text
    );

    // A game between two people, to a result.
    let text = say(&svc, &alice, "challenge @bob:example.org centaur-king").await;
    assert!(text.to_lowercase().contains("challenge"), "{text}");
    let text = say(&svc, &bob, "accept").await;
    assert!(!text.contains("know the variant"), "{text}");
    let game = games(&svc).await.pop().expect("a game");
    assert!(game.variant.starts_with("custom:"), "{}", game.variant);
    let listed = say(&svc, &alice, "games").await;
    assert!(
        listed.contains(&format!("#{} centaur-king —", game.id)),
        "{listed}"
    );
    let start = position(&svc, &game);
    assert_eq!(
        start.legal_moves().len(),
        22,
        "the centaur king's leaps count"
    );
    // Its board is a picture, as a built-in's: drawn from the catalog the adapters share
    // with the service.
    let r = Box::pin(svc.handle_text(&alice, &place(), "board")).await;
    let board = r
        .iter()
        .find_map(|r| r.board.as_ref())
        .expect("a board picture");
    let view = bot_core::picture::board_view(board, svc.catalog())
        .unwrap_or_else(|e| panic!("the board of a player's variant does not draw: {e}"));
    let svg = render::Renderer::new().svg(&view, &render::Theme::light());
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
    assert!(
        bot_core::picture::text_board(board, svc.catalog()).is_some(),
        "and as text"
    );
    let mut rng = Lcg(9);
    for _ in 0..300 {
        let record = svc.store().get_game(game.id).await.unwrap();
        if !record.status.is_active() {
            break;
        }
        let pos = position(&svc, &record);
        let legal = pos.legal_moves();
        let captures: Vec<_> = legal
            .iter()
            .filter(|m| pos.piece_at(m.to).is_some())
            .collect();
        let mv = match captures.as_slice() {
            [] => legal[rng.below(legal.len())],
            some => *some[rng.below(some.len())],
        };
        let who = if record.seats[pos.turn().index()] == alice.id {
            &alice
        } else {
            &bob
        };
        let text = say(&svc, who, &format!("move {}", notation::coord(&pos, mv))).await;
        assert!(text.contains("plays"), "{text}");
    }
    let mut finished = svc.store().get_game(game.id).await.unwrap();
    if finished.status.is_active() {
        say(&svc, &alice, "resign").await;
        finished = svc.store().get_game(game.id).await.unwrap();
    }
    assert!(
        matches!(finished.status, GameStatus::Finished { .. }),
        "{:?}",
        finished.status
    );
    assert!(finished.moves.len() > 4, "{} moves", finished.moves.len());
    let end_fen = rules::fen::write(&position(&svc, &finished));
    let history = say(&svc, &alice, &format!("history #{}", finished.id)).await;
    assert!(
        history.contains(&finished.moves.len().div_ceil(2).to_string()),
        "{history}"
    );
    let pgn = say(&svc, &alice, &format!("export #{}", finished.id)).await;

    // Only the author removes; then the name is gone from the room.
    let text = say(&svc, &bob, "variant remove centaur-king").await;
    assert!(text.contains("only the player who added"), "{text}");
    let text = say(&svc, &alice, "variant remove centaur-king").await;
    assert!(text.contains("Removed `centaur-king`"), "{text}");
    let list = say(&svc, &alice, "variant list").await;
    assert!(!list.contains("centaur-king"), "{list}");
    let text = say(&svc, &alice, "play centaur-king @bob:example.org").await;
    assert!(text.contains("I don't know the variant"), "{text}");

    // The finished game still replays from its stored definition, unchanged.
    assert_eq!(
        say(&svc, &alice, &format!("history #{}", finished.id)).await,
        history
    );
    assert_eq!(
        say(&svc, &alice, &format!("export #{}", finished.id)).await,
        pgn
    );
    assert_eq!(rules::fen::write(&position(&svc, &finished)), end_fen);
}

#[tokio::test]
async fn a_players_variant_against_the_bot() {
    let (svc, mut announcements) = service();
    svc.start_bot().await.unwrap();
    let alice = actor("alice");
    let text = say(&svc, &alice, INI).await;
    assert!(text.contains("Added"), "{text}");
    let text = say(&svc, &alice, "play centaur-king vs bot level 1 white").await;
    assert!(text.contains("against the bot at level 1"), "{text}");
    let mut rng = Lcg(4);
    for round in 0..4 {
        let record = games(&svc).await.pop().unwrap();
        assert!(record.variant.starts_with("custom:"), "{}", record.variant);
        assert_eq!(record.moves.len(), round * 2);
        let pos = position(&svc, &record);
        let legal = pos.legal_moves();
        let mv = legal[rng.below(legal.len())];
        let text = say(&svc, &alice, &notation::coord(&pos, mv)).await;
        assert!(text.contains("plays"), "{text}");
        let a = tokio::time::timeout(Duration::from_secs(60), announcements.next())
            .await
            .expect("the bot answers within a minute")
            .expect("the outbox is open");
        assert!(a.replies[0].text.contains("plays"), "{}", a.replies[0].text);
        // The bot's move is legal in the custom rules.
        let after = games(&svc).await.pop().unwrap();
        assert_eq!(after.moves.len(), round * 2 + 2);
        position(&svc, &after);
    }
}

#[tokio::test]
async fn bad_variant_commands_say_what_to_do() {
    let (svc, _announcements) = service();
    let alice = actor("alice");
    let cases = [
        ("variant", "add, show, list, remove or export"),
        (
            "variant frobnicate",
            "is not add, show, list, remove or export",
        ),
        ("variant add", "needs the definition"),
        ("variant show", "needs a name"),
        ("variant remove a b", "name one variant"),
        ("variant export nothing", "no variant `nothing` here"),
        (
            "variant add ```ini\n[bad:chess]\nflagRegionWhite = *8\n```",
            "line 2",
        ),
        ("variant add ```ini\n[chess:chess]\n```", "chess"),
    ];
    for (input, expected) in cases {
        let text = say(&svc, &alice, input).await;
        assert!(text.contains(expected), "{input:?}: {text}");
    }
    // A bot without a library says so.
    let plain = GameService::new(
        MemoryStore::new(),
        TestClock::default(),
        Arc::new(Catalog::builtin()),
    );
    let r = plain.handle_text(&alice, &place(), "variant list").await;
    assert!(
        r[0].text.contains("does not keep players' own variants"),
        "{}",
        r[0].text
    );
}

/// A player's variant is rated under its own definition: `leaderboard NAME` finds it in its
/// room, and a file that claims a built-in game's rating family does not feed that game's
/// leaderboard.
#[tokio::test]
async fn a_players_variant_has_a_leaderboard_of_its_own() {
    let (svc, _announcements) = service();
    let (alice, bob) = (actor("alice"), actor("bob"));
    let added = say(
        &svc,
        &alice,
        "variant add\n```toml\nname = \"kingriders\"\nextends = \"chess\"\nrating_family = \"chess\"\n```",
    )
    .await;
    assert!(added.contains("kingriders"), "{added}");
    say(&svc, &alice, "challenge @bob:example.org kingriders white").await;
    say(&svc, &bob, "accept").await;
    let result = say(&svc, &bob, "resign").await;
    assert!(result.contains("resigns"), "{result}");
    let board = Box::pin(svc.handle_text(&alice, &place(), "leaderboard kingriders")).await;
    let board = board[0].render_text(|p| p.user.clone());
    assert!(
        board.contains("Leaderboard of kingriders") && board.contains("1/0/0"),
        "the variant's own leaderboard: {board}"
    );
    let chess = say(&svc, &alice, "leaderboard chess").await;
    assert!(
        chess.contains("Nobody has a rating"),
        "a player's variant fed the built-in leaderboard: {chess}"
    );
    let profile = Box::pin(svc.handle_text(&alice, &place(), "profile")).await;
    let profile = profile[0].render_text(|p| p.user.clone());
    assert!(profile.contains("kingriders"), "{profile}");
}

/// Issue 30: on Discord a variant belongs to its server. Added in one channel, it is listed,
/// shown and played in another channel of the same server, and unknown in a channel of
/// another server or in a DM; a variant added in a channel before variants belonged to
/// servers is still found there (and removed there), beside the server's.
#[tokio::test]
async fn a_discord_variant_belongs_to_its_server() {
    use bot_core::custom::Scope;
    let (svc, _announcements) = service();
    svc.set_bot_user(PlayerId::new(Platform::Discord, "1"), "fairybot");
    let in_server = |name: &str, server: &str| {
        let mut a = Actor::new(PlayerId::new(Platform::Discord, name), name);
        a.server = Some(server.to_string());
        a
    };
    let channel = |c: &str| Place::room(Platform::Discord, c);
    let said = async |who: &Actor, place: &Place, text: &str| {
        let r = Box::pin(svc.handle_text(who, place, text)).await;
        r.iter()
            .map(|r| r.text.clone())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let alice = in_server("100", "7");
    let bob = in_server("200", "7");
    let stranger = in_server("300", "8");

    let added = said(&alice, &channel("71"), INI).await;
    assert!(added.contains("Added `centaur-king`"), "{added}");
    // Another channel of the server: listed, shown, offered, and played.
    let list = said(&bob, &channel("72"), "variant list").await;
    assert!(list.contains("This server's own variants (1)"), "{list}");
    assert!(list.contains("centaur-king"), "{list}");
    assert!(
        said(&bob, &channel("72"), "variant show centaur-king")
            .await
            .contains("added by")
    );
    assert_eq!(
        svc.custom_names(&channel("72"), Some("7")).await,
        vec!["centaur-king".to_string()]
    );
    let started = said(&bob, &channel("72"), "play centaur-king vs bot").await;
    let played = games(&svc).await;
    assert_eq!(played.len(), 1, "{started}");
    assert!(
        played[0].variant.starts_with("custom:"),
        "{}",
        played[0].variant
    );
    // Another server, and a DM (no server): not there.
    let elsewhere = said(&stranger, &channel("81"), "variant show centaur-king").await;
    assert!(
        elsewhere.contains("no variant `centaur-king` here"),
        "{elsewhere}"
    );
    let dm = Place::direct(Platform::Discord, "99");
    let mut alone = Actor::new(PlayerId::new(Platform::Discord, "100"), "alice");
    alone.server = None;
    assert!(
        said(&alone, &dm, "variant show centaur-king")
            .await
            .contains("no variant")
    );
    assert!(svc.custom_names(&channel("81"), Some("8")).await.is_empty());

    // Added in channel 73 before variants belonged to servers: under the channel's scope.
    let library = svc.custom_library().unwrap();
    let legacy = Scope::of(&channel("73"));
    library
        .add(&legacy, "100", None, "[old-king:chess]\nking = k:KN\n", 1)
        .await
        .unwrap();
    let list = said(&bob, &channel("73"), "variant list").await;
    assert!(
        list.contains("centaur-king") && list.contains("old-king"),
        "{list}"
    );
    // Only in its own channel.
    assert!(
        !said(&bob, &channel("72"), "variant list")
            .await
            .contains("old-king")
    );
    let removed = said(&alice, &channel("73"), "variant remove old-king").await;
    assert!(removed.contains("Removed `old-king`"), "{removed}");
    assert!(library.list(&legacy).await.unwrap().is_empty());
}

/// `variant add`, `variant show` and `rules` answer with the start position as a picture, and
/// `piece` with the piece's movement diagram: pictures of no game, which the adapters draw
/// from the catalogue the service shares with them, a player's variant included.
#[tokio::test]
async fn a_players_variant_is_shown_in_pictures() {
    let (svc, _announcements) = service();
    let alice = actor("alice");
    let board_of = |r: &[bot_core::reply::Reply]| {
        r.iter()
            .find_map(|r| r.board.clone())
            .unwrap_or_else(|| panic!("no picture: {:?}", r.first().map(|r| &r.text)))
    };
    for (command, diagram) in [
        (TOML, None),
        ("variant show knightriders", None),
        ("rules knightriders", None),
        ("piece knightriders nightrider", Some('N')),
        ("rules chess", None),
        ("piece toulousain N", Some('N')),
    ] {
        let r = Box::pin(svc.handle_text(&alice, &place(), command)).await;
        let b = board_of(&r);
        assert_eq!(b.game, None, "{command}");
        assert_eq!(b.diagram, diagram, "{command}");
        if command.contains("knightriders") || command.starts_with("variant add") {
            assert!(b.variant.starts_with("custom:"), "{command}: {}", b.variant);
        }
        // Drawn from the service's own catalogue, as the adapters draw it.
        let view = bot_core::picture::board_view(&b, svc.catalog()).expect(command);
        if diagram.is_some() {
            assert_eq!(view.pieces.len(), 1, "{command}: one piece alone");
            assert!(!view.targets.is_empty(), "{command}: its moves marked");
        } else {
            assert_eq!(view.pieces.len(), 32, "{command}: the start position");
        }
        assert!(r[0].game().is_none(), "{command}: about no game");
    }
    // Looking-Glass's pieces are described in words only.
    let r = Box::pin(svc.handle_text(&alice, &place(), "piece looking-glass N")).await;
    assert!(r[0].text.contains("Knight"), "{}", r[0].text);
    assert!(r[0].board.is_none(), "{}", r[0].text);
}
