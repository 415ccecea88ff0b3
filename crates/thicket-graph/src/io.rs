//! Graph files: DIMACS shortest-path `.gr` (1-based), edge lists `.el` and weighted `.wel`
//! (0-based, as GAPBS reads them), SNAP edge lists `.txt` (any ids, renumbered where sparse or
//! named), Matrix Market `.mtx` (coordinate, 1-based; `symmetric` files give arcs both ways),
//! GAPBS's serialized `.sg`/`.wsg` and thicket's binary CSR `.tgr`, which loads without
//! parsing; any of them gzip-compressed (`.gz`). The format follows the file's extension
//! unless the caller names it. A malformed line is an error naming the file, the line and
//! what was expected; declared counts are bounded by what the rest of the file could hold
//! before anything is reserved, and a graph that would not fit this machine is refused before
//! it is built. A text format's lines are at most [`thicket_core::MAX_LINE_BYTES`] long,
//! checked as the bytes arrive (and as a gzip stream inflates), and a leading UTF-8 byte
//! order mark is no part of its first line.

use std::io::Write;
use std::path::Path;

use thicket_core::{Error, Result};

use crate::graph::Graph;

mod answers;
mod binary;
mod compressed;
mod dimacs;
mod edge_list;
mod fast_lines;
mod fields;
mod file_names;
mod ids;
mod matrix_market;
mod serialized;
mod snap;
mod text_out;

pub use answers::write_paths;
pub use file_names::{file_name_id, NameTemplate, NAME_ID_BYTES, SOURCE_PLACEHOLDER};
pub use ids::{shown_id, VertexIds};
use text_out::{push_number, write_arcs};

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
    /// The file's own ids, where thicket renumbered them (a SNAP file's sparse numbers or
    /// names); `None`: vertex `v` is `v + first_id`.
    pub ids: Option<VertexIds>,
}

impl Loaded {
    /// A graph that numbers its vertices from `first_id`, with no ids of its own.
    pub fn numbered(graph: Graph, first_id: u32, symmetric: bool) -> Loaded {
        Loaded {
            graph,
            first_id,
            negative_weight: None,
            symmetric,
            ids: None,
        }
    }

    /// The file's id of vertex `v` (0-based) as a message shows it ([`shown_id`]: a name's
    /// bytes that are not UTF-8 escaped); [`Loaded::push_label`] gives its bytes.
    pub fn label(&self, v: u32) -> String {
        match &self.ids {
            Some(ids) => shown_id(&ids.label(v), None),
            None => (u64::from(v) + u64::from(self.first_id)).to_string(),
        }
    }

    /// The vertex the file calls `id` (its bytes: a name matches only the same bytes), or an
    /// [`Error::InvalidInput`] naming it.
    pub fn vertex(&self, id: &[u8]) -> Result<u32> {
        let n = self.graph.vertices() as i128;
        let found = match &self.ids {
            Some(ids) => ids.find(id),
            None => std::str::from_utf8(id)
                .ok()
                .and_then(|id| id.parse::<i128>().ok())
                .map(|x| x - i128::from(self.first_id))
                .filter(|&x| (0..n).contains(&x))
                .map(|x| x as u32),
        };
        let shown = shown_id(id, Some(thicket_core::text::TOKEN_CHARS));
        found.ok_or_else(|| {
            Error::InvalidInput(match &self.ids {
                Some(_) => format!("vertex \"{shown}\" is not in the graph"),
                None => format!(
                    "vertex {shown} is not a vertex ({}..={})",
                    self.first_id,
                    n - 1 + i128::from(self.first_id)
                ),
            })
        })
    }
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
    /// SNAP `.txt`: `from to` (or `from to weight`) per line, any ids.
    Snap,
    /// Matrix Market coordinate.
    MatrixMarket,
    /// GAPBS's serialized `.sg`.
    Serialized,
    /// GAPBS's serialized weighted `.wsg`.
    WeightedSerialized,
    /// thicket's binary CSR.
    Binary,
}

impl Format {
    /// Every format, as [`Format::extension`] names it.
    pub const ALL: [Format; 8] = [
        Format::Dimacs,
        Format::EdgeList,
        Format::WeightedEdgeList,
        Format::Snap,
        Format::MatrixMarket,
        Format::Serialized,
        Format::WeightedSerialized,
        Format::Binary,
    ];

