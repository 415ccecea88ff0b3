//! What every text reader shares: tokens shown in messages cut short, vertex ids and weights
//! checked as written (an id past 32 bits or a weight past `u32::MAX` is refused naming the
//! line and the token), arc lists grown as lines are read, never as a header promises, and
//! the graph built only once its memory is known to fit.

use thicket_core::{check_fits, Error, Result};

use crate::graph::{build_bytes, Arc, Graph};

/// The largest 0-based vertex index: ids are 32-bit, `u32::MAX` means "no vertex" and the
/// vertex count must fit as well.
pub(super) const MAX_INDEX: u32 = u32::MAX - 2;

/// A malformed line's error: `FILE:LINE: what`.
pub(super) fn bad(file: &str, line: usize, what: &str) -> Error {
    Error::InvalidInput(format!("{file}:{line}: {what}"))
}

/// A whole number as written (an optional sign, then digits), saturated past the range of
/// `i128`; `None` where the token is not one.
fn whole(token: &str) -> Option<i128> {
    let digits = token.strip_prefix(['-', '+']).unwrap_or(token);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(token.parse::<i128>().unwrap_or(if token.starts_with('-') {
        i128::MIN
    } else {
        i128::MAX
    }))
}

/// `token` as a whole number, or an error naming it.
fn integer(file: &str, line: usize, token: &str) -> Result<i128> {
    whole(token).ok_or_else(|| {
        bad(
            file,
            line,
            &format!("{} is not an integer", thicket_core::quoted(token)),
        )
    })
}

/// A count of a header (vertices, arcs, entries): a whole number >= 0, saturated at
/// `u64::MAX` (the caller bounds it).
pub(super) fn count(file: &str, line: usize, token: &str, what: &str) -> Result<u64> {
    let value = integer(file, line, token)?;
    if value < 0 {
        return Err(bad(
            file,
            line,
            &format!("{what} {} is negative", thicket_core::token(token)),
        ));
    }
    Ok(u64::try_from(value).unwrap_or(u64::MAX))
}

/// A header's vertex count, 1 to what 32-bit ids hold.
pub(super) fn vertex_count(file: &str, line: usize, token: &str) -> Result<usize> {
    let n = count(file, line, token, "vertex count")?;
    if n == 0 {
        return Err(bad(file, line, "0 vertices (an empty graph)"));
    }
    if n > u64::from(MAX_INDEX) + 1 {
        return Err(bad(
            file,
            line,
            &format!(
                "{} vertices do not fit 32-bit ids (at most {})",
                thicket_core::token(token),
                u64::from(MAX_INDEX) + 1
            ),
        ));
    }
    Ok(n as usize)
}

/// Vertex `token` of a file whose ids start at `first`, 0-based: within the `vertices` a
/// header declared, or else any id that fits 32 bits.
pub(super) fn vertex(
    file: &str,
    line: usize,
    token: &str,
    first: u32,
    vertices: Option<usize>,
) -> Result<u32> {
    let id = integer(file, line, token)?;
    let first = i128::from(first);
    let max = match vertices {
        Some(n) => n as i128 - 1 + first,
        None => i128::from(MAX_INDEX) + first,
    };
    if id > max && vertices.is_none() {
        return Err(bad(
            file,
            line,
            &format!(
                "vertex {} does not fit 32-bit ids (at most {max})",
                thicket_core::token(token)
            ),
        ));
    }
    if id < first || id > max {
        return Err(bad(
            file,
            line,
            &format!(
                "vertex {} is outside {first}..={max}",
                thicket_core::token(token)
            ),
        ));
    }
    Ok((id - first) as u32)
}

/// Where a negative weight was first met: `FILE:LINE (weight W)`, W as written.
fn note_negative(file: &str, line: usize, token: &str, negative: &mut Option<String>) {
    negative
        .get_or_insert_with(|| format!("{file}:{line} (weight {})", thicket_core::token(token)));
}

/// An integer weight: 0 to `u32::MAX`; a negative one is kept as 0 and noted in `negative`
/// (shortest paths refuse it, BFS ignores weights).
pub(super) fn integer_weight(
    file: &str,
    line: usize,
    token: &str,
    negative: &mut Option<String>,
) -> Result<u32> {
    let w = integer(file, line, token)?;
    if w < 0 {
        note_negative(file, line, token, negative);
        return Ok(0);
    }
    u32::try_from(w).map_err(|_| past_max(file, line, token))
}

