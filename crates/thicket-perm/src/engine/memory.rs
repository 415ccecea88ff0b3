//! The thesis's memory analysis (Carneiro 2017, Alg. 3): the active set goes to the GPU in
//! chunks, and a chunk shrinks by 20% at a time until everything it needs fits in 70% of the
//! device's free memory (at 75% CUDA ran out of memory in the thesis's runs).

use thicket_core::{Error, Result};

/// The share of the free device memory a run may use.
pub const USABLE_SHARE: f64 = 0.7;

/// What a chunk of roots costs on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// Bytes per root of the chunk (the root itself and the buffers sized by it).
    pub per_root: u64,
    /// Bytes needed whatever the chunk (control data, runtime reservations).
    pub fixed: u64,
}

/// The largest chunk of at most `roots` roots, shrunk by 20% steps, whose footprint fits in
/// [`USABLE_SHARE`] of `free_bytes`, and at most `cap` roots. Fails when not even one root fits.
pub fn plan_chunk(free_bytes: u64, roots: u64, footprint: Footprint, cap: u64) -> Result<u64> {
    let usable = (free_bytes as f64 * USABLE_SHARE) as u64;
    let mut chunk = roots.min(cap).max(1);
    loop {
        let need = chunk
            .checked_mul(footprint.per_root)
            .and_then(|b| b.checked_add(footprint.fixed));
        if need.is_some_and(|need| need <= usable) {
            return Ok(chunk);
        }
        if chunk == 1 {
            return Err(Error::Unavailable(format!(
                "one root needs {} bytes of GPU memory ({} fixed), more than 70% of the {} free",
                footprint.per_root, footprint.fixed, free_bytes
            )));
        }
        chunk = (chunk - chunk / 5).min(chunk - 1);
    }
}

/// The most nodes at depth `to` below one node at depth `from` of a permutation of `n`: the
/// thesis's expected children, (n - from)! / (n - to)!, saturated at `u64::MAX`.
pub fn expected_children(n: usize, from: usize, to: usize) -> u64 {
    (from..to).fold(1u64, |product, k| {
        product.saturating_mul(n.saturating_sub(k) as u64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chunk_shrinks_by_a_fifth_until_it_fits() {
        let footprint = Footprint {
            per_root: 100,
            fixed: 1000,
        };
        // 70% of 100,000 is 70,000: 690 roots fit, the steps are 1000, 800, 640.
        assert_eq!(plan_chunk(100_000, 1000, footprint, u64::MAX).unwrap(), 640);
        assert_eq!(plan_chunk(100_000, 10, footprint, u64::MAX).unwrap(), 10);
        assert_eq!(plan_chunk(100_000, 1000, footprint, 7).unwrap(), 7);
        assert!(plan_chunk(1000, 10, footprint, u64::MAX).is_err());
        let huge = Footprint {
            per_root: u64::MAX,
            fixed: 0,
        };
        assert!(plan_chunk(1 << 40, 5, huge, u64::MAX).is_err());
    }

    #[test]
    fn expected_children_is_a_falling_factorial() {
        assert_eq!(expected_children(18, 7, 9), 11 * 10);
        assert_eq!(expected_children(10, 3, 3), 1);
        assert_eq!(expected_children(40, 0, 40), u64::MAX);
    }
}
