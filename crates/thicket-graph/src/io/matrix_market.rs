//! Matrix Market coordinate files (`.mtx`): a `%%MatrixMarket matrix coordinate <field>
//! <symmetry>` banner, `%` comments, a `<rows> <cols> <entries>` line of a square matrix, then
//! one entry per line, 1-based; a `symmetric` file gives each off-diagonal entry both ways.

use thicket_core::{Error, Result};

use super::fields::{after, arcs_for, bad, build, count, push, real_weight, vertex, vertex_count};
use super::Loaded;

/// The fewest bytes an entry line takes: `1 1` and its newline.
const ENTRY_LINE_BYTES: usize = 4;

const BANNER: &str = "expected '%%MatrixMarket matrix coordinate <field> <symmetry>'";

/// The banner's field (whether entries carry values) and symmetry.
fn banner(file: &str, line: &str) -> Result<(bool, bool)> {
    let words: Vec<String> = line
        .split_ascii_whitespace()
        .take(6)
        .map(str::to_ascii_lowercase)
        .collect();
    let [mm, matrix, coordinate, field, symmetry] = &words[..] else {
        return Err(bad(file, 1, BANNER));
    };
    if mm != "%%matrixmarket" || matrix != "matrix" || coordinate != "coordinate" {
        return Err(bad(file, 1, BANNER));
    }
    let weighted = match field.as_str() {
        "pattern" => false,
        "integer" | "real" => true,
        other => {
            return Err(bad(
                file,
                1,
                &format!(
                    "field {} is not pattern, integer or real",
                    thicket_core::quoted(other)
                ),
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
                &format!(
                    "symmetry {} is not general or symmetric",
                    thicket_core::quoted(other)
                ),
            ))
        }
    };
    Ok((weighted, symmetric))
}

/// The size line: vertices and declared entries of a square matrix.
fn size(file: &str, line: usize, fields: &[&str]) -> Result<(usize, u64)> {
    let [rows, cols, entries] = fields[..] else {
        return Err(bad(
            file,
            line,
            "expected '<rows> <cols> <entries>' of a square matrix",
        ));
    };
    if rows != cols {
        return Err(bad(
            file,
            line,
            &format!(
                "{} rows and {} columns: a graph's matrix is square",
                thicket_core::quoted(rows),
                thicket_core::quoted(cols)
            ),
        ));
    }
    Ok((
        vertex_count(file, line, rows)?,
        count(file, line, entries, "entry count")?,
    ))
}

/// Parses the text of a `.mtx` file; `file` names it in errors.
pub(super) fn parse(file: &str, text: &str) -> Result<Loaded> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (_, first) = lines
        .next()
        .ok_or_else(|| Error::InvalidInput(format!("{file}: empty")))?;
    let (weighted, symmetric) = banner(file, first)?;
    // Vertices, declared entries and the size line's number, once read.
    let mut declared: Option<(usize, u64, usize)> = None;
    let mut arcs = Vec::new();
    let mut negative = None;
    let mut entries = 0u64;
    for (number, line) in lines {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('%') {
            continue;
        }
        let fields: Vec<&str> = trimmed.split_ascii_whitespace().take(4).collect();
        let Some((n, _, _)) = declared else {
            let (n, nnz) = size(file, number, &fields)?;
            let per_entry = if symmetric { 2 } else { 1 };
            arcs = arcs_for(
                nnz.saturating_mul(per_entry),
                after(text, line) * per_entry as usize,
                ENTRY_LINE_BYTES,
            );
            declared = Some((n, nnz, number));
            continue;
        };
        let (u, v, w) = match (&fields[..], weighted) {
            ([u, v], false) => (*u, *v, None),
            ([u, v, w], true) => (*u, *v, Some(*w)),
            _ => {
                return Err(bad(
                    file,
                    number,
                    if weighted {
                        "expected '<row> <col> <value>'"
                    } else {
                        "expected '<row> <col>'"
                    },
                ))
            }
        };
        let u = vertex(file, number, u, 1, Some(n))?;
        let v = vertex(file, number, v, 1, Some(n))?;
        let w = match w {
            Some(w) => real_weight(file, number, w, &mut negative)?,
            None => 1,
        };
        push(&mut arcs, (u, v, w), file, number)?;
        if symmetric && u != v {
            push(&mut arcs, (v, u, w), file, number)?;
        }
        entries += 1;
    }
    let Some((n, nnz, line)) = declared else {
        return Err(Error::InvalidInput(format!(
            "{file}: no size line (an empty graph?)"
        )));
    };
    if entries != nnz {
        return Err(bad(
            file,
            line,
            &format!(
                "the size line declares {nnz} entries, the file has {entries}{}",
                if entries < nnz {
                    " (it ends early)"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(Loaded {
        graph: build(&format!("{file}:{line}"), n, &arcs, weighted)?,
        first_id: 1,
        negative_weight: negative,
        symmetric,
        ids: None,
    })
}
