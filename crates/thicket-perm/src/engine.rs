//! The permutation engine's GPU side, for any problem (N-Queens here, the ATSP in
//! thicket-atsp): the thesis's strategies (Carneiro 2017) search below an active set the host
//! built by a serial search to d_cpu, in kernels (`kernels/*.cu`, compiled at run time by
//! NVRTC) the problem supplies.
//!
//! The API a problem uses:
//! - [`open_for`] opens a [`Device`] with the problem's kernel module for a [`Strategy`];
//!   [`resolve_depths`] turns the caller's [`GpuParams`] into the run's [`Depths`] (with
//!   [`AUTO_ROOTS`] deciding the automatic depth);
//! - the problem implements [`Problem`]: its node layout and its kernels' launches, through
//!   [`launch_per_root`], [`launch_pool`] and [`cdp_child_args`], given [`Roots`],
//!   [`Expansion`] and [`CdpSlices`] (kernel arguments are [`Arg`]s);
//! - [`run`] searches the roots with the strategy, in chunks that fit the device's memory,
//!   and says what it launched ([`Launched`]); the problem reports it as a [`GpuRun`].
//!
//! How the active set goes to the GPU (chunks sized by the memory analysis, `memory.rs`) and
//! which kernels search it:
//!
//! - BP-DFS: each chunk is searched to the leaves, one thread a root.
//! - BP-DFS + pool: the same with persistent threads taking roots through an atomic counter.
//! - REC-CDP: a first kernel expands the chunk from d_cpu to d_gpu into a device buffer through
//!   a global atomic survivor counter; the host then launches the search of the survivors.
//! - REC-DP3: expansions that double the depth (d_cpu, 2 d_cpu, 4 d_cpu, ... up to d_gpu),
//!   each from one buffer into the other, then the search of the last level.
//! - CDP-BP: one host launch a chunk; each block launches the search of its survivors itself.
//!
//! Buffers for survivors hold the worst case, the chunk times the thesis's expected children,
//! so they cannot overflow; the kernels still flag an overflow, which is reported as an error.

pub(crate) mod device;
mod memory;

use serde::Serialize;
use thicket_core::{Error, Progress, Result};
use thicket_gpu::KernelModule;

use crate::strategy::{GpuParams, Strategy};
use memory::{expected_children, plan_chunk, Footprint};

pub use device::{Arg, Device, BLOCK};

/// Child grids a block of CDP-BP launches (the thesis found no gain beyond two).
pub(crate) const CDP_STREAMS: u32 = 2;

/// Threads per block of the child grids of CDP-BP (the thesis's 64).
pub(crate) const CDP_CHILD_BLOCK: u32 = 64;

/// The device runtime's limit on pending child launches that CDP-BP sets; a host launch of
/// CDP-BP has at most this many blocks times [`CDP_STREAMS`] children.
pub(crate) const CDP_PENDING_LAUNCHES: u32 = 32768;

/// Memory the thesis reserves for the device runtime per nesting level (150 MB, two levels).
pub(crate) const CDP_RESERVED_BYTES: u64 = 2 * 150_000_000;

/// A problem searched by the GPU strategies: its node layout and its kernel launches.
pub trait Problem {
    /// 32-bit words per node.
    const WORDS: usize;

    /// The permutation's size (the leaves' depth).
    fn n(&self) -> usize;

    /// Bytes of device memory needed whatever the chunk (control data).
    fn fixed_bytes(&self) -> u64;

    /// Searches the `roots` to the leaves: one thread a root, or, given the address of a
    /// zeroed counter, persistent threads taking roots from a pool through it.
    fn search(&self, device: &Device, roots: Roots, pool: Option<u64>) -> Result<()>;

    /// Expands the `roots` to depth `expansion.to`, appending the nodes there as `expansion`
    /// says.
    fn expand(&self, device: &Device, roots: Roots, expansion: Expansion) -> Result<()>;

    /// CDP-BP: expands the `roots` to depth `slices.to` into per-block slices and launches
    /// their search from the device.
    fn cdp(&self, device: &Device, roots: Roots, slices: CdpSlices) -> Result<()>;

    /// Fails if a kernel reported that a buffer overflowed.
    fn check(&self, device: &Device) -> Result<()>;
}

/// Nodes on the device that a kernel starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Roots {
    /// Device address of the packed nodes ([`Problem::WORDS`] words each).
    pub address: u64,
    /// How many nodes there are.
    pub count: u64,
    /// Their depth.
    pub depth: usize,
}

