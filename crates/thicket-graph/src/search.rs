//! A run's searches as a [`Kernel`]: [`SearchKernel`] builds what the strategies read once
//! per graph (the simple graph, the reverse, the likeliest parents, the graph on the GPU)
//! and runs the solve pipeline over the sources ([`crate::sources`]) on the backend's
//! solver ([`crate::cpu::CpuSearch`], [`crate::gpu::GpuBfsSearch`],
//! [`crate::gpu::GpuSsspSearch`]).

use std::time::Instant;

use serde_json::{Map, Value};
use thicket_core::pipeline;
use thicket_core::{Backend, Kernel, Placement, Progress, Result};

use crate::cpu::{self, CpuSearch};
use crate::gpu::bfs::BfsGpu;
use crate::gpu::sssp::SsspGpu;
use crate::gpu::{GpuBfsSearch, GpuSsspSearch};
use crate::graph::{Graph, GraphView};
use crate::input::SearchInput;
use crate::report::{SearchRun, SourcePaths, SourceSearch};
use crate::sources::Sources;
use crate::strategy::{Problem, SearchOptions, Strategy};

/// A run's searches as a [`Kernel`], with what they read built once for every trial.
pub(crate) struct SearchKernel<'a> {
    pub(crate) input: SearchInput<'a>,
    /// The input's graph with its arcs sorted, self-loops and parallel arcs merged, where
    /// the input is not so already (the searches then read the input where it is).
    pub(crate) simplified: Option<Graph>,
    pub(crate) problem: Problem,
    pub(crate) sources: &'a [u32],
    pub(crate) options: &'a SearchOptions,
    /// The reverse graph, built once where a strategy needs in-neighbours.
    pub(crate) reverse: Option<Graph>,
    /// Each vertex's likeliest parent for bottom-up levels, built once for `multicore` BFS.
    pub(crate) likeliest: Option<Vec<u32>>,
    /// The graph on the GPU for BFS, uploaded by the first trial and searched by every one.
    pub(crate) bfs_gpu: Option<BfsGpu>,
    /// The graph on the GPU for shortest paths, likewise.
    pub(crate) sssp_gpu: Option<SsspGpu>,
    /// Seconds spent building what the searches read beside the file's graph (the simple
    /// graph, the reverse, the likeliest parents), as GAPBS reports its build time.
    pub(crate) build_seconds: f64,
}

/// What a backend's searches leave beside the pipeline's answers.
#[derive(Default)]
struct Extras {
    delta: Option<u64>,
    gpu_bytes: Option<u64>,
    upload_seconds: Option<f64>,
}

