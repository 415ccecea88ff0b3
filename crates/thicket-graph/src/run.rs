//! The front doors: [`bfs`] and [`sssp`] search an in-memory [`Graph`] from one or more
//! sources and return every source's answer; [`search`] does the same for a graph read from a
//! file (its vertex numbering kept in the summaries) and keeps the first source's answer only,
//! as `thicket bfs` and `thicket sssp` show it; [`search_view`] searches a caller's arrays
//! where they are ([`GraphView`]). Each runs the strategy asked for (or the
//! fastest for the backend) as a [`Kernel`], each answer checked by [`crate::verify`] when
//! asked, and sums it up as GAPBS reports a search.

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value};
use thicket_core::{
    benchmark_kernel, Backend, Error, Kernel, Measured, Placement, Progress, Result, RunOptions,
};

use crate::bfs as cpu_bfs;
use crate::gpu::bfs::{BfsGpu, GpuBfsStrategy, Launched};
use crate::gpu::sssp::{default_delta as gpu_default_delta, SsspGpu};
use crate::graph::{Graph, GraphView};
use crate::io::{Loaded, VertexIds};
use crate::sssp::{self, widen, INFINITE};
use crate::verify;
use crate::UNREACHED;

use crate::report::{SearchRun, SourcePaths, SourceSearch};

/// How a search runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// BFS with a FIFO queue on one thread (the reference).
    Serial,
    /// Direction-optimizing BFS on every core (the default BFS on the CPU).
    Multicore,
    /// The thesis's GPU kernel: every vertex every level.
    Thesis,
    /// The thesis's active-vertices variant: a scan lists each level's vertices.
    ThesisActive,
    /// thicket's GPU search in one launch, the default on a GPU: direction-optimizing BFS,
    /// near-far delta-stepping for shortest paths.
    Gpu,
    /// Dijkstra with a binary heap (the shortest-path reference).
    Dijkstra,
    /// Parallel delta-stepping (the default shortest paths on the CPU).
    DeltaStepping,
}

impl Strategy {
    /// Every strategy.
    pub const ALL: [Strategy; 7] = [
        Strategy::Serial,
        Strategy::Multicore,
        Strategy::Thesis,
        Strategy::ThesisActive,
        Strategy::Gpu,
        Strategy::Dijkstra,
        Strategy::DeltaStepping,
    ];

    /// Its name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Serial => "serial",
            Strategy::Multicore => "multicore",
            Strategy::Thesis => "thesis",
            Strategy::ThesisActive => "thesis-active",
            Strategy::Gpu => "gpu",
            Strategy::Dijkstra => "dijkstra",
            Strategy::DeltaStepping => "delta-stepping",
        }
    }

    /// Whether it runs on the GPU.
    pub fn is_gpu(self) -> bool {
        matches!(
            self,
            Strategy::Thesis | Strategy::ThesisActive | Strategy::Gpu
        )
    }

    /// Whether it finds shortest paths by weight (else BFS levels; `gpu` does both).
    pub fn is_weighted(self) -> bool {
        matches!(self, Strategy::Dijkstra | Strategy::DeltaStepping)
    }

    /// Whether it solves `problem`.
    pub fn serves(self, problem: Problem) -> bool {
        self == Strategy::Gpu || self.is_weighted() == (problem == Problem::ShortestPaths)
    }
}

thicket_core::named_choice!(Strategy, "graph strategy");

/// BFS (levels) or shortest paths (weights).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// Hop counts.
    Bfs,
    /// Weighted distances.
    ShortestPaths,
}

/// How [`search`] runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchOptions {
    /// Backend, trials, verification, progress bar.
    pub run: RunOptions,
    /// The strategy; `None`: the fastest of the problem on the backend.
    pub strategy: Option<Strategy>,
    /// CPU threads.
    pub threads: usize,
    /// The GPU.
    pub device: usize,
    /// Delta-stepping's bucket width; `None`: from the weights.
    pub delta: Option<u64>,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            run: RunOptions::default(),
            strategy: None,
            threads: thicket_core::available_threads(),
            device: 0,
            delta: None,
        }
    }
}

/// The strategy a run on `backend` uses for `problem`.
fn strategy_on(problem: Problem, asked: Option<Strategy>, backend: Backend) -> Strategy {
    asked.unwrap_or(match (problem, backend) {
        (Problem::Bfs, Backend::Cpu) => Strategy::Multicore,
        (Problem::Bfs, _) => Strategy::Gpu,
        (Problem::ShortestPaths, Backend::Cpu) => Strategy::DeltaStepping,
        (Problem::ShortestPaths, _) => Strategy::Gpu,
    })
}

