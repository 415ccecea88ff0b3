//! MPM on the GPU (kernels in `kernels/mpm.cu`), as the thesis organises it (Solomon 2012,
//! ch. 5, Algorithm 8): per phase, the layered network by a level-synchronous BFS that stops
//! at the sink and a kernel for the potentials; then, while the source and the sink remain,
//! the argmin of the potentials, the merged push/pull kernel once per layer step, and pruning
//! launches until no vertex leaves (the host reads 4-byte flags and the argmin's words). The
//! residual graph with paired reverse arcs stays on the device; only capacities change.
//!
//! [`GpuStrategy::MpmScan`] is the thesis's "active vertices" variant: push/pull steps after
//! the first and pruning launches after the first run over lists of the vertices that received
//! flow or lost potential, made by a scan of flags. [`GpuStrategy::MpmActive`] runs the same
//! algorithm in one cooperative launch (`kernels/mpm_fused.cu`).
//!
//! Device time is taken per phase with CUDA events, for the thesis's Tables 5.1-5.3.

use std::cell::OnceCell;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use rayon::prelude::*;
use thicket_core::{Error, Result};
use thicket_gpu::{record_event, seconds_between, Gpu, GpuError};

use crate::kernels::{
    FUSED_CTL_WORDS, FUSED_THREADS, LEVELS_PER_READ, LIST_BLOCKS, MPM, MPM_FUSED, PUSH_RELABEL,
    ROUND_LAUNCHES, SCAN_THREADS, SCAN_TILE, SLOT_BASE, SLOT_WORDS, STAT_PHASES, STAT_ROUNDS,
    STAT_STEPS, THREADS, TIME_LAYERED, TIME_PRUNE, TIME_PUSH_PULL,
};
use crate::mpm::SolveStats;
use crate::push_relabel;
use crate::residual::Residual;

/// Which GPU MPM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuStrategy {
    /// One thread per vertex in every launch.
    Mpm,
    /// The whole solve in one cooperative launch, lists of active vertices by atomic appends.
    MpmActive,
    /// Lists of active vertices by scans, for push/pull and pruning (host loops).
    MpmScan,
    /// Lock-free push-relabel with global relabelling (Hong 2008); the excess that cannot
    /// reach the sink is returned to the source on the CPU.
    PushRelabel,
}

/// Time per phase (device time by events; the host's part of the GPU push-relabel by the
/// clock), by name, and kernel launches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuPhases {
    /// Seconds per phase, in the order first met: MPM `layered` (BFS levels, layered vertices,
    /// potentials), `prune` (with its scans), `push_pull` (with the argmin and scans);
    /// push-relabel `push_relabel`, `global_relabel` and `host_return` (the excess returned
    /// to the source on the CPU).
    pub seconds: Vec<(&'static str, f64)>,
    /// Kernel launches.
    pub launches: u64,
    /// Grid barriers inside the launches (the one-launch MPM's rounds).
    pub barriers: u64,
}

impl GpuPhases {
    /// Adds `seconds` to phase `name`.
    pub fn add(&mut self, name: &'static str, seconds: f64) {
        match self.seconds.iter_mut().find(|(n, _)| *n == name) {
            Some((_, s)) => *s += seconds,
            None => self.seconds.push((name, seconds)),
        }
    }

    /// The phases' sum.
    pub fn total_seconds(&self) -> f64 {
        self.seconds.iter().map(|(_, s)| s).sum()
    }
}

/// A maximum flow found on the GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuSolved {
    /// The flow on every input arc.
    pub flows: Vec<u64>,
    /// Phases and vertices of least potential saturated.
    pub stats: SolveStats,
    /// Device time per phase.
    pub phases: GpuPhases,
    /// Host seconds from the solve's end to the flows in host memory: the residual
    /// capacities' copy down and the flows read from them.
    pub download_seconds: f64,
}

/// One GPU opened, with the kernels each strategy needs loaded on first use: opened once and
/// kept, it serves any number of networks ([`FlowGpu::upload`]) without paying the context or
/// the modules again.
pub struct FlowDevice {
    gpu: Gpu,
    mpm: OnceCell<Arc<CudaModule>>,
    fused: OnceCell<Arc<CudaModule>>,
    push_relabel: OnceCell<Arc<CudaModule>>,
}

