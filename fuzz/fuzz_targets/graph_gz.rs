//! `thicket_graph::io::parse_bytes` on gzip streams: any bytes behind the gzip magic (a
//! corrupt or truncated stream, a bomb past the allocation cap), and any edge list compressed
//! whole; a graph or a one-line error naming the file, never a panic or an abort.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use thicket_graph::io::{parse_bytes, Format};

/// As in the other graph targets: any single allocation above 256 MiB fails, and the reader
/// must turn that into an error.
#[global_allocator]
static ALLOCATOR: thicket_testkit::CappedAllocator =
    thicket_testkit::CappedAllocator::new(256 << 20);

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let stream = if mode % 2 == 0 {
        [&[0x1f, 0x8b][..], rest].concat()
    } else {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(rest).expect("in memory");
        encoder.finish().expect("in memory")
    };
    if let Err(e) = parse_bytes("fuzz.el.gz", &stream, Format::EdgeList) {
        let message = e.to_string();
        assert!(!message.trim_end().contains('\n'), "{message}");
        assert!(message.contains("fuzz.el.gz"), "{message}");
    }
});
