//! `thicket_core::read_text` on any bytes: never a panic, and the text keeps every line.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("thicket-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("input.txt");
    std::fs::write(&path, data).expect("the input is written");
    let text = thicket_core::read_text(&path).expect("a readable file is read");
    let newlines = data.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(text.matches('\n').count(), newlines);
});
