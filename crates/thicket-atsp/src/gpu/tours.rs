//! The GPU tour improver (`kernels/tours.cu`): many chains of an iterated local search at
//! once, one block a chain ([`TOURS_BLOCKS_PER_SM`] a multiprocessor), each from the same start
//! tour with kicks of its own; moves that keep every segment's orientation (or-opt and
//! or-3opt segment swaps) drawn from the CPU local search's neighbour lists, which the host
//! builds and uploads; the block's threads evaluate the moves of its active cities at once.
//!
//! [`improve_beside`] runs it beside the CPU's local search on the same start, each until the
//! same deadline, and keeps the cheaper tour. The GPU runs epochs: one launch of a number of
//! kicks a chain (doubled while a launch takes less than [`EPOCH_SECONDS`], and never more
//! than the time left fits), then every chain's cost read back, the caller's stop and the
//! deadline checked, and every chain more than [`RESTART_GAP`] dearer than the best restarted
//! from the best's tour. The best chain's tour comes back checked on the host, its cost
//! recomputed from the matrix.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use thicket_core::{Error, Progress, Result, StopFlag};
use thicket_gpu::cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use thicket_gpu::{Gpu, GpuError, LaunchPacer};

use crate::heuristic::tour_cost;
use crate::instance::Instance;
use crate::kernels::{TourKernels, CANDIDATES, CHAIN_BYTES, TOURS_BLOCKS_PER_SM, TOURS_THREADS};
use crate::lap::Lap;
use crate::local_search::{improve_tour, neighbour_lists, Exchange, Limits, Side};
use crate::one_tree::NodePrices;
use crate::policy::assignment_or;

/// The wall time a launch aims at.
const EPOCH_SECONDS: f64 = 0.05;
/// Chains dearer than the best by more than this share restart from the best's tour.
const RESTART_GAP: f64 = 0.002;
/// Shared memory a block may take without opting in.
const SHARED_BYTES: usize = 48 * 1024;

/// Dynamic shared memory of one chain: the active bitset, and the order and position of
/// every city as u16.
fn dynamic_bytes(n: usize) -> usize {
    4 * n.div_ceil(32) + 4 * n
}

/// Refuses `n` cities the improver cannot take: fewer than its lists need, more than a u16
/// city or a block's shared memory holds ([`Error::TooLarge`]).
fn check_fits(n: usize) -> Result<()> {
    if n <= CANDIDATES {
        return Err(Error::InvalidInput(format!(
            "the GPU tour improver takes more than {CANDIDATES} cities, not {n}"
        )));
    }
    let shared = CHAIN_BYTES + dynamic_bytes(n);
    if n > usize::from(u16::MAX) || shared > SHARED_BYTES {
        return Err(Error::TooLarge(format!(
            "{n} cities need {shared} bytes of shared memory a chain, more than the GPU tour \
             improver's {SHARED_BYTES}"
        )));
    }
    Ok(())
}

/// What the GPU improver did.
#[derive(Debug, Clone)]
struct GpuImproved {
    /// The best tour, from city 0, and its cost recomputed on the host.
    cost: i64,
    tour: Vec<usize>,
    /// The start's cost.
    from: i64,
    kicks: u64,
    chains: usize,
    launches: u64,
    device: String,
}

impl GpuImproved {
    fn note(&self) -> String {
        format!(
            "GPU tour improver ({}, {} chains, or-opt and or-3opt, double-bridge kicks) improved \
             the tour from {} to {} in {} kicks, {} launches",
            self.device, self.chains, self.from, self.cost, self.kicks, self.launches
        )
    }
}

/// What [`improve_beside`] found.
pub(crate) struct Beside {
    /// The cheaper tour as `(cost, tour)`.
    pub(crate) best: (i64, Vec<usize>),
    /// A note from each search.
    pub(crate) notes: Vec<String>,
    /// The GPU's name, where it ran.
    pub(crate) device: Option<String>,
}

