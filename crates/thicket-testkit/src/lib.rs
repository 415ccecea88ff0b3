//! Test support for thicket's readers. Property tests in every reader crate feed a reader a few
//! thousand mutations of its shipped sample files ([`mutations`]: truncated, spliced, flipped
//! bytes, inflated numbers, bytes that are not UTF-8) under [`CappedAllocator`], which fails
//! any single allocation above a cap, and check that each read is `Ok` or a one-line error:
//! never a panic, never an abort from a size a header promised.
//!
//! ```
//! let sample = b"p sp 3 2\na 1 2 5\na 2 3 7\n";
//! let mut count = 0;
//! for input in thicket_testkit::mutations(sample, 7, 100) {
//!     let _ = std::str::from_utf8(&input); // a reader would parse `input` here
//!     count += 1;
//! }
//! assert_eq!(count, 100);
//! ```

use std::alloc::{GlobalAlloc, Layout, System};

/// A global allocator for test binaries that refuses (returns null for) any single allocation
/// above `cap` bytes, so that a reader which allocates what a header promises fails the test
/// at once instead of swapping; `Vec::try_reserve` sees the refusal as an error it can report.
///
/// ```ignore
/// #[global_allocator]
/// static ALLOCATOR: thicket_testkit::CappedAllocator = thicket_testkit::CappedAllocator::GIB;
/// ```
pub struct CappedAllocator {
    cap: usize,
}

impl CappedAllocator {
    /// Refuses allocations above 1 GiB.
    pub const GIB: CappedAllocator = CappedAllocator::new(1 << 30);

    /// Refuses allocations above `cap` bytes.
    pub const fn new(cap: usize) -> CappedAllocator {
        CappedAllocator { cap }
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged, except that requests
// above the cap get null, which the GlobalAlloc contract allows for any request.
unsafe impl GlobalAlloc for CappedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > self.cap {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's layout is passed on as it came.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > self.cap {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's layout is passed on as it came.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout (only `System` allocates here).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > self.cap {
            return std::ptr::null_mut();
        }
        // SAFETY: `ptr` and `layout` came from `System`, as the caller guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// A small seeded generator (xorshift64*), so that every failure replays from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Numbers a mutation puts in place of a number: the edges of every integer width, huge and
/// odd floats.
const HOSTILE_NUMBERS: [&str; 16] = [
    "0",
    "-1",
    "2147483647",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551616",
    "-9223372036854775808",
    "1e308",
    "1e309",
    "-1e308",
    "nan",
    "inf",
    "0.0000000000000000000001",
    "99999999999999999999999999999999",
    "3.5",
];

/// `count` mutations of `sample`, from `seed`: each is `sample` with one to three of these
/// applied: cut short, a span deleted, a span repeated, a span of another place copied in,
/// bytes flipped, a number replaced by a hostile one, a byte that is not UTF-8 inserted, a
/// line duplicated many times.
pub fn mutations(sample: &[u8], seed: u64, count: usize) -> impl Iterator<Item = Vec<u8>> + '_ {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    (0..count).map(move |_| {
        let mut bytes = sample.to_vec();
        for _ in 0..=rng.below(3) {
            mutate(&mut bytes, &mut rng);
        }
        bytes
    })
}

/// Applies one random mutation to `bytes`.
fn mutate(bytes: &mut Vec<u8>, rng: &mut Rng) {
    let len = bytes.len();
    let at = rng.below(len + 1);
    match rng.below(8) {
        0 => bytes.truncate(at),
        1 => {
            let end = (at + rng.below(64)).min(len);
            bytes.drain(at..end);
        }
        2 => {
            let end = (at + rng.below(64)).min(len);
            let span = bytes[at..end].to_vec();
            bytes.splice(at..at, span.iter().copied().cycle().take(span.len() * 3));
        }
        3 => {
            let from = rng.below(len + 1);
            let end = (from + rng.below(32)).min(len);
            let span = bytes[from..end].to_vec();
            bytes.splice(at..at, span);
        }
        4 => {
            for _ in 0..=rng.below(4) {
                if !bytes.is_empty() {
                    let i = rng.below(bytes.len());
                    bytes[i] ^= 1 << rng.below(8);
                }
            }
        }
        5 => replace_a_number(bytes, at, rng),
        6 => bytes.insert(at.min(bytes.len()), [0xE9, 0xFF, 0x80, 0x00][rng.below(4)]),
        _ => {
            let start = bytes[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let end = bytes[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(len, |i| at + i + 1);
            let line = bytes[start..end].to_vec();
            let times = 1 + rng.below(200);
            bytes.splice(
                end..end,
                line.iter().copied().cycle().take(line.len() * times),
            );
        }
    }
}

/// Replaces the first run of digits at or after `at` (else before it) by a hostile number.
fn replace_a_number(bytes: &mut Vec<u8>, at: usize, rng: &mut Rng) {
    let digit = |b: &u8| b.is_ascii_digit();
    let Some(start) = bytes[at..]
        .iter()
        .position(digit)
        .map(|i| at + i)
        .or_else(|| bytes[..at].iter().rposition(digit))
    else {
        return;
    };
    let start = bytes[..start]
        .iter()
        .rposition(|b| !b.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let end = bytes[start..]
        .iter()
        .position(|b| !b.is_ascii_digit())
        .map_or(bytes.len(), |i| start + i);
    let number = HOSTILE_NUMBERS[rng.below(HOSTILE_NUMBERS.len())];
    bytes.splice(start..end, number.bytes());
}

/// Whether `message` is one line (what every refusal must be).
pub fn is_one_line(message: &str) -> bool {
    !message.trim_end().contains('\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_replay_from_their_seed_and_differ_from_the_sample() {
        let sample = b"p max 4 5\nn 1 s\nn 4 t\na 1 2 10\na 2 4 7\n";
        let first: Vec<Vec<u8>> = mutations(sample, 3, 200).collect();
        let again: Vec<Vec<u8>> = mutations(sample, 3, 200).collect();
        assert_eq!(first, again);
        assert!(first.iter().filter(|m| m.as_slice() != sample).count() > 150);
        assert!(first.iter().any(|m| std::str::from_utf8(m).is_err()));
        assert!(first
            .iter()
            .any(|m| String::from_utf8_lossy(m).contains("9223372036854775807")));
    }

    #[test]
    fn the_cap_refuses_only_what_is_above_it() {
        let capped = CappedAllocator::new(1024);
        let small = Layout::from_size_align(1024, 8).unwrap();
        let large = Layout::from_size_align(1025, 8).unwrap();
        // SAFETY: the small block is freed with the layout it was allocated with.
        unsafe {
            let block = capped.alloc(small);
            assert!(!block.is_null());
            capped.dealloc(block, small);
            assert!(capped.alloc(large).is_null());
        }
        assert!(is_one_line("x.gr:3: bad arc\n"));
        assert!(!is_one_line("a\nb"));
    }
}
