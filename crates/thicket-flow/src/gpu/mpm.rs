//! MPM on the GPU (kernels in `kernels/mpm.cu`), as the thesis organises it (Solomon 2012,
//! ch. 5, Algorithm 8): per phase, the layered network by a level-synchronous BFS that stops
//! at the sink and a kernel for the potentials; then, while the source and the sink remain,
//! the argmin of the potentials, the merged push/pull kernel once per layer step, and pruning
//! launches until no vertex leaves (the host reads 4-byte flags and the argmin's words). The
//! residual graph with paired reverse arcs stays on the device; only capacities change.
//!
//! `mpm-scan` is the thesis's "active vertices" variant: push/pull steps after the first and
//! pruning launches after the first run over lists of the vertices that received flow or
//! lost potential, made by a scan of flags.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream, PushKernelArg};
use thicket_core::Result;
use thicket_gpu::{record_event, seconds_between, GpuError};

use super::{
    blocks, download_unsigned, launched, per_list, per_vertex, upload_signed, FlowGpu, GpuSolved,
};
use crate::kernels::MpmKernels;
use crate::kernels::{SCAN_THREADS, SCAN_TILE};
use crate::report::{GpuPhases, SolveStats};

/// Device words of a solve: the argmin's (least potential, its vertex, its level, both
/// terminals alive).
const CTL_WORDS: usize = 4;

impl FlowGpu<'_> {
    /// `mpm` (`active` false) or `mpm-scan` (`active`): host loops of launches, then the
    /// residual capacities down and the flows read from them.
    pub(super) fn solve_mpm(self, active: bool) -> Result<GpuSolved> {
        let mut solve = Solve::new(&self, active)?;
        solve.run()?;
        let downloaded = Instant::now();
        let slots = self.residual.capacity.len();
        let cap = download_unsigned(self.stream(), &solve.cap, slots)?;
        let flows = self.residual.flows_from(&cap, |c| c);
        Ok(GpuSolved {
            flows,
            stats: solve.stats,
            phases: solve.phases,
            download_seconds: downloaded.elapsed().as_secs_f64(),
        })
    }
}

/// One solve's device arrays and kernels.
struct Solve<'a> {
    g: &'a FlowGpu<'a>,
    active: bool,
    n: u32,
    cap: CudaSlice<i64>,
    level: CudaSlice<u32>,
    alive: CudaSlice<u32>,
    inward: CudaSlice<i64>,
    outward: CudaSlice<i64>,
    held: CudaSlice<i64>,
    flags: CudaSlice<u32>,
    lists: [CudaSlice<u32>; 2],
    counts: CudaSlice<u32>,
    tile_counts: CudaSlice<u32>,
    word: CudaSlice<u32>,
    ctl: CudaSlice<u64>,
    k: &'a MpmKernels,
    stats: SolveStats,
    phases: GpuPhases,
}

