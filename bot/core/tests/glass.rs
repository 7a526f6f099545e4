//! Through the Looking-Glass through the service: secret setups, orders from private
//! channels, reports by private message, a restart, the reveal, and the privacy property:
//! over many random games no reply tells its audience a fact the engine did not give it.

use std::{collections::HashSet, sync::Arc};

use bot_core::{
    Actor, GameService, SeededChance,
    model::{GameRecord, GameStatus, Place, Platform, PlayerId},
    picture,
    reply::{Audience, Reply},
    store::{GameFilter, GameStore, memory::MemoryStore},
};
use rules::{
    Catalog, Cell, Piece, Side,
    glass::{self, Glass, GlassRules},
};

mod common;
use common::*;

struct Table {
    store: MemoryStore,
    svc: GameService<MemoryStore, TestClock>,
    room: Place,
    /// Each player's private channel with the bot.
    dm: [Place; 2],
    players: [Actor; 2],
}

impl Table {
    fn new() -> Table {
        let store = MemoryStore::new();
        Table {
            svc: GameService::new(
                store.clone(),
                TestClock::default(),
                Arc::new(Catalog::builtin()),
            )
            .with_chance(SeededChance::new(5)),
            store,
            room: Place::room(Platform::Matrix, "!room:example.org"),
            dm: [
                Place::direct(Platform::Matrix, "!alice-dm:example.org"),
                Place::direct(Platform::Matrix, "!bob-dm:example.org"),
            ],
            players: [actor("alice"), actor("bob")],
        }
    }

    /// A restart: a fresh service over the same store.
    fn restart(&mut self) {
        self.svc = GameService::new(
            self.store.clone(),
            TestClock::default(),
            Arc::new(Catalog::builtin()),
        )
        .with_chance(SeededChance::new(6));
    }

    async fn room(&self, side: usize, text: &str) -> Vec<Reply> {
        self.svc
            .handle_text(&self.players[side], &self.room, text)
            .await
    }

    async fn dm(&self, side: usize, text: &str) -> Vec<Reply> {
        self.svc
            .handle_text(&self.players[side], &self.dm[side], text)
            .await
    }

    async fn record(&self) -> GameRecord {
        self.store
            .list_games(&GameFilter::default())
            .await
            .unwrap()
            .pop()
            .unwrap()
    }

    async fn start(&self, variant: &str) {
        let r = self
            .room(0, &format!("challenge @bob:example.org {variant}"))
            .await;
        assert_eq!(r[0].audience, Audience::Room, "{:?}", r[0]);
        let r = self.room(1, "accept").await;
        assert!(r[0].text.contains("starts"), "{:?}", r[0]);
        assert_eq!(r.len(), 3, "one public start, one invitation each");
        for (i, p) in self.players.iter().enumerate() {
            assert_eq!(r[i + 1].audience, Audience::Private(p.id.clone()));
            assert!(r[i + 1].text.contains("setup 518"));
        }
    }
}

fn private_to<'a>(replies: &'a [Reply], who: &Actor) -> Vec<&'a Reply> {
    replies
        .iter()
        .filter(|r| r.audience == Audience::Private(who.id.clone()))
        .collect()
}

fn room_of(replies: &[Reply]) -> &Reply {
    replies
        .iter()
        .find(|r| r.audience == Audience::Room)
        .expect("a reply to the room")
}

