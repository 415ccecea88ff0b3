//! The maxflow `--generate` spec parser on any text, and small specs generated: a network or
//! a one-line error, never a panic or an allocation a spec only asked for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use thicket_flow::generate::{Family, Spec};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match text.parse::<Spec>() {
        Ok(spec) => {
            let small = match spec.family {
                Family::Genrmf { a, b, .. } => u64::from(a) * u64::from(a) * u64::from(b) <= 4096,
                Family::Rlg { rows, cols, .. } => u64::from(rows) * u64::from(cols) <= 4096,
                Family::Random {
                    vertices, degree, ..
                } => u64::from(vertices) * u64::from(degree) <= 4096,
            };
            if small {
                if let Err(error) = spec.generate() {
                    assert!(!error.to_string().contains('\n'), "{error}");
                }
            }
        }
        Err(error) => assert!(!error.to_string().contains('\n'), "{error}"),
    }
});
