//! The report's plots as PDF and PNG, drawn from the very SVG text that [`super::plots`]
//! writes, so the three files of a plot show one figure: usvg lays the SVG out (its text
//! in a real font), svg2pdf writes it as a vector PDF with that font embedded (subset),
//! which pdflatex's `\includegraphics` takes, and resvg paints it into a PNG.
//!
//! The plots name the generic `sans-serif` family. Here it is DejaVu Sans (Debian's
//! fonts-dejavu-core) where that is installed, else the first sans-serif font of the
//! system's: a PDF's look then does not depend on the viewer's fonts.

use crate::error::Error;
use std::sync::{Arc, OnceLock};
use svg2pdf::usvg::{self, fontdb};

/// Where Debian (and most Linux systems) keep DejaVu Sans.
const DEJAVU: [&str; 2] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
];

/// A PNG's pixels per SVG pixel: sharp on a high-density screen and in print.
pub(crate) const PNG_SCALE: f32 = 2.0;

/// The fonts the figures are drawn with, found once per process: `None` when the system
/// has none.
fn fonts() -> Option<Arc<fontdb::Database>> {
    static FONTS: OnceLock<Option<Arc<fontdb::Database>>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = fontdb::Database::new();
            // Loaded into memory once: a face known by its file's path is opened and mapped
            // again at each use, some 23,000 times for a 30-team league's figures.
            if let Some(bytes) = DEJAVU.iter().find_map(|path| std::fs::read(path).ok()) {
                db.load_font_data(bytes);
            }
            if db.is_empty() {
                db.load_system_fonts();
            }
            let family = db
                .faces()
                .flat_map(|face| face.families.iter().map(|(name, _)| name.clone()))
                .find(|name| name == "DejaVu Sans")
                .or_else(|| {
                    db.faces()
                        .find(|face| !face.monospaced)
                        .and_then(|face| face.families.first().map(|(name, _)| name.clone()))
                })?;
            db.set_sans_serif_family(family);
            Some(Arc::new(db))
        })
        .clone()
}

/// `svg` laid out with the figures' fonts.
fn tree(plot: &str, svg: &str) -> Result<usvg::Tree, Error> {
    let failed = |message: String| Error::Plot {
        plot: plot.to_string(),
        message,
    };
    let fontdb = fonts().ok_or_else(|| {
        failed(
            "no font is installed to draw its text in the PDF and PNG: install one, e.g. \
             Debian's fonts-dejavu-core"
                .into(),
        )
    })?;
    let options = usvg::Options {
        fontdb,
        ..usvg::Options::default()
    };
    // A bot's name may hold control characters, which XML does not allow even escaped:
    // shown as U+FFFD, as a terminal shows them escaped.
    let svg: std::borrow::Cow<str> = if svg.chars().any(not_xml) {
        svg.chars()
            .map(|c| if not_xml(c) { '\u{fffd}' } else { c })
            .collect::<String>()
            .into()
    } else {
        svg.into()
    };
    usvg::Tree::from_str(&svg, &options).map_err(|e| failed(e.to_string()))
}

/// A character XML 1.0 does not allow.
fn not_xml(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// The plot `plot` (its SVG text `svg`) as a PDF page of the SVG's size, its text as text
/// in an embedded font, and as a PNG of [`PNG_SCALE`] pixels per SVG pixel: laid out once
/// for both, which are drawn at once.
pub(crate) fn pdf_and_png(plot: &str, svg: &str) -> Result<(Vec<u8>, Vec<u8>), Error> {
    let tree = tree(plot, svg)?;
    let (pdf, png) = rayon::join(|| pdf_of(plot, &tree), || png_of(plot, &tree));
    Ok((pdf?, png?))
}

fn pdf_of(plot: &str, tree: &usvg::Tree) -> Result<Vec<u8>, Error> {
    svg2pdf::to_pdf(
        tree,
        svg2pdf::ConversionOptions::default(),
        svg2pdf::PageOptions::default(),
    )
    .map(pdf_1_5)
    .map_err(|e| Error::Plot {
        plot: plot.to_string(),
        message: format!("cannot write it as PDF: {e}"),
    })
}

/// The PDF headed as version 1.5, the most pdfTeX takes without a warning per figure
/// ("found PDF version <1.7>, but at most version <1.5> allowed"). svg2pdf heads every
/// file 1.7 but writes nothing newer than 1.4 needs (a plain cross-reference table, no
/// object streams; transparency and embedded TrueType fonts are 1.4), and the header is
/// rewritten in place, its length kept, so that no offset of the file moves.
fn pdf_1_5(mut pdf: Vec<u8>) -> Vec<u8> {
    if let Some(header) = pdf.get_mut(..8)
        && header.starts_with(b"%PDF-1.")
        && header[7] > b'5'
    {
        header[7] = b'5';
    }
    pdf
}

fn png_of(plot: &str, tree: &usvg::Tree) -> Result<Vec<u8>, Error> {
    let failed = |message: String| Error::Plot {
        plot: plot.to_string(),
        message,
    };
    let size = tree
        .size()
        .to_int_size()
        .scale_by(PNG_SCALE)
        .ok_or_else(|| failed(format!("its size {:?} cannot be drawn as PNG", tree.size())))?;
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| failed(format!("no PNG of {}x{} px", size.width(), size.height())))?;
    resvg::render(
        tree,
        resvg::tiny_skia::Transform::from_scale(PNG_SCALE, PNG_SCALE),
        &mut pixmap.as_mut(),
    );
    encode_png(pixmap).map_err(|e| failed(format!("cannot encode its PNG: {e}")))
}

