//! Graph files: DIMACS shortest-path `.gr` (1-based), edge lists `.el` and weighted `.wel`
//! (0-based, as GAPBS reads them), Matrix Market `.mtx` (coordinate, 1-based; `symmetric`
//! files give arcs both ways) and thicket's binary CSR `.tgr`, which loads without parsing.
//! The format follows the file's extension. A malformed line is an error naming the file, the
//! line and what was expected.

use std::io::Write;
use std::path::Path;

use thicket_core::{Error, Result};

use crate::graph::{Arc, Graph};

/// A graph read from a file, with how the file numbers its vertices.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The graph, vertices 0-based.
    pub graph: Graph,
    /// The id the file gives vertex 0 (1 for `.gr` and `.mtx`, 0 for edge lists).
    pub first_id: u32,
    /// The first negative weight, where one is: file and line (shortest paths refuse it).
    pub negative_weight: Option<String>,
    /// Whether the graph is known to be symmetric (a symmetric Matrix Market file, a
    /// generated or symmetrised graph), so that it serves as its own reverse.
    pub symmetric: bool,
}

/// The formats thicket reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// DIMACS 9th challenge `.gr`.
    Dimacs,
    /// `u v` per line.
    EdgeList,
    /// `u v w` per line.
    WeightedEdgeList,
    /// Matrix Market coordinate.
    MatrixMarket,
    /// thicket's binary CSR.
    Binary,
}

impl Format {
    /// The format a file's extension names.
    pub fn of(path: &Path) -> Result<Format> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        Ok(match ext {
            "gr" => Format::Dimacs,
            "el" => Format::EdgeList,
            "wel" => Format::WeightedEdgeList,
            "mtx" => Format::MatrixMarket,
            "tgr" => Format::Binary,
            _ => {
                return Err(Error::InvalidInput(format!(
                    "{}: unknown graph format (.gr, .el, .wel, .mtx or .tgr)",
                    path.display()
                )))
            }
        })
    }
}

/// Magic bytes of a `.tgr` file (version 1).
const MAGIC: &[u8; 8] = b"THKTGR\x00\x01";

/// Reads a graph file.
pub fn read(path: &Path) -> Result<Loaded> {
    let format = Format::of(path)?;
    if format == Format::Binary {
        let bytes = std::fs::read(path).map_err(|e| Error::file(path, e))?;
        return read_binary(&path.display().to_string(), &bytes);
    }
    let text = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
    parse(&path.display().to_string(), &text, format)
}

/// Parses a text graph in `format`; `file` names it in errors.
pub fn parse(file: &str, text: &str, format: Format) -> Result<Loaded> {
    match format {
        Format::Dimacs => parse_dimacs(file, text),
        Format::EdgeList => parse_edge_list(file, text, false),
        Format::WeightedEdgeList => parse_edge_list(file, text, true),
        Format::MatrixMarket => parse_matrix_market(file, text),
        Format::Binary => Err(Error::InvalidInput(format!(
            "{file}: a .tgr file is binary"
        ))),
    }
}

/// A malformed line's error.
fn bad(file: &str, line: usize, what: &str) -> Error {
    Error::InvalidInput(format!("{file}:{line}: {what}"))
}

/// The fields of a line as numbers.
fn numbers<'a>(
    file: &'a str,
    line: usize,
    fields: impl Iterator<Item = &'a str> + 'a,
) -> impl Iterator<Item = Result<i64>> + 'a {
    fields.map(move |f| {
        f.parse::<i64>()
            .map_err(|_| bad(file, line, &format!("{f:?} is not an integer")))
    })
}

/// A vertex id of a `first`-based file with `vertices` vertices, 0-based.
fn vertex(file: &str, line: usize, id: i64, first: i64, vertices: Option<usize>) -> Result<u32> {
    let max = vertices.map_or(i64::from(u32::MAX) - 1, |n| n as i64 - 1 + first);
    if id < first || id > max {
        return Err(bad(
            file,
            line,
            &format!("vertex {id} is outside {first}..={max}"),
        ));
    }
    Ok((id - first) as u32)
}

