//! SVG -> pixels -> PNG, with fonts from bytes shipped in this crate.
//!
//! resvg is built without system-font support, and the [`Renderer`] loads only the embedded
//! DejaVu Sans Bold, so the same view gives the same PNG bytes on every machine. The font
//! database is built once per [`Renderer`] (about a millisecond) and shared by every picture
//! it draws; there is no global state.
//!
//! **Layers and caches.** Drawing 72 pieces and 48 coordinate labels with resvg costs about
//! 14 ms per 12x12 picture, and nearly all of it is the same every move. So a PNG is composed
//! from the layers of [`Scene`](crate::svg::Scene): the board layer (squares, coordinates,
//! rivers, join strips; it changes only with the variant, the viewer's rotation, the theme
//! and the size) and each piece sprite (one per glyph, army colours and pixel size) are
//! rasterised once and cached in the [`Renderer`]; per picture only the small layers under
//! and over the pieces (highlights, names, marks) go through resvg, and the sprites are
//! copied in at whole-pixel positions. The procedure is the same whether or not a layer was
//! cached, so the bytes do not depend on the cache.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use resvg::{tiny_skia, usvg};

use crate::{
    artwork, svg,
    theme::{ArmyPaint, Theme},
    view::{BoardView, Glyph, Piece},
};

/// The embedded font (DejaVu Sans Bold 2.37, Bitstream Vera licence; see
/// `assets/fonts/LICENSE-DejaVu.txt`).
pub const FONT: &[u8] = include_bytes!("../assets/fonts/DejaVuSans-Bold.ttf");

/// Largest picture side we agree to draw, in pixels (a chat image never needs more; this
/// bounds memory at 4096 * 4096 * 4 bytes).
pub const MAX_SIDE: u32 = 4096;

/// Errors from turning a view into pixels.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// The SVG text did not parse (only possible with hand-written SVG passed to
    /// [`Renderer::rasterize_svg`]; SVG from [`render_svg`](crate::render_svg) always parses).
    #[error("svg could not be parsed: {0}")]
    Svg(#[from] usvg::Error),
    /// The requested size is zero or larger than [`MAX_SIDE`].
    #[error("image size {width}x{height} is out of range (1..={MAX_SIDE} per side)")]
    Size {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// The PNG encoder failed.
    #[error("png encoding failed: {0}")]
    Png(#[from] png::EncodingError),
}

/// How PNGs are compressed.
///
/// Measured on a 12x12 start position at 760 px (see the README): `Fast` encodes in about
/// 1.5 ms and `Small` in about 10 ms for a file roughly 3 times smaller. Chat uploads are
/// limited to megabytes, so milliseconds matter more: `Fast` is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Opaque RGB, fast deflate, `Sub` filter.
    #[default]
    Fast,
    /// Opaque RGB, best deflate, adaptive filters.
    Small,
}

/// Draws views into PNGs. Owns the font database (built once); cheap to share by reference
/// between threads (`Renderer: Send + Sync`).
pub struct Renderer {
    options: usvg::Options<'static>,
    encoding: Encoding,
    cache: Mutex<Cache>,
}

/// Rasterised layers, keyed by their SVG text and pixel size.
#[derive(Default)]
struct Cache {
    boards: HashMap<(String, u32, u32), Arc<tiny_skia::Pixmap>>,
    sprites: HashMap<(Glyph, ArmyPaint, u32), Arc<tiny_skia::Pixmap>>,
}

/// Cache bounds: a bot serves a handful of variants, themes and sizes; beyond these the
/// cache is simply emptied (no LRU bookkeeping on the hot path).
const MAX_BOARDS: usize = 64;
const MAX_SPRITES: usize = 1024;

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("fonts", &self.options.fontdb.len())
            .field("encoding", &self.encoding)
            .finish()
    }
}

impl Default for Renderer {
    fn default() -> Self {
        Self::new()
    }
}

impl Renderer {
    /// A renderer with the embedded font and [`Encoding::Fast`].
    #[must_use]
    pub fn new() -> Self {
        let mut db = usvg::fontdb::Database::new(); // empty: never system fonts
        db.load_font_data(FONT.to_vec());
        db.set_sans_serif_family(svg::FONT_FAMILY);
        let mut options = usvg::Options {
            font_family: svg::FONT_FAMILY.to_owned(),
            fontdb: Arc::new(db),
            ..usvg::Options::default()
        };
        // Never read files named in <image href>: we draw only our own vector content.
        options.image_href_resolver = usvg::ImageHrefResolver {
            resolve_data: Box::new(|_, _, _| None),
            resolve_string: Box::new(|_, _| None),
        };
        Renderer {
            options,
            encoding: Encoding::Fast,
            cache: Mutex::new(Cache::default()),
        }
    }

    /// The same renderer with another PNG encoding.
    #[must_use]
    pub fn with_encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// The SVG text of `view` (same as [`render_svg`](crate::render_svg)).
    #[must_use]
    pub fn svg(&self, view: &BoardView, theme: &Theme) -> String {
        svg::render_svg(view, theme)
    }

