//! `thicket_graph::io::parse_bytes` as .wel on any bytes: a graph or a one-line error naming
//! the file, never a panic, and never an allocation a header merely promised.
#![no_main]

use libfuzzer_sys::fuzz_target;
use thicket_graph::io::{parse_bytes, Format};

fuzz_target!(|data: &[u8]| {
    if let Err(e) = parse_bytes("fuzz.wel", data, Format::WeightedEdgeList) {
        let message = e.to_string();
        assert!(!message.trim_end().contains('\n'), "{message}");
        assert!(message.contains("fuzz.wel"), "{message}");
    }
});
