use super::*;
use crate::test_support::serial_all;

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
    let book = read_book(&write(&dir, "book.csv", BOOK)).unwrap();
    let contracts = book.contracts();
    assert_eq!(contracts.len(), 4);
    assert_eq!(contracts[0], crate::verify::hull_tn13());
    assert_eq!(contracts[1].style, Style::European);
    assert_eq!(contracts[2].payoff, Payoff::Call { strike: 40.0 });
    assert_eq!(contracts[3].market.rate, -0.01);
    assert_eq!(book.lines(), [2, 3, 5, 6]);
    let priced = serial_all(contracts);
    let out = book.priced_csv(&priced);
    assert!(
        out.starts_with(
            "payoff,style,spot,strike,maturity,volatility,rate,steps,price,delta,gamma,theta,\
             vega,rho\n\
             lookback-put,american,50,,0.25,0.4,0.1,3,5.47018137613"
        ),
        "{out}"
    );
    assert_eq!(out.lines().count(), 5);
    // The output is a book too, and pricing it again overwrites its results in place.
    let back = parse_book("back.csv", &out).unwrap();
    assert_eq!(back.contracts(), contracts);
    assert_eq!(back.priced_csv(&priced), out);
}

#[test]
fn extra_columns_are_carried_in_their_order_and_quoted_fields_read() {
    let text = "id,payoff,style,spot,strike,maturity,volatility,rate,steps,desk\n\
                A-1,call,american,42,40,0.5,0.2,0.1,200,\"rates, London\"\n\
                \"B \"\"2\"\"\",put,european,42,45,0.5,0.2,0.1,201,\n";
    let book = parse_book("desk.csv", text).unwrap();
    assert_eq!(book.len(), 2);
    let priced = serial_all(book.contracts());
    let out = book.priced_csv(&priced);
    let mut rows = csv::Reader::from_reader(out.as_bytes());
    let header: Vec<String> = rows.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header,
        [
            "id",
            "payoff",
            "style",
            "spot",
            "strike",
            "maturity",
            "volatility",
            "rate",
            "steps",
            "desk",
            "price",
            "delta",
            "gamma",
            "theta",
            "vega",
            "rho"
        ]
    );
    let records: Vec<csv::StringRecord> = rows.records().map(|r| r.unwrap()).collect();
    assert_eq!(&records[0][0], "A-1");
    assert_eq!(&records[0][9], "rates, London");
    assert_eq!(&records[1][0], "B \"2\"");
    assert_eq!(&records[1][9], "");
    assert_eq!(records[1][10].parse::<f64>().unwrap(), priced[1].price);
}

#[test]
fn a_dividend_yield_column_is_optional_and_defaults_to_zero() {
    let text = "payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps\n\
                call,american,42,40,0.5,0.2,0.1,0.03,200\n\
                put,european,42,45,0.5,0.2,0.1,,201\n";
    let dir = tempfile::tempdir().unwrap();
    let book = read_book(&write(&dir, "q.csv", text)).unwrap();
    assert_eq!(book.contracts()[0].market.dividend_yield, 0.03);
    assert_eq!(book.contracts()[1].market.dividend_yield, 0.0);
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
    let book = read_book(&write(&dir, "b.csv", text)).unwrap();
    assert_eq!(book.contracts(), [crate::verify::hull_tn13()]);
}