#[tokio::test]
async fn a_game_from_challenge_to_reveal() {
    let mut t = Table::new();
    t.start("looking-glass").await;
    // A bad setup is refused privately with what to type.
    let r = t.dm(0, "setup RNBBKQNRX").await;
    assert_eq!(r[0].audience, Audience::Private(t.players[0].id.clone()));
    assert!(r[0].text.contains("RNBQKBNR"), "{}", r[0].text);
    // Orders before both have chosen are refused.
    let r = t.dm(0, "e2e4").await;
    assert!(r[0].text.contains("back rank"), "{}", r[0].text);
    let r = t.dm(1, "setup 518").await;
    assert!(private_to(&r, &t.players[1])[0].text.contains("RNBQKBNR"));
    let room = room_of(&r);
    assert!(room.text.contains("Black has chosen"), "{}", room.text);
    assert!(!room.text.contains("RNBQKBNR") && !room.text.contains("518"));
    assert_eq!(
        room.place.as_ref(),
        Some(&t.room),
        "public part goes to the game's room"
    );
    let r = t.dm(0, "setup rnbqkbnr").await;
    assert!(room_of(&r).text.contains("begins"));
    for p in &t.players {
        let mine = private_to(&r, p);
        assert!(
            mine.iter().any(|m| m.board.is_some()),
            "each gets his world"
        );
    }

    // White: e2e4 falls through to the Mirror.
    let r = t.dm(0, "e2e4").await;
    assert!(room_of(&r).text.contains("White has moved"));
    assert!(!room_of(&r).text.contains("e4"), "{}", room_of(&r).text);
    let to_black = private_to(&r, &t.players[1])[0];
    assert!(to_black.text.contains("R:e4"), "{}", to_black.text);
    assert!(to_black.text.contains("portal"), "{}", to_black.text);
    // An out-of-turn order is refused without effect.
    let r = t.dm(0, "d2d4").await;
    assert!(r[0].text.contains("not your turn"), "{}", r[0].text);

    // A restart loses nothing: the next order is checked against the stored game.
    t.restart();
    // Black captures the fallen Pawn? It stands on M:e4; Black's d7-d5 goes to R:d5.
    let r = t.dm(1, "d7d5").await;
    assert!(room_of(&r).text.contains("Black has moved"), "{:?}", r);
    // White's blind order: the Pawn on M:e4 cannot go to M:e6: a strike.
    let r = t.dm(0, "M:e4e6").await;
    assert!(
        room_of(&r).text.contains("strike 1 of 3"),
        "{}",
        room_of(&r).text
    );
    let to_white = private_to(&r, &t.players[0])[0];
    assert!(to_white.text.contains("impossible"));
    let to_black = private_to(&r, &t.players[1])[0];
    assert!(
        to_black.text.contains("M:e4e6"),
        "the executor heard the order"
    );
    // Ask: privately, yes or no.
    let r = t.dm(0, "ask").await;
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].audience, Audience::Private(t.players[0].id.clone()));
    assert!(r[0].text.contains("yes"), "{}", r[0].text);
    // History is secret until the end; takebacks do not exist.
    let r = t.room(1, "history").await;
    assert!(r[0].text.contains("revealed"), "{}", r[0].text);
    let r = t.room(0, "takeback").await;
    assert!(r[0].text.contains("no takebacks"), "{}", r[0].text);
    // Spectators' board: public status only.
    let r = t
        .svc
        .handle_text(&actor("carol"), &t.room, "board #1")
        .await;
    assert_eq!(r[0].audience, Audience::Room);
    assert!(r[0].board.is_none());
    assert!(
        r[0].text.contains("Strikes: White 1, Black 0"),
        "{}",
        r[0].text
    );

    // Two more impossible orders lose.
    t.dm(0, "M:a1a2").await;
    let r = t.dm(0, "M:a1a2").await;
    assert!(
        room_of(&r).text.contains("Black wins"),
        "{}",
        room_of(&r).text
    );
    // The ending reaches each player's private channel too, once (issue: a third strike
    // and a King captured used to tell the game's room only).
    for who in [0, 1] {
        let told: Vec<_> = private_to(&r, &t.players[who])
            .into_iter()
            .filter(|x| x.text.contains("Third strike — Black wins."))
            .collect();
        assert_eq!(told.len(), 1, "player {who}: {r:#?}");
    }
    let reveal = r
        .iter()
        .find(|x| x.audience == Audience::Room && x.text.contains("revealed"))
        .unwrap();
    assert!(reveal.text.contains("RNBQKBNR"));
    assert!(reveal.text.contains("w R:e2e4"));
    let view = picture::board_view(reveal.board.as_ref().unwrap(), &Catalog::builtin()).unwrap();
    assert_eq!(view.boards.len(), 2);
    assert!(view.boards.iter().all(|b| !b.veiled), "both worlds shown");
    assert_eq!(
        t.record().await.status,
        GameStatus::Finished {
            result: bot_core::model::GameResult::Win(1),
            reason: bot_core::model::EndReason::ThirdStrike
        }
    );
    let r = t.room(1, "history").await;
    assert!(r[0].text.contains("w setup RNBQKBNR"), "{}", r[0].text);
}

