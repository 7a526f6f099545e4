use std::sync::Arc;

use rules::{
    Side, Variant,
    glass::{BackRank, Fact, Glass, GlassRules, Order, Refusal, world_of},
};

use super::{GlassPlayer, Knowledge};
use crate::{Level, level::Rng};

fn variant() -> Arc<Variant> {
    rules::glass::variant()
}

/// What `side` knows in `game`: built only from the view and the facts the referee told it.
fn knowledge(game: &Glass, side: Side) -> Knowledge {
    Knowledge::for_side(
        side,
        game.view(side),
        game.told(side).to_vec(),
        game.rules(),
        game.setup(side).cloned(),
    )
    .unwrap()
}

/// One order from a player, the way the bot gives it: `ask` first when the player wants it
/// (answered by the referee, as it answers a person), then the ranked orders until one is
/// not refused. Returns the order given and whether it was impossible.
fn play(game: &mut Glass, player: &mut GlassPlayer, side: Side) -> (String, bool, usize) {
    let mut k = knowledge(game, side);
    if player.wants_ask(&k) {
        let answer = game.has_move_on(k.army(), 1 - world_of(side));
        k = k.with_answer(answer);
    }
    let choice = player.choose(&k).expect("a choice when it is our turn");
    let mut refused = 0;
    for text in &choice.ranked {
        match game.order(side, text) {
            Ok(report) => {
                let impossible = report.told[side.index()]
                    .iter()
                    .any(|f| matches!(f, Fact::Impossible { .. }));
                return (text.clone(), impossible, refused);
            }
            Err(Refusal::Illegal(_)) => refused += 1,
            Err(e) => panic!("{text}: {e}"),
        }
    }
    panic!("every order refused: {:?}", choice.ranked);
}

fn started(white: BackRank, black: BackRank, rules: GlassRules) -> Glass {
    let mut g = Glass::with_variant(variant(), rules);
    g.choose(Side::WHITE, white).unwrap();
    g.choose(Side::BLACK, black).unwrap();
    g
}

#[test]
fn knowledge_refuses_the_other_sides_view() {
    let g = started(
        BackRank::orthodox(),
        BackRank::orthodox(),
        GlassRules::default(),
    );
    let e = Knowledge::for_side(
        Side::WHITE,
        g.view(Side::BLACK),
        Vec::new(),
        g.rules(),
        None,
    );
    assert!(e.is_err());
}

/// The no-cheating property: two games identical in everything White saw and was told but
/// different in Black's hidden world (another back rank, and Black's moves there) give
/// White the same decision for the same seed, over many seeded pairs of games.
#[test]
fn the_hidden_world_never_changes_a_decision() {
    let v = variant();
    let mut compared = 0;
    let mut differing_worlds = 0;
    for seed in 0..80u64 {
        let mut rng = Rng::new(seed);
        let white = BackRank::from_number(rng.below(960) as u32).unwrap();
        let b1 = BackRank::from_number(rng.below(960) as u32).unwrap();
        let b2 = BackRank::from_number(rng.below(960) as u32).unwrap();
        let rules = GlassRules {
            no_strikes: seed % 2 == 1,
        };
        let mut a = started(white.clone(), b1, rules);
        let mut b = started(white, b2, rules);
        let mut mover = GlassPlayer::new(v.clone(), Level::new(2).unwrap(), seed);
        let plies = 2 + rng.below(14) as usize;
        for _ in 0..plies {
            if a.is_over().is_some() || b.is_over().is_some() || a.turn() != b.turn() {
                break;
            }
            if a.turn() == Side::WHITE {
                let k = knowledge(&a, Side::WHITE);
                let Ok(choice) = mover.choose(&k) else { break };
                let text = choice.order().to_string();
                if a.order(Side::WHITE, &text).is_err() || b.order(Side::WHITE, &text).is_err() {
                    break;
                }
            } else {
                // Black pushes a Pawn: the same order in both games (the Pawns stand alike).
                let file = (b'a' + rng.below(8) as u8) as char;
                let text = format!("{file}7{file}{}", 5 + rng.below(2));
                let side = a.turn();
                let ra = a.order(side, &text);
                let rb = b.order(side, &text);
                if ra.is_err() != rb.is_err() {
                    break;
                }
            }
            if knowledge(&a, Side::WHITE) != knowledge(&b, Side::WHITE) {
                break;
            }
        }
        let (ka, kb) = (knowledge(&a, Side::WHITE), knowledge(&b, Side::WHITE));
        if ka != kb || !ka.to_act() || a.is_over().is_some() {
            continue;
        }
        if a.state_text() != b.state_text() {
            differing_worlds += 1;
        }
        for level in 1..=5 {
            let level = Level::new(level).unwrap();
            let one = GlassPlayer::new(v.clone(), level, seed * 7 + 1).choose(&ka);
            let two = GlassPlayer::new(v.clone(), level, seed * 7 + 1).choose(&kb);
            assert_eq!(one, two, "seed {seed}, level {}", level.number());
            let mut p1 = GlassPlayer::new(v.clone(), level, seed);
            let mut p2 = GlassPlayer::new(v.clone(), level, seed);
            assert_eq!(p1.wants_ask(&ka), p2.wants_ask(&kb));
        }
        compared += 1;
    }
    assert!(compared >= 20, "only {compared} pairs compared");
    assert!(
        differing_worlds >= 15,
        "only {differing_worlds} pairs really differed"
    );
}

