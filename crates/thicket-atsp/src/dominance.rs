//! Dominance between partial tours for the assignment-bound search: two paths from city 0
//! that visit the same set of cities and end at the same city have the same completions, so
//! only the cheaper one (the first seen, on a tie) needs searching.
//!
//! This is sound however the table is filled: every path that is searched was admitted,
//! and a path is only dropped in favour of an admitted one that is at least as cheap, so the
//! prefixes of an optimal tour are always represented by a searched path no dearer. The table
//! is therefore capped and simply stops growing when full. Keys need the visited set as a
//! 128-bit mask, so instances of more than 128 cities go without.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

/// Instances up to this many cities use the table.
pub(crate) const MAX_CITIES: usize = 128;

/// Independently locked parts of the table, so that threads rarely wait on each other.
const SHARDS: usize = 64;

/// Entries kept in all (about 48 bytes each).
const CAPACITY: usize = 1 << 22;

/// The visited set and the last city of a path.
type Key = (u128, u8);

/// The cheapest admitted cost per key, split into locked shards.
pub(crate) struct Dominance {
    shards: Vec<Mutex<HashMap<Key, i64, BuildHasherDefault<Mix>>>>,
}

impl Dominance {
    /// An empty table.
    pub(crate) fn new() -> Dominance {
        Dominance {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }

    /// Whether a path visiting `visited` (a bit per city), ending at `last` and costing
    /// `cost` must be searched; if so, it becomes the reference for its key.
    pub(crate) fn admit(&self, visited: u128, last: usize, cost: i64) -> bool {
        let key = (visited, last as u8);
        let shard = (mix(visited ^ last as u128) >> 58) as usize % SHARDS;
        let mut table = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        match table.get_mut(&key) {
            Some(best) if *best <= cost => false,
            Some(best) => {
                *best = cost;
                true
            }
            None => {
                if table.len() < CAPACITY / SHARDS {
                    table.insert(key, cost);
                }
                true
            }
        }
    }
}

/// Multiplicative mixing of a 128-bit key into 64 bits.
#[inline(always)]
fn mix(x: u128) -> u64 {
    let folded = (x as u64) ^ ((x >> 64) as u64).rotate_left(29);
    let m = u128::from(folded) * 0x9e37_79b9_7f4a_7c15;
    (m as u64) ^ ((m >> 64) as u64)
}

/// A fast hasher for [`Key`]s (the standard one is built to resist adversarial keys, which
/// a search's own paths are not).
#[derive(Default)]
struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix(u128::from(self.0 ^ u64::from(b)));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.0 = mix(u128::from(self.0) << 8 | u128::from(i));
    }

    fn write_u128(&mut self, i: u128) {
        self.0 = mix(i ^ u128::from(self.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_cheapest_path_per_key_wins() {
        let table = Dominance::new();
        assert!(table.admit(0b111, 2, 10));
        assert!(!table.admit(0b111, 2, 10));
        assert!(!table.admit(0b111, 2, 11));
        assert!(table.admit(0b111, 1, 11));
        assert!(table.admit(0b111, 2, 9));
        assert!(!table.admit(0b111, 2, 9));
    }
}
