//! Where everything goes, in SVG user units (one cell = [`CELL`] units).
//!
//! The picture is built around the boards: a header (title, move number), player rows above
//! and below the boards (or a sidebar beside them when the boards are tall, so an 8x16 board
//! still makes a near-square picture that a phone shows uncropped), the boards side by side,
//! and a footer (caption, legend). Coordinates hug the board's shape: on a board with holes a
//! rank label sits next to the first existing cell of its row, not far away at the bounding
//! box.

use crate::view::{BoardPanel, BoardView, Edge, Rotation};

/// Size of one cell in SVG user units. Artwork is drawn in a 100-unit box too.
pub(crate) const CELL: f32 = 100.0;
/// Outer padding of the picture.
pub(crate) const PAD: f32 = 22.0;
/// Width of the coordinate band on each side of a board.
pub(crate) const LABEL_BAND: f32 = 44.0;
/// Width of a join (wrap) marker strip.
pub(crate) const JOIN_BAND: f32 = 36.0;
/// Height of a board title.
pub(crate) const TITLE_BAND: f32 = 52.0;
/// Gap between two boards.
pub(crate) const GAP: f32 = 40.0;
/// Height of the header.
pub(crate) const HEADER: f32 = 66.0;
/// Height of a player row.
pub(crate) const PLAYER_ROW: f32 = 66.0;
/// Height of a footer line.
pub(crate) const FOOTER_LINE: f32 = 50.0;
/// Width of the sidebar used for tall boards.
pub(crate) const SIDEBAR: f32 = 470.0;
/// Frame thickness around cells.
pub(crate) const FRAME: f32 = 7.0;

/// A board placed on the canvas.
#[derive(Debug, Clone)]
pub(crate) struct PanelLayout {
    /// Index into `BoardView::boards`.
    pub index: usize,
    /// Top-left corner of the screen grid.
    pub ox: f32,
    /// Top-left corner of the screen grid.
    pub oy: f32,
    /// Screen columns (after rotation).
    pub cols: u8,
    /// Screen rows (after rotation).
    pub rows: u8,
    /// Board width and height (before rotation).
    pub w: u8,
    /// Board height.
    pub h: u8,
    /// Rotation.
    pub rot: Rotation,
    /// Left edge of the whole block (labels included), for the title.
    pub block_x: f32,
    /// Width of the block.
    pub block_w: f32,
    /// Top of the block (the title goes here).
    pub block_y: f32,
    /// Extra offset of labels on each screen side because of join strips: top, right, bottom,
    /// left.
    pub join_pad: [f32; 4],
}

impl PanelLayout {
    /// Board cell to screen (column, row), row 0 at the top.
    pub fn to_screen(&self, x: u8, y: u8) -> (u8, u8) {
        let (w, h) = (self.w, self.h);
        match self.rot {
            Rotation::None => (x, h - 1 - y),
            Rotation::Clockwise => (y, x),
            Rotation::Half => (w - 1 - x, y),
            Rotation::Anticlockwise => (h - 1 - y, w - 1 - x),
        }
    }

    /// Screen (column, row) back to the board cell.
    pub fn to_board(&self, c: u8, r: u8) -> (u8, u8) {
        let (w, h) = (self.w, self.h);
        match self.rot {
            Rotation::None => (c, h - 1 - r),
            Rotation::Clockwise => (r, c),
            Rotation::Half => (w - 1 - c, r),
            Rotation::Anticlockwise => (w - 1 - r, h - 1 - c),
        }
    }

    /// Top-left corner of a board cell on the canvas.
    pub fn cell_origin(&self, x: u8, y: u8) -> (f32, f32) {
        let (c, r) = self.to_screen(x, y);
        (self.ox + f32::from(c) * CELL, self.oy + f32::from(r) * CELL)
    }

    /// Centre of a board cell on the canvas.
    pub fn cell_centre(&self, x: u8, y: u8) -> (f32, f32) {
        let (x0, y0) = self.cell_origin(x, y);
        (x0 + CELL / 2.0, y0 + CELL / 2.0)
    }

    /// Which screen side a board edge ends up on.
    pub fn screen_edge(&self, e: Edge) -> Edge {
        use Edge::{Bottom, Left, Right, Top};
        match (self.rot, e) {
            (Rotation::None, e) => e,
            (Rotation::Clockwise, Bottom) => Left,
            (Rotation::Clockwise, Left) => Top,
            (Rotation::Clockwise, Top) => Right,
            (Rotation::Clockwise, Right) => Bottom,
            (Rotation::Half, Bottom) => Top,
            (Rotation::Half, Top) => Bottom,
            (Rotation::Half, Left) => Right,
            (Rotation::Half, Right) => Left,
            (Rotation::Anticlockwise, Bottom) => Right,
            (Rotation::Anticlockwise, Right) => Top,
            (Rotation::Anticlockwise, Top) => Left,
            (Rotation::Anticlockwise, Left) => Bottom,
        }
    }

