//! DIMACS max-flow files (1st DIMACS Implementation Challenge): `c` comments, one
//! `p max <vertices> <arcs>` line, `n <id> s` and `n <id> t`, then `a <tail> <head> <capacity>`
//! lines, vertices numbered from 1. The reader takes runs of spaces, CRLF line ends and a DOS
//! end-of-file byte (0x1A); every malformed input is a one-line error naming the file and the
//! line. The writer prints the form thicket's generators and the shared data use (single
//! spaces, `\n`), and flows in the DIMACS solution form (`s <value>`, `f <tail> <head> <flow>`).

use std::fmt::Write as _;
use std::path::Path;

use thicket_core::{Error, Result};

use crate::network::{FlowArc, Network, MAX_TOTAL_CAPACITY};

/// Reads a `.max` file (`-`: standard input) through [`thicket_core::read_text`].
pub fn read(path: &Path) -> Result<Network> {
    let text = thicket_core::read_text(path)?;
    parse(&thicket_core::input_name(path), &text)
}

/// The shortest arc line, `a 1 1 0` and its line end: a file holds at most its remaining
/// bytes divided by this many arcs.
const SHORTEST_ARC_LINE: usize = 8;

/// A malformed line's error.
fn bad(file: &str, line: usize, what: &str) -> Error {
    Error::InvalidInput(format!("{file}:{line}: {what}"))
}

/// A field as an integer.
fn integer(file: &str, line: usize, field: &str) -> Result<i64> {
    field.parse::<i64>().map_err(|_| {
        bad(
            file,
            line,
            &format!("{} is not an integer", thicket_core::quoted(field)),
        )
    })
}

/// The fields after the line's letter as integers, exactly `count` of them.
fn integers<const N: usize>(
    file: &str,
    line: usize,
    fields: std::str::SplitAsciiWhitespace<'_>,
    expected: &str,
) -> Result<[i64; N]> {
    let values: Vec<i64> = fields
        .map(|f| integer(file, line, f))
        .collect::<Result<_>>()?;
    values
        .try_into()
        .map_err(|_| bad(file, line, &format!("expected '{expected}'")))
}

/// A 1-based vertex id of a network of `n` vertices, 0-based.
fn vertex(file: &str, line: usize, id: i64, n: u32) -> Result<u32> {
    if id < 1 || id > i64::from(n) {
        return Err(bad(file, line, &format!("vertex {id} is outside 1..={n}")));
    }
    Ok((id - 1) as u32)
}

/// The source or sink seen so far: its vertex and line.
type Terminal = Option<(u32, usize)>;

