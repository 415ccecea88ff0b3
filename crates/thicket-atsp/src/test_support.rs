//! Helpers shared by the ATSP modules' tests.

/// Advances the linear congruential generator `x` one step and returns a value below `modulus`
/// from its high bits: reproducible pseudo-random costs without a dependency.
pub(super) fn lcg_below(x: &mut u64, modulus: u64) -> u64 {
    *x = x
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*x >> 33) % modulus
}