#[tokio::test]
async fn the_game_is_listed_and_explained() {
    let t = Table::new();
    let r = t.room(0, "variants").await;
    assert!(r[0].text.contains("`looking-glass`"), "{}", r[0].text);
    assert!(r[0].text.contains("`looking-glass-no-strikes`"));
    let r = t.room(0, "rules looking-glass").await;
    assert!(r[0].text.contains("strike"), "{}", r[0].text);
    let r = t.room(0, "piece looking-glass knight").await;
    assert!(r[0].text.contains("Knight"), "{}", r[0].text);
    let r = t.room(0, "ask").await;
    assert!(r[0].text.contains("no game"), "{}", r[0].text);
}

#[tokio::test]
async fn resignation_reveals_and_no_strikes_form_hands_the_move_over() {
    let t = Table::new();
    t.start("looking-glass-no-strikes").await;
    t.dm(0, "setup 518").await;
    t.dm(1, "setup 518").await;
    let r = t.dm(0, "M:a1a2").await;
    assert!(
        room_of(&r).text.contains("Black chooses White's move"),
        "{}",
        room_of(&r).text
    );
    let to_black = private_to(&r, &t.players[1])[0];
    assert!(
        to_black.text.contains("choose a move for White"),
        "{}",
        to_black.text
    );
    // Black moves White's Pawn (on White's world, blind for Black).
    let r = t.dm(1, "R:e2e3").await;
    assert!(
        room_of(&r).text.contains("Black has moved for White"),
        "{}",
        room_of(&r).text
    );
    let r = t.room(1, "resign").await;
    assert!(r[0].text.contains("resigns"));
    assert!(
        r.iter()
            .any(|x| x.text.contains("revealed") && x.board.is_some())
    );
}

// ----- the privacy property ------------------------------------------------------------------

/// Squares named in a text (`R:e4`, `M:a8`).
fn squares(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    for i in 0..b.len().saturating_sub(3) {
        if (b[i] == b'R' || b[i] == b'M')
            && b[i + 1] == b':'
            && (b'a'..=b'h').contains(&b[i + 2])
            && (b'1'..=b'8').contains(&b[i + 3])
        {
            out.push(text[i..i + 4].to_string());
        }
    }
    out
}

/// The squares an order names, on its world (`R:b6b6` names R:b6 twice): a reply to its
/// author may quote them back, since he typed them.
fn typed_squares(order: &str) -> HashSet<String> {
    let (world, rest) = match order.split_once(':') {
        Some((w @ ("R" | "M"), rest)) => (w, rest),
        _ => return HashSet::new(),
    };
    let b = rest.as_bytes();
    (0..b.len().saturating_sub(1))
        .filter(|&i| (b'a'..=b'h').contains(&b[i]) && (b'1'..=b'8').contains(&b[i + 1]))
        .map(|i| format!("{world}:{}", &rest[i..i + 2]))
        .collect()
}

/// Pieces placed by a text: "your Knight on R:f3", "the Black Pawn on M:e5".
fn placed(text: &str, me: Side) -> Vec<(Side, String, String)> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == '.')
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    for i in 0..words.len().saturating_sub(2) {
        let kinds = ["King", "Queen", "Rook", "Bishop", "Knight", "Pawn"];
        if words[i + 1] != "on" || !kinds.contains(&words[i]) {
            continue;
        }
        let Some(sq) = squares(words[i + 2]).pop() else {
            continue;
        };
        let side = match (i >= 1).then(|| words[i - 1].to_lowercase()).as_deref() {
            Some("your") => me,
            Some("white" | "white's") => Side::WHITE,
            Some("black" | "black's") => Side::BLACK,
            _ => continue,
        };
        out.push((side, words[i].to_string(), sq));
    }
    out
}

/// What one player is entitled to, from the engine alone.
struct Entitled {
    squares: HashSet<String>,
    pieces: HashSet<(Side, String, String)>,
}