    /// The extension of its files (without the dot).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Dimacs => "gr",
            Format::EdgeList => "el",
            Format::WeightedEdgeList => "wel",
            Format::Snap => "txt",
            Format::MatrixMarket => "mtx",
            Format::Serialized => "sg",
            Format::WeightedSerialized => "wsg",
            Format::Binary => "tgr",
        }
    }

    /// The format a file's extension names, under a `.gz` where the file is compressed.
    pub fn of(path: &Path) -> Result<Format> {
        let inner = match compressed::named_compressed(path) {
            true => Path::new(path.file_stem().unwrap_or_default()),
            false => path,
        };
        let ext = inner.extension().and_then(|e| e.to_str()).unwrap_or("");
        Format::ALL
            .into_iter()
            .find(|f| f.extension() == ext)
            .ok_or_else(|| {
                Error::InvalidInput(format!(
                    "{}: unknown graph format (.gr, .el, .wel, .txt, .mtx, .sg, .wsg or .tgr, \
                     each optionally .gz)",
                    path.display()
                ))
            })
    }

    /// Whether the format is binary (no lines).
    fn is_binary(self) -> bool {
        matches!(
            self,
            Format::Binary | Format::Serialized | Format::WeightedSerialized
        )
    }
}

/// Reads a graph file in the format of its extension.
pub fn read(path: &Path) -> Result<Loaded> {
    read_as(path, Format::of(path)?)
}

/// Reads the graph file `path` (`-`: standard input) in `format`, as
/// [`thicket_core::read_bytes`] reads every input: a missing or unreadable file is bad input
/// naming it, and a read stops at the bounds it states (the memory available; for a text
/// format, a line past [`thicket_core::MAX_LINE_BYTES`], refused as it arrives). A binary
/// file is mapped into memory rather than read (only the pages decoded are touched); a gzip
/// stream is inflated first, whatever the format.
pub fn read_as(path: &Path, format: Format) -> Result<Loaded> {
    let name = thicket_core::input_name(path);
    if format.is_binary() {
        if let Some(mapped) = map(path) {
            return parse_bytes(&name, &mapped, format);
        }
        return parse_bytes(&name, &thicket_core::read_bytes(path)?, format);
    }
    // A gzip stream has no lines: its text is checked as it inflates.
    let mut lines = thicket_core::LineCheck::new();
    let bytes = thicket_core::read_bytes_with(path, |bytes| match compressed::is_gzip(bytes) {
        true => Ok(()),
        false => lines.check(&name, bytes),
    })?;
    parse_bytes(&name, &bytes, format)
}

/// The file at `path` mapped into memory, or `None` where it cannot be (then it is read, and
/// any error named as for every input).
fn map(path: &Path) -> Option<memmap2::Mmap> {
    if thicket_core::is_stdio(path) {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    // SAFETY: the map lives only while the graph is decoded from it: every value is copied
    // out and validated, none referenced after. A file another process rewrites meanwhile
    // gives a refused or different graph; one it truncates ends this process with SIGBUS,
    // as it would any reader of a mapped file.
    unsafe { memmap2::Mmap::map(&file) }.ok()
}

/// Parses the bytes of a graph file in `format`; `file` names it in errors. A gzip stream is
/// inflated first. A text format's lines are checked against
/// [`thicket_core::MAX_LINE_BYTES`] and a leading UTF-8 byte order mark dropped; a SNAP
/// file's ids are kept as bytes, and in the other text formats bytes that are not UTF-8 become
/// U+FFFD, so that the error names their line.
pub fn parse_bytes(file: &str, bytes: &[u8], format: Format) -> Result<Loaded> {
    if compressed::is_gzip(bytes) {
        let inflated = compressed::inflate(file, bytes, !format.is_binary())?;
        if compressed::is_gzip(&inflated) {
            return Err(Error::InvalidInput(format!(
                "{file}: compressed twice (a .gz inside a .gz)"
            )));
        }
        return parse_bytes(file, &inflated, format);
    }
    match format {
        Format::Binary => return binary::read(file, bytes),
        Format::Serialized => return serialized::read(file, bytes, false),
        Format::WeightedSerialized => return serialized::read(file, bytes, true),
        _ => {}
    }
    // Cheap where the reader checked it already: a few bytes per 64 MiB of text.
    thicket_core::LineCheck::new().check(file, bytes)?;
    let text = thicket_core::without_bom(bytes);
    match format {
        Format::EdgeList => edge_list::parse_bytes(file, text, false),
        Format::WeightedEdgeList => edge_list::parse_bytes(file, text, true),
        Format::Snap => snap::parse(file, text),
        _ => parse(file, &String::from_utf8_lossy(text), format),
    }
}

/// Parses a text graph in `format`, without a leading byte order mark; `file` names it in
/// errors.
pub fn parse(file: &str, text: &str, format: Format) -> Result<Loaded> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match format {
        Format::Dimacs => dimacs::parse(file, text),
        Format::EdgeList => edge_list::parse(file, text, false),
        Format::WeightedEdgeList => edge_list::parse(file, text, true),
        Format::Snap => snap::parse(file, text.as_bytes()),
        Format::MatrixMarket => matrix_market::parse(file, text),
        Format::Binary | Format::Serialized | Format::WeightedSerialized => Err(
            Error::InvalidInput(format!("{file}: a .{} file is binary", format.extension())),
        ),
    }
}

