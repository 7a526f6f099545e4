//! Four-player games through the service (issue 14): challenges to three players, seats,
//! agreement by several players, resignation and elimination as moves, the last checkmate,
//! the pictures each player sees; then the property over random four-player games.
//!
//! The lifecycles are data: `tests/data/four_player/*.scenario`, one command per line and
//! what must follow it (the format is read by [`run_scenario`] and described at its top), so
//! a new case is a few lines of text.

use std::{path::Path, sync::Arc};

use bot_core::{
    Actor, GameService, SeededChance,
    model::{EndReason, GameRecord, GameResult, GameStatus, Place, Platform, PlayerId},
    reply::{Audience, Reply},
    store::{GameFilter, GameStore, memory::MemoryStore},
};
use rules::{Catalog, Position, notation};

mod common;
use common::*;

/// A console player (the console reads `@name` as the player `name`, so scenarios can name
/// players plainly).
fn player(name: &str) -> Actor {
    Actor::new(PlayerId::new(Platform::Console, name), name)
}

struct Table {
    store: MemoryStore,
    svc: GameService<MemoryStore, TestClock>,
    place: Place,
    catalog: Arc<Catalog>,
}

impl Table {
    fn new(seed: u64) -> Table {
        let store = MemoryStore::new();
        let catalog = Arc::new(Catalog::builtin());
        Table {
            svc: GameService::new(store.clone(), TestClock::default(), catalog.clone())
                .with_chance(SeededChance::new(seed)),
            store,
            place: Place::room(Platform::Console, "table"),
            catalog,
        }
    }

    /// `who` types `text` at the table, or in his direct chat with the bot when written
    /// `who@dm`.
    async fn say(&self, who: &str, text: &str) -> Vec<Reply> {
        match who.strip_suffix("@dm") {
            Some(name) => {
                let dm = Place::direct(Platform::Console, format!("dm-{name}"));
                self.svc.handle_text(&player(name), &dm, text).await
            }
            None => self.svc.handle_text(&player(who), &self.place, text).await,
        }
    }

    async fn game(&self) -> Option<GameRecord> {
        self.store
            .list_games(&GameFilter::default())
            .await
            .unwrap()
            .into_iter()
            .next()
    }
}

/// A reply's text with each mention written as the player's name.
fn rendered(r: &Reply) -> String {
    r.render_text(|p| p.user.clone())
}

fn audience_name(r: &Reply) -> &'static str {
    match r.audience {
        Audience::Room => "room",
        Audience::Actor => "actor",
        Audience::Private(_) => "private",
    }
}

/// The status a scenario line names: `active`, `aborted`, `draw REASON`, `win COLOUR REASON`.
fn parse_status(words: &[&str]) -> GameStatus {
    let reason = |w: &str| EndReason::parse(w).unwrap_or_else(|e| panic!("{e}"));
    match words {
        ["active"] => GameStatus::Active,
        ["aborted"] => GameStatus::Aborted,
        ["draw", r] => GameStatus::Finished {
            result: GameResult::Draw,
            reason: reason(r),
        },
        ["win", colour, r] => {
            let seat = ["red", "blue", "yellow", "green"]
                .iter()
                .position(|c| c == colour)
                .unwrap_or_else(|| panic!("no colour {colour}"));
            GameStatus::Finished {
                result: GameResult::Win(seat as u8),
                reason: reason(r),
            }
        }
        other => panic!("unreadable status {other:?}"),
    }
}

