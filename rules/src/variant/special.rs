//! The tables of the special powers (folded-board steps, freezes, kills, pushes): built only
//! when some piece of the variant has a power, so ordinary variants carry none of them.

use super::SpecialTables;
use crate::{geometry::Geometry, types::Cell};

/// Builds the per-cell tables of the special powers on a single rectangular board (with
/// holes). The fold maps file `i` to `width - 1 - i` (B1): a cell is the 3-D point
/// `(u, r, layer)` with `u = min(i, w-1-i)` and `layer` 0 on the left half, 1 on the right.
pub(super) fn tables(g: &Geometry) -> SpecialTables {
    let n = g.len();
    let w = g.shape().width as i32;
    let mut st = SpecialTables {
        fold_steps: vec![Vec::new(); n],
        fold_orth: vec![Vec::new(); n],
        kills: vec![Vec::new(); n],
        killed_from: vec![Vec::new(); n],
        wazir: vec![Vec::new(); n],
        beyond: vec![[255; 4]; n],
    };
    let to3 = |f: i32, r: i32| -> (i32, i32, i32) {
        if f < w - 1 - f {
            (f, r, 0)
        } else {
            (w - 1 - f, r, 1)
        }
    };
    let half = w / 2;
    let from3 = |u: i32, r: i32, l: i32| -> Option<Cell> {
        if u < 0 || u >= (w + 1) / 2 || !(0..=1).contains(&l) {
            return None;
        }
        let f = if l == 0 { u } else { w - 1 - u };
        if l == 1 && f < half && w % 2 == 1 {
            return None;
        }
        g.at(0, f, r)
    };
    const WAZ: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
    for cell in g.cells() {
        let info = g.info(cell);
        let (f, r) = (info.file as i32, info.rank as i32);
        let (u, rr, l) = to3(f, r);
        let mut steps = Vec::new();
        let mut orth = Vec::new();
        for du in -1..=1 {
            for dr in -1..=1 {
                for dl in -1..=1 {
                    let changed = (du != 0) as u8 + (dr != 0) as u8 + (dl != 0) as u8;
                    if changed == 0 || changed == 3 {
                        continue;
                    }
                    if let Some(c) = from3(u + du, rr + dr, l + dl)
                        && c != cell
                    {
                        let list = if changed == 2 { &mut steps } else { &mut orth };
                        if !list.contains(&c.0) {
                            list.push(c.0);
                        }
                    }
                }
            }
        }
        steps.sort_unstable();
        orth.sort_unstable();
        st.fold_steps[cell.index()] = steps;
        st.fold_orth[cell.index()] = orth;
        for (d, (dx, dy)) in WAZ.iter().enumerate() {
            if let Some(c) = g.at(0, f + dx, r + dy) {
                st.wazir[cell.index()].push((d as u8, c.0));
                if let Some(b) = g.at(0, f + 2 * dx, r + 2 * dy) {
                    st.beyond[cell.index()][d] = b.0;
                }
            }
        }
        // Camel kills along the alternating zigzag (B9): vertical (i+s, r+3L) via (i+s, r+L),
        // (i, r+2L); horizontal (i+3L, r+s) via (i+L, r+s), (i+2L, r).
        for s in [-1, 1] {
            for lz in [-1, 1] {
                let vertical = (
                    g.at(0, f + s, r + 3 * lz),
                    g.at(0, f + s, r + lz),
                    g.at(0, f, r + 2 * lz),
                );
                let horizontal = (
                    g.at(0, f + 3 * lz, r + s),
                    g.at(0, f + lz, r + s),
                    g.at(0, f + 2 * lz, r),
                );
                for (t, a, b) in [vertical, horizontal] {
                    if let (Some(t), Some(a), Some(b)) = (t, a, b) {
                        st.kills[cell.index()].push((t.0, a.0, b.0));
                        st.killed_from[t.index()].push((cell.0, a.0, b.0));
                    }
                }
            }
        }
    }
    st
}