/// The backend [`benchmark_kernel`] gets for `asked` on `backend`.
fn backend_for(problem: Problem, asked: Option<Strategy>, backend: Backend) -> Result<Backend> {
    if let Some(s) = asked {
        if !s.serves(problem) {
            return Err(Error::InvalidInput(format!(
                "strategy {s} is for {}",
                if s.is_weighted() {
                    "shortest paths (sssp)"
                } else {
                    "BFS"
                }
            )));
        }
    }
    thicket_core::backend_for(asked, Strategy::is_gpu, backend)
}

/// BFS on `graph` from each of `sources` (0-based ids) as `options` ask: every source's hop
/// counts and parents in [`SearchRun::paths`], its summary in [`SearchRun::searches`]. A
/// source that is not a vertex, or an empty list, is an [`Error::InvalidInput`].
///
/// ```
/// use thicket_graph::{bfs, Graph, SearchOptions, INFINITE};
///
/// // 0 -> 1 -> 2, and 3 on its own.
/// let graph = Graph::from_edges(4, &[(0, 1), (1, 2)])?;
/// let run = bfs(&graph, &[0, 1], &SearchOptions::default())?;
/// assert_eq!(run.output.paths[0].distances, [0, 1, 2, INFINITE]);
/// assert_eq!(run.output.paths[1].distances, [INFINITE, 0, 1, INFINITE]);
/// assert_eq!(run.output.paths[0].parents[2], 1);
/// assert!(bfs(&graph, &[4], &SearchOptions::default()).is_err());
/// # Ok::<(), thicket_core::Error>(())
/// ```
pub fn bfs(graph: &Graph, sources: &[u32], options: &SearchOptions) -> Result<Measured<SearchRun>> {
    run(
        Input::of(graph.view()),
        Problem::Bfs,
        sources,
        options,
        Keep::Every,
    )
}

/// Shortest paths by weight on `graph` (every arc weighs 1 where it has no weights) from each
/// of `sources` (0-based ids) as `options` ask: every source's distances and parents in
/// [`SearchRun::paths`], its summary in [`SearchRun::searches`]. A source that is not a
/// vertex, or an empty list, is an [`Error::InvalidInput`].
///
/// ```
/// use thicket_graph::{sssp, Graph, SearchOptions};
///
/// let graph = Graph::from_weighted_edges(3, &[(0, 1, 5.0), (1, 2, 1.0), (0, 2, 9.0)])?;
/// let run = sssp(&graph, &[0], &SearchOptions::default())?;
/// assert_eq!(run.output.paths[0].distances, [0, 5, 6]);
/// # Ok::<(), thicket_core::Error>(())
/// ```
pub fn sssp(
    graph: &Graph,
    sources: &[u32],
    options: &SearchOptions,
) -> Result<Measured<SearchRun>> {
    run(
        Input::of(graph.view()),
        Problem::ShortestPaths,
        sources,
        options,
        Keep::Every,
    )
}

/// Searches `loaded` from `sources` (0-based ids) as `options` ask, keeping the first
/// source's answer only (summaries and errors number vertices as the file does).
pub fn search(
    loaded: &Loaded,
    problem: Problem,
    sources: &[u32],
    options: &SearchOptions,
) -> Result<Measured<SearchRun>> {
    run(
        Input::loaded(loaded),
        problem,
        sources,
        options,
        Keep::First,
    )
}

/// Searches `loaded` as [`search`] does, keeping every source's answer (what `--output`
/// writes); answers that would not fit this machine's memory are refused before the search.
pub fn search_all(
    loaded: &Loaded,
    problem: Problem,
    sources: &[u32],
    options: &SearchOptions,
) -> Result<Measured<SearchRun>> {
    // Per source and vertex: a 64-bit distance and a 32-bit parent.
    check_answers_fit(loaded.graph.vertices(), sources)?;
    run(
        Input::loaded(loaded),
        problem,
        sources,
        options,
        Keep::Every,
    )
}

/// Searches `graph`, a caller's CSR arrays borrowed where they are ([`GraphView::from_csr`]),
/// as [`search_all`] does (every source's answer kept, answers that would not fit refused
/// first); `symmetric`: the caller knows every arc's reverse is an arc too, so a BFS reads the
/// graph as its own reverse instead of building one. The arrays are not copied: where the
/// graph is simple (each vertex's heads increasing, no self-loop) the searches read them as
/// they are, else they run on the simplified graph.
///
/// ```
/// use thicket_graph::{search_view, GraphView, Problem, SearchOptions};
///
/// // 0 -> 1 -> 2, held by the caller.
/// let (offsets, targets) = (vec![0u64, 1, 2, 2], vec![1u32, 2]);
/// let graph = GraphView::from_csr(&offsets, &targets, None)?;
/// let run = search_view(graph, false, Problem::Bfs, &[0], &SearchOptions::default())?;
/// assert_eq!(run.output.paths[0].distances, [0, 1, 2]);
/// # Ok::<(), thicket_core::Error>(())
/// ```
pub fn search_view(
    graph: GraphView<'_>,
    symmetric: bool,
    problem: Problem,
    sources: &[u32],
    options: &SearchOptions,
) -> Result<Measured<SearchRun>> {
    check_answers_fit(graph.vertices(), sources)?;
    let input = Input {
        symmetric,
        ..Input::of(graph)
    };
    run(input, problem, sources, options, Keep::Every)
}

