//! TSPLIB95 reader for explicit-matrix instances (`TYPE: ATSP` or `TSP`, `EDGE_WEIGHT_TYPE:
//! EXPLICIT`, every explicit `EDGE_WEIGHT_FORMAT`).
//!
//! The weight section is read as one stream of integers, because the published files wrap
//! long rows over several lines. Triangular formats describe symmetric matrices. Every error
//! is one line naming the line of the input where it was found.

use std::path::Path;

use thicket_core::{Error, Result};

use super::instance::{check_size, Instance, MAX_COST};

/// Parses TSPLIB text; errors read "TSPLIB:K: ...".
pub fn parse_tsplib(text: &str) -> Result<Instance> {
    parse_labelled(text, "TSPLIB")
}

/// Reads and parses a TSPLIB file (`-`: standard input) through [`thicket_core::read_text`];
/// errors read "FILE:K: ..." with the file's name.
pub fn read_tsplib(path: impl AsRef<Path>) -> Result<Instance> {
    let path = path.as_ref();
    let text = thicket_core::read_text(path)?;
    parse_labelled(&text, &thicket_core::input_name(path))
}

/// How the weight section lists the matrix entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Full,
    /// Row-wise triangle: `upper` keeps `j > i` (or `j >= i` with `diag`), else `j < i`.
    RowTriangle {
        upper: bool,
        diag: bool,
    },
}

impl Format {
    fn parse(value: &str) -> Option<Format> {
        // A column-wise upper triangle lists the same entries in the same order as the
        // row-wise lower one of the transposed (equal, symmetric) matrix, and vice versa.
        let (upper, diag) = match value {
            "FULL_MATRIX" => return Some(Format::Full),
            "UPPER_ROW" | "LOWER_COL" => (true, false),
            "LOWER_ROW" | "UPPER_COL" => (false, false),
            "UPPER_DIAG_ROW" | "LOWER_DIAG_COL" => (true, true),
            "LOWER_DIAG_ROW" | "UPPER_DIAG_COL" => (false, true),
            _ => return None,
        };
        Some(Format::RowTriangle { upper, diag })
    }

    /// The matrix cells in the order the section lists them.
    fn cells(self, n: usize) -> Vec<(usize, usize)> {
        match self {
            Format::Full => (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).collect(),
            Format::RowTriangle { upper, diag } => (0..n)
                .flat_map(|i| {
                    let cols = match (upper, diag) {
                        (true, false) => i + 1..n,
                        (true, true) => i..n,
                        (false, false) => 0..i,
                        (false, true) => 0..i + 1,
                    };
                    cols.map(move |j| (i, j))
                })
                .collect(),
        }
    }
}

/// The header fields seen so far.
#[derive(Default)]
struct Header {
    name: Option<String>,
    dimension: Option<usize>,
    format: Option<Format>,
    explicit: bool,
}

/// An error at 1-based line `line` (`FILE:LINE: what`).
fn at(label: &str, line: usize, msg: impl std::fmt::Display) -> Error {
    Error::InvalidInput(format!("{label}:{line}: {msg}"))
}

fn parse_labelled(text: &str, label: &str) -> Result<Instance> {
    let mut header = Header::default();
    let mut lines = text.lines().enumerate().map(|(k, l)| (k + 1, l));
    while let Some((line, raw)) = lines.next() {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            continue;
        }
        let (key, value) = match trimmed.split_once(':') {
            Some((k, v)) => (k.trim().to_ascii_uppercase(), v.trim()),
            None => {
                let mut words = trimmed.splitn(2, char::is_whitespace);
                let key = words.next().unwrap_or_default().to_ascii_uppercase();
                (key, words.next().unwrap_or_default().trim())
            }
        };
        match key.as_str() {
            "NAME" => header.name = Some(value.to_string()),
            "TYPE" => match value.to_ascii_uppercase().as_str() {
                "ATSP" | "TSP" => {}
                other => {
                    return Err(at(
                        label,
                        line,
                        format!("unsupported TYPE '{}'", thicket_core::token(other)),
                    ))
                }
            },
            "DIMENSION" => {
                let n: usize = value.parse().map_err(|_| {
                    at(
                        label,
                        line,
                        format!("DIMENSION '{}' is not a number", thicket_core::token(value)),
                    )
                })?;
                check_size(n).map_err(|e| match e {
                    Error::TooLarge(_) => e,
                    _ => at(
                        label,
                        line,
                        format!("DIMENSION {n} outside 2..={}", super::MAX_N),
                    ),
                })?;
                header.dimension = Some(n);
            }
            "EDGE_WEIGHT_TYPE" => match value.to_ascii_uppercase().as_str() {
                "EXPLICIT" => header.explicit = true,
                other => {
                    return Err(at(
                        label,
                        line,
                        format!(
                            "unsupported EDGE_WEIGHT_TYPE '{}'",
                            thicket_core::token(other)
                        ),
                    ))
                }
            },
            "EDGE_WEIGHT_FORMAT" => {
                let upper = value.to_ascii_uppercase();
                header.format = Some(Format::parse(&upper).ok_or_else(|| {
                    at(
                        label,
                        line,
                        format!(
                            "unsupported EDGE_WEIGHT_FORMAT '{}'",
                            thicket_core::token(value)
                        ),
                    )
                })?);
            }
            "EDGE_WEIGHT_SECTION" => {
                return read_weights(&header, label, line, value, &mut lines);
            }
            "EOF" => return Err(at(label, line, "EOF before EDGE_WEIGHT_SECTION")),
            _ if trimmed.contains(':') => {}
            _ => {
                return Err(at(
                    label,
                    line,
                    format!(
                        "expected 'KEY : VALUE', found '{}'",
                        thicket_core::token(trimmed)
                    ),
                ))
            }
        }
    }
    let last = text.lines().count().max(1);
    Err(at(label, last, "no EDGE_WEIGHT_SECTION"))
}