fn entitled(game: &Glass, side: Side, history: &mut HashSet<(Side, String, String)>) -> Entitled {
    let v = game.variant();
    let g = &v.geometry;
    let mut squares: HashSet<String> = g
        .cells()
        .filter(|c| game.world(*c) == glass::world_of(side))
        .map(|c| g.name(c).to_string())
        .collect();
    let name = |p: &Piece| v.piece(p.kind).name.clone();
    let view = game.view(side);
    for (c, p) in view.world.iter().chain(&view.elsewhere) {
        history.insert((p.side, name(p), g.name(*c).to_string()));
    }
    for f in game.told(side) {
        squares.extend(f.cells().into_iter().map(|c: Cell| g.name(c).to_string()));
        for (p, c) in f.pieces() {
            history.insert((p.side, name(&p), g.name(c).to_string()));
        }
        // Partial or captured: the piece stood on each named square along the way.
        if let glass::Fact::Seen { piece, from, .. } | glass::Fact::Carried { piece, from, .. } = f
        {
            history.insert((piece.side, name(piece), g.name(*from).to_string()));
        }
    }
    for (_, _, sq) in history.iter() {
        squares.insert(sq.clone());
    }
    Entitled {
        squares,
        pieces: history.clone(),
    }
}

/// Checks one reply against what its audience may know. `typed` is the command's author and
/// text, whose squares he may be quoted. Returns the failures.
fn check(
    reply: &Reply,
    game: &Glass,
    seats: &[PlayerId],
    history: &mut [HashSet<(Side, String, String)>; 2],
    over: bool,
    typed: Option<(&PlayerId, &str)>,
) -> Vec<String> {
    let echo = |to: &PlayerId| match typed {
        Some((author, text)) if author == to => typed_squares(text),
        _ => HashSet::new(),
    };
    let mut bad = Vec::new();
    let text = reply.render_text(|p| p.user.clone());
    match &reply.audience {
        Audience::Room | Audience::Actor if over => {}
        Audience::Room | Audience::Actor => {
            if let Some(sq) = squares(&text).first() {
                bad.push(format!("room/actor text names {sq}: {text}"));
            }
            if let Some(b) = &reply.board {
                bad.push(format!("a public picture during the game: {}", b.state));
            }
            for secret in ["setup ", "RNBQKBNR"] {
                if text.contains(secret) && !text.contains("`setup") {
                    bad.push(format!("room text with {secret:?}: {text}"));
                }
            }
        }
        Audience::Private(p) => {
            let seat = seats
                .iter()
                .position(|s| s == p)
                .expect("private to a player");
            let side = Side(seat as u8);
            let e = entitled(game, side, &mut history[seat]);
            let echo = echo(p);
            for sq in squares(&text) {
                if !e.squares.contains(&sq) && !echo.contains(&sq) {
                    bad.push(format!("{} was told about {sq}: {text}", side.name(2)));
                }
            }
            for piece in placed(&text, side) {
                if !e.pieces.contains(&piece) {
                    bad.push(format!("{} was told {piece:?}: {text}", side.name(2)));
                }
            }
            if let Some(b) = &reply.board {
                let view = picture::board_view(b, &Catalog::builtin()).expect("picture");
                let truth = game.view(side);
                let v = game.variant();
                let g = &v.geometry;
                let mut drawn: Vec<(u8, u8, u8, String)> = view
                    .pieces
                    .iter()
                    .map(|pp| {
                        (
                            pp.square.board,
                            pp.square.x,
                            pp.square.y,
                            format!("{:?}", pp.piece),
                        )
                    })
                    .collect();
                let mut want: Vec<(u8, u8, u8, String)> = truth
                    .world
                    .iter()
                    .map(|x| (0, x))
                    .chain(truth.elsewhere.iter().map(|x| (1, x)))
                    .map(|(panel, (c, pc))| {
                        let i = g.info(*c);
                        let pt = v.piece(pc.kind);
                        let army = if pc.side == Side::WHITE {
                            render::Army::White
                        } else {
                            render::Army::Black
                        };
                        let glyph = match pt.letter {
                            'K' => render::Glyph::King,
                            'Q' => render::Glyph::Queen,
                            'R' => render::Glyph::Rook,
                            'B' => render::Glyph::Bishop,
                            'N' => render::Glyph::Knight,
                            _ => render::Glyph::Pawn,
                        };
                        (
                            panel,
                            i.file,
                            i.rank,
                            format!("{:?}", render::Piece::new(army, glyph)),
                        )
                    })
                    .collect();
                drawn.sort();
                want.sort();
                if drawn != want {
                    bad.push(format!(
                        "{}'s picture differs from his view: drawn {drawn:?}, view {want:?}",
                        side.name(2)
                    ));
                }
                if view.boards[0].veiled || !view.boards[1].veiled {
                    bad.push(
                        "the private picture must show the own world and veil the other".into(),
                    );
                }
            }
        }
    }
    bad
}

