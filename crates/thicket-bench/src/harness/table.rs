//! Tables and chart lines from a bench's rows: one [`Table`] renders both Markdown and CSV, and
//! [`series_by`] groups rows into the chart's lines.

use crate::chart::Series;

/// How a column's cells sit in Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// A table: named columns and rows of cells, as Markdown or CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    columns: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with these columns.
    pub fn new<S: Into<String>>(columns: impl IntoIterator<Item = (S, Align)>) -> Table {
        Table {
            columns: columns.into_iter().map(|(n, a)| (n.into(), a)).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row; missing cells are blank.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table in Markdown, header and alignment line first.
    pub fn markdown(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|(n, _)| n.as_str()).collect();
        let mut out = format!("| {} |\n|", names.join(" | "));
        for (_, align) in &self.columns {
            out.push_str(match align {
                Align::Left => "---|",
                Align::Right => "---:|",
            });
        }
        out.push('\n');
        for row in &self.rows {
            let cells: Vec<&str> = (0..self.columns.len())
                .map(|i| row.get(i).map_or("", String::as_str))
                .collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        out
    }

    /// The table as CSV with a header line; a cell holding a comma or a quote is quoted.
    pub fn csv(&self) -> String {
        let line = |cells: Vec<&str>| {
            let quoted: Vec<String> = cells.into_iter().map(csv_cell).collect();
            quoted.join(",") + "\n"
        };
        let mut out = line(self.columns.iter().map(|(n, _)| n.as_str()).collect());
        for row in &self.rows {
            out.push_str(&line(
                (0..self.columns.len())
                    .map(|i| row.get(i).map_or("", String::as_str))
                    .collect(),
            ));
        }
        out
    }
}

/// One CSV cell, quoted (with inner quotes doubled) when it holds a comma, quote or newline.
fn csv_cell(cell: &str) -> String {
    if cell.contains([',', '"', '\n']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_owned()
    }
}

/// A cell for an optional value: `-` when absent.
pub fn cell<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// The chart's lines: rows grouped by `name` in the order the names first appear, each row
/// giving at most one `(x, y)` point; lines without a point are left out.
pub fn series_by<R>(
    rows: &[R],
    name: impl Fn(&R) -> String,
    point: impl Fn(&R) -> Option<(f64, f64)>,
) -> Vec<Series> {
    let mut series: Vec<Series> = Vec::new();
    for row in rows {
        let key = name(row);
        let index = match series.iter().position(|s| s.name == key) {
            Some(index) => index,
            None => {
                series.push(Series {
                    name: key,
                    points: Vec::new(),
                });
                series.len() - 1
            }
        };
        series[index].points.extend(point(row));
    }
    series.retain(|s| !s.points.is_empty());
    series
}

/// The distinct values of `key` over `rows`, in the order they first appear (a pivot table's
/// rows or columns).
pub fn distinct<R, K: PartialEq>(rows: &[R], key: impl Fn(&R) -> K) -> Vec<K> {
    let mut keys = Vec::new();
    for row in rows {
        let k = key(row);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_table_renders_markdown_and_csv() {
        let mut table = Table::new([("name", Align::Left), ("seconds", Align::Right)]);
        table.row(vec!["a, b".into(), "1.5".into()]);
        table.row(vec!["say \"hi\"".into()]);
        assert_eq!(
            table.markdown(),
            "| name | seconds |\n|---|---:|\n| a, b | 1.5 |\n| say \"hi\" |  |\n"
        );
        assert_eq!(
            table.csv(),
            "name,seconds\n\"a, b\",1.5\n\"say \"\"hi\"\"\",\n"
        );
        assert_eq!(cell(None::<u8>), "-");
    }

    #[test]
    fn rows_group_into_lines_and_pivot_keys_in_first_seen_order() {
        let rows = [("b", 1, Some(2.0)), ("a", 1, None), ("b", 2, Some(3.0))];
        let series = series_by(&rows, |r| r.0.to_owned(), |r| Some((r.1 as f64, r.2?)));
        assert_eq!(series.len(), 1);
        assert_eq!(series[0].points, vec![(1.0, 2.0), (2.0, 3.0)]);
        assert_eq!(distinct(&rows, |r| r.0), vec!["b", "a"]);
    }
}