    /// Do screen columns run along files (true) or ranks (false)?
    pub fn columns_are_files(&self) -> bool {
        matches!(self.rot, Rotation::None | Rotation::Half)
    }
}

/// Index of a screen side in `join_pad`.
pub(crate) fn side_index(e: Edge) -> usize {
    match e {
        Edge::Top => 0,
        Edge::Right => 1,
        Edge::Bottom => 2,
        Edge::Left => 3,
    }
}

/// Where the player rows go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InfoPlace {
    /// Rows above and below the boards.
    Strips,
    /// A column to the right of the boards.
    Sidebar,
}

/// The whole picture.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// Canvas width.
    pub width: f32,
    /// Canvas height.
    pub height: f32,
    /// The boards.
    pub panels: Vec<PanelLayout>,
    /// Header band (y, height), if any.
    pub header: Option<(f32, f32)>,
    /// Player rows.
    pub info: InfoPlace,
    /// Players shown above the boards (indices into `BoardView::players`) and the row's y.
    pub top_players: (Vec<usize>, f32),
    /// Players shown below (or, for the sidebar, all players) and the first row's y.
    pub bottom_players: (Vec<usize>, f32),
    /// Sidebar x (only with `InfoPlace::Sidebar`).
    pub sidebar_x: f32,
    /// Footer lines' first baseline area top.
    pub footer_y: f32,
    /// Horizontal centre of the boards (captions are centred on it).
    pub content_cx: f32,
}

fn panel_block_size(b: &BoardPanel, rot: Rotation) -> (u8, u8, [f32; 4]) {
    let (cols, rows) = match rot {
        Rotation::None | Rotation::Half => (b.width, b.height),
        Rotation::Clockwise | Rotation::Anticlockwise => (b.height, b.width),
    };
    let probe = PanelLayout {
        index: 0,
        ox: 0.0,
        oy: 0.0,
        cols,
        rows,
        w: b.width,
        h: b.height,
        rot,
        block_x: 0.0,
        block_w: 0.0,
        block_y: 0.0,
        join_pad: [0.0; 4],
    };
    let mut pad = [0.0; 4];
    for j in &b.joins {
        if j.partners.iter().any(Option::is_some) {
            pad[side_index(probe.screen_edge(j.edge))] = JOIN_BAND;
        }
    }
    (cols, rows, pad)
}

