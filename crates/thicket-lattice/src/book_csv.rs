//! Books of options as CSV: reading them (every bad value named by file, line and column) and
//! writing them back with their prices.

use std::fmt::Write as _;
use std::path::Path;

use thicket_core::{Error, Result};

use crate::contract::{Contract, Market, Payoff, Style};
use crate::scheme::Priced;

/// The optional input column: the continuous dividend yield (0 where absent).
const DIVIDEND_YIELD: &str = "dividend_yield";

/// The required input columns, in the order [`write_book_csv`] writes them (then
/// [`DIVIDEND_YIELD`]).
const COLUMNS: [&str; 8] = [
    "payoff",
    "style",
    "spot",
    "strike",
    "maturity",
    "volatility",
    "rate",
    "steps",
];

/// Reads a book of options from the file `path` (`-`: standard input) through
/// [`thicket_core::read_text`], as [`parse_book`] reads text; a missing or unreadable file is
/// [`Error::InvalidInput`] naming it.
pub fn read_book(path: &Path) -> Result<Vec<Contract>> {
    let text = thicket_core::read_text(path)?;
    parse_book(&thicket_core::input_name(path), &text)
}

/// Reads a book of options from `text`, named `file` in errors: a header line naming the columns `payoff`, `style`, `spot`,
/// `strike`, `maturity`, `volatility`, `rate` and `steps` (in any order, each once), and
/// optionally `dividend_yield` (default 0), then one option per line; blank lines are skipped. `payoff` is `lookback-put`, `lookback-call`,
/// `call` or `put`, `style` is `american` or `european`, and `strike` is empty for the
/// lookbacks. A bad value is [`Error::InvalidInput`] naming the file, line and column
/// (`book.csv:4: column volatility: "abc" is not a number`), an invalid contract names
/// the file and line, and a book of no options is an error too.
pub fn parse_book(file: &str, text: &str) -> Result<Vec<Contract>> {
    let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line));
    let Some((_, header)) = lines.next() else {
        return Err(Error::InvalidInput(format!(
            "{file}:1: empty; expected a header line ({})",
            COLUMNS.join(",")
        )));
    };
    let (order, dividend_column) = header_order(file, header)?;
    let width = header.split(',').count();
    let mut contracts = Vec::new();
    let mut last_line = 1;
    for (number, line) in lines {
        last_line = number;
        if line.trim().is_empty() {
            continue;
        }
        let row = Row {
            file,
            number,
            fields: line.split(',').map(str::trim).collect(),
            order: &order,
        };
        if row.fields.len() != width {
            return Err(Error::InvalidInput(format!(
                "{file}:{number}: {} fields, the header has {width}",
                row.fields.len(),
            )));
        }
        let mut contract = row.contract()?;
        if let Some(column) = dividend_column {
            let text = row.fields[column];
            contract.market.dividend_yield = if text.is_empty() {
                0.0
            } else {
                text.parse().map_err(|_| {
                    Error::InvalidInput(format!(
                        "{file}:{number}: column {DIVIDEND_YIELD}: {} is not a number",
                        thicket_core::quoted(text)
                    ))
                })?
            };
        }
        contract
            .validate()
            .map_err(|e| Error::InvalidInput(format!("{file}:{number}: {}", e.message())))?;
        contracts.push(contract);
    }
    if contracts.is_empty() {
        return Err(Error::InvalidInput(format!(
            "{file}:{last_line}: no options, only the header line"
        )));
    }
    Ok(contracts)
}

/// For each of [`COLUMNS`], its position in the header, and that of [`DIVIDEND_YIELD`] if
/// present.
fn header_order(file: &str, header: &str) -> Result<([usize; 8], Option<usize>)> {
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    if let Some(unknown) = names
        .iter()
        .find(|n| !COLUMNS.contains(n) && **n != DIVIDEND_YIELD)
    {
        return Err(Error::InvalidInput(format!(
            "{file}:1: column {} is not one of {}, {DIVIDEND_YIELD}",
            thicket_core::quoted(unknown),
            COLUMNS.join(", ")
        )));
    }
    let dividends: Vec<usize> = (0..names.len())
        .filter(|&i| names[i] == DIVIDEND_YIELD)
        .collect();
    if dividends.len() > 1 {
        return Err(Error::InvalidInput(format!(
            "{file}:1: column {DIVIDEND_YIELD} appears {} times",
            dividends.len()
        )));
    }
    let mut order = [0; 8];
    for (slot, column) in order.iter_mut().zip(COLUMNS) {
        let positions: Vec<usize> = (0..names.len()).filter(|&i| names[i] == column).collect();
        match positions[..] {
            [position] => *slot = position,
            [] => return Err(Error::InvalidInput(format!("{file}:1: no column {column}"))),
            _ => {
                return Err(Error::InvalidInput(format!(
                    "{file}:1: column {column} appears {} times",
                    positions.len()
                )))
            }
        }
    }
    Ok((order, dividends.first().copied()))
}