/// Runs one scenario file. Lines:
///
/// - `NAME: TEXT` — player NAME (a console user) types TEXT at the table; `NAME@dm: TEXT` in
///   his direct chat with the bot;
/// - `  game ~ PART` — a room reply for the game's room (wherever the command was typed)
///   contains PART;
/// - `  room ~ PART`, `  actor ~ PART`, `  private ~ PART` — some reply of the last command
///   with that audience contains PART (mentions written as player names);
/// - `  only actor` — every reply went to the typist alone (a refusal: nothing changed);
/// - `  no room ~ PART` — no room reply contains PART;
/// - `  mentions NAME...` — the first room reply mentions exactly these players, in any order;
/// - `  status STATUS` — the newest game's status (see [`parse_status`]);
/// - `  seats NAME...` — the newest game's seats in order;
/// - `  out COLOUR...` — the players drawn as out on the newest game's picture (none: `out`);
/// - `  picture NAME ROTATION` — the picture of the last reply with a board, drawn for NAME's
///   seat, has that rotation (`None`, `Clockwise`, `Half`, `Anticlockwise`);
/// - `# ...` and empty lines are comments.
async fn run_scenario(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let seed = 7;
    let t = Table::new(seed);
    let mut last: Vec<Reply> = Vec::new();
    let mut last_cmd = String::new();
    let mut board: Option<bot_core::reply::BoardPicture> = None;
    for (n, line) in text.lines().enumerate() {
        let at = format!("{}:{}", path.display(), n + 1);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let dump = |last: &[Reply]| {
            last.iter()
                .map(|r| format!("[{}] {}", audience_name(r), rendered(r)))
                .collect::<Vec<_>>()
                .join("\n")
        };
        if !line.starts_with(' ') {
            let (who, said) = trimmed
                .split_once(':')
                .unwrap_or_else(|| panic!("{at}: expected `NAME: TEXT`"));
            last_cmd = format!("{who}: {}", said.trim());
            last = t.say(who.trim(), said.trim()).await;
            if let Some(b) = last.iter().rev().find_map(|r| r.board.clone()) {
                board = Some(b);
            }
            continue;
        }
        let words: Vec<&str> = trimmed.split_whitespace().collect();
        match words.as_slice() {
            [aud @ ("room" | "actor" | "private"), "~", ..] => {
                let part = trimmed.split_once('~').unwrap().1.trim();
                assert!(
                    last.iter()
                        .any(|r| audience_name(r) == *aud && rendered(r).contains(part)),
                    "{at}: after `{last_cmd}` no {aud} reply contains {part:?}; got:\n{}",
                    dump(&last)
                );
            }
            ["game", "~", ..] => {
                // A room reply addressed to the game's room, wherever the command was typed.
                let part = trimmed.split_once('~').unwrap().1.trim();
                assert!(
                    last.iter().any(|r| r.audience == Audience::Room
                        && r.place.as_ref().is_some_and(|p| p.same_room(&t.place))
                        && rendered(r).contains(part)),
                    "{at}: after `{last_cmd}` nothing for the game's room contains {part:?}:\n{}",
                    dump(&last)
                );
            }
            ["no", "room", "~", ..] => {
                let part = trimmed.split_once('~').unwrap().1.trim();
                assert!(
                    !last
                        .iter()
                        .any(|r| r.audience == Audience::Room && rendered(r).contains(part)),
                    "{at}: after `{last_cmd}` a room reply contains {part:?}:\n{}",
                    dump(&last)
                );
            }
            ["only", "actor"] => assert!(
                !last.is_empty() && last.iter().all(|r| r.audience == Audience::Actor),
                "{at}: after `{last_cmd}` expected a refusal only; got:\n{}",
                dump(&last)
            ),
            ["mentions", names @ ..] => {
                let room = last
                    .iter()
                    .find(|r| r.audience == Audience::Room)
                    .unwrap_or_else(|| panic!("{at}: no room reply:\n{}", dump(&last)));
                let mut got: Vec<String> = room.mentions.iter().map(|p| p.user.clone()).collect();
                got.sort();
                got.dedup();
                let mut want: Vec<String> = names.iter().map(|s| s.to_string()).collect();
                want.sort();
                assert_eq!(got, want, "{at}: mentions of {:?}", rendered(room));
            }
            ["status", rest @ ..] => {
                let g = t.game().await.unwrap_or_else(|| panic!("{at}: no game"));
                assert_eq!(g.status, parse_status(rest), "{at}");
            }
            ["seats", names @ ..] => {
                let g = t.game().await.unwrap_or_else(|| panic!("{at}: no game"));
                let got: Vec<&str> = g.seats.iter().map(|p| p.user.as_str()).collect();
                assert_eq!(got, names, "{at}");
            }
            ["out", colours @ ..] => {
                let b = board
                    .clone()
                    .unwrap_or_else(|| panic!("{at}: no picture yet"));
                let view = bot_core::picture::board_view(&b, &t.catalog).unwrap();
                let out: Vec<String> = view
                    .players
                    .iter()
                    .filter(|p| p.eliminated)
                    .map(|p| format!("{:?}", p.army).to_lowercase())
                    .collect();
                assert_eq!(out, colours, "{at}: players drawn as out");
            }
            ["picture", name, rotation] => {
                let mut b = board
                    .clone()
                    .unwrap_or_else(|| panic!("{at}: no picture yet"));
                let g = t.game().await.unwrap();
                let seat = g
                    .seats
                    .iter()
                    .position(|p| p.user == *name)
                    .unwrap_or_else(|| panic!("{at}: {name} has no seat"));
                b.viewer = Some(seat as u8);
                let view = bot_core::picture::board_view(&b, &t.catalog).unwrap();
                assert_eq!(format!("{:?}", view.rotation), *rotation, "{at}");
            }
            other => panic!("{at}: unreadable line {other:?}"),
        }
    }
}

