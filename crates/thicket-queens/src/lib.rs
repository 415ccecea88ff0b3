//! N-Queens counting. The CPU solver counts the inner boards of canonical border
//! constellations under the full 8-fold board symmetry, by joining half-board placements
//! (`join`) or by the most-constrained-line search (`lines`); the baseline and the
//! brute-force verifier are independent references. [`strategies`] reproduces the GPU kernels of three
//! papers for comparison. [`count`] is the front door: it picks the backend and the kernel,
//! and runs long counts in batches through the run layer ([`Batches`]).

pub mod baseline;
pub mod bench;
#[cfg(test)]
mod brute;
mod constellation;
mod count;
mod cpu;
mod gpu;
mod join;
pub mod kernels;
mod ledgered;
mod lines;
pub mod reference;
mod rotations;
mod run;
mod search;
pub mod solutions;
pub mod strategies;
mod symmetry;

pub use count::{validate_n, QueensCount};
pub use cpu::count_cpu;
pub use ledgered::{counts_from_total, Batches};
pub use run::{count, measured, Batching, CountOptions, Counted, QueensRun};

#[cfg(test)]
mod tests {
    use super::*;
    use thicket_core::Progress;

    fn check(n: usize, threads: usize) {
        let count = count_cpu(n, threads, &Progress::hidden()).unwrap();
        let (total, unique) = reference::known_counts(n).unwrap();
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
                brute::brute_force_counts(n),
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
