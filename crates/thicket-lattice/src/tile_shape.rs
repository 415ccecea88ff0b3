//! How the tile kernel (`kernels/tiles.cu`) lays a block's nodes out, and which shapes the
//! host launches: the geometry the kernel and the host must agree on, kept apart from the
//! driver code so that it is tested without a GPU.
//!
//! A warp holds 32 lanes of R consecutive nodes. Its ghost lanes (a lookback's lanes 0 and 31,
//! a vanilla's lane 31) hold nodes that a neighbouring warp owns, refreshed from it every R
//! layers; the next warp starts `own_lanes` lanes on. Lane 0 of warp 0 holds the block's first
//! node.
//!
//! Nodes per lane (measured on an H100, docs/benchmarks.md): 16 for every kernel but the
//! European vanilla in f32, 32 for it, and one long lattice in f64, 12 for it. More nodes a
//! lane spread the per-layer costs (shuffles, the ghost exchange) over more nodes; past 16
//! the heavier kernels ran out of registers (American: a fixed exercise value per node;
//! lookbacks: two arrays of layers), while a European vanilla in f32 holds one 4-byte value
//! per node.

use crate::kernels::TILE_BLOCK_NODES;

/// What a tile kernel holds per node, which decides its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TileClass {
    /// Whether a node reads both neighbours (lookbacks) or only the one above (vanillas).
    pub(crate) lookback: bool,
    /// Whether the kernel keeps an exercise value per node.
    pub(crate) american: bool,
    /// Bytes per value: 4 (f32) or 8 (f64).
    pub(crate) value_bytes: usize,
}

impl TileClass {
    /// Nodes per lane of this class's kernels in a book (one block per option).
    pub(crate) fn book_nodes(&self) -> usize {
        if !self.lookback && !self.american && self.value_bytes == 4 {
            WIDE_NODES
        } else {
            NODES
        }
    }

    /// Whether a book of this class runs in stages: the f32 European vanilla (32 nodes a lane,
    /// 3 warps at N = 2,048) ran slower in stages and stays in one launch (docs/benchmarks.md).
    pub(crate) fn staged(&self) -> bool {
        self.book_nodes() == NODES
    }

    /// The fewest layers a stage of this class advances: a shorter stage would cost its launch
    /// (a few microseconds and the tail of its blocks) for less than it saves, and runs on
    /// with the next. A European vanilla takes 16 layers a step, so its layers are cheap and a
    /// launch weighs more: its stages are 256 layers at least (NVIDIA's book in f64 on an
    /// H100, docs/benchmarks.md: 0.392 ms at 64, 0.369 ms at 256, 0.376 ms at 128 and 512).
    fn min_stage_layers(&self) -> usize {
        if !self.lookback && !self.american {
            256
        } else {
            64
        }
    }
}

/// Nodes per lane of every kernel class.
pub(crate) const NODES: usize = 16;
/// Nodes per lane of the f32 European vanilla's book kernel.
pub(crate) const WIDE_NODES: usize = 32;
/// Warps per block of one long lattice: one warp on each of an SM's four schedulers. A long
/// lattice has too few nodes a layer to give a scheduler two warps, so each warp's own issue
/// rate decides; a fifth warp shares a scheduler and held its whole block back, and 2 or 3
/// warps left SMs idle (docs/benchmarks.md).
const LONG_WARPS: usize = 4;
/// Threads per block of one long lattice (the launch bound of its kernels).
pub(crate) const LONG_THREADS: usize = LONG_WARPS * 32;
/// Nodes per lane of one long lattice in f64. A long lattice runs one warp a scheduler, so
/// what counts is how fast one warp issues: 16 nodes a lane unroll a round of 16 layers into
/// some 25 KB of code and waited on the instruction cache and on fixed-latency dependencies
/// (ncu), 8 nodes paid the shuffles and the ghost exchange over too few nodes; 12 was the
/// fastest in f64, while in f32 16 stays the fastest (docs/benchmarks.md).
const LONG_F64_NODES: usize = 12;

/// Nodes per lane, warps and kind of one block of the tile kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TileShape {
    /// Nodes per lane (R): one of the compiled variants.
    pub(crate) nodes: usize,
    /// Warps per block.
    pub(crate) warps: usize,
    /// Whether a node reads both neighbours (lookbacks) or only the one above (vanillas).
    pub(crate) lookback: bool,
}