#[tokio::test]
async fn privacy_no_reply_tells_more_than_the_engine_gave_its_audience() {
    let mut rng = Lcg(11);
    let mut checked = 0usize;
    for game_no in 0..12 {
        let t = Table::new();
        t.start(if game_no % 3 == 2 {
            "looking-glass-no-strikes"
        } else {
            "looking-glass"
        })
        .await;
        let rules = if game_no % 3 == 2 {
            GlassRules { no_strikes: true }
        } else {
            GlassRules::default()
        };
        let mut history = [HashSet::new(), HashSet::new()];
        for side in [1usize, 0] {
            let choice = match rng.next() % 3 {
                0 => "random".to_string(),
                1 => (rng.next() % 960).to_string(),
                _ => rules::chess960::back_rank((rng.next() % 960) as u16).unwrap(),
            };
            let r = t.dm(side, &format!("setup {choice}")).await;
            let rec = t.record().await;
            let game = Glass::replay(glass::variant(), rules, &rec.moves).unwrap();
            for reply in &r {
                let bad = check(reply, &game, &rec.seats, &mut history, false, None);
                assert!(bad.is_empty(), "{bad:#?}");
                checked += 1;
            }
        }
        for _ in 0..70 {
            let rec = t.record().await;
            if !rec.status.is_active() {
                break;
            }
            let game = Glass::replay(glass::variant(), rules, &rec.moves).unwrap();
            let side = game.turn();
            let army = if game.is_forced() {
                glass::other(side)
            } else {
                side
            };
            let world = (rng.next() % 2) as u8;
            let moves = game.moves_on(army, world);
            let roll = rng.next() % 20;
            let (who, text, from_room) = if roll == 0 {
                (side.index(), "ask".to_string(), false)
            } else if roll == 1 {
                (side.index(), "board".to_string(), false)
            } else if roll == 2 {
                (side.index(), "moves".to_string(), true)
            } else if roll == 3 {
                // The opponent out of turn, in the room.
                (1 - side.index(), "e2e4".to_string(), true)
            } else if moves.is_empty() || roll == 4 {
                let f = b"abcdefgh";
                (
                    side.index(),
                    format!(
                        "{}:{}{}{}{}",
                        if world == 0 { 'R' } else { 'M' },
                        f[(rng.next() % 8) as usize] as char,
                        1 + rng.next() % 8,
                        f[(rng.next() % 8) as usize] as char,
                        1 + rng.next() % 8
                    ),
                    false,
                )
            } else {
                (
                    side.index(),
                    moves[(rng.next() as usize) % moves.len()].clone(),
                    false,
                )
            };
            let r = if from_room {
                t.room(who, &text).await
            } else {
                t.dm(who, &text).await
            };
            let rec = t.record().await;
            let over = !rec.status.is_active();
            let game = Glass::replay(glass::variant(), rules, &rec.moves).unwrap();
            for reply in &r {
                let is_reveal = over && reply.text.contains("revealed");
                let bad = check(
                    reply,
                    &game,
                    &rec.seats,
                    &mut history,
                    is_reveal,
                    Some((&t.players[who].id, &text)),
                );
                assert!(bad.is_empty(), "after {text:?}: {bad:#?}");
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "only {checked} replies checked");
}

#[test]
fn the_checker_catches_a_leak() {
    // The property must be able to fail: Black's facts sent to White are caught.
    let mut g = Glass::new(GlassRules::default());
    g.choose(Side::WHITE, glass::BackRank::orthodox()).unwrap();
    g.choose(Side::BLACK, glass::BackRank::orthodox()).unwrap();
    g.order(Side::WHITE, "g1f3").unwrap();
    let r = g.order(Side::BLACK, "b8c6").unwrap();
    let v = g.variant();
    let leak = r.told[1]
        .iter()
        .map(|f| glass::describe(v, Side::WHITE, f))
        .collect::<Vec<_>>()
        .join(" ");
    let seats = [actor("alice").id, actor("bob").id];
    let reply = Reply::private(seats[0].clone(), leak);
    let mut history = [HashSet::new(), HashSet::new()];
    assert!(!check(&reply, &g, &seats, &mut history, false, None).is_empty());
    // And a picture of Black's view sent to White.
    let mut reply = Reply::private(seats[0].clone(), "board");
    reply.board = Some(bot_core::reply::BoardPicture {
        game: Some(bot_core::model::GameId(1)),
        diagram: None,
        engine: bot_core::rules_engine::EngineKind::Glass,
        variant: glass::NAME.into(),
        state: g.view(Side::BLACK).text(v),
        last_move: None,
        viewer: Some(1),
        players: vec![],
        clock: None,
    });
    assert!(!check(&reply, &g, &seats, &mut history, false, None).is_empty());
}

#[tokio::test]
async fn secrets_typed_outside_the_direct_chat_are_refused_unused() {
    let t = Table::new();
    t.start("looking-glass").await;
    // On Matrix the whole room reads a typed command: a back rank typed there is not used.
    let r = t.room(0, "setup RNBQKBNR").await;
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].audience, Audience::Actor);
    assert!(r[0].text.contains("direct chat"), "{}", r[0].text);
    assert!(!r[0].text.contains("RNBQKBNR"), "{}", r[0].text);
    assert_eq!(t.record().await.ply(), 0, "nothing stored");
    // Given privately, the same choices start the game.
    t.dm(0, "setup RNBQKBNR").await;
    let r = t.dm(1, "setup 518").await;
    assert!(room_of(&r).text.contains("begins"), "{r:?}");
    let before = t.record().await.ply();
    // An order typed in the room is refused and not played; by direct chat it is.
    let r = t.room(0, "e2e4").await;
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].audience, Audience::Actor);
    assert!(r[0].text.contains("orders are secret"), "{}", r[0].text);
    assert_eq!(t.record().await.ply(), before, "nothing played");
    // So is one typed in another public room, where the opponent may be reading too.
    let elsewhere = Place::room(Platform::Matrix, "!lobby:example.org");
    for text in ["e2e4", "move e2e4", "setup 518"] {
        let r = t.svc.handle_text(&t.players[0], &elsewhere, text).await;
        assert_eq!(r.len(), 1, "{text}: {r:?}");
        assert_eq!(r[0].audience, Audience::Actor, "{text}");
        assert!(r[0].text.contains("are secret"), "{text}: {}", r[0].text);
        assert_eq!(t.record().await.ply(), before, "{text}: nothing played");
    }
    let r = t.dm(0, "e2e4").await;
    assert!(room_of(&r).text.contains("White has moved"), "{r:?}");
}