/// Refuses, before a search, answers of `sources` on `vertices` vertices that would not fit
/// this machine's memory (per source and vertex: a 64-bit distance and a 32-bit parent).
fn check_answers_fit(vertices: usize, sources: &[u32]) -> Result<()> {
    let bytes = (sources.len() as u64).checked_mul(vertices as u64 * 12);
    thicket_core::check_fits(
        &format!(
            "the answers of {} sources on {vertices} vertices",
            sources.len()
        ),
        bytes,
    )
}

/// A graph to search and what is known of it.
#[derive(Clone, Copy)]
struct Input<'a> {
    graph: GraphView<'a>,
    /// The id vertex 0 has in summaries and errors.
    first_id: u32,
    /// Whether the graph is its own reverse.
    symmetric: bool,
    /// Where the file had a negative weight (read as 0), which shortest paths refuse.
    negative_weight: Option<&'a str>,
    /// The file's own ids, where it had sparse ones.
    ids: Option<&'a VertexIds>,
}

impl<'a> Input<'a> {
    fn of(graph: GraphView<'a>) -> Input<'a> {
        Input {
            graph,
            first_id: 0,
            symmetric: false,
            negative_weight: None,
            ids: None,
        }
    }

    fn loaded(loaded: &'a Loaded) -> Input<'a> {
        Input {
            graph: loaded.graph.view(),
            first_id: loaded.first_id,
            symmetric: loaded.symmetric,
            negative_weight: loaded.negative_weight.as_deref(),
            ids: loaded.ids.as_ref(),
        }
    }

    /// The number summaries give vertex `v`: the file's own where it numbers vertices
    /// sparsely, else `v` counted from the file's first id (a named vertex by its index).
    fn id(&self, v: u32) -> u64 {
        match self.ids {
            Some(VertexIds::Numbers(ids)) => ids[v as usize],
            _ => u64::from(v) + u64::from(self.first_id),
        }
    }
}

/// Which answers a run keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// The first source's (what the CLI writes; a bench of many roots keeps one graph's worth).
    First,
    /// Every source's.
    Every,
}

fn run(
    input: Input<'_>,
    problem: Problem,
    sources: &[u32],
    options: &SearchOptions,
    keep: Keep,
) -> Result<Measured<SearchRun>> {
    let n = input.graph.vertices();
    if n == 0 {
        return Err(Error::InvalidInput("the graph has no vertices".into()));
    }
    if sources.is_empty() {
        return Err(Error::InvalidInput("no source to search from".into()));
    }
    if let Some(&bad) = sources.iter().find(|&&s| s as usize >= n) {
        let first = u64::from(input.first_id);
        return Err(Error::InvalidInput(format!(
            "source {} is not a vertex ({first}..={})",
            u64::from(bad) + first,
            n as u64 - 1 + first
        )));
    }
    if let (Problem::ShortestPaths, Some(at)) = (problem, input.negative_weight) {
        return Err(Error::InvalidInput(format!(
            "a negative weight at {at}: shortest paths need weights >= 0"
        )));
    }
    let run = RunOptions {
        backend: backend_for(problem, options.strategy, options.run.backend)?,
        ..options.run
    };
    // Built once, outside the timed searches (GAPBS's build time), where the graph is not
    // simple already (a bench's graphs are).
    let started = Instant::now();
    let simplified = if input.graph.is_simple() {
        None
    } else {
        Some(thicket_core::Workers::new(options.threads)?.install(|| input.graph.simplified()))
    };
    benchmark_kernel(
        &mut SearchKernel {
            input,
            simplified,
            problem,
            sources,
            options,
            keep,
            reverse: None,
            likeliest: None,
            bfs_gpu: None,
            sssp_gpu: None,
            build_seconds: started.elapsed().as_secs_f64(),
        },
        &run,
    )
}

struct SearchKernel<'a> {
    input: Input<'a>,
    /// The input's graph with its arcs sorted, self-loops and parallel arcs merged, where
    /// the input is not so already (the searches then read the input where it is).
    simplified: Option<Graph>,
    problem: Problem,
    sources: &'a [u32],
    options: &'a SearchOptions,
    keep: Keep,
    /// The reverse graph, built once where a strategy needs in-neighbours.
    reverse: Option<Graph>,
    /// Each vertex's likeliest parent for bottom-up levels, built once for `multicore` BFS.
    likeliest: Option<Vec<u32>>,
    /// The graph on the GPU for BFS, uploaded by the first trial and searched by every one.
    bfs_gpu: Option<BfsGpu>,
    /// The graph on the GPU for shortest paths, likewise.
    sssp_gpu: Option<SsspGpu>,
    /// Seconds spent building what the searches read beside the file's graph (the simple
    /// graph, the reverse, the likeliest parents), as GAPBS reports its build time.
    build_seconds: f64,
}

