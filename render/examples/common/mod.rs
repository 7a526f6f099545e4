//! Sample views shared by the gallery, the timing example, the benchmark and the tests: every
//! variant's start position and a few positions with marks, built from small hand-written
//! diagrams (top rank first, `.` an empty cell, `*` a hole). A picture helper, not a rules
//! parser.

#![allow(dead_code)]

use render::{
    Army, Arrow, ArrowKind, BoardPanel, BoardView, Edge, Glyph, Join, LastMove, MoveDiagram, Piece,
    PieceMarks, PlacedPiece, PlayerInfo, Rotation, Square, Strikes, Target, TargetKind,
};

/// Chat size: the longer side of every picture, in pixels.
pub const SIZE: u32 = 760;

pub fn labels(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_owned).collect()
}

pub fn numbers(n: u8) -> Vec<String> {
    (1..=n).map(|i| i.to_string()).collect()
}

pub fn letters(from: char, n: u8) -> Vec<String> {
    (0..n)
        .map(|i| char::from(from as u8 + i).to_string())
        .collect()
}

/// Fills `view` (board `board`) from a diagram, top rank first. Each row is either one char per
/// cell, or whitespace-separated tokens (four-player: army letter + piece letter, "rK").
pub fn place(view: &mut BoardView, board: u8, rows: &[&str], glyph: fn(char) -> Option<Glyph>) {
    let b = &mut view.boards[usize::from(board)];
    let h = b.height;
    for (r, row) in rows.iter().enumerate() {
        let y = h - 1 - r as u8;
        let tokens: Vec<String> = if row.contains(' ') {
            row.split_whitespace().map(str::to_owned).collect()
        } else {
            row.chars().map(String::from).collect()
        };
        for (x, t) in tokens.iter().enumerate() {
            let x = x as u8;
            let mut cs = t.chars();
            let c = cs.next().unwrap_or('.');
            if c == '*' {
                b.holes.push((x, y));
                continue;
            }
            if c == '.' {
                continue;
            }
            let (army, letter) = match cs.next() {
                Some(p) => (
                    match c {
                        'r' => Army::Red,
                        'b' => Army::Blue,
                        'y' => Army::Yellow,
                        _ => Army::Green,
                    },
                    p,
                ),
                None => (
                    if c.is_ascii_uppercase() {
                        Army::White
                    } else {
                        Army::Black
                    },
                    c,
                ),
            };
            if let Some(g) = glyph(letter.to_ascii_lowercase()) {
                view.pieces.push(PlacedPiece {
                    square: Square::on(board, x, y),
                    piece: Piece::new(army, g),
                    marks: PieceMarks::default(),
                });
            }
        }
    }
}

pub fn fide(c: char) -> Option<Glyph> {
    Some(match c {
        'k' => Glyph::King,
        'q' => Glyph::Queen,
        'r' => Glyph::Rook,
        'b' => Glyph::Bishop,
        'n' => Glyph::Knight,
        'p' => Glyph::Pawn,
        'a' => Glyph::Cardinal,
        'c' => Glyph::Marshal, // Capablanca's Chancellor
        _ => return None,
    })
}

pub fn toulousain_letters(c: char) -> Option<Glyph> {
    Some(match c {
        'c' => Glyph::Cannon,
        'm' => Glyph::Camel,
        'e' => Glyph::Elephant,
        'g' => Glyph::Gryphon,
        'l' => Glyph::Lion,
        'o' => Glyph::Corporal,
        c => return fide(c),
    })
}

pub fn bilateral_letters(c: char) -> Option<Glyph> {
    Some(match c {
        'l' => Glyph::Lion,
        'c' => Glyph::Pao,
        'v' => Glyph::Vao,
        'w' => Glyph::Wizard,
        'e' => Glyph::BilateralElephant,
        c => return fide(c),
    })
}

pub fn ecumenical_letters(c: char) -> Option<Glyph> {
    Some(match c {
        'c' => Glyph::Camel,
        'g' => Glyph::Gnu,
        'v' => Glyph::Canvasser,
        'l' => Glyph::Caliph,
        'm' => Glyph::Marshal,
        'a' => Glyph::Cardinal,
        'f' => Glyph::Frog,
        'i' => Glyph::Prince,
        'w' => Glyph::Wazir,
        c => return fide(c),
    })
}

