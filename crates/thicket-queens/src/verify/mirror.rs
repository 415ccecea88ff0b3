//! The mirror baseline, the reference the benchmarks measure against: a plain Richards/Somers bitboard backtracker
//! that uses only the left/right mirror symmetry (first queen in the left half, count x2; for
//! odd n the middle column with the second queen in the left half). It shares no code with the
//! constellation solver, so it doubles as an independent check of the totals.

/// Total number of solutions of `n` queens (1 <= n <= 32) on one thread, mirror symmetry only;
/// on the same CPU path as thicket's counters ([`thicket_core::cpu_path`]), so that the
/// benchmark compares like with like.
pub fn count_mirror(n: usize) -> u128 {
    #[cfg(target_arch = "x86_64")]
    if thicket_core::cpu_path() == thicket_core::CpuPath::Fast {
        // SAFETY: the fast path is taken only where the CPU has its features.
        return unsafe { count_mirror_fast(n) };
    }
    count_mirror_portable(n)
}

/// The baseline, written once and compiled for each CPU path.
macro_rules! mirror_paths {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        fn $name(n: usize) -> u128 {
            assert!((1..=32).contains(&n), "board size out of range");
            if n == 1 {
                return 1;
            }
            let board: u32 = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
            let half = n / 2;
            let mut total: u128 = 0;
            for col in 0..half {
                let bit = 1u32 << col;
                total += 2 * u128::from(count_below(board, 1, n, bit, bit << 1, bit >> 1));
            }
            if n % 2 == 1 {
                let mid = 1u32 << half;
                let left_half = (1u32 << half) - 1;
                let mut second = left_half & !(mid | mid << 1 | mid >> 1);
                while second != 0 {
                    let bit = second & second.wrapping_neg();
                    second ^= bit;
                    let cols = mid | bit;
                    let left = ((mid << 1) | bit) << 1;
                    let right = ((mid >> 1) | bit) >> 1;
                    total += 2 * u128::from(count_below(board, 2, n, cols, left, right));
                }
            }
            total
        }
    };
}

mirror_paths!(count_mirror_portable);
thicket_core::fast_path!(mirror_paths!(count_mirror_fast));

/// Solutions below row `row` given the masks there: the classic explicit-stack loop.
#[inline(always)]
fn count_below(board: u32, row: usize, n: usize, cols: u32, left: u32, right: u32) -> u64 {
    if row == n {
        return 1;
    }
    let mut stack = [(0u32, 0u32, 0u32, 0u32); 32];
    let mut depth = row;
    let (mut c, mut l, mut r) = (cols, left & board, right);
    let mut free = board & !(c | l | r);
    let mut count = 0u64;
    loop {
        if free == 0 {
            if depth == row {
                return count;
            }
            depth -= 1;
            (free, c, l, r) = stack[depth];
            continue;
        }
        let bit = free & free.wrapping_neg();
        free ^= bit;
        if depth + 1 == n {
            count += 1;
            continue;
        }
        stack[depth] = (free, c, l, r);
        depth += 1;
        c |= bit;
        l = ((l | bit) << 1) & board;
        r = (r | bit) >> 1;
        free = board & !(c | l | r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::known_counts;

    #[test]
    fn mirror_baseline_matches_oeis() {
        for n in 1..=12 {
            assert_eq!(count_mirror(n), known_counts(n).unwrap().0, "n={n}");
        }
    }
}
