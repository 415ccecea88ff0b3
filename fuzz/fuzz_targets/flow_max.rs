//! The DIMACS `.max` reader on any text: a network or a one-line error naming the file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(error) = thicket_flow::dimacs::parse("fuzz.max", &text) {
        let message = error.to_string();
        assert!(!message.trim_end().contains('\n'), "{message}");
        assert!(message.contains("fuzz.max:"), "{message}");
    }
});
