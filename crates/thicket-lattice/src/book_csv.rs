//! Books of options as CSV, read and written with the `csv` crate: columns matched by name in
//! any order (quoted fields, fields with commas), every bad value named by file, line and
//! column, and every column the reader does not know (ids, desk fields) carried to the output
//! in its place, so that a desk's book comes back as it went in with the results added. Column
//! names are matched ignoring ASCII case and surrounding spaces (`Payoff, STYLE`). A bad row
//! refuses the book ([`OnError::Fail`]) or, with [`OnError::Note`], is written back with its
//! results empty and a `note` saying why, the rest of the book priced.

use std::path::Path;

use thicket_core::{quoted, Error, Result};

use crate::contract::{Contract, Market, Payoff, Style};
use crate::trees::Tree;

mod write;

/// The column of quoted prices an implied-volatility book carries (and a priced book adds).
const PRICE: &str = "price";

/// The column that says why a row has no result.
const NOTE: &str = "note";

/// What a book reader does with a row it cannot read (a value that is not a number, an
/// invalid contract, a row of the wrong width): the header's faults refuse the book either
/// way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    /// Refuse the whole book, naming the file, the row's line and the value (the default).
    #[default]
    Fail,
    /// Keep the row with its results empty and a `note` column saying why (`line 4: column
    /// volatility: "abc" is not a number`); the other rows are read, and priced.
    Note,
}

impl OnError {
    /// Both, in the order a command's help lists them.
    pub const ALL: [OnError; 2] = [OnError::Note, OnError::Fail];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            OnError::Fail => "fail",
            OnError::Note => "note",
        }
    }
}

thicket_core::named_choice!(OnError, "on-error choice");

/// What a book is read for: pricing (the volatility given), or implied volatility (a quoted
/// `price` given, the volatility the answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BookKind {
    /// Every contract column with `volatility`: the book to price.
    Prices,
    /// Every contract column but `volatility` (ignored where present), and `price`: the book
    /// whose implied volatilities to find.
    Quotes,
}

/// One column the reader knows: its name, whether a book must have it, and how its text sets
/// the contract (the reason on failure, e.g. `is not a number`). An optional column that is
/// absent or empty leaves the default of [`blank_contract`]. New contract fields become one
/// more row of [`COLUMNS`].
struct Column {
    name: &'static str,
    required: bool,
    set: fn(&mut Contract, &str) -> std::result::Result<(), &'static str>,
}

/// The contract columns, in the order they are applied (`payoff` before `strike`, whose
/// meaning it decides).
const COLUMNS: [Column; 11] = [
    Column {
        name: "payoff",
        required: true,
        set: |c, text| {
            c.payoff = match text {
                "lookback-put" => Payoff::LookbackPut,
                "lookback-call" => Payoff::LookbackCall,
                "call" => Payoff::Call { strike: f64::NAN },
                "put" => Payoff::Put { strike: f64::NAN },
                _ => return Err("is not lookback-put, lookback-call, call or put"),
            };
            Ok(())
        },
    },
    Column {
        name: "style",
        required: true,
        set: |c, text| {
            c.style = match text {
                "american" => Style::American,
                "european" => Style::European,
                _ => return Err("is not american or european"),
            };
            Ok(())
        },
    },
    Column {
        name: "spot",
        required: true,
        set: |c, text| set_number(&mut c.market.spot, text),
    },
    Column {
        name: "strike",
        required: true,
        set: |c, text| match &mut c.payoff {
            Payoff::LookbackPut | Payoff::LookbackCall if text.is_empty() => Ok(()),
            Payoff::LookbackPut | Payoff::LookbackCall => {
                Err("must be empty for a floating-strike lookback")
            }
            Payoff::Call { strike } | Payoff::Put { strike } => set_number(strike, text),
        },
    },
    Column {
        name: "maturity",
        required: true,
        set: |c, text| set_number(&mut c.market.maturity, text),
    },
    Column {
        name: "volatility",
        required: true,
        set: |c, text| set_number(&mut c.market.volatility, text),
    },
    Column {
        name: "rate",
        required: true,
        set: |c, text| set_number(&mut c.market.rate, text),
    },
    Column {
        name: "steps",
        required: true,
        set: |c, text| {
            c.steps = text.parse().map_err(|_| "is not a whole number")?;
            Ok(())
        },
    },
    Column {
        name: "dividend_yield",
        required: false,
        set: |c, text| set_number(&mut c.market.dividend_yield, text),
    },
    Column {
        name: "observed_extreme",
        required: false,
        set: |c, text| {
            let mut extreme = f64::NAN;
            set_number(&mut extreme, text)?;
            c.observed_extreme = Some(extreme);
            Ok(())
        },
    },
    Column {
        name: "tree",
        required: false,
        set: |c, text| {
            c.tree = text
                .parse()
                .map_err(|_| "is not crr, jarrow-rudd, tian or leisen-reimer")?;
            Ok(())
        },
    },
];

