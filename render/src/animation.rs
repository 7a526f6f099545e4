//! Animated replays: a game's positions, drawn by the same renderer as the board pictures,
//! encoded as one animated GIF that fits the byte budget the caller gives (a chat platform's
//! upload limit).
//!
//! GIF rather than APNG because every chat client animates it (Discord shows an APNG still
//! in some clients). To stay small and fast:
//!
//! - **One palette for the whole game.** Board pictures have few colours besides the
//!   anti-aliased edges, so the 255 most common colours (at 5 bits per channel) of the first,
//!   second and last frames make the palette, and each pixel takes its nearest entry through
//!   a table built once per colour seen. No per-frame quantiser runs.
//! - **Only what changed.** After the first frame each frame is the rectangle that differs
//!   from the one before (a move changes two cells and the captions), drawn over it.
//! - **Fit the budget.** If the file is over budget, the board is drawn smaller (down to
//!   [`AnimationOptions::min_size`]); if it is still over, frames are left out evenly (the
//!   first and the last always stay), never failing for size while one frame fits.
//!
//! ```
//! use render::{Army, BoardPanel, BoardView, Glyph, Piece, Renderer, Square, Theme};
//! use render::animation::{AnimationOptions, gif};
//!
//! let mut a = BoardView::new(BoardPanel::rect(8, 8));
//! a.put(Square::new(4, 0), Piece::new(Army::White, Glyph::King));
//! let mut b = a.clone();
//! b.pieces.clear();
//! b.put(Square::new(4, 1), Piece::new(Army::White, Glyph::King));
//! let anim = gif(&Renderer::new(), &[a, b], &Theme::light(), &AnimationOptions::default())?;
//! assert_eq!(&anim.bytes[..6], b"GIF89a");
//! assert_eq!(anim.frames, 2);
//! # Ok::<(), render::animation::AnimationError>(())
//! ```

use std::borrow::Cow;

use resvg::tiny_skia;

use crate::{BoardView, RenderError, Renderer, Theme};

/// How an animation is drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnimationOptions {
    /// The longer side of each frame, in pixels, when the budget allows.
    pub size: u32,
    /// The smallest the board may be drawn to fit the budget before frames are left out.
    pub min_size: u32,
    /// How long each position is shown, in milliseconds (GIF counts in hundredths).
    pub frame_ms: u32,
    /// How long the final position is held, in milliseconds.
    pub final_ms: u32,
    /// The largest file allowed, in bytes.
    pub budget: usize,
}

impl Default for AnimationOptions {
    /// 640 pixels (down to 240), a second a move, the end held for four, under 8 MiB.
    fn default() -> Self {
        AnimationOptions {
            size: 640,
            min_size: 240,
            frame_ms: 1000,
            final_ms: 4000,
            budget: 8 << 20,
        }
    }
}

/// An encoded animation and what was given up to fit it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Animation {
    /// The GIF file.
    pub bytes: Vec<u8>,
    /// The longer side of its frames, in pixels.
    pub size: u32,
    /// How many positions it shows.
    pub frames: usize,
    /// How many positions were left out to fit the budget (0 when all are shown).
    pub left_out: usize,
}

/// Why no animation was made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnimationError {
    /// There was nothing to draw.
    #[error("no positions to animate")]
    NoFrames,
    /// A frame could not be drawn.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The frames are larger than a GIF can be (65535 pixels a side).
    #[error("frames of {width}x{height} pixels are too large for a gif")]
    TooLarge {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// Even the first and last positions at the smallest size are over the budget.
    #[error("even two frames at {size} px take {bytes} bytes, over the budget of {budget}")]
    OverBudget {
        /// The smallest size tried.
        size: u32,
        /// What they took.
        bytes: usize,
        /// The budget.
        budget: usize,
    },
    /// The encoder failed (out of memory).
    #[error("gif encoding failed: {0}")]
    Encode(String),
}

