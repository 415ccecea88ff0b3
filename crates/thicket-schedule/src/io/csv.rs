//! ETC matrices as plain CSV, the form a spreadsheet or an OR toolchain exports: one line per
//! task, one comma-separated time per machine, no header. The records are read with the `csv`
//! crate (RFC 4180: a value may be quoted, as some spreadsheets write every field). Blank
//! lines are skipped and spaces around a value are allowed; every line must have as many
//! values as the first. Errors name the file, the line and the column (the value's position
//! in its line, from 1, which is the machine's index + 1): `m.csv:7:3: "x" is not a number`.

use thicket_core::{Error, Result};

use crate::etc::{Etc, MAX_ENTRIES, MAX_TIME};

impl Etc {
    /// Parses the text of a CSV matrix (tasks as lines, machines as columns, no header) named
    /// `file` in errors (`FILE:LINE:COLUMN: what`). Storage grows as lines are read, and the
    /// matrix is refused as soon as it passes [`MAX_ENTRIES`].
    pub fn parse_csv_named(file: &str, text: &str) -> Result<Etc> {
        let at = |line: u64, what: String| Error::InvalidInput(format!("{file}:{line}: {what}"));
        let at_column = |line: u64, column: usize, what: String| {
            Error::InvalidInput(format!("{file}:{line}:{column}: {what}"))
        };
        // Fields are trimmed here, as `str::trim` does, so that a value's spaces are allowed
        // whatever the reader's notion of white space.
        let mut reader = ::csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text.as_bytes());
        let mut times = Vec::new();
        // The first line's number and width: every later line must match it.
        let mut first: Option<(u64, usize)> = None;
        let mut tasks = 0usize;
        let bytes = text.as_bytes();
        // The reader's own line count skips blank lines, so lines are counted from the bytes:
        // `line` is the line `counted_to` lies on.
        let (mut line, mut counted_to) = (1u64, 0usize);
        let mut record = ::csv::StringRecord::new();
        loop {
            let more = reader.read_record(&mut record).map_err(|e| {
                let line = e.position().map_or(line, |p| p.line());
                at(line, e.to_string().replace('\n', " "))
            })?;
            if !more {
                break;
            }
            // A record's position is where the reader began looking for it: before any
            // blank lines it skipped.
            let mut start = record.position().map_or(counted_to, |p| p.byte() as usize);
            while matches!(bytes.get(start), Some(b'\n' | b'\r')) {
                start += 1;
            }
            line += bytes[counted_to..start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            counted_to = start;
            if record.iter().all(|field| field.trim().is_empty()) {
                continue;
            }
            let row_start = times.len();
            for (k, field) in record.iter().enumerate() {
                let column = k + 1;
                let value = field.trim();
                if value.is_empty() {
                    return Err(at_column(line, column, "empty value".into()));
                }
                let time: f64 = value.parse().map_err(|_| {
                    let header = match (tasks, k) {
                        (0, _) => " (a CSV matrix has no header line)",
                        _ => "",
                    };
                    at_column(
                        line,
                        column,
                        format!("{} is not a number{header}", thicket_core::quoted(value)),
                    )
                })?;
                if !(time.is_finite() && (0.0..=MAX_TIME).contains(&time)) {
                    return Err(at_column(
                        line,
                        column,
                        format!(
                            "time {} is not a number in 0..=1e290 (larger times could make a \
                             makespan infinite)",
                            thicket_core::token(value)
                        ),
                    ));
                }
                if times.len() == MAX_ENTRIES {
                    return Err(at_column(
                        line,
                        column,
                        "more than 2^28 times in the matrix".into(),
                    ));
                }
                times.push(time);
            }
            let width = times.len() - row_start;
            match first {
                None => first = Some((line, width)),
                Some((line_one, machines)) if width != machines => {
                    return Err(at(
                        line,
                        format!("{width} values where line {line_one} has {machines}"),
                    ))
                }
                Some(_) => {}
            }
            tasks += 1;
        }
        let Some((_, machines)) = first else {
            return Err(at(1, "empty CSV matrix".into()));
        };
        Etc::new(tasks, machines, times)
    }

    /// The matrix as CSV: one line per task, its machines' times separated by commas.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        for t in 0..self.tasks() {
            let row: Vec<String> = self.row(t).iter().map(|time| format!("{time}")).collect();
            out.push_str(&row.join(","));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> String {
        Etc::parse_csv_named("m.csv", text).unwrap_err().to_string()
    }

    #[test]
    fn tasks_are_lines_and_machines_columns() {
        let etc = Etc::parse_csv_named("m.csv", "1,2,3\r\n\n 4 , 5,6.5\n").unwrap();
        assert_eq!((etc.tasks(), etc.machines()), (2, 3));
        assert_eq!(etc.row(1), &[4.0, 5.0, 6.5]);
        assert_eq!(etc.time(0, 2), 3.0);
    }

    #[test]
    fn quoted_values_are_read_as_a_spreadsheet_writes_them() {
        let etc = Etc::parse_csv_named("m.csv", "\"1\",\" 2.5\"\n3,\"4\"\n").unwrap();
        assert_eq!(etc.times(), &[1.0, 2.5, 3.0, 4.0]);
    }

    #[test]
    fn csv_round_trips_exactly() {
        let generator: crate::generate::Generator = "u_s_lohi:20x5".parse().unwrap();
        let etc = generator.generate(3).unwrap();
        let back = Etc::parse_csv_named("m.csv", &etc.to_csv()).unwrap();
        assert_eq!(back, etc);
    }

    #[test]
    fn bad_input_names_the_line_and_column() {
        assert!(message("1,2\n3,x\n").ends_with("m.csv:2:2: \"x\" is not a number"));
        assert!(message("task,m0\n1,2\n")
            .contains("m.csv:1:1: \"task\" is not a number (a CSV matrix has no header line)"));
        assert!(message("1,2\n3\n").contains("m.csv:2: 1 values where line 1 has 2"));
        assert!(message("1,2\n3,4,5\n").contains("m.csv:2: 3 values"));
        assert!(message("1,,2\n").contains("m.csv:1:2: empty value"));
        assert!(message("1,2,\n").contains("m.csv:1:3: empty value"));
        assert!(message("1,-2\n").contains("m.csv:1:2: time -2"));
        assert!(message("1,inf\n").contains("m.csv:1:2: time inf"));
        assert!(message("\n \n").contains("m.csv:1: empty CSV matrix"));
        // Lines are counted from the file, blank ones included.
        assert!(message("1,2\n\n\r\n \n3,y\n").ends_with("m.csv:5:2: \"y\" is not a number"));
        assert!(message("1,2\n3,\"4\n5\"\n").contains("m.csv:2:2: \"4\\n5\" is not a number"));
        assert_eq!(
            Etc::parse_csv_named("m.csv", "1;2\n")
                .unwrap_err()
                .exit_code(),
            2
        );
    }
}