struct Row<'a> {
    file: &'a str,
    number: usize,
    fields: Vec<&'a str>,
    order: &'a [usize; 8],
}

impl Row<'_> {
    fn field(&self, column: usize) -> &str {
        self.fields[self.order[column]]
    }

    fn bad(&self, column: usize, why: &str) -> Error {
        Error::InvalidInput(format!(
            "{}:{}: column {}: {} {why}",
            self.file,
            self.number,
            COLUMNS[column],
            thicket_core::quoted(self.field(column))
        ))
    }

    fn number(&self, column: usize) -> Result<f64> {
        self.field(column)
            .parse()
            .map_err(|_| self.bad(column, "is not a number"))
    }

    fn contract(&self) -> Result<Contract> {
        let strike = || self.number(3);
        let has_strike = !self.field(3).is_empty();
        let payoff = match self.field(0) {
            "lookback-put" | "lookback-call" if has_strike => {
                return Err(self.bad(3, "must be empty for a floating-strike lookback"))
            }
            "lookback-put" => Payoff::LookbackPut,
            "lookback-call" => Payoff::LookbackCall,
            "call" => Payoff::Call { strike: strike()? },
            "put" => Payoff::Put { strike: strike()? },
            _ => return Err(self.bad(0, "is not lookback-put, lookback-call, call or put")),
        };
        let style = match self.field(1) {
            "american" => Style::American,
            "european" => Style::European,
            _ => return Err(self.bad(1, "is not american or european")),
        };
        Ok(Contract {
            payoff,
            style,
            market: Market {
                spot: self.number(2)?,
                maturity: self.number(4)?,
                volatility: self.number(5)?,
                rate: self.number(6)?,
                dividend_yield: 0.0,
            },
            steps: self
                .field(7)
                .parse()
                .map_err(|_| self.bad(7, "is not a whole number"))?,
        })
    }
}

