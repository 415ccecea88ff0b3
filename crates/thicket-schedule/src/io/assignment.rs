//! Assignments (one machine index per task) and their files: one index per task in task
//! order, separated by whitespace (chgogos/hcsp's `.sol` files and thicket's `--assignment`
//! output, one per line).

use std::path::Path;

use thicket_core::{Error, Result};

use crate::etc::Etc;

/// Machine loads and the makespan of `assignment` on `etc`, summed in task order (f64), the
/// way [`crate::verify`] and the published values compute them. The assignment must be in
/// range.
pub fn loads(etc: &Etc, assignment: &[u32]) -> (Vec<f64>, f64) {
    let mut loads = vec![0.0; etc.machines()];
    for (t, &m) in assignment.iter().enumerate() {
        loads[m as usize] += etc.time(t, m as usize);
    }
    let makespan = loads.iter().copied().fold(0.0, f64::max);
    (loads, makespan)
}

/// Parses an assignment file's text, named `file` in errors: whitespace-separated machine
/// indices; errors name the file and line (`a.sol:3: ...`). Ranges are checked by [`read`]
/// and [`crate::verify::verify`].
pub fn parse(file: &str, text: &str) -> Result<Vec<u32>> {
    let mut assignment = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for field in line.split_whitespace() {
            let machine = field.parse::<u32>().map_err(|_| {
                Error::InvalidInput(format!(
                    "{file}:{}: {} is not a machine index (0, 1, ...)",
                    i + 1,
                    thicket_core::quoted(field)
                ))
            })?;
            assignment.push(machine);
        }
    }
    if assignment.is_empty() {
        return Err(Error::InvalidInput(format!(
            "{file}:{}: no machine index in the assignment",
            text.lines().count().max(1)
        )));
    }
    Ok(assignment)
}

/// Reads an assignment file (`-`: standard input) for `etc`: one index per task, each below
/// the machine count; errors name the file and line.
pub fn read(path: &Path, etc: &Etc) -> Result<Vec<u32>> {
    let text = thicket_core::read_text(path)?;
    let file = thicket_core::input_name(path);
    let assignment = parse(&file, &text)?;
    if assignment.len() != etc.tasks() {
        return Err(Error::InvalidInput(format!(
            "{file}:{}: {} machine indices for {} tasks",
            line_of_field(&text, assignment.len().min(etc.tasks())),
            assignment.len(),
            etc.tasks()
        )));
    }
    if let Some(t) = assignment
        .iter()
        .position(|&m| m as usize >= etc.machines())
    {
        let line = line_of_field(&text, t);
        return Err(Error::InvalidInput(format!(
            "{file}:{line}: machine {} of task {t} is not below {}",
            assignment[t],
            etc.machines()
        )));
    }
    Ok(assignment)
}

/// The line (from 1) of the `k`-th whitespace-separated field of `text`.
fn line_of_field(text: &str, k: usize) -> usize {
    let mut seen = 0;
    for (i, line) in text.lines().enumerate() {
        seen += line.split_whitespace().count();
        if seen > k {
            return i + 1;
        }
    }
    text.lines().count()
}

/// The text of an assignment file: one machine index per task, one per line.
pub fn to_text(assignment: &[u32]) -> String {
    let mut out = String::with_capacity(assignment.len() * 3);
    for m in assignment {
        out.push_str(&m.to_string());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_makespan_sum_by_machine() {
        let etc = Etc::new(3, 2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let (loads, makespan) = loads(&etc, &[0, 1, 1]);
        assert_eq!(loads, vec![1.0, 10.0]);
        assert_eq!(makespan, 10.0);
    }

    #[test]
    fn files_round_trip_and_bad_ones_name_the_line() {
        let etc = Etc::new(3, 2, vec![1.0; 6]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, to_text(&[1, 0, 1])).unwrap();
        assert_eq!(read(&path, &etc).unwrap(), vec![1, 0, 1]);
        for (text, wanted) in [
            ("0\n1\n", "2 machine indices for 3 tasks"),
            ("0\n1\nx\n", "a.txt:3: \"x\""),
            ("0 1\n-1\n", "a.txt:2: \"-1\""),
            ("0\n1\n2\n", "a.txt:3: machine 2 of task 2"),
            ("\n", "no machine index"),
        ] {
            std::fs::write(&path, text).unwrap();
            let error = read(&path, &etc).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{text:?}");
            assert!(error.to_string().contains(wanted), "{error} / {wanted}");
            assert!(error.to_string().contains("a.txt"), "{error}");
        }
    }
}