#[tokio::test]
async fn a_game_can_be_aborted_until_both_sides_have_moved_setups_aside() {
    // Stuck in the setup (the opponent never chooses): the waiting player aborts.
    let t = Table::new();
    t.start("looking-glass").await;
    t.dm(0, "setup 518").await;
    let r = t.room(0, "abort").await;
    assert!(r[0].text.contains("aborted"), "{r:?}");
    assert_eq!(t.record().await.status, GameStatus::Aborted);
    assert!(!r[0].text.contains("518"), "{r:?}");

    // Both back ranks chosen, one move made: still abortable; after both moves, not.
    let t = Table::new();
    t.start("looking-glass").await;
    t.dm(0, "setup 518").await;
    t.dm(1, "setup 518").await;
    t.dm(0, "e2e4").await;
    let r = t.room(1, "abort").await;
    assert!(r[0].text.contains("aborted"), "{r:?}");

    let t = Table::new();
    t.start("looking-glass").await;
    t.dm(0, "setup 518").await;
    t.dm(1, "setup 518").await;
    t.dm(0, "e2e4").await;
    t.dm(1, "e7e5").await;
    let r = t.room(0, "abort").await;
    assert!(r[0].text.contains("can no longer be aborted"), "{r:?}");
    assert!(t.record().await.status.is_active());
}