/// The guarantee has teeth: the same player given the hidden world (a knowledge in which
/// the opponent's pieces are visible, which no real view allows) would decide differently
/// in some of those games; so equal decisions above are not an accident of a player that
/// ignores everything.
#[test]
fn decisions_depend_on_what_is_known() {
    let v = variant();
    let mut differ = 0;
    for seed in 0..10u64 {
        let mut g = started(
            BackRank::orthodox(),
            BackRank::from_number(seed as u32 * 90).unwrap(),
            GlassRules::default(),
        );
        let mut w = GlassPlayer::new(v.clone(), Level::MAX, seed);
        let mut b = GlassPlayer::new(v.clone(), Level::new(1).unwrap(), seed);
        for ply in 0..6 {
            let side = g.turn();
            let p = if side == Side::WHITE { &mut w } else { &mut b };
            play(&mut g, p, side);
            if g.is_over().is_some() || ply == 5 {
                break;
            }
        }
        if g.is_over().is_some() || g.turn() != Side::WHITE {
            continue;
        }
        let k = knowledge(&g, Side::WHITE);
        let mut lying = k.view().clone();
        // Black's pieces that White cannot see, moved into White's view of his own world
        // is not possible; instead drop every piece Black has on White's world: a
        // different knowledge must be allowed to give a different choice.
        lying.world.retain(|(_, p)| p.side == Side::WHITE);
        let k2 = Knowledge::new(
            lying,
            k.told().to_vec(),
            k.rules(),
            g.setup(Side::WHITE).cloned(),
        );
        let one = GlassPlayer::new(v.clone(), Level::MAX, 1)
            .choose(&k)
            .unwrap();
        let two = GlassPlayer::new(v.clone(), Level::MAX, 1)
            .choose(&k2)
            .unwrap();
        if one.ranked != two.ranked {
            differ += 1;
        }
    }
    assert!(differ > 0);
}