pub fn two_players(view: &mut BoardView, white: &str, black: &str) {
    view.players = vec![
        PlayerInfo::new(Army::White, white),
        PlayerInfo::new(Army::Black, black),
    ];
    view.side_to_move = Some(Army::White);
}

pub fn fide_start() -> BoardView {
    let mut v = BoardView::new(BoardPanel::rect(8, 8));
    place(
        &mut v,
        0,
        &[
            "rnbqkbnr", "pppppppp", "........", "........", "........", "........", "PPPPPPPP",
            "RNBQKBNR",
        ],
        fide,
    );
    v.title = Some("FIDE Chess".into());
    two_players(&mut v, "Alice", "Bob");
    v
}

pub fn capablanca_start() -> BoardView {
    let mut v = BoardView::new(BoardPanel::rect(10, 8));
    place(
        &mut v,
        0,
        &[
            "rnabqkbcnr",
            "pppppppppp",
            "..........",
            "..........",
            "..........",
            "..........",
            "PPPPPPPPPP",
            "RNABQKBCNR",
        ],
        fide,
    );
    v.title = Some("Capablanca Chess".into());
    two_players(&mut v, "Alice", "Bob");
    v
}

pub fn toulousain_start() -> BoardView {
    let mut v = BoardView::new(BoardPanel::rect(12, 12));
    place(
        &mut v,
        0,
        &[
            "cm........mc",
            "ernbgkqlbnre",
            "ppoooooooopp",
            "..pppppppp..",
            "............",
            "............",
            "............",
            "............",
            "..PPPPPPPP..",
            "PPOOOOOOOOPP",
            "ERNBGKQLBNRE",
            "CM........MC",
        ],
        toulousain_letters,
    );
    v.title = Some("Toulousain Chess".into());
    two_players(&mut v, "Alice", "Bob");
    v.move_number = Some(1);
    v
}

pub fn bilateral_board() -> BoardPanel {
    BoardPanel::with_labels(labels("y z a b c d e f g h i j"), numbers(8))
}

pub fn bilateral_start() -> BoardView {
    let mut v = BoardView::new(bilateral_board());
    place(
        &mut v,
        0,
        &[
            "lcrnbqkbnrcl",
            "weppppppppew",
            "............",
            "............",
            "............",
            "............",
            "WEPPPPPPPPEW",
            "LCRNBQKBNRCL",
        ],
        bilateral_letters,
    );
    v.title = Some("Bilateral Chess".into());
    two_players(&mut v, "Alice", "Bob");
    v
}

/// Bilateral mid-game with every mark: last move, check, a frozen piece and its freeze link,
/// Pao and Vao, a selected piece with quiet and capture targets, an arrow, captured material,
/// side to move, names, move number, caption.
pub fn bilateral_midgame(viewer: Army) -> BoardView {
    let mut v = BoardView::new(bilateral_board());
    place(
        &mut v,
        0,
        &[
            "l.r..qk..rcl",
            "w.pp..pp.pe.",
            "..n.p....nBw",
            ".e...N...p..",
            "...v.PP.....",
            "........B...",
            "WEPP.PP.P.E.",
            "L.R..QK..RCL",
        ],
        bilateral_letters,
    );
    // The Black Wizard j6 has frozen the White Bishop i6.
    for p in &mut v.pieces {
        if p.square == Square::new(10, 5) {
            p.marks.frozen = true;
        }
    }
    v.arrows.push(Arrow {
        from: Square::new(11, 5),
        to: Square::new(10, 5),
        kind: ArrowKind::Power,
    });
    // Black's Vao went d6-b4 and gives check over the d2 screen.
    v.last_move = Some(LastMove {
        from: Some(Square::new(5, 5)),
        to: Square::new(3, 3),
        also: vec![],
    });
    v.check = vec![Square::new(6, 0)];
    // White's Knight d5 is selected: it can block on c3 (a second screen) or take on b4.
    v.selected = Some(Square::new(5, 4));
    v.targets = vec![
        Target {
            square: Square::new(4, 2),
            kind: TargetKind::Quiet,
        },
        Target {
            square: Square::new(3, 3),
            kind: TargetKind::Capture,
        },
    ];
    v.arrows.push(Arrow {
        from: Square::new(5, 4),
        to: Square::new(4, 2),
        kind: ArrowKind::Move,
    });
    v.players = vec![
        PlayerInfo {
            captured: vec![
                Piece::new(Army::Black, Glyph::Pawn),
                Piece::new(Army::Black, Glyph::Pawn),
                Piece::new(Army::Black, Glyph::Knight),
                Piece::new(Army::Black, Glyph::Bishop),
            ],
            ..PlayerInfo::new(Army::White, "Alice")
        },
        PlayerInfo {
            captured: vec![
                Piece::new(Army::White, Glyph::Pawn),
                Piece::new(Army::White, Glyph::Pawn),
                Piece::new(Army::White, Glyph::Pawn),
                Piece::new(Army::White, Glyph::Knight),
                Piece::new(Army::White, Glyph::Bishop),
            ],
            ..PlayerInfo::new(Army::Black, "Bob the Bold")
        },
    ];
    v.side_to_move = Some(Army::White);
    v.viewer = Some(viewer);
    v.rotation = Rotation::for_two_player(viewer);
    v.move_number = Some(23);
    v.title = Some("Bilateral Chess".into());
    v.caption = Some("Vd6-b4+ checks over the d2 screen; the Wizard j6 froze i6".into());
    v
}

