//! Braun et al.'s ETC file format: one value per entry in task-major order (value k is task
//! k / M on machine k % M), after a header `T M` or `T M x` (chgogos/hcsp's files; the third
//! field is ignored). A file without a header is read as Braun's original 512 × 16 when it
//! holds 8,192 values. [`Etc::read_as`] also dispatches to the CSV reader (`io/csv.rs`).

use std::path::Path;

use thicket_core::{Error, Result};

use crate::etc::{Etc, BRAUN_SHAPE, MAX_ENTRIES, MAX_TIME};

impl Etc {
    /// Reads a matrix file (`-`: standard input) through [`thicket_core::read_text`] in the
    /// format its name says ([`Etc::read_as`] without a format named).
    pub fn read(path: &Path) -> Result<Etc> {
        Etc::read_as(path, None)
    }

    /// Reads a matrix file (`-`: standard input) through [`thicket_core::read_text`] in
    /// `format`, or where none is named in the format of its name ([`EtcFormat::of_path`]: a
    /// name ending in `.csv` as CSV) or, for standard input, which has no name, of its text
    /// ([`EtcFormat::of_text`]: CSV where its first line holds a comma). CSV is read by
    /// [`Etc::parse_csv_named`] (tasks as lines, machines as columns, no header; errors name
    /// the file, line and column), Braun's format by [`Etc::parse_named`] (errors name the
    /// file and line, `u_c_hihi.0:7: ...`).
    pub fn read_as(path: &Path, format: Option<EtcFormat>) -> Result<Etc> {
        let text = thicket_core::read_text(path)?;
        let name = thicket_core::input_name(path);
        let format = format.unwrap_or_else(|| match thicket_core::is_stdio(path) {
            true => EtcFormat::of_text(&text),
            false => EtcFormat::of_path(path),
        });
        match format {
            EtcFormat::Csv => Etc::parse_csv_named(&name, &text),
            EtcFormat::Braun => Etc::parse_named(&name, &text),
        }
    }

    /// The matrix as a file in `format`: CSV ([`Etc::to_csv`]) or Braun's ([`Etc::to_text`]).
    pub fn to_text_as(&self, format: EtcFormat) -> String {
        match format {
            EtcFormat::Csv => self.to_csv(),
            EtcFormat::Braun => self.to_text(),
        }
    }

    /// Parses the text of a Braun file; errors name the line as `ETC:7: ...`.
    pub fn parse(text: &str) -> Result<Etc> {
        Etc::parse_named("ETC", text)
    }

    /// Parses the text of a Braun file named `file` in errors (`FILE:LINE: what`). Storage
    /// grows as times are read (a header's promise takes no memory), and every time is
    /// checked against [`MAX_TIME`] where it is read.
    pub fn parse_named(file: &str, text: &str) -> Result<Etc> {
        let at = |line: usize, what: String| Error::InvalidInput(format!("{file}:{line}: {what}"));
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty());
        let Some((first_line, first)) = lines.clone().next() else {
            return Err(at(1, "empty ETC file".into()));
        };
        let fields: Vec<&str> = first.split_whitespace().collect();
        let (tasks, machines) = if fields.len() >= 2 {
            lines.next();
            let count = |s: &str, what: &str| -> Result<usize> {
                match s.parse::<usize>() {
                    Ok(n) if n > 0 => Ok(n),
                    _ => Err(at(
                        first_line,
                        format!(
                            "{what} {} in the header is not a positive integer",
                            thicket_core::quoted(s)
                        ),
                    )),
                }
            };
            if fields.len() > 3 {
                return Err(at(
                    first_line,
                    format!(
                        "a header is `TASKS MACHINES` or `TASKS MACHINES x`, not {} fields",
                        fields.len()
                    ),
                ));
            }
            (count(fields[0], "tasks")?, count(fields[1], "machines")?)
        } else {
            BRAUN_SHAPE
        };
        let expected = tasks
            .checked_mul(machines)
            .filter(|&n| n <= MAX_ENTRIES)
            .ok_or_else(|| {
                at(
                    first_line,
                    format!("{tasks} x {machines} entries are too many (at most 2^28)"),
                )
            })?;
        // A time takes at least two bytes ("7" and a line end).
        let mut times = Vec::with_capacity(expected.min(text.len() / 2 + 1));
        let mut last_line = first_line;
        for (number, line) in lines {
            last_line = number;
            for field in line.split_whitespace() {
                let time: f64 = field.parse().map_err(|_| {
                    at(
                        number,
                        format!("{} is not a number", thicket_core::quoted(field)),
                    )
                })?;
                if !(time.is_finite() && (0.0..=MAX_TIME).contains(&time)) {
                    return Err(at(
                        number,
                        format!(
                            "time {} is not a number in 0..=1e290 (larger times could make \
                             a makespan infinite)",
                            thicket_core::token(field)
                        ),
                    ));
                }
                if times.len() == expected {
                    return Err(at(
                        number,
                        format!(
                            "more than the {expected} times of {tasks} tasks x {machines} \
                             machines"
                        ),
                    ));
                }
                times.push(time);
            }
        }
        if times.len() != expected {
            let header = match fields.len() >= 2 {
                true => format!("the header says {tasks} tasks x {machines} machines"),
                false => format!("a file without a header is {tasks} x {machines}"),
            };
            return Err(at(
                last_line,
                format!("{} times where {header} ({expected})", times.len()),
            ));
        }
        Etc::new(tasks, machines, times)
    }

    /// The matrix as a Braun file with a `T M 0` header, one time per line.
    pub fn to_text(&self) -> String {
        let mut out = format!("{} {} 0\n", self.tasks(), self.machines());
        for time in self.times() {
            out.push_str(&format!("{time:.6}\n"));
        }
        out
    }
}

