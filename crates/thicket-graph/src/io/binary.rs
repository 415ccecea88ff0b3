//! thicket's binary CSR (`.tgr`), which loads without parsing: the magic `THKTGR\0\1`, the
//! vertex and arc counts (u64, little-endian), a flags byte, the id of vertex 0 (0 or 1), then
//! the offsets (u64), heads (u32) and, if weighted, weights (u32). A file whose length is not
//! the one its header implies is refused before anything is allocated.

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use thicket_core::{Error, Result};

use super::Loaded;
use crate::graph::Graph;

/// Magic bytes of a `.tgr` file (version 1).
const MAGIC: &[u8; 8] = b"THKTGR\x00\x01";
/// The header's length: magic, vertices, arcs, flags, first id.
const HEADER: usize = 26;
/// Header flag: the file holds weights.
const WEIGHTED: u8 = 1;
/// Header flag: every arc has its reverse, so that the graph serves as its own reverse (no
/// transpose built when it is read).
const SYMMETRIC: u8 = 2;

/// Reads the bytes of a `.tgr` file; `file` names it in errors.
pub(super) fn read(file: &str, bytes: &[u8]) -> Result<Loaded> {
    let corrupt =
        |what: &str| Error::InvalidInput(format!("{file}: not a thicket .tgr graph ({what})"));
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err(corrupt("no header"));
    }
    let word = |at: usize| {
        let mut le = [0u8; 8];
        le.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(le)
    };
    let (n, m) = (word(8), word(16));
    // A file written before the symmetric bit reads as not known to be symmetric.
    let flags = bytes[24];
    if flags > (WEIGHTED | SYMMETRIC) {
        return Err(corrupt("unknown flags"));
    }
    if bytes[25] > 1 {
        return Err(corrupt("vertex 0's id is neither 0 nor 1"));
    }
    let weighted = flags & WEIGHTED != 0;
    let per_arc = if weighted { 8 } else { 4 };
    let expected = HEADER as u128 + 8 * (u128::from(n) + 1) + per_arc * u128::from(m);
    if bytes.len() as u128 != expected || n >= u64::from(u32::MAX) {
        return Err(corrupt("its length does not match its header"));
    }
    // The length matched: every count below is bounded by the bytes already in memory.
    let (n, m) = (n as usize, m as usize);
    let offsets_end = HEADER + 8 * (n + 1);
    let targets_end = offsets_end + 4 * m;
    // Decoded and checked on every core: a large graph loads at the speed of memory.
    let offsets: Vec<u64> = bytes[HEADER..offsets_end]
        .par_chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    let u32s = |span: &[u8]| -> Vec<u32> {
        span.par_chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    };
    let targets = u32s(&bytes[offsets_end..targets_end]);
    if offsets[0] != 0
        || offsets[n] != m as u64
        || offsets.par_windows(2).any(|w| w[0] > w[1])
        || targets.par_iter().any(|&v| v as usize >= n)
    {
        return Err(corrupt("its offsets or vertex ids are out of range"));
    }
    let weights = weighted.then(|| u32s(&bytes[targets_end..]));
    Ok(Loaded {
        graph: Graph {
            offsets,
            targets,
            weights,
        },
        first_id: u32::from(bytes[25]),
        negative_weight: None,
        symmetric: flags & SYMMETRIC != 0,
        ids: None,
    })
}

/// The header of `g`'s `.tgr`, vertex 0 numbered `first_id` (0 or 1), with `symmetric`.
fn header(g: &Graph, first_id: u32, symmetric: bool) -> [u8; HEADER] {
    let mut header = [0u8; HEADER];
    header[..8].copy_from_slice(MAGIC);
    header[8..16].copy_from_slice(&(g.vertices() as u64).to_le_bytes());
    header[16..24].copy_from_slice(&g.arcs().to_le_bytes());
    let mut flags = 0;
    if g.weights.is_some() {
        flags |= WEIGHTED;
    }
    if symmetric {
        flags |= SYMMETRIC;
    }
    header[24] = flags;
    header[25] = first_id.min(1) as u8;
    header
}

