//! From the engine's position to the renderer's view: the one place that knows both, so every
//! adapter draws the same picture for the same [`BoardPicture`].

use render::{
    Army, BoardPanel, BoardView, Edge, Glyph, Join, LastMove, Piece, PlayerInfo, Rotation, Square,
};
use std::sync::Arc;

use rules::{Catalog, Cell, Position, Variant};

use crate::{
    reply::{BoardPicture, GraphPicture, MovedCells},
    rules_engine::EngineKind,
};

/// Why a picture could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// The variant or state no longer reads (a corrupt record).
    #[error("cannot rebuild the position: {0}")]
    Position(String),
    /// The renderer failed.
    #[error(transparent)]
    Render(#[from] render::RenderError),
    /// The drawing task did not finish (it panicked, or the runtime is shutting down).
    #[error("the drawing task did not finish")]
    Task(#[from] tokio::task::JoinError),
    /// A replay's moves do not replay.
    #[error(transparent)]
    Watch(#[from] crate::watch::WatchError),
    /// A replay could not be drawn within its budget.
    #[error(transparent)]
    Animation(#[from] render::animation::AnimationError),
}

fn glyph(name: &str, letter: char) -> Glyph {
    match name {
        "king" => Glyph::King,
        "queen" => Glyph::Queen,
        "rook" => Glyph::Rook,
        "bishop" | "courier" => Glyph::Bishop,
        "knight" => Glyph::Knight,
        "pawn" => Glyph::Pawn,
        "corporal" => Glyph::Corporal,
        "lion" => Glyph::Lion,
        "gryphon" => Glyph::Gryphon,
        "camel" => Glyph::Camel,
        "cannon" => Glyph::Cannon,
        "pao" => Glyph::Pao,
        "vao" => Glyph::Vao,
        "elephant" | "alfil" => Glyph::Elephant,
        "bilateral-elephant" => Glyph::BilateralElephant,
        "wizard" => Glyph::Wizard,
        "marshal" | "chancellor" => Glyph::Marshal,
        "cardinal" | "archbishop" => Glyph::Cardinal,
        "gnu" => Glyph::Gnu,
        "canvasser" => Glyph::Canvasser,
        "caliph" => Glyph::Caliph,
        "frog" => Glyph::Frog,
        "prince" | "man" => Glyph::Prince,
        "wazir" | "schleich" => Glyph::Wazir,
        _ => Glyph::Letter(letter),
    }
}

fn army(side: rules::Side) -> Army {
    match side.0 {
        0 => Army::White,
        1 => Army::Black,
        2 => Army::Yellow,
        _ => Army::Green,
    }
}

/// A side's army in a game of `sides` players: White and Black for two, and Red, Blue,
/// Yellow, Green for four, the colours the engine names them by.
fn army_of(side: rules::Side, sides: u8) -> Army {
    if sides <= 2 {
        return army(side);
    }
    match side.0 {
        0 => Army::Red,
        1 => Army::Blue,
        2 => Army::Yellow,
        _ => Army::Green,
    }
}

/// How the picture is turned for the player of `viewer`: his own camp of the lower board at
/// the bottom, so his pawns there advance up the picture, as over a real board. In two-player
/// games Black sees it upside down. In the four-player Double Cross, Red's lower camp is
/// the bottom edge as drawn; Blue's is the right edge (file h, pawns moving towards a), so a
/// quarter turn clockwise brings it down; Yellow's faces Red's (upside down); Green's is the
/// left edge, the mirror of Blue's (anticlockwise). The renderer's convention is checked by
/// `bot/core/tests/four_player.rs` on the drawn cells.
pub fn rotation_for(viewer: rules::Side, sides: u8) -> Rotation {
    if sides <= 2 {
        return Rotation::for_two_player(army(viewer));
    }
    match viewer.0 {
        0 => Rotation::None,
        1 => Rotation::Clockwise,
        2 => Rotation::Half,
        _ => Rotation::Anticlockwise,
    }
}

fn square(v: &Variant, cell: Cell) -> Square {
    let i = v.geometry.info(cell);
    Square {
        board: i.board,
        x: i.file,
        y: i.rank,
    }
}

/// The glued edges of board `b`, each with the name of the cell every line leaving the edge
/// continues into (wrap markers: a Rook's way round the cylinder, the twist of a Moebius
/// join), computed from the engine's own `canon` map so the picture cannot disagree with it.
fn joins(g: &rules::Geometry, b: u8) -> Vec<Join> {
    let shape = g.shape();
    let (w, h) = (shape.width as i32, shape.height as i32);
    let mut out = Vec::new();
    let partners = |cells: &mut dyn Iterator<Item = ((i32, i32), (i32, i32))>| {
        cells
            .map(|(at, beyond)| {
                g.at(b, at.0, at.1)?;
                g.canon(b, beyond.0, beyond.1)
                    .map(|c| g.name(c).to_string())
            })
            .collect::<Vec<_>>()
    };
    if let Some(j) = shape.wrap_y {
        out.push(Join {
            edge: Edge::Top,
            twisted: j.mirror,
            partners: partners(&mut (0..w).map(|x| ((x, h - 1), (x, h)))),
        });
        out.push(Join {
            edge: Edge::Bottom,
            twisted: j.mirror,
            partners: partners(&mut (0..w).map(|x| ((x, 0), (x, -1)))),
        });
    }
    if let Some(j) = shape.wrap_x {
        out.push(Join {
            edge: Edge::Right,
            twisted: j.mirror,
            partners: partners(&mut (0..h).map(|y| ((w - 1, y), (w, y)))),
        });
        out.push(Join {
            edge: Edge::Left,
            twisted: j.mirror,
            partners: partners(&mut (0..h).map(|y| ((0, y), (-1, y)))),
        });
    }
    out
}

/// The cells of the last move played to reach `pos`, from the engine's own record of it (a
/// position replayed from its game's start keeps the moves it went through). `None` at the
/// start, or for a position read from state text, which has no history.
pub fn last_move(pos: &Position) -> Option<MovedCells> {
    let m = pos.moves_played().last()?;
    let g = &pos.variant().geometry;
    Some(MovedCells {
        from: g.name(m.from).to_string(),
        to: g.name(m.to).to_string(),
    })
}

/// The renderer's view of a position.
pub fn view(
    pos: &Position,
    last_move: Option<&MovedCells>,
    viewer: Option<u8>,
    players: &[String],
) -> BoardView {
    let v = &**pos.variant();
    let g = &v.geometry;
    let shape = g.shape();
    let mut panels = Vec::new();
    for b in 0..g.boards() as u8 {
        let mut panel = BoardPanel::with_labels(shape.file_names.clone(), shape.rank_names.clone());
        for y in 0..shape.height {
            for x in 0..shape.width {
                if g.at(b, x as i32, y as i32).is_none() {
                    panel.holes.push((x, y));
                }
            }
        }
        if g.boards() > 1 {
            panel = panel.titled(g.prefixes()[b as usize].trim_end_matches(':'));
        }
        panel.rivers = shape.rivers.clone();
        panel.seams = shape.seams.clone();
        panel.file_seams = shape.file_seams.clone();
        panel.joins = joins(g, b);
        panels.push(panel);
    }
    let mut view = BoardView::new(panels.remove(0));
    view.boards.extend(panels);
    for cell in g.cells() {
        if let Some(p) = pos.piece_at(cell) {
            let pt = v.piece(p.kind);
            view.put(
                square(v, cell),
                Piece {
                    glyph: glyph(&pt.glyph, pt.letter),
                    army: army_of(p.side, v.sides),
                },
            );
        }
    }
    if let Some(moved) = last_move
        && let (Some(from), Some(to)) = (g.parse(&moved.from), g.parse(&moved.to))
    {
        // Exact names only: a name that no longer parses marks nothing rather than a guess.
        view.last_move = Some(LastMove {
            from: (from != to).then(|| square(v, from)),
            to: square(v, to),
            also: Vec::new(),
        });
    }
    if pos.is_check()
        && let Some(k) = pos.royal(pos.turn())
    {
        view.check.push(square(v, k));
    }
    view.side_to_move = Some(army_of(pos.turn(), v.sides));
    view.move_number = Some(pos.fullmoves());
    let viewer_side = rules::Side(viewer.unwrap_or(0));
    view.viewer = Some(army_of(viewer_side, v.sides));
    view.rotation = rotation_for(viewer_side, v.sides);
    view.players = (0..v.sides)
        .map(|s| {
            let a = army_of(rules::Side(s), v.sides);
            let mut info = PlayerInfo::new(
                a,
                players
                    .get(s as usize)
                    .cloned()
                    .unwrap_or_else(|| rules::Side(s).name(v.sides as usize).to_string()),
            );
            // Drawn struck through beside the board: who is out is part of the position.
            info.eliminated = v.sides > 2 && pos.is_out(rules::Side(s));
            info
        })
        .collect();
    view.title = Some(v.display_name.clone());
    view
}

/// A board picture as text (for consoles, screen readers and bad connections), or `None` when
/// its state does not read.
pub fn text_board(picture: &BoardPicture, catalog: &Catalog) -> Option<String> {
    if picture.diagram.is_some() {
        // A movement diagram is the picture alone; the reply's text describes the piece.
        return None;
    }
    match picture.engine {
        EngineKind::Glass => crate::text::glass_board(&picture.state).map(|mut text| {
            if let Some(clock) = &picture.clock {
                text.push('\n');
                text.push_str(clock);
            }
            text
        }),
        EngineKind::Board => {
            let v = catalog.get(&picture.variant).ok()?;
            let pos = rules::fen::position(&v, &picture.state).ok()?;
            let mut text = crate::text::board(&pos);
            if let Some(clock) = &picture.clock {
                text.push('\n');
                text.push_str(clock);
            }
            Some(text)
        }
    }
}

/// Rebuilds the position of a reply's board picture and makes the renderer's view of it.
///
/// # Errors
/// When the stored variant or state no longer reads (a corrupt record).
pub fn board_view(picture: &BoardPicture, catalog: &Catalog) -> Result<BoardView, PictureError> {
    if picture.engine == EngineKind::Glass {
        return glass_view(picture);
    }
    let v = catalog
        .get(&picture.variant)
        .map_err(|e| PictureError::Position(e.to_string()))?;
    if let Some(letter) = picture.diagram {
        let kind = v
            .kinds()
            .find(|k| v.piece(*k).letter == letter)
            .ok_or_else(|| {
                PictureError::Position(format!("{} has no piece {letter}", picture.variant))
            })?;
        return Ok(piece_diagram(&v, kind));
    }
    let pos = rules::fen::position(&v, &picture.state)
        .map_err(|e| PictureError::Position(e.to_string()))?;
    let mut view = view(
        &pos,
        picture.last_move.as_ref(),
        picture.viewer,
        &picture.players,
    );
    view.caption = picture
        .clock
        .as_deref()
        .map(crate::time_control::picture_caption);
    Ok(view)
}

/// What a Looking-Glass picture's state says: the pieces by (world, file, rank, letter), the
/// viewer (`None` for the reveal), strikes, captured letters by capturer, and whose turn.
///
/// Read straight from the text (two 8x8 boards, letters K Q R B N P): a picture needs no
/// movement tables, and building the engine's variant per picture cost 1.5 ms.
pub(crate) struct GlassPicture {
    pub pieces: Vec<(u8, u8, u8, char)>,
    pub viewer: Option<rules::Side>,
    pub strikes: [u8; 2],
    pub captured: [Vec<char>; 2],
    pub to_move: Option<rules::Side>,
}

impl GlassPicture {
    /// Reads a `view ...` state (rules::glass::PlayerView::text) or a full state
    /// (rules::glass::Glass::state_text). A view that claims an opponent's piece on the
    /// viewer's unseen world is refused: such a picture could draw a secret.
    pub(crate) fn parse(state: &str) -> Result<GlassPicture, String> {
        let fields: Vec<&str> = state.split('|').map(str::trim).collect();
        let side = |t: &str| match t {
            "w" => Ok(rules::Side::WHITE),
            "b" => Ok(rules::Side::BLACK),
            _ => Err(format!("{t:?}: w or b")),
        };
        let (viewer, boards, rest) = match fields.as_slice() {
            [v, r, m, rest @ ..] if v.starts_with("view ") => {
                (Some(side(&v["view ".len()..])?), [*r, *m], rest)
            }
            [r, m, rest @ ..] => (None, [*r, *m], rest),
            _ => return Err(format!("{state:?}: not a Looking-Glass picture")),
        };
        let mut pieces = Vec::new();
        for (b, (text, prefix)) in boards.iter().zip(["R:", "M:"]).enumerate() {
            let ranks: Vec<&str> = text
                .strip_prefix(prefix)
                .ok_or_else(|| format!("{text:?}: starts with {prefix}"))?
                .split('/')
                .collect();
            if ranks.len() != 8 {
                return Err(format!("{text:?}: eight ranks"));
            }
            for (i, rank) in ranks.iter().enumerate() {
                let y = 7 - i as u8;
                let mut x = 0u8;
                for c in rank.chars() {
                    if let Some(d) = c.to_digit(10) {
                        x += d as u8;
                    } else if "KQRBNPkqrbnp".contains(c) && x < 8 {
                        pieces.push((b as u8, x, y, c));
                        x += 1;
                    } else {
                        return Err(format!("{rank:?}: not a rank of pieces"));
                    }
                }
                if x != 8 {
                    return Err(format!("{rank:?}: not eight squares"));
                }
            }
        }
        let field = |name: &str| {
            rest.iter()
                .find_map(|f| f.strip_prefix(name).map(str::trim))
                .unwrap_or("")
        };
        fn pair(t: &str) -> (&str, &str) {
            t.split_once(',').unwrap_or(("", ""))
        }
        let (sw, sb) = pair(field("strikes "));
        let (cw, cb) = pair(field("captured "));
        let letters = |t: &str| t.chars().filter(|c| c.is_ascii_alphabetic()).collect();
        let to_move = match field("turn ") {
            "w" | "b" => Some(side(field("turn "))?),
            _ => None,
        };
        if let Some(v) = viewer {
            let white = |c: char| c.is_ascii_uppercase();
            if pieces
                .iter()
                .any(|(b, _, _, c)| *b != v.0 && white(*c) != (v == rules::Side::WHITE))
            {
                return Err("an opponent's piece on the viewer's unseen world".into());
            }
        }
        Ok(GlassPicture {
            pieces,
            viewer,
            strikes: [sw.parse().unwrap_or(0), sb.parse().unwrap_or(0)],
            captured: [letters(cw), letters(cb)],
            to_move,
        })
    }
}

fn glass_glyph(letter: char) -> Glyph {
    match letter.to_ascii_uppercase() {
        'K' => Glyph::King,
        'Q' => Glyph::Queen,
        'R' => Glyph::Rook,
        'B' => Glyph::Bishop,
        'N' => Glyph::Knight,
        _ => Glyph::Pawn,
    }
}

/// A Looking-Glass picture: a player's view (`view ...` state: his world, and the other world
/// veiled with only his own pieces) or, at the end, both worlds revealed (the full state).
/// The state text is all the picture knows, so a private picture cannot draw a secret.
fn glass_view(picture: &BoardPicture) -> Result<BoardView, PictureError> {
    let p = GlassPicture::parse(&picture.state).map_err(PictureError::Position)?;
    let files: Vec<String> = "abcdefgh".chars().map(String::from).collect();
    let ranks: Vec<String> = (1..=8).map(|r| r.to_string()).collect();
    let panel =
        |b: u8| {
            let mut panel = BoardPanel::with_labels(files.clone(), ranks.clone())
                .titled(if b == 0 { "Real" } else { "Mirror" });
            panel.veiled = p.viewer.is_some_and(|s| s.0 != b);
            panel
        };
    // The viewer's own world first; the reveal shows Real, then Mirror.
    let first = p.viewer.map_or(0, |s| s.0);
    let mut view = BoardView::new(panel(first));
    view.boards.push(panel(1 - first));
    for &(b, x, y, letter) in &p.pieces {
        let side = rules::Side(u8::from(letter.is_ascii_lowercase()));
        view.put(
            Square {
                board: u8::from(b != first),
                x,
                y,
            },
            Piece {
                glyph: glass_glyph(letter),
                army: army(side),
            },
        );
    }
    view.side_to_move = p.to_move.map(army);
    view.caption = picture
        .clock
        .as_deref()
        .map(crate::time_control::picture_caption);
    let viewer_army = army(p.viewer.unwrap_or(rules::Side::WHITE));
    view.viewer = Some(viewer_army);
    view.rotation = Rotation::for_two_player(viewer_army);
    view.players = (0..2u8)
        .map(|s| {
            let side = rules::Side(s);
            let mut info = PlayerInfo::new(
                army(side),
                picture
                    .players
                    .get(s as usize)
                    .cloned()
                    .unwrap_or_else(|| side.name(2).to_string()),
            );
            info.strikes = Some(render::Strikes {
                count: p.strikes[s as usize],
                limit: rules::glass::STRIKE_LIMIT,
            });
            info.captured = p.captured[s as usize]
                .iter()
                .map(|l| Piece {
                    glyph: glass_glyph(*l),
                    army: army(rules::Side(1 - s)),
                })
                .collect();
            info
        })
        .collect();
    view.title = Some("Through the Looking-Glass".into());
    Ok(view)
}

/// What the adapters need to draw reply boards: cheap to clone (the catalogue and the
/// renderer with its caches are shared).
#[derive(Debug, Clone)]
pub struct Painter {
    /// The variants, to rebuild positions.
    pub catalog: Arc<Catalog>,
    /// The renderer.
    pub renderer: Arc<render::Renderer>,
    /// Colours and style.
    pub theme: render::Theme,
    /// The longer side of the PNG, in pixels.
    pub size: u32,
}

impl Painter {
    /// Renders a reply's board to PNG on tokio's blocking threads: a big board takes
    /// milliseconds of CPU, which must not stall the adapter's event loop.
    ///
    /// # Errors
    /// As [`png`], or [`PictureError::Task`] when the drawing task could not finish.
    pub async fn png(&self, picture: &BoardPicture) -> Result<Vec<u8>, PictureError> {
        let (painter, picture) = (self.clone(), picture.clone());
        let made = tokio::task::spawn_blocking(move || {
            png(
                &picture,
                &painter.catalog,
                &painter.renderer,
                &painter.theme,
                painter.size,
            )
        })
        .await;
        made?
    }
}

/// The width of an evaluation graph's PNG, in pixels: about a phone screen's width twice.
pub const GRAPH_WIDTH: u32 = 1000;

/// The renderer's graph of a reply's [`GraphPicture`]: each seat's army colour for its
/// caption and marks.
pub fn eval_graph(graph: &GraphPicture) -> render::EvalGraph {
    let seat_army = |seat: u8| army_of(rules::Side(seat), graph.captions.len().max(2) as u8);
    render::EvalGraph {
        title: graph.title.clone(),
        chances: graph
            .chances
            .iter()
            .map(|c| f32::from(*c) / 1000.0)
            .collect(),
        numbers: graph.numbers.clone(),
        others: graph
            .others
            .iter()
            .map(|line| line.iter().map(|c| f32::from(*c) / 1000.0).collect())
            .collect(),
        players: graph
            .captions
            .iter()
            .enumerate()
            .map(|(i, c)| (c.clone(), seat_army(i as u8)))
            .collect(),
        marks: graph
            .marks
            .iter()
            .map(|m| render::GraphMark {
                position: m.position as usize,
                army: seat_army(m.seat),
                kind: match m.severity {
                    crate::analysis::Severity::Inaccuracy => render::MarkKind::Inaccuracy,
                    crate::analysis::Severity::Mistake => render::MarkKind::Mistake,
                    crate::analysis::Severity::Blunder => render::MarkKind::Blunder,
                },
            })
            .collect(),
    }
}

/// A reply's evaluation graph as SVG text (for a web page: crisp at any zoom).
pub fn graph_svg(graph: &GraphPicture, theme: &render::Theme) -> String {
    render::graph_svg(&eval_graph(graph), theme)
}

/// A reply's evaluation graph as a PNG `width` pixels wide.
///
/// # Errors
/// When the renderer fails.
pub fn graph_png(
    graph: &GraphPicture,
    renderer: &render::Renderer,
    theme: &render::Theme,
    width: u32,
) -> Result<Vec<u8>, PictureError> {
    Ok(renderer.graph_png(&eval_graph(graph), theme, width)?)
}

impl Painter {
    /// Renders a reply's evaluation graph to PNG on tokio's blocking threads.
    ///
    /// # Errors
    /// As [`graph_png`], or [`PictureError::Task`].
    pub async fn graph_png(&self, graph: &GraphPicture) -> Result<Vec<u8>, PictureError> {
        let (painter, graph) = (self.clone(), graph.clone());
        let made = tokio::task::spawn_blocking(move || {
            graph_png(
                &graph,
                &painter.renderer,
                &painter.theme,
                GRAPH_WIDTH.min(painter.size.max(400) * 2),
            )
        })
        .await;
        made?
    }

    /// Draws a reply's replay as an animated GIF of at most `budget` bytes (the platform's
    /// upload limit), at this painter's size or smaller, on tokio's blocking threads.
    ///
    /// # Errors
    /// When the moves do not replay, or not even the first and last positions fit.
    pub async fn replay_gif(
        &self,
        replay: &crate::reply::ReplayPicture,
        budget: usize,
    ) -> Result<render::animation::Animation, PictureError> {
        let (painter, replay) = (self.clone(), replay.clone());
        let made = tokio::task::spawn_blocking(move || {
            let views: Vec<BoardView> = crate::watch::replay_frames(&replay, &painter.catalog)?
                .into_iter()
                .map(|f| f.view)
                .collect();
            let options = render::animation::AnimationOptions {
                size: painter.size.min(640),
                budget,
                ..render::animation::AnimationOptions::default()
            };
            Ok::<_, PictureError>(render::animation::gif(
                &painter.renderer,
                &views,
                &painter.theme,
                &options,
            )?)
        })
        .await;
        made?
    }
}

/// Renders a reply's board picture to PNG.
///
/// # Errors
/// When the stored state no longer reads, or the renderer fails.
pub fn png(
    picture: &BoardPicture,
    catalog: &Catalog,
    renderer: &render::Renderer,
    theme: &render::Theme,
    size: u32,
) -> Result<Vec<u8>, PictureError> {
    Ok(renderer.png(&board_view(picture, catalog)?, theme, size)?)
}

/// The picture of a variant's start position, which belongs to no game (`rules`, a player's
/// `variant add` and `variant show`). `stored` is the name the catalogue knows the variant by
/// (`custom:<hash>` for a player's own).
pub fn start_picture(stored: &str, v: &Arc<Variant>) -> BoardPicture {
    BoardPicture {
        game: None,
        diagram: None,
        engine: EngineKind::Board,
        variant: stored.to_owned(),
        state: rules::fen::write(&Position::start(v)),
        last_move: None,
        viewer: None,
        players: Vec::new(),
        clock: None,
    }
}

/// The picture of one piece's movement diagram ([`piece_diagram`]), for `piece`.
pub fn diagram_picture(stored: &str, v: &Arc<Variant>, kind: rules::Kind) -> BoardPicture {
    BoardPicture {
        diagram: Some(v.piece(kind).letter),
        ..start_picture(stored, v)
    }
}

/// A movement diagram of one piece: White's (or Red's) piece of `kind` alone on the variant's
/// own board (holes, seams and joins as in play), standing on the cell nearest the centre of
/// the first board from which it reaches the most cells, every cell it reaches on the empty
/// board marked, quiet moves and captures apart where they differ. Powers that are not
/// movement (freeze, kill, push, flip) are described in words beside the diagram, not drawn.
pub fn piece_diagram(v: &Arc<Variant>, kind: rules::Kind) -> BoardView {
    let g = &v.geometry;
    let shape = g.shape();
    let side = rules::Side(0);
    let (cx, cy) = (
        (shape.width as f32 - 1.0) / 2.0,
        (shape.height as f32 - 1.0) / 2.0,
    );
    let centrality = |c: Cell| {
        let i = g.info(c);
        let d = (i.file as f32 - cx).abs() + (i.rank as f32 - cy).abs();
        (d * 2.0) as u32
    };
    let from = g
        .cells()
        .filter(|&c| g.info(c).board == 0)
        .min_by_key(|&c| {
            let reach = v.empty_board_reach(kind, side, c).len() as u32;
            (u32::MAX - reach, centrality(c), c.index())
        })
        .expect("a board has cells");
    let pos = Position::start(v);
    let mut view = view(&pos, None, None, &[]);
    view.pieces.clear();
    view.last_move = None;
    view.check.clear();
    view.side_to_move = None;
    view.move_number = None;
    view.players.clear();
    let pt = v.piece(kind);
    view.put(
        square(v, from),
        Piece {
            glyph: glyph(&pt.glyph, pt.letter),
            army: army_of(side, v.sides),
        },
    );
    let mut kinds = Vec::new();
    for r in v.empty_board_reach(kind, side, from) {
        let kind = match (r.moves, r.captures && !r.hop) {
            (true, true) => render::TargetKind::MoveOrCapture,
            (true, false) => render::TargetKind::Quiet,
            (false, true) => render::TargetKind::Capture,
            (false, false) => continue,
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
        view.targets.push(render::Target {
            square: square(v, r.cell),
            kind,
        });
    }
    kinds.sort_by_key(|k| *k as u8);
    view.legend = kinds
        .into_iter()
        .map(|kind| render::LegendEntry {
            kind,
            text: match kind {
                render::TargetKind::MoveOrCapture => "moves or captures",
                render::TargetKind::Quiet => "moves only",
                render::TargetKind::Capture => "captures only",
                render::TargetKind::Power => "power",
            }
            .to_string(),
        })
        .collect();
    view.title = Some(format!("{} ({})", pt.name, pt.letter));
    view
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::GameId;

    #[test]
    fn every_builtin_start_renders_with_its_own_artwork() {
        let catalog = Catalog::builtin();
        let renderer = render::Renderer::new();
        for name in catalog.names() {
            let v = catalog.get(&name).unwrap();
            for k in v.kinds() {
                let pt = v.piece(k);
                let g = glyph(&pt.glyph, pt.letter);
                assert!(
                    !matches!(g, Glyph::Letter(_)) || pt.glyph == "ferz",
                    "{name}: {} has no artwork",
                    pt.name
                );
            }
            let pos = Position::start(&v);
            let pic = BoardPicture {
                game: Some(GameId(1)),
                diagram: None,
                engine: EngineKind::Board,
                variant: name.clone(),
                state: rules::fen::write(&pos),
                last_move: None,
                viewer: Some(1),
                players: vec!["alice".into(), "bob".into()],
                clock: None,
            };
            let bytes = png(&pic, &catalog, &renderer, &render::Theme::light(), 640).unwrap();
            assert_eq!(&bytes[1..4], b"PNG", "{name}");
        }
    }

    /// A small deterministic generator for the seeded random games of the tests.
    fn next(seed: &mut u64) -> usize {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (*seed >> 33) as usize
    }

    /// Item 9 of issue 13: `k10k9` marked k1 and k10, `a10b10` marked a1 (cells were matched
    /// by text prefix). Seeded random games in every built-in variant, steered towards ranks
    /// not yet seen: after each move, the picture made from the reply's state text marks
    /// exactly the move's two cells, and over the games every rank is left and entered.
    #[test]
    fn the_last_move_marks_exactly_its_cells_on_every_board_and_rank() {
        let catalog = Catalog::builtin();
        for name in catalog.names() {
            let v = catalog.get(&name).unwrap();
            let g = &v.geometry;
            let rank = |c: Cell| g.info(c).rank;
            let (mut left, mut entered) = (
                std::collections::BTreeSet::new(),
                std::collections::BTreeSet::new(),
            );
            for game in 0..6u64 {
                let mut seed = game * 7_919 + name.len() as u64;
                let mut pos = Position::start(&v);
                for _ in 0..90 {
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    let fresh: Vec<_> = legal
                        .iter()
                        .filter(|m| !left.contains(&rank(m.from)) || !entered.contains(&rank(m.to)))
                        .copied()
                        .collect();
                    let pool = if !fresh.is_empty() && next(&mut seed).is_multiple_of(2) {
                        &fresh
                    } else {
                        &legal
                    };
                    let m = pool[next(&mut seed) % pool.len()];
                    let text = rules::notation::coord(&pos, m);
                    pos.play_unchecked(m);
                    left.insert(rank(m.from));
                    entered.insert(rank(m.to));
                    let pic = BoardPicture {
                        game: Some(GameId(1)),
                        diagram: None,
                        engine: EngineKind::Board,
                        variant: name.clone(),
                        state: rules::fen::write(&pos),
                        last_move: last_move(&pos),
                        viewer: None,
                        players: Vec::new(),
                        clock: None,
                    };
                    let marked = board_view(&pic, &catalog).unwrap().last_move;
                    let want = LastMove {
                        from: (m.from != m.to).then(|| square(&v, m.from)),
                        to: square(&v, m.to),
                        also: Vec::new(),
                    };
                    assert_eq!(marked, Some(want), "{name}: {text}");
                }
            }
            let every: std::collections::BTreeSet<u8> = g.cells().map(rank).collect();
            assert_eq!(left, every, "{name}: moves from every rank");
            assert_eq!(entered, every, "{name}: moves to every rank");
        }
    }

    fn start_view(name: &str) -> BoardView {
        let catalog = Catalog::builtin();
        let v = catalog.get(name).unwrap();
        view(&Position::start(&v), None, None, &[])
    }

    #[test]
    fn double_cross_moebius_has_holes_twisted_joins_and_a_seam() {
        let view = start_view("dcb-balanced-moebius");
        assert!(view.validate().is_ok(), "{:?}", view.validate());
        let b = &view.boards[0];
        assert_eq!(b.holes.len(), 32);
        assert!(b.holes.contains(&(0, 0)) && b.holes.contains(&(7, 15)));
        assert_eq!(b.seams, vec![7], "between the two cruciform boards (r|s)");
        let top = b.joins.iter().find(|j| j.edge == Edge::Top).unwrap();
        assert!(top.twisted);
        // cz-fk, dz-ek, ez-dk, fz-ck; the corners a, b, g, h of rank z are holes.
        let names: Vec<Option<&str>> = top.partners.iter().map(|p| p.as_deref()).collect();
        assert_eq!(
            names,
            [
                None,
                None,
                Some("fk"),
                Some("ek"),
                Some("dk"),
                Some("ck"),
                None,
                None
            ]
        );
        let bottom = b.joins.iter().find(|j| j.edge == Edge::Bottom).unwrap();
        assert_eq!(bottom.partners[2].as_deref(), Some("fz"));
    }

    #[test]
    fn coblache_draws_its_three_rivers() {
        let view = start_view("dcb-coblache");
        assert!(view.validate().is_ok(), "{:?}", view.validate());
        // n|o, r|s, v|w.
        assert_eq!(view.boards[0].rivers, vec![3, 7, 11]);
        let svg = render::render_svg(&view, &render::Theme::light());
        assert!(svg.contains(&render::Theme::light().river));
    }

    #[test]
    fn wraparound_marks_the_seam_between_p_and_a() {
        let view = start_view("ecumenical-wraparound");
        assert!(view.validate().is_ok(), "{:?}", view.validate());
        let b = &view.boards[0];
        let right = b.joins.iter().find(|j| j.edge == Edge::Right).unwrap();
        assert!(!right.twisted);
        let names: Vec<String> = right.partners.iter().map(|p| p.clone().unwrap()).collect();
        assert_eq!(names, (1..=8).map(|r| format!("a{r}")).collect::<Vec<_>>());
        let left = b.joins.iter().find(|j| j.edge == Edge::Left).unwrap();
        assert_eq!(left.partners[0].as_deref(), Some("p1"));
        assert!(
            b.joins.iter().all(|j| j.edge != Edge::Top),
            "ranks do not wrap"
        );
    }

    #[test]
    fn besiege_boards_show_their_two_halves() {
        let view = start_view("ecumenical-besiege");
        assert_eq!(view.boards[0].seams, vec![7]);
        assert!(view.boards[0].joins.is_empty());
        let view = start_view("ecumenical-double-besiege");
        let top = view.boards[0]
            .joins
            .iter()
            .find(|j| j.edge == Edge::Top)
            .unwrap();
        assert_eq!(top.partners[4].as_deref(), Some("e1"));
        // The seam is drawn as a bold frame-coloured line; a board without one has none.
        let seam = r#"stroke-width="8" stroke-linecap="square""#;
        assert!(render::render_svg(&view, &render::Theme::light()).contains(seam));
        let plain = start_view("chess");
        assert!(!render::render_svg(&plain, &render::Theme::light()).contains(seam));
        // Side by side: the Northern board's two halves meet between h and i.
        let northern = start_view("ecumenical-northern");
        assert_eq!(northern.boards[0].file_seams, vec![7]);
        assert!(render::render_svg(&northern, &render::Theme::light()).contains(seam));
    }

    #[test]
    fn looking_glass_private_board_veils_the_other_world() {
        use rules::glass::{BackRank, Glass, GlassRules};
        let mut g = Glass::new(GlassRules::default());
        g.choose(rules::Side::WHITE, BackRank::orthodox()).unwrap();
        g.choose(rules::Side::BLACK, BackRank::orthodox()).unwrap();
        g.order(rules::Side::WHITE, "e2e4").unwrap();
        let pic = BoardPicture {
            game: Some(GameId(1)),
            diagram: None,
            engine: EngineKind::Glass,
            variant: rules::glass::NAME.into(),
            state: g.view(rules::Side::BLACK).text(g.variant()),
            last_move: None,
            viewer: Some(1),
            players: vec!["alice".into(), "bob".into()],
            clock: None,
        };
        let catalog = Catalog::builtin();
        let view = board_view(&pic, &catalog).unwrap();
        assert_eq!(view.boards[0].title.as_deref(), Some("Mirror"));
        assert!(!view.boards[0].veiled && view.boards[1].veiled);
        // Black sees 16 pieces of his and White's fallen Pawn; nothing of his on the Real.
        assert_eq!(view.pieces.len(), 17);
        assert!(view.pieces.iter().all(|p| p.square.board == 0));
        assert_eq!(view.rotation, Rotation::Half);
        let bytes = png(
            &pic,
            &catalog,
            &render::Renderer::new(),
            &render::Theme::light(),
            480,
        )
        .unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        // The reveal shows both worlds unveiled.
        let reveal = BoardPicture {
            state: g.state_text(),
            viewer: None,
            ..pic
        };
        let view = board_view(&reveal, &catalog).unwrap();
        assert!(view.boards.iter().all(|b| !b.veiled));
        assert_eq!(view.pieces.len(), 32);
        // A private picture that claims an opponent's piece on the unseen world is refused.
        let forged = BoardPicture {
            state: "view w | R:8/8/8/8/8/8/8/4K3 | M:4k3/8/8/8/8/8/8/8 | strikes 0,0 | captured -,- | turn w".into(),
            viewer: Some(0),
            ..reveal
        };
        assert!(board_view(&forged, &catalog).is_err());
    }
}
