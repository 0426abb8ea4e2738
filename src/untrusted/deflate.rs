//! Bytes deflated (zlib) and in base64, as the harness's own outputs carry them: a journal
//! line's packed part, a game's line of the report's replays, the Python adapter's source
//! in its loader.
//!
//! A deflater is kept per thread and level and reset for each text: a new one allocates
//! and clears its window and hash tables (some 300 KB at the best level), which took longer
//! than deflating a game's line (a quarter of a millisecond a game, when a run or a report
//! packs every game it plays or replays). A reset deflater writes the very bytes a new one
//! writes.

use base64::Engine;
use std::cell::RefCell;

/// `bytes` deflated at `level` (zlib's stream, with its header) and in base64 (standard
/// alphabet, padded).
pub fn deflate_base64(bytes: &[u8], level: flate2::Compression) -> String {
    thread_local! {
        static KEPT: RefCell<Vec<(u32, flate2::Compress)>> = const { RefCell::new(Vec::new()) };
    }
    let deflated = KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        let at = match kept.iter().position(|(l, _)| *l == level.level()) {
            Some(at) => at,
            None => {
                kept.push((level.level(), flate2::Compress::new(level, true)));
                kept.len() - 1
            }
        };
        let deflater = &mut kept[at].1;
        deflater.reset();
        let mut out = Vec::with_capacity(bytes.len() / 4 + 64);
        // All the input, then the end, as a stream's writer gives them: the same blocks.
        while (deflater.total_in() as usize) < bytes.len() {
            let done = deflater.total_in() as usize;
            more_room(&mut out);
            // Deflating into memory cannot fail.
            deflater
                .compress_vec(&bytes[done..], &mut out, flate2::FlushCompress::None)
                .expect("deflating into memory");
        }
        loop {
            more_room(&mut out);
            let status = deflater
                .compress_vec(&[], &mut out, flate2::FlushCompress::Finish)
                .expect("deflating into memory");
            if status == flate2::Status::StreamEnd {
                break out;
            }
        }
    });
    base64::engine::general_purpose::STANDARD.encode(deflated)
}

/// Room in `out` for more of a stream: as much again as it holds, a little at least.
fn more_room(out: &mut Vec<u8>) {
    if out.capacity() - out.len() < 64 {
        out.reserve(out.len().max(64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// The same bytes as a new deflater's, text after text, of any length (the output
    /// growing past its first guess included), and they inflate back.
    #[test]
    fn a_kept_deflater_writes_what_a_new_one_writes() {
        let texts: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"[7,[[\"a\",\"\"]],[]]".to_vec(),
            (0..200_000u32).map(|i| (i * 7919 % 251) as u8).collect(),
            b"abc".repeat(10_000),
        ];
        for level in [flate2::Compression::fast(), flate2::Compression::best()] {
            for text in texts.iter().chain(texts.iter().rev()) {
                let mut fresh = flate2::write::ZlibEncoder::new(Vec::new(), level);
                fresh.write_all(text).unwrap();
                let fresh =
                    base64::engine::general_purpose::STANDARD.encode(fresh.finish().unwrap());
                let kept = deflate_base64(text, level);
                assert_eq!(kept, fresh, "{} bytes at {level:?}", text.len());
                let zlib = base64::engine::general_purpose::STANDARD
                    .decode(kept)
                    .unwrap();
                let mut back = Vec::new();
                flate2::read::ZlibDecoder::new(zlib.as_slice())
                    .read_to_end(&mut back)
                    .unwrap();
                assert_eq!(&back, text);
            }
        }
    }
}