/// Draws `views` (one per position, in order) as an animated GIF within `options.budget`.
///
/// # Errors
///
/// [`AnimationError::NoFrames`] for no views, [`AnimationError::OverBudget`] when not even
/// the first and last positions at `min_size` fit, and rendering or encoding failures.
pub fn gif(
    renderer: &Renderer,
    views: &[BoardView],
    theme: &Theme,
    options: &AnimationOptions,
) -> Result<Animation, AnimationError> {
    if views.is_empty() {
        return Err(AnimationError::NoFrames);
    }
    let all: Vec<usize> = (0..views.len()).collect();
    let mut size = options.size.max(1);
    let min_size = options.min_size.clamp(1, size);
    // Smaller boards first: each try costs a full encode, so guess the size from the last.
    loop {
        let bytes = encode(renderer, views, &all, theme, size, options)?;
        if bytes.len() <= options.budget {
            return Ok(Animation {
                bytes,
                size,
                frames: views.len(),
                left_out: 0,
            });
        }
        if size == min_size {
            break;
        }
        // Bytes grow with the area: shrink by the square root of the excess, and a little more.
        let ratio = (options.budget as f64 / bytes.len() as f64).sqrt() * 0.92;
        size = ((f64::from(size) * ratio) as u32).clamp(min_size, size - 1);
    }
    // Still over at the smallest size: keep every k-th position (and always the last).
    let mut keep = views.len();
    loop {
        let last = views.len() - 1;
        let picked: Vec<usize> = if keep >= views.len() {
            all.clone()
        } else {
            let mut p: Vec<usize> = (0..keep.max(2) - 1)
                .map(|i| i * last / (keep.max(2) - 1))
                .collect();
            p.dedup();
            p.push(last);
            p
        };
        let bytes = encode(renderer, views, &picked, theme, size, options)?;
        if bytes.len() <= options.budget {
            return Ok(Animation {
                bytes,
                size,
                frames: picked.len(),
                left_out: views.len() - picked.len(),
            });
        }
        if picked.len() <= 2 {
            return Err(AnimationError::OverBudget {
                size,
                bytes: bytes.len(),
                budget: options.budget,
            });
        }
        let ratio = options.budget as f64 / bytes.len() as f64 * 0.9;
        keep = ((picked.len() as f64 * ratio) as usize).clamp(2, picked.len() - 1);
    }
}

/// Encodes the positions `picked` of `views` at `size`.
fn encode(
    renderer: &Renderer,
    views: &[BoardView],
    picked: &[usize],
    theme: &Theme,
    size: u32,
    options: &AnimationOptions,
) -> Result<Vec<u8>, AnimationError> {
    let first = renderer.pixmap(&views[picked[0]], theme, size)?;
    let (w, h) = (first.width(), first.height());
    let (gw, gh) = match (u16::try_from(w), u16::try_from(h)) {
        (Ok(a), Ok(b)) => (a, b),
        _ => {
            return Err(AnimationError::TooLarge {
                width: w,
                height: h,
            });
        }
    };
    // The palette from the first, second and last frames: the pieces, the board, and the
    // marks of a move (absent from the start position).
    let mut samples = vec![rgb(&first)];
    for &i in [picked.get(1), picked.last()].into_iter().flatten() {
        samples.push(rgb(&fit(renderer.pixmap(&views[i], theme, size)?, w, h)));
    }
    let mut palette = Palette::from_samples(&samples);
    // Remember the nearest entries of the samples' colours once, before the copies below.
    for &c in samples.iter().flatten() {
        palette.index(c);
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, gw, gh, &palette.bytes())
            .map_err(|e| AnimationError::Encode(e.to_string()))?;
        enc.set_repeat(gif::Repeat::Infinite)
            .map_err(|e| AnimationError::Encode(e.to_string()))?;
        let mut previous: Option<Vec<u8>> = None;
        let mut n = 0;
        // Frames are drawn a batch at a time on every core (drawing is most of the work),
        // then encoded in order; a batch bounds the memory held (a frame is w * h bytes).
        for chunk in picked.chunks(BATCH) {
            let drawn = draw_batch(
                renderer,
                views,
                chunk,
                theme,
                size,
                (w, h),
                &palette,
                threads,
            );
            for indexed in drawn {
                let indexed = indexed?;
                let ms = if n + 1 == picked.len() {
                    options.final_ms
                } else {
                    options.frame_ms
                };
                n += 1;
                let delay = u16::try_from(ms.div_ceil(10)).unwrap_or(u16::MAX);
                let (left, top, fw, fh, buffer) = match &previous {
                    None => (0, 0, w, h, indexed.clone()),
                    Some(prev) => changed(prev, &indexed, w, h),
                };
                let frame = gif::Frame {
                    delay,
                    dispose: gif::DisposalMethod::Keep,
                    left: left as u16,
                    top: top as u16,
                    width: fw as u16,
                    height: fh as u16,
                    buffer: Cow::Owned(buffer),
                    ..gif::Frame::default()
                };
                enc.write_frame(&frame)
                    .map_err(|e| AnimationError::Encode(e.to_string()))?;
                previous = Some(indexed);
            }
        }
    }
    Ok(out)
}

