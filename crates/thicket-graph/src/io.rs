//! Graph files: DIMACS shortest-path `.gr` (1-based), edge lists `.el` and weighted `.wel`
//! (0-based, as GAPBS reads them), Matrix Market `.mtx` (coordinate, 1-based; `symmetric`
//! files give arcs both ways) and thicket's binary CSR `.tgr`, which loads without parsing.
//! The format follows the file's extension. A malformed line is an error naming the file, the
//! line and what was expected; declared counts are bounded by what the rest of the file could
//! hold before anything is reserved, and a graph that would not fit this machine is refused
//! before it is built.

use std::io::Write;
use std::path::Path;

use thicket_core::{Error, Result};

use crate::graph::Graph;

mod binary;
mod dimacs;
mod edge_list;
mod fields;
mod matrix_market;

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

/// Reads a graph file in the format of its extension.
pub fn read(path: &Path) -> Result<Loaded> {
    read_as(path, Format::of(path)?)
}

/// Reads the graph file `path` (`-`: standard input) in `format`, as
/// [`thicket_core::read_bytes`] reads every input: a missing or unreadable file is bad input
/// naming it, and no more than the machine's memory is read.
pub fn read_as(path: &Path, format: Format) -> Result<Loaded> {
    let bytes = thicket_core::read_bytes(path)?;
    parse_bytes(&thicket_core::input_name(path), &bytes, format)
}

/// Parses the bytes of a graph file in `format`; `file` names it in errors. Bytes that are
/// not UTF-8 in a text format become U+FFFD, so that the error names their line.
pub fn parse_bytes(file: &str, bytes: &[u8], format: Format) -> Result<Loaded> {
    match format {
        Format::Binary => binary::read(file, bytes),
        _ => parse(file, &String::from_utf8_lossy(bytes), format),
    }
}

/// Parses a text graph in `format`; `file` names it in errors.
pub fn parse(file: &str, text: &str, format: Format) -> Result<Loaded> {
    match format {
        Format::Dimacs => dimacs::parse(file, text),
        Format::EdgeList => edge_list::parse(file, text, false),
        Format::WeightedEdgeList => edge_list::parse(file, text, true),
        Format::MatrixMarket => matrix_market::parse(file, text),
        Format::Binary => Err(Error::InvalidInput(format!(
            "{file}: a .tgr file is binary"
        ))),
    }
}

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
        Format::Binary => binary::write(out, g, first_id, symmetric)?,
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
