//! `thicket_graph::io::parse_bytes` as .wsg on any bytes: a graph or a one-line error naming
//! the file, never a panic, and never an allocation a header merely promised.
#![no_main]

use libfuzzer_sys::fuzz_target;
use thicket_graph::io::{parse_bytes, Format};

/// A file may declare as many vertices as the machine holds, which is more than a fuzzing
/// process may take: any single allocation above 256 MiB fails, as a graph past the machine
/// would, and the reader must turn that into an error.
#[global_allocator]
static ALLOCATOR: thicket_testkit::CappedAllocator =
    thicket_testkit::CappedAllocator::new(256 << 20);

fuzz_target!(|data: &[u8]| {
    if let Err(e) = parse_bytes("fuzz.wsg", data, Format::WeightedSerialized) {
        let message = e.to_string();
        assert!(!message.trim_end().contains('\n'), "{message}");
        assert!(message.contains("fuzz.wsg"), "{message}");
    }
});