/// Frames drawn together before they are encoded.
const BATCH: usize = 32;

/// Draws the positions `chunk` of `views` as palette indices, on `threads` threads; in order.
#[allow(clippy::too_many_arguments)]
fn draw_batch(
    renderer: &Renderer,
    views: &[BoardView],
    chunk: &[usize],
    theme: &Theme,
    size: u32,
    (w, h): (u32, u32),
    palette: &Palette,
    threads: usize,
) -> Vec<Result<Vec<u8>, AnimationError>> {
    let draw = |i: usize, palette: &mut Palette| -> Result<Vec<u8>, AnimationError> {
        let pm = fit(renderer.pixmap(&views[i], theme, size)?, w, h);
        Ok(rgb(&pm).into_iter().map(|c| palette.index(c)).collect())
    };
    if threads <= 1 || chunk.len() <= 1 {
        let mut p = palette.clone();
        return chunk.iter().map(|&i| draw(i, &mut p)).collect();
    }
    let mut out: Vec<Option<Result<Vec<u8>, AnimationError>>> =
        (0..chunk.len()).map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let draw = &draw;
                s.spawn(move || {
                    let mut p = palette.clone();
                    chunk
                        .iter()
                        .enumerate()
                        .filter(|(k, _)| k % threads == t)
                        .map(|(k, &i)| (k, draw(i, &mut p)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (k, r) in h.join().unwrap_or_default() {
                out[k] = Some(r);
            }
        }
    });
    out.into_iter()
        .map(|r| r.unwrap_or_else(|| Err(AnimationError::Encode("a drawing thread failed".into()))))
        .collect()
}

/// The pixmap at exactly `w` x `h` (a frame whose captions made it another size is cut or
/// padded with its own background; it never happens with the layouts we draw, but a GIF
/// cannot have frames larger than its screen).
fn fit(pm: tiny_skia::Pixmap, w: u32, h: u32) -> tiny_skia::Pixmap {
    if pm.width() == w && pm.height() == h {
        return pm;
    }
    let Some(mut out) = tiny_skia::Pixmap::new(w, h) else {
        return pm;
    };
    if let Some(bg) = pm.pixels().first() {
        out.fill(tiny_skia::Color::from_rgba8(
            bg.red(),
            bg.green(),
            bg.blue(),
            255,
        ));
    }
    out.draw_pixmap(
        0,
        0,
        pm.as_ref(),
        &tiny_skia::PixmapPaint::default(),
        tiny_skia::Transform::identity(),
        None,
    );
    out
}

/// The frame's pixels as packed RGB (the pictures are opaque).
fn rgb(pm: &tiny_skia::Pixmap) -> Vec<u32> {
    pm.pixels()
        .iter()
        .map(|p| {
            let c = p.demultiply();
            (u32::from(c.red()) << 16) | (u32::from(c.green()) << 8) | u32::from(c.blue())
        })
        .collect()
}

/// The smallest rectangle where `now` differs from `before`: (left, top, width, height,
/// its pixels). A frame identical to the one before is one unchanged pixel.
fn changed(before: &[u8], now: &[u8], w: u32, h: u32) -> (u32, u32, u32, u32, Vec<u8>) {
    let (w, h) = (w as usize, h as usize);
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for y in 0..h {
        let row = y * w;
        let (a, b) = (&before[row..row + w], &now[row..row + w]);
        if a == b {
            continue;
        }
        let first = a.iter().zip(b).position(|(p, q)| p != q).unwrap_or(0);
        let last = w
            - 1
            - a.iter()
                .rev()
                .zip(b.iter().rev())
                .position(|(p, q)| p != q)
                .unwrap_or(0);
        x0 = x0.min(first);
        x1 = x1.max(last);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 || y0 > y1 {
        return (0, 0, 1, 1, vec![now[0]]);
    }
    let mut buf = Vec::with_capacity((x1 - x0 + 1) * (y1 - y0 + 1));
    for y in y0..=y1 {
        buf.extend_from_slice(&now[y * w + x0..=y * w + x1]);
    }
    (
        x0 as u32,
        y0 as u32,
        (x1 - x0 + 1) as u32,
        (y1 - y0 + 1) as u32,
        buf,
    )
}

/// A palette of at most 256 colours, and a table from 15-bit colours to their nearest entry.
#[derive(Clone)]
struct Palette {
    colours: Vec<[u8; 3]>,
    nearest: Vec<Option<u8>>,
}

/// A colour's 15-bit bin (5 bits per channel).
fn bin(c: u32) -> usize {
    (((c >> 19) & 31) << 10 | ((c >> 11) & 31) << 5 | ((c >> 3) & 31)) as usize
}

impl Palette {
    /// The 256 most common bins of the samples, each as the mean colour that fell in it.
    fn from_samples(samples: &[Vec<u32>]) -> Palette {
        let mut count = vec![0u64; 1 << 15];
        let mut sum = vec![[0u64; 3]; 1 << 15];
        for s in samples {
            for &c in s {
                let b = bin(c);
                count[b] += 1;
                sum[b][0] += u64::from((c >> 16) & 255);
                sum[b][1] += u64::from((c >> 8) & 255);
                sum[b][2] += u64::from(c & 255);
            }
        }
        let mut bins: Vec<usize> = (0..count.len()).filter(|&b| count[b] > 0).collect();
        bins.sort_by(|&a, &b| count[b].cmp(&count[a]).then(a.cmp(&b)));
        bins.truncate(256);
        let colours = bins
            .iter()
            .map(|&b| {
                let n = count[b];
                [0, 1, 2].map(|i| (sum[b][i] / n) as u8)
            })
            .collect::<Vec<_>>();
        Palette {
            colours: if colours.is_empty() {
                vec![[0, 0, 0]]
            } else {
                colours
            },
            nearest: vec![None; 1 << 15],
        }
    }

    /// The palette as GIF wants it (RGB triples).
    fn bytes(&self) -> Vec<u8> {
        self.colours.iter().flatten().copied().collect()
    }

    /// The index of the entry nearest to `c` (by its bin, remembered).
    fn index(&mut self, c: u32) -> u8 {
        let b = bin(c);
        if let Some(i) = self.nearest[b] {
            return i;
        }
        let centre = [
            ((b >> 10) & 31) as i32 * 8 + 4,
            ((b >> 5) & 31) as i32 * 8 + 4,
            (b & 31) as i32 * 8 + 4,
        ];
        let i = self
            .colours
            .iter()
            .enumerate()
            .min_by_key(|(_, p)| {
                let d = |k: usize| (i32::from(p[k]) - centre[k]).pow(2);
                // Green weighs most and blue least to the eye.
                3 * d(0) + 4 * d(1) + 2 * d(2)
            })
            .map_or(0, |(i, _)| i as u8);
        self.nearest[b] = Some(i);
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Army, BoardPanel, Glyph, Piece, Square};

    /// A King walking up the a-file of a 12x12 board, `n` positions.
    fn walk(n: usize) -> Vec<BoardView> {
        (0..n)
            .map(|i| {
                let mut v = BoardView::new(BoardPanel::rect(12, 12));
                v.put(
                    Square::new(0, (i % 12) as u8),
                    Piece::new(Army::White, Glyph::King),
                );
                v.put(Square::new(11, 11), Piece::new(Army::Black, Glyph::King));
                v
            })
            .collect()
    }

    fn frames_of(bytes: &[u8]) -> Vec<(u16, u16, u16, u16, u16)> {
        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::Indexed);
        let mut d = opts.read_info(bytes).unwrap();
        let mut out = Vec::new();
        while let Some(f) = d.read_next_frame().unwrap() {
            out.push((f.left, f.top, f.width, f.height, f.delay));
        }
        out
    }

    #[test]
    fn one_frame_per_position_the_last_held_longer_and_later_frames_only_the_change() {
        let r = Renderer::new();
        let a = gif(&r, &walk(4), &Theme::light(), &AnimationOptions::default()).unwrap();
        assert_eq!((a.frames, a.left_out, a.size), (4, 0, 640));
        let f = frames_of(&a.bytes);
        assert_eq!(f.len(), 4);
        assert_eq!(f[0].4, 100, "a second a move");
        assert_eq!(f[3].4, 400, "the end held for four");
        let full = u32::from(f[0].2) * u32::from(f[0].3);
        for later in &f[1..] {
            assert!(
                u32::from(later.2) * u32::from(later.3) < full / 4,
                "a one-cell move redraws a small rectangle: {later:?} of {:?}",
                f[0]
            );
        }
    }

    /// `n` positions each with 30 pieces somewhere else: every frame redraws most cells.
    fn shuffles(n: usize) -> Vec<BoardView> {
        (0..n)
            .map(|i| {
                let mut v = BoardView::new(BoardPanel::rect(12, 12));
                for j in 0..30 {
                    let c = (j * 37 + i * 53) % 144;
                    v.put(
                        Square::new((c % 12) as u8, (c / 12) as u8),
                        Piece::new(Army::Black, Glyph::Queen),
                    );
                }
                v
            })
            .collect()
    }

    #[test]
    fn over_budget_the_board_shrinks_then_frames_are_left_out() {
        let r = Renderer::new();
        let views = shuffles(12);
        let big = gif(&r, &views, &Theme::light(), &AnimationOptions::default()).unwrap();
        let budget = big.bytes.len() / 3;
        let opts = AnimationOptions {
            budget,
            ..AnimationOptions::default()
        };
        let small = gif(&r, &views, &Theme::light(), &opts).unwrap();
        assert!(small.bytes.len() <= budget);
        assert!(small.size < 640, "drawn smaller first: {}", small.size);
        assert_eq!(small.left_out, 0);
        let tiny = AnimationOptions {
            budget: small.bytes.len() / 2,
            min_size: small.size,
            ..opts
        };
        let cut = gif(&r, &views, &Theme::light(), &tiny).unwrap();
        assert!(cut.bytes.len() <= tiny.budget);
        assert!(cut.left_out > 0 && cut.frames >= 2, "{cut:?}");
        assert_eq!(frames_of(&cut.bytes).len(), cut.frames);
    }

    #[test]
    fn bad_requests_are_errors_not_panics() {
        let r = Renderer::new();
        assert!(matches!(
            gif(&r, &[], &Theme::light(), &AnimationOptions::default()),
            Err(AnimationError::NoFrames)
        ));
        let opts = AnimationOptions {
            budget: 100,
            min_size: 200,
            ..AnimationOptions::default()
        };
        assert!(matches!(
            gif(&r, &walk(3), &Theme::light(), &opts),
            Err(AnimationError::OverBudget { .. })
        ));
    }
}
