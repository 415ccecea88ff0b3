//! A ledger file of any bytes, opened read-only (its batches read) and for a run: `Ok` or a
//! one-line error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use thicket_run::ledger::LedgerSpec;
use thicket_run::Ledger;

fn one_line<T>(result: thicket_core::Result<T>) {
    if let Err(error) = result {
        let message = error.to_string();
        assert!(!message.trim_end().contains('\n'), "{message}");
    }
}

fuzz_target!(|data: &[u8]| {
    let dir = tempfile_dir();
    let path = dir.join("fuzz.ledger");
    for suffix in ["-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(dir.join(format!("fuzz.ledger{suffix}")));
    }
    std::fs::write(&path, data).expect("the input is written");
    match Ledger::open_existing(&path) {
        Ok(ledger) => {
            one_line(ledger.batches());
            one_line(ledger.checked_total());
        }
        Err(error) => assert!(!error.to_string().contains('\n'), "{error}"),
    }
    std::fs::write(&path, data).expect("the input is written");
    let spec = LedgerSpec {
        problem: "queens n=8 split=fuzz".into(),
        batches: 6,
        shard: (0, 1),
        input: None,
    };
    one_line(Ledger::open_or_create(&path, &spec));
});

/// This process's folder for its input file.
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("thicket-fuzz-ledger-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}