    /// Draws `view` as a PNG whose longer side is `size` pixels.
    ///
    /// # Errors
    ///
    /// [`RenderError::Size`] if `size` is 0 or above [`MAX_SIDE`]; [`RenderError::Png`] if
    /// encoding fails (out of memory).
    pub fn png(&self, view: &BoardView, theme: &Theme, size: u32) -> Result<Vec<u8>, RenderError> {
        let pixmap = self.pixmap(view, theme, size)?;
        encode_png(&pixmap, self.encoding)
    }

    /// Draws `view` into pixels whose longer side is `size`, from cached layers (see the
    /// module docs); what [`Renderer::png`] encodes.
    ///
    /// # Errors
    ///
    /// [`RenderError::Size`] if `size` is 0 or above [`MAX_SIDE`].
    pub fn pixmap(
        &self,
        view: &BoardView,
        theme: &Theme,
        size: u32,
    ) -> Result<tiny_skia::Pixmap, RenderError> {
        let sc = svg::scene(view, theme);
        let (w, h) = (sc.width, sc.height);
        let scale = size as f32 / w.max(h);
        let (pw, ph) = ((w * scale).round() as u32, (h * scale).round() as u32);
        if size == 0 || size > MAX_SIDE || pw == 0 || ph == 0 {
            return Err(RenderError::Size {
                width: pw,
                height: ph,
            });
        }
        let transform = tiny_skia::Transform::from_scale(scale, scale);

        let key = (sc.board.clone(), pw, ph);
        let cached = self.lock().boards.get(&key).cloned();
        let board = match cached {
            Some(b) => b,
            None => {
                let tree = self.parse(&sc.layer_svg(&sc.board))?;
                let mut pm = tiny_skia::Pixmap::new(pw, ph).ok_or(RenderError::Size {
                    width: pw,
                    height: ph,
                })?;
                resvg::render(&tree, transform, &mut pm.as_mut());
                let pm = Arc::new(pm);
                let mut cache = self.lock();
                if cache.boards.len() >= MAX_BOARDS {
                    cache.boards.clear();
                }
                cache.boards.insert(key, Arc::clone(&pm));
                pm
            }
        };
        let mut pixmap = (*board).clone();
        if !sc.under.is_empty() {
            let tree = self.parse(&sc.layer_svg(&sc.under))?;
            resvg::render(&tree, transform, &mut pixmap.as_mut());
        }
        for s in &sc.sprites {
            let px = (s.size * scale).round().max(1.0) as u32;
            let sprite = self.sprite(s.piece, theme, px)?;
            let (x, y) = ((s.x * scale).round() as i32, (s.y * scale).round() as i32);
            match s.opacity {
                None => blit_over(&mut pixmap, &sprite, x, y),
                Some(opacity) => {
                    let paint = tiny_skia::PixmapPaint {
                        opacity,
                        ..tiny_skia::PixmapPaint::default()
                    };
                    pixmap.draw_pixmap(
                        x,
                        y,
                        (*sprite).as_ref(),
                        &paint,
                        tiny_skia::Transform::identity(),
                        None,
                    );
                }
            }
        }
        if !sc.over.is_empty() {
            let tree = self.parse(&sc.layer_svg(&sc.over))?;
            resvg::render(&tree, transform, &mut pixmap.as_mut());
        }
        Ok(pixmap)
    }

    /// A piece drawn alone in a `px` x `px` pixmap, from the cache or drawn now.
    fn sprite(
        &self,
        piece: Piece,
        theme: &Theme,
        px: u32,
    ) -> Result<Arc<tiny_skia::Pixmap>, RenderError> {
        let paint = theme.army(piece.army);
        let key = (piece.glyph, paint.clone(), px);
        if let Some(p) = self.lock().sprites.get(&key) {
            return Ok(Arc::clone(p));
        }
        let mut body = String::with_capacity(2048);
        artwork::glyph_svg(&mut body, piece.glyph, paint);
        let svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100" font-family="{}" font-weight="bold">{body}</svg>"#,
            svg::FONT_FAMILY,
        );
        let tree = self.parse(&svg)?;
        let mut pm = tiny_skia::Pixmap::new(px, px).ok_or(RenderError::Size {
            width: px,
            height: px,
        })?;
        let k = px as f32 / 100.0;
        resvg::render(
            &tree,
            tiny_skia::Transform::from_scale(k, k),
            &mut pm.as_mut(),
        );
        let pm = Arc::new(pm);
        let mut cache = self.lock();
        if cache.sprites.len() >= MAX_SPRITES {
            cache.sprites.clear();
        }
        cache.sprites.insert(key, Arc::clone(&pm));
        Ok(pm)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        // A panic while holding the lock leaves at worst a missing entry: keep going.
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Empties the layer and sprite caches (they refill on the next picture).
    pub fn clear_cache(&self) {
        let mut cache = self.lock();
        cache.boards.clear();
        cache.sprites.clear();
    }

    /// Parses SVG text into a tree (text is shaped here, with the embedded font).
    ///
    /// # Errors
    ///
    /// [`RenderError::Svg`] if the text is not valid SVG.
    pub fn parse(&self, svg: &str) -> Result<usvg::Tree, RenderError> {
        Ok(usvg::Tree::from_str(svg, &self.options)?)
    }