/// Reads the weight section that starts at line `start` (whose remainder is `rest`) and
/// checks that nothing but `EOF` or other keywords follow it.
fn read_weights<'a>(
    header: &Header,
    label: &str,
    start: usize,
    rest: &str,
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
) -> Result<Instance> {
    let n = header
        .dimension
        .ok_or_else(|| at(label, start, "missing DIMENSION"))?;
    if !header.explicit {
        return Err(at(label, start, "missing EDGE_WEIGHT_TYPE: EXPLICIT"));
    }
    let format = header
        .format
        .ok_or_else(|| at(label, start, "missing EDGE_WEIGHT_FORMAT"))?;
    let mut weights = Weights {
        label,
        n,
        symmetric: format != Format::Full,
        cells: format.cells(n),
        cost: vec![0i64; n * n],
        next: 0,
    };
    let mut last_line = start;
    weights.take(start, rest.trim_start_matches(':'))?;
    for (line, raw) in lines.by_ref() {
        last_line = line;
        let trimmed = raw.trim();
        let starts_number =
            trimmed.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+');
        // A keyword ends a complete section; EOF also ends an incomplete one, which is then
        // reported as too short rather than as a non-number.
        let keyword = !trimmed.is_empty() && !starts_number;
        if keyword && (weights.complete() || trimmed.eq_ignore_ascii_case("EOF")) {
            break;
        }
        weights.take(line, trimmed)?;
    }
    if !weights.complete() {
        return Err(at(
            label,
            last_line,
            format!(
                "too few numbers: {} of {} in EDGE_WEIGHT_SECTION",
                weights.next,
                weights.cells.len()
            ),
        ));
    }
    let name = header.name.clone().unwrap_or_else(|| label.to_string());
    Instance::new(name, n, weights.cost)
}

/// The weight section being filled in.
struct Weights<'a> {
    label: &'a str,
    n: usize,
    /// Whether each number also fills the mirrored cell (triangular formats).
    symmetric: bool,
    /// The cells in the order the section lists them.
    cells: Vec<(usize, usize)>,
    cost: Vec<i64>,
    /// How many numbers have been read.
    next: usize,
}

impl Weights<'_> {
    fn complete(&self) -> bool {
        self.next == self.cells.len()
    }

    /// Reads the numbers of one line (line number `line`).
    fn take(&mut self, line: usize, words: &str) -> Result<()> {
        let label = self.label;
        for word in words.split_whitespace() {
            if self.complete() {
                return Err(at(
                    label,
                    line,
                    format!(
                        "too many numbers: {} expected in EDGE_WEIGHT_SECTION",
                        self.cells.len()
                    ),
                ));
            }
            let value: i64 = word.parse().map_err(|_| {
                at(
                    label,
                    line,
                    format!("expected an integer, found '{}'", thicket_core::token(word)),
                )
            })?;
            let (i, j) = self.cells[self.next];
            if i != j && !(0..=MAX_COST).contains(&value) {
                return Err(at(
                    label,
                    line,
                    format!("cost {value} outside 0..={MAX_COST}"),
                ));
            }
            self.cost[i * self.n + j] = value;
            if self.symmetric {
                self.cost[j * self.n + i] = value;
            }
            self.next += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_formats_read_like_the_mirrored_row_formats() {
        assert_eq!(Format::parse("UPPER_COL"), Format::parse("LOWER_ROW"));
        assert_eq!(
            Format::parse("LOWER_DIAG_COL"),
            Format::parse("UPPER_DIAG_ROW")
        );
        assert_eq!(Format::parse("FUNCTION"), None);
    }
}