/// Where an expansion appends the nodes it reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expansion {
    /// The depth to expand to.
    pub to: usize,
    /// Device address of the buffer the nodes go to.
    pub out: u64,
    /// Device address of the zeroed counter of nodes written.
    pub written: u64,
    /// Nodes `out` has room for.
    pub capacity: u64,
}

/// Where CDP-BP's blocks put the nodes they expand to and report failed device launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CdpSlices {
    /// The depth to expand to.
    pub to: usize,
    /// Device address of the slices, one of `per_block` nodes a block.
    pub slices: u64,
    /// Nodes a block's slice has room for.
    pub per_block: u64,
    /// Device address of the word a failed device-side launch writes its CUDA error to.
    pub launch_error: u64,
}

/// The two trailing arguments of every CDP-BP kernel before `launch_error`: the child grids a
/// block launches and their block size.
pub fn cdp_child_args() -> [Arg; 2] {
    [
        Arg::I32(CDP_STREAMS as i32),
        Arg::I32(CDP_CHILD_BLOCK as i32),
    ]
}

/// Launches the kernel `name` with one thread a root: enough blocks of [`BLOCK`] threads for
/// `count` threads, with `shared` bytes of dynamic shared memory.
///
/// # Safety
/// As for [`Device::launch`]: `args` must match the kernel's parameters and `shared` must
/// cover what `count` threads of it use.
pub unsafe fn launch_per_root(
    device: &Device,
    name: &str,
    count: u64,
    shared: u32,
    args: &[Arg],
) -> Result<()> {
    let function = device.function(name)?;
    // SAFETY: the caller guarantees that the arguments and shared memory fit the kernel.
    unsafe { device.launch(&function, grid_for(count, BLOCK)?, BLOCK, shared, args) }
}

/// Launches the kernel `name` as persistent threads: as many blocks of [`BLOCK`] threads with
/// `shared` bytes of dynamic shared memory as fit on the device at once.
///
/// # Safety
/// As for [`Device::launch`]: `args` must match the kernel's parameters and `shared` must
/// cover what a block of it uses.
pub unsafe fn launch_pool(device: &Device, name: &str, shared: u32, args: &[Arg]) -> Result<()> {
    let function = device.function(name)?;
    let grid = device.sm_count() * device.blocks_per_sm(&function, BLOCK, shared)?;
    // SAFETY: the caller guarantees that the arguments and shared memory fit the kernel.
    unsafe { device.launch(&function, grid, BLOCK, shared, args) }
}

/// Blocks of `block` threads for `count` threads.
pub(crate) fn grid_for(count: u64, block: u32) -> Result<u32> {
    u32::try_from(count.div_ceil(u64::from(block)))
        .map_err(|_| Error::InvalidInput(format!("{count} roots are too many for one launch")))
}

/// The depths of a GPU run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Depths {
    /// Depth of the host's serial search (the roots).
    pub d_cpu: usize,
    /// REC-CDP and CDP-BP: the depth the first kernel expands to; REC-DP3: the depth where the
    /// doubling stops. Equal to `d_cpu` for the BP-DFS strategies.
    pub d_gpu: usize,
}

/// How a GPU run went, for reports.
#[derive(Debug, Clone, Serialize)]
pub struct GpuRun {
    /// The device's name.
    pub device: String,
    /// The strategy.
    pub strategy: Strategy,
    /// The depths used.
    pub depths: Depths,
    /// Roots built by the host (the active set at d_cpu).
    pub roots: u64,
    /// Roots copied to the GPU at a time (after the memory analysis).
    pub chunk: u64,
    /// Chunks copied.
    pub chunks: u64,
    /// Kernel launches from the host.
    pub launches: u64,
    /// Nodes the GPU kernels searched from (for REC-CDP and REC-DP3: the last level).
    pub gpu_roots: u64,
    /// Seconds of the host's initial search.
    pub host_seconds: f64,
    /// Seconds from the first copy to the GPU to the last result.
    pub device_seconds: f64,
}

/// What [`run`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launched {
    /// Roots copied to the GPU at a time.
    pub chunk: u64,
    /// Chunks copied.
    pub chunks: u64,
    /// Kernel launches from the host.
    pub launches: u64,
    /// Nodes the final search started from.
    pub gpu_roots: u64,
}