/// The volatility an implied-volatility book's contracts carry while their own is unknown: a
/// typical one, so that the other values are checked as for any contract (the search replaces
/// it).
const PLACEHOLDER_VOLATILITY: f64 = 0.2;

/// The contract a row starts from: every optional column's default (no dividends).
fn blank_contract() -> Contract {
    Contract {
        payoff: Payoff::LookbackPut,
        style: Style::American,
        market: Market {
            spot: f64::NAN,
            maturity: f64::NAN,
            volatility: PLACEHOLDER_VOLATILITY,
            rate: f64::NAN,
            dividend_yield: 0.0,
        },
        steps: 0,
        observed_extreme: None,
        tree: Tree::Crr,
    }
}

fn set_number(slot: &mut f64, text: &str) -> std::result::Result<(), &'static str> {
    *slot = text.parse().map_err(|_| "is not a number")?;
    Ok(())
}

/// A book read from CSV: its options, and its header and rows as read, to write it back with
/// results added.
#[derive(Debug, Clone, PartialEq)]
pub struct Book {
    header: Vec<String>,
    /// The rows as read, noted ones included (one allocation each: a million-option book
    /// stays small).
    rows: Vec<csv::StringRecord>,
    /// Per option (a row that was read), its line.
    lines: Vec<u64>,
    contracts: Vec<Contract>,
    quotes: Vec<f64>,
    /// The rows [`OnError::Note`] kept without an option, in the book's order.
    noted: Vec<Noted>,
    on_error: OnError,
}

/// A row kept without an option: its place among the rows, its line and why.
#[derive(Debug, Clone, PartialEq)]
struct Noted {
    row: usize,
    line: u64,
    reason: String,
}

/// Reads a book of options to price from the file `path` (`-`: standard input) through
/// [`thicket_core::read_text`], as [`parse_book`] reads text; a missing or unreadable file is
/// [`Error::InvalidInput`] naming it.
pub fn read_book(path: &Path) -> Result<Book> {
    read_book_of(path, BookKind::Prices)
}

/// Reads a book of `kind` from the file `path` (`-`: standard input), as [`parse_book_of`].
pub fn read_book_of(path: &Path, kind: BookKind) -> Result<Book> {
    read_book_with(path, kind, OnError::Fail)
}

/// Reads a book of `kind` from the file `path` (`-`: standard input), a bad row refusing it
/// or noted as `on_error` says, as [`parse_book_with`].
pub fn read_book_with(path: &Path, kind: BookKind, on_error: OnError) -> Result<Book> {
    let text = thicket_core::read_text(path)?;
    parse_book_with(&thicket_core::input_name(path), &text, kind, on_error)
}

/// Reads a book of options to price from `text`, named `file` in errors: a header line
/// naming the columns `payoff`, `style`, `spot`, `strike`, `maturity`, `volatility`, `rate`
/// and `steps` (in any order, each once, in any ASCII case, spaces around a name ignored),
/// optionally `dividend_yield` (default 0; empty: 0),
/// `observed_extreme` (a lookback's running extreme so far; empty: the spot) and `tree`
/// (`crr`, `jarrow-rudd`, `tian` or `leisen-reimer`; empty: `crr`),
/// and any other columns (ids, desk fields), which are carried to the output as they are;
/// then one option per record (RFC 4180: fields may be quoted), blank lines skipped. `payoff`
/// is `lookback-put`, `lookback-call`, `call` or `put`, `style` is `american` or `european`,
/// and `strike` is empty for the lookbacks. A bad value is [`Error::InvalidInput`] naming the
/// file, line and column (`book.csv:4: column volatility: "abc" is not a number`), an invalid
/// contract names the file and line, and a book of no options is an error too.
pub fn parse_book(file: &str, text: &str) -> Result<Book> {
    parse_book_of(file, text, BookKind::Prices)
}