/// Parses the text of a `.max` file; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Network> {
    let mut header: Option<(u32, usize)> = None;
    let mut source: Terminal = None;
    let mut sink: Terminal = None;
    let mut arcs: Vec<FlowArc> = Vec::new();
    let mut total: u64 = 0;
    let mut comments = Vec::new();
    let mut last_line = 0;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        // A DOS end-of-file byte ends the file where it stands.
        let (line, end) = match raw.find('\u{1a}') {
            Some(at) => (&raw[..at], true),
            None => (raw, false),
        };
        last_line = number;
        let mut fields = line.split_ascii_whitespace();
        match fields.next() {
            None => {}
            Some("c") if header.is_none() => {
                comments.push(line.trim_start()[1..].trim().to_string());
            }
            Some("c") => {}
            Some("p") => {
                if header.is_some() {
                    return Err(bad(file, number, "a second 'p' line"));
                }
                if fields.next() != Some("max") {
                    return Err(bad(file, number, "expected 'p max <vertices> <arcs>'"));
                }
                let [n, m] = integers::<2>(file, number, fields, "p max <vertices> <arcs>")?;
                if !(2..i64::from(u32::MAX)).contains(&n) {
                    return Err(bad(
                        file,
                        number,
                        &format!("{n} vertices: a flow network has 2 to {}", u32::MAX - 1),
                    ));
                }
                if !(0..1 << 31).contains(&m) {
                    return Err(bad(
                        file,
                        number,
                        &format!("{m} arcs: a flow network has 0 to 2^31 - 1"),
                    ));
                }
                // Storage for no more arcs than the bytes after this line could hold, so that
                // a header's promise takes no memory; it grows as arcs are read, and a file
                // that ends early is refused at its end.
                let after = text.len() - (raw.as_ptr() as usize - text.as_ptr() as usize);
                arcs.reserve((m as usize).min(after / SHORTEST_ARC_LINE));
                header = Some((n as u32, m as usize));
            }
            Some("n") => {
                let Some((n, _)) = header else {
                    return Err(bad(file, number, "an 'n' line before the 'p max' line"));
                };
                let id = fields.next().ok_or_else(|| {
                    bad(file, number, "expected 'n <vertex> s' or 'n <vertex> t'")
                })?;
                let id = vertex(file, number, integer(file, number, id)?, n)?;
                let (slot, name) = match (fields.next(), fields.next()) {
                    (Some("s"), None) => (&mut source, "source"),
                    (Some("t"), None) => (&mut sink, "sink"),
                    _ => {
                        return Err(bad(
                            file,
                            number,
                            "expected 'n <vertex> s' or 'n <vertex> t'",
                        ))
                    }
                };
                if let Some((_, at)) = *slot {
                    return Err(bad(
                        file,
                        number,
                        &format!("a second {name} (the first is on line {at})"),
                    ));
                }
                *slot = Some((id, number));
                if let (Some((s, _)), Some((t, _))) = (source, sink) {
                    if s == t {
                        return Err(bad(
                            file,
                            number,
                            &format!("the source and the sink are the same vertex ({})", s + 1),
                        ));
                    }
                }
            }
            Some("a") => {
                let Some((n, m)) = header else {
                    return Err(bad(file, number, "an arc before the 'p max' line"));
                };
                if arcs.len() == m {
                    return Err(bad(
                        file,
                        number,
                        &format!("more arcs than the {m} the 'p' line declares"),
                    ));
                }
                let [u, v, c] = integers::<3>(file, number, fields, "a <tail> <head> <capacity>")?;
                let (tail, head) = (vertex(file, number, u, n)?, vertex(file, number, v, n)?);
                if c < 0 {
                    return Err(bad(file, number, &format!("negative capacity {c}")));
                }
                let capacity = c as u64;
                total = total
                    .checked_add(capacity)
                    .filter(|&t| t <= MAX_TOTAL_CAPACITY)
                    .ok_or_else(|| {
                        bad(
                            file,
                            number,
                            &format!(
                                "capacity {c} takes the sum of the capacities past 2^63 - 1, \
                                 which overflows the 64-bit flow type"
                            ),
                        )
                    })?;
                arcs.push(FlowArc {
                    tail,
                    head,
                    capacity,
                });
            }
            Some(other) => {
                return Err(bad(
                    file,
                    number,
                    &format!(
                        "expected a 'c', 'p', 'n' or 'a' line, not {}",
                        thicket_core::quoted(other)
                    ),
                ))
            }
        }
        if end {
            break;
        }
    }
    let Some((n, m)) = header else {
        return Err(Error::InvalidInput(format!(
            "{file}:{last_line}: the file ends without a 'p max <vertices> <arcs>' line"
        )));
    };
    let Some((s, _)) = source else {
        return Err(Error::InvalidInput(format!(
            "{file}:{last_line}: the file ends without a source ('n <vertex> s')"
        )));
    };
    let Some((t, _)) = sink else {
        return Err(Error::InvalidInput(format!(
            "{file}:{last_line}: the file ends without a sink ('n <vertex> t')"
        )));
    };
    if arcs.len() < m {
        return Err(Error::InvalidInput(format!(
            "{file}:{last_line}: the file ends early, after {} of the {m} arcs the 'p' line \
             declares",
            arcs.len()
        )));
    }
    let mut network = Network::new(n, s, t, arcs)?;
    network.comments = comments;
    Ok(network)
}

/// The network as a `.max` file: its comments, `p max`, `n s`, `n t` and the arcs in order.
pub fn write(network: &Network) -> String {
    let mut text = String::with_capacity(64 + network.arcs.len() * 24);
    for c in &network.comments {
        // Infallible: writing to a String.
        let _ = writeln!(text, "c {c}");
    }
    let _ = writeln!(
        text,
        "p max {} {}\nn {} s\nn {} t",
        network.vertices,
        network.arcs.len(),
        network.source + 1,
        network.sink + 1
    );
    for a in &network.arcs {
        let _ = writeln!(text, "a {} {} {}", a.tail + 1, a.head + 1, a.capacity);
    }
    text
}

