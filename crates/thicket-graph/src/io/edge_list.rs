//! Edge lists as GAPBS reads them: `<tail> <head>` (`.el`) or `<tail> <head> <weight>`
//! (`.wel`) per line, vertices 0-based, `#` and `%` lines comments; the vertex count is the
//! largest id plus one.

use thicket_core::{Error, Result};

use super::fast_lines;
use super::fields::{bad, build, integer_weight, push, vertex};
use super::Loaded;

/// Parses the bytes of an edge list, `weighted` or not, on every core where its lines are
/// plain (the common case), else as [`parse`] does; `file` names it in errors.
pub(super) fn parse_bytes(file: &str, bytes: &[u8], weighted: bool) -> Result<Loaded> {
    let Some(plain) = fast_lines::parse(bytes, if weighted { 3 } else { 2 }) else {
        return parse(file, &String::from_utf8_lossy(bytes), weighted);
    };
    let line = 1 + bytes[..plain.widest_at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    Ok(Loaded {
        graph: build(
            &format!("{file}:{line}"),
            plain.vertices,
            &plain.arcs,
            weighted,
        )?,
        first_id: 0,
        negative_weight: None,
        symmetric: false,
        ids: None,
    })
}

/// Parses the text of an edge list, `weighted` or not; `file` names it in errors.
pub(super) fn parse(file: &str, text: &str, weighted: bool) -> Result<Loaded> {
    let mut arcs = Vec::new();
    let mut negative = None;
    // The vertex count and the line of the id that set it.
    let (mut vertices, mut widest) = (0usize, 0usize);
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('%') {
            continue;
        }
        let mut fields = trimmed.split_ascii_whitespace();
        let (u, v, w) = match (fields.next(), fields.next(), fields.next(), fields.next()) {
            (Some(u), Some(v), None, None) if !weighted => (u, v, None),
            (Some(u), Some(v), Some(w), None) if weighted => (u, v, Some(w)),
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
        let w = match w {
            Some(w) => integer_weight(file, number, w, &mut negative)?,
            None => 1,
        };
        let needs = u.max(v) as usize + 1;
        if needs > vertices {
            (vertices, widest) = (needs, number);
        }
        push(&mut arcs, (u, v, w), file, number)?;
    }
    if arcs.is_empty() {
        return Err(Error::InvalidInput(format!(
            "{file}: no arcs (an empty graph)"
        )));
    }
    Ok(Loaded {
        graph: build(&format!("{file}:{widest}"), vertices, &arcs, weighted)?,
        first_id: 0,
        negative_weight: negative,
        symmetric: false,
        ids: None,
    })
}