impl SearchKernel<'_> {
    /// The graph searched: the input's, simplified where it was not simple.
    fn graph(&self) -> GraphView<'_> {
        match &self.simplified {
            Some(graph) => graph.view(),
            None => self.input.graph,
        }
    }

    /// The in-neighbours' graph: the graph itself where it is symmetric (as the file said,
    /// or as found here: an edge list of arcs both ways keeps no second copy), else its
    /// reverse, built once; the time it takes is counted in the build time.
    fn reverse(&mut self) -> GraphView<'_> {
        if !self.input.symmetric && self.reverse.is_none() {
            let started = Instant::now();
            // A transpose by counting, kept only where it differs from the graph: a lookup of
            // every arc's reverse instead took ten times as long (a cache miss per step).
            let reverse = self.graph().reversed();
            if reverse.view() == self.graph() {
                self.input.symmetric = true;
            } else {
                self.reverse = Some(reverse);
            }
            self.build_seconds += started.elapsed().as_secs_f64();
        }
        match &self.reverse {
            Some(reverse) => reverse.view(),
            None => self.graph(),
        }
    }

    /// Whether the answer of the `index`th source is kept (and so needs a parent tree).
    fn keeps(&self, index: usize) -> bool {
        index == 0 || self.keep == Keep::Every
    }

    /// Sums up one answer (and checks it, with `verify`).
    fn summarise(
        &self,
        source: u32,
        distances: &[u64],
        parents: &[u32],
        levels: Option<&[u32]>,
        seconds: f64,
        failures: &mut Vec<String>,
    ) -> Result<SourceSearch> {
        self.check(source, distances, parents, levels, failures);
        let g = self.graph();
        // BFS levels where the search gives them (its distances are then only built for the
        // answers kept), else the distances.
        let tally = match levels {
            Some(levels) => tally(g, levels.len(), |v| {
                let level = levels[v];
                (level != UNREACHED).then_some(u64::from(level))
            }),
            None => tally(g, distances.len(), |v| {
                let d = distances[v];
                (d != INFINITE).then_some(d)
            }),
        };
        self.summary(source, tally, seconds)
    }

    /// Checks one answer with the verifier, where `verify` asks: BFS by its `levels` and
    /// parents, shortest paths by its distances (and parents, where it has them).
    fn check(
        &self,
        source: u32,
        distances: &[u64],
        parents: &[u32],
        levels: Option<&[u32]>,
        failures: &mut Vec<String>,
    ) {
        if !self.options.run.verify {
            return;
        }
        let checked = match levels {
            Some(levels) => verify::bfs(self.graph(), source, levels, parents),
            None => verify::sssp(
                self.graph(),
                source,
                distances,
                (!parents.is_empty()).then_some(parents),
            ),
        };
        if let Err(e) = checked {
            failures.push(format!("source {}: {}", self.id(source), e.message()));
        }
    }

    /// The summary of a search from `source` that `tally` adds up.
    fn summary(&self, source: u32, tally: Tally, seconds: f64) -> Result<SourceSearch> {
        let sum_distances = u64::try_from(tally.sum)
            .map_err(|_| Error::InvalidInput("the sum of the distances passes 2^64".into()))?;
        Ok(SourceSearch {
            source: self.id(source),
            reached: tally.reached,
            max_distance: tally.max,
            sum_distances,
            arcs_traversed: tally.arcs,
            seconds,
            bottom_up_levels: None,
            rounds: None,
            relaxed: None,
            scan_seconds: None,
        })
    }

    fn id(&self, v: u32) -> u64 {
        self.input.id(v)
    }

    /// Keeps the `index`th source's answer where [`Keep`] says so.
    fn kept(
        &self,
        index: usize,
        source: u32,
        distances: Vec<u64>,
        parents: Vec<u32>,
    ) -> Option<SourcePaths> {
        self.keeps(index).then_some(SourcePaths {
            source,
            distances,
            parents,
        })
    }

    /// Shortest paths on the GPU from every source.
    fn gpu_sssp(&mut self, progress: &Progress, out: &mut Answers) -> Result<Placement> {
        if self.sssp_gpu.is_none() {
            self.sssp_gpu = Some(SsspGpu::open(self.options.device, self.graph())?);
        }
        let gpu = self.sssp_gpu.as_ref().expect("opened above");
        let d = self
            .options
            .delta
            .unwrap_or_else(|| gpu_default_delta(self.graph()));
        out.delta = Some(d);
        for (index, &source) in self.sources.iter().enumerate() {
            // The caller's stop request is honoured between sources.
            progress.check_stop()?;
            let run = gpu.run(source, d)?;
            // A tree for the distances only where one is kept (as for delta-stepping).
            let parents = if self.keeps(index) {
                sssp::tight_parents(self.graph(), source, &run.distances)
            } else {
                Vec::new()
            };
            let mut summary = self.summarise(
                source,
                &run.distances,
                &parents,
                None,
                run.kernel_seconds,
                &mut out.failures,
            )?;
            summary.rounds = Some(run.rounds);
            summary.relaxed = Some(run.relaxed);
            out.paths
                .extend(self.kept(index, source, run.distances, parents));
            out.searches.push(summary);
            progress.inc(1);
        }
        out.gpu_bytes = Some(gpu.device_bytes());
        out.upload_seconds = Some(gpu.upload_seconds());
        Ok(Placement {
            threads: 1,
            devices: vec![gpu.name()],
        })
    }

    /// BFS on the GPU from every source: each search summed up on the device, and only the
    /// answers kept or verified brought back, the host working on one while the next search
    /// runs ([`BfsGpu::launch`]).
    fn gpu_bfs(
        &mut self,
        strategy: Strategy,
        progress: &Progress,
        out: &mut Answers,
    ) -> Result<Placement> {
        let mut gpu = match self.bfs_gpu.take() {
            Some(gpu) => gpu,
            None => {
                if !self.input.symmetric {
                    self.reverse();
                }
                let reverse = self
                    .reverse
                    .as_ref()
                    .filter(|_| !self.input.symmetric)
                    .map(Graph::view);
                BfsGpu::open(self.options.device, self.graph(), reverse)?
            }
        };
        let searched = self.gpu_bfs_on(&mut gpu, strategy, progress, out);
        out.gpu_bytes = Some(gpu.device_bytes());
        out.upload_seconds = Some(gpu.upload_seconds());
        let placement = Placement {
            threads: 1,
            devices: vec![gpu.name()],
        };
        self.bfs_gpu = Some(gpu);
        searched.map(|()| placement)
    }

    /// [`SearchKernel::gpu_bfs`]'s searches on `gpu`: search i is queued before search i - 1
    /// is collected.
    fn gpu_bfs_on(
        &self,
        gpu: &mut BfsGpu,
        strategy: Strategy,
        progress: &Progress,
        out: &mut Answers,
    ) -> Result<()> {
        let kind = match strategy {
            Strategy::Thesis => GpuBfsStrategy::Thesis,
            Strategy::ThesisActive => GpuBfsStrategy::ThesisActive,
            _ => GpuBfsStrategy::Fast,
        };
        let mut pending = None;
        for (index, &source) in self.sources.iter().enumerate() {
            progress.check_stop()?;
            let answer = self.keeps(index) || self.options.run.verify;
            let degree = self.graph().degree(source);
            let launched = gpu.launch(source, degree, kind, answer)?;
            if let Some((index, source, previous)) = pending.replace((index, source, launched)) {
                self.collect_bfs(gpu, kind, index, source, previous, out)?;
                progress.inc(1);
            }
        }
        if let Some((index, source, last)) = pending {
            self.collect_bfs(gpu, kind, index, source, last, out)?;
            progress.inc(1);
        }
        Ok(())
    }

    /// Collects the `index`th search (from `source`): its summary from the device's, its
    /// answer checked and kept where asked.
    fn collect_bfs(
        &self,
        gpu: &mut BfsGpu,
        kind: GpuBfsStrategy,
        index: usize,
        source: u32,
        launched: Launched,
        out: &mut Answers,
    ) -> Result<()> {
        let run = gpu.collect(launched)?;
        let s = run.summary;
        let tally = Tally {
            reached: s.reached,
            max: s.max,
            sum: u128::from(s.sum),
            arcs: s.arcs,
        };
        let mut summary = self.summary(source, tally, run.kernel_seconds)?;
        summary.bottom_up_levels = (kind == GpuBfsStrategy::Fast).then_some(run.bottom_up_levels);
        summary.scan_seconds = (kind == GpuBfsStrategy::ThesisActive).then_some(run.scan_seconds);
        if let Some((levels, parents)) = run.answer {
            self.check(source, &[], parents, Some(levels), &mut out.failures);
            if self.keeps(index) {
                // 64-bit distances and an owned tree only for the answers kept.
                let mut tree = Vec::with_capacity(parents.len());
                tree.par_extend(parents.par_iter().copied());
                out.paths.push(SourcePaths {
                    source,
                    distances: widen(levels),
                    parents: tree,
                });
            }
        }
        out.searches.push(summary);
        Ok(())
    }

    /// A CPU strategy from every source.
    fn cpu(
        &mut self,
        strategy: Strategy,
        progress: &Progress,
        out: &mut Answers,
    ) -> Result<Placement> {
        let threads = if strategy == Strategy::Serial || strategy == Strategy::Dijkstra {
            1
        } else {
            self.options.threads
        };
        let pool = thicket_core::Workers::new(threads)?;
        if strategy == Strategy::Multicore && self.likeliest.is_none() {
            // Once per graph, untimed like the graph's own build, on every core.
            pool.install(|| self.reverse());
            let started = Instant::now();
            let likeliest = pool.install(|| cpu_bfs::likeliest_parents(self.reverse()));
            self.likeliest = Some(likeliest);
            self.build_seconds += started.elapsed().as_secs_f64();
        }
        if strategy == Strategy::DeltaStepping {
            out.delta = Some(
                self.options
                    .delta
                    .unwrap_or_else(|| sssp::default_delta(self.graph())),
            );
        }
        // The BFS queue's room, passed from each search to the next.
        let mut room = Vec::new();
        for (index, &source) in self.sources.iter().enumerate() {
            progress.check_stop()?;
            let started = Instant::now();
            // The search's time, without the conversions after it.
            let elapsed = || started.elapsed().as_secs_f64();
            let (distances, parents, levels, seconds) = match strategy {
                Strategy::Serial => {
                    let s = cpu_bfs::serial(self.graph(), source);
                    let t = elapsed();
                    (widen(&s.levels), s.parents, Some(s.levels), t)
                }
                Strategy::Multicore => {
                    let reverse = if self.input.symmetric {
                        self.graph()
                    } else {
                        self.reverse.as_ref().expect("built above").view()
                    };
                    let likeliest = self.likeliest.as_deref().expect("built above");
                    let in_neighbours = cpu_bfs::InNeighbours::new(reverse, likeliest);
                    // Timed up to the tree, as GAPBS times its BFS; the levels, which
                    // GAPBS does not compute, follow from the tree after the timer.
                    let spare = std::mem::take(&mut room);
                    let tree = pool.install(|| {
                        cpu_bfs::tree(self.graph(), Some(&in_neighbours), source, spare)
                    });
                    let t = elapsed();
                    let (s, queue_room) = pool.install(|| tree.into_search_and_room());
                    room = queue_room;
                    (widen(&s.levels), s.parents, Some(s.levels), t)
                }
                Strategy::Dijkstra => {
                    let p = sssp::dijkstra(self.graph(), source);
                    (p.distances, p.parents, None, elapsed())
                }
                _ => {
                    let d = out.delta.expect("set above");
                    // Timed up to the distances as the search leaves them, as GAPBS
                    // times its delta-stepping.
                    let distances =
                        pool.install(|| sssp::delta_stepping_distances(self.graph(), source, d));
                    let t = elapsed();
                    (pool.install(|| distances.widen()), Vec::new(), None, t)
                }
            };
            // Delta-stepping finds distances; a tree for them only where one is kept.
            let parents = if parents.is_empty() && self.keeps(index) {
                pool.install(|| sssp::tight_parents(self.graph(), source, &distances))
            } else {
                parents
            };
            let summary = self.summarise(
                source,
                &distances,
                &parents,
                levels.as_deref(),
                seconds,
                &mut out.failures,
            )?;
            out.paths
                .extend(self.kept(index, source, distances, parents));
            out.searches.push(summary);
            progress.inc(1);
        }
        Ok(Placement {
            threads,
            devices: vec![],
        })
    }
}

