//! The parallel delta-stepping behind `delta_stepping`: a team of threads walks the buckets
//! together, two barriers a round.
//!
//! - Each thread bins what it improves in its own bins (no shared bucket structure and no lock
//!   on the hot path). A round's entries are the threads' own bins of the lowest non-empty
//!   bucket, published side by side and claimed in chunks from one shared cursor.
//! - Bucket fusion: a thread whose own bin of the current bucket is small after a round relaxes
//!   it at once instead of waiting for the next round (on a low-diameter graph most rounds
//!   would otherwise bring a handful of vertices and cost two barriers each).
//! - An entry whose vertex was improved into a lower bucket after it was binned was relaxed
//!   there already, and is skipped.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{PoisonError, RwLock};

use rayon::prelude::*;

use crate::graph::GraphView;
use crate::INFINITE;

/// Entries of a round a thread claims at a time.
const CHUNK: usize = 64;
/// A thread relaxes its own entries of the current bucket at once while it has fewer.
const FUSE_BELOW: usize = 1000;
/// Buckets from the current one that a thread keeps in its ring; farther ones wait in a map.
const WINDOW: u64 = 1024;
/// Arcs ahead of the one being relaxed whose head's distance is prefetched.
const PREFETCH_AHEAD: usize = 16;
/// Entries of a round ahead of the one being relaxed whose vertex's distance and arcs' start
/// are prefetched: each entry's first reads are misses in random places, which the arcs of
/// the entries before it hide (4 ahead measured best: docs/benchmarks.md, "Graphs").
const ENTRIES_AHEAD: usize = 4;

/// A vertex's distance, lowered concurrently.
pub(super) trait Slot: Send + Sync + Sized {
    /// A slot at `d` ([`INFINITE`]: unreached).
    fn new(d: u64) -> Self;
    /// The distance ([`INFINITE`] where unreached).
    fn get(&self) -> u64;
    /// Lowers the slot to `d` where `d` is lower: whether it did; `None` where the slot would
    /// have to hold a distance wider than it is.
    fn lower(&self, d: u64) -> Option<bool>;
}

impl Slot for AtomicU32 {
    fn new(d: u64) -> Self {
        AtomicU32::new(u32::try_from(d).unwrap_or(u32::MAX))
    }

    fn get(&self) -> u64 {
        match self.load(Ordering::Relaxed) {
            u32::MAX => INFINITE,
            d => u64::from(d),
        }
    }

    fn lower(&self, d: u64) -> Option<bool> {
        let mut old = self.load(Ordering::Relaxed);
        if d >= u64::from(u32::MAX) {
            // Too wide: harmless where the slot holds a shorter distance already.
            return (old != u32::MAX).then_some(false);
        }
        let d = d as u32;
        while d < old {
            match self.compare_exchange_weak(old, d, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(true),
                Err(now) => old = now,
            }
        }
        Some(false)
    }
}

impl Slot for AtomicU64 {
    fn new(d: u64) -> Self {
        AtomicU64::new(d)
    }

    fn get(&self) -> u64 {
        self.load(Ordering::Relaxed)
    }

    fn lower(&self, d: u64) -> Option<bool> {
        let mut old = self.load(Ordering::Relaxed);
        while d < old {
            match self.compare_exchange_weak(old, d, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(true),
                Err(now) => old = now,
            }
        }
        Some(false)
    }
}

/// Delta-stepping from `source` on as many threads as the current rayon pool has: the
/// distances' slots; `None` where a distance does not fit `S`.
pub(super) fn run<S: Slot>(graph: GraphView<'_>, source: u32, delta: u64) -> Option<Vec<S>> {
    let n = graph.vertices();
    let distances: Vec<S> = (0..n)
        .into_par_iter()
        .map(|v| S::new(if v == source as usize { 0 } else { INFINITE }))
        .collect();
    let threads = rayon::current_num_threads().max(1);
    let team = Team {
        graph,
        delta,
        distances,
        published: (0..threads)
            .map(|t| RwLock::new(if t == 0 { vec![source] } else { Vec::new() }))
            .collect(),
        cursor: [AtomicUsize::new(0), AtomicUsize::new(0)],
        next: [AtomicU64::new(u64::MAX), AtomicU64::new(u64::MAX)],
        overflow: AtomicBool::new(false),
        barrier: SpinBarrier::new(threads),
    };
    // Threads of its own, not rayon jobs: they wait for each other at barriers, which jobs
    // of a shared pool must not do.
    std::thread::scope(|scope| {
        for t in 1..threads {
            let team = &team;
            scope.spawn(move || team.work(t));
        }
        team.work(0);
    });
    if team.overflow.into_inner() {
        return None;
    }
    Some(team.distances)
}

