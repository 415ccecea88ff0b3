//! GAPBS's serialized graphs: `.sg` (unweighted) and `.wsg` (weighted), as its `converter`
//! writes them on a little-endian machine: a `directed` byte, the arc count and the vertex
//! count (signed 64-bit), the out-arcs' offsets (signed 64-bit, one per vertex and one more)
//! and heads (signed 32-bit; in `.wsg` each head followed by its signed 32-bit weight), and,
//! for a directed graph, the in-arcs in the same layout. An undirected graph's arcs go both
//! ways, so it is read as symmetric; a directed graph's in-arcs are only compared with its
//! out-arcs (where they are the same bytes the graph is symmetric too; else the searches
//! build the reverse they need). A file whose length is not the one its header implies is
//! refused before anything is allocated.

use std::io::Write;

use rayon::prelude::*;
use thicket_core::{Error, Result};

use super::Loaded;
use crate::graph::Graph;

/// The header's length: `directed`, arcs, vertices.
const HEADER: usize = 17;

/// Reads the bytes of a `.sg` (`weighted` false) or `.wsg` file; `file` names it in errors.
pub(super) fn read(file: &str, bytes: &[u8], weighted: bool) -> Result<Loaded> {
    let kind = if weighted { ".wsg" } else { ".sg" };
    let corrupt =
        |what: &str| Error::InvalidInput(format!("{file}: not a GAPBS {kind} graph ({what})"));
    if bytes.len() < HEADER {
        return Err(corrupt("no header"));
    }
    let directed = match bytes[0] {
        0 => false,
        1 => true,
        _ => return Err(corrupt("its directed flag is neither 0 nor 1")),
    };
    let word = |at: usize| i64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let (m, n) = (word(1), word(9));
    let per_arc: u128 = if weighted { 8 } else { 4 };
    let halves = if directed { 2 } else { 1 };
    let expected = (m >= 0 && n >= 0 && n < i64::from(i32::MAX))
        .then(|| HEADER as u128 + halves * (8 * (n as u128 + 1) + per_arc * m as u128));
    if expected != Some(bytes.len() as u128) {
        return Err(corrupt("its length does not match its header"));
    }
    // The length matched: every count below is bounded by the bytes already in memory.
    let (n, m) = (n as usize, m as usize);
    let offsets_end = HEADER + 8 * (n + 1);
    let offsets: Vec<u64> = bytes[HEADER..offsets_end]
        .par_chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")) as u64)
        .collect();
    let arcs = &bytes[offsets_end..offsets_end + per_arc as usize * m];
    let field = |c: &[u8], at: usize| i32::from_le_bytes(c[at..at + 4].try_into().expect("4"));
    let targets: Vec<u32> = arcs
        .par_chunks_exact(per_arc as usize)
        .map(|c| field(c, 0) as u32)
        .collect();
    let signed: Option<Vec<i32>> =
        weighted.then(|| arcs.par_chunks_exact(8).map(|c| field(c, 4)).collect());
    if offsets[0] != 0
        || offsets[n] != m as u64
        || offsets.par_windows(2).any(|w| w[0] > w[1])
        || targets.par_iter().any(|&v| v as usize >= n)
    {
        return Err(corrupt("its offsets or vertex ids are out of range"));
    }
    // GAPBS's converter writes an edge list it was not told is undirected as a directed
    // graph with its in-arcs; where they are the out-arcs byte for byte, every arc has its
    // reverse (with its weight) and the graph serves as its own reverse: no transpose to
    // build before a search.
    let half = offsets_end - HEADER + arcs.len();
    let symmetric = !directed
        || bytes[HEADER..HEADER + half]
            .par_chunks(1 << 16)
            .zip(bytes[HEADER + half..].par_chunks(1 << 16))
            .all(|(out, back)| out == back);
    let negative_weight = signed.as_ref().and_then(|w| {
        let at = w.iter().position(|&x| x < 0)?;
        Some(format!("{file}: arc {at} (weight {})", w[at]))
    });
    let weights = signed.map(|w| w.into_par_iter().map(|x| x.max(0) as u32).collect());
    Ok(Loaded {
        graph: Graph {
            offsets,
            targets,
            weights,
        },
        first_id: 0,
        negative_weight,
        symmetric,
        ids: None,
    })
}

/// Why `g` cannot be written as `.sg`/`.wsg`, if it cannot: GAPBS's ids and weights are
/// signed 32-bit.
pub(super) fn unwritable(g: &Graph, weighted: bool) -> Option<String> {
    if g.vertices() > i32::MAX as usize {
        return Some(format!(
            "{} vertices do not fit GAPBS's 32-bit ids",
            g.vertices()
        ));
    }
    let heaviest = g
        .weights()
        .filter(|_| weighted)?
        .par_iter()
        .max()
        .copied()?;
    (heaviest > i32::MAX as u32)
        .then(|| format!("weight {heaviest} does not fit GAPBS's signed 32-bit weights"))
}

/// Writes `g` as `.sg` (`weighted` false; weights dropped) or `.wsg` (weight 1 where `g`
/// has none), undirected where `symmetric`, else with its in-arcs. The caller has checked
/// [`unwritable`].
pub(super) fn write(
    out: &mut dyn Write,
    g: &Graph,
    weighted: bool,
    symmetric: bool,
) -> std::io::Result<()> {
    out.write_all(&[u8::from(!symmetric)])?;
    out.write_all(&(g.arcs() as i64).to_le_bytes())?;
    out.write_all(&(g.vertices() as i64).to_le_bytes())?;
    half(out, g, weighted)?;
    if !symmetric {
        half(out, &g.reversed(), weighted)?;
    }
    Ok(())
}

/// One CSR of the file: offsets, then heads (with weights).
fn half(out: &mut dyn Write, g: &Graph, weighted: bool) -> std::io::Result<()> {
    let offsets: Vec<u8> = g
        .offsets()
        .par_iter()
        .flat_map_iter(|&o| (o as i64).to_le_bytes())
        .collect();
    out.write_all(&offsets)?;
    drop(offsets);
    // In slices of a few million arcs: a copy of the whole graph is not needed.
    const SLICE: usize = 1 << 22;
    for start in (0..g.targets().len()).step_by(SLICE) {
        let end = (start + SLICE).min(g.targets().len());
        let bytes: Vec<u8> = (start..end)
            .into_par_iter()
            .flat_map_iter(|at| {
                let head = (g.targets()[at] as i32).to_le_bytes();
                let weight = (g.weight(at) as i32).to_le_bytes();
                let width = if weighted { 8 } else { 4 };
                let mut both = [0u8; 8];
                both[..4].copy_from_slice(&head);
                both[4..].copy_from_slice(&weight);
                both.into_iter().take(width)
            })
            .collect();
        out.write_all(&bytes)?;
    }
    Ok(())
}