/// What one search's answer adds up to.
#[derive(Default)]
struct Tally {
    reached: u64,
    max: u64,
    sum: u128,
    arcs: u64,
}

/// The vertices `distance` reaches among `n`, their largest and summed distance and the arcs
/// out of them, on every core: a scale-24 graph's 16.8 M vertices take tens of milliseconds a
/// source one by one, which 64 GPU searches of 2 ms each would wait for.
fn tally(g: GraphView<'_>, n: usize, distance: impl Fn(usize) -> Option<u64> + Sync) -> Tally {
    (0..n)
        .into_par_iter()
        .with_min_len(1 << 14)
        .fold(Tally::default, |mut t, v| {
            if let Some(d) = distance(v) {
                t.reached += 1;
                t.max = t.max.max(d);
                t.sum += u128::from(d);
                t.arcs += g.degree(v as u32);
            }
            t
        })
        .reduce(Tally::default, |a, b| Tally {
            reached: a.reached + b.reached,
            max: a.max.max(b.max),
            sum: a.sum + b.sum,
            arcs: a.arcs + b.arcs,
        })
}

/// What the searches of one trial gather.
#[derive(Default)]
struct Answers {
    searches: Vec<SourceSearch>,
    paths: Vec<SourcePaths>,
    failures: Vec<String>,
    delta: Option<u64>,
    gpu_bytes: Option<u64>,
    upload_seconds: Option<f64>,
}