/// Improves `start` (a tour of `inst`) on GPU `ordinal` and with the CPU's local search at
/// once, both until `limits` (the GPU until the deadline, or the caller's stop), the neighbour
/// lists ranked by the reduced costs of `duals` (solved here where `None`; the CPU's ranked and
/// priced by the 1-tree's prices once they come to `prices`). Returns the cheaper tour as
/// `(cost, tour)`, from city 0, and a note from each. Where the GPU cannot
/// run (no device, no NVRTC, too many cities) or fails, its note says why and the CPU's tour
/// is the answer.
pub(crate) fn improve_beside(
    inst: &Instance,
    start: &[usize],
    duals: Option<&Lap>,
    limits: &Limits,
    progress: &Progress,
    ordinal: usize,
    prices: Option<&OnceLock<NodePrices>>,
) -> Result<Beside> {
    let lap = assignment_or(inst, duals);
    let lap: &Lap = &lap;
    let stop = progress.stop_flag();
    let exchange = Exchange::default();
    let (gpu, cpu) = std::thread::scope(|scope| {
        let gpu = scope.spawn(|| {
            let stop = stop.as_ref();
            improve_on_gpu(inst, start, lap, limits.deadline, stop, ordinal, &exchange)
        });
        let cpu = improve_tour(
            inst,
            start,
            Some(lap),
            limits,
            progress,
            Some(&exchange),
            prices,
        );
        let gpu = gpu
            .join()
            .unwrap_or_else(|_| Err(Error::Gpu("the GPU tour improver's thread panicked".into())));
        (gpu, cpu)
    });
    let (cost, tour, improved) = cpu?;
    let mut notes = vec![improved.note()];
    if exchange.taken(Side::Cpu) + exchange.taken(Side::Gpu) > 0 {
        notes.push(format!(
            "the CPU's chains took the GPU's best tour {} times, the GPU the CPU's {} times",
            exchange.taken(Side::Cpu),
            exchange.taken(Side::Gpu)
        ));
    }
    let mut best = (cost, tour);
    let mut device = None;
    match gpu {
        Ok(gpu) => {
            notes.push(gpu.note());
            device = Some(gpu.device.clone());
            if gpu.cost < best.0 {
                best = (gpu.cost, gpu.tour);
            }
        }
        Err(error) => notes.push(format!(
            "GPU tour improver not run ({error}): the tour was improved on the CPU alone"
        )),
    }
    Ok(Beside {
        best,
        notes,
        device,
    })
}

/// Offers chain `c`'s tour (of cost `best`) to `exchange`, or where the CPU's shared tour is
/// cheaper, writes that over chain `c` (the restart after the launch then spreads it);
/// returns chain `c`'s cost after the trade.
fn trade(
    stream: &Arc<CudaStream>,
    exchange: &Exchange,
    tours: &mut CudaSlice<u16>,
    costs: &mut CudaSlice<i64>,
    n: usize,
    c: usize,
    best: i64,
) -> Result<i64> {
    if let Some((cost, cities)) = exchange.take(Side::Gpu, best) {
        let cities: Vec<u16> = cities.iter().map(|&city| city as u16).collect();
        stream
            .memcpy_htod(&cities, &mut tours.slice_mut(c * n..(c + 1) * n))
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        stream
            .memcpy_htod(&[cost], &mut costs.slice_mut(c..c + 1))
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        return Ok(cost);
    }
    let mut failed = None;
    exchange.offer(Side::Gpu, best, || {
        let mut cities = vec![0u16; n];
        if let Err(error) = stream.memcpy_dtoh(&tours.slice(c * n..(c + 1) * n), &mut cities) {
            failed = Some(error);
        }
        cities.iter().map(|&city| usize::from(city)).collect()
    });
    match failed {
        Some(error) => Err(GpuError::driver("cuMemcpyDtoH")(error).into()),
        None => Ok(best),
    }
}

/// `cities` rotated to start at city 0, if they are a permutation of `0..n`.
fn from_zero(n: usize, mut cities: Vec<usize>) -> Option<Vec<usize>> {
    let mut seen = vec![false; n];
    let all = cities.len() == n
        && cities
            .iter()
            .all(|&city| city < n && !std::mem::replace(&mut seen[city], true));
    let zero = cities.iter().position(|&c| c == 0)?;
    cities.rotate_left(zero);
    all.then_some(cities)
}

