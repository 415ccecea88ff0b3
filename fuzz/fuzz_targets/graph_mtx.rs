//! `thicket_graph::io::parse_bytes` as .mtx on any bytes: a graph or a one-line error naming
//! the file, never a panic, and never an allocation a header merely promised.
#![no_main]

use libfuzzer_sys::fuzz_target;
use thicket_graph::io::{parse_bytes, Format};

fuzz_target!(|data: &[u8]| {
    if let Err(e) = parse_bytes("fuzz.mtx", data, Format::MatrixMarket) {
        let message = e.to_string();
        assert!(!message.trim_end().contains('\n'), "{message}");
        assert!(message.contains("fuzz.mtx"), "{message}");
    }
});