#[tokio::test]
async fn scenarios() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/four_player");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "scenario"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenarios in {}", dir.display());
    for f in files {
        println!("scenario {}", f.display());
        run_scenario(&f).await;
    }
}

// ---------------------------------------------------------------------------------------------
// The property over random games

const NAMES: [&str; 4] = ["ann", "ben", "cy", "dee"];

/// Random four-player games through the service, from the challenge to the end (or a ply
/// cap), the players picking random legal moves and now and then resigning, offering a
/// draw or a takeback. After every command, the service and an engine replaying the same
/// moves must agree: who is to move (only he may move; the others are refused, and so are
/// players who are out), that every move reaches the room mentioning the player now to move,
/// that each elimination is announced with the player's colour, that the stored status is
/// the engine's outcome, and that the stored record replays to the same position.
#[tokio::test]
async fn random_four_player_games_keep_service_and_engine_in_step() {
    let games: u64 = std::env::var("FOUR_PLAYER_GAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    let variants = [
        "dcb-balanced-4p",
        "dcb-wildebeest-4p-quadruple",
        "dcb-kamil-4p",
    ];
    for seed in 0..games {
        let variant = variants[seed as usize % variants.len()];
        random_game(seed, variant).await;
    }
}

async fn random_game(seed: u64, variant: &str) {
    let t = Table::new(seed);
    let mut rng = Lcg(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) + 1);
    let ctx = format!("seed {seed}, {variant}");
    let r = t
        .say(
            NAMES[0],
            &format!("challenge @ben @cy @dee {variant} random"),
        )
        .await;
    assert_eq!(r[0].audience, Audience::Room, "{ctx}: {}", rendered(&r[0]));
    for name in &NAMES[1..] {
        t.say(name, "accept").await;
    }
    let record = t.game().await.expect("the game started");
    let seats: Vec<String> = record.seats.iter().map(|p| p.user.clone()).collect();
    let v = t.catalog.get(variant).unwrap();
    let mut pos = Position::start(&v);
    let mut plies = 0;
    let mut passes = 0;
    let mut eliminations = 0;
    for ply in 0..600 {
        plies = ply;
        let g = t.game().await.unwrap();
        if !g.status.is_active() {
            break;
        }
        let to_move = pos.turn().index();
        assert!(!pos.is_out(pos.turn()), "{ctx}: the side to move is out");
        // Somebody else tries to move now and then: refused, nothing changes.
        if rng.below(10) == 0 {
            let other = (to_move + 1 + rng.below(3)) % 4;
            let legal = pos.legal_moves();
            let m = legal[rng.below(legal.len())];
            let r = t.say(&seats[other], &notation::coord(&pos, m)).await;
            assert!(
                r.iter().all(|r| r.audience == Audience::Actor),
                "{ctx} ply {ply}: {} moved out of turn: {}",
                seats[other],
                rendered(&r[0])
            );
        }
        let roll = rng.below(250);
        let (who, text, mv) = if roll == 0 {
            // A random player still in resigns.
            let remaining = pos.remaining();
            let side = remaining[rng.below(remaining.len())];
            let m = pos.resignation(side).expect("a player still in can resign");
            (side.index(), "resign".to_string(), Some(m))
        } else if roll == 1 {
            (to_move, "draw".to_string(), None)
        } else {
            // Random, but a mate is never missed and checks are liked: games then reach
            // eliminations and last checkmates, not only resignations and draws.
            let legal = pos.legal_moves();
            let sans: Vec<String> = legal
                .iter()
                .map(|m| notation::san_among(&pos, *m, &legal))
                .collect();
            let mates: Vec<usize> = (0..legal.len())
                .filter(|&i| sans[i].ends_with('#'))
                .collect();
            let checks: Vec<usize> = (0..legal.len())
                .filter(|&i| sans[i].ends_with('+'))
                .collect();
            let pick = if !mates.is_empty() {
                mates[rng.below(mates.len())]
            } else if !checks.is_empty() && rng.below(3) == 0 {
                checks[rng.below(checks.len())]
            } else {
                rng.below(legal.len())
            };
            let m = legal[pick];
            let text = if rng.below(2) == 0 {
                notation::san(&pos, m)
            } else {
                notation::coord(&pos, m)
            };
            (to_move, text, Some(m))
        };
        let replies = t.say(&seats[who], &text).await;
        let room = replies
            .iter()
            .find(|r| r.audience == Audience::Room)
            .unwrap_or_else(|| {
                panic!(
                    "{ctx} ply {ply}: `{text}` by {} not announced: {}",
                    seats[who],
                    rendered(&replies[0])
                )
            });
        let Some(m) = mv else {
            // The draw offer: the others are asked, the game goes on; withdraw it by a
            // decline from the next player still in.
            let next = pos
                .remaining()
                .into_iter()
                .find(|s| s.index() != who)
                .unwrap();
            let r = t.say(&seats[next.index()], "draw decline").await;
            assert_eq!(r[0].audience, Audience::Room, "{ctx}: {}", rendered(&r[0]));
            continue;
        };
        pos.play(m).unwrap_or_else(|e| panic!("{ctx}: {e:?}"));
        let mated = pos.eliminated_by_last_move();
        let text = rendered(room);
        // Players left without a move pass; the bot plays it for them and says so.
        while pos.outcome().is_none() {
            let legal = pos.legal_moves();
            let [only] = legal.as_slice() else { break };
            if only.kind != rules::MoveKind::Pass {
                break;
            }
            let passer = pos.turn();
            assert!(
                text.contains(&format!("({}) has no move and passes", passer.name(4))),
                "{ctx} ply {ply}: the pass of {} not announced: {text}",
                passer.name(4)
            );
            passes += 1;
            pos.play(*only).unwrap();
        }
        eliminations += mated.len();
        let over = pos.outcome().is_some();
        for side in mated {
            // While the game goes on the player is out; the last one is named in the result.
            let said = if over {
                format!("checkmates {} ({})", seats[side.index()], side.name(4))
            } else {
                format!("({}) is checkmated and out", side.name(4))
            };
            assert!(
                text.contains(&said),
                "{ctx} ply {ply}: elimination of {} not announced: {text}",
                side.name(4)
            );
        }
        let g = t.game().await.unwrap();
        let expected = match pos.outcome() {
            None => GameStatus::Active,
            Some(_) => g.status.clone(),
        };
        assert_eq!(g.status, expected, "{ctx} ply {ply}");
        if g.status.is_active() {
            let next = &seats[pos.turn().index()];
            assert!(
                room.mentions.iter().any(|p| &p.user == next),
                "{ctx} ply {ply}: the player to move ({next}) is not mentioned: {text}"
            );
            assert!(text.contains(&format!("{next} ({}) to move", pos.turn().name(4))));
        } else {
            assert!(
                pos.outcome().is_some(),
                "{ctx}: finished without an outcome"
            );
            for s in &seats {
                assert!(
                    room.mentions.iter().any(|p| &p.user == s),
                    "{ctx}: the end does not reach {s}: {text}"
                );
            }
        }
        // The stored record replays to the engine's position.
        assert_eq!(
            g.moves.len(),
            pos.moves_played().count(),
            "{ctx} ply {ply}: stored moves"
        );
        let picture = room.board.as_ref().expect("a move shows the board");
        assert_eq!(picture.state, rules::fen::write(&pos), "{ctx} ply {ply}");
    }
    let g = t.game().await.unwrap();
    // Export names the four colours and reads back to the same moves.
    let exported = t.say(&seats[0], &format!("export #{}", g.id)).await;
    let text = &exported[0].text;
    for colour in ["Red", "Blue", "Yellow", "Green"] {
        assert!(text.contains(&format!("[{colour} \"")), "{ctx}: {text}");
    }
    let back = bot_core::export::import(&t.catalog, text)
        .unwrap_or_else(|e| panic!("{ctx}: the export does not import: {e}\n{text}"));
    assert_eq!(back.moves, g.moves, "{ctx}: moves after export and import");
    println!(
        "{ctx}: {plies} commands, {} moves ({passes} passes, {eliminations} checkmated), {:?}, out: {:?}",
        g.moves.len(),
        g.status,
        pos.variant()
            .all_sides()
            .filter(|s| pos.is_out(*s))
            .map(|s| s.name(4))
            .collect::<Vec<_>>()
    );
}

