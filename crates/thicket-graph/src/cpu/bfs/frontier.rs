//! The two frontiers of the direction-optimizing BFS: a queue that every vertex of the
//! top-down levels enters once, in the order found (the search's record of those levels), and
//! bitmaps, one bit per vertex, for the bottom-up levels.

use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::atomic;

/// Vertices a thread gathers before it claims room in the queue for them.
const BUFFER: usize = 4096;

/// 64-bit words per parallel task in the bitmap conversions.
const WORDS_PER_TASK: usize = 256;

/// Queue windows below this many vertices go into a bitmap on one thread.
const SERIAL_WINDOW: usize = 8192;

/// An append-only list of vertices shared by the threads of a search, with a window: the
/// current frontier, the vertices appended before the last [`Queue::slide`].
///
/// It lives in a caller's zeroed `Vec<u32>` of one slot per vertex, so that pages nobody
/// appends to are never touched.
pub(super) struct Queue<'a> {
    slots: &'a [AtomicU32],
    tail: AtomicUsize,
    window: Range<usize>,
}

impl<'a> Queue<'a> {
    /// An empty queue in `slots` (room for every vertex once).
    pub(super) fn new(slots: &'a mut [u32]) -> Queue<'a> {
        Queue {
            slots: atomic(slots),
            tail: AtomicUsize::new(0),
            window: 0..0,
        }
    }

    /// Appends `vertices` (the caller's own slice, from one thread).
    fn append(&self, vertices: &[u32]) {
        let at = self.tail.fetch_add(vertices.len(), Ordering::Relaxed);
        for (slot, &v) in self.slots[at..at + vertices.len()].iter().zip(vertices) {
            slot.store(v, Ordering::Relaxed);
        }
    }

    /// The window's vertex `i`.
    pub(super) fn get(&self, i: usize) -> u32 {
        self.slots[self.window.start + i].load(Ordering::Relaxed)
    }

    /// Vertices in the window.
    pub(super) fn len(&self) -> usize {
        self.window.len()
    }

    /// Makes the vertices appended since the last slide the window; returns where they lie.
    pub(super) fn slide(&mut self) -> Range<usize> {
        self.window = self.window.end..self.tail.load(Ordering::Relaxed);
        self.window.clone()
    }

    /// Appends the vertices whose bits are set in `bits`, in parallel.
    pub(super) fn append_bitmap(&self, bits: &[AtomicU64]) {
        bits.par_chunks(WORDS_PER_TASK).enumerate().for_each_init(
            || Buffer::new(self),
            |buffer, (task, words)| {
                for (k, word) in words.iter().enumerate() {
                    let mut word = word.load(Ordering::Relaxed);
                    let base = ((task * WORDS_PER_TASK + k) * 64) as u32;
                    while word != 0 {
                        buffer.push(base + word.trailing_zeros());
                        word &= word - 1;
                    }
                }
            },
        );
    }
}

/// One thread's vertices on their way into a [`Queue`]: appended in batches (one atomic
/// per batch, not per vertex), the rest when dropped.
pub(super) struct Buffer<'q, 'a> {
    queue: &'q Queue<'a>,
    local: Vec<u32>,
}

impl<'q, 'a> Buffer<'q, 'a> {
    /// An empty buffer for `queue`, with room for a whole batch: a buffer that grew as it
    /// filled reallocated ten times, and the many buffers of a level's parallel tasks doing so
    /// on every thread made a top-down level twice as slow on 16 threads (docs/benchmarks.md,
    /// "Graphs").
    pub(super) fn new(queue: &'q Queue<'a>) -> Buffer<'q, 'a> {
        Buffer {
            queue,
            local: Vec::with_capacity(BUFFER),
        }
    }