impl SearchKernel<'_> {
    /// The graph searched: the input's, simplified where it was not simple.
    fn graph(&self) -> GraphView<'_> {
        match &self.simplified {
            Some(graph) => graph.view(),
            None => self.input.graph,
        }
    }

    /// Builds the reverse graph where the input is not symmetric: kept only where it differs
    /// from the graph (an edge list of arcs both ways keeps no second copy); the time it
    /// takes is counted in the build time.
    fn build_reverse(&mut self) {
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
    }

    /// The in-neighbours' graph: the reverse where it differs from the graph (`None`: the
    /// graph itself).
    fn reverse(&self) -> Option<GraphView<'_>> {
        self.reverse
            .as_ref()
            .filter(|_| !self.input.symmetric)
            .map(Graph::view)
    }

    /// Runs the pipeline on `solver` over the sources.
    fn solve<S: for<'s> pipeline::Solver<Sources<'s>>>(
        &self,
        solver: &mut S,
        progress: &Progress,
    ) -> Result<pipeline::Solved<SourceSearch, SourcePaths>> {
        let sources = Sources {
            graph: self.graph(),
            input: &self.input,
            sources: self.sources,
        };
        let verify = self.options.run.verify;
        pipeline::solve(&sources, solver, self.options.keep, verify, progress)
    }

    /// A CPU strategy from every source.
    fn cpu(
        &mut self,
        strategy: Strategy,
        progress: &Progress,
        extras: &mut Extras,
    ) -> Result<(pipeline::Solved<SourceSearch, SourcePaths>, Placement)> {
        let threads = if strategy == Strategy::Serial || strategy == Strategy::Dijkstra {
            1
        } else {
            self.options.threads
        };
        let pool = thicket_core::Workers::new(threads)?;
        if strategy == Strategy::Multicore && self.likeliest.is_none() {
            // Once per graph, untimed like the graph's own build, on every core.
            pool.install(|| self.build_reverse());
            let started = Instant::now();
            let reverse = self.reverse().unwrap_or(self.graph());
            let likeliest = pool.install(|| cpu::bfs::likeliest_parents(reverse));
            self.likeliest = Some(likeliest);
            self.build_seconds += started.elapsed().as_secs_f64();
        }
        if strategy == Strategy::DeltaStepping {
            extras.delta = Some(
                self.options
                    .delta
                    .unwrap_or_else(|| cpu::sssp::default_delta(self.graph())),
            );
        }
        let in_neighbours = match (strategy, &self.likeliest) {
            (Strategy::Multicore, Some(likeliest)) => Some(cpu::bfs::InNeighbours::new(
                self.reverse().unwrap_or(self.graph()),
                likeliest,
            )),
            _ => None,
        };
        let mut solver = CpuSearch::new(strategy, self.graph(), in_neighbours, extras.delta, &pool);
        let solved = self.solve(&mut solver, progress)?;
        let placement = Placement {
            threads,
            devices: vec![],
        };
        Ok((solved, placement))
    }

    /// Shortest paths on the GPU from every source.
    fn gpu_sssp(
        &mut self,
        progress: &Progress,
        extras: &mut Extras,
    ) -> Result<(pipeline::Solved<SourceSearch, SourcePaths>, Placement)> {
        if self.sssp_gpu.is_none() {
            self.sssp_gpu = Some(SsspGpu::open(self.options.device, self.graph())?);
        }
        let gpu = self.sssp_gpu.as_ref().expect("opened above");
        let delta = self
            .options
            .delta
            .unwrap_or_else(|| crate::gpu::sssp::default_delta(self.graph()));
        extras.delta = Some(delta);
        let solved = self.solve(&mut GpuSsspSearch::new(gpu, self.graph(), delta), progress)?;
        extras.gpu_bytes = Some(gpu.device_bytes());
        extras.upload_seconds = Some(gpu.upload_seconds());
        let placement = Placement {
            threads: 1,
            devices: vec![gpu.name()],
        };
        Ok((solved, placement))
    }

    /// BFS on the GPU from every source, each search summed up on the device.
    fn gpu_bfs(
        &mut self,
        strategy: Strategy,
        progress: &Progress,
        extras: &mut Extras,
    ) -> Result<(pipeline::Solved<SourceSearch, SourcePaths>, Placement)> {
        let mut gpu = match self.bfs_gpu.take() {
            Some(gpu) => gpu,
            None => {
                self.build_reverse();
                BfsGpu::open(self.options.device, self.graph(), self.reverse())?
            }
        };
        let solved = self.solve(
            &mut GpuBfsSearch::new(&mut gpu, self.graph(), strategy),
            progress,
        );
        extras.gpu_bytes = Some(gpu.device_bytes());
        extras.upload_seconds = Some(gpu.upload_seconds());
        let placement = Placement {
            threads: 1,
            devices: vec![gpu.name()],
        };
        self.bfs_gpu = Some(gpu);
        Ok((solved?, placement))
    }
}

impl Kernel for SearchKernel<'_> {
    type Output = SearchRun;
    const DOING: &'static str = "searching";

    fn label(&self) -> String {
        format!("{} sources", self.sources.len())
    }

    fn run(&mut self, backend: Backend, progress: &Progress) -> Result<(SearchRun, Placement)> {
        let strategy = Strategy::on(self.problem, self.options.strategy, backend);
        let mut extras = Extras::default();
        let (solved, placement) = match (strategy.is_gpu(), self.problem) {
            (true, Problem::ShortestPaths) => self.gpu_sssp(progress, &mut extras)?,
            (true, Problem::Bfs) => self.gpu_bfs(strategy, progress, &mut extras)?,
            (false, _) => self.cpu(strategy, progress, &mut extras)?,
        };
        let run = SearchRun {
            strategy,
            searches: solved.summaries,
            paths: solved.kept,
            failures: solved.failures,
            vertices: self.graph().vertices(),
            arcs: self.input.graph.arcs(),
            delta: extras.delta,
            gpu_bytes: extras.gpu_bytes,
            upload_seconds: extras.upload_seconds,
            build_seconds: self.build_seconds,
            stopped: solved.stopped,
        };
        Ok((run, placement))
    }

    fn verify(&self, output: &SearchRun) -> Result<Option<bool>> {
        Ok(Some(output.failures.is_empty()))
    }

    fn stats(&self, output: &SearchRun) -> Map<String, Value> {
        output.stats()
    }

    fn is_partial(&self, output: &SearchRun) -> bool {
        output.stopped
    }
}
