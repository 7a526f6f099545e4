//! Search: determinism, mates found, legal moves only, four players.

use std::sync::Arc;

use engine::{Evaluator, Level, Player, Score, Searcher, level::Rng, search::Limits};
use rules::{Catalog, Move, Outcome, Position, WinReason, fen, notation};

fn searcher(variant: &str) -> (Arc<rules::Variant>, Searcher) {
    let v = Catalog::builtin().get(variant).unwrap();
    let s = Searcher::new(Arc::new(Evaluator::new(&v)), 4);
    (v, s)
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

fn mates(pos: &mut Position, m: Move) -> bool {
    pos.play_unchecked(m);
    let r = matches!(
        pos.outcome(),
        Some(Outcome::Win {
            reason: WinReason::Checkmate,
            ..
        })
    );
    pos.undo();
    r
}

#[test]
fn the_same_search_twice_gives_the_same_answer() {
    let (v, _) = searcher("chess");
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let run = || {
        let (_, mut s) = searcher("chess");
        let mut pos = fen::position(&v, fen).unwrap();
        let r = s.search(
            &mut pos,
            &Limits {
                nodes: Some(30_000),
                ..Limits::default()
            },
            |_| {},
        );
        (r.best, r.score, r.nodes, r.pv)
    };
    assert_eq!(run(), run());
    // A level with mistakes replays exactly from its seed.
    let play = |seed| {
        let eval = Arc::new(Evaluator::new(&v));
        let mut p = Player::new(eval, Level::new(1).unwrap(), seed);
        let mut pos = Position::start(&v);
        let mut line = Vec::new();
        for _ in 0..12 {
            let m = p.choose(&mut pos, &depth(1)).unwrap();
            line.push(m);
            pos.play_unchecked(m);
        }
        line
    };
    assert_eq!(play(7), play(7));
}

#[test]
fn finds_mate_in_one_and_two_in_chess() {
    let (v, mut s) = searcher("chess");
    let mut pos = fen::position(&v, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap();
    let r = s.search(&mut pos, &depth(4), |_| {});
    assert_eq!(notation::san(&pos, r.best.unwrap()), "Ra8#");
    assert_eq!(Score::from_internal(r.score), Score::Mate(1));
    // Morphy's problem: 1. Ra6! and 2. b7# (or axb7#) whatever Black does.
    let mut pos = fen::position(&v, "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1").unwrap();
    let r = s.search(&mut pos, &depth(5), |_| {});
    assert_eq!(notation::coord(&pos, r.best.unwrap()), "a1a6");
    assert_eq!(Score::from_internal(r.score), Score::Mate(2));
    // And the defender sees it coming.
    let mut pos = fen::position(&v, "kbK5/pp6/RP6/8/8/8/8/8 b - - 1 1").unwrap();
    let r = s.search(&mut pos, &depth(4), |_| {});
    assert_eq!(Score::from_internal(r.score), Score::Mate(-1));
}

#[test]
fn finds_mate_in_one_in_toulousain() {
    let (v, mut s) = searcher("toulousain");
    let mut pos = fen::position(&v, "k11/12/1K10/12/12/12/12/12/12/12/12/7R4 w - - 0 1").unwrap();
    let r = s.search(&mut pos, &depth(3), |_| {});
    let m = r.best.unwrap();
    assert!(mates(&mut pos, m), "{}", notation::san(&pos, m));
    assert_eq!(Score::from_internal(r.score), Score::Mate(1));
}

/// Plays seeded games preferring captures until the side to move has a mate in one, and
/// returns that position: positions a variant really produces, whatever its geometry.
fn position_with_mate_in_one(variant: &str, seed: u64) -> Option<Position> {
    let v = Catalog::builtin().get(variant).unwrap();
    let mut rng = Rng::new(seed);
    for _ in 0..200 {
        let mut pos = Position::start(&v);
        for _ in 0..300 {
            if pos.outcome().is_some() {
                break;
            }
            let moves = pos.legal_moves();
            if moves.iter().any(|m| mates(&mut pos, *m)) {
                return Some(pos);
            }
            let caps: Vec<Move> = moves.iter().copied().filter(|m| m.is_capture()).collect();
            let pool = if !caps.is_empty() && rng.below(3) > 0 {
                caps
            } else {
                moves
            };
            pos.play_unchecked(pool[rng.below(pool.len() as u64) as usize]);
        }
    }
    None
}

#[test]
fn finds_mate_in_one_on_double_cross_boards() {
    for variant in ["dcb-balanced", "dcb-kamil-moebius"] {
        let mut pos = position_with_mate_in_one(variant, 3).expect("a mate-in-one position");
        let (_, mut s) = searcher(variant);
        let r = s.search(&mut pos, &depth(2), |_| {});
        let m = r.best.unwrap();
        assert!(
            mates(&mut pos, m),
            "{variant}: {} in {}",
            notation::coord(&pos, m),
            fen::write(&pos)
        );
    }
}

#[test]
fn never_plays_an_illegal_move_in_any_variant() {
    let catalog = Catalog::builtin();
    let mut names = catalog.names();
    names.sort();
    for (i, name) in names.iter().enumerate() {
        let v = catalog.get(name).unwrap();
        let eval = Arc::new(Evaluator::new(&v));
        // One game between level 5 (node-limited) and level 1, the colours varying by variant.
        let mut players = [
            Player::new(eval.clone(), Level::MAX, i as u64),
            Player::new(eval, Level::new(1).unwrap(), i as u64 + 1),
        ];
        let mut pos = Position::start(&v);
        let limits = Limits {
            nodes: Some(400),
            depth: Some(3),
            ..Limits::default()
        };
        for ply in 0..40 {
            if pos.outcome().is_some() {
                break;
            }
            let p = &mut players[(ply + i) % 2];
            let m = p
                .choose(&mut pos.clone(), &limits)
                .expect("a move while the game goes on");
            assert!(
                pos.legal_moves().contains(&m),
                "{name}: illegal {m:?} in {}",
                fen::write(&pos)
            );
            pos.play(m).unwrap();
        }
    }
}

#[test]
fn four_players_get_a_legal_move_each_turn() {
    let (v, mut s) = searcher("dcb-balanced-4p");
    let mut pos = Position::start(&v);
    // A few plies in, every side still has its army; the search returns a legal move for
    // each side in turn, and the position is unchanged afterwards.
    for _ in 0..8 {
        search_and_play(&mut s, &mut pos, 3000);
    }
}

/// Searches `pos` within `nodes`, checks that the search left the position as it found it
/// and answered with a legal move, and plays that move.
fn search_and_play(s: &mut Searcher, pos: &mut Position, nodes: u64) {
    let before = pos.clone();
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let r = s.search(pos, &limits, |_| {});
    let variant = &pos.variant().name;
    assert!(*pos == before && pos.hash() == before.hash(), "{variant}");
    let m = r.best.unwrap();
    assert!(pos.legal_moves().contains(&m), "{variant}: {m:?}");
    pos.play(m).unwrap();
}

#[test]
fn four_player_search_survives_eliminations_and_passes() {
    // Best-Reply Search plays passes and other sides' moves inside the tree: over a whole
    // fast game (sides going out, passes) every search leaves the position as it found it
    // and answers with a legal move.
    let (v, mut s) = searcher("dcb-kamil-4p");
    let mut pos = Position::start(&v);
    let mut plies = 0;
    while pos.outcome().is_none() && plies < 160 {
        search_and_play(&mut s, &mut pos, 1500);
        plies += 1;
    }
}

#[test]
fn node_and_time_limits_stop_the_search() {
    let (v, mut s) = searcher("toulousain");
    let mut pos = Position::start(&v);
    let r = s.search(
        &mut pos,
        &Limits {
            nodes: Some(5_000),
            ..Limits::default()
        },
        |_| {},
    );
    assert!(r.nodes <= 5_000 + 1, "{}", r.nodes);
    assert!(r.best.is_some());
    let r = s.search(
        &mut pos,
        &Limits {
            time: Some(std::time::Duration::from_millis(30)),
            ..Limits::default()
        },
        |_| {},
    );
    assert!(r.best.is_some());
}

#[test]
fn a_dead_position_scores_as_a_draw() {
    // Capablanca, King and Bishop against King: every line stays dead, so the score is 0,
    // not the Bishop's worth.
    let (v, mut s) = searcher("capablanca");
    let mut pos = fen::position(&v, "k9/10/10/10/10/10/10/5B3K w - - 0 1").unwrap();
    let r = s.search(&mut pos, &depth(3), |_| {});
    assert_eq!(r.score, 0);
}

#[test]
fn courier_stalemate_and_bare_king_win_for_the_engine() {
    // Kc7 stalemates Black, which loses in Courier.
    let (v, mut s) = searcher("courier");
    let mut pos = fen::position(&v, "k11/p11/P1K9/12/12/12/12/12 w - - 0 1").unwrap();
    let r = s.search(&mut pos, &depth(3), |_| {});
    assert_eq!(notation::san(&pos, r.best.unwrap()), "Kc7");
    assert!(
        matches!(Score::from_internal(r.score), Score::Mate(1)),
        "{}",
        r.score
    );
    // Rxa2 bares Black's King while White keeps a Rook more than one capture can take.
    let mut pos = fen::position(&v, "k11/12/12/12/12/12/r11/R3R6K w - - 0 1").unwrap();
    let r = s.search(&mut pos, &depth(3), |_| {});
    assert_eq!(notation::san(&pos, r.best.unwrap()), "Rxa2+");
    assert!(
        matches!(Score::from_internal(r.score), Score::Mate(1)),
        "{}",
        r.score
    );
}

/// A position that occurred once before in the game is no draw yet: going back to it is
/// judged on its merits (here Black mates at once), not as a repetition. The search used to
/// call every second occurrence a draw and chose to step into this mate (issue 32).
#[test]
fn a_position_seen_once_before_the_search_is_not_a_draw() {
    let (v, mut s) = searcher("chess");
    // Black to move could mate with Rd1; instead the Kings step aside and back.
    let mut pos = fen::position(&v, "3r2k1/5ppp/8/8/8/8/5PPP/7K b - - 0 1").unwrap();
    play_moves(&mut pos, &["g8h8", "h1g1", "h8g8"]);
    let back = notation::parse_move(&pos, "g1h1").unwrap();
    let score = root_score(&mut s, &mut pos, back);
    assert!(
        score <= -engine::search::MATE_BOUND,
        "Kh1 allows Rd1 mate, scored {score}"
    );
    let r = s.search(&mut pos, &depth(4), |_| {});
    assert_ne!(r.best, Some(back), "the search steps into the mate");
    // Seen twice before, it would be the third occurrence: a draw by the rules.
    play_moves(&mut pos, &["g1h1", "g8h8", "h1g1", "h8g8"]);
    assert_eq!(
        root_score(&mut s, &mut pos, back),
        0,
        "the third occurrence is a draw"
    );
}

/// Plays moves given as text on `pos`.
fn play_moves(pos: &mut Position, moves: &[&str]) {
    for m in moves {
        let mv = notation::parse_move(pos, m).unwrap();
        pos.play(mv).unwrap();
    }
}

/// The score a depth-3 full-window search gives root move `m`, for the side to move.
fn root_score(s: &mut Searcher, pos: &mut Position, m: Move) -> i32 {
    let scores = s.score_root_moves(pos, 3, &Limits::default());
    scores.iter().find(|(x, _)| *x == m).unwrap().1
}

/// King, wrong Bishop and Rook's Pawn against a King in the corner is a draw that the rules
/// do not end: the search scores it 0, where it used to see the pawn and Bishop's worth
/// (+5.72 at depth 12, issue 32), and so does not trade into it when ahead.
#[test]
fn the_wrong_bishop_in_the_corner_is_scored_a_draw() {
    let (v, mut s) = searcher("chess");
    let mut pos = fen::position(&v, "k7/8/8/8/P7/8/8/2B1K3 w - - 0 60").unwrap();
    let r = s.search(&mut pos, &depth(10), |_| {});
    assert_eq!(r.score, 0);
    // The right Bishop wins.
    let mut pos = fen::position(&v, "k7/8/8/8/P7/8/8/3BK3 w - - 0 60").unwrap();
    let r = s.search(&mut pos, &depth(10), |_| {});
    assert!(r.score > 300, "{}", r.score);
}

#[test]
fn lazy_smp_helpers_search_beside_the_main_thread_and_stop_with_it() {
    let (v, mut s) = searcher("chess");
    s.set_threads(3);
    assert_eq!(s.threads(), 3);
    // The answer is still the main thread's, and right: Morphy's mate in two.
    let mut pos = fen::position(&v, "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1").unwrap();
    let before = pos.clone();
    let r = s.search(&mut pos, &depth(5), |_| {});
    assert!(pos == before);
    assert_eq!(notation::coord(&pos, r.best.unwrap()), "a1a6");
    assert_eq!(Score::from_internal(r.score), Score::Mate(2));
    // The helpers searched too (the result counts every thread's nodes), and a depth limit
    // ends them with the main thread.
    let mut pos = Position::start(&v);
    let r = s.search(&mut pos, &depth(7), |_| {});
    assert!(
        r.nodes > s.nodes(),
        "{} nodes in all, {} in the main thread",
        r.nodes,
        s.nodes()
    );
    // No limit at all: the stop flag ends every thread.
    let stop = s.stop_flag();
    let r = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        s.search(&mut pos, &Limits::default(), |_| {})
    });
    assert!(pos.legal_moves().contains(&r.best.unwrap()));
    // Back to one thread: deterministic again.
    s.set_threads(1);
    assert_eq!(s.threads(), 1);
}

#[test]
fn lazy_smp_plays_legal_moves_in_two_and_four_sided_games() {
    for variant in ["toulousain", "bilateral", "dcb-balanced-4p"] {
        let (v, mut s) = searcher(variant);
        s.set_threads(2);
        let mut pos = Position::start(&v);
        for _ in 0..12 {
            if pos.outcome().is_some() {
                break;
            }
            search_and_play(&mut s, &mut pos, 2_000);
        }
    }
}