/// Writes `graph` to `path` in the format of its extension, vertices numbered from
/// `first_id` in `.tgr` (the text formats use their own numbering), with `symmetric` (the
/// caller's knowledge that every arc has its reverse) recorded in `.tgr`, `.sg` and `.wsg`;
/// replaces the file only once it is complete.
pub fn write(path: &Path, graph: &Graph, first_id: u32, symmetric: bool) -> Result<()> {
    let format = Format::of(path)?;
    write_graph(path, format, graph, first_id, symmetric, None)
}

/// Writes `loaded` to `path` in `format` (gzip-compressed where the name ends in `.gz`): a
/// SNAP `.txt` names vertices by the file's own ids, the other formats number them their own
/// way. Replaces the file only once it is complete.
pub fn write_as(path: &Path, format: Format, loaded: &Loaded) -> Result<()> {
    write_graph(
        path,
        format,
        &loaded.graph,
        loaded.first_id,
        loaded.symmetric,
        loaded.ids.as_ref(),
    )
}

fn write_graph(
    path: &Path,
    format: Format,
    graph: &Graph,
    first_id: u32,
    symmetric: bool,
    ids: Option<&VertexIds>,
) -> Result<()> {
    let weighted = format == Format::WeightedSerialized;
    if matches!(format, Format::Serialized | Format::WeightedSerialized) {
        if let Some(why) = serialized::unwritable(graph, weighted) {
            return Err(Error::InvalidInput(format!("{}: {why}", path.display())));
        }
    }
    let gzipped = compressed::named_compressed(path);
    if format == Format::Binary && !gzipped {
        return binary::write_file(path, graph, first_id, symmetric);
    }
    let target = Written {
        graph,
        format,
        first_id,
        symmetric,
        ids,
    };
    thicket_core::write_atomically_with(path, |out| match gzipped {
        true => compressed::deflating(out, |out| target.to(out)),
        false => target.to(out),
    })
}

/// A graph on its way to a file.
struct Written<'a> {
    graph: &'a Graph,
    format: Format,
    first_id: u32,
    symmetric: bool,
    ids: Option<&'a VertexIds>,
}