/// A flow in the DIMACS solution form: `s <value>`, then `f <tail> <head> <flow>` for every
/// arc in input order (`flows[i]` on arc `i`).
pub fn write_solution(network: &Network, value: u64, flows: &[u64]) -> String {
    let mut text = String::with_capacity(16 + flows.len() * 24);
    let _ = writeln!(text, "c thicket maximum flow\ns {value}");
    for (a, f) in network.arcs.iter().zip(flows) {
        let _ = writeln!(text, "f {} {} {f}", a.tail + 1, a.head + 1);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_runs_of_spaces_and_the_dos_end_byte_are_read() {
        let text = "c x\r\np max  3   2 \r\nn    1  s\r\nn 3 t\r\na  1 2 5\r\na 2 3 4\r\n\u{1a}";
        let n = parse("w.max", text).unwrap();
        assert_eq!((n.vertices, n.source, n.sink, n.arcs.len()), (3, 0, 2, 2));
        assert_eq!(n.arcs[1].capacity, 4);
        assert_eq!(n.comments, vec!["x".to_string()]);
    }

    #[test]
    fn writing_and_reading_again_gives_the_same_network() {
        let text = "c hello\np max 4 3\nn 1 s\nn 4 t\na 1 2 3\na 2 4 9\na 4 1 2\n";
        let n = parse("x.max", text).unwrap();
        assert_eq!(write(&n), text);
        assert_eq!(
            write_solution(&n, 3, &[3, 3, 0]),
            "c thicket maximum flow\ns 3\nf 1 2 3\nf 2 4 3\nf 4 1 0\n"
        );
    }

    /// Every bad input of issue 16: one line naming file:line, exit code 2.
    #[test]
    fn every_bad_input_is_a_one_line_error_naming_the_line() {
        let head = "p max 3 2\n";
        let cases: [(String, &str); 14] = [
            (format!("{head}n 3 t\na 1 2 1\na 2 3 1\n"), "bad.max:4: the file ends without a source"),
            (format!("{head}n 1 s\na 1 2 1\na 2 3 1\n"), "bad.max:4: the file ends without a sink"),
            (format!("{head}n 1 s\nn 2 s\n"), "bad.max:3: a second source (the first is on line 2)"),
            (format!("{head}n 3 t\nn 2 t\n"), "bad.max:3: a second sink (the first is on line 2)"),
            (format!("{head}n 2 s\nn 2 t\n"), "bad.max:3: the source and the sink are the same vertex (2)"),
            (format!("{head}n 1 s\nn 3 t\na 1 2 -5\n"), "bad.max:4: negative capacity -5"),
            (format!("{head}n 1 s\nn 3 t\na 1 4 5\n"), "bad.max:4: vertex 4 is outside 1..=3"),
            (format!("{head}n 1 s\nn 3 t\na 0 2 5\n"), "bad.max:4: vertex 0 is outside 1..=3"),
            (format!("{head}n 1 s\nn 3 t\na 1 2 5\n"), "bad.max:4: the file ends early, after 1 of the 2 arcs"),
            (
                format!("{head}n 1 s\nn 3 t\na 1 2 9223372036854775807\na 2 3 1\n"),
                "bad.max:5: capacity 1 takes the sum of the capacities past 2^63 - 1, which overflows the 64-bit flow type",
            ),
            (
                format!("{head}n 1 s\nn 3 t\na 1 2 99999999999999999999\n"),
                "bad.max:4: \"99999999999999999999\" is not an integer",
            ),
            ("n 1 s\n".into(), "bad.max:1: an 'n' line before the 'p max' line"),
            ("p sp 3 2\n".into(), "bad.max:1: expected 'p max <vertices> <arcs>'"),
            (format!("{head}n 1 s\nn 3 t\na 1 2\n"), "bad.max:4: expected 'a <tail> <head> <capacity>'"),
        ];
        for (text, message) in cases {
            let err = parse("bad.max", &text).unwrap_err();
            assert_eq!(err.exit_code(), 2);
            let shown = err.to_string();
            assert!(shown.contains(message), "{shown:?} lacks {message:?}");
            assert!(!shown.contains('\n'), "{shown:?}");
        }
        let err = parse("bad.max", "").unwrap_err();
        assert!(err.to_string().contains("without a 'p max"), "{err}");
        let err = parse(
            "bad.max",
            &format!("{head}n 1 s\nn 3 t\na 1 2 1\na 2 3 1\na 1 3 1\n"),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("bad.max:6: more arcs than the 2"),
            "{err}"
        );
        let err = parse("bad.max", &format!("{head}n 1 x\n")).unwrap_err();
        assert!(
            err.to_string()
                .contains("bad.max:2: expected 'n <vertex> s'"),
            "{err}"
        );
        let err = parse("bad.max", "q\n").unwrap_err();
        assert!(
            err.to_string().contains("bad.max:1: expected a 'c'"),
            "{err}"
        );
    }
}