/// Self-play at the fast levels, both rule sets: no order is ever refused by the referee,
/// every impossible order was a blind one (for a piece on the world the player cannot
/// see), no panic, and the games end or reach the ply cap.
#[test]
fn self_play_orders_are_accepted_or_blind() {
    let v = variant();
    let mut impossible = 0;
    let mut orders = 0;
    for seed in 0..16u64 {
        let rules = GlassRules {
            no_strikes: seed % 4 == 3,
        };
        let levels = [1 + (seed % 3) as u8, 1 + ((seed / 3) % 3) as u8];
        let mut players: Vec<GlassPlayer> = (0..2)
            .map(|i| {
                GlassPlayer::new(
                    v.clone(),
                    Level::new(levels[i]).unwrap(),
                    seed * 2 + i as u64,
                )
            })
            .collect();
        let mut g = Glass::with_variant(v.clone(), rules);
        for side in [Side::WHITE, Side::BLACK] {
            let r = players[side.index()].back_rank();
            g.choose(side, r).unwrap();
        }
        for _ in 0..160 {
            if g.is_over().is_some() {
                break;
            }
            let side = g.turn();
            let forced = g.is_forced();
            let (text, was_impossible, refused) = play(&mut g, &mut players[side.index()], side);
            assert_eq!(
                refused, 0,
                "seed {seed}: an order was refused before {text}"
            );
            orders += 1;
            if was_impossible {
                impossible += 1;
                let order = Order::parse(&v.geometry, world_of(side), &text).unwrap();
                match order {
                    Order::Move { from, .. } => assert!(
                        forced || v.geometry.info(from).board != world_of(side),
                        "seed {seed}: {text} impossible on the player's own world"
                    ),
                    Order::Castle { .. } => panic!("seed {seed}: castling impossible"),
                }
            }
        }
    }
    assert!(orders > 500, "{orders} orders");
    // Risky blind orders are allowed, but they stay a small share.
    assert!(
        impossible * 10 < orders,
        "{impossible} impossible of {orders}"
    );
}

#[test]
fn decisions_are_deterministic_for_a_seed() {
    let v = variant();
    let g = started(
        BackRank::orthodox(),
        BackRank::orthodox(),
        GlassRules::default(),
    );
    let k = knowledge(&g, Side::WHITE);
    for level in 1..=5 {
        let l = Level::new(level).unwrap();
        let a = GlassPlayer::new(v.clone(), l, 9).choose(&k).unwrap();
        let b = GlassPlayer::new(v.clone(), l, 9).choose(&k).unwrap();
        assert_eq!(a, b);
        assert!(g.clone().order(Side::WHITE, a.order()).is_ok());
    }
}

#[test]
fn the_king_is_not_left_to_be_taken() {
    // White's King on R:e1, a Black Rook on R:e8 (visible to White) with the file open:
    // White must not leave the King on the file's reach... it should move it or block.
    let v = variant();
    let g = Glass::from_state(
        GlassRules::default(),
        "R:4r3/8/8/8/8/8/8/4K3 | M:4k3/8/8/8/8/8/8/8 | w | strikes 0,0",
    )
    .unwrap();
    let k = Knowledge::new(g.view(Side::WHITE), Vec::new(), g.rules(), None);
    let c = GlassPlayer::new(v.clone(), Level::MAX, 3)
        .choose(&k)
        .unwrap();
    let mut after = g.clone();
    after.order(Side::WHITE, c.order()).unwrap();
    let e8 = v.geometry.parse("R:e8").unwrap();
    let still_open = after.piece_at(e8).is_some()
        && after.moves_on(Side::BLACK, 0).iter().any(|m| {
            after
                .piece_at(
                    Order::parse(&v.geometry, 0, m)
                        .map(|o| match o {
                            Order::Move { to, .. } => to,
                            Order::Castle { .. } => e8,
                        })
                        .unwrap(),
                )
                .is_some_and(|p| p.side == Side::WHITE && v.piece(p.kind).royal)
        });
    assert!(!still_open, "{} leaves the King en prise", c.order());
}

#[test]
fn a_third_strike_is_never_risked() {
    // White has two strikes and a Pawn on the unseen world whose push may be blocked.
    let v = variant();
    let g = Glass::from_state(
        GlassRules::default(),
        "R:8/8/8/8/8/8/8/K7 | M:7k/8/8/8/4P3/8/8/8 | w | strikes 2,0",
    )
    .unwrap();
    let k = Knowledge::new(g.view(Side::WHITE), Vec::new(), g.rules(), None);
    for seed in 0..8 {
        let c = GlassPlayer::new(v.clone(), Level::MAX, seed)
            .choose(&k)
            .unwrap();
        assert!(!c.order().starts_with("M:e4"), "{}", c.order());
    }
}