/// A weight: non-negative values fit u32; a negative one is kept as 0 and reported.
fn weight(file: &str, line: usize, w: i64, negative: &mut Option<String>) -> Result<u32> {
    if w < 0 {
        negative.get_or_insert_with(|| format!("{file}:{line} (weight {w})"));
        return Ok(0);
    }
    u32::try_from(w).map_err(|_| bad(file, line, &format!("weight {w} passes 2^32 - 1")))
}

fn parse_dimacs(file: &str, text: &str) -> Result<Loaded> {
    let mut header: Option<(usize, usize)> = None;
    let mut arcs: Vec<Arc> = Vec::new();
    let mut negative = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let mut fields = line.split_ascii_whitespace();
        match fields.next() {
            None | Some("c") => {}
            Some("p") => {
                if header.is_some() {
                    return Err(bad(file, number, "a second 'p' line"));
                }
                if fields.next() != Some("sp") {
                    return Err(bad(file, number, "expected 'p sp <vertices> <arcs>'"));
                }
                let values: Vec<i64> = numbers(file, number, fields).collect::<Result<_>>()?;
                match values[..] {
                    [n, m] if n > 0 && m >= 0 => {
                        header = Some((n as usize, m as usize));
                        arcs.reserve(m as usize);
                    }
                    _ => return Err(bad(file, number, "expected 'p sp <vertices> <arcs>'")),
                }
            }
            Some("a") => {
                let Some((n, _)) = header else {
                    return Err(bad(file, number, "an arc before the 'p sp' line"));
                };
                let values: Vec<i64> = numbers(file, number, fields).collect::<Result<_>>()?;
                let [u, v, w] = values[..] else {
                    return Err(bad(file, number, "expected 'a <tail> <head> <weight>'"));
                };
                arcs.push((
                    vertex(file, number, u, 1, Some(n))?,
                    vertex(file, number, v, 1, Some(n))?,
                    weight(file, number, w, &mut negative)?,
                ));
            }
            Some(other) => {
                return Err(bad(
                    file,
                    number,
                    &format!("expected a 'c', 'p' or 'a' line, not {other:?}"),
                ))
            }
        }
    }
    let Some((n, m)) = header else {
        return Err(Error::InvalidInput(format!(
            "{file}: no 'p sp <vertices> <arcs>' line (an empty graph?)"
        )));
    };
    if arcs.len() != m {
        return Err(Error::InvalidInput(format!(
            "{file}: the 'p' line declares {m} arcs, the file has {}{}",
            arcs.len(),
            if arcs.len() < m {
                " (it ends early)"
            } else {
                ""
            }
        )));
    }
    Ok(Loaded {
        graph: Graph::from_arcs(n, &arcs, true)?,
        first_id: 1,
        negative_weight: negative,
        symmetric: false,
    })
}

fn parse_edge_list(file: &str, text: &str, weighted: bool) -> Result<Loaded> {
    let mut arcs: Vec<Arc> = Vec::new();
    let mut negative = None;
    let mut vertices = 0usize;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('%') {
            continue;
        }
        let values: Vec<i64> =
            numbers(file, number, trimmed.split_ascii_whitespace()).collect::<Result<_>>()?;
        let (u, v, w) = match (&values[..], weighted) {
            ([u, v], false) => (*u, *v, 1),
            ([u, v, w], true) => (*u, *v, *w),
            _ => {
                return Err(bad(
                    file,
                    number,
                    if weighted {
                        "expected '<tail> <head> <weight>'"
                    } else {
                        "expected '<tail> <head>'"
                    },
                ))
            }
        };
        let (u, v) = (
            vertex(file, number, u, 0, None)?,
            vertex(file, number, v, 0, None)?,
        );
        vertices = vertices.max(u.max(v) as usize + 1);
        arcs.push((u, v, weight(file, number, w, &mut negative)?));
    }
    if arcs.is_empty() {
        return Err(Error::InvalidInput(format!(
            "{file}: no arcs (an empty graph)"
        )));
    }
    Ok(Loaded {
        graph: Graph::from_arcs(vertices, &arcs, weighted)?,
        first_id: 0,
        negative_weight: negative,
        symmetric: false,
    })
}

