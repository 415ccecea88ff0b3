//! Issue 29: no ledger file makes opening it panic. A ledger with a few batches is made
//! through [`Ledger`], then its bytes are mutated (truncated, spliced, flipped, numbers
//! inflated) over a thousand times; each mutation, opened read-only with
//! [`Ledger::open_existing`] (and its batches read) and for a run with
//! [`Ledger::open_or_create`], gives `Ok` or a one-line error, under an allocator that fails
//! any single allocation above 1 GiB.

use std::path::Path;

use thicket_run::ledger::LedgerSpec;
use thicket_run::{BatchRecord, Ledger};
use thicket_testkit::{is_one_line, mutations, CappedAllocator};

#[global_allocator]
static ALLOCATOR: CappedAllocator = CappedAllocator::GIB;

fn spec() -> LedgerSpec {
    LedgerSpec {
        problem: "queens n=8 split=test".into(),
        batches: 6,
        shard: (0, 1),
        input: Some("instance text".into()),
    }
}

/// The bytes of a ledger holding batches 0, 2 and 5 of six.
fn sample_ledger(dir: &Path) -> Vec<u8> {
    let path = dir.join("sample.ledger");
    {
        let ledger = Ledger::open_or_create(&path, &spec()).unwrap();
        for id in [0, 2, 5] {
            let record = BatchRecord::new(id, 92 + u128::from(id), "cpu", "test", 0.5)
                .with_detail(Some(format!("batch {id}")));
            ledger.record(&record).unwrap();
        }
    }
    std::fs::read(&path).unwrap()
}

/// Writes `bytes` as a fresh ledger file (no journal beside it) at `path`.
fn place(path: &Path, bytes: &[u8]) {
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        let _ = std::fs::remove_file(side);
    }
    std::fs::write(path, bytes).unwrap();
}

fn assert_one_line<T>(result: thicket_core::Result<T>, mutation: usize) {
    if let Err(error) = result {
        let message = error.to_string();
        assert!(is_one_line(&message), "mutation {mutation}: {message:?}");
    }
}

#[test]
fn mutated_ledgers_open_or_give_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let sample = sample_ledger(dir.path());
    assert!(!sample.is_empty());
    let path = dir.path().join("mutated.ledger");
    for (k, input) in mutations(&sample, 29, 1500).enumerate() {
        place(&path, &input);
        match Ledger::open_existing(&path) {
            Ok(ledger) => {
                assert_one_line(ledger.batches(), k);
                assert_one_line(ledger.checked_total(), k);
                assert_one_line(ledger.finished(), k);
            }
            Err(error) => assert!(is_one_line(&error.to_string()), "{k}: {error}"),
        }
        place(&path, &input);
        assert_one_line(Ledger::open_or_create(&path, &spec()), k);
    }
}
