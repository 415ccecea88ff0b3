//! N-Queens as a permutation on the GPU: the host's serial search to d_cpu builds the roots,
//! then a GPU strategy searches below them. Nodes are counted as by the CPU strategies (every
//! feasible node at depths 1..=N, solutions included), so the counts are identical.

use std::time::Instant;

use thicket_core::{Error, Progress, Result};

use crate::cpu::queens::{PermQueensCount, MAX_N};
use crate::engine::device::{Arg, Device, BLOCK};
use crate::engine::{
    self, open_for, resolve_depths, CdpSlices, Expansion, GpuRun, Problem, Roots, AUTO_ROOTS,
};
use crate::kernels::ROOT_WORDS;
use crate::strategy::{GpuParams, Strategy};

/// A board being built on the host: the kernel's root layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Board {
    cols: u32,
    /// Bit `row + col` per queen.
    d1: u64,
    /// Bit `col - row + n - 1` per queen.
    d2: u64,
}

impl Board {
    fn free(&self, n: usize, row: usize) -> u32 {
        let mask = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        !(self.cols | (self.d1 >> row) as u32 | (self.d2 >> (n - 1 - row)) as u32) & mask
    }

    fn place(&self, n: usize, row: usize, col: usize) -> Board {
        Board {
            cols: self.cols | 1 << col,
            d1: self.d1 | 1 << (row + col),
            d2: self.d2 | 1 << (col + n - 1 - row),
        }
    }

    fn pack(&self, out: &mut Vec<u32>) {
        out.extend_from_slice(&[
            self.cols,
            self.d1 as u32,
            (self.d1 >> 32) as u32,
            self.d2 as u32,
            (self.d2 >> 32) as u32,
        ]);
    }
}

/// The host's serial search, level by level, until `stop(depth, nodes at that depth)`: the
/// boards at the last depth, that depth and the nodes generated at depths 1..=depth.
fn levels(n: usize, stop: impl Fn(usize, usize) -> bool) -> (Vec<Board>, usize, u64) {
    let mut level = vec![Board {
        cols: 0,
        d1: 0,
        d2: 0,
    }];
    let mut row = 0;
    let mut nodes = 0u64;
    while row < n && !stop(row, level.len()) {
        let mut next = Vec::new();
        for board in &level {
            let mut free = board.free(n, row);
            while free != 0 {
                let col = free.trailing_zeros() as usize;
                free &= free - 1;
                next.push(board.place(n, row, col));
            }
        }
        nodes += next.len() as u64;
        level = next;
        row += 1;
    }
    (level, row, nodes)
}

/// The first depth (at most n - 1) with at least [`AUTO_ROOTS`] boards.
fn automatic_depth(n: usize) -> usize {
    levels(n, |row, boards| row + 1 >= n || boards as u64 >= AUTO_ROOTS).1
}

/// The boards at depth `depth` (< n), packed, and the nodes generated at depths 1..=depth.
fn frontier(n: usize, depth: usize) -> (Vec<u32>, u64) {
    let (level, _, nodes) = levels(n, |row, _| row >= depth);
    let mut packed = Vec::with_capacity(level.len() * ROOT_WORDS);
    for board in &level {
        board.pack(&mut packed);
    }
    (packed, nodes)
}

/// The N-Queens kernels and their counters on one device.
struct QueensKernels {
    n: usize,
    /// nodes, solutions
    totals: thicket_gpu::cudarc::driver::CudaSlice<u64>,
    overflow: thicket_gpu::cudarc::driver::CudaSlice<u32>,
}

impl QueensKernels {
    /// The arguments that queens_expand and queens_cdp_bp begin with: the roots, n, their
    /// row and the row to expand to.
    fn expansion_args(&self, roots: Roots, to: usize) -> Vec<Arg> {
        vec![
            Arg::U64(roots.address),
            Arg::U64(roots.count),
            Arg::I32(self.n as i32),
            Arg::I32(roots.depth as i32),
            Arg::I32(to as i32),
        ]
    }