/// One launch of a book: every option advanced from layer `top` (or its leaves, if its lattice
/// starts lower) to layer `end`, one block of `shape` each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BookStage {
    /// The layer the stage starts from.
    pub(crate) top: usize,
    /// The layer it ends at (0: the last stage, which prices the options).
    pub(crate) end: usize,
    /// The blocks of the stage.
    pub(crate) shape: TileShape,
}

impl TileShape {
    /// Lanes of a warp that hold its own nodes.
    pub(crate) fn own_lanes(&self) -> usize {
        if self.lookback {
            30
        } else {
            31
        }
    }

    /// Ghost lanes below a warp's own lanes.
    fn left_ghosts(&self) -> usize {
        usize::from(self.lookback)
    }

    /// The most warps a block of `nodes` per lane may have (the kernel's launch bounds).
    fn max_warps(nodes: usize) -> usize {
        TILE_BLOCK_NODES / nodes / 32
    }

    /// Nodes the block holds, from its first node on.
    pub(crate) fn extent(&self) -> usize {
        (self.warps - 1) * self.own_lanes() * self.nodes + 32 * self.nodes
    }

    /// Nodes from node 0 (in the first own lane of a book's block) to the block's end.
    fn reach(&self) -> usize {
        self.extent() - self.left_ghosts() * self.nodes
    }

    /// Threads per block.
    pub(crate) fn threads(&self) -> u32 {
        (32 * self.warps) as u32
    }

    /// Shared memory of the block: both neighbours' edges, double-buffered, per warp.
    pub(crate) fn shared_bytes(&self, value_bytes: usize) -> u32 {
        (4 * self.warps * self.nodes * value_bytes) as u32
    }

    /// The block that prices a whole lattice of `steps` steps alone (node 0 in its first own
    /// lane, node `steps - 1` inside it); `None` where it would pass the launch bounds.
    pub(crate) fn book(steps: usize, class: TileClass) -> Option<TileShape> {
        let nodes = class.book_nodes();
        let mut shape = TileShape {
            nodes,
            warps: 1,
            lookback: class.lookback,
        };
        while shape.reach() < steps.max(1) {
            shape.warps += 1;
        }
        (shape.warps <= Self::max_warps(nodes)).then_some(shape)
    }

    /// Nodes from node 0 to the end of the last warp's own lanes: a layer of at most this many
    /// nodes can be written out whole.
    fn own_reach(&self) -> usize {
        self.warps * self.own_lanes() * self.nodes
    }

    /// The stages of a book of lattices of at most `steps` steps: each advances every option
    /// from layer `top` to layer `end` in blocks of only as many warps as layer `top` needs,
    /// so that no block holds the registers of warps the shrinking triangle has left. A stage
    /// ends at the highest layer that fewer warps hold (nodes 0 ..= end in their own lanes, so
    /// that the block writes that layer whole); one that would be shorter than
    /// the class's `min_stage_layers` runs on to the next such layer. The last stage ends at layer 0.
    /// `None` where the first stage's block would pass the launch bounds.
    pub(crate) fn book_stages(steps: usize, class: TileClass) -> Option<Vec<BookStage>> {
        let mut stages = Vec::new();
        let mut top = steps.saturating_sub(1);
        loop {
            let shape = Self::book(top + 1, class)?;
            let mut end = 0;
            if class.staged() {
                for warps in (1..shape.warps).rev() {
                    let fewer = TileShape { warps, ..shape };
                    let layer = fewer.own_reach() - 1;
                    if layer < top && top - layer >= class.min_stage_layers() {
                        end = layer;
                        break;
                    }
                }
            }
            stages.push(BookStage { top, end, shape });
            if end == 0 {
                return Some(stages);
            }
            top = end;
        }
    }

    /// The longest lattice a book's block of `class` holds.
    pub(crate) fn widest_book(class: TileClass) -> usize {
        let nodes = class.book_nodes();
        TileShape {
            nodes,
            warps: Self::max_warps(nodes),
            lookback: class.lookback,
        }
        .reach()
    }
}

/// One launch of a long lattice: blocks of `shape` that overlap by `halo` nodes at each side,
/// `stride` nodes apart, advance layer `top` by `run` layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LongLaunch {
    /// The layer the launch starts from.
    pub(crate) top: usize,
    /// Layers it advances (at most `halo`).
    pub(crate) run: usize,
    /// Its blocks.
    pub(crate) shape: TileShape,
    /// Nodes a block shares with each neighbour: a whole number of lanes, at least one.
    pub(crate) halo: usize,
    /// Nodes from one block's first kept node to the next one's.
    pub(crate) stride: usize,
    /// Blocks of the launch.
    pub(crate) blocks: usize,
}