    /// Adds `v`.
    pub(super) fn push(&mut self, v: u32) {
        if self.local.len() == BUFFER {
            self.queue.append(&self.local);
            self.local.clear();
        }
        self.local.push(v);
    }
}

impl Drop for Buffer<'_, '_> {
    fn drop(&mut self) {
        self.queue.append(&self.local);
    }
}

/// A bitmap of `vertices` bits, all clear: filled on the calling thread, as a parallel fill's
/// dispatch costs more than the memset at the sizes a search allocates per level switch.
pub(super) fn bitmap(vertices: usize) -> Vec<AtomicU64> {
    (0..vertices.div_ceil(64))
        .map(|_| AtomicU64::new(0))
        .collect()
}

/// Whether bit `v` of `bits` is set.
pub(super) fn is_set(bits: &[AtomicU64], v: u32) -> bool {
    bits[v as usize / 64].load(Ordering::Relaxed) >> (v % 64) & 1 == 1
}

/// Sets in `bits` the bits of the queue's window; clears the others first unless
/// `already_clear`.
///
/// A window of fewer than [`SERIAL_WINDOW`] vertices is set on the calling thread: waking
/// the pool for it cost more than the stores (docs/benchmarks.md, "Graphs").
pub(super) fn window_to_bitmap(queue: &Queue, bits: &[AtomicU64], already_clear: bool) {
    if !already_clear {
        bits.par_iter()
            .with_min_len(WORDS_PER_TASK)
            .for_each(|word| word.store(0, Ordering::Relaxed));
    }
    if queue.len() < SERIAL_WINDOW {
        // One thread: a load and a store, no read-modify-write.
        for i in 0..queue.len() {
            let v = queue.get(i);
            let word = &bits[v as usize / 64];
            word.store(
                word.load(Ordering::Relaxed) | 1 << (v % 64),
                Ordering::Relaxed,
            );
        }
        return;
    }
    (0..queue.len()).into_par_iter().for_each(|i| {
        let v = queue.get(i);
        bits[v as usize / 64].fetch_or(1 << (v % 64), Ordering::Relaxed);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appends the vertices below `n` that `keep` picks to `queue`, each parallel task through
    /// its own buffer, as a top-down level does.
    fn push_from_tasks(queue: &Queue, n: usize, keep: impl Fn(u32) -> bool + Sync + Send) {
        (0..n as u32)
            .into_par_iter()
            .filter(|&v| keep(v))
            .for_each_init(|| Buffer::new(queue), |buffer, v| buffer.push(v));
    }

    #[test]
    fn a_queue_slides_over_batches_and_converts_to_and_from_bitmaps() {
        let n = 3 * BUFFER + 700;
        let mut slots = vec![0u32; n];
        let mut queue = Queue::new(&mut slots);
        // More than a buffer from each of several tasks.
        push_from_tasks(&queue, n, |v| v % 3 == 0);
        assert_eq!(queue.slide(), 0..n.div_ceil(3));
        let mut window: Vec<u32> = (0..queue.len()).map(|i| queue.get(i)).collect();
        window.sort_unstable();
        assert_eq!(window, (0..n as u32).step_by(3).collect::<Vec<_>>());
        let bits = bitmap(n);
        window_to_bitmap(&queue, &bits, true);
        assert!((0..n as u32).all(|v| is_set(&bits, v) == (v % 3 == 0)));
        // Every third vertex but shifted by one: the bitmap's vertices in increasing order.
        let shifted = bitmap(n);
        for v in (1..n as u32).step_by(3) {
            shifted[v as usize / 64].fetch_or(1 << (v % 64), Ordering::Relaxed);
        }
        queue.append_bitmap(&shifted);
        let second = queue.slide();
        assert_eq!(second.start, n.div_ceil(3));
        let mut window: Vec<u32> = (0..queue.len()).map(|i| queue.get(i)).collect();
        window.sort_unstable();
        assert_eq!(window, (1..n as u32).step_by(3).collect::<Vec<_>>());
        assert_eq!(queue.slide(), second.end..second.end);
        assert_eq!(queue.len(), 0);
    }

    #[test]
    fn a_window_too_large_for_one_thread_replaces_a_used_bitmap() {
        let n = 4 * SERIAL_WINDOW;
        let mut slots = vec![0u32; n];
        let mut queue = Queue::new(&mut slots);
        push_from_tasks(&queue, n, |v| v % 2 == 1);
        queue.slide();
        assert!(queue.len() >= SERIAL_WINDOW);
        let bits = bitmap(n);
        bits.iter()
            .for_each(|word| word.store(u64::MAX, Ordering::Relaxed));
        window_to_bitmap(&queue, &bits, false);
        assert!((0..n as u32).all(|v| is_set(&bits, v) == (v % 2 == 1)));
    }
}