/// Improves `start` on GPU `ordinal` until `deadline` or `stop` (checked between launches),
/// trading its best tour with the CPU's chains through `exchange` between launches; see the
/// module.
fn improve_on_gpu(
    inst: &Instance,
    start: &[usize],
    lap: &Lap,
    deadline: Instant,
    stop: Option<&StopFlag>,
    ordinal: usize,
    exchange: &Exchange,
) -> Result<GpuImproved> {
    let n = inst.n;
    check_fits(n)?;
    let start = from_zero(n, start.to_vec())
        .ok_or_else(|| Error::InvalidInput("the GPU tour improver's start is not a tour".into()))?;
    let from = tour_cost(inst, &start);
    let gpu = Gpu::shared(ordinal)?;
    let kernels = TourKernels::load(&gpu)?;
    let (succ, pred, k) = neighbour_lists(inst, lap);
    if k != CANDIDATES {
        return Err(Error::InvalidInput(format!(
            "lists of {k} cities where the GPU tour improver takes {CANDIDATES}"
        )));
    }
    let chains = (gpu.info().sm_count as usize * TOURS_BLOCKS_PER_SM).max(1);
    let stream = gpu.stream().clone();
    let cost: Vec<i32> = inst.cost.iter().map(|&c| c as i32).collect();
    let cost = stream
        .clone_htod(&cost)
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    let to_u16 = |cities: &[usize]| cities.iter().map(|&c| c as u16).collect::<Vec<u16>>();
    let succ = stream
        .clone_htod(&to_u16(&succ))
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    let pred = stream
        .clone_htod(&to_u16(&pred))
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    let start16 = to_u16(&start);
    let every: Vec<u16> = (0..chains).flat_map(|_| start16.iter().copied()).collect();
    let mut tours = stream
        .clone_htod(&every)
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    let mut costs = stream
        .alloc_zeros::<i64>(chains)
        .map_err(GpuError::driver("cuMemAlloc"))?;
    let mut done = stream
        .alloc_zeros::<u64>(1)
        .map_err(GpuError::driver("cuMemAlloc"))?;
    let per_chain = LaunchConfig {
        grid_dim: (chains as u32, 1, 1),
        block_dim: (TOURS_THREADS as u32, 1, 1),
        shared_mem_bytes: dynamic_bytes(n) as u32,
    };
    let copy = LaunchConfig {
        shared_mem_bytes: 0,
        ..per_chain
    };
    let (n32, seed) = (n as i32, 1u64);
    let mut pacer = LaunchPacer::new(EPOCH_SECONDS);
    let mut launches = 0u64;
    let mut best_chain = None;
    while Instant::now() < deadline && !stop.is_some_and(StopFlag::is_raised) {
        let launched = Instant::now();
        let (kicks32, descend_all) = (pacer.kicks() as i32, i32::from(launches == 0));
        {
            let mut l = stream.launch_builder(&kernels.tours_ils);
            l.arg(&cost)
                .arg(&n32)
                .arg(&succ)
                .arg(&pred)
                .arg(&mut tours)
                .arg(&mut costs)
                .arg(&kicks32)
                .arg(&descend_all)
                .arg(&seed)
                .arg(&launches)
                .arg(&mut done);
            // SAFETY: tours_ils(const int* cost, int n, const u16* succ_near, const u16*
            // pred_near, u16* tours, i64* costs, int kicks, int descend_all, u64 seed, u64
            // launch, u64* kicks_done): cost holds n * n ints, the lists n * CANDIDATES cities
            // below n, tours a permutation of 0..n for each of `chains` blocks, costs one slot
            // a block; the dynamic shared memory is dynamic_bytes(n), which check_fits keeps
            // within the block's limit beside the static CHAIN_BYTES.
            unsafe { l.launch(per_chain) }.map_err(GpuError::driver("cuLaunchKernel"))?;
        }
        let spans = stream
            .clone_dtoh(&costs)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        launches += 1;
        let (c, &best) = spans
            .iter()
            .enumerate()
            .min_by_key(|&(_, cost)| *cost)
            .ok_or_else(|| Error::Gpu("no chains".into()))?;
        let best = trade(&stream, exchange, &mut tours, &mut costs, n, c, best)?;
        best_chain = Some((c, best));
        let took = launched.elapsed().as_secs_f64();
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        if !pacer.next(took, left) {
            break;
        }
        let limit = best + (best as f64 * RESTART_GAP) as i64;
        let c32 = c as i32;
        let mut l = stream.launch_builder(&kernels.tours_restart);
        l.arg(&mut tours)
            .arg(&mut costs)
            .arg(&n32)
            .arg(&c32)
            .arg(&limit);
        // SAFETY: tours_restart(u16* tours, i64* costs, int n, int from, i64 limit): block i
        // copies chain c's n cities over its own (c < chains).
        unsafe { l.launch(copy) }.map_err(GpuError::driver("cuLaunchKernel"))?;
    }
    let device = gpu.info().name.clone();
    let Some((c, reported)) = best_chain else {
        return Ok(GpuImproved {
            cost: from,
            tour: start,
            from,
            kicks: 0,
            chains,
            launches,
            device,
        });
    };
    let mut best = vec![0u16; n];
    stream
        .memcpy_dtoh(&tours.slice(c * n..(c + 1) * n), &mut best)
        .map_err(GpuError::driver("cuMemcpyDtoH"))?;
    let kicks = stream
        .clone_dtoh(&done)
        .map_err(GpuError::driver("cuMemcpyDtoH"))?[0];
    let tour = from_zero(n, best.iter().map(|&c| usize::from(c)).collect()).ok_or_else(|| {
        Error::Gpu(format!(
            "the GPU's tour is not a permutation of the {n} cities"
        ))
    })?;
    let cost = tour_cost(inst, &tour);
    if cost != reported {
        return Err(Error::Gpu(format!(
            "the GPU's tour costs {cost}, not the {reported} it reported"
        )));
    }
    Ok(GpuImproved {
        cost,
        tour,
        from,
        kicks,
        chains,
        launches,
        device,
    })
}

#[cfg(test)]
mod tests;
