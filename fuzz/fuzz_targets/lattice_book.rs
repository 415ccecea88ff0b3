//! The book CSV reader on any text: contracts or a one-line error naming the file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(error) = thicket_lattice::parse_book("fuzz.csv", &text) {
        let message = error.to_string();
        assert!(!message.trim_end().contains('\n'), "{message}");
        assert!(message.contains("fuzz.csv"), "{message}");
    }
});