/// What the threads of one search share.
struct Team<'a, S> {
    graph: GraphView<'a>,
    delta: u64,
    distances: Vec<S>,
    /// Each thread's entries of the round's bucket.
    published: Vec<RwLock<Vec<u32>>>,
    /// The next unclaimed entry of the round, by the round's parity.
    cursor: [AtomicUsize; 2],
    /// The lowest bucket any thread holds after the round, by the round's parity.
    next: [AtomicU64; 2],
    /// A distance did not fit the slots.
    overflow: AtomicBool,
    barrier: SpinBarrier,
}

impl<S: Slot> Team<'_, S> {
    /// Thread `me`'s part of the search.
    fn work(&self, me: usize) {
        let mut bins = Bins::default();
        let mut bucket = 0;
        let mut parity = 0;
        loop {
            self.relax_round(bucket, parity, &mut bins);
            while let Some(own) = bins.take_small() {
                self.relax_entries(&own, bucket, &mut bins);
                bins.recycle(own);
            }
            if let Some(lowest) = bins.lowest() {
                self.next[parity].fetch_min(lowest, Ordering::Relaxed);
            }
            self.barrier.wait();
            let next = self.next[parity].load(Ordering::Relaxed);
            if me == 0 {
                // The other parity's round is over for every thread and the next one starts
                // after the barrier below.
                self.cursor[1 - parity].store(0, Ordering::Relaxed);
                self.next[1 - parity].store(u64::MAX, Ordering::Relaxed);
            }
            if next == u64::MAX {
                return;
            }
            bins.advance(next);
            {
                let mut slot = self.published[me]
                    .write()
                    .unwrap_or_else(PoisonError::into_inner);
                slot.clear();
                std::mem::swap(&mut *slot, bins.current());
            }
            bucket = next;
            parity = 1 - parity;
            self.barrier.wait();
        }
    }

    /// Relaxes the round's published entries, a chunk at a time.
    fn relax_round(&self, bucket: u64, parity: usize, bins: &mut Bins) {
        let slots: Vec<_> = self
            .published
            .iter()
            .map(|s| s.read().unwrap_or_else(PoisonError::into_inner))
            .collect();
        let total: usize = slots.iter().map(|s| s.len()).sum();
        loop {
            let start = self.cursor[parity].fetch_add(CHUNK, Ordering::Relaxed);
            if start >= total {
                return;
            }
            let end = (start + CHUNK).min(total);
            let mut offset = 0;
            for slot in &slots {
                let (lo, hi) = (start.max(offset), end.min(offset + slot.len()));
                if lo < hi {
                    self.relax_entries(&slot[lo - offset..hi - offset], bucket, bins);
                }
                offset += slot.len();
                if offset >= end {
                    break;
                }
            }
        }
    }

    /// Relaxes `entries` of `bucket` in turn, asking early for what relaxing the entry
    /// [`ENTRIES_AHEAD`] on reads first: its distance and where its arcs start (where the arcs
    /// themselves are depends on that).
    fn relax_entries(&self, entries: &[u32], bucket: u64, bins: &mut Bins) {
        for (k, &u) in entries.iter().enumerate() {
            if let Some(&later) = entries.get(k + ENTRIES_AHEAD) {
                prefetch(&self.distances[later as usize]);
                prefetch(&self.graph.offsets[later as usize]);
            }
            self.relax(u, bucket, bins);
        }
    }

    /// Relaxes the arcs out of `u`, an entry of `bucket`.
    fn relax(&self, u: u32, bucket: u64, bins: &mut Bins) {
        // Copied out of `self`: the atomic writes below would otherwise make every arc reload
        // the distances' address and length from it.
        let (distances, delta) = (&self.distances[..], self.delta);
        let d = distances[u as usize].get();
        if d < delta * bucket {
            return;
        }
        // Lowers `v` to `through` where that is shorter, and bins it.
        let mut improve = |v: u32, through: u64| match distances[v as usize].lower(through) {
            Some(true) => bins.push(through / delta, v),
            Some(false) => {}
            None => self.overflow.store(true, Ordering::Relaxed),
        };
        let arcs = self.graph.arc_range(u);
        let heads = &self.graph.targets[arcs.clone()];
        // A head's distance is a miss in a random place, and every lowering is a locked
        // compare-and-swap, past which no later load starts: the distance PREFETCH_AHEAD arcs
        // on is asked for early, as prefetches are not held back by locked instructions
        // (measured in docs/benchmarks.md, "Graphs").
        let prefetch_ahead = |i: usize| {
            if let Some(&later) = heads.get(i + PREFETCH_AHEAD) {
                prefetch(&distances[later as usize]);
            }
        };
        match &self.graph.weights {
            Some(weights) => {
                for (i, (&v, &w)) in heads.iter().zip(&weights[arcs]).enumerate() {
                    prefetch_ahead(i);
                    improve(v, d + u64::from(w));
                }
            }
            None => {
                for (i, &v) in heads.iter().enumerate() {
                    prefetch_ahead(i);
                    improve(v, d + 1);
                }
            }
        }
    }
}

