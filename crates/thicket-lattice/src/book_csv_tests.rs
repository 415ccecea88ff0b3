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
    let book = read_book(&write(&dir, "book.csv", BOOK)).unwrap();
    let contracts = book.contracts();
    assert_eq!(contracts.len(), 4);
    assert_eq!(contracts[0], crate::verify::hull_tn13());
    assert_eq!(contracts[1].style, Style::European);
    assert_eq!(contracts[2].payoff, Payoff::Call { strike: 40.0 });
    assert_eq!(contracts[3].market.rate, -0.01);
    assert_eq!(book.lines(), [2, 3, 5, 6]);
    let priced = serial_book(contracts, Precision::F64, &thicket_core::Progress::hidden()).unwrap();
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
    let priced = serial_book(
        book.contracts(),
        Precision::F64,
        &thicket_core::Progress::hidden(),
    )
    .unwrap();
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