/// The book with its prices as CSV: the input columns of [`read_book`] (so the output reads
/// back as a book) and `dividend_yield`, followed by `price`, `delta`, `gamma`, `theta`, `vega` and `rho` (the last two empty where not computed), one line per pair of `contracts`
/// and `priced` (which the caller passes in the same order and of the same length). Numbers
/// are written in the shortest form that reads back to the same `f64`.
pub fn write_book_csv(contracts: &[Contract], priced: &[Priced]) -> String {
    let mut out = format!(
        "{},{DIVIDEND_YIELD},price,delta,gamma,theta,vega,rho\n",
        COLUMNS.join(",")
    );
    for (c, p) in contracts.iter().zip(priced) {
        let strike = c.payoff.strike().map(|k| k.to_string()).unwrap_or_default();
        let m = &c.market;
        // Vega and rho are empty where they were not computed.
        let optional = |x: Option<f64>| x.map(|x| x.to_string()).unwrap_or_default();
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "{},{},{},{strike},{},{},{},{},{},{},{},{},{},{},{}",
            c.payoff.name(),
            c.style.name(),
            m.spot,
            m.maturity,
            m.volatility,
            m.rate,
            c.steps,
            m.dividend_yield,
            p.price,
            p.delta,
            p.gamma,
            p.theta,
            optional(p.vega),
            optional(p.rho)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::books::serial_book;
    use crate::scheme::Precision;

    const BOOK: &str = "\
payoff,style,spot,strike,maturity,volatility,rate,steps
lookback-put,american,50,,0.25,0.4,0.1,3
lookback-call, european ,50,,0.35,0.3,0.1,100

call,american,42,40,0.5,0.2,0.1,200
put,european,42,45,0.5,0.2,-0.01,201
";

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn error(text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        match read_book(&write(&dir, "book.csv", text)) {
            Err(Error::InvalidInput(m)) => m,
            other => panic!("expected invalid input, got {other:?}"),
        }
    }

    #[test]
    fn a_book_reads_prices_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let contracts = read_book(&write(&dir, "book.csv", BOOK)).unwrap();
        assert_eq!(contracts.len(), 4);
        assert_eq!(contracts[0], crate::verify::hull_tn13());
        assert_eq!(contracts[1].style, Style::European);
        assert_eq!(contracts[2].payoff, Payoff::Call { strike: 40.0 });
        assert_eq!(contracts[3].market.rate, -0.01);
        let priced = serial_book(
            &contracts,
            Precision::F64,
            &thicket_core::Progress::hidden(),
        )
        .unwrap();
        let out = write_book_csv(&contracts, &priced);
        assert!(out.starts_with(
            "payoff,style,spot,strike,maturity,volatility,rate,steps,dividend_yield,price,delta,\
             gamma,theta,vega,rho\n\
             lookback-put,american,50,,0.25,0.4,0.1,3,0,5.47018137613"
        ));
        assert_eq!(out.lines().count(), 5);
        // The output is a book too (the extra columns removed).
        let back: String = out
            .lines()
            .map(|line| line.rsplitn(7, ',').last().unwrap().to_string() + "\n")
            .collect();
        assert_eq!(
            read_book(&write(&dir, "back.csv", &back)).unwrap(),
            contracts
        );
    }

    #[test]
    fn a_dividend_yield_column_is_optional_and_defaults_to_zero() {
        let text = "payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps\n\
                    call,american,42,40,0.5,0.2,0.1,0.03,200\n\
                    put,european,42,45,0.5,0.2,0.1,,201\n";
        let dir = tempfile::tempdir().unwrap();
        let contracts = read_book(&write(&dir, "q.csv", text)).unwrap();
        assert_eq!(contracts[0].market.dividend_yield, 0.03);
        assert_eq!(contracts[1].market.dividend_yield, 0.0);
        let bad = error(
            "payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps\n\
             call,american,42,40,0.5,0.2,0.1,abc,200\n",
        );
        assert!(
            bad.contains(":2: column dividend_yield: \"abc\" is not a number"),
            "{bad}"
        );
    }

    #[test]
    fn columns_may_come_in_any_order() {
        let text = "steps,rate,volatility,maturity,strike,spot,style,payoff\n3,0.1,0.4,0.25,,50,american,lookback-put\n";
        let dir = tempfile::tempdir().unwrap();
        let contracts = read_book(&write(&dir, "b.csv", text)).unwrap();
        assert_eq!(contracts, vec![crate::verify::hull_tn13()]);
    }

    #[test]
    fn a_bad_value_names_file_line_and_column() {
        let bad = BOOK.replace(
            "call,american,42,40,0.5,0.2,",
            "call,american,42,40,0.5,abc,",
        );
        let m = error(&bad);
        assert!(
            m.ends_with("book.csv:5: column volatility: \"abc\" is not a number"),
            "{m}"
        );
        let cases = [
            (
                "lookback-put,american,50,,0.25,0.4,0.1,3",
                "lookback,american,50,,0.25,0.4,0.1,3",
                ":2: column payoff: \"lookback\" is not",
            ),
            (
                "lookback-put,american,50,,0.25,0.4,0.1,3",
                "lookback-put,bermudan,50,,0.25,0.4,0.1,3",
                ":2: column style: \"bermudan\"",
            ),
            (
                "lookback-put,american,50,,0.25,0.4,0.1,3",
                "lookback-put,american,50,,0.25,0.4,0.1,3.5",
                ":2: column steps: \"3.5\" is not a whole number",
            ),
            (
                "lookback-put,american,50,,0.25,0.4,0.1,3",
                "lookback-put,american,50,48,0.25,0.4,0.1,3",
                ":2: column strike: \"48\" must be empty",
            ),
            (
                "call,american,42,40,",
                "call,american,42,,",
                ":5: column strike: \"\" is not a number",
            ),
            (
                "put,european,42,45,",
                "put,european,x42,45,",
                ":6: column spot: \"x42\"",
            ),
            (
                "lookback-put,american,50,,0.25,0.4,0.1,3",
                "lookback-put,american,50,,0.25,0.4,0.1",
                ":2: 7 fields, the header has 8",
            ),
            (
                "lookback-put,american,50,,0.25,0.4,0.1,3",
                "lookback-put,american,50,,0.25,0.4,0.1,0",
                ":2: steps is 0",
            ),
            (
                "put,european,42,45,0.5,0.2",
                "put,european,42,45,0.5,-0.2",
                ":6: volatility is -0.2",
            ),
            (
                "steps\n",
                "steps,colour\n",
                ":1: column \"colour\" is not one of",
            ),
            ("rate,steps\n", "rate\n", ":1: no column steps"),
        ];
        for (from, to, want) in cases {
            let text = BOOK.replace(from, to);
            assert_ne!(text, BOOK, "{from}");
            let m = error(&text);
            assert!(
                m.contains(&format!("book.csv{want}")),
                "{m:?} should contain {want:?}"
            );
            assert!(!m.contains('\n'));
        }
        assert!(error("").contains("book.csv:1: empty"));
        assert!(
            error("payoff,style,spot,strike,maturity,volatility,rate,steps,rate\n")
                .contains("column rate appears 2 times")
        );
    }

    #[test]
    fn a_missing_file_is_bad_input_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_book(&dir.path().join("nowhere.csv")).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)));
        assert!(err.to_string().contains("nowhere.csv"), "{err}");
    }
}