impl Kernel for SearchKernel<'_> {
    type Output = SearchRun;
    const DOING: &'static str = "searching";

    fn label(&self) -> String {
        format!("{} sources", self.sources.len())
    }

    fn run(&mut self, backend: Backend, progress: &Progress) -> Result<(SearchRun, Placement)> {
        let strategy = strategy_on(self.problem, self.options.strategy, backend);
        progress.set_total(self.sources.len() as u64);
        let mut out = Answers {
            searches: Vec::with_capacity(self.sources.len()),
            ..Answers::default()
        };
        let placement = match (strategy.is_gpu(), self.problem) {
            (true, Problem::ShortestPaths) => self.gpu_sssp(progress, &mut out)?,
            (true, Problem::Bfs) => self.gpu_bfs(strategy, progress, &mut out)?,
            (false, _) => self.cpu(strategy, progress, &mut out)?,
        };
        let run = SearchRun {
            strategy,
            searches: out.searches,
            paths: out.paths,
            failures: out.failures,
            vertices: self.graph().vertices(),
            arcs: self.input.graph.arcs(),
            delta: out.delta,
            gpu_bytes: out.gpu_bytes,
            upload_seconds: out.upload_seconds,
            build_seconds: self.build_seconds,
        };
        Ok((run, placement))
    }

    fn verify(&self, output: &SearchRun) -> Result<Option<bool>> {
        Ok(Some(output.failures.is_empty()))
    }

    fn stats(&self, output: &SearchRun) -> Map<String, Value> {
        output.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io;
    use crate::verify::verify;
    use std::path::Path;

    fn data(name: &str) -> Loaded {
        io::read(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("data")
                .join(name),
        )
        .unwrap()
    }

    fn options(strategy: Strategy) -> SearchOptions {
        SearchOptions {
            run: RunOptions {
                backend: Backend::Cpu,
                quiet: true,
                verify: true,
                ..RunOptions::default()
            },
            strategy: Some(strategy),
            threads: 2,
            ..SearchOptions::default()
        }
    }

    /// The references computed outside thicket (data/SOURCE.md): rome99 from DIMACS sources
    /// 1, 1676, 3353 and GAPBS's tiny graph from 1, 2, 9, 14.
    #[test]
    fn every_cpu_strategy_matches_the_outside_references() {
        let rome = data("rome99.gr");
        let tiny = data("gapbs-4.gr");
        // (graph, source, weighted (reached, sum, max), hops (reached, sum, max))
        type Expected = (u64, u64, u64);
        let cases: [(&Loaded, u32, Expected, Expected); 7] = [
            (&rome, 1, (3353, 116_006_476, 69_102), (3353, 92_781, 47)),
            (&rome, 1676, (3353, 31_147_171, 39_885), (3353, 86_615, 46)),
            (&rome, 3353, (3353, 33_624_198, 42_730), (3353, 88_088, 46)),
            (&tiny, 1, (13, 214, 56), (13, 12, 1)),
            (&tiny, 2, (1, 0, 0), (1, 0, 0)),
            (&tiny, 9, (12, 551, 104), (12, 13, 2)),
            (&tiny, 14, (8, 1015, 243), (8, 9, 2)),
        ];
        for (graph, id, weighted, hops) in cases {
            let source = [id - 1];
            for strategy in [Strategy::Dijkstra, Strategy::DeltaStepping] {
                let run =
                    search(graph, Problem::ShortestPaths, &source, &options(strategy)).unwrap();
                let s = &run.output.searches[0];
                assert_eq!(
                    (s.reached, s.sum_distances, s.max_distance),
                    weighted,
                    "{strategy} from {id}"
                );
                assert_eq!(run.verified, Some(true));
            }
            for strategy in [Strategy::Serial, Strategy::Multicore] {
                let run = search(graph, Problem::Bfs, &source, &options(strategy)).unwrap();
                let s = &run.output.searches[0];
                assert_eq!(
                    (s.reached, s.sum_distances, s.max_distance),
                    hops,
                    "{strategy} from {id}"
                );
                assert_eq!(run.verified, Some(true));
            }
        }
    }

    #[test]
    fn every_distance_of_rome99_matches_the_reference_table() {
        let rome = data("rome99.gr");
        let table = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("data/rome99-ref.tsv"),
        )
        .unwrap();
        let rows: Vec<Vec<u64>> = table
            .lines()
            .skip(1)
            .map(|l| l.split('\t').map(|x| x.parse().unwrap()).collect())
            .collect();
        for (column, source, problem) in [
            (1, 1, Problem::ShortestPaths),
            (2, 1676, Problem::ShortestPaths),
            (6, 3353, Problem::Bfs),
        ] {
            let run = search(
                &rome,
                problem,
                &[source - 1],
                &SearchOptions {
                    run: RunOptions {
                        backend: Backend::Cpu,
                        quiet: true,
                        ..RunOptions::default()
                    },
                    ..SearchOptions::default()
                },
            )
            .unwrap();
            let distances = &run.output.paths[0].distances;
            for row in &rows {
                assert_eq!(
                    distances[row[0] as usize - 1],
                    row[column],
                    "vertex {}",
                    row[0]
                );
            }
        }
    }

    #[test]
    fn the_in_memory_front_doors_answer_every_source_and_refuse_a_vertex_outside() {
        let rome = data("rome99.gr").graph;
        let sources = [0, 1675, 3352];
        for strategy in [Strategy::Serial, Strategy::Multicore] {
            let run = bfs(&rome, &sources, &options(strategy)).unwrap();
            assert_eq!(run.verified, Some(true));
            assert_eq!(run.output.paths.len(), 3);
            for (paths, (summary, source)) in run
                .output
                .paths
                .iter()
                .zip(run.output.searches.iter().zip(sources))
            {
                assert_eq!(paths.source, source);
                assert_eq!(summary.source, u64::from(source));
                assert_eq!(paths.distances.iter().sum::<u64>(), summary.sum_distances);
                verify(&rome, Problem::Bfs, paths).unwrap();
            }
            // DIMACS source 3353 (0-based 3352): 88,088 hops in all.
            assert_eq!(run.output.searches[2].sum_distances, 88_088);
        }
        for strategy in [Strategy::Dijkstra, Strategy::DeltaStepping] {
            let run = sssp(&rome, &sources, &options(strategy)).unwrap();
            assert_eq!(run.verified, Some(true));
            let sums: Vec<u64> = run
                .output
                .searches
                .iter()
                .map(|s| s.sum_distances)
                .collect();
            assert_eq!(sums, [116_006_476, 31_147_171, 33_624_198]);
            for paths in &run.output.paths {
                verify(&rome, Problem::ShortestPaths, paths).unwrap();
            }
        }
        for bad in [&[3353][..], &[]] {
            let err = bfs(&rome, bad, &options(Strategy::Serial)).unwrap_err();
            assert!(matches!(err, Error::InvalidInput(_)), "{err}");
        }
        let err = sssp(&rome, &[3353], &options(Strategy::Dijkstra)).unwrap_err();
        assert!(
            err.to_string()
                .contains("source 3353 is not a vertex (0..=3352)"),
            "{err}"
        );
    }

    #[test]
    fn bad_sources_strategies_and_weights_are_refused() {
        let rome = data("rome99.gr");
        let err = search(&rome, Problem::Bfs, &[3353], &options(Strategy::Serial)).unwrap_err();
        assert!(
            err.to_string()
                .contains("source 3354 is not a vertex (1..=3353)"),
            "{err}"
        );
        let err = search(&rome, Problem::Bfs, &[0], &options(Strategy::Dijkstra)).unwrap_err();
        assert!(err.to_string().contains("shortest paths"), "{err}");
        let err = search(&rome, Problem::Bfs, &[0], &options(Strategy::Thesis)).unwrap_err();
        assert!(err.to_string().contains("runs on a GPU"), "{err}");
        // `gpu` serves both problems, on a GPU only; the other GPU strategies are BFS's.
        let err = search(&rome, Problem::ShortestPaths, &[0], &options(Strategy::Gpu)).unwrap_err();
        assert!(err.to_string().contains("runs on a GPU"), "{err}");
        let err = search(
            &rome,
            Problem::ShortestPaths,
            &[0],
            &options(Strategy::Thesis),
        )
        .unwrap_err();
        assert!(err.to_string().contains("is for BFS"), "{err}");
        let negative = io::parse("n.gr", "p sp 2 1\na 1 2 -4\n", io::Format::Dimacs).unwrap();
        let err = search(
            &negative,
            Problem::ShortestPaths,
            &[0],
            &options(Strategy::Dijkstra),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("negative weight at n.gr:2"),
            "{err}"
        );
        search(&negative, Problem::Bfs, &[0], &options(Strategy::Serial)).unwrap();
    }
}