impl LongLaunch {
    /// The launch that advances layer `top` on blocks of `shape` with the widest halo (the
    /// most layers) whose blocks fit one wave on `sms` SMs, or, where no halo of at least one
    /// lane fits one wave, a quarter of the block at each side in as many waves as it takes.
    fn widest_halo(top: usize, shape: TileShape, sms: usize) -> LongLaunch {
        let extent = shape.extent();
        let r = shape.nodes;
        let launch = |halo: usize| {
            let run = halo.min(top);
            let stride = extent - 2 * halo;
            LongLaunch {
                top,
                run,
                shape,
                halo,
                stride,
                blocks: (top - run + 1).div_ceil(stride),
            }
        };
        let widest = (extent - 1) / 2 / r * r;
        (1..=widest / r)
            .rev()
            .map(|lanes| launch(lanes * r))
            .find(|l| l.blocks <= sms)
            .unwrap_or_else(|| launch(extent / 4 / r * r))
    }
}

/// The blocks of one long lattice of `class` (past a book's block): 4 warps of the nodes per
/// lane that ran fastest at its widest layers.
pub(crate) fn long_shape(class: TileClass) -> TileShape {
    TileShape {
        nodes: if class.value_bytes == 8 {
            LONG_F64_NODES
        } else {
            NODES
        },
        warps: LONG_WARPS,
        lookback: class.lookback,
    }
}