#[test]
fn under_no_strikes_it_chooses_the_offenders_move() {
    let v = variant();
    let mut g = Glass::from_state(
        GlassRules { no_strikes: true },
        "R:8/8/8/8/8/8/PPPPPPPP/RNBQKBNR | M:rnbqkbnr/pppppppp/8/8/8/8/8/8 | w | strikes 0,0",
    )
    .unwrap();
    // White orders a piece it has not got on the Mirror: its turn is forfeit.
    g.order(Side::WHITE, "M:e3e4").unwrap();
    assert!(g.is_forced() && g.turn() == Side::BLACK);
    let k = knowledge(&g, Side::BLACK);
    assert!(k.forced());
    assert_eq!(k.army(), Side::WHITE);
    for seed in 0..6 {
        let c = GlassPlayer::new(v.clone(), Level::new(1 + (seed % 5) as u8).unwrap(), seed)
            .choose(&k)
            .unwrap();
        // An order for White's pieces, which stand on the world Black cannot see.
        assert!(c.order().starts_with("R:"), "{}", c.order());
        assert!(g.clone().order(Side::BLACK, c.order()).is_ok());
    }
}

/// After the game, the order the player chose is judged to cost nothing, and any other
/// order at most what the best was worth; the judgement reads only the knowledge, so it is
/// the same whatever the hidden world held.
#[test]
fn judging_an_order_reads_only_what_the_player_knew() {
    let rules = GlassRules::default();
    let mut g = started(BackRank::orthodox(), BackRank::orthodox(), rules);
    let mut white = GlassPlayer::new(variant(), Level::new(5).unwrap(), 3);
    let mut black = GlassPlayer::new(variant(), Level::new(5).unwrap(), 4);
    play(&mut g, &mut white, Side::WHITE);
    play(&mut g, &mut black, Side::BLACK);
    let k = knowledge(&g, Side::WHITE);
    let chosen = GlassPlayer::new(variant(), Level::new(5).unwrap(), 9)
        .choose(&k)
        .unwrap();
    let judge = |played: &str| {
        GlassPlayer::new(variant(), Level::new(5).unwrap(), 9)
            .judge(&k, played)
            .unwrap()
    };
    let best = judge(chosen.order());
    assert_eq!(best.best, chosen.order());
    assert_eq!(best.played_value, best.best_value);
    let worst = chosen.ranked.last().unwrap();
    let other = judge(worst);
    assert_eq!(other.best, best.best);
    assert!(other.played_value < other.best_value, "{other:?}");
    // An order the candidates never held (a blind one far away) is valued all the same.
    let odd = judge("h2h3");
    assert!(odd.played_value <= odd.best_value, "{odd:?}");

    // The same knowledge over another hidden world: the same judgement.
    let mut h = started(
        BackRank::orthodox(),
        BackRank::from_number(517).unwrap(),
        rules,
    );
    let mut white = GlassPlayer::new(variant(), Level::new(5).unwrap(), 3);
    let mut black = GlassPlayer::new(variant(), Level::new(5).unwrap(), 4);
    play(&mut h, &mut white, Side::WHITE);
    play(&mut h, &mut black, Side::BLACK);
    let k2 = knowledge(&h, Side::WHITE);
    assert_eq!(k2, k, "White was told nothing of Black's row");
    let again = GlassPlayer::new(variant(), Level::new(5).unwrap(), 9)
        .judge(&k2, worst)
        .unwrap();
    assert_eq!(again, other);
    // Not this side's turn: refused.
    let k_black = knowledge(&g, Side::BLACK);
    assert!(
        GlassPlayer::new(variant(), Level::new(5).unwrap(), 9)
            .judge(&k_black, "e7e5")
            .is_err()
    );
}
