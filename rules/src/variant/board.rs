//! `[board]`: the shape, its names, wraps, seams, rivers and holes, resolved into a
//! [`Geometry`]; and the river sections derived from it.

use std::collections::BTreeMap;

use crate::{
    geometry::{Geometry, Join, Shape},
    spec::{BoardSpec, JoinSpec, SpecError},
};

/// The board of `[board]`.
///
/// # Errors
/// A missing table or size, a size beyond 26, a seam, river or hole that names no rank, file
/// or cell, or a shape the geometry refuses.
pub(super) fn geometry(file: &str, board: Option<&BoardSpec>) -> Result<Geometry, SpecError> {
    let err = |key: &str, problem: String| SpecError::new(file, key, problem);
    let b = board.ok_or_else(|| {
        err(
            "board",
            "missing; a variant needs [board] files and ranks".into(),
        )
    })?;
    let files = b
        .files
        .ok_or_else(|| err("board.files", "missing".into()))?;
    let ranks = b
        .ranks
        .ok_or_else(|| err("board.ranks", "missing".into()))?;
    let max = crate::types::MAX_FILES as u8;
    if files == 0 || ranks == 0 || files > max || ranks > max {
        return Err(err(
            "board",
            format!("{files}x{ranks}: files and ranks must each be between 1 and 26"),
        ));
    }
    let mut shape = Shape::rectangle(files, ranks);
    if let Some(n) = &b.file_names {
        shape.file_names = n.clone();
    }
    if let Some(n) = &b.rank_names {
        shape.rank_names = n.clone();
    }
    let join = |j: &Option<JoinSpec>| {
        j.map(|j| Join {
            shift: j.shift,
            mirror: j.mirror,
        })
    };
    shape.wrap_x = join(&b.wrap_files);
    shape.wrap_y = join(&b.wrap_ranks);
    shape.solid_blocks = b.solid_blocks.unwrap_or(false);
    for (key, names, out) in [
        ("board.seams", &b.seams, &mut shape.seams),
        ("board.rivers", &b.rivers, &mut shape.rivers),
    ] {
        for n in names.iter().flatten() {
            let y = shape
                .rank_names
                .iter()
                .position(|r| r == n)
                .filter(|y| y + 1 < ranks as usize)
                .ok_or_else(|| {
                    err(
                        key,
                        format!("{n:?} is not a rank below the top rank; name the rank the line runs above"),
                    )
                })?;
            out.push(y as u8);
        }
    }
    for n in b.file_seams.iter().flatten() {
        let x = shape
            .file_names
            .iter()
            .position(|f| f == n)
            .filter(|x| x + 1 < files as usize)
            .ok_or_else(|| {
                err(
                    "board.file_seams",
                    format!(
                        "{n:?} is not a file left of the last; name the file the seam runs right of"
                    ),
                )
            })?;
        shape.file_seams.push(x as u8);
    }
    // Holes are named with the plain file+rank names of the shape (before board prefixes).
    if let Some(holes) = &b.holes {
        let names: BTreeMap<String, (usize, usize)> = (0..ranks as usize)
            .flat_map(|y| (0..files as usize).map(move |x| (x, y)))
            .filter(|(x, y)| *x < shape.file_names.len() && *y < shape.rank_names.len())
            .map(|(x, y)| {
                (
                    format!("{}{}", shape.file_names[x], shape.rank_names[y]),
                    (x, y),
                )
            })
            .collect();
        for h in holes {
            let (x, y) = names
                .get(h)
                .ok_or_else(|| err("board.holes", format!("{h:?} is not a cell of the board")))?;
            shape.present[*y][*x] = false;
        }
    }
    let copies = b.boards.clone().unwrap_or_default();
    Geometry::new(shape, &copies).map_err(|e| err("board", e.to_string()))
}

/// The river section of each cell: how many rivers run below its rank (0 below the first).
/// Pieces that shun enemy kinds compare sections, so they are counted once here.
pub(super) fn sections(geometry: &Geometry) -> Vec<u8> {
    geometry
        .cells()
        .map(|c| {
            let r = geometry.info(c).rank;
            geometry.shape().rivers.iter().filter(|y| r > **y).count() as u8
        })
        .collect()
}