/// The launches that take one long lattice of `steps` steps from its leaves to layer 0 on
/// `sms` SMs, in blocks of `shape`. A launch's time is that of its layers on one block (every
/// block is alone on its SM) plus a few microseconds, so each advances as many layers as one
/// wave of blocks allows: as the triangle narrows, fewer nodes a block are kept and more
/// layers advanced (fewer launches and less time than a fixed quarter halo). Blocks of 8 or
/// 10 nodes a lane at the narrower layers, chosen by a fitted cost per layer and launch, were
/// no faster: a layer costs far more than its nodes' instructions (a chain of dependent
/// shuffles and FP64 operations, and the ghost exchange every R layers). Measurements:
/// docs/benchmarks.md.
pub(crate) fn long_launches(steps: usize, shape: TileShape, sms: usize) -> Vec<LongLaunch> {
    let sms = sms.max(1);
    let mut launches = Vec::new();
    let mut top = steps.saturating_sub(1);
    while top > 0 {
        let launch = LongLaunch::widest_halo(top, shape, sms);
        top -= launch.run;
        launches.push(launch);
    }
    launches
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes() -> Vec<TileClass> {
        let mut all = Vec::new();
        for lookback in [true, false] {
            for american in [true, false] {
                for value_bytes in [4, 8] {
                    all.push(TileClass {
                        lookback,
                        american,
                        value_bytes,
                    });
                }
            }
        }
        all
    }

    #[test]
    fn a_book_block_holds_its_whole_lattice_in_the_fewest_warps() {
        for class in classes() {
            let widest = TileShape::widest_book(class);
            for steps in [1, 2, 3, 100, 2048, 3000, widest] {
                let shape = TileShape::book(steps, class).unwrap();
                assert!(shape.reach() >= steps, "{shape:?} for {steps}");
                assert!(shape.threads() as usize <= TILE_BLOCK_NODES / shape.nodes);
                if shape.warps > 1 {
                    let smaller = TileShape {
                        warps: shape.warps - 1,
                        ..shape
                    };
                    assert!(smaller.reach() < steps);
                }
            }
            assert!(TileShape::book(widest + 1, class).is_none());
        }
        // 2,048 steps of an American lookback: 5 warps of 16 nodes a lane (30 own lanes each).
        let american_lookback = TileClass {
            lookback: true,
            american: true,
            value_bytes: 8,
        };
        assert_eq!(
            TileShape::book(2048, american_lookback),
            Some(TileShape {
                nodes: 16,
                warps: 5,
                lookback: true
            })
        );
    }

    #[test]
    fn a_book_runs_in_stages_of_fewer_warps_each_written_out_whole() {
        for class in classes() {
            for steps in [
                1,
                2,
                3,
                17,
                100,
                481,
                500,
                2048,
                3000,
                TileShape::widest_book(class),
            ] {
                let stages = TileShape::book_stages(steps, class).unwrap();
                assert_eq!(stages[0].top, steps - 1);
                assert_eq!(stages.last().unwrap().end, 0);
                assert!(class.staged() || stages.len() == 1);
                for pair in stages.windows(2) {
                    assert_eq!(pair[0].end, pair[1].top);
                    assert!(pair[1].shape.warps < pair[0].shape.warps);
                }
                for stage in &stages {
                    let shape = stage.shape;
                    assert_eq!(shape, TileShape::book(stage.top + 1, class).unwrap());
                    assert!(stage.end < stage.top || stage.top == 0);
                    // Layer `top` in the block, layer `end` whole in its own lanes.
                    assert!(shape.reach() > stage.top, "{stage:?}");
                    assert!(shape.own_reach() > stage.end, "{stage:?}");
                    if stage.end > 0 {
                        assert!(stage.top - stage.end >= class.min_stage_layers());
                    }
                }
            }
        }
        // 2,048 steps of a lookback: 5 warps down to layer 1,919 (the highest 4 warps' own
        // lanes hold), then 4, 3, 2 and 1.
        let american_lookback = TileClass {
            lookback: true,
            american: true,
            value_bytes: 8,
        };
        let stages = TileShape::book_stages(2048, american_lookback).unwrap();
        let plan: Vec<_> = stages
            .iter()
            .map(|s| (s.top, s.end, s.shape.warps))
            .collect();
        assert_eq!(
            plan,
            [
                (2047, 1919, 5),
                (1919, 1439, 4),
                (1439, 959, 3),
                (959, 479, 2),
                (479, 0, 1)
            ]
        );
    }

    #[test]
    fn a_long_lattice_runs_in_launches_that_cover_every_layer_and_shield_what_they_keep() {
        for class in classes() {
            let shape = long_shape(class);
            assert!(shape.warps <= TileShape::max_warps(shape.nodes));
            for (steps, sms) in [(4_000, 132), (30_000, 132), (100_000, 132), (100_000, 60)] {
                let plan = long_launches(steps, shape, sms);
                assert_eq!(plan[0].top, steps - 1);
                for pair in plan.windows(2) {
                    assert_eq!(pair[0].top - pair[0].run, pair[1].top);
                }
                let last = plan.last().unwrap();
                assert_eq!(last.top, last.run, "the last launch ends at layer 0");
                for launch in &plan {
                    assert_eq!(launch.shape, shape);
                    assert!(launch.halo >= shape.nodes && launch.run >= 1);
                    assert!(launch.run <= launch.halo, "{launch:?}");
                    assert_eq!(launch.halo % shape.nodes, 0, "node 0 must start a lane");
                    assert_eq!(launch.stride, shape.extent() - 2 * launch.halo);
                    // The blocks keep the whole layer the launch ends at, and no more.
                    let kept = launch.blocks * launch.stride;
                    assert!(kept > launch.top - launch.run, "{launch:?}");
                    assert!(
                        kept - launch.stride <= launch.top - launch.run,
                        "{launch:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_long_lattice_advances_the_most_layers_one_wave_allows() {
        let f64_lookback = TileClass {
            lookback: true,
            american: true,
            value_bytes: 8,
        };
        let shape = long_shape(f64_lookback);
        // 4 warps of 12 nodes a lane hold 1,464 nodes.
        assert_eq!((shape.nodes, shape.warps, shape.extent()), (12, 4, 1464));
        let plan = long_launches(100_000, shape, 132);
        assert!(plan.iter().all(|launch| launch.blocks <= 132));
        // A halo of 348 at the widest layer: 130 blocks keep the 99,652 nodes it ends at; a
        // halo one lane wider would need 133.
        assert_eq!((plan[0].halo, plan[0].blocks), (348, 130));
        for pair in plan.windows(2) {
            assert!(pair[1].halo >= pair[0].halo, "{pair:?}");
        }
        assert_eq!(plan.len(), 195);
        // On a device too small for one wave at the widest layers, a quarter halo.
        let small = long_launches(100_000, shape, 60);
        assert!(small[0].blocks > 60);
        assert_eq!(small[0].halo, 1464 / 4 / 12 * 12);
    }
}