impl FlowDevice {
    /// Opens GPU `ordinal` (its primary context); no kernel is loaded yet.
    pub fn open(ordinal: usize) -> Result<FlowDevice> {
        Ok(FlowDevice {
            gpu: Gpu::open(ordinal)?,
            mpm: OnceCell::new(),
            fused: OnceCell::new(),
            push_relabel: OnceCell::new(),
        })
    }

    /// The GPU's name.
    pub fn name(&self) -> String {
        self.gpu.info().name.clone()
    }

    /// Loads (compiling or taking from the kernel cache) the kernels `strategy` runs, once.
    pub fn prepare(&self, strategy: GpuStrategy) -> Result<()> {
        self.module(strategy).map(|_| ())
    }

    fn module(&self, strategy: GpuStrategy) -> Result<Arc<CudaModule>> {
        let (cell, source) = match strategy {
            GpuStrategy::Mpm | GpuStrategy::MpmScan => (&self.mpm, &MPM),
            GpuStrategy::MpmActive => (&self.fused, &MPM_FUSED),
            GpuStrategy::PushRelabel => (&self.push_relabel, &PUSH_RELABEL),
        };
        if let Some(module) = cell.get() {
            return Ok(module.clone());
        }
        let module = self.gpu.load_module(&source.source, &source.options())?;
        Ok(cell.get_or_init(|| module).clone())
    }
}

/// A network's residual graph on a [`FlowDevice`]: its structure uploaded, the capacities
/// uploaded by each solve.
pub struct FlowGpu<'d> {
    device: &'d FlowDevice,
    gpu: &'d Gpu,
    residual: Residual,
    source: u32,
    sink: u32,
    start: CudaSlice<u32>,
    head: CudaSlice<u32>,
    pair: CudaSlice<u32>,
}

/// Device words of a solve: the argmin's (least potential, its vertex, its level, both
/// terminals alive).
const CTL_WORDS: usize = 4;

impl<'d> FlowGpu<'d> {
    /// Uploads the structure of `residual` (from `source` to `sink`) to `device`, after
    /// checking that the solve's arrays fit in its free memory.
    pub fn upload(
        device: &'d FlowDevice,
        residual: Residual,
        source: u32,
        sink: u32,
    ) -> Result<FlowGpu<'d>> {
        let gpu = &device.gpu;
        let n = residual.vertices as u64;
        let slots = residual.head.len() as u64;
        // start, head, pair, capacities; levels, alive, flags, two lists; three i64 arrays.
        let bytes = 4 * (n + 1) + slots * (4 + 4 + 8) + n * (4 * 5 + 8 * 3);
        let (free, _) = gpu
            .context()
            .mem_get_info()
            .map_err(GpuError::driver("cuMemGetInfo"))?;
        if bytes > free as u64 {
            return Err(Error::Gpu(format!(
                "the network does not fit on GPU {}: {n} vertices and {} arcs need \
                 {:.2} GiB, {:.2} GiB are free",
                gpu.ordinal(),
                slots / 2,
                bytes as f64 / (1u64 << 30) as f64,
                free as f64 / (1u64 << 30) as f64
            )));
        }
        let stream = gpu.stream().clone();
        let up = |values: &[u32]| {
            stream
                .clone_htod(values)
                .map_err(GpuError::driver("cuMemcpyHtoD"))
        };
        let (start, head, pair) = (
            up(&residual.start)?,
            up(&residual.head)?,
            up(&residual.pair)?,
        );
        Ok(FlowGpu {
            device,
            gpu,
            residual,
            source,
            sink,
            start,
            head,
            pair,
        })
    }

    fn function(&self, name: &str) -> Result<CudaFunction> {
        let module = self.device.module(GpuStrategy::Mpm)?;
        Ok(self.gpu.load_function(&module, name)?)
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.gpu.stream()
    }

    /// Finds a maximum flow with `strategy`: the capacities up, the solve, the residual
    /// capacities down and the flows read from them.
    pub fn solve(self, strategy: GpuStrategy) -> Result<GpuSolved> {
        match strategy {
            GpuStrategy::PushRelabel => return self.solve_push_relabel(),
            GpuStrategy::MpmActive => return self.solve_fused(),
            GpuStrategy::Mpm | GpuStrategy::MpmScan => {}
        }
        let mut solve = Solve::new(&self, strategy)?;
        solve.run()?;
        let downloaded = Instant::now();
        let cap = self
            .stream()
            .clone_dtoh(&solve.cap)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        let flows = self.residual.flows_from(&cap, |c| c as u64);
        Ok(GpuSolved {
            flows,
            stats: solve.stats,
            phases: solve.phases,
            download_seconds: downloaded.elapsed().as_secs_f64(),
        })
    }
}

