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

    /// What its files hold, in a few words (a command line's help names each format so).
    pub fn about(self) -> &'static str {
        match self {
            Format::Dimacs => "DIMACS 9th challenge, 1-based",
            Format::EdgeList => "`u v` per line, 0-based",
            Format::WeightedEdgeList => "`u v w` per line, 0-based",
            Format::Snap => "SNAP edge list: `from to` (or `from to weight`) per line, any ids",
            Format::MatrixMarket => "Matrix Market coordinate, 1-based",
            Format::Serialized => "GAPBS's serialized graph",
            Format::WeightedSerialized => "GAPBS's serialized weighted graph",
            Format::Binary => "thicket's binary CSR",
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
mod tests;