/// Reads a book of `kind` from `text` as [`parse_book`] does; a [`BookKind::Quotes`] book
/// needs a `price` column (a number >= 0 on every row) and no `volatility`.
pub fn parse_book_of(file: &str, text: &str, kind: BookKind) -> Result<Book> {
    parse_book_with(file, text, kind, OnError::Fail)
}

/// Reads a book of `kind` from `text` as [`parse_book_of`] does, a bad row refusing the book
/// ([`OnError::Fail`]) or kept with a note ([`OnError::Note`]: its results empty in the
/// output, the note `line N: why`). A book with no row that reads is refused either way,
/// naming the first bad row.
pub fn parse_book_with(file: &str, text: &str, kind: BookKind, on_error: OnError) -> Result<Book> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut records = reader.records();
    let header = match records.next() {
        Some(record) => record.map_err(|e| csv_error(file, &e))?,
        None => {
            return Err(Error::InvalidInput(format!(
                "{file}:1: empty; expected a header line ({})",
                COLUMNS.map(|c| c.name).join(",")
            )))
        }
    };
    let header: Vec<String> = header.iter().map(str::to_string).collect();
    let layout = Layout::of(file, &header, kind)?;
    let mut book = Book {
        header,
        rows: Vec::new(),
        lines: Vec::new(),
        contracts: Vec::new(),
        quotes: Vec::new(),
        noted: Vec::new(),
        on_error,
    };
    // The reader's own line count skips blank lines: lines are counted here from the bytes.
    let (mut last_line, mut counted_to) = (1, 0);
    for record in records {
        let record = record.map_err(|e| csv_error(file, &e))?;
        // A record's position is where the reader began looking for it: before any blank
        // lines it skipped.
        let mut start = record.position().map_or(counted_to, |p| p.byte() as usize);
        while matches!(text.as_bytes().get(start), Some(b'\n' | b'\r')) {
            start += 1;
        }
        last_line += text.as_bytes()[counted_to..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64;
        counted_to = start;
        let line = last_line;
        if record.iter().all(str::is_empty) {
            continue;
        }
        let read = match record.len() == book.header.len() {
            true => layout.contract(&record),
            false => Err(format!(
                "{} fields, the header has {}",
                record.len(),
                book.header.len()
            )),
        };
        match read {
            Ok((contract, quote)) => {
                book.contracts.push(contract);
                book.quotes.extend(quote);
                book.lines.push(line);
            }
            Err(reason) if on_error == OnError::Note => book.noted.push(Noted {
                row: book.rows.len(),
                line,
                reason,
            }),
            Err(reason) => return Err(Error::InvalidInput(format!("{file}:{line}: {reason}"))),
        }
        book.rows.push(record);
    }
    if book.contracts.is_empty() {
        return Err(Error::InvalidInput(match book.noted.first() {
            Some(first) => format!(
                "{file}:{}: {}; no row of the book reads as an option",
                first.line, first.reason
            ),
            None => format!("{file}:{last_line}: no options, only the header line"),
        }));
    }
    Ok(book)
}

/// A CSV error (a field that is not UTF-8 from a reader of bytes, an I/O failure) as one line
/// naming the file and line.
fn csv_error(file: &str, error: &csv::Error) -> Error {
    let line = error.position().map_or(1, |p| p.line());
    let reason = match error.kind() {
        csv::ErrorKind::Utf8 { .. } => "a field is not UTF-8".to_string(),
        _ => error.to_string().replace('\n', " "),
    };
    Error::InvalidInput(format!("{file}:{line}: {reason}"))
}

/// Whether a header's column is the column `name`: ASCII case and surrounding spaces aside
/// (`Spot`, ` SPOT `), as a spreadsheet's headers are often written.
fn same_name(header: &str, name: &str) -> bool {
    header.trim().eq_ignore_ascii_case(name)
}