    /// Shared memory of a search from `depth`: one stack word per level and thread.
    fn search_shared(&self, depth: usize, block: u32) -> u32 {
        let levels = self.n.saturating_sub(depth + 2).max(1) as u32;
        levels * block * 4
    }
}

impl Problem for QueensKernels {
    const WORDS: usize = ROOT_WORDS;

    fn n(&self) -> usize {
        self.n
    }

    fn fixed_bytes(&self) -> u64 {
        64
    }

    fn search(&self, device: &Device, roots: Roots, pool: Option<u64>) -> Result<()> {
        if roots.count == 0 {
            return Ok(());
        }
        let shared = self.search_shared(roots.depth, BLOCK);
        let totals = device.address(&self.totals);
        let (n, depth) = (self.n as i32, roots.depth as i32);
        if let Some(next_root) = pool {
            let args = [
                Arg::U64(roots.address),
                Arg::U64(roots.count),
                Arg::I32(n),
                Arg::I32(depth),
                Arg::U64(next_root),
                Arg::U64(totals),
            ];
            // SAFETY: queens_pool(const unsigned* roots, u64 count, int n, int row, u64*
            // next_root, u64* totals); `roots` holds `count` roots of depth `row`, and the
            // shared memory holds n - row - 2 stack words a thread.
            return unsafe { engine::launch_pool(device, "queens_pool", shared, &args) };
        }
        let args = [
            Arg::U64(roots.address),
            Arg::U64(roots.count),
            Arg::I32(n),
            Arg::I32(depth),
            Arg::U64(totals),
        ];
        // SAFETY: queens_bp_dfs(const unsigned* roots, u64 count, int n, int row, u64* totals);
        // as above.
        unsafe { engine::launch_per_root(device, "queens_bp_dfs", roots.count, shared, &args) }
    }

    fn expand(&self, device: &Device, roots: Roots, expansion: Expansion) -> Result<()> {
        let mut args = self.expansion_args(roots, expansion.to);
        args.extend([
            Arg::U64(expansion.out),
            Arg::U64(expansion.written),
            Arg::U64(expansion.capacity),
            Arg::U64(device.address(&self.overflow)),
            Arg::U64(device.address(&self.totals)),
        ]);
        let shared = expansion_shared(roots.depth, expansion.to);
        // SAFETY: queens_expand(const unsigned* roots, u64 count, int n, int row, int to,
        // unsigned* out, u64* written, u64 capacity, unsigned* overflow, u64* totals); `out`
        // has room for `capacity` roots, and the stack needs to - row - 1 words a thread.
        unsafe { engine::launch_per_root(device, "queens_expand", roots.count, shared, &args) }
    }

    fn cdp(&self, device: &Device, roots: Roots, slices: CdpSlices) -> Result<()> {
        let mut args = self.expansion_args(roots, slices.to);
        args.extend([
            Arg::U64(slices.slices),
            Arg::U64(slices.per_block),
            Arg::U64(device.address(&self.overflow)),
            Arg::U64(device.address(&self.totals)),
        ]);
        args.extend(engine::cdp_child_args());
        args.push(Arg::U64(slices.launch_error));
        let shared = expansion_shared(roots.depth, slices.to);
        // SAFETY: queens_cdp_bp(const unsigned* roots, u64 count, int n, int row, int to,
        // unsigned* slices, u64 slice_capacity, unsigned* overflow, u64* totals, int streams,
        // int child_block, unsigned* launch_error); every block's slice of `per_block` roots
        // lies inside `slices`.
        unsafe { engine::launch_per_root(device, "queens_cdp_bp", roots.count, shared, &args) }
    }

    fn check(&self, device: &Device) -> Result<()> {
        if device.download(&self.overflow)?[0] != 0 {
            return Err(Error::Gpu("a survivor buffer overflowed".into()));
        }
        Ok(())
    }
}