/// The two file formats of an ETC matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EtcFormat {
    /// Braun et al.'s: a header `T M [x]` (or none for Braun's 512 × 16), then the times
    /// task-major, separated by white space.
    Braun,
    /// Plain CSV: one line per task, one comma-separated time per machine, no header.
    Csv,
}

impl EtcFormat {
    /// Both formats.
    pub const ALL: [EtcFormat; 2] = [EtcFormat::Braun, EtcFormat::Csv];

    /// The format's name on the command line: `braun` or `csv`.
    pub fn name(self) -> &'static str {
        match self {
            EtcFormat::Braun => "braun",
            EtcFormat::Csv => "csv",
        }
    }

    /// The format of the file `path` where none is named: CSV for a name ending in `.csv`
    /// (any case), else Braun's.
    pub fn of_path(path: &Path) -> EtcFormat {
        match path
            .extension()
            .is_some_and(|extension| extension.eq_ignore_ascii_case("csv"))
        {
            true => EtcFormat::Csv,
            false => EtcFormat::Braun,
        }
    }

    /// The format of `text` where no name tells (standard input): CSV where its first line
    /// that is not blank holds a comma, which Braun's format never does, else Braun's. (A
    /// CSV matrix of one machine has no comma: name its format.)
    pub fn of_text(text: &str) -> EtcFormat {
        match text
            .lines()
            .find(|line| !line.trim().is_empty())
            .is_some_and(|line| line.contains(','))
        {
            true => EtcFormat::Csv,
            false => EtcFormat::Braun,
        }
    }
}

thicket_core::named_choice!(EtcFormat, "ETC format");

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> String {
        Etc::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn both_header_forms_read_task_major() {
        for header in ["2 3 0", "2 3"] {
            let etc = Etc::parse(&format!("{header}\n1\n2\n3\n4\n5\n6.5\n")).unwrap();
            assert_eq!((etc.tasks(), etc.machines()), (2, 3));
            assert_eq!(etc.time(0, 2), 3.0);
            assert_eq!(etc.time(1, 0), 4.0);
            assert_eq!(etc.row(1), &[4.0, 5.0, 6.5]);
        }
        let round = Etc::parse(&Etc::parse("1 2\n0.5 7\n").unwrap().to_text()).unwrap();
        assert_eq!(round.times(), &[0.5, 7.0]);
    }

    #[test]
    fn a_headerless_file_is_braun_512_by_16() {
        let text: String = (0..8192).map(|k| format!("{k}.0\n")).collect();
        let etc = Etc::parse(&text).unwrap();
        assert_eq!((etc.tasks(), etc.machines()), (512, 16));
        assert!(message("1\n2\n3\n").contains("without a header is 512 x 16"));
    }

    #[test]
    fn bad_input_names_the_line() {
        assert!(message("2 2 0\n1\n2\n3\n").contains("ETC:4: 3 times"));
        assert!(message("2 2 0\n1\n2\n3\n4\n5\n").contains("ETC:6: more than"));
        assert!(message("1 2 0\n1\n-2\n").contains("ETC:3: time -2"));
        assert!(message("1 2 0\n1\nabc\n").contains("ETC:3: \"abc\" is not a number"));
        assert!(message("1 2 0\n1\nnan\n").contains("ETC:3"));
        assert!(message("0 2 0\n").contains("ETC:1: tasks \"0\""));
        assert!(message("3 0\n").contains("ETC:1: machines \"0\""));
        assert!(message("x 2\n").contains("ETC:1"));
        assert!(message("1 2 3 4\n").contains("ETC:1"));
        assert!(message("").contains("empty"));
        assert!(message("99999999 99999999\n").contains("too many"));
        for text in ["2 2 0\n1\n2\n3\n", "1 2 0\n1\nabc\n"] {
            assert_eq!(Etc::parse(text).unwrap_err().exit_code(), 2);
        }
    }

    #[test]
    fn a_format_is_named_by_the_file_or_read_off_a_nameless_text() {
        assert_eq!(EtcFormat::of_path(Path::new("m.CSV")), EtcFormat::Csv);
        assert_eq!(
            EtcFormat::of_path(Path::new("u_c_hihi.0")),
            EtcFormat::Braun
        );
        assert_eq!(EtcFormat::of_path(Path::new("-")), EtcFormat::Braun);
        assert_eq!(EtcFormat::of_text("\n 4, 2\n3,6\n"), EtcFormat::Csv);
        assert_eq!(EtcFormat::of_text("2 2\n4\n2\n3\n6\n"), EtcFormat::Braun);
        assert_eq!(EtcFormat::of_text(""), EtcFormat::Braun);
        for format in EtcFormat::ALL {
            assert_eq!(format.name().parse::<EtcFormat>().unwrap(), format);
            let etc = Etc::new(2, 2, vec![4.0, 2.0, 3.0, 6.0]).unwrap();
            let text = etc.to_text_as(format);
            assert_eq!(EtcFormat::of_text(&text), format, "{text}");
        }
        assert!("tsv".parse::<EtcFormat>().is_err());
    }
}
