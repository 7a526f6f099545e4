//! SVG -> pixels -> PNG, with fonts from bytes shipped in this crate.
//!
//! resvg is built without system-font support, and the [`Renderer`] loads only the embedded
//! DejaVu Sans Bold, so the same view gives the same PNG bytes on every machine. The font
//! database is built once per [`Renderer`] (about a millisecond) and shared by every picture
//! it draws; there is no global state.

use std::sync::Arc;

use resvg::{tiny_skia, usvg};

use crate::{svg, theme::Theme, view::BoardView};

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
}

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
        let svg = svg::render_svg(view, theme);
        let pixmap = self.rasterize_svg(&svg, size)?;
        encode_png(&pixmap, self.encoding)
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
                enc.set_filter(png::FilterType::Sub);
            }
            Encoding::Small => {
                enc.set_compression(png::Compression::Best);
                enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
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
