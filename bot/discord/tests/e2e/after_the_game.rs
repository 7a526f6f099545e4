//! What follows the games: ratings and leaderboards, players' own variants, and post-game
//! analysis.

use super::*;

/// `/variant` adds a player's definition given as text, lists it (in another channel of the
/// server too), and refuses one with a key fairybot has no rule for by its line and name.
#[tokio::test]
async fn a_players_variant_is_added_and_listed_by_slash_command() {
    let bot = start().await;
    let fake = &bot.fake;
    let ini = "[knightmare:chess]\nknight = -\ncustomPiece1 = n:NN\n";
    let ix = fake
        .slash("variant")
        .integer("action", 0)
        .string("definition", ini)
        .send();
    let added = message(fake, &ix).await;
    assert!(added.content.contains("knightmare"), "{}", added.content);
    let ix = fake.slash("variant").integer("action", 2).send();
    let listed = message(fake, &ix).await;
    assert!(listed.content.contains("knightmare"), "{}", listed.content);
    // Offered by `/challenge`'s variant autocomplete in this channel.
    let ix = fake
        .autocomplete("challenge")
        .focused_string("variant", "knight")
        .send();
    let cb = fake.wait_callback(&ix).await.unwrap();
    let offered: Vec<String> = cb
        .choices()
        .iter()
        .map(|c| c.value.as_str().unwrap_or_default().to_string())
        .collect();
    assert!(offered.contains(&"knightmare".to_string()), "{offered:?}");
    // The variant belongs to the server: listed in its other channels too.
    let ix = fake
        .slash("variant")
        .integer("action", 2)
        .in_channel(ids::GAMES)
        .send();
    let listed = message(fake, &ix).await;
    assert!(listed.content.contains("knightmare"), "{}", listed.content);
    let ix = fake
        .slash("variant")
        .integer("action", 0)
        .string("definition", "[flags:chess]\nflagPiece = k\n")
        .send();
    let refused = message(fake, &ix).await;
    assert!(
        refused.content.contains("flagPiece") && refused.content.contains("line 2"),
        "{}",
        refused.content
    );
}

#[tokio::test]
async fn a_rated_game_shows_in_profiles_and_a_leaderboard_embed() {
    let bot = start().await;
    let fake = &bot.fake;
    start_game(fake).await;
    play(fake, ids::ALICE, "f3").await;
    play(fake, ids::BOB, "e5").await;
    play(fake, ids::ALICE, "g4").await;
    let mate = play(fake, ids::BOB, "Qh4#").await;
    assert!(mate.content.contains("Ratings:"), "{}", mate.content);
    assert!(mate.content.contains("1662 (+162)"), "{}", mate.content);

    let ix = fake.slash("profile").by(ids::ALICE).send();
    let own = message(fake, &ix).await;
    assert!(own.is_ephemeral(), "a profile is shown to its asker");
    assert!(
        own.content.contains("0 won, 0 drawn, 1 lost"),
        "{}",
        own.content
    );
    let table = embed_description(&own);
    assert!(table.starts_with("```\nVariant"), "{table}");
    assert!(table.contains("1338?"), "{table}");

    let ix = fake
        .slash("profile")
        .user("player", ids::BOB)
        .by(ids::ALICE)
        .send();
    let bobs = message(fake, &ix).await;
    assert!(bobs.content.contains("1 won"), "{}", bobs.content);

    let ix = fake
        .slash("leaderboard")
        .string("variant", "chess")
        .by(ids::ALICE)
        .send();
    let board = message(fake, &ix).await;
    assert!(board.content.contains("You are #2"), "{}", board.content);
    let table = embed_description(&board);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 5, "fence, header, two players, fence: {table}");
    assert!(
        lines[2].starts_with("#1") && lines[2].contains("1662?"),
        "{table}"
    );
    assert!(
        lines[3].starts_with("#2") && lines[3].contains("1338?"),
        "{table}"
    );
    assert!(
        board.mentioned_users().is_empty(),
        "a leaderboard pings nobody"
    );

    let ix = fake
        .slash("leaderboard")
        .string("variant", "chezz")
        .by(ids::ALICE)
        .send();
    let err = message(fake, &ix).await;
    assert!(
        err.is_ephemeral() && err.content.contains("Did you mean"),
        "{}",
        err.content
    );
    assert!(
        fake.unhandled_requests().is_empty(),
        "{:?}",
        fake.unhandled_requests()
    );
}