/// A log sink shared with the test.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn no_secret_reaches_the_logs_at_trace_level() {
    let captured = Captured::default();
    let sink = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::FULL)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    // For the whole process: other tests' games are logged too (and must not leak either).
    // A subscriber for this thread alone would miss spans other threads met first.
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let t = Table::new();
    t.start("looking-glass").await;
    // Back ranks unlike any other text, so a leak cannot hide.
    let ranks = ["BBQNNRKR", "RKRBBQNN"];
    let mut secrets: Vec<String> = ranks.iter().map(|r| r.to_string()).collect();
    for (side, rank) in ranks.iter().enumerate() {
        t.dm(side, &format!("setup {rank}")).await;
    }
    let mut rng = Lcg(29);
    for _ in 0..40 {
        let rec = t.record().await;
        if !rec.status.is_active() {
            break;
        }
        let game = Glass::replay(glass::variant(), GlassRules::default(), &rec.moves).unwrap();
        let side = game.turn();
        let world = (rng.next() % 2) as u8;
        let moves = game.moves_on(side, world);
        let order = if moves.is_empty() {
            "M:h8h1".to_string()
        } else {
            moves[(rng.next() as usize) % moves.len()].clone()
        };
        secrets.push(order.clone());
        t.dm(side.index(), &order).await;
        // A refused order, typed in the room: refused unread, and not logged either.
        t.room(side.index(), "R:a1a8").await;
    }
    t.room(0, "resign").await;

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    // The logs are there (so the test can fail): every command's span, with its game.
    assert!(logs.contains("name=\"setup\""), "{logs}");
    assert!(logs.contains("game=1"), "{logs}");
    for secret in &secrets {
        assert!(
            !logs.contains(secret.as_str()),
            "{secret:?} is in the logs:\n{logs}"
        );
    }
    assert!(!logs.contains("R:a1a8"), "a refused order is in the logs");
}

/// Issue 27: a refused `setup` never confirms a back rank (it used to answer "Your back rank
/// is …, only you know it" and then refuse), and says what to do instead.
#[tokio::test]
async fn a_refused_setup_confirms_nothing() {
    let t = Table::new();
    t.start("looking-glass").await;
    t.dm(0, "setup 518").await;
    // Chosen already: the second choice is refused, and not called his back rank.
    let r = t.dm(0, "setup 0").await;
    assert_eq!(r.len(), 1, "{r:#?}");
    assert!(!r[0].text.contains("Your back rank is"), "{}", r[0].text);
    assert!(!r[0].text.contains("BBQNNRKR"), "{}", r[0].text);
    assert!(r[0].text.contains("RNBQKBNR"), "{}", r[0].text);
    t.dm(1, "setup 518").await;
    // Under way: refused, nothing confirmed, and told to give orders instead.
    let r = t.dm(1, "setup 0").await;
    assert_eq!(r.len(), 1, "{r:#?}");
    assert!(!r[0].text.contains("Your back rank is"), "{}", r[0].text);
    assert!(!r[0].text.contains("BBQNNRKR"), "{}", r[0].text);
    assert!(r[0].text.contains("under way"), "{}", r[0].text);
    assert!(r[0].text.contains("e7e5"), "{}", r[0].text);
}

/// Issue 27: `ask`'s "no" does not claim a move, and `moves SQUARE` lists that square's
/// moves only, or says why there are none.
#[tokio::test]
async fn ask_says_no_truthfully_and_moves_filters_by_square() {
    let t = Table::new();
    t.start("looking-glass").await;
    t.dm(0, "setup 518").await;
    t.dm(1, "setup 518").await;
    // At the start White has nothing on the Mirror world.
    let r = t.dm(0, "ask").await;
    assert_eq!(r.len(), 1);
    assert!(r[0].text.contains("no"), "{}", r[0].text);
    assert!(
        !r[0].text.contains("you have a legal move"),
        "{}",
        r[0].text
    );
    assert!(r[0].text.contains("no legal move"), "{}", r[0].text);
    let r = t.dm(0, "moves e2").await;
    assert_eq!(r.len(), 1);
    assert!(r[0].text.contains("e2e4"), "{}", r[0].text);
    assert!(!r[0].text.contains("g1f3"), "{}", r[0].text);
    assert!(
        r[0].text.contains("2 legal moves from R:e2"),
        "{}",
        r[0].text
    );
    let r = t.dm(0, "moves e4").await;
    assert!(
        r[0].text.contains("no legal move from R:e4"),
        "{}",
        r[0].text
    );
    // A square of the world he cannot see: refused, with what to do instead.
    let r = t.dm(0, "moves M:e2").await;
    assert!(r[0].text.contains("cannot see"), "{}", r[0].text);
    assert!(r[0].text.contains("ask"), "{}", r[0].text);
    let r = t.dm(0, "moves z9").await;
    assert!(r[0].text.contains("not a square"), "{}", r[0].text);
}
