//! SNAP edge lists (`.txt`), as the Stanford Network Analysis Project ships its graphs:
//! `<from> <to>` per line (or `<from> <to> <weight>`, the first arc line deciding for the
//! file), tab or space separated, `#` and `%` lines comments. Ids are any tokens, read as
//! bytes: whole numbers `0..n` are kept as vertices; sparse numbers are renumbered in
//! increasing order and names in order of first mention, the file's ids kept in [`VertexIds`]
//! for the answers. Two names are one vertex only where their bytes are equal, whatever the
//! file's encoding (two Latin-1 names are never merged by a decoding).

use std::collections::HashMap;

use rayon::prelude::*;
use thicket_core::{Error, Result};

use super::fields::{bad, build, integer_weight, push, MAX_INDEX};
use super::{Loaded, VertexIds};
use crate::graph::Arc;

/// One arc line's fields: tail, head and the weight where the file has them.
type Fields<'a> = (&'a [u8], &'a [u8], Option<&'a [u8]>);

/// The arc lines of `text` with their numbers; the first decides whether the file is
/// weighted, and a line of another width is an error naming it.
fn arc_lines<'a>(
    file: &'a str,
    text: &'a [u8],
) -> impl Iterator<Item = Result<(usize, Fields<'a>)>> + 'a {
    let mut weighted: Option<bool> = None;
    // An empty last piece after the last line end is skipped as every empty line is.
    text.split(|&b| b == b'\n')
        .enumerate()
        .filter_map(move |(index, line)| {
            let number = index + 1;
            let trimmed = line.trim_ascii();
            if trimmed.is_empty() || trimmed[0] == b'#' || trimmed[0] == b'%' {
                return None;
            }
            let mut fields = trimmed
                .split(u8::is_ascii_whitespace)
                .filter(|f| !f.is_empty());
            let parsed = match (fields.next(), fields.next(), fields.next(), fields.next()) {
                (Some(u), Some(v), w, None) => {
                    let is_weighted = *weighted.get_or_insert(w.is_some());
                    (is_weighted == w.is_some()).then_some((u, v, w))
                }
                _ => None,
            };
            Some(parsed.map(|f| (number, f)).ok_or_else(|| {
                bad(
                    file,
                    number,
                    match weighted {
                        Some(true) => "expected '<from> <to> <weight>' (as the first arc line)",
                        Some(false) => "expected '<from> <to>' (as the first arc line)",
                        None => "expected '<from> <to>' or '<from> <to> <weight>'",
                    },
                )
            }))
        })
}

/// A token as a whole number, if it is one.
fn number(token: &[u8]) -> Option<u64> {
    std::str::from_utf8(token).ok()?.parse().ok()
}

/// A weight token, checked as every reader checks weights (its bytes shown as text).
fn weight(file: &str, line: usize, token: &[u8], negative: &mut Option<String>) -> Result<u32> {
    integer_weight(file, line, &String::from_utf8_lossy(token), negative)
}

/// Parses the bytes of a SNAP edge list; `file` names it in errors.
pub(super) fn parse(file: &str, text: &[u8]) -> Result<Loaded> {
    match numbered(file, text)? {
        Some(loaded) => Ok(loaded),
        None => named(file, text),
    }
}

/// The graph of a file whose every id is a whole number, or `None` at the first id that is
/// not (the file is then read as names).
fn numbered(file: &str, text: &[u8]) -> Result<Option<Loaded>> {
    let mut arcs: Vec<(u64, u64, u32)> = Vec::new();
    let mut negative = None;
    let mut weighted = false;
    for line in arc_lines(file, text) {
        let (number, (u, v, w)) = line?;
        let (Some(u), Some(v)) = (self::number(u), self::number(v)) else {
            return Ok(None);
        };
        weighted = w.is_some();
        let w = match w {
            Some(w) => weight(file, number, w, &mut negative)?,
            None => 1,
        };
        push(&mut arcs, (u, v, w), file, number)?;
    }
    if arcs.is_empty() {
        return Err(Error::InvalidInput(format!(
            "{file}: no arcs (an empty graph)"
        )));
    }
    let mut ids: Vec<u64> = Vec::new();
    if ids.try_reserve_exact(2 * arcs.len()).is_err() {
        return Err(too_many(file, arcs.len()));
    }
    ids.par_extend(arcs.par_iter().flat_map_iter(|&(u, v, _)| [u, v]));
    ids.par_sort_unstable();
    ids.dedup();
    check_count(file, ids.len())?;
    let dense = ids.last() == Some(&(ids.len() as u64 - 1));
    let mut renumbered: Vec<Arc> = Vec::new();
    if renumbered.try_reserve_exact(arcs.len()).is_err() {
        return Err(too_many(file, arcs.len()));
    }
    let index = |id: u64| ids.binary_search(&id).expect("every id was listed") as u32;
    renumbered.par_extend(arcs.par_iter().map(|&(u, v, w)| match dense {
        true => (u as u32, v as u32, w),
        false => (index(u), index(v), w),
    }));
    drop(arcs);
    let graph = build(file, ids.len(), &renumbered, weighted)?;
    Ok(Some(Loaded {
        graph,
        first_id: 0,
        negative_weight: negative,
        symmetric: false,
        ids: (!dense).then_some(VertexIds::Numbers(ids)),
    }))
}

/// Names numbered in order of first mention, told apart by their bytes.
#[derive(Default)]
struct Names<'a> {
    index: HashMap<&'a [u8], u32>,
    names: Vec<Box<[u8]>>,
}

