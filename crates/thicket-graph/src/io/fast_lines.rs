//! The fast path of edge-list reading: a file of plain lines (`<tail> <head>` or
//! `<tail> <head> <weight>`, unsigned decimal numbers separated by spaces or tabs, `#`/`%` comments,
//! blank lines, `\r\n` endings) cut at line ends into slices parsed on every core. Anything
//! else — a sign, a letter, a field too many or too few, a number past 32 bits — makes it
//! give up, and the careful reader (which names the line and the token) reads the file
//! instead; so the fast path decides nothing the careful one would decide otherwise.

use rayon::prelude::*;

use super::fields::MAX_INDEX;
use crate::graph::Arc;

/// Bytes per slice: large enough to amortise a task, small enough to spread a file.
const SLICE_BYTES: usize = 4 << 20;

/// The arcs of a file of plain lines and the byte offset of the line whose id is the
/// largest, or `None` where the file is not plain.
pub(super) struct Plain {
    /// Every arc, in the file's order.
    pub arcs: Vec<Arc>,
    /// The vertex count: the largest id plus one.
    pub vertices: usize,
    /// Where the line of the largest id starts (to name it in a message).
    pub widest_at: usize,
}

/// Parses `bytes` as plain lines of `fields` (2 or 3) numbers, or `None`.
pub(super) fn parse(bytes: &[u8], fields: usize) -> Option<Plain> {
    let mut cuts = vec![0];
    while *cuts.last().expect("starts at 0") < bytes.len() {
        let from = cuts.last().expect("starts at 0") + SLICE_BYTES;
        let end = match bytes.get(from..) {
            Some(rest) => rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |at| from + at + 1),
            None => bytes.len(),
        };
        cuts.push(end);
    }
    let slices: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
    let parsed: Option<Vec<(Vec<Arc>, u32, usize)>> = slices
        .par_iter()
        .map(|&(from, to)| slice(&bytes[from..to], from, fields))
        .collect();
    let parsed = parsed?;
    let total: usize = parsed.iter().map(|p| p.0.len()).sum();
    let mut arcs = Vec::new();
    arcs.try_reserve_exact(total).ok()?;
    let (mut widest, mut widest_at) = (0u32, 0usize);
    for (chunk, max, at) in parsed {
        if !chunk.is_empty() && (max > widest || arcs.is_empty()) {
            (widest, widest_at) = (max, at);
        }
        arcs.extend_from_slice(&chunk);
    }
    (!arcs.is_empty()).then_some(Plain {
        arcs,
        vertices: widest as usize + 1,
        widest_at,
    })
}

/// The arcs of one slice (starting at byte `base` of the file), its largest id and where
/// that id's line starts; `None` where a line is not plain.
fn slice(bytes: &[u8], base: usize, fields: usize) -> Option<(Vec<Arc>, u32, usize)> {
    let mut arcs = Vec::with_capacity(bytes.len() / (fields * 4));
    let (mut widest, mut widest_at) = (0u32, base);
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |e| at + e);
        at = end + 1;
        let mut line = &bytes[start..end];
        while let [rest @ .., b' ' | b'\t' | b'\r'] = line {
            line = rest;
        }
        while let [b' ' | b'\t', rest @ ..] = line {
            line = rest;
        }
        if line.is_empty() || line[0] == b'#' || line[0] == b'%' {
            continue;
        }
        let mut values = [0u64; 3];
        let mut count = 0;
        for token in line
            .split(|&b| b == b' ' || b == b'\t')
            .filter(|t| !t.is_empty())
        {
            if count == fields || token.len() > 10 || !token.iter().all(u8::is_ascii_digit) {
                return None;
            }
            values[count] = token
                .iter()
                .fold(0u64, |x, &d| x * 10 + u64::from(d - b'0'));
            count += 1;
        }
        let [u, v, w] = values;
        let ids_fit = u <= u64::from(MAX_INDEX) && v <= u64::from(MAX_INDEX);
        if count != fields || !ids_fit || w > u64::from(u32::MAX) {
            return None;
        }
        let (u, v) = (u as u32, v as u32);
        if u.max(v) > widest || arcs.is_empty() {
            (widest, widest_at) = (u.max(v), base + start);
        }
        arcs.push((u, v, if fields == 3 { w as u32 } else { 1 }));
    }
    Some((arcs, widest, widest_at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_parse_and_anything_else_gives_up() {
        let plain = parse(b"# c\n0 1\r\n\n 2\t0 \n", 2).unwrap();
        assert_eq!(plain.arcs, [(0, 1, 1), (2, 0, 1)]);
        assert_eq!((plain.vertices, plain.widest_at), (3, 10));
        let weighted = parse(b"0 1 7\n1 0 4294967295\n", 3).unwrap();
        assert_eq!(weighted.arcs[1], (1, 0, u32::MAX));
        for bad in [
            &b"0 1 2\n"[..],
            b"0 -1\n",
            b"0 x\n",
            b"0\n",
            b"0 4294967294\n",
            b"+1 2\n",
        ] {
            assert!(
                parse(bad, 2).is_none(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        assert!(parse(b"0 1 4294967296\n", 3).is_none());
        assert!(parse(b"# nothing\n", 2).is_none());
    }
}