/// Runs `strategy` on `device` for the `roots` (packed, [`Problem::WORDS`] words each) at
/// depth `depths.d_cpu`, advancing `progress` by roots done.
pub fn run<P: Problem>(
    problem: &P,
    device: &Device,
    strategy: Strategy,
    depths: Depths,
    roots: &[u32],
    progress: &Progress,
) -> Result<Launched> {
    let count = (roots.len() / P::WORDS) as u64;
    let n = problem.n();
    let node_bytes = (P::WORDS * 4) as u64;
    let levels = match strategy {
        Strategy::RecDp3 => doubling(depths.d_cpu, depths.d_gpu),
        Strategy::RecCdp | Strategy::CdpBp if depths.d_gpu > depths.d_cpu => {
            vec![depths.d_cpu, depths.d_gpu]
        }
        _ => vec![depths.d_cpu],
    };
    // Per root of a chunk: the root, and the worst-case survivors of each level, in the two
    // buffers that the levels alternate between.
    let capacity = |level: usize| expected_children(n, depths.d_cpu, levels[level]);
    let mut per_root_buffers = [0u64, 0u64];
    for level in 1..levels.len() {
        let slot = &mut per_root_buffers[level % 2];
        *slot = (*slot).max(capacity(level));
    }
    let per_root_nodes = 1u64
        .saturating_add(per_root_buffers[0])
        .saturating_add(per_root_buffers[1]);
    let (reserved, cap) = match strategy {
        Strategy::CdpBp => (
            CDP_RESERVED_BYTES,
            u64::from(CDP_PENDING_LAUNCHES / CDP_STREAMS) * u64::from(BLOCK),
        ),
        _ => (0, u64::MAX),
    };
    let footprint = Footprint {
        per_root: per_root_nodes.saturating_mul(node_bytes),
        fixed: problem.fixed_bytes() + reserved,
    };
    let chunk = plan_chunk(device.free_memory()?, count, footprint, cap)?;
    // CDP-BP's blocks own slices of whole blocks of roots, so buffers hold whole blocks.
    let rounded_chunk = chunk.div_ceil(u64::from(BLOCK)) * u64::from(BLOCK);
    let buffer_len = |per_root: u64| -> Result<usize> {
        rounded_chunk
            .checked_mul(per_root)
            .and_then(|nodes| nodes.checked_mul(P::WORDS as u64))
            .and_then(|words| usize::try_from(words).ok())
            .ok_or_else(|| Error::Overflow("a GPU buffer's size overflows".into()))
    };
    let mut input = device.zeros::<u32>(buffer_len(1)?)?;
    let buffers = [
        device.zeros::<u32>(buffer_len(per_root_buffers[0])?)?,
        device.zeros::<u32>(buffer_len(per_root_buffers[1])?)?,
    ];
    let mut written = device.zeros::<u64>(1)?;
    let mut next_root = device.zeros::<u64>(1)?;
    let launch_error = device.zeros::<u32>(1)?;
    let mut launches = 0u64;
    let mut gpu_roots = 0u64;
    let mut chunks = 0u64;
    let words = P::WORDS as u64;
    for start in (0..count).step_by(chunk as usize) {
        let size = chunk.min(count - start);
        let range = (start * words) as usize..((start + size) * words) as usize;
        device.copy_into(&roots[range], &mut input)?;
        chunks += 1;
        match strategy {
            Strategy::CdpBp if levels.len() == 2 => {
                let per_block = u64::from(BLOCK) * capacity(1);
                let roots = Roots {
                    address: device.address(&input),
                    count: size,
                    depth: depths.d_cpu,
                };
                let slices = CdpSlices {
                    to: depths.d_gpu,
                    slices: device.address(&buffers[1]),
                    per_block,
                    launch_error: device.address(&launch_error),
                };
                problem.cdp(device, roots, slices)?;
                launches += 1;
                gpu_roots += size;
                device.synchronize()?;
                let error = device.download(&launch_error)?[0];
                if error != 0 {
                    return Err(Error::Gpu(format!(
                        "a device-side launch of CDP-BP failed with CUDA error {error}"
                    )));
                }
            }
            _ => {
                let mut level_roots = Roots {
                    address: device.address(&input),
                    count: size,
                    depth: levels[0],
                };
                for level in 1..levels.len() {
                    let out = &buffers[level % 2];
                    zero(device, &mut written)?;
                    let expansion = Expansion {
                        to: levels[level],
                        out: device.address(out),
                        written: device.address(&written),
                        capacity: size.saturating_mul(capacity(level)),
                    };
                    problem.expand(device, level_roots, expansion)?;
                    launches += 1;
                    problem.check(device)?;
                    let survivors = device.download(&written)?[0];
                    level_roots = Roots {
                        address: device.address(out),
                        count: survivors,
                        depth: levels[level],
                    };
                }
                let pool = if strategy == Strategy::BpDfsPool {
                    zero(device, &mut next_root)?;
                    Some(device.address(&next_root))
                } else {
                    None
                };
                problem.search(device, level_roots, pool)?;
                launches += 1;
                gpu_roots += level_roots.count;
                device.synchronize()?;
            }
        }
        problem.check(device)?;
        progress.inc(size);
    }
    Ok(Launched {
        chunk,
        chunks,
        launches,
        gpu_roots,
    })
}