fn parse_matrix_market(file: &str, text: &str) -> Result<Loaded> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (_, banner) = lines
        .next()
        .ok_or_else(|| Error::InvalidInput(format!("{file}: empty")))?;
    let words: Vec<String> = banner
        .split_ascii_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let [ref mm, ref matrix, ref coordinate, ref field, ref symmetry] = words[..] else {
        return Err(bad(
            file,
            1,
            "expected '%%MatrixMarket matrix coordinate <field> <symmetry>'",
        ));
    };
    if mm != "%%matrixmarket" || matrix != "matrix" || coordinate != "coordinate" {
        return Err(bad(
            file,
            1,
            "expected '%%MatrixMarket matrix coordinate <field> <symmetry>'",
        ));
    }
    let weighted = match field.as_str() {
        "pattern" => false,
        "integer" | "real" => true,
        other => {
            return Err(bad(
                file,
                1,
                &format!("field {other:?} is not pattern, integer or real"),
            ))
        }
    };
    let symmetric = match symmetry.as_str() {
        "general" => false,
        "symmetric" => true,
        other => {
            return Err(bad(
                file,
                1,
                &format!("symmetry {other:?} is not general or symmetric"),
            ))
        }
    };
    let mut size: Option<(usize, usize)> = None;
    let mut arcs: Vec<Arc> = Vec::new();
    let mut negative = None;
    let mut entries = 0usize;
    for (number, line) in lines {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('%') {
            continue;
        }
        let fields: Vec<&str> = trimmed.split_ascii_whitespace().collect();
        let Some((n, _)) = size else {
            let values: Vec<i64> =
                numbers(file, number, fields.into_iter()).collect::<Result<_>>()?;
            match values[..] {
                [rows, cols, nnz] if rows > 0 && rows == cols && nnz >= 0 => {
                    size = Some((rows as usize, nnz as usize));
                }
                _ => {
                    return Err(bad(
                        file,
                        number,
                        "expected '<rows> <cols> <entries>' of a square matrix",
                    ))
                }
            }
            continue;
        };
        let expected = if weighted { 3 } else { 2 };
        if fields.len() != expected {
            return Err(bad(
                file,
                number,
                if weighted {
                    "expected '<row> <col> <value>'"
                } else {
                    "expected '<row> <col>'"
                },
            ));
        }
        let ids: Vec<i64> =
            numbers(file, number, fields[..2].iter().copied()).collect::<Result<_>>()?;
        let u = vertex(file, number, ids[0], 1, Some(n))?;
        let v = vertex(file, number, ids[1], 1, Some(n))?;
        let w = if weighted {
            let value: f64 = fields[2]
                .parse()
                .map_err(|_| bad(file, number, &format!("{:?} is not a number", fields[2])))?;
            if value.fract() != 0.0 || !value.is_finite() {
                return Err(bad(
                    file,
                    number,
                    &format!("weight {value} is not an integer"),
                ));
            }
            weight(file, number, value as i64, &mut negative)?
        } else {
            1
        };
        arcs.push((u, v, w));
        if symmetric && u != v {
            arcs.push((v, u, w));
        }
        entries += 1;
    }
    let Some((n, nnz)) = size else {
        return Err(Error::InvalidInput(format!(
            "{file}: no size line (an empty graph?)"
        )));
    };
    if entries != nnz {
        return Err(Error::InvalidInput(format!(
            "{file}: the size line declares {nnz} entries, the file has {entries}{}",
            if entries < nnz {
                " (it ends early)"
            } else {
                ""
            }
        )));
    }
    Ok(Loaded {
        graph: Graph::from_arcs(n, &arcs, weighted)?,
        first_id: 1,
        negative_weight: negative,
        symmetric,
    })
}