impl<'a> Names<'a> {
    /// The vertex named `name`, numbered now if it is new.
    fn vertex(&mut self, file: &str, line: usize, name: &'a [u8]) -> Result<u32> {
        if let Some(&v) = self.index.get(name) {
            return Ok(v);
        }
        check_count(file, self.names.len() + 1)?;
        let v = self.names.len() as u32;
        push(&mut self.names, name.into(), file, line)?;
        self.index.insert(name, v);
        Ok(v)
    }
}

/// The graph of a file with names among its ids, numbered in order of first mention.
fn named(file: &str, text: &[u8]) -> Result<Loaded> {
    let mut names = Names::default();
    let mut arcs: Vec<Arc> = Vec::new();
    let mut negative = None;
    let mut weighted = false;
    for line in arc_lines(file, text) {
        let (number, (u, v, w)) = line?;
        let u = names.vertex(file, number, u)?;
        let v = names.vertex(file, number, v)?;
        weighted = w.is_some();
        let w = match w {
            Some(w) => weight(file, number, w, &mut negative)?,
            None => 1,
        };
        push(&mut arcs, (u, v, w), file, number)?;
    }
    let graph = build(file, names.names.len(), &arcs, weighted)?;
    Ok(Loaded {
        graph,
        first_id: 0,
        negative_weight: negative,
        symmetric: false,
        ids: Some(VertexIds::Names(names.names)),
    })
}

/// Refuses more distinct ids than 32-bit vertex ids hold.
fn check_count(file: &str, count: usize) -> Result<()> {
    if count > MAX_INDEX as usize + 1 {
        return Err(Error::InvalidInput(format!(
            "{file}: more than {} distinct ids do not fit 32-bit vertex ids",
            MAX_INDEX as u64 + 1
        )));
    }
    Ok(())
}

fn too_many(file: &str, arcs: usize) -> Error {
    Error::TooLarge(format!("{file}: {arcs} arcs do not fit in memory"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_numbers_are_kept_and_sparse_ones_renumbered_in_order() {
        let dense = parse("g", b"# comment\n0\t1\n1 2\n2\t0\n").unwrap();
        assert_eq!((dense.graph.vertices(), dense.ids), (3, None));
        let sparse = parse("g", b"# FromNodeId\tToNodeId\n900\t17\n17\t3\n").unwrap();
        assert_eq!(sparse.graph.vertices(), 3);
        assert_eq!(sparse.ids, Some(VertexIds::Numbers(vec![3, 17, 900])));
        assert_eq!(sparse.graph.neighbours(2), [1]);
        assert_eq!(sparse.graph.neighbours(1), [0]);
    }

    #[test]
    fn names_are_numbered_in_order_of_first_mention() {
        let loaded = parse("g", b"alice bob 4\nbob carol 1\n7 alice 2\n").unwrap();
        let Some(VertexIds::Names(names)) = &loaded.ids else {
            panic!("{:?}", loaded.ids)
        };
        let names: Vec<&[u8]> = names.iter().map(|n| &n[..]).collect();
        assert_eq!(names, [&b"alice"[..], b"bob", b"carol", b"7"]);
        assert_eq!(loaded.graph.neighbours(3), [0]);
        assert_eq!(loaded.graph.weights(), Some(&[4, 1, 2][..]));
    }

    #[test]
    fn names_are_told_apart_by_their_bytes_whatever_their_encoding() {
        // Two Latin-1 names a lossy decoding would both make "caf\u{fffd}".
        let loaded = parse("g", b"caf\xe9 caf\xe8\ncaf\xe8 x\xff\xfe\n").unwrap();
        assert_eq!(loaded.graph.vertices(), 3);
        let Some(VertexIds::Names(names)) = &loaded.ids else {
            panic!("{:?}", loaded.ids)
        };
        assert_eq!(&*names[0], b"caf\xe9");
        assert_eq!(&*names[1], b"caf\xe8");
        let e = parse("g", b"a b \xff\n").unwrap_err().to_string();
        assert!(e.contains("g:1: \"\u{fffd}\" is not an integer"), "{e}");
    }

    #[test]
    fn lines_of_another_width_and_empty_files_are_refused_naming_the_line() {
        let e = parse("g", b"0 1 5\n1 2\n").unwrap_err().to_string();
        assert!(e.contains("g:2: expected '<from> <to> <weight>'"), "{e}");
        let e = parse("g", b"a b\nc d e f\n").unwrap_err().to_string();
        assert!(e.contains("g:2: expected '<from> <to>'"), "{e}");
        let e = parse("g", b"# nothing\n").unwrap_err().to_string();
        assert!(e.contains("no arcs"), "{e}");
        let e = parse("g", b"0 1 x\n").unwrap_err().to_string();
        assert!(e.contains("g:1: \"x\" is not an integer"), "{e}");
    }
}