/// Shared memory of an expansion from `depth` to `to`: one stack word per level and thread.
fn expansion_shared(depth: usize, to: usize) -> u32 {
    ((to - depth) as u32) * BLOCK * 4
}

/// Counts the nodes and solutions of the permutation search for `n` queens with the GPU
/// strategy `strategy`.
pub fn count_gpu(
    n: usize,
    strategy: Strategy,
    params: &GpuParams,
    progress: &Progress,
) -> Result<(PermQueensCount, GpuRun)> {
    if !(1..=MAX_N).contains(&n) {
        return Err(Error::InvalidInput(format!(
            "board size {n} is out of range: N must be between 1 and {MAX_N}"
        )));
    }
    let device = open_for(
        strategy,
        &crate::kernels::QUEENS,
        &crate::kernels::QUEENS_CDP,
        params.device,
    )?;
    let started = Instant::now();
    let depths = resolve_depths(strategy, params, 0, n - 1, || automatic_depth(n));
    let (roots, above) = frontier(n, depths.d_cpu);
    let host_seconds = started.elapsed().as_secs_f64();
    let kernels = QueensKernels {
        n,
        totals: device.zeros::<u64>(2)?,
        overflow: device.zeros::<u32>(1)?,
    };
    let root_count = (roots.len() / ROOT_WORDS) as u64;
    progress.set_total(root_count);
    let device_started = Instant::now();
    let launched = engine::run(&kernels, &device, strategy, depths, &roots, progress)?;
    let totals = device.download(&kernels.totals)?;
    let device_seconds = device_started.elapsed().as_secs_f64();
    let nodes = above
        .checked_add(totals[0])
        .ok_or_else(|| Error::Overflow("the node count exceeds 64 bits".into()))?;
    let count = PermQueensCount {
        n,
        nodes,
        solutions: totals[1],
    };
    let run = GpuRun {
        device: device.name().to_owned(),
        strategy,
        depths,
        roots: root_count,
        chunk: launched.chunk,
        chunks: launched.chunks,
        launches: launched.launches,
        gpu_roots: launched.gpu_roots,
        host_seconds,
        device_seconds,
    };
    Ok((count, run))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frontier_counts_the_nodes_above_the_roots() {
        // perm-queens 8: 8, 42, 140, 344 nodes at depths 1..=4, 2056 in all, 92 solutions.
        let (roots, above) = frontier(8, 3);
        assert_eq!((roots.len() / ROOT_WORDS, above), (140, 8 + 42 + 140));
        assert_eq!(frontier(8, 7).1, 2056 - 92);
        let (roots, above) = frontier(1, 0);
        assert_eq!((roots.len() / ROOT_WORDS, above), (1, 0));
    }

    #[test]
    fn the_automatic_depth_reaches_a_million_roots() {
        assert_eq!(automatic_depth(13), 9);
        assert_eq!(frontier(13, 9).0.len() / ROOT_WORDS, 1_086_568);
        assert_eq!(automatic_depth(8), 7);
        assert_eq!(automatic_depth(1), 0);
    }

    /// Without a GPU the strategies say why they cannot run; with one, they agree with the
    /// thesis's Table 1.
    #[test]
    fn gpu_strategies_count_table_one_or_say_why_they_cannot() {
        for strategy in [
            Strategy::BpDfs,
            Strategy::BpDfsPool,
            Strategy::RecCdp,
            Strategy::RecDp3,
        ] {
            match count_gpu(10, strategy, &GpuParams::default(), &Progress::hidden()) {
                Ok((count, _)) => assert_eq!((count.nodes, count.solutions), (35_538, 724)),
                Err(Error::Unavailable(why)) => println!("NOTE {}: {why}", strategy.name()),
                Err(other) => panic!("{}: {other}", strategy.name()),
            }
        }
        assert!(matches!(
            count_gpu(
                0,
                Strategy::BpDfs,
                &GpuParams::default(),
                &Progress::hidden()
            ),
            Err(Error::InvalidInput(_))
        ));
    }
}