fn read_binary(file: &str, bytes: &[u8]) -> Result<Loaded> {
    let corrupt =
        |what: &str| Error::InvalidInput(format!("{file}: not a thicket .tgr graph ({what})"));
    if bytes.len() < 26 || &bytes[..8] != MAGIC {
        return Err(corrupt("no header"));
    }
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let (n, m) = (word(8) as usize, word(16) as usize);
    // Byte 24: bit 0 weighted, bit 1 symmetric (a file written before that bit reads as
    // not known to be symmetric).
    let flags = bytes[24];
    if flags > (WEIGHTED | SYMMETRIC) {
        return Err(corrupt("unknown flags"));
    }
    let (weighted, first_id) = (flags & WEIGHTED != 0, u32::from(bytes[25]));
    let expected = 26u128 + 8 * (n as u128 + 1) + 4 * m as u128 * if weighted { 2 } else { 1 };
    if bytes.len() as u128 != expected || n >= u32::MAX as usize {
        return Err(corrupt("its length does not match its header"));
    }
    let mut at = 26;
    let mut take_u64 = |count: usize| -> Vec<u64> {
        let values = bytes[at..at + 8 * count]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        at += 8 * count;
        values
    };
    let offsets = take_u64(n + 1);
    let u32s = |from: usize| -> Vec<u32> {
        bytes[from..from + 4 * m]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    };
    let targets = u32s(26 + 8 * (n + 1));
    let weights = weighted.then(|| u32s(26 + 8 * (n + 1) + 4 * m));
    if offsets[0] != 0
        || offsets[n] != m as u64
        || offsets.windows(2).any(|w| w[0] > w[1])
        || targets.iter().any(|&v| v as usize >= n)
    {
        return Err(corrupt("its offsets or vertex ids are out of range"));
    }
    Ok(Loaded {
        graph: Graph {
            offsets,
            targets,
            weights,
        },
        first_id,
        negative_weight: None,
        symmetric: flags & SYMMETRIC != 0,
    })
}

/// `.tgr` header flag: the file holds weights.
const WEIGHTED: u8 = 1;
/// `.tgr` header flag: every arc has its reverse, so that the graph serves as its own
/// reverse (no transpose built when it is read).
const SYMMETRIC: u8 = 2;

/// Writes `graph` to `path` in the format of its extension, vertices numbered from
/// `first_id` in `.tgr` (the text formats use their own numbering), with `symmetric` (the
/// caller's knowledge that every arc has its reverse) recorded in `.tgr`; replaces the file
/// only once it is complete.
pub fn write(path: &Path, graph: &Graph, first_id: u32, symmetric: bool) -> Result<()> {
    let format = Format::of(path)?;
    thicket_core::write_atomically_with(path, |out| {
        write_to(out, graph, format, first_id, symmetric)
    })
}