/// Looking-Glass: two boards; each player sees one, the other is veiled with only his own
/// pieces (where the referee told him they went).
pub fn looking_glass(viewer: Army) -> BoardView {
    let mut v = BoardView {
        boards: vec![
            BoardPanel::rect(8, 8).titled("Real"),
            BoardPanel::rect(8, 8).titled("Mirror"),
        ],
        ..BoardView::default()
    };
    let real = [
        "........", "........", "....n...", "........", "...P....", "..N..p..", "PPP..PPP",
        "R.BQKB.R",
    ];
    let mirror = [
        "r.bqkb.r", "ppp..ppp", "........", "....P...", "........", "........", "........",
        "......N.",
    ];
    place(&mut v, 0, &real, fide);
    place(&mut v, 1, &mirror, fide);
    let seen: u8 = if viewer == Army::White { 0 } else { 1 };
    v.boards[usize::from(1 - seen)].veiled = true;
    let t = v.boards[usize::from(1 - seen)]
        .title
        .take()
        .unwrap_or_default();
    v.boards[usize::from(1 - seen)].title = Some(format!("{t} (unseen)"));
    // On the unseen board the viewer only knows his own pieces.
    let own_is_white = viewer == Army::White;
    v.pieces
        .retain(|p| p.square.board == seen || (p.piece.army == Army::White) == own_is_white);
    v.last_move = Some(LastMove {
        from: Some(Square::on(0, 4, 6)),
        to: Square::on(1, 4, 4),
        also: vec![],
    });
    v.players = vec![
        PlayerInfo {
            strikes: Some(Strikes { count: 1, limit: 3 }),
            captured: vec![Piece::new(Army::Black, Glyph::Pawn)],
            ..PlayerInfo::new(Army::White, "Alice")
        },
        PlayerInfo {
            strikes: Some(Strikes { count: 2, limit: 3 }),
            captured: vec![Piece::new(Army::White, Glyph::Pawn)],
            ..PlayerInfo::new(Army::Black, "Bob")
        },
    ];
    v.side_to_move = Some(Army::Black);
    v.viewer = Some(viewer);
    v.rotation = Rotation::for_two_player(viewer);
    v.move_number = Some(9);
    v.title = Some(format!(
        "Through the Looking-Glass: {}'s view",
        viewer.name()
    ));
    v
}

pub fn wraparound() -> BoardView {
    let mut b = BoardPanel::rect(16, 8);
    b.joins = vec![
        Join {
            edge: Edge::Left,
            twisted: false,
            partners: vec![Some("p".into()); 8],
        },
        Join {
            edge: Edge::Right,
            twisted: false,
            partners: vec![Some("a".into()); 8],
        },
    ];
    let mut v = BoardView::new(b);
    place(
        &mut v,
        0,
        &[
            "anrglcbqknrlvbcm",
            "pppppppppppppppp",
            "................",
            "................",
            "................",
            "................",
            "PPPPPPPPPPPPPPPP",
            "ANRGLCBQKNRLVBCM",
        ],
        ecumenical_letters,
    );
    v.title = Some("Wraparound Ecumenical".into());
    v.caption = Some("Files wrap: a and p are neighbours".into());
    two_players(&mut v, "Alice", "Bob");
    v
}

