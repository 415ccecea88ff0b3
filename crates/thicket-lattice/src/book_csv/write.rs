//! A book written back with its answers: as CSV (prices, implied volatilities, or as read)
//! and as JSON, every column as read with the answers beside them.

use thicket_core::Result;

use super::{same_name, Book, Noted, OnError, NOTE, PRICE};
use crate::scheme::Priced;

impl Book {
    /// The book with its prices as CSV: every column as read, in its order (a column named
    /// `price`, `delta`, ... already there, in any case, is overwritten in its place), then
    /// `price`, `delta`, `gamma`, `theta`, `vega` and `rho` (the last two empty where not
    /// computed), and for a book read with [`OnError::Note`] a `note` column (empty, or why
    /// the row has no results: they are empty). `priced` holds one answer per option, in the
    /// book's order. Numbers are written in the shortest form that reads back to the same
    /// `f64`, and the output reads back as a book.
    pub fn priced_csv(&self, priced: &[Priced]) -> String {
        let optional = |x: Option<f64>| x.map(|x| x.to_string()).unwrap_or_default();
        self.with_columns(&self.priced_names(), |option| match option {
            Some(option) => {
                let p = &priced[option];
                vec![
                    p.price.to_string(),
                    p.delta.to_string(),
                    p.gamma.to_string(),
                    p.theta.to_string(),
                    optional(p.vega),
                    optional(p.rho),
                    String::new(),
                ]
            }
            None => vec![String::new(); 6],
        })
    }

    /// The book with its prices as JSON, one object per row in the book's order: every
    /// column as read, under its name in the header (as a string: ids and desk fields come
    /// back exactly as written), then `price`, `delta`, `gamma`, `theta`, `vega` and `rho`
    /// as numbers (null where not computed, or on a noted row; a column of the same name, in
    /// any case, gives way to them), and for a book read with [`OnError::Note`] `note` (null,
    /// or why the row has no results). `priced` holds one answer per option, in the book's
    /// order.
    pub fn priced_json(&self, priced: &[Priced]) -> serde_json::Value {
        let names = self.priced_names();
        let mut option = 0;
        let mut noted = self.noted.iter().peekable();
        let rows = self.rows.iter().enumerate().map(|(row, fields)| {
            let mut object = serde_json::Map::new();
            for (name, field) in self.header.iter().zip(fields) {
                if !names.iter().any(|n| same_name(name, n)) {
                    object.insert(name.clone(), field.into());
                }
            }
            let note = noted.next_if(|n| n.row == row).map(Noted::reason_with_line);
            let p = match note {
                Some(_) => None,
                None => {
                    option += 1;
                    Some(&priced[option - 1])
                }
            };
            object.insert(PRICE.into(), p.map(|p| p.price).into());
            object.insert("delta".into(), p.map(|p| p.delta).into());
            object.insert("gamma".into(), p.map(|p| p.gamma).into());
            object.insert("theta".into(), p.map(|p| p.theta).into());
            object.insert("vega".into(), p.and_then(|p| p.vega).into());
            object.insert("rho".into(), p.and_then(|p| p.rho).into());
            if self.on_error == OnError::Note {
                object.insert(NOTE.into(), note.into());
            }
            serde_json::Value::Object(object)
        });
        serde_json::Value::Array(rows.collect())
    }

    /// The columns a priced book adds: the results, and `note` where rows may be noted.
    fn priced_names(&self) -> Vec<&'static str> {
        let mut names = vec![PRICE, "delta", "gamma", "theta", "vega", "rho"];
        if self.on_error == OnError::Note {
            names.push(NOTE);
        }
        names
    }

    /// The book with its implied volatilities as CSV: every column as read, then
    /// `volatility` (overwritten in its place where the book has it; empty where none was
    /// found) and `note` (empty, or why no volatility was found). `implied` holds one answer
    /// per option, in the book's order.
    pub fn implied_csv(&self, implied: &[Result<f64>]) -> String {
        self.with_columns(&["volatility", NOTE], |option| {
            match option.map(|o| &implied[o]) {
                Some(Ok(volatility)) => vec![volatility.to_string(), String::new()],
                Some(Err(e)) => vec![String::new(), e.message().to_string()],
                None => vec![String::new()],
            }
        })
    }

    /// The book as read, as CSV: every column in its order (quoting where a field needs
    /// it). It reads back as the same book.
    pub fn csv(&self) -> String {
        self.with_columns(&[], |_| Vec::new())
    }

    /// The rows as read with `names` set to `values(option)` (`None` for a noted row, whose
    /// last name, `note`, is then set to why): in place where the header has the name (in
    /// any case), else appended in order.
    fn with_columns(
        &self,
        names: &[&str],
        values: impl Fn(Option<usize>) -> Vec<String>,
    ) -> String {
        let mut header = self.header.clone();
        let slots: Vec<usize> = names
            .iter()
            .map(
                |name| match header.iter().position(|h| same_name(h, name)) {
                    Some(slot) => slot,
                    None => {
                        header.push(name.to_string());
                        header.len() - 1
                    }
                },
            )
            .collect();
        let mut writer = csv::Writer::from_writer(Vec::new());
        // Writing to memory cannot fail, and every field is UTF-8.
        let _ = writer.write_record(&header);
        let mut record = Vec::with_capacity(header.len());
        let mut option = 0;
        let mut noted = self.noted.iter().peekable();
        for (row, fields) in self.rows.iter().enumerate() {
            record.clear();
            record.extend(fields.iter().map(str::to_string));
            record.resize(header.len(), String::new());
            let row_values = match noted.next_if(|n| n.row == row) {
                Some(n) => {
                    let mut empty = values(None);
                    empty.resize(names.len().saturating_sub(1), String::new());
                    empty.push(n.reason_with_line());
                    empty
                }
                None => {
                    option += 1;
                    values(Some(option - 1))
                }
            };
            for (slot, value) in slots.iter().zip(row_values) {
                record[*slot] = value;
            }
            let _ = writer.write_record(&record);
        }
        let bytes = writer.into_inner().unwrap_or_default();
        String::from_utf8(bytes).unwrap_or_default()
    }
}

impl Noted {
    /// The note a row's output carries: `line N: why`, as `implied-vol`'s notes read.
    fn reason_with_line(&self) -> String {
        format!("line {}: {}", self.line, self.reason)
    }
}