fn write_to(
    out: &mut dyn Write,
    g: &Graph,
    format: Format,
    first_id: u32,
    symmetric: bool,
) -> std::io::Result<()> {
    let arcs = g.arc_list();
    match format {
        Format::Dimacs => {
            writeln!(out, "c written by thicket")?;
            writeln!(out, "p sp {} {}", g.vertices(), arcs.len())?;
            for (u, v, w) in arcs {
                writeln!(out, "a {} {} {w}", u + 1, v + 1)?;
            }
        }
        Format::EdgeList => {
            for (u, v, _) in arcs {
                writeln!(out, "{u} {v}")?;
            }
        }
        Format::WeightedEdgeList => {
            for (u, v, w) in arcs {
                writeln!(out, "{u} {v} {w}")?;
            }
        }
        Format::MatrixMarket => {
            let field = if g.weights.is_some() {
                "integer"
            } else {
                "pattern"
            };
            writeln!(out, "%%MatrixMarket matrix coordinate {field} general")?;
            writeln!(out, "{} {} {}", g.vertices(), g.vertices(), arcs.len())?;
            for (u, v, w) in arcs {
                if g.weights.is_some() {
                    writeln!(out, "{} {} {w}", u + 1, v + 1)?;
                } else {
                    writeln!(out, "{} {}", u + 1, v + 1)?;
                }
            }
        }
        Format::Binary => {
            out.write_all(MAGIC)?;
            out.write_all(&(g.vertices() as u64).to_le_bytes())?;
            out.write_all(&g.arcs().to_le_bytes())?;
            let mut flags = 0;
            if g.weights.is_some() {
                flags |= WEIGHTED;
            }
            if symmetric {
                flags |= SYMMETRIC;
            }
            out.write_all(&[flags, first_id.min(1) as u8])?;
            for o in &g.offsets {
                out.write_all(&o.to_le_bytes())?;
            }
            for t in &g.targets {
                out.write_all(&t.to_le_bytes())?;
            }
            if let Some(weights) = &g.weights {
                for w in weights {
                    out.write_all(&w.to_le_bytes())?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str, format: Format) -> String {
        parse("g", text, format).unwrap_err().to_string()
    }

    #[test]
    fn dimacs_reads_one_based_arcs_and_names_bad_lines() {
        let text = "c x\np sp 3 3\na 1 2 7\na 2 3 1\na 2 3 4\n";
        let loaded = parse("g", text, Format::Dimacs).unwrap();
        assert_eq!(loaded.first_id, 1);
        assert_eq!(loaded.graph.neighbours(1), [2, 2]);
        assert_eq!(loaded.graph.stats().parallel_arcs, 1);
        assert!(err("p sp 3 2\na 1 2 7\n", Format::Dimacs).contains("ends early"));
        assert!(
            err("p sp 3 1\na 1 4 7\n", Format::Dimacs).contains("g:2: vertex 4 is outside 1..=3")
        );
        assert!(err("p sp 3 1\na 1 x 7\n", Format::Dimacs).contains("g:2: \"x\" is not an integer"));
        assert!(err("p sp 3 1\na 1 2\n", Format::Dimacs).contains("g:2: expected 'a"));
        assert!(err("a 1 2 3\n", Format::Dimacs).contains("g:1: an arc before"));
        assert!(err("", Format::Dimacs).contains("empty graph"));
        let negative = parse("g", "p sp 2 1\na 1 2 -3\n", Format::Dimacs).unwrap();
        assert_eq!(negative.negative_weight.as_deref(), Some("g:2 (weight -3)"));
    }

    #[test]
    fn edge_lists_and_matrix_market_read_and_write_back() {
        let el = parse("g", "0 1\n1 2\n# note\n2 0\n", Format::EdgeList).unwrap();
        assert_eq!(el.graph.vertices(), 3);
        assert!(err("0 1 5\n", Format::EdgeList).contains("g:1: expected '<tail> <head>'"));
        assert!(err("0 -1\n", Format::EdgeList).contains("outside"));
        let wel = parse("g", "0 1 5\n1 0 5\n", Format::WeightedEdgeList).unwrap();
        assert!(wel.graph.is_symmetric());
        let mtx = "%%MatrixMarket matrix coordinate integer symmetric\n% c\n3 3 2\n1 2 4\n3 3 1\n";
        let loaded = parse("g", mtx, Format::MatrixMarket).unwrap();
        assert_eq!(loaded.graph.arcs(), 3);
        assert!(loaded.graph.is_symmetric());
        assert!(err(
            "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n",
            Format::MatrixMarket
        )
        .contains("ends early"));
        let dir = tempfile::tempdir().unwrap();
        for name in ["g.gr", "g.wel", "g.mtx", "g.tgr"] {
            let path = dir.path().join(name);
            write(&path, &loaded.graph, 1, false).unwrap();
            assert_eq!(read(&path).unwrap().graph, loaded.graph, "{name}");
        }
    }

    #[test]
    fn a_corrupt_binary_graph_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.tgr");
        let g = Graph::from_arcs(3, &[(0, 1, 1), (1, 2, 1)], false).unwrap();
        write(&path, &g, 0, false).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        assert_eq!(read(&path).unwrap().graph, g);
        bytes.pop();
        std::fs::write(&path, &bytes).unwrap();
        assert!(read(&path)
            .unwrap_err()
            .to_string()
            .contains("not a thicket .tgr graph"));
        let last = bytes.len() - 1;
        bytes.push(0);
        bytes[last] = 9;
        std::fs::write(&path, &bytes).unwrap();
        assert!(read(&path)
            .unwrap_err()
            .to_string()
            .contains("out of range"));
    }

    #[test]
    fn a_binary_graph_keeps_whether_it_is_symmetric() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.tgr");
        let g = Graph::from_arcs(2, &[(0, 1, 3), (1, 0, 3)], true).unwrap();
        for symmetric in [false, true] {
            write(&path, &g, 0, symmetric).unwrap();
            let loaded = read(&path).unwrap();
            assert_eq!((loaded.graph, loaded.symmetric), (g.clone(), symmetric));
        }
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[24] = 4;
        std::fs::write(&path, &bytes).unwrap();
        assert!(read(&path)
            .unwrap_err()
            .to_string()
            .contains("unknown flags"));
    }
}