pub fn moebius_besiege() -> BoardView {
    let files = letters('a', 8);
    let mut b = BoardPanel::with_labels(files.clone(), numbers(16));
    // (x, y) = (7 - x, y + 16): up from x16 goes to (7-x)1, down from x1 to (7-x)16.
    b.joins = vec![
        Join {
            edge: Edge::Top,
            twisted: true,
            partners: (0..8).map(|x| Some(format!("{}1", files[7 - x]))).collect(),
        },
        Join {
            edge: Edge::Bottom,
            twisted: true,
            partners: (0..8)
                .map(|x| Some(format!("{}16", files[7 - x])))
                .collect(),
        },
    ];
    let mut v = BoardView::new(b);
    place(
        &mut v,
        0,
        &[
            "RNBMABNR", "PPPPPPPP", "........", "........", "........", "........", "pppppppp",
            "rnbmabnr", "gclqklcv", "pppppppp", "........", "........", "........", "........",
            "PPPPPPPP", "GCLQKLCV",
        ],
        ecumenical_letters,
    );
    v.title = Some("Moebius Besiege".into());
    v.caption = Some("Ends joined with a twist".into());
    two_players(&mut v, "Alice", "Bob");
    v
}

pub fn dcb_board() -> BoardPanel {
    BoardPanel::with_labels(letters('a', 8), letters('k', 16))
}

pub fn dcb_balanced() -> BoardView {
    let mut v = BoardView::new(dcb_board());
    place(
        &mut v,
        0,
        &[
            "**RNBR**", "**PPPP**", "........", "........", "........", "........", "**pppp**",
            "**rnbr**", "**bqkn**", "**pppp**", "........", "........", "........", "........",
            "**PPPP**", "**BQKN**",
        ],
        fide,
    );
    v.title = Some("Double Cross Besiege".into());
    two_players(&mut v, "Alice", "Bob");
    v
}

pub fn coblache() -> BoardView {
    let mut b = dcb_board();
    b.rivers = vec![3, 7, 11];
    let mut v = BoardView::new(b);
    place(
        &mut v,
        0,
        &[
            "**MFIB**", "**PPPP**", "........", "........", "........", "........", "**pppp**",
            "**mfib**", "**mbqf**", "**pppp**", "........", "........", "........", "........",
            "**PPPP**", "**MBQF**",
        ],
        ecumenical_letters,
    );
    v.title = Some("CoBlaChe".into());
    v.caption = Some("Rivers n|o, r|s, v|w".into());
    two_players(&mut v, "Alice", "Bob");
    v
}

pub fn dcb_four(viewer: Army, rotation: Rotation) -> BoardView {
    let mut v = BoardView::new(dcb_board());
    place(
        &mut v,
        0,
        &[
            "*  *  rR rN rB rR *  *",
            "*  *  rP rP rP rP *  *",
            "bB bP .  .  .  .  gP gN",
            "bQ bP .  .  .  .  gP gK",
            "bK bP .  .  .  .  gP gQ",
            "bN bP .  .  .  .  gP gB",
            "*  *  yP yP yP yP *  *",
            "*  *  yR yB yN yR *  *",
            "*  *  yN yK yQ yB *  *",
            "*  *  yP yP yP yP *  *",
            "gR gP .  .  .  .  bP bR",
            "gB gP .  .  .  .  bP bN",
            "gN gP .  .  .  .  bP bB",
            "gR gP .  .  .  .  bP bR",
            "*  *  rP rP rP rP *  *",
            "*  *  rB rQ rK rN *  *",
        ],
        fide,
    );
    v.title = Some("Double Cross Besiege, 4 players".into());
    v.players = vec![
        PlayerInfo::new(Army::Red, "Ann"),
        PlayerInfo::new(Army::Blue, "Ben"),
        PlayerInfo::new(Army::Yellow, "Cy"),
        PlayerInfo::new(Army::Green, "Dee"),
    ];
    v.side_to_move = Some(Army::Red);
    v.viewer = Some(viewer);
    v.rotation = rotation;
    v.move_number = Some(1);
    v
}

