//! Micro-benchmarks of the CPU counters on one thread: thicket's constellation search against
//! the mirror-symmetric reference backtracker, both on the crate's public API. `thicket bench
//! queens` times whole runs.

use criterion::{criterion_group, criterion_main, Criterion};
use thicket_core::Progress;
use thicket_queens::{count_cpu, count_mirror};

fn counters(c: &mut Criterion) {
    let mut group = c.benchmark_group("queens-12");
    group.bench_function("constellations, 1 thread", |b| {
        b.iter(|| count_cpu(12, 1, &Progress::hidden()).expect("n = 12 is valid"))
    });
    group.bench_function("baseline mirror", |b| b.iter(|| count_mirror(12)));
    group.finish();
}

criterion_group!(benches, counters);
criterion_main!(benches);
