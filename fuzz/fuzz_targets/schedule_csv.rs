//! The CSV ETC reader on any text: a matrix whose times sum to a finite number, or a one-line
//! error naming the file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match thicket_schedule::Etc::parse_csv_named("fuzz.csv", &text) {
        Ok(etc) => assert!(etc.times().iter().sum::<f64>().is_finite()),
        Err(error) => {
            let message = error.to_string();
            assert!(!message.trim_end().contains('\n'), "{message}");
            assert!(message.contains("fuzz.csv:"), "{message}");
        }
    }
});
