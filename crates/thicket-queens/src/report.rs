//! What a count answers: the counts with the statistics of the kernel that found them
//! ([`QueensRun`]), and how a whole or batched count ends ([`Counted`]).

use serde_json::{json, Map, Value};
use thicket_core::Measured;
use thicket_run::Shard;

use crate::count::QueensCount;
use crate::gpu::queens::GpuCount;
use crate::strategy::{Strategy, StrategyRun};
use crate::verify::known_counts;

/// One count and how it was obtained.
#[derive(Debug, Clone)]
pub struct QueensRun {
    /// The counts.
    pub count: QueensCount,
    /// The GPU backend's statistics, when the constellation kernel ran on GPUs.
    pub gpu: Option<GpuCount>,
    /// A paper's kernel that counted, with its statistics.
    pub strategy: Option<(Strategy, StrategyRun)>,
}

impl QueensRun {
    /// The counts and their statistics as JSON keys: `n`, `total`, `unique`, `oeis_match`,
    /// and `gpu` or a paper kernel's statistics.
    pub fn stats(&self) -> Map<String, Value> {
        let count = &self.count;
        let mut value = json!({
            "n": count.n,
            "total": count.total,
            "unique": count.unique,
            "oeis_match": known_counts(count.n).map(|k| k == (count.total, count.unique)),
        });
        if let Some(gpu) = &self.gpu {
            value["gpu"] = json!({
                "tasks": gpu.tasks,
                "queue": gpu.queue,
                "depth": gpu.depth,
                "tail_plans": gpu.tail_plans,
                "setup_seconds": gpu.setup_seconds,
                "tasks_seconds": gpu.tasks_seconds,
                "kernel_seconds": gpu.kernel_seconds,
                "kernel_cache_hit": gpu.modules.iter().all(|m| m.cache_hit),
                "compile_seconds": gpu.modules.iter().map(|m| m.compile_time.as_secs_f64()).sum::<f64>(),
            });
        }
        if let Some((strategy, run)) = &self.strategy {
            value["strategy"] = json!(strategy.name());
            value["source"] = json!(strategy.source());
            value["kernel_seconds"] = json!(run.kernel_seconds);
            value["jobs"] = json!(run.jobs);
            value["depth"] = json!(run.depth);
            value["refused_launches"] = json!(run.refused_launches);
        }
        thicket_core::object(value)
    }
}

/// What [`count`](crate::count) ends with.
#[derive(Debug, Clone)]
pub enum Counted {
    /// The counts of the whole board.
    Whole(Box<Measured<QueensRun>>),
    /// One shard of a batched run is complete: its part of the total (merge the shards for
    /// the counts).
    Shard {
        /// Board size.
        n: usize,
        /// The shard counted.
        shard: Shard,
        /// The sum of the shard's batches.
        partial_total: u128,
    },
    /// A worker rank of an MPI run: the master reports the counts.
    Worker {
        /// What the rank's caller should hear, each prefixed with the rank (`rank 2: `): why
        /// `auto` counts on its CPU.
        notes: Vec<String>,
    },
}