// ---------------------------------------------------------------------------------------------
// Pictures

/// Each player's picture is turned so that his camp on the lower board is at the bottom and
/// his pawns there advance up the picture, checked on the drawn cells (the renderer's own
/// layout) and on the pixels (the pawn's colour is found in the lower half, where the layout
/// says it is): Red as drawn, Blue a quarter turn clockwise (his camp is the right edge),
/// Yellow upside down, Green anticlockwise.
#[test]
fn each_player_sees_his_lower_camp_at_the_bottom() {
    let catalog = Catalog::builtin();
    let names: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
    for variant in ["dcb-balanced-4p", "dcb-knighted-4p-quadruple"] {
        let v = catalog.get(variant).unwrap();
        let start = rules::fen::write(&Position::start(&v));
        for seat in 0..4u8 {
            let side = rules::Side(seat);
            // The same start with this side to move, so his pawns' moves are listed.
            let mut fields: Vec<String> = start.split(' ').map(String::from).collect();
            fields[1] = side.name(4)[..1].to_lowercase();
            let pos = rules::fen::position(&v, &fields.join(" "))
                .unwrap_or_else(|e| panic!("{variant} {}: {e}", fields.join(" ")));
            assert_eq!(pos.turn(), side);
            let view = bot_core::picture::view(&pos, None, Some(seat), &names);
            let square = |c: rules::Cell| {
                let i = v.geometry.info(c);
                render::Square {
                    board: i.board,
                    x: i.file,
                    y: i.rank,
                }
            };
            let pawn_steps: Vec<rules::Move> = pos
                .legal_moves()
                .iter()
                .copied()
                .filter(|m| {
                    let (f, t) = (v.geometry.info(m.from), v.geometry.info(m.to));
                    let piece = pos.piece_at(m.from).unwrap();
                    v.piece(piece.kind).glyph == "pawn"
                        && pos.piece_at(m.to).is_none()
                        && f.rank < 8
                        && (i32::from(f.file) - i32::from(t.file)).abs()
                            + (i32::from(f.rank) - i32::from(t.rank)).abs()
                            == 1
                })
                .collect();
            assert!(
                pawn_steps.len() >= 4,
                "{variant}: {} has {} pawn steps on the lower board",
                side.name(4),
                pawn_steps.len()
            );
            let (_, canvas_h) = render::canvas_size(&view);
            let renderer = render::Renderer::new();
            let theme = render::Theme::light();
            let size = 640u32;
            let pixmap = renderer.pixmap(&view, &theme, size).unwrap();
            let (cw, ch) = render::canvas_size(&view);
            let scale = size as f32 / cw.max(ch);
            let fill = theme
                .army(view.players[usize::from(seat)].army)
                .fill
                .clone();
            let want = hex(&fill);
            for m in pawn_steps {
                let from = render::cell_bounds(&view, square(m.from)).unwrap();
                let to = render::cell_bounds(&view, square(m.to)).unwrap();
                assert!(
                    to[1] < from[1] && (to[0] - from[0]).abs() < 0.5,
                    "{variant}, {} viewing: the pawn step {} is drawn from {from:?} to {to:?}, not up",
                    side.name(4),
                    notation::coord(&pos, m)
                );
                // Yellow's lower camp faces Red's across the middle of the board: turned
                // over, it stays by the middle (just above it), its pawns still going up.
                let lowest = if seat == 2 { 0.3 } else { 0.5 };
                assert!(
                    from[1] > canvas_h * lowest,
                    "{variant}, {} viewing: his pawn on {} is drawn too high",
                    side.name(4),
                    v.geometry.name(m.from)
                );
                // The pixels: the pawn's army colour is inside the cell the layout gives.
                let found = (1..10).any(|i| {
                    (1..10).any(|j| {
                        let x = ((from[0] + from[2] * i as f32 / 10.0) * scale) as u32;
                        let y = ((from[1] + from[3] * j as f32 / 10.0) * scale) as u32;
                        pixmap.pixel(x, y).is_some_and(|p| {
                            let got = [p.red(), p.green(), p.blue()];
                            got.iter()
                                .zip(want)
                                .all(|(a, b)| (i32::from(*a) - i32::from(b)).abs() < 24)
                        })
                    })
                });
                assert!(
                    found,
                    "{variant}, {} viewing: no {fill} pixel where his pawn on {} is drawn",
                    side.name(4),
                    v.geometry.name(m.from)
                );
            }
        }
    }
}

/// `#rrggbb` as bytes.
fn hex(colour: &str) -> [u8; 3] {
    let c = colour.trim_start_matches('#');
    let byte = |i: usize| u8::from_str_radix(&c[i..i + 2], 16).unwrap();
    [byte(0), byte(2), byte(4)]
}
