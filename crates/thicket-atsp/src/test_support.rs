//! Helpers shared by the ATSP modules' tests.

/// Advances the linear congruential generator `x` one step and returns a value below `modulus`
/// from its high bits: reproducible pseudo-random costs without a dependency.
pub(super) fn lcg_below(x: &mut u64, modulus: u64) -> u64 {
    *x = x
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*x >> 33) % modulus
}

/// The cheapest path from `last` through all of `cities` to city 0, by enumeration (the
/// cheapest tour is the path from city 0 through all the others).
pub(super) fn cheapest_completion(inst: &crate::Instance, last: usize, cities: &[usize]) -> i64 {
    fn go(inst: &crate::Instance, at: usize, rest: &mut Vec<usize>) -> i64 {
        if rest.is_empty() {
            return inst.cost(at, 0);
        }
        (0..rest.len())
            .map(|k| {
                let c = rest.remove(k);
                let v = inst.cost(at, c) + go(inst, c, rest);
                rest.insert(k, c);
                v
            })
            .min()
            .expect("rest is not empty")
    }
    go(inst, last, &mut cities.to_vec())
}

/// The ring 0 -> 1 -> ... -> n-1 -> 0 at cost 1 an arc (both ways where `both_ways`), every
/// other arc at 100.
pub(super) fn ring(n: usize, both_ways: bool) -> crate::Instance {
    let mut cost = vec![100; n * n];
    for i in 0..n {
        cost[i * n + (i + 1) % n] = 1;
        if both_ways {
            cost[((i + 1) % n) * n + i] = 1;
        }
    }
    let name = if both_ways { "sym-ring" } else { "ring" };
    crate::Instance::new(name, n, cost).expect("a ring is an instance")
}
