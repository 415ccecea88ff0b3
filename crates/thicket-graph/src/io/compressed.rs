//! gzip-compressed graph files (`.gz`): any format, recognised when read by the gzip magic
//! bytes (so that a compressed file on standard input reads too), inflated in slices whose
//! memory is taken fallibly, up to half the memory available (a gzip bomb is refused there,
//! as too large, before it takes the machine), a text format's lines checked as they inflate
//! (an endless line is refused after [`thicket_core::MAX_LINE_BYTES`]), and written by the
//! `.gz` at the end of a file's name.

use std::io::{Read, Write};
use std::path::Path;

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use thicket_core::{Error, LineCheck, Result};

/// Whether `bytes` start as a gzip stream does.
pub(super) fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Whether a file named `path` is written compressed.
pub(super) fn named_compressed(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// The inflated bytes of the gzip stream `bytes` (every member, as `zcat` reads them), its
/// lines checked where it holds `text`.
pub(super) fn inflate(file: &str, bytes: &[u8], text: bool) -> Result<Vec<u8>> {
    let lines = text.then(LineCheck::new);
    inflate_at_most(file, bytes, thicket_core::available_memory() / 2, lines)
}

/// [`inflate`], refusing more than `limit` bytes and lines past `lines`' bound.
fn inflate_at_most(
    file: &str,
    bytes: &[u8],
    limit: u64,
    mut lines: Option<LineCheck>,
) -> Result<Vec<u8>> {
    let mut decoder = MultiGzDecoder::new(bytes);
    let mut out: Vec<u8> = Vec::new();
    let mut slice = vec![0u8; 1 << 16];
    loop {
        let got = decoder.read(&mut slice).map_err(|e| {
            let why = e.to_string().replace('\n', " ");
            Error::InvalidInput(format!("{file}: not a whole gzip stream ({why})"))
        })?;
        if got == 0 {
            return Ok(out);
        }
        if (out.len() + got) as u64 > limit || out.try_reserve(got).is_err() {
            return Err(Error::TooLarge(format!(
                "{file}: inflated, larger than {}, half the memory available",
                thicket_core::memory::bytes_text(limit)
            )));
        }
        out.extend_from_slice(&slice[..got]);
        if let Some(lines) = &mut lines {
            lines.check(file, &out)?;
        }
    }
}

/// Runs `fill` on a writer that compresses into `out`, and ends the stream.
pub(super) fn deflating(
    out: &mut dyn Write,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut encoder = GzEncoder::new(out, Compression::fast());
    fill(&mut encoder)?;
    encoder.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_inflates_back_and_a_cut_or_oversized_one_is_refused() {
        let mut packed = Vec::new();
        deflating(&mut packed, |w| w.write_all(b"0 1\n1 2\n")).unwrap();
        assert!(is_gzip(&packed));
        assert_eq!(inflate("g.gz", &packed, true).unwrap(), b"0 1\n1 2\n");
        let cut = &packed[..packed.len() - 6];
        let e = inflate("g.gz", cut, true).unwrap_err().to_string();
        assert!(e.contains("g.gz: not a whole gzip stream"), "{e}");
        let e = inflate_at_most("g.gz", &packed, 4, None).unwrap_err();
        assert!(matches!(e, Error::TooLarge(_)), "{e}");
        assert!(
            e.to_string()
                .contains("larger than 4 bytes, half the memory"),
            "{e}"
        );
    }

    #[test]
    fn a_bomb_of_one_endless_line_is_refused_as_it_inflates() {
        // 1 MiB of zeros with no line end: text refused past a 64 KiB line, bytes kept whole.
        let mut packed = Vec::new();
        deflating(&mut packed, |w| w.write_all(&vec![b'0'; 1 << 20])).unwrap();
        let lines = Some(LineCheck::with_limit(1 << 16));
        let e = inflate_at_most("b.el.gz", &packed, u64::MAX, lines).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string()
                .contains("b.el.gz:1: line 1 is longer than 65536 bytes"),
            "{e}"
        );
        assert_eq!(inflate("b.sg.gz", &packed, false).unwrap().len(), 1 << 20);
    }
}
