//! The front door of N-Queens as a permutation: [`count_queens`] picks the strategy from the
//! backend (or runs the one asked for) and runs it as a [`Kernel`], verified against the
//! thesis's Table 1.

use serde_json::{json, Map, Value};
use thicket_core::{
    benchmark_kernel, Backend, Kernel, Measured, Placement, Progress, Result, RunOptions,
};

use crate::cpu::queens::{count, PermQueensCount};
use crate::engine::GpuRun;
use crate::gpu::queens::count_gpu;
use crate::strategy::{GpuParams, Strategy};
use crate::verify::perm_queens;

/// The depth of the multi-core strategy's serial initial search when none is asked for (the
/// thesis's d_cpu).
pub const MULTICORE_D_CPU: usize = 4;

/// How [`count_queens`] runs.
#[derive(Debug, Clone)]
pub struct PermOptions {
    /// Backend, trials, verification, progress bar.
    pub run: RunOptions,
    /// The strategy; `None` picks it from the backend ([`Strategy::resolve`]).
    pub strategy: Option<Strategy>,
    /// CPU threads of `multicore`.
    pub threads: usize,
    /// The GPU strategies' depths and device; `d_cpu` is also `multicore`'s initial depth
    /// (default [`MULTICORE_D_CPU`]).
    pub gpu: GpuParams,
}

impl Default for PermOptions {
    /// `auto` (the `multicore` strategy) on every core, the GPU strategies' default depths.
    fn default() -> PermOptions {
        PermOptions {
            run: RunOptions::default(),
            strategy: None,
            threads: thicket_core::available_threads(),
            gpu: GpuParams::default(),
        }
    }
}

/// One count and how it was obtained.
#[derive(Debug, Clone)]
pub struct PermQueensRun {
    /// Nodes and solutions.
    pub count: PermQueensCount,
    /// The strategy that ran.
    pub strategy: Strategy,
    /// CPU threads (1 for `serial` and the GPU strategies).
    pub threads: usize,
    /// A GPU strategy's statistics.
    pub gpu: Option<GpuRun>,
}

impl PermQueensRun {
    /// The count as JSON keys: `n`, `nodes`, `solutions`, `strategy`, `threads`, `gpu`.
    pub fn stats(&self) -> Map<String, Value> {
        let value = json!({
            "n": self.count.n,
            "nodes": self.count.nodes,
            "solutions": self.count.solutions,
            "strategy": self.strategy.name(),
            "threads": self.threads,
            "gpu": self.gpu,
        });
        thicket_core::object(value)
    }
}

/// Counts the nodes and solutions of the permutation search for `n` queens as `options` ask.
pub fn count_queens(n: usize, options: &PermOptions) -> Result<Measured<PermQueensRun>> {
    let (strategy, backend) = Strategy::resolve(options.strategy, options.run.backend)?;
    let mut kernel = PermQueensKernel {
        n,
        strategy,
        options,
    };
    let run = RunOptions {
        backend,
        ..options.run
    };
    benchmark_kernel(&mut kernel, &run)
}

/// N-Queens as a permutation as a [`Kernel`].
struct PermQueensKernel<'a> {
    n: usize,
    strategy: Strategy,
    options: &'a PermOptions,
}

impl Kernel for PermQueensKernel<'_> {
    type Output = PermQueensRun;
    const DOING: &'static str = "counting";

    fn label(&self) -> String {
        format!("perm-queens {}", self.n)
    }

    fn run(
        &mut self,
        _backend: Backend,
        progress: &Progress,
    ) -> Result<(PermQueensRun, Placement)> {
        let threads = match self.strategy {
            Strategy::Multicore => self.options.threads,
            _ => 1,
        };
        let (count, gpu) = if self.strategy.is_gpu() {
            let (count, run) = count_gpu(self.n, self.strategy, &self.options.gpu, progress)?;
            (count, Some(run))
        } else {
            let d_cpu = self.options.gpu.d_cpu.unwrap_or(MULTICORE_D_CPU);
            (
                count(self.n, self.strategy, d_cpu, threads, progress)?,
                None,
            )
        };
        let placement = Placement {
            threads,
            devices: gpu.iter().map(|run| run.device.clone()).collect(),
        };
        let run = PermQueensRun {
            count,
            strategy: self.strategy,
            threads,
            gpu,
        };
        Ok((run, placement))
    }

    fn verify(&self, output: &PermQueensRun) -> Result<Option<bool>> {
        let count = &output.count;
        Ok(perm_queens(count.n).map(|known| known == (count.nodes, count.solutions)))
    }

    fn stats(&self, output: &PermQueensRun) -> Map<String, Value> {
        output.stats()
    }
}
