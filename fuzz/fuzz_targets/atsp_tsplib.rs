//! The TSPLIB reader on any text: an instance or a one-line error naming the line.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(error) = thicket_atsp::parse_tsplib(&text) {
        let message = error.to_string();
        assert!(!message.trim_end().contains('\n'), "{message}");
        assert!(message.contains("TSPLIB:"), "{message}");
    }
});