/// The residual capacities as the kernels' signed words (every one fits: the capacities'
/// sum does), converted by as many threads as there are arcs for.
fn signed(capacity: &[u64]) -> Vec<i64> {
    capacity
        .par_iter()
        .with_min_len(1 << 18)
        .map(|&c| c as i64)
        .collect()
}

impl FlowGpu<'_> {
    /// `mpm-active`: the whole solve in one cooperative launch of `mpm_fused`, one block per
    /// SM (the grid barrier needs the grid co-resident); only the residual capacities and the
    /// control words come back.
    fn solve_fused(self) -> Result<GpuSolved> {
        let stream = self.stream().clone();
        let (s, t) = (self.source, self.sink);
        let r = &self.residual;
        let n = r.vertices as usize;
        let module = self.device.module(GpuStrategy::MpmActive)?;
        let kernel = self.gpu.load_function(&module, "mpm_fused")?;
        let per_sm = kernel
            .occupancy_max_active_blocks_per_multiprocessor(FUSED_THREADS as u32, 0, None)
            .map_err(GpuError::driver(
                "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            ))?;
        if per_sm == 0 {
            return Err(Error::Gpu(
                "mpm_fused does not fit on an SM with its block size".into(),
            ));
        }
        let mut cap = stream
            .clone_htod(&signed(&r.capacity))
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let zeros_u32 = |len: usize| {
            stream
                .alloc_zeros::<u32>(len.max(1))
                .map_err(GpuError::driver("cuMemAlloc"))
        };
        let zeros_i64 = |len: usize| {
            stream
                .alloc_zeros::<i64>(len.max(1))
                .map_err(GpuError::driver("cuMemAlloc"))
        };
        let (mut level, mut alive, mut flags) = (zeros_u32(n)?, zeros_u32(n)?, zeros_u32(n)?);
        let (mut list0, mut list1) = (zeros_u32(n)?, zeros_u32(n)?);
        let (mut inward, mut outward, mut held) = (zeros_i64(n)?, zeros_i64(n)?, zeros_i64(n)?);
        let mut words = vec![0u64; FUSED_CTL_WORDS];
        for slot in 0..3 {
            // Each slot's least potential and vertex start at "none".
            words[SLOT_BASE + slot * SLOT_WORDS + 2] = u64::MAX;
            words[SLOT_BASE + slot * SLOT_WORDS + 3] = u64::MAX;
        }
        let mut ctl = stream
            .clone_htod(&words)
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let config = LaunchConfig {
            grid_dim: (self.gpu.info().sm_count, 1, 1),
            block_dim: (FUSED_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let n_arg = n as u32;
        let started = record_event(&stream)?;
        let mut launch = stream.launch_builder(&kernel);
        launch
            .arg(&self.start)
            .arg(&self.head)
            .arg(&self.pair)
            .arg(&mut cap)
            .arg(&mut level)
            .arg(&mut alive)
            .arg(&mut inward)
            .arg(&mut outward)
            .arg(&mut held)
            .arg(&mut flags)
            .arg(&mut list0)
            .arg(&mut list1)
            .arg(&n_arg)
            .arg(&s)
            .arg(&t)
            .arg(&mut ctl);
        // SAFETY: mpm_fused(start (n + 1), head, pair, cap (per residual arc), level, alive,
        // in, out, held, flags (zero), two lists (n each), n, s, t, ctl (FUSED_CTL_WORDS, set
        // as the kernel expects)); a list holds a vertex at most once (its flag), so n entries
        // suffice; a cooperative launch of one block per SM (at least one fits), which the
        // grid barrier needs.
        unsafe { launch.launch_cooperative(config) }
            .map_err(GpuError::driver("cuLaunchCooperativeKernel"))?;
        let ended = record_event(&stream)?;
        let kernel_seconds = seconds_between(&started, &ended)?;
        let downloaded = Instant::now();
        let words = stream
            .clone_dtoh(&ctl)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        let cap = stream
            .clone_dtoh(&cap)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        let flows = r.flows_from(&cap, |c| c as u64);
        Ok(GpuSolved {
            flows,
            stats: SolveStats {
                phases: words[STAT_PHASES],
                steps: words[STAT_STEPS],
                ..SolveStats::default()
            },
            phases: fused_phases(&words, kernel_seconds),
            download_seconds: downloaded.elapsed().as_secs_f64(),
        })
    }
}

impl FlowGpu<'_> {
    /// Push-relabel: rounds of ROUND_LAUNCHES · CYCLES sweeps, each after a global
    /// relabelling, until no
    /// vertex below label n holds excess; then the preflow becomes a flow on the CPU.
    fn solve_push_relabel(self) -> Result<GpuSolved> {
        let stream = self.stream().clone();
        let (s, t) = (self.source, self.sink);
        let mut r = self.residual;
        let excess = push_relabel::saturate_source(&mut r, s);
        let n = r.vertices;
        let up = |values: Vec<i64>| {
            stream
                .clone_htod(&values)
                .map_err(GpuError::driver("cuMemcpyHtoD"))
        };
        let mut cap = up(signed(&r.capacity))?;
        let mut excess_d = up(signed(&excess))?;
        let mut label = stream
            .alloc_zeros::<u32>(n as usize)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let mut word = stream
            .alloc_zeros::<u32>(1)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let mut labelled = stream
            .alloc_zeros::<u32>(n as usize)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let module = self.device.module(GpuStrategy::PushRelabel)?;
        let f = |name: &str| -> Result<CudaFunction> { Ok(self.gpu.load_function(&module, name)?) };
        let (round, gr_init, gr_level, active) = (
            f("pr_round")?,
            f("gr_init")?,
            f("gr_level")?,
            f("pr_active")?,
        );
        let mut phases = GpuPhases::default();
        let mut stats = SolveStats::default();
        let all = per_vertex(n);
        // Resident threads fill the GPU; each sweeps its share of vertices CYCLES times.
        let sweep = per_list(n);
        loop {
            // Global relabelling: exact distances to the sink over arcs with room.
            let started = record_event(&stream)?;
            let mut launch = stream.launch_builder(&gr_init);
            launch.arg(&mut label).arg(&n).arg(&t);
            // SAFETY: gr_init(label, n, t) writes label[0..n).
            launched(unsafe { launch.launch(all) }.map(|_| ()))?;
            stream
                .memset_zeros(&mut labelled)
                .map_err(GpuError::driver("cuMemsetD8"))?;
            // Levels in batches: a level after one that labels nothing labels nothing either.
            let mut depth = 0u32;
            while depth < n {
                let last = (depth + LEVELS_PER_READ).min(n);
                for d in depth..last {
                    let mut launch = stream.launch_builder(&gr_level);
                    launch
                        .arg(&self.start)
                        .arg(&self.head)
                        .arg(&self.pair)
                        .arg(&cap)
                        .arg(&mut label)
                        .arg(&n)
                        .arg(&d)
                        .arg(&s)
                        .arg(&mut labelled);
                    // SAFETY: gr_level(start, head, pair, cap, label, n, depth, s, labelled):
                    // the residual graph, n labels, n flags (depth < n).
                    launched(unsafe { launch.launch(all) }.map(|_| ()))?;
                    phases.launches += 1;
                }
                let flag = stream
                    .clone_dtoh(&labelled.slice(last as usize - 1..last as usize))
                    .map_err(GpuError::driver("cuMemcpyDtoH"))?;
                if flag[0] == 0 {
                    break;
                }
                depth = last;
            }
            stream
                .memset_zeros(&mut word)
                .map_err(GpuError::driver("cuMemsetD8"))?;
            let mut launch = stream.launch_builder(&active);
            launch
                .arg(&label)
                .arg(&excess_d)
                .arg(&n)
                .arg(&s)
                .arg(&t)
                .arg(&mut word);
            // SAFETY: pr_active(label, excess, n, s, t, count): n entries, one word.
            launched(unsafe { launch.launch(all) }.map(|_| ()))?;
            let count = stream
                .clone_dtoh(&word)
                .map_err(GpuError::driver("cuMemcpyDtoH"))?[0];
            let ended = record_event(&stream)?;
            phases.add("global_relabel", seconds_between(&started, &ended)?);
            phases.launches += 2;
            stats.phases += 1;
            if count == 0 {
                break;
            }
            let started = record_event(&stream)?;
            for _ in 0..ROUND_LAUNCHES {
                let mut launch = stream.launch_builder(&round);
                launch
                    .arg(&self.start)
                    .arg(&self.head)
                    .arg(&self.pair)
                    .arg(&mut cap)
                    .arg(&mut label)
                    .arg(&mut excess_d)
                    .arg(&n)
                    .arg(&s)
                    .arg(&t);
                // SAFETY: pr_round(start, head, pair, cap, label, excess, n, s, t): the
                // residual graph, n labels and excesses; threads stride over ids below n.
                launched(unsafe { launch.launch(sweep) }.map(|_| ()))?;
            }
            let ended = record_event(&stream)?;
            phases.add("push_relabel", seconds_between(&started, &ended)?);
            phases.launches += ROUND_LAUNCHES as u64;
            stats.steps += 1;
        }
        let downloaded = Instant::now();
        let down = |values: &CudaSlice<i64>| -> Result<Vec<u64>> {
            let words = stream
                .clone_dtoh(values)
                .map_err(GpuError::driver("cuMemcpyDtoH"))?;
            Ok(words
                .par_iter()
                .with_min_len(1 << 18)
                .map(|&x| x as u64)
                .collect())
        };
        r.capacity = down(&cap)?;
        let excess = down(&excess_d)?;
        let mut download_seconds = downloaded.elapsed().as_secs_f64();
        let started = Instant::now();
        let back = push_relabel::return_excess(&mut r, excess, s, t);
        phases.add("host_return", started.elapsed().as_secs_f64());
        stats.relabels = back.relabels;
        let read = Instant::now();
        let flows = r.flows();
        download_seconds += read.elapsed().as_secs_f64();
        Ok(GpuSolved {
            flows,
            stats,
            phases,
            download_seconds,
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
    k: Kernels,
    stats: SolveStats,
    phases: GpuPhases,
}

struct Kernels {
    fill_levels: CudaFunction,
    bfs_level: CudaFunction,
    mark_alive: CudaFunction,
    potentials: CudaFunction,
    prune: CudaFunction,
    prune_list: CudaFunction,
    argmin_reset: CudaFunction,
    argmin_value: CudaFunction,
    argmin_vertex: CudaFunction,
    argmin_finish: CudaFunction,
    push_pull: CudaFunction,
    push_pull_list: CudaFunction,
    scan_count: CudaFunction,
    scan_offsets: CudaFunction,
    scan_compact: CudaFunction,
}

fn blocks(count: usize, threads: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (count.div_ceil(threads).max(1) as u32, 1, 1),
        block_dim: (threads as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// One thread per vertex.
fn per_vertex(n: u32) -> LaunchConfig {
    blocks(n as usize, THREADS)
}

/// Threads that walk a list of at most `n` vertices (grid-stride).
fn per_list(n: u32) -> LaunchConfig {
    let mut c = per_vertex(n);
    c.grid_dim.0 = c.grid_dim.0.min(LIST_BLOCKS as u32);
    c
}

/// The one-launch MPM's per-phase split: the lead thread's clock (nanoseconds) scaled to the
/// launch's event time, so that the phases add up to it.
fn fused_phases(words: &[u64], kernel_seconds: f64) -> GpuPhases {
    let parts = [
        ("layered", words[TIME_LAYERED]),
        ("prune", words[TIME_PRUNE]),
        ("push_pull", words[TIME_PUSH_PULL]),
    ];
    let clocked: u64 = parts.iter().map(|(_, ns)| ns).sum();
    let mut phases = GpuPhases {
        launches: 1,
        ..GpuPhases::default()
    };
    for (name, ns) in parts {
        let share = if clocked == 0 {
            0.0
        } else {
            ns as f64 / clocked as f64
        };
        phases.add(name, share * kernel_seconds);
    }
    phases.barriers = words[STAT_ROUNDS];
    phases
}

fn launched(result: std::result::Result<(), cudarc::driver::DriverError>) -> Result<()> {
    Ok(result.map_err(GpuError::driver("cuLaunchKernel"))?)
}

impl<'a> Solve<'a> {
    fn new(g: &'a FlowGpu<'a>, strategy: GpuStrategy) -> Result<Solve<'a>> {
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
        let capacities = signed(&g.residual.capacity);
        let f = |name: &str| g.function(name);
        Ok(Solve {
            g,
            active: strategy == GpuStrategy::MpmScan,
            n: n as u32,
            cap: stream
                .clone_htod(&capacities)
                .map_err(GpuError::driver("cuMemcpyHtoD"))?,
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
            k: Kernels {
                fill_levels: f("fill_levels")?,
                bfs_level: f("bfs_level")?,
                mark_alive: f("mark_alive")?,
                potentials: f("potentials")?,
                prune: f("prune")?,
                prune_list: f("prune_list")?,
                argmin_reset: f("argmin_reset")?,
                argmin_value: f("argmin_value")?,
                argmin_vertex: f("argmin_vertex")?,
                argmin_finish: f("argmin_finish")?,
                push_pull: f("push_pull")?,
                push_pull_list: f("push_pull_list")?,
                scan_count: f("scan_count")?,
                scan_offsets: f("scan_offsets")?,
                scan_compact: f("scan_compact")?,
            },
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
        let (s, t) = (self.g.source, self.g.sink);
        self.clear_word()?;
        self.prune_every_vertex()?;
        while self.read_u32(&self.word)?[0] != 0 {
            self.clear_word()?;
            if self.active {
                self.compact(0)?;
                let mut launch = stream.launch_builder(&self.k.prune_list);
                launch
                    .arg(&self.g.start)
                    .arg(&self.g.head)
                    .arg(&self.g.pair)
                    .arg(&self.cap)
                    .arg(&self.level)
                    .arg(&mut self.alive)
                    .arg(&mut self.inward)
                    .arg(&mut self.outward)
                    .arg(&self.lists[0])
                    .arg(&self.counts)
                    .arg(&s)
                    .arg(&t)
                    .arg(&mut self.word)
                    .arg(&mut self.flags);
                // SAFETY: prune_list(..., list, count, s, t, left, touched): the list holds at
                // most n vertex ids and its length is counts[0].
                launched(unsafe { launch.launch(per_list(self.n)) }.map(|_| ()))?;
                self.phases.launches += 1;
            } else {
                self.prune_every_vertex()?;
            }
        }
        let ended = record_event(&stream)?;
        self.phases.add("prune", seconds_between(&started, &ended)?);
        Ok(())
    }

    /// One pruning launch over every vertex (the first of a cascade, and every one of the
    /// thesis's base variant).
    fn prune_every_vertex(&mut self) -> Result<()> {
        let stream = self.g.stream().clone();
        let (n, s, t) = (self.n, self.g.source, self.g.sink);
        let flag = u32::from(self.active);
        let mut launch = stream.launch_builder(&self.k.prune);
        launch
            .arg(&self.g.start)
            .arg(&self.g.head)
            .arg(&self.g.pair)
            .arg(&self.cap)
            .arg(&self.level)
            .arg(&mut self.alive)
            .arg(&mut self.inward)
            .arg(&mut self.outward)
            .arg(&n)
            .arg(&s)
            .arg(&t)
            .arg(&mut self.word)
            .arg(&mut self.flags)
            .arg(&flag);
        // SAFETY: prune(start, head, pair, cap, level, alive, in, out, n, s, t, left, touched,
        // flag_touched): the residual graph, n entries of each vertex array, one word.
        launched(unsafe { launch.launch(per_vertex(self.n)) }.map(|_| ()))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The lead thread's clock splits the launch's event time in its proportions, and the
    /// barrier count comes through.
    #[test]
    fn the_one_launch_phases_add_up_to_the_launch() {
        let mut words = vec![0u64; FUSED_CTL_WORDS];
        words[TIME_LAYERED] = 1_000;
        words[TIME_PRUNE] = 3_000;
        words[TIME_PUSH_PULL] = 6_000;
        words[STAT_ROUNDS] = 42;
        let phases = fused_phases(&words, 2.0);
        let share = |name: &str| {
            phases
                .seconds
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, s)| *s)
        };
        assert_eq!(share("layered"), Some(0.2));
        assert_eq!(share("prune"), Some(0.6));
        assert_eq!(share("push_pull"), Some(1.2));
        assert!((phases.total_seconds() - 2.0).abs() < 1e-12);
        assert_eq!((phases.launches, phases.barriers), (1, 42));
        // A launch too short for the clock: no split, no division by zero.
        let none = fused_phases(&[0u64; FUSED_CTL_WORDS], 0.5);
        assert_eq!(none.total_seconds(), 0.0);
    }
}