/// Issue 29 item 3: `/analyse` after a game answers at once with the progress line; the
/// analysis (on its own thread) then edits that answer, through the outbox's sender, up to
/// the line "analysed", and posts the evaluation graph as a picture with each player's accuracy, and White's blunder with
/// the better move on a board. Before the end it is refused, privately.
#[tokio::test]
async fn analysing_a_finished_game_posts_graph_and_mistakes() {
    let running = start_analysing().await;
    let fake = &running.fake;
    start_game(fake).await;
    play(fake, ids::ALICE, "f3").await;
    analysis_refused(fake, ids::ALICE).await;
    play(fake, ids::BOB, "e7e5").await;
    play(fake, ids::ALICE, "g4").await;
    let mate = play(fake, ids::BOB, "Qh4#").await;
    assert!(mate.content.contains("Checkmate"), "{}", mate.content);

    let Analysed {
        progress, mistakes, ..
    } = analysed(fake, ids::BOB, 1, Some("g4??")).await;
    assert!(
        progress
            .content
            .contains("Analysing game 1 at 3,000 nodes a position"),
        "{}",
        progress.content
    );
    let blunder = mistakes
        .iter()
        .find(|m| m.content.contains("g4??"))
        .unwrap();
    assert!(
        blunder.content.contains("Better was"),
        "{}",
        blunder.content
    );
    // The progress lines edited the answer in place: no other message carries one.
    let lines: Vec<String> = fake.inspect(|r| {
        r.messages()
            .iter()
            .filter(|m| {
                !m.deleted
                    && (m.content.contains("Analysing game 1")
                        || m.content.contains("Game 1 analysed"))
            })
            .map(|m| m.content.clone())
            .collect()
    });
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(
        fake.unhandled_requests().is_empty(),
        "{:?}",
        fake.unhandled_requests()
    );
}

/// A player's variant is removed by its author or by someone who manages the server (Discord's
/// Manage Server permission), and by nobody else.
#[tokio::test]
async fn a_players_variant_is_removed_by_its_author_or_a_server_manager_only() {
    let bot = start().await;
    let fake = &bot.fake;
    let add = |name: &str| {
        fake.slash("variant")
            .integer("action", 0)
            .string("definition", &format!("[{name}:chess]\nking = k:KN\n"))
            .by(ids::ALICE)
            .send()
    };
    let remove = |name: &str, by: u64| {
        fake.slash("variant")
            .integer("action", 3)
            .string("name", name)
            .by(by)
            .send()
    };
    for name in ["centaurs", "centaurs-too"] {
        let added = message(fake, &add(name)).await;
        assert!(added.content.contains(name), "{}", added.content);
    }
    let refused = message(fake, &remove("centaurs", ids::BOB)).await;
    assert!(
        refused.content.contains("only the player who added"),
        "{}",
        refused.content
    );
    // Carol manages the server (0x20).
    fake.set_member_permissions(ids::CAROL, 0x20);
    let removed = message(fake, &remove("centaurs", ids::CAROL)).await;
    assert!(!removed.content.contains("only"), "{}", removed.content);
    let removed = message(fake, &remove("centaurs-too", ids::ALICE)).await;
    assert!(!removed.content.contains("only"), "{}", removed.content);
    let ix = fake.slash("variant").integer("action", 2).send();
    let listed = message(fake, &ix).await;
    assert!(!listed.content.contains("centaurs"), "{}", listed.content);
}

/// `/variant add` with a file: the attachment is read from Discord's address for it, and one
/// over the size limit is refused by its announced size without being downloaded.
#[tokio::test]
async fn a_players_variant_is_added_from_an_attached_file() {
    let bot = start().await;
    let fake = &bot.fake;
    let ix = fake
        .slash("variant")
        .integer("action", 0)
        .attachment("file", "centaurs.ini", b"[centaurs:chess]\nking = k:KN\n")
        .send();
    let added = message(fake, &ix).await;
    assert!(added.content.contains("centaurs"), "{}", added.content);
    // The start position comes as a picture, drawn from the definition just added.
    assert!(
        added.attachment("board.png").is_some_and(|a| a.is_png()),
        "no start picture"
    );
    assert_eq!(
        fake.requests_matching("GET", "attachments/uploads/*/*")
            .len(),
        1,
        "downloaded once"
    );
    let big = vec![b'#'; bot_core::command::MAX_DEFINITION_BYTES + 1];
    let ix = fake
        .slash("variant")
        .integer("action", 0)
        .attachment("file", "huge.ini", &big)
        .send();
    let refused = message(fake, &ix).await;
    assert!(
        refused.content.contains("huge.ini") && refused.content.contains("at most"),
        "{}",
        refused.content
    );
    assert_eq!(
        fake.requests_matching("GET", "attachments/uploads/*/*")
            .len(),
        1,
        "the large file was not downloaded"
    );
}