/// `pixmap` as PNG. tiny-skia keeps its colours premultiplied by alpha and PNG's are
/// straight: they are turned in place, where tiny-skia's own encoder copies the whole
/// pixmap first (megabytes a figure). A figure with no transparent pixel (every plot has a
/// white ground) is written without its alpha: a quarter less to filter and deflate.
fn encode_png(mut pixmap: resvg::tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let (width, height) = (pixmap.width(), pixmap.height());
    let opaque = pixmap.pixels().iter().all(|p| p.alpha() == u8::MAX);
    let data = pixmap.data_mut();
    let color = if opaque {
        // Each pixel's three colour bytes moved down over the alphas, in place.
        for i in 0..data.len() / 4 {
            data.copy_within(4 * i..4 * i + 3, 3 * i);
        }
        png::ColorType::Rgb
    } else {
        // tiny-skia's `demultiply`, to the rounding.
        for pixel in data.chunks_exact_mut(4) {
            let alpha = pixel[3];
            if alpha != u8::MAX {
                let a = f64::from(alpha) / 255.0;
                for c in &mut pixel[..3] {
                    *c = (f64::from(*c) / a + 0.5) as u8;
                }
            }
        }
        png::ColorType::Rgba
    };
    let used = match color {
        png::ColorType::Rgb => 3 * width as usize * height as usize,
        _ => data.len(),
    };
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&data[..used])?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_control_character_in_a_plots_text_is_drawn_as_a_replacement_not_refused() {
        if fonts().is_none() {
            return;
        }
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"20\">\
                   <text x=\"2\" y=\"15\" font-family=\"sans-serif\">a\u{1b}[2Jb</text></svg>";
        let (pdf, png) = pdf_and_png("elo.svg", svg).unwrap();
        assert!(pdf.starts_with(b"%PDF-1.5\n"));
        assert!(png.starts_with(b"\x89PNG"));
    }

    /// A figure on a white ground is written as RGB, one with transparent pixels as RGBA
    /// with its colours straight; both read back as drawn.
    #[test]
    fn an_opaque_figure_is_written_without_alpha_and_a_transparent_one_with_it() {
        use resvg::tiny_skia::{Color, Pixmap};
        let decode = |bytes: &[u8]| {
            let mut reader = png::Decoder::new(std::io::Cursor::new(bytes.to_vec()))
                .read_info()
                .unwrap();
            let mut pixels = vec![0; reader.output_buffer_size()];
            let info = reader.next_frame(&mut pixels).unwrap();
            (info.color_type, pixels[..info.buffer_size()].to_vec())
        };
        let mut white = Pixmap::new(3, 2).unwrap();
        white.fill(Color::from_rgba8(255, 255, 255, 255));
        white.pixels_mut()[4] = resvg::tiny_skia::ColorU8::from_rgba(10, 20, 30, 255).premultiply();
        let (color, pixels) = decode(&encode_png(white).unwrap());
        assert_eq!(color, png::ColorType::Rgb);
        let mut expected = [255u8; 18];
        expected[12..15].copy_from_slice(&[10, 20, 30]);
        assert_eq!(pixels, expected);
        let mut clear = Pixmap::new(2, 1).unwrap();
        clear.pixels_mut()[1] =
            resvg::tiny_skia::ColorU8::from_rgba(200, 100, 0, 128).premultiply();
        let (color, pixels) = decode(&encode_png(clear).unwrap());
        assert_eq!(color, png::ColorType::Rgba);
        assert_eq!(&pixels[..4], &[0, 0, 0, 0]);
        assert_eq!(pixels[7], 128);
        assert!((i32::from(pixels[4]) - 200).abs() <= 1, "{pixels:?}");
        assert!((i32::from(pixels[5]) - 100).abs() <= 1, "{pixels:?}");
    }
}
