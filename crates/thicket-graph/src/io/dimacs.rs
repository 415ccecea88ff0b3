//! DIMACS 9th challenge shortest-path graphs (`.gr`): `c` comments, one `p sp <vertices>
//! <arcs>` line, then `a <tail> <head> <weight>` lines, vertices 1-based.

use thicket_core::{Error, Result};

use super::fields::{
    after, arcs_for, bad, build, count, integer_weight, push, vertex, vertex_count,
};
use super::Loaded;

/// The fewest bytes an arc line takes: `a 1 1 0` and its newline.
const ARC_LINE_BYTES: usize = 8;

/// The header: vertices, declared arcs and the line that declared them.
struct Header {
    vertices: usize,
    arcs: u64,
    line: usize,
}

fn header<'a>(
    file: &str,
    line: usize,
    mut fields: impl Iterator<Item = &'a str>,
) -> Result<Header> {
    let expected = || bad(file, line, "expected 'p sp <vertices> <arcs>'");
    if fields.next() != Some("sp") {
        return Err(expected());
    }
    let (Some(n), Some(m), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err(expected());
    };
    Ok(Header {
        vertices: vertex_count(file, line, n)?,
        arcs: count(file, line, m, "arc count")?,
        line,
    })
}

/// Parses the text of a `.gr` file; `file` names it in errors.
pub(super) fn parse(file: &str, text: &str) -> Result<Loaded> {
    let mut header_seen: Option<Header> = None;
    let mut arcs = Vec::new();
    let mut negative = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let mut fields = line.split_ascii_whitespace();
        match fields.next() {
            None | Some("c") => {}
            Some("p") => {
                if header_seen.is_some() {
                    return Err(bad(file, number, "a second 'p' line"));
                }
                let h = header(file, number, fields)?;
                arcs = arcs_for(h.arcs, after(text, line), ARC_LINE_BYTES);
                header_seen = Some(h);
            }
            Some("a") => {
                let Some(h) = &header_seen else {
                    return Err(bad(file, number, "an arc before the 'p sp' line"));
                };
                let (Some(u), Some(v), Some(w), None) =
                    (fields.next(), fields.next(), fields.next(), fields.next())
                else {
                    return Err(bad(file, number, "expected 'a <tail> <head> <weight>'"));
                };
                let arc = (
                    vertex(file, number, u, 1, Some(h.vertices))?,
                    vertex(file, number, v, 1, Some(h.vertices))?,
                    integer_weight(file, number, w, &mut negative)?,
                );
                push(&mut arcs, arc, file, number)?;
            }
            Some(other) => {
                return Err(bad(
                    file,
                    number,
                    &format!(
                        "expected a 'c', 'p' or 'a' line, not {}",
                        thicket_core::quoted(other)
                    ),
                ))
            }
        }
    }
    let Some(h) = header_seen else {
        return Err(Error::InvalidInput(format!(
            "{file}: no 'p sp <vertices> <arcs>' line (an empty graph?)"
        )));
    };
    if arcs.len() as u64 != h.arcs {
        return Err(bad(
            file,
            h.line,
            &format!(
                "the 'p' line declares {} arcs, the file has {}{}",
                h.arcs,
                arcs.len(),
                if (arcs.len() as u64) < h.arcs {
                    " (it ends early)"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(Loaded {
        graph: build(&format!("{file}:{}", h.line), h.vertices, &arcs, true)?,
        first_id: 1,
        negative_weight: negative,
        symmetric: false,
        ids: None,
    })
}