/// Where each known column sits in a book's header.
struct Layout {
    /// Per entry of [`COLUMNS`], its position (`None`: an optional column absent, or the
    /// volatility of a quotes book).
    positions: Vec<Option<usize>>,
    /// The `price` column of a quotes book.
    price: Option<usize>,
}

impl Layout {
    fn of(file: &str, header: &[String], kind: BookKind) -> Result<Layout> {
        let find = |name: &str, required: bool| -> Result<Option<usize>> {
            let positions: Vec<usize> = (0..header.len())
                .filter(|&i| same_name(&header[i], name))
                .collect();
            match positions[..] {
                [position] => Ok(Some(position)),
                [] if required => Err(Error::InvalidInput(format!("{file}:1: no column {name}"))),
                [] => Ok(None),
                _ => Err(Error::InvalidInput(format!(
                    "{file}:1: column {name} appears {} times",
                    positions.len()
                ))),
            }
        };
        let mut positions = Vec::with_capacity(COLUMNS.len());
        for column in &COLUMNS {
            // A quotes book's volatility is what is sought: a column of it is carried, unread.
            let sought = kind == BookKind::Quotes && column.name == "volatility";
            let position = find(column.name, column.required && !sought)?;
            positions.push(position.filter(|_| !sought));
        }
        let price = match kind {
            BookKind::Prices => None,
            BookKind::Quotes => find(PRICE, true)?,
        };
        Ok(Layout { positions, price })
    }

    /// The contract of one row (and its quoted price, in a quotes book), checked; or why
    /// not, which the caller puts after the row's file and line.
    fn contract(
        &self,
        fields: &csv::StringRecord,
    ) -> std::result::Result<(Contract, Option<f64>), String> {
        let bad =
            |name: &str, text: &str, why: &str| format!("column {name}: {} {why}", quoted(text));
        let mut contract = blank_contract();
        for (column, position) in COLUMNS.iter().zip(&self.positions) {
            let Some(text) = position.map(|p| &fields[p]) else {
                continue;
            };
            if column.required || !text.is_empty() {
                (column.set)(&mut contract, text).map_err(|why| bad(column.name, text, why))?;
            }
        }
        let quote = match self.price {
            None => None,
            Some(p) => {
                let text = &fields[p];
                match text.parse::<f64>() {
                    Ok(price) if price.is_finite() && price >= 0.0 => Some(price),
                    Ok(_) => return Err(bad(PRICE, text, "is not a finite number >= 0")),
                    Err(_) => return Err(bad(PRICE, text, "is not a number")),
                }
            }
        };
        if let Err(e) = contract.validate() {
            // In a quotes book the placeholder volatility may put p outside [0, 1]: the search
            // looks above the volatility where that happens, and says so if it finds nothing.
            let placeholder_only =
                self.price.is_some() && e.message().starts_with("the up probability");
            if !placeholder_only {
                return Err(e.message().to_string());
            }
        }
        Ok((contract, quote))
    }
}

impl Book {
    /// The options, in the book's order.
    pub fn contracts(&self) -> &[Contract] {
        &self.contracts
    }

    /// The quoted prices of a [`BookKind::Quotes`] book, one per option (empty otherwise).
    pub fn quotes(&self) -> &[f64] {
        &self.quotes
    }

    /// The line of the file each option starts on, in the book's order.
    pub fn lines(&self) -> &[u64] {
        &self.lines
    }

    /// The rows kept without an option ([`OnError::Note`]), in the book's order: each one's
    /// line and why it was not read.
    pub fn notes(&self) -> impl ExactSizeIterator<Item = (u64, &str)> {
        self.noted.iter().map(|n| (n.line, n.reason.as_str()))
    }

    /// What the reader did with a bad row.
    pub fn on_error(&self) -> OnError {
        self.on_error
    }

    /// How many options the book holds.
    pub fn len(&self) -> usize {
        self.contracts.len()
    }

    /// Whether the book holds no option (never, for a book that was read).
    pub fn is_empty(&self) -> bool {
        self.contracts.is_empty()
    }
}

#[cfg(test)]
mod tests;
