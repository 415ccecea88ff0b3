//! The schedule `--generate` spec parser on any text, and small shapes generated: a matrix
//! or a one-line error, never a panic or an allocation a spec only asked for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use thicket_schedule::Generator;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match text.parse::<Generator>() {
        Ok(generator) => {
            let (Generator::Thesis { tasks, machines }
            | Generator::Braun {
                tasks, machines, ..
            }) = generator;
            if tasks.saturating_mul(machines) <= 1 << 16 {
                if let Err(error) = generator.generate(1) {
                    assert!(!error.to_string().contains('\n'), "{error}");
                }
            }
        }
        Err(error) => assert!(!error.to_string().contains('\n'), "{error}"),
    }
});
