//! Issue 29: no input makes the book CSV reader panic. A few thousand mutations of the
//! shipped sample book go to the reader under an allocator that fails any single allocation
//! above 1 GiB; each read is a book or a one-line error naming the file.

use std::path::Path;

use thicket_lattice::{parse_book, read_book};
use thicket_testkit::{is_one_line, mutations};

fn book() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/book.csv")
}

#[test]
fn the_shipped_book_reads() {
    assert_eq!(read_book(&book()).unwrap().len(), 5);
}

#[test]
fn mutated_books_give_contracts_or_a_one_line_error() {
    let sample = std::fs::read(book()).unwrap();
    for input in mutations(&sample, 29, 4000) {
        if let Err(error) = parse_book("b.csv", &String::from_utf8_lossy(&input)) {
            let message = error.to_string();
            assert!(
                is_one_line(&message) && message.contains("b.csv:"),
                "{message:?}"
            );
        }
    }
}

/// Issue 29: values are printed as written or in short scientific form, tokens cut to 40
/// characters.
#[test]
fn huge_values_and_long_tokens_stay_short_in_messages() {
    let header = "payoff,style,spot,strike,maturity,volatility,rate,steps\n";
    let huge = format!("{header}lookback-put,american,1e308,,0.25,0.4,1e308,3\n");
    let message = parse_book("b.csv", &huge).unwrap_err().to_string();
    assert!(
        message.contains("b.csv:2: rate × maturity is 2.5e307"),
        "{message}"
    );
    assert!(message.len() < 200, "{message}");
    let spot = "x".repeat(100_000);
    let long = format!("{header}lookback-put,american,{spot},,0.25,0.4,0.1,3\n");
    let message = parse_book("b.csv", &long).unwrap_err().to_string();
    assert!(message.contains("b.csv:2: column spot:"), "{message}");
    assert!(message.len() < 200, "{message}");
}