pub fn piece_sheet(armies: &[Army]) -> BoardView {
    let n = Glyph::ALL.len() as u8; // 24
    let cols = 8u8;
    let rows_per_army = n.div_ceil(cols);
    let h = rows_per_army * armies.len() as u8;
    let mut b = BoardPanel::rect(cols, h);
    b.files = vec![String::new(); usize::from(cols)];
    b.ranks = vec![String::new(); usize::from(h)];
    let mut v = BoardView::new(b);
    for (ai, &army) in armies.iter().enumerate() {
        for (i, &g) in Glyph::ALL.iter().enumerate() {
            let i = i as u8;
            let x = i % cols;
            let y = h - 1 - (ai as u8 * rows_per_army + i / cols);
            v.put(Square::new(x, y), Piece::new(army, g));
        }
    }
    v
}

pub fn diagrams() -> Vec<(&'static str, BoardView)> {
    let gryphon = MoveDiagram::new(Glyph::Gryphon, Army::White, 7, 7, (3, 3))
        .mark(&[(2, 2), (4, 2), (2, 4), (4, 4)], TargetKind::MoveOrCapture)
        .mark(
            &[
                (1, 2),
                (0, 2),
                (2, 1),
                (2, 0),
                (5, 2),
                (6, 2),
                (4, 1),
                (4, 0),
                (1, 4),
                (0, 4),
                (2, 5),
                (2, 6),
                (5, 4),
                (6, 4),
                (4, 5),
                (4, 6),
            ],
            TargetKind::MoveOrCapture,
        )
        .arrow((3, 3), (4, 4), ArrowKind::Move)
        .arrow((4, 4), (4, 6), ArrowKind::Move)
        .arrow((4, 4), (6, 4), ArrowKind::Move)
        .titled("Gryphon")
        .caption("One diagonal step, then outward as a Rook")
        .into_view();
    // The rulebook's own example (bilateral.md): a Wizard on a5 with the board folded y-j.
    let wizard = MoveDiagram::new(Glyph::Wizard, Army::White, 12, 8, (2, 4))
        .on_board(bilateral_board())
        .mark(
            &[
                (1, 3),
                (1, 5),
                (3, 3),
                (3, 5),
                (8, 4),
                (10, 4),
                (9, 3),
                (9, 5),
            ],
            TargetKind::Quiet,
        )
        .explain(TargetKind::Quiet, "steps")
        .mark(&[(1, 7), (5, 5)], TargetKind::Capture)
        .explain(TargetKind::Capture, "kills (stays put)")
        .mark(&[(1, 4), (3, 4), (2, 3), (2, 5), (9, 4)], TargetKind::Power)
        .explain(TargetKind::Power, "freezes")
        .with_piece((1, 7), Piece::new(Army::Black, Glyph::Rook))
        .with_piece((5, 5), Piece::new(Army::Black, Glyph::Knight))
        .with_piece((9, 4), Piece::new(Army::Black, Glyph::Bishop))
        .titled("Wizard on a5 (folded board)")
        .into_view();
    let vao = MoveDiagram::new(Glyph::Vao, Army::Black, 7, 7, (3, 3))
        .mark(
            &[
                (2, 2),
                (1, 1),
                (0, 0),
                (4, 4),
                (5, 5),
                (6, 6),
                (2, 4),
                (4, 2),
                (5, 1),
                (6, 0),
            ],
            TargetKind::Quiet,
        )
        .with_piece((1, 5), Piece::new(Army::White, Glyph::Pawn))
        .with_piece((0, 6), Piece::new(Army::White, Glyph::Rook))
        .mark(&[(0, 6)], TargetKind::Capture)
        .explain(TargetKind::Capture, "captures over a screen")
        .titled("Can(n)on in Vao state")
        .caption("May flip to Pao after any move, or instead of moving")
        .into_view();
    let camel = MoveDiagram::new(Glyph::Camel, Army::White, 7, 7, (3, 3))
        .mark(
            &[
                (0, 2),
                (0, 4),
                (6, 2),
                (6, 4),
                (2, 0),
                (4, 0),
                (2, 6),
                (4, 6),
            ],
            TargetKind::MoveOrCapture,
        )
        .titled("Camel: (3,1) leaper")
        .into_view();
    vec![
        ("diagram-gryphon", gryphon),
        ("diagram-wizard", wizard),
        ("diagram-vao", vao),
        ("diagram-camel", camel),
    ]
}