impl<'a> Solve<'a> {
    fn new(g: &'a FlowGpu<'a>, active: bool) -> Result<Solve<'a>> {
        let stream = g.stream();
        let n = g.residual.vertices as usize;
        let zeros_u32 = |count: usize| {
            stream
                .alloc_zeros::<u32>(count.max(1))
                .map_err(GpuError::driver("cuMemAlloc"))
        };
        let zeros_i64 = |count: usize| {
            stream
                .alloc_zeros::<i64>(count.max(1))
                .map_err(GpuError::driver("cuMemAlloc"))
        };
        Ok(Solve {
            g,
            active,
            n: n as u32,
            cap: upload_signed(stream, &g.residual.capacity)?,
            level: zeros_u32(n)?,
            alive: zeros_u32(n)?,
            inward: zeros_i64(n)?,
            outward: zeros_i64(n)?,
            held: zeros_i64(n)?,
            flags: zeros_u32(n)?,
            lists: [zeros_u32(n)?, zeros_u32(n)?],
            counts: zeros_u32(2)?,
            tile_counts: zeros_u32(n.div_ceil(SCAN_TILE))?,
            word: zeros_u32(2)?,
            ctl: stream
                .alloc_zeros::<u64>(CTL_WORDS)
                .map_err(GpuError::driver("cuMemAlloc"))?,
            k: g.device.mpm()?,
            stats: SolveStats::default(),
            phases: GpuPhases::default(),
        })
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.g.stream()
    }

    fn read_u32(&self, words: &CudaSlice<u32>) -> Result<Vec<u32>> {
        Ok(self
            .stream()
            .clone_dtoh(words)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?)
    }

    fn clear_word(&mut self) -> Result<()> {
        let stream = self.g.stream().clone();
        stream
            .memset_zeros(&mut self.word)
            .map_err(GpuError::driver("cuMemsetD8"))?;
        Ok(())
    }

    /// BFS levels up to the sink's; its level, or `None` where it is out of reach.
    fn layered(&mut self) -> Result<Option<u32>> {
        let (n, s, t) = (self.n, self.g.source, self.g.sink);
        let stream = self.g.stream().clone();
        let mut launch = stream.launch_builder(&self.k.fill_levels);
        launch.arg(&mut self.level).arg(&n).arg(&s);
        // SAFETY: fill_levels(level, n, s) writes level[0..n).
        launched(unsafe { launch.launch(per_vertex(self.n)) }.map(|_| ()))?;
        self.phases.launches += 1;
        let mut depth = 0u32;
        loop {
            self.clear_word()?;
            let mut launch = stream.launch_builder(&self.k.bfs_level);
            launch
                .arg(&self.g.start)
                .arg(&self.g.head)
                .arg(&self.cap)
                .arg(&mut self.level)
                .arg(&n)
                .arg(&depth)
                .arg(&t)
                .arg(&mut self.word);
            // SAFETY: bfs_level(start, head, cap, level, n, depth, t, flags): the residual
            // graph's n + 1 offsets and arcs, n levels, two flag words.
            launched(unsafe { launch.launch(per_vertex(self.n)) }.map(|_| ()))?;
            self.phases.launches += 1;
            let flags = self.read_u32(&self.word)?;
            if flags[1] != 0 {
                return Ok(Some(depth + 1));
            }
            if flags[0] == 0 {
                return Ok(None);
            }
            depth += 1;
        }
    }

    fn potentials(&mut self, depth: u32) -> Result<()> {
        let (n, t) = (self.n, self.g.sink);
        let stream = self.g.stream().clone();
        let mut launch = stream.launch_builder(&self.k.mark_alive);
        launch
            .arg(&self.level)
            .arg(&mut self.alive)
            .arg(&n)
            .arg(&depth)
            .arg(&t);
        // SAFETY: mark_alive(level, alive, n, depth, t): n levels and flags.
        launched(unsafe { launch.launch(per_vertex(self.n)) }.map(|_| ()))?;
        let mut launch = stream.launch_builder(&self.k.potentials);
        launch
            .arg(&self.g.start)
            .arg(&self.g.head)
            .arg(&self.g.pair)
            .arg(&self.cap)
            .arg(&self.level)
            .arg(&self.alive)
            .arg(&mut self.inward)
            .arg(&mut self.outward)
            .arg(&n);
        // SAFETY: potentials(start, head, pair, cap, level, alive, in, out, n): the residual
        // graph and n entries of each vertex array.
        launched(unsafe { launch.launch(per_vertex(self.n)) }.map(|_| ()))?;
        self.phases.launches += 2;
        Ok(())
    }

    /// Flags into `lists[into]` with its length in `counts[into]` (the flags cleared).
    fn compact(&mut self, into: usize) -> Result<()> {
        let n = self.n;
        let tiles = (n as usize).div_ceil(SCAN_TILE);
        let tiles_arg = tiles as u32;
        let stream = self.g.stream().clone();
        let mut launch = stream.launch_builder(&self.k.scan_count);
        launch.arg(&self.flags).arg(&n).arg(&mut self.tile_counts);
        // SAFETY: scan_count(flags, n, tile_counts): one block per tile of SCAN_TILE flags.
        launched(unsafe { launch.launch(blocks(tiles * SCAN_THREADS, SCAN_THREADS)) }.map(|_| ()))?;
        let mut count = self.counts.slice_mut(into..into + 1);
        let mut launch = stream.launch_builder(&self.k.scan_offsets);
        launch
            .arg(&mut self.tile_counts)
            .arg(&tiles_arg)
            .arg(&mut count);
        // SAFETY: scan_offsets(tile_counts, tiles, total) in one block; total is one word.
        launched(unsafe { launch.launch(blocks(SCAN_THREADS, SCAN_THREADS)) }.map(|_| ()))?;
        let mut launch = stream.launch_builder(&self.k.scan_compact);
        launch
            .arg(&mut self.flags)
            .arg(&n)
            .arg(&self.tile_counts)
            .arg(&mut self.lists[into]);
        // SAFETY: scan_compact(flags, n, tile_offsets, list): at most n flagged vertices
        // into a list of n entries.
        launched(unsafe { launch.launch(blocks(tiles * SCAN_THREADS, SCAN_THREADS)) }.map(|_| ()))?;
        self.phases.launches += 3;
        Ok(())
    }

    /// Pruning launches until no vertex leaves.
    fn prune(&mut self) -> Result<()> {
        let stream = self.g.stream().clone();
        let started = record_event(&stream)?;
        self.clear_word()?;
        self.launch_prune(false)?;
        while self.read_u32(&self.word)?[0] != 0 {
            self.clear_word()?;
            if self.active {
                self.compact(0)?;
            }
            self.launch_prune(self.active)?;
        }
        let ended = record_event(&stream)?;
        self.phases.add("prune", seconds_between(&started, &ended)?);
        Ok(())
    }

    /// One pruning launch: over the list of the vertices whose potential fell (`lists[0]`,
    /// `mpm-scan`'s cascades after the first launch), or over every vertex (the first launch
    /// of a cascade, and every one of the thesis's base variant).
    fn launch_prune(&mut self, over_list: bool) -> Result<()> {
        let stream = self.g.stream().clone();
        let (n, s, t) = (self.n, self.g.source, self.g.sink);
        let flag_touched = u32::from(self.active);
        let kernel = if over_list {
            &self.k.prune_list
        } else {
            &self.k.prune
        };
        let mut launch = stream.launch_builder(kernel);
        launch
            .arg(&self.g.start)
            .arg(&self.g.head)
            .arg(&self.g.pair)
            .arg(&self.cap)
            .arg(&self.level)
            .arg(&mut self.alive)
            .arg(&mut self.inward)
            .arg(&mut self.outward);
        if over_list {
            launch.arg(&self.lists[0]).arg(&self.counts);
        } else {
            launch.arg(&n);
        }
        launch
            .arg(&s)
            .arg(&t)
            .arg(&mut self.word)
            .arg(&mut self.flags);
        if !over_list {
            launch.arg(&flag_touched);
        }
        let config = if over_list {
            per_list(n)
        } else {
            per_vertex(n)
        };
        // SAFETY: prune(start, head, pair, cap, level, alive, in, out, n, s, t, left, touched,
        // flag_touched) and prune_list(start, head, pair, cap, level, alive, in, out, list,
        // count, s, t, left, touched): the residual graph, n entries of each vertex array, two
        // words; the list holds at most n vertex ids and its length is counts[0].
        launched(unsafe { launch.launch(config) }.map(|_| ()))?;
        self.phases.launches += 1;
        Ok(())
    }

    /// The vertex of least potential: (potential, vertex, level), or `None` once the source
    /// or the sink has left.
    fn argmin(&mut self) -> Result<Option<(u64, u32, u32)>> {
        let (n, s, t) = (self.n, self.g.source, self.g.sink);
        let stream = self.g.stream().clone();
        let mut launch = stream.launch_builder(&self.k.argmin_reset);
        launch.arg(&mut self.ctl);
        // SAFETY: argmin_reset(ctl): CTL_WORDS words.
        launched(unsafe { launch.launch(blocks(1, 1)) }.map(|_| ()))?;
        for kernel in [&self.k.argmin_value, &self.k.argmin_vertex] {
            let mut launch = stream.launch_builder(kernel);
            launch
                .arg(&self.alive)
                .arg(&self.inward)
                .arg(&self.outward)
                .arg(&n)
                .arg(&s)
                .arg(&t)
                .arg(&mut self.ctl);
            // SAFETY: argmin_value / argmin_vertex(alive, in, out, n, s, t, ctl): n entries
            // of each vertex array, CTL_WORDS words.
            launched(unsafe { launch.launch(per_vertex(self.n)) }.map(|_| ()))?;
        }
        let mut launch = stream.launch_builder(&self.k.argmin_finish);
        launch
            .arg(&self.level)
            .arg(&self.alive)
            .arg(&s)
            .arg(&t)
            .arg(&mut self.ctl)
            .arg(&mut self.held);
        // SAFETY: argmin_finish(level, alive, s, t, ctl, held): reads the vertex the argmin
        // found (< n) where there is one.
        launched(unsafe { launch.launch(blocks(1, 1)) }.map(|_| ()))?;
        self.phases.launches += 4;
        let ctl = self
            .stream()
            .clone_dtoh(&self.ctl)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        if ctl[3] == 0 || ctl[1] == u64::MAX {
            return Ok(None);
        }
        Ok(Some((ctl[0], ctl[1] as u32, ctl[2] as u32)))
    }

    /// The push/pull steps from the vertex of least potential at level `lm`.
    fn push_pull(&mut self, lm: u32, depth: u32) -> Result<()> {
        let (n, s, t) = (self.n, self.g.source, self.g.sink);
        let stream = self.g.stream().clone();
        let steps = (depth - lm).max(lm);
        let mut current = 0usize;
        for k in 0..steps {
            if self.active {
                let mut launch = stream.launch_builder(&self.k.push_pull_list);
                let count = self.counts.slice(current..current + 1);
                launch
                    .arg(&self.g.start)
                    .arg(&self.g.head)
                    .arg(&self.g.pair)
                    .arg(&mut self.cap)
                    .arg(&self.level)
                    .arg(&self.alive)
                    .arg(&mut self.inward)
                    .arg(&mut self.outward)
                    .arg(&mut self.held)
                    .arg(&self.lists[current])
                    .arg(&count)
                    .arg(&k)
                    .arg(&s)
                    .arg(&t)
                    .arg(&self.ctl)
                    .arg(&mut self.flags);
                // SAFETY: push_pull_list(..., list, count, k, s, t, ctl, flags): the list
                // holds counts[current] vertex ids below n (unused in step 0).
                launched(unsafe { launch.launch(per_list(self.n)) }.map(|_| ()))?;
                current = 1 - current;
                self.compact(current)?;
            } else {
                let mut launch = stream.launch_builder(&self.k.push_pull);
                launch
                    .arg(&self.g.start)
                    .arg(&self.g.head)
                    .arg(&self.g.pair)
                    .arg(&mut self.cap)
                    .arg(&self.level)
                    .arg(&self.alive)
                    .arg(&mut self.inward)
                    .arg(&mut self.outward)
                    .arg(&mut self.held)
                    .arg(&n)
                    .arg(&k)
                    .arg(&s)
                    .arg(&t)
                    .arg(&self.ctl);
                // SAFETY: push_pull(..., held, n, k, s, t, ctl): n entries of each vertex
                // array, the residual graph, CTL_WORDS words.
                launched(unsafe { launch.launch(per_vertex(self.n)) }.map(|_| ()))?;
            }
            self.phases.launches += 1;
        }
        Ok(())
    }

    fn run(&mut self) -> Result<()> {
        let stream = self.g.stream().clone();
        loop {
            let started = record_event(&stream)?;
            let Some(depth) = self.layered()? else {
                break;
            };
            self.potentials(depth)?;
            let ended = record_event(&stream)?;
            self.phases
                .add("layered", seconds_between(&started, &ended)?);
            self.stats.phases += 1;
            self.prune()?;
            loop {
                let started = record_event(&stream)?;
                let Some((_, _, lm)) = self.argmin()? else {
                    break;
                };
                self.push_pull(lm, depth)?;
                let ended = record_event(&stream)?;
                self.phases
                    .add("push_pull", seconds_between(&started, &ended)?);
                self.stats.steps += 1;
                self.prune()?;
            }
        }
        Ok(())
    }
}