/// Sets a counter on the device to zero (in stream order).
fn zero(device: &Device, counter: &mut thicket_gpu::cudarc::driver::CudaSlice<u64>) -> Result<()> {
    device
        .stream()
        .memset_zeros(counter)
        .map_err(|e| Error::from(thicket_gpu::GpuError::driver("cuMemsetD8")(e)))
}

/// REC-DP3's depths: `from`, then doubling, capped at `to` (`to` itself last).
pub(crate) fn doubling(from: usize, to: usize) -> Vec<usize> {
    let mut depths = vec![from];
    let mut depth = from;
    while depth < to {
        depth = (depth.max(1) * 2).min(to);
        depths.push(depth);
    }
    depths
}

/// With no `--d-cpu`, the GPU strategies build roots down to the first depth with at least
/// this many nodes: enough threads to fill a large GPU several times over.
pub const AUTO_ROOTS: u64 = 1 << 20;

/// The depths of a run of `strategy`, kept within `shallowest..=deepest`; `auto` gives the
/// automatic depth when it is needed.
pub fn resolve_depths(
    strategy: Strategy,
    params: &GpuParams,
    shallowest: usize,
    deepest: usize,
    auto: impl FnOnce() -> usize,
) -> Depths {
    let (d_cpu, d_gpu) = match strategy {
        Strategy::RecCdp | Strategy::CdpBp => match (params.d_cpu, params.d_gpu) {
            (Some(d_cpu), d_gpu) => (d_cpu, d_gpu.unwrap_or(d_cpu + 2)),
            (None, Some(d_gpu)) => (d_gpu.saturating_sub(2), d_gpu),
            (None, None) => {
                let depth = auto();
                (depth.saturating_sub(2), depth)
            }
        },
        Strategy::RecDp3 => (params.d_cpu.unwrap_or(2), params.d_gpu.unwrap_or_else(auto)),
        _ => {
            let depth = params.d_cpu.unwrap_or_else(auto);
            (depth, depth)
        }
    };
    let d_cpu = d_cpu.clamp(shallowest, deepest);
    Depths {
        d_cpu,
        d_gpu: d_gpu.clamp(d_cpu, deepest),
    }
}

/// Opens GPU `ordinal` with the kernels `strategy` needs: `kernels`, or for CDP-BP the linked
/// module `cdp`.
pub fn open_for(
    strategy: Strategy,
    kernels: &KernelModule,
    cdp: &KernelModule,
    ordinal: usize,
) -> Result<Device> {
    if !strategy.is_gpu() {
        return Err(Error::InvalidInput(format!(
            "{} is not a GPU strategy",
            strategy.name()
        )));
    }
    if strategy == Strategy::CdpBp {
        return Device::open(cdp, ordinal);
    }
    Device::open(kernels, ordinal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubling_stops_at_the_base_depth() {
        assert_eq!(doubling(2, 8), vec![2, 4, 8]);
        assert_eq!(doubling(3, 8), vec![3, 6, 8]);
        assert_eq!(doubling(0, 3), vec![0, 2, 3]);
        assert_eq!(doubling(5, 5), vec![5]);
    }

    fn depths(strategy: Strategy, d_cpu: Option<usize>, d_gpu: Option<usize>) -> (usize, usize) {
        let params = GpuParams {
            d_cpu,
            d_gpu,
            device: 0,
        };
        let depths = resolve_depths(strategy, &params, 1, 16, || 6);
        (depths.d_cpu, depths.d_gpu)
    }

    #[test]
    fn depths_default_as_documented_and_stay_in_range() {
        assert_eq!(depths(Strategy::BpDfs, None, None), (6, 6));
        assert_eq!(depths(Strategy::BpDfsPool, Some(3), Some(9)), (3, 3));
        assert_eq!(depths(Strategy::RecCdp, None, None), (4, 6));
        assert_eq!(depths(Strategy::RecCdp, Some(3), None), (3, 5));
        assert_eq!(depths(Strategy::CdpBp, None, Some(8)), (6, 8));
        assert_eq!(depths(Strategy::RecDp3, None, None), (2, 6));
        assert_eq!(depths(Strategy::RecDp3, Some(9), Some(4)), (9, 9));
        assert_eq!(depths(Strategy::BpDfs, Some(40), None), (16, 16));
        assert_eq!(depths(Strategy::RecCdp, Some(0), Some(1)), (1, 1));
    }
}
