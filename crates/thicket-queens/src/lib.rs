//! N-Queens counting: all solutions of `n` queens (OEIS A000170) and the solutions distinct
//! under rotations and reflections (A002562), on CPU threads or GPUs.
//!
//! The CPU counter counts the inner boards of canonical border constellations under the full
//! 8-fold board symmetry, by joining half-board placements or by a most-constrained-line
//! search; the GPU kernel searches the same constellations row by row, split into tasks over
//! one or several GPUs. [`count`] is the front door: it picks the backend (`auto` falls back
//! to the CPU, with a note in the run report), the kernel (thicket's constellation kernel or
//! one of three papers' GPU kernels, [`Strategy`]), and runs long counts in resumable batches
//! through the run layer ([`Batching`], [`Batches`]). [`verify`] checks a count against OEIS.
//!
//! ```
//! use thicket_core::{Backend, RunOptions};
//! use thicket_queens::{count, CountOptions, Counted};
//!
//! let options = CountOptions {
//!     run: RunOptions { backend: Backend::Cpu, quiet: true, ..RunOptions::default() },
//!     ..CountOptions::default()
//! };
//! let Counted::Whole(measured) = count(8, &options)? else { unreachable!("not batched") };
//! assert_eq!((measured.output.count.total, measured.output.count.unique), (92, 12));
//! assert!(thicket_queens::verify(&measured.output.count)?);
//! # Ok::<(), thicket_core::Error>(())
//! ```

mod columns;
mod constellation;
mod count;
mod cpu;
mod gpu;
mod jobs;
mod join;
pub mod kernels;
mod ledgered;
mod lines;
mod report;
mod rotations;
mod run;
mod search;
mod solutions;
mod strategy;
mod symmetry;
mod verify;

pub use count::QueensCount;
pub use cpu::count_cpu;
pub use gpu::queens::{GpuCount, Queue};
pub use ledgered::{counts_from_total, Batches};
pub use report::{Counted, QueensRun};
pub use run::{count, measured};
pub use solutions::{draw_board, first_solutions, format_solution};
pub use strategy::{CountOptions, Params, Strategy, StrategyRun};
pub use thicket_run::Batching;
pub use verify::{count_mirror, known_counts, verify};

#[cfg(test)]
mod tests {
    use super::*;
    use thicket_core::Progress;

    fn check(n: usize, threads: usize) {
        let count = count_cpu(n, threads, &Progress::hidden()).unwrap();
        let (total, unique) = known_counts(n).unwrap();
        assert_eq!((count.total, count.unique), (total, unique), "n={n}");
    }

    #[test]
    fn cpu_counts_match_oeis_up_to_15() {
        for n in 1..=15 {
            check(n, 2);
        }
    }

    #[test]
    fn cpu_counts_match_brute_force() {
        for n in 1..=10 {
            let count = count_cpu(n, 1, &Progress::hidden()).unwrap();
            assert_eq!(
                (count.total, count.unique),
                verify::brute_force_counts(n),
                "n={n}"
            );
        }
    }

    #[test]
    fn thread_count_does_not_change_the_result() {
        let one = count_cpu(13, 1, &Progress::hidden()).unwrap();
        for threads in [2, 3, 7] {
            assert_eq!(count_cpu(13, threads, &Progress::hidden()).unwrap(), one);
        }
    }

    #[test]
    fn out_of_range_sizes_are_refused() {
        assert!(count_cpu(0, 1, &Progress::hidden()).is_err());
        assert!(count_cpu(33, 1, &Progress::hidden()).is_err());
        assert!(count_cpu(8, 0, &Progress::hidden()).is_err());
    }

    #[test]
    #[ignore = "slow in debug builds: run with --release --ignored"]
    fn cpu_counts_match_oeis_16_and_17() {
        check(16, 2);
        check(17, 2);
    }
}