/// Lays out `view`.
pub(crate) fn layout(view: &BoardView) -> Layout {
    let rot = view.rotation;
    let any_title = view.boards.iter().any(|b| b.title.is_some());
    let title_h = if any_title { TITLE_BAND } else { 0.0 };

    // Boards side by side, tops aligned.
    let mut sizes = Vec::new();
    let mut block_w = 0.0_f32;
    let mut block_h = 0.0_f32;
    for b in &view.boards {
        let (cols, rows, pad) = panel_block_size(b, rot);
        let w = f32::from(cols) * CELL + 2.0 * LABEL_BAND + pad[1] + pad[3];
        let h = f32::from(rows) * CELL + 2.0 * LABEL_BAND + pad[0] + pad[2] + title_h;
        if !sizes.is_empty() {
            block_w += GAP;
        }
        sizes.push((cols, rows, pad, w));
        block_w += w;
        block_h = block_h.max(h);
    }

    let header_h = if view.title.is_some() || view.move_number.is_some() {
        HEADER
    } else {
        0.0
    };
    let footer_lines = usize::from(view.caption.is_some()) + usize::from(!view.legend.is_empty());
    let footer_h = footer_lines as f32 * FOOTER_LINE;

    // Which players go where.
    let bottom_army = view.viewer.or_else(|| view.players.first().map(|p| p.army));
    let mut top: Vec<usize> = Vec::new();
    let mut bottom: Vec<usize> = Vec::new();
    for (i, p) in view.players.iter().enumerate() {
        if Some(p.army) == bottom_army {
            bottom.push(i);
        } else {
            top.push(i);
        }
    }
    let tall = block_h > block_w * 1.25 && !view.players.is_empty();
    let info = if tall {
        InfoPlace::Sidebar
    } else {
        InfoPlace::Strips
    };

    let mut y = PAD;
    let header = if header_h > 0.0 {
        let h = (y, header_h);
        y += header_h;
        Some(h)
    } else {
        None
    };

    let (width, top_y, boards_y, bottom_y, sidebar_x);
    match info {
        InfoPlace::Strips => {
            width = (block_w + 2.0 * PAD).max(6.0 * CELL);
            top_y = y;
            if !top.is_empty() {
                y += PLAYER_ROW;
            }
            boards_y = y;
            y += block_h;
            bottom_y = y;
            if !bottom.is_empty() {
                y += PLAYER_ROW;
            }
            sidebar_x = 0.0;
        }
        InfoPlace::Sidebar => {
            width = block_w + SIDEBAR + 2.0 * PAD;
            top_y = y;
            boards_y = y;
            // Sidebar: others first, the viewer last, all stacked from the top of the boards.
            bottom_y = y + title_h + LABEL_BAND;
            y += block_h;
            sidebar_x = PAD + block_w + PAD;
        }
    }
    let footer_y = y;
    y += footer_h;
    let height = y + PAD;

    // Centre the boards horizontally in strip mode (the header may be wider).
    let mut x = match info {
        InfoPlace::Strips => (width - block_w) / 2.0,
        InfoPlace::Sidebar => PAD,
    };
    let mut panels = Vec::new();
    for (i, (b, (cols, rows, pad, w))) in view.boards.iter().zip(sizes).enumerate() {
        let grid_h = f32::from(rows) * CELL;
        let h = grid_h + 2.0 * LABEL_BAND + pad[0] + pad[2] + title_h;
        // Vertically centre shorter boards in the block.
        let top = boards_y + (block_h - h) / 2.0;
        panels.push(PanelLayout {
            index: i,
            ox: x + LABEL_BAND + pad[3],
            oy: top + title_h + LABEL_BAND + pad[0],
            cols,
            rows,
            w: b.width,
            h: b.height,
            rot,
            block_x: x,
            block_w: w,
            block_y: top,
            join_pad: pad,
        });
        x += w + GAP;
    }

    let (top_players, bottom_players) = match info {
        InfoPlace::Strips => ((top, top_y), (bottom, bottom_y)),
        InfoPlace::Sidebar => {
            // Two players: the opponent above, the viewer below, as across a table. More:
            // in turn order, so the list reads as the round goes.
            let all = if view.players.len() > 2 {
                (0..view.players.len()).collect()
            } else {
                let mut all = top;
                all.extend(bottom);
                all
            };
            ((Vec::new(), top_y), (all, bottom_y))
        }
    };

    let content_cx = match info {
        InfoPlace::Strips => width / 2.0,
        InfoPlace::Sidebar => PAD + block_w / 2.0,
    };
    Layout {
        content_cx,
        width,
        height,
        panels,
        header,
        info,
        top_players,
        bottom_players,
        sidebar_x,
        footer_y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::{BoardPanel, BoardView};

    #[test]
    fn screen_and_board_coordinates_are_inverse_for_every_rotation() {
        for rot in [
            Rotation::None,
            Rotation::Clockwise,
            Rotation::Half,
            Rotation::Anticlockwise,
        ] {
            let mut view = BoardView::new(BoardPanel::rect(12, 8));
            view.rotation = rot;
            let lay = layout(&view);
            let p = &lay.panels[0];
            for y in 0..8 {
                for x in 0..12 {
                    let (c, r) = p.to_screen(x, y);
                    assert!(c < p.cols && r < p.rows, "{rot:?} {x},{y}");
                    assert_eq!(p.to_board(c, r), (x, y), "{rot:?}");
                }
            }
        }
    }

    #[test]
    fn rotation_puts_the_first_rank_where_the_viewer_expects() {
        let mut view = BoardView::new(BoardPanel::rect(8, 8));
        let lay = layout(&view);
        assert_eq!(lay.panels[0].to_screen(0, 0), (0, 7), "a1 bottom left");
        view.rotation = Rotation::Half;
        let lay = layout(&view);
        assert_eq!(lay.panels[0].to_screen(0, 0), (7, 0), "Black: a1 top right");
        view.rotation = Rotation::Clockwise;
        let lay = layout(&view);
        assert_eq!(
            lay.panels[0].to_screen(0, 0),
            (0, 0),
            "clockwise: a1 top left"
        );
        assert_eq!(lay.panels[0].screen_edge(Edge::Bottom), Edge::Left);
    }

    #[test]
    fn tall_boards_get_a_sidebar_and_stay_near_square() {
        let mut view = BoardView::new(BoardPanel::rect(8, 16));
        view.players = vec![
            crate::view::PlayerInfo::new(crate::view::Army::White, "a"),
            crate::view::PlayerInfo::new(crate::view::Army::Black, "b"),
        ];
        let lay = layout(&view);
        assert_eq!(lay.info, InfoPlace::Sidebar);
        let aspect = lay.height / lay.width;
        assert!(
            aspect < 1.45,
            "8x16 picture too tall for a phone preview: {aspect}"
        );
    }

    #[test]
    fn four_players_are_listed_in_turn_order_whoever_views() {
        use crate::view::{Army, PlayerInfo};
        let mut view = BoardView::new(BoardPanel::rect(8, 16));
        view.players = [Army::Red, Army::Blue, Army::Yellow, Army::Green]
            .into_iter()
            .map(|a| PlayerInfo::new(a, a.name()))
            .collect();
        view.viewer = Some(Army::Yellow);
        let lay = layout(&view);
        assert_eq!(lay.info, InfoPlace::Sidebar);
        assert_eq!(lay.bottom_players.0, vec![0, 1, 2, 3]);
        // Two players: the viewer last (below), as across a table.
        view.players.truncate(2);
        view.viewer = Some(Army::Red);
        assert_eq!(layout(&view).bottom_players.0, vec![1, 0]);
    }
}
