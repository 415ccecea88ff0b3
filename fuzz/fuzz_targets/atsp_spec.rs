//! The atsp `--generate` spec parser on any text, and small instances generated: an
//! instance or a one-line error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match thicket_atsp::parse_generator_spec(&text) {
        // Floyd–Warshall makes tsmat cubic: only small instances are generated.
        Ok(spec) if spec.n <= 60 => {
            if let Err(error) = spec.generate() {
                assert!(!error.to_string().contains('\n'), "{error}");
            }
        }
        Ok(_) => {}
        Err(error) => assert!(!error.to_string().contains('\n'), "{error}"),
    }
});