/// A weight written as any number (Matrix Market's `real` and `integer` fields): whole, finite
/// and at most `u32::MAX`; a negative one as in [`integer_weight`].
pub(super) fn real_weight(
    file: &str,
    line: usize,
    token: &str,
    negative: &mut Option<String>,
) -> Result<u32> {
    let value: f64 = token.parse().map_err(|_| {
        bad(
            file,
            line,
            &format!("{} is not a number", thicket_core::quoted(token)),
        )
    })?;
    if !value.is_finite() {
        return Err(bad(
            file,
            line,
            &format!(
                "weight {} is not a finite number",
                thicket_core::token(token)
            ),
        ));
    }
    if value < 0.0 {
        note_negative(file, line, token, negative);
        return Ok(0);
    }
    if value.fract() != 0.0 {
        return Err(bad(
            file,
            line,
            &format!(
                "weight {} is not a whole number",
                thicket_core::token(token)
            ),
        ));
    }
    if value > f64::from(u32::MAX) {
        return Err(past_max(file, line, token));
    }
    Ok(value as u32)
}

fn past_max(file: &str, line: usize, token: &str) -> Error {
    bad(
        file,
        line,
        &format!("weight {} is past {}", thicket_core::token(token), u32::MAX),
    )
}

/// Room for the arcs a header declares, no more than `remaining` bytes could encode at
/// `line_bytes` bytes an arc line (a header cannot reserve what its file cannot hold).
pub(super) fn arcs_for(declared: u64, remaining: usize, line_bytes: usize) -> Vec<Arc> {
    let room = (remaining / line_bytes + 1) as u64;
    Vec::with_capacity(declared.min(room) as usize)
}

/// Appends `arc`, growing the list fallibly: memory that cannot be had is an error naming
/// the line, never an abort.
pub(super) fn push<T>(arcs: &mut Vec<T>, arc: T, file: &str, line: usize) -> Result<()> {
    if arcs.len() == arcs.capacity() && arcs.try_reserve(arcs.len().max(16)).is_err() {
        return Err(Error::TooLarge(format!(
            "{file}:{line}: {} arcs do not fit in memory",
            arcs.len() + 1
        )));
    }
    arcs.push(arc);
    Ok(())
}

/// The graph of `vertices` vertices and `arcs`, refused before it is built where it would not
/// fit this machine; `at` (`FILE:LINE`) names what set its size.
pub(super) fn build(at: &str, vertices: usize, arcs: &[Arc], weighted: bool) -> Result<Graph> {
    let bytes = build_bytes(vertices as u64, arcs.len() as u64, weighted);
    check_fits(
        &format!(
            "{at}: a graph of {vertices} vertices and {} arcs",
            arcs.len()
        ),
        bytes,
    )?;
    Graph::from_arcs(vertices, arcs, weighted).map_err(|e| match e {
        Error::TooLarge(message) => Error::TooLarge(format!("{at}: {message}")),
        other => other,
    })
}

/// The bytes of `text` after `line` (a slice of it).
pub(super) fn after(text: &str, line: &str) -> usize {
    let start = line.as_ptr() as usize - text.as_ptr() as usize;
    text.len() - start - line.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_cut_and_numbers_checked_as_written() {
        let long = "7".repeat(100_000);
        let message = vertex("g", 3, &long, 0, None).unwrap_err().to_string();
        assert!(message.len() < 120, "{message}");
        assert!(message.contains("g:3: vertex 7777"), "{message}");
        assert_eq!(vertex("g", 1, "4294967293", 0, None).unwrap(), 4294967293);
        let past = vertex("g", 1, "4294967294", 0, None).unwrap_err();
        assert!(past
            .to_string()
            .contains("g:1: vertex 4294967294 does not fit 32-bit ids"));
        let mut negative = None;
        let huge = real_weight("g", 4, "1e300", &mut negative).unwrap_err();
        assert!(
            huge.to_string()
                .ends_with("g:4: weight 1e300 is past 4294967295"),
            "{huge}"
        );
        assert_eq!(real_weight("g", 5, "-1e300", &mut negative).unwrap(), 0);
        assert_eq!(negative.as_deref(), Some("g:5 (weight -1e300)"));
        let big = integer_weight(
            "g",
            6,
            "99999999999999999999999999999999999999999",
            &mut None,
        );
        assert!(big.unwrap_err().to_string().contains("is past 4294967295"));
        assert!(vertex_count("g", 1, "9223372036854775807").is_err());
        assert_eq!(arcs_for(u64::MAX, 80, 8).capacity(), 11);
    }
}