/// One thread's bins: a ring of the buckets from the current one, and a map of those past
/// [`WINDOW`] (large weights over a small delta); emptied bins are kept for their memory.
#[derive(Default)]
struct Bins {
    /// The bucket of `ring[0]`.
    base: u64,
    ring: VecDeque<Vec<u32>>,
    far: BTreeMap<u64, Vec<u32>>,
    spare: Vec<Vec<u32>>,
}

impl Bins {
    /// Bins `v` in `bucket` (not below the current one).
    fn push(&mut self, bucket: u64, v: u32) {
        let at = bucket - self.base;
        if at < WINDOW {
            self.bin(at as usize).push(v);
        } else {
            self.far.entry(bucket).or_default().push(v);
        }
    }

    /// The bin `at` buckets from the current one, made where missing.
    fn bin(&mut self, at: usize) -> &mut Vec<u32> {
        while self.ring.len() <= at {
            let empty = self.spare.pop().unwrap_or_default();
            self.ring.push_back(empty);
        }
        &mut self.ring[at]
    }

    /// The current bucket's bin.
    fn current(&mut self) -> &mut Vec<u32> {
        self.bin(0)
    }

    /// The lowest bucket with an entry.
    fn lowest(&self) -> Option<u64> {
        self.ring
            .iter()
            .position(|b| !b.is_empty())
            .map(|at| self.base + at as u64)
            .or_else(|| self.far.keys().next().copied())
    }

    /// Makes `bucket` the current one; every bin below it is empty.
    fn advance(&mut self, bucket: u64) {
        let passed = (bucket - self.base).min(self.ring.len() as u64) as usize;
        self.spare.extend(self.ring.drain(..passed));
        self.base = bucket;
        while let Some(entry) = self.far.first_entry() {
            if *entry.key() >= bucket + WINDOW {
                break;
            }
            let (at, vertices) = entry.remove_entry();
            let bin = self.bin((at - bucket) as usize);
            if bin.is_empty() {
                let empty = std::mem::replace(bin, vertices);
                self.spare.push(empty);
            } else {
                bin.extend(vertices);
            }
        }
    }

    /// The current bucket's entries, where there are some but fewer than [`FUSE_BELOW`].
    fn take_small(&mut self) -> Option<Vec<u32>> {
        let len = self.ring.front().map_or(0, Vec::len);
        if len == 0 || len >= FUSE_BELOW {
            return None;
        }
        let empty = self.spare.pop().unwrap_or_default();
        Some(std::mem::replace(&mut self.ring[0], empty))
    }

    /// Keeps an emptied bin's memory.
    fn recycle(&mut self, mut bin: Vec<u32>) {
        bin.clear();
        self.spare.push(bin);
    }
}

/// Asks for the cache line of `value` ahead of its use (a hint; nothing on targets other than
/// x86-64).
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and cannot fault; the address is a live reference's.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// A barrier that spins briefly, then yields (a round often takes microseconds, so sleeping
/// in the kernel at every barrier would cost more than the round).
struct SpinBarrier {
    threads: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    fn new(threads: usize) -> SpinBarrier {
        SpinBarrier {
            threads,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
        }
    }

    /// Returns once every thread has called it.
    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            if spins < 2000 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}