#[test]
fn a_quotes_book_needs_a_price_and_no_volatility() {
    let text = "id,payoff,style,spot,strike,maturity,rate,steps,price\n\
                7,put,american,50,60,1,0.05,50,11.5\n";
    let book = parse_book_of("q.csv", text, BookKind::Quotes).unwrap();
    assert_eq!(book.quotes(), [11.5]);
    let implied = [
        Ok(0.25),
        Err(Error::InvalidInput("price 1 is below".into())),
    ];
    let out = book.implied_csv(&implied[..1]);
    assert_eq!(
        out,
        "id,payoff,style,spot,strike,maturity,rate,steps,price,volatility,note\n\
         7,put,american,50,60,1,0.05,50,11.5,0.25,\n"
    );
    let no_price = parse_book_of("q.csv", &text.replace(",price", ",quote"), BookKind::Quotes);
    assert!(no_price
        .unwrap_err()
        .to_string()
        .contains("q.csv:1: no column price"));
    let negative = parse_book_of("q.csv", &text.replace("11.5", "-1"), BookKind::Quotes);
    assert!(negative
        .unwrap_err()
        .to_string()
        .contains("q.csv:2: column price: \"-1\" is not a finite number >= 0"));
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

/// Issue 49: headers in any ASCII case, with spaces around them, name the same columns; the
/// output keeps the book's spelling and overwrites a `Price` column in place.
#[test]
fn headers_are_matched_ignoring_case_and_spaces() {
    let lower = parse_book("a.csv", BOOK).unwrap();
    let shouted = BOOK.replacen(
        "payoff,style,spot,strike,maturity,volatility,rate,steps",
        "Payoff, STYLE ,Spot,Strike,MATURITY,Volatility,Rate,Steps",
        1,
    );
    let book = parse_book("b.csv", &shouted).unwrap();
    assert_eq!(book.contracts(), lower.contracts());
    let priced = serial_all(book.contracts());
    let out = book.priced_csv(&priced);
    assert!(out.starts_with("Payoff,STYLE,Spot,Strike,"), "{out}");
    let again = parse_book("c.csv", &out.replacen(",price,", ",PRICE,", 1)).unwrap();
    assert_eq!(
        again.priced_csv(&priced),
        out.replacen(",price,", ",PRICE,", 1)
    );
    // Two spellings of one column are the same column twice.
    let twice = BOOK.replacen("steps", "steps,STEPS", 1);
    assert!(parse_book("d.csv", &twice)
        .unwrap_err()
        .to_string()
        .contains("d.csv:1: column steps appears 2 times"));
}

/// Issue 49: with `OnError::Note` a bad row is kept with empty results and a note, the rest
/// read; the options are those of the good rows, as a book of them alone reads.
#[test]
fn a_noted_row_is_carried_with_its_reason_and_the_rest_priced() {
    let bad = BOOK
        .replacen("0.35,0.3,0.1,100", "0.35,abc,0.1,100", 1)
        .replacen("42,45,0.5,0.2,-0.01,201", "42,45,0.5,-0.2,-0.01,201", 1);
    assert!(parse_book("b.csv", &bad)
        .unwrap_err()
        .to_string()
        .contains("b.csv:3: column volatility: \"abc\" is not a number"));
    let book = parse_book_with("b.csv", &bad, BookKind::Prices, OnError::Note).unwrap();
    let good: String = BOOK
        .lines()
        .enumerate()
        .filter(|(i, _)| [0, 1, 4].contains(i))
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    assert_eq!(
        book.contracts(),
        parse_book("g.csv", &good).unwrap().contracts()
    );
    assert_eq!(book.lines(), [2, 5]);
    let notes: Vec<(u64, &str)> = book.notes().collect();
    assert_eq!(notes[0], (3, "column volatility: \"abc\" is not a number"));
    assert_eq!(notes[1].0, 6);
    assert!(notes[1].1.starts_with("volatility is -0.2"), "{notes:?}");
    let priced = serial_all(book.contracts());
    let out = book.priced_csv(&priced);
    let rows: Vec<&str> = out.lines().collect();
    assert!(
        rows[0].ends_with(",price,delta,gamma,theta,vega,rho,note"),
        "{out}"
    );
    assert!(rows[1].starts_with("lookback-put,american,50,,0.25,0.4,0.1,3,5.47018137613"));
    assert!(rows[1].ends_with(",,,"), "{out}");
    assert_eq!(
        rows[2],
        "lookback-call,european,50,,0.35,abc,0.1,100,,,,,,,\
         \"line 3: column volatility: \"\"abc\"\" is not a number\""
    );
    assert!(
        rows[4].contains(",,,,,,,line 6: volatility is -0.2"),
        "{out}"
    );
    // A book whose every row is bad prices nothing: refused, naming the first.
    let header = BOOK.lines().next().unwrap();
    let none = format!("{header}\nput,american,1,1,1,x,0,10\n");
    assert!(
        parse_book_with("n.csv", &none, BookKind::Prices, OnError::Note)
            .unwrap_err()
            .to_string()
            .contains("n.csv:2: column volatility: \"x\" is not a number; no row")
    );
}

/// Issue 49: the book's JSON carries every column as read beside the results, a noted row
/// with null results and its note.
#[test]
fn the_json_book_carries_every_column() {
    let text = "id,payoff,style,spot,strike,maturity,volatility,rate,steps,desk\n\
                007,call,american,42,40,0.5,0.2,0.1,200,\"rates, London\"\n\
                008,put,european,42,45,0.5,oops,0.1,201,vol\n";
    let book = parse_book_with("j.csv", text, BookKind::Prices, OnError::Note).unwrap();
    let priced = serial_all(book.contracts());
    let json = book.priced_json(&priced);
    let rows = json.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["id"], "007");
    assert_eq!(rows[0]["desk"], "rates, London");
    assert_eq!(rows[0]["strike"], "40");
    assert_eq!(rows[0]["price"], priced[0].price);
    assert_eq!(rows[0]["theta"], priced[0].theta);
    assert_eq!(rows[0]["vega"], serde_json::Value::Null);
    assert_eq!(rows[0]["note"], serde_json::Value::Null);
    assert_eq!(rows[1]["id"], "008");
    assert_eq!(rows[1]["volatility"], "oops");
    assert_eq!(rows[1]["price"], serde_json::Value::Null);
    assert_eq!(
        rows[1]["note"],
        "line 3: column volatility: \"oops\" is not a number"
    );
    // Without notes, no note key.
    let plain = parse_book("p.csv", &text.replace("oops", "0.2")).unwrap();
    let priced = serial_all(plain.contracts());
    let json = plain.priced_json(&priced);
    assert!(json[1].get("note").is_none());
    assert_eq!(json[1]["price"], priced[1].price);
}