    /// Rasterises a parsed tree so that its longer side is `size` pixels, on an opaque
    /// background (the SVG from this crate paints one).
    ///
    /// # Errors
    ///
    /// [`RenderError::Size`] if the resulting size is out of range.
    pub fn rasterize(
        &self,
        tree: &usvg::Tree,
        size: u32,
    ) -> Result<tiny_skia::Pixmap, RenderError> {
        let s = tree.size();
        let (w, h) = (s.width(), s.height());
        let scale = size as f32 / w.max(h);
        let (pw, ph) = ((w * scale).round() as u32, (h * scale).round() as u32);
        if size == 0 || size > MAX_SIDE || pw == 0 || ph == 0 {
            return Err(RenderError::Size {
                width: pw,
                height: ph,
            });
        }
        let mut pixmap = tiny_skia::Pixmap::new(pw, ph).ok_or(RenderError::Size {
            width: pw,
            height: ph,
        })?;
        resvg::render(
            tree,
            tiny_skia::Transform::from_scale(scale, scale),
            &mut pixmap.as_mut(),
        );
        Ok(pixmap)
    }

    /// Parses and rasterises SVG text.
    ///
    /// # Errors
    ///
    /// As [`Renderer::parse`] and [`Renderer::rasterize`].
    pub fn rasterize_svg(&self, svg: &str, size: u32) -> Result<tiny_skia::Pixmap, RenderError> {
        let tree = self.parse(svg)?;
        self.rasterize(&tree, size)
    }

    /// The encoding this renderer uses.
    #[must_use]
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }
}

/// Source-over of a premultiplied sprite at whole-pixel position (x, y), clipped to `dst`.
/// tiny-skia's `draw_pixmap` runs its full shader pipeline per call; this integer loop is
/// several times faster for 70 small sprites that are mostly transparent.
fn blit_over(dst: &mut tiny_skia::Pixmap, src: &tiny_skia::Pixmap, x: i32, y: i32) {
    let (dw, dh) = (dst.width() as i32, dst.height() as i32);
    let (sw, sh) = (src.width() as i32, src.height() as i32);
    let (x0, y0) = (x.max(0), y.max(0));
    let (x1, y1) = ((x + sw).min(dw), (y + sh).min(dh));
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let sdata = src.data();
    let ddata = dst.data_mut();
    for row in y0..y1 {
        let s_off = (((row - y) * sw + (x0 - x)) * 4) as usize;
        let d_off = ((row * dw + x0) * 4) as usize;
        let n = ((x1 - x0) * 4) as usize;
        let (s, d) = (&sdata[s_off..s_off + n], &mut ddata[d_off..d_off + n]);
        for (sp, dp) in s.chunks_exact(4).zip(d.chunks_exact_mut(4)) {
            let sa = sp[3];
            if sa == 0 {
                continue;
            }
            if sa == 255 {
                dp.copy_from_slice(sp);
                continue;
            }
            let inv = 255 - u32::from(sa);
            for k in 0..4 {
                // s + d * (255 - sa) / 255, rounded (premultiplied source-over).
                let v = u32::from(dp[k]) * inv + 128;
                dp[k] = sp[k].saturating_add(((v + (v >> 8)) >> 8) as u8);
            }
        }
    }
}

/// Encodes a pixmap as an opaque RGB PNG.
///
/// The pixmap is premultiplied RGBA; our pictures are fully opaque, where premultiplied and
/// straight colour are the same, so dropping alpha is exact. (A translucent pixel would be
/// written as if composited on black; we never produce one because the background is opaque.)
///
/// # Errors
///
/// [`RenderError::Png`] if the encoder fails.
pub fn encode_png(pixmap: &tiny_skia::Pixmap, encoding: Encoding) -> Result<Vec<u8>, RenderError> {
    let (w, h) = (pixmap.width(), pixmap.height());
    let mut rgb = Vec::with_capacity((w * h * 3) as usize);
    for px in pixmap.data().chunks_exact(4) {
        rgb.extend_from_slice(&px[..3]);
    }
    let mut out = Vec::with_capacity(rgb.len() / 4);
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        match encoding {
            Encoding::Fast => {
                enc.set_compression(png::Compression::Fast);
                enc.set_filter(png::Filter::Sub);
            }
            Encoding::Small => {
                enc.set_compression(png::Compression::High);
                enc.set_filter(png::Filter::Adaptive);
            }
        }
        let mut writer = enc.write_header()?;
        writer.write_image_data(&rgb)?;
        writer.finish()?;
    }
    Ok(out)
}

/// One-shot convenience: builds a [`Renderer`] (loading the font, about a millisecond) and
/// draws `view` as a PNG whose longer side is `size` pixels. Keep a [`Renderer`] instead when
/// drawing more than one picture.
///
/// # Errors
///
/// As [`Renderer::png`].
pub fn render_png(view: &BoardView, theme: &Theme, size: u32) -> Result<Vec<u8>, RenderError> {
    Renderer::new().png(view, theme, size)
}