impl Written<'_> {
    fn to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let g = self.graph;
        let weighted = g.weights.is_some();
        let number = |b: &mut Vec<u8>, x: u32, base: u64| push_number(b, u64::from(x) + base);
        match self.format {
            Format::Dimacs => {
                writeln!(out, "c written by thicket")?;
                writeln!(out, "p sp {} {}", g.vertices(), g.arcs())?;
                write_arcs(out, g, |b, u, v, w| {
                    b.extend_from_slice(b"a ");
                    number(b, u, 1);
                    b.push(b' ');
                    number(b, v, 1);
                    b.push(b' ');
                    number(b, w, 0);
                    b.push(b'\n');
                })?;
            }
            Format::EdgeList | Format::WeightedEdgeList => {
                let with_weight = self.format == Format::WeightedEdgeList;
                write_arcs(out, g, |b, u, v, w| {
                    number(b, u, 0);
                    b.push(b' ');
                    number(b, v, 0);
                    if with_weight {
                        b.push(b' ');
                        number(b, w, 0);
                    }
                    b.push(b'\n');
                })?;
            }
            Format::Snap => {
                writeln!(out, "# written by thicket")?;
                writeln!(out, "# Nodes: {} Edges: {}", g.vertices(), g.arcs())?;
                let first = u64::from(self.first_id);
                let label = |b: &mut Vec<u8>, v: u32| match self.ids {
                    Some(VertexIds::Numbers(ids)) => push_number(b, ids[v as usize]),
                    Some(VertexIds::Names(names)) => b.extend_from_slice(&names[v as usize]),
                    None => number(b, v, first),
                };
                write_arcs(out, g, |b, u, v, w| {
                    label(b, u);
                    b.push(b'\t');
                    label(b, v);
                    if weighted {
                        b.push(b'\t');
                        number(b, w, 0);
                    }
                    b.push(b'\n');
                })?;
            }
            Format::MatrixMarket => {
                let field = if weighted { "integer" } else { "pattern" };
                writeln!(out, "%%MatrixMarket matrix coordinate {field} general")?;
                writeln!(out, "{} {} {}", g.vertices(), g.vertices(), g.arcs())?;
                write_arcs(out, g, |b, u, v, w| {
                    number(b, u, 1);
                    b.push(b' ');
                    number(b, v, 1);
                    if weighted {
                        b.push(b' ');
                        number(b, w, 0);
                    }
                    b.push(b'\n');
                })?;
            }
            Format::Serialized => serialized::write(out, g, false, self.symmetric)?,
            Format::WeightedSerialized => serialized::write(out, g, true, self.symmetric)?,
            Format::Binary => binary::write(out, g, self.first_id, self.symmetric)?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

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
        let names = [
            "g.gr", "g.wel", "g.mtx", "g.tgr", "g.wsg", "g.txt", "g.wel.gz", "g.tgr.gz", "g.txt.gz",
        ];
        for name in names {
            let path = dir.path().join(name);
            write(&path, &loaded.graph, 1, false).unwrap();
            assert_eq!(read(&path).unwrap().graph, loaded.graph, "{name}");
        }
        // A format named by the caller wins over the extension; a .gz is found by its bytes.
        let path = dir.path().join("g.data");
        write_as(&path, Format::Dimacs, &loaded).unwrap();
        assert_eq!(read_as(&path, Format::Dimacs).unwrap().graph, loaded.graph);
        assert!(read(&path)
            .unwrap_err()
            .to_string()
            .contains("unknown graph format"));
    }

    #[test]
    fn gapbs_serialized_graphs_read_as_gapbs_built_them() {
        let data = |name: &str| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("data")
                .join(name)
        };
        // GAPBS builds a graph as thicket searches it: duplicates and self-loops merged.
        let built = read(&data("gapbs-4.gr")).unwrap().graph.simplified();
        let directed = read(&data("gapbs-4.sg")).unwrap();
        assert!(!directed.symmetric);
        assert_eq!(directed.graph.offsets(), built.offsets());
        assert_eq!(directed.graph.targets(), built.targets());
        let weighted = read(&data("gapbs-4.wsg")).unwrap();
        assert_eq!(weighted.graph.targets(), built.targets());
        assert!(weighted.graph.weights().is_some());
        // A directed file whose in-arcs are its out-arcs is read as symmetric.
        let dir = tempfile::tempdir().unwrap();
        let both_ways = dir.path().join("both.wsg");
        let symmetric = Graph::from_arcs(3, &[(0, 1, 4), (1, 0, 4), (2, 2, 1)], true).unwrap();
        write(&both_ways, &symmetric, 0, false).unwrap();
        assert_eq!(
            std::fs::read(&both_ways).unwrap()[0],
            1,
            "written as directed"
        );
        let read_back = read(&both_ways).unwrap();
        assert!(read_back.symmetric);
        assert_eq!(read_back.graph, symmetric);
        let undirected = read(&data("gapbs-4-sym.sg")).unwrap();
        assert!(undirected.symmetric && undirected.graph.is_symmetric());
        let both_ways = built.symmetrised().simplified();
        assert_eq!(undirected.graph.offsets(), both_ways.offsets());
        assert_eq!(undirected.graph.targets(), both_ways.targets());
        // Written back, the bytes are GAPBS's own.
        for (name, loaded) in [
            ("gapbs-4.sg", &directed),
            ("gapbs-4.wsg", &weighted),
            ("gapbs-4-sym.sg", &undirected),
        ] {
            let path = dir.path().join(name);
            write_as(&path, Format::of(&path).unwrap(), loaded).unwrap();
            assert_eq!(
                std::fs::read(&path).unwrap(),
                std::fs::read(data(name)).unwrap(),
                "{name}"
            );
        }
    }

    #[test]
    fn snap_files_keep_their_ids_through_a_conversion() {
        let text = "# Directed graph\n# FromNodeId\tToNodeId\n10\t20\n20\t7\n";
        let loaded = parse("s.txt", text, Format::Snap).unwrap();
        assert_eq!(loaded.label(0), "7");
        assert_eq!(loaded.vertex(b"20").unwrap(), 2);
        assert!(loaded
            .vertex(b"8")
            .unwrap_err()
            .to_string()
            .contains("\"8\" is not in the graph"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.txt.gz");
        write_as(&path, Format::Snap, &loaded).unwrap();
        assert_eq!(read(&path).unwrap(), loaded);
    }

    #[test]
    fn names_are_bytes_from_the_file_to_the_answers_and_back() {
        // Latin-1 names, one file's bytes: two vertices, shown escaped, written back as read.
        let text = b"# Latin-1\ncaf\xe9\tcaf\xe8\ncaf\xe8\tna\xefve\n";
        let loaded = parse_bytes("l.txt", text, Format::Snap).unwrap();
        assert_eq!(loaded.graph.vertices(), 3);
        assert_eq!(loaded.label(0), "caf\\xe9");
        assert_eq!(loaded.vertex(b"caf\xe8").unwrap(), 1);
        let e = loaded.vertex(b"caf\xea").unwrap_err().to_string();
        assert!(e.contains("vertex \"caf\\xea\" is not in the graph"), "{e}");
        let mut id = Vec::new();
        loaded.push_label(&mut id, 2);
        assert_eq!(id, b"na\xefve");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.txt");
        write_as(&path, Format::Snap, &loaded).unwrap();
        let written = std::fs::read(&path).unwrap();
        assert!(written.ends_with(b"caf\xe9\tcaf\xe8\ncaf\xe8\tna\xefve\n"));
        assert_eq!(read(&path).unwrap(), loaded);
    }

    #[test]
    fn a_byte_order_mark_is_no_part_of_the_first_id() {
        for (name, format) in [
            ("b.txt", Format::Snap),
            ("b.el", Format::EdgeList),
            ("b.mtx", Format::MatrixMarket),
        ] {
            let text: &[u8] = match format {
                Format::MatrixMarket => {
                    b"\xEF\xBB\xBF%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n"
                }
                _ => b"\xEF\xBB\xBF0 1\n1 0\n",
            };
            let loaded = parse_bytes(name, text, format).unwrap();
            assert_eq!((loaded.graph.vertices(), &loaded.ids), (2, &None), "{name}");
        }
        let text = "\u{feff}p sp 2 1\na 1 2 3\n";
        assert_eq!(
            parse("b.gr", text, Format::Dimacs)
                .unwrap()
                .graph
                .vertices(),
            2
        );
        let snap = parse_bytes("b.txt", b"\xEF\xBB\xBF0 1\n", Format::Snap).unwrap();
        assert_eq!(snap.vertex(b"0").unwrap(), 0);
    }

    #[test]
    fn a_text_graph_of_an_endless_line_is_refused_naming_it() {
        let mut text = b"0 1\n".to_vec();
        text.resize(text.len() + thicket_core::MAX_LINE_BYTES + 1, b'7');
        let e = parse_bytes("long.el", &text, Format::EdgeList).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string()
                .contains("long.el:2: line 2 is longer than 64 MiB"),
            "{e}"
        );
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