/// Bytes one thread copies at a time into the mapped file: many pieces per thread, each
/// large beside the cost of handing it out.
const COPY_BYTES: usize = 8 << 20;

/// Writes `g` to `path` as a `.tgr` file (see [`write`]) through a temporary file renamed
/// at the end. On a little-endian machine the file is sized first and mapped, and the pool's
/// threads copy the arrays' own bytes into it piece by piece: the page cache is filled on
/// every core (Linux serialises `write` calls to one file, so a single writer, or several
/// positioned ones, fill it at one core's speed). Elsewhere through [`write`].
pub(super) fn write_file(path: &Path, g: &Graph, first_id: u32, symmetric: bool) -> Result<()> {
    if cfg!(target_endian = "big") {
        return thicket_core::write_atomically_with(path, |out| write(out, g, first_id, symmetric));
    }
    let header = header(g, first_id, symmetric);
    let mut sections: Vec<&[u8]> = vec![&header, bytes_of(&g.offsets), bytes_of(&g.targets)];
    if let Some(weights) = &g.weights {
        sections.push(bytes_of(weights));
    }
    let len: usize = sections.iter().map(|s| s.len()).sum();
    thicket_core::write_atomically_sized(path, len as u64, |file| {
        // SAFETY: the file is the new temporary file (named at random, owner-only), which
        // nothing else opens, truncates or writes while the map lives; it is `len` bytes
        // long (sized by `write_atomically_sized`), the map's length.
        let mut map = unsafe { memmap2::MmapOptions::new().len(len).map_mut(file)? };
        let mut rest = &mut map[..];
        let mut pieces = Vec::new();
        for section in sections {
            let (into, after) = rest.split_at_mut(section.len());
            rest = after;
            pieces.extend(into.chunks_mut(COPY_BYTES).zip(section.chunks(COPY_BYTES)));
        }
        pieces
            .into_par_iter()
            .for_each(|(into, from)| into.copy_from_slice(from));
        Ok(())
    })
}

/// The in-memory bytes of `values` (on a little-endian machine, their little-endian bytes).
fn bytes_of<T: Word>(values: &[T]) -> &[u8] {
    // SAFETY: `T` is u32 or u64 (the only `Word`s), plain integers without padding; u8 has
    // alignment 1 and the span is exactly the slice's, borrowed for as long as it.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

/// Writes `g` as a `.tgr` file, vertex 0 numbered `first_id` (0 or 1), with `symmetric`.
pub(super) fn write(
    out: &mut dyn Write,
    g: &Graph,
    first_id: u32,
    symmetric: bool,
) -> std::io::Result<()> {
    out.write_all(&header(g, first_id, symmetric))?;
    write_le(out, &g.offsets)?;
    write_le(out, &g.targets)?;
    if let Some(weights) = &g.weights {
        write_le(out, weights)?;
    }
    Ok(())
}

/// The words a `.tgr` holds, written little-endian.
trait Word: Copy + Sync {
    /// Bytes a word takes.
    const BYTES: usize;
    /// Appends the word's little-endian bytes.
    fn push_le(self, bytes: &mut Vec<u8>);
}

impl Word for u32 {
    const BYTES: usize = 4;
    fn push_le(self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.to_le_bytes());
    }
}

impl Word for u64 {
    const BYTES: usize = 8;
    fn push_le(self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.to_le_bytes());
    }
}

/// Writes `values` little-endian: on a little-endian machine the array's own bytes in one
/// call (no copy, no conversion: the file is written at the speed of the page cache), else
/// converted on every core a few million at a time.
fn write_le<T: Word>(out: &mut dyn Write, values: &[T]) -> std::io::Result<()> {
    if cfg!(target_endian = "little") {
        return out.write_all(bytes_of(values));
    }
    for slice in values.chunks(1 << 22) {
        let converted: Vec<u8> = slice
            .par_chunks(1 << 12)
            .flat_map_iter(|words| {
                let mut bytes = Vec::with_capacity(words.len() * T::BYTES);
                words.iter().for_each(|w| w.push_le(&mut bytes));
                bytes
            })
            .collect();
        out.write_all(&converted)?;
    }
    Ok(())
}
