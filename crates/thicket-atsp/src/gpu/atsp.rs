//! The ATSP on the GPU with the thesis's partial-cost bound: the host's serial search to d_cpu
//! (path length, city 0 included) builds the roots, a GPU strategy searches below them, and
//! the best tour comes back from the device with its cost.
//!
//! The search starts from the heuristic tour. With an upper bound below it (the thesis's
//! protocol starts at the optimum) the incumbent starts one above the bound, so a tour of
//! exactly that cost is found, and only nodes whose partial cost is below the bound are
//! counted: those are the nodes of the CPU search that proves the bound, a count independent
//! of when tours are found. Should no tour cost at most the bound, it was below the optimum
//! and the search reruns from the heuristic tour, as the CPU search does.

use std::time::Instant;

use thicket_core::{Error, Progress, Result};
use thicket_gpu::cudarc::driver::CudaSlice;

use thicket_perm::engine::{
    self, open_for, resolve_depths, Arg, CdpSlices, Depths, Device, Expansion, GpuRun, Problem,
    Roots, AUTO_ROOTS,
};
use thicket_perm::{GpuParams, Strategy};

use crate::heuristic::heuristic_tour;
use crate::instance::Instance;
use crate::kernels::{MAX_CITIES, TOUR_SLOTS, WORDS};
use crate::search::AtspSolution;
use crate::verify::verify;

/// The incumbent record's size in 64-bit words (struct Incumbent in the kernel).
const INCUMBENT_WORDS: usize = 4;

/// A path from city 0 built on the host.
#[derive(Debug, Clone)]
struct Path {
    cities: Vec<u8>,
    cost: i64,
    visited: u32,
}

impl Path {
    fn pack(&self, out: &mut Vec<u32>) {
        let mut bytes = [0u8; 32];
        bytes[..self.cities.len()].copy_from_slice(&self.cities);
        for word in bytes.chunks_exact(4) {
            out.push(u32::from_le_bytes([word[0], word[1], word[2], word[3]]));
        }
        out.push(self.cost as u32);
        out.push(self.visited);
    }
}

/// The host's serial search, level by level, until `stop(path length, paths)`: children whose
/// partial cost reaches `threshold` are pruned and those below `count_below` counted, as on the
/// GPU. Returns the paths at the last length, that length and the nodes counted.
fn levels(
    inst: &Instance,
    threshold: i64,
    count_below: i64,
    stop: impl Fn(usize, usize) -> bool,
) -> (Vec<Path>, usize, u64) {
    let mut level = vec![Path {
        cities: vec![0],
        cost: 0,
        visited: 1,
    }];
    let mut len = 1;
    let mut nodes = 0u64;
    while len < inst.n && !stop(len, level.len()) {
        let mut next = Vec::new();
        for path in &level {
            let last = usize::from(*path.cities.last().expect("a path holds city 0"));
            for city in 1..inst.n {
                if path.visited >> city & 1 == 1 {
                    continue;
                }
                let cost = path.cost + inst.cost(last, city);
                if cost >= threshold {
                    continue;
                }
                if cost < count_below {
                    nodes += 1;
                }
                let mut cities = path.cities.clone();
                cities.push(city as u8);
                next.push(Path {
                    cities,
                    cost,
                    visited: path.visited | 1 << city,
                });
            }
        }
        level = next;
        len += 1;
    }
    (level, len, nodes)
}

/// The ATSP kernels, the instance and the incumbent on one device.
struct AtspKernels {
    n: usize,
    count_below: i32,
    cost: CudaSlice<i32>,
    /// struct Incumbent: best cost and overflow flags, best key, improvements, nodes.
    incumbent: CudaSlice<u64>,
    tours: CudaSlice<u8>,
}

impl AtspKernels {
    fn shared(&self) -> u32 {
        (self.n * self.n * 4) as u32
    }

    /// The arguments that every ATSP kernel begins with: the roots, their path length, the
    /// cost matrix and n, then for an expansion the length to expand to.
    fn leading_args(&self, device: &Device, roots: Roots, to: Option<usize>) -> Vec<Arg> {
        let mut args = vec![
            Arg::U64(roots.address),
            Arg::U64(roots.count),
            Arg::I32(roots.depth as i32),
            Arg::U64(device.address(&self.cost)),
            Arg::I32(self.n as i32),
        ];
        args.extend(to.map(|to| Arg::I32(to as i32)));
        args
    }

    /// The arguments that follow [`Self::leading_args`] in every ATSP kernel: the node-count
    /// bound, the incumbent record and the tour slots.
    fn incumbent_args(&self, device: &Device) -> [Arg; 3] {
        [
            Arg::I32(self.count_below),
            Arg::U64(device.address(&self.incumbent)),
            Arg::U64(device.address(&self.tours)),
        ]
    }

    /// The incumbent record: best cost, overflow flags, best key (cost << 32 | slot),
    /// improvements, nodes.
    fn read(&self, device: &Device) -> Result<(i32, u32, u64, u64)> {
        let words = device.download(&self.incumbent)?;
        Ok((
            words[0] as u32 as i32,
            (words[0] >> 32) as u32,
            words[1],
            words[3],
        ))
    }
}

impl Problem for AtspKernels {
    const WORDS: usize = WORDS;

    fn n(&self) -> usize {
        self.n
    }

    fn fixed_bytes(&self) -> u64 {
        (TOUR_SLOTS * MAX_CITIES + self.n * self.n * 4 + 64) as u64
    }

    fn search(&self, device: &Device, roots: Roots, pool: Option<u64>) -> Result<()> {
        if roots.count == 0 {
            return Ok(());
        }
        let mut args = self.leading_args(device, roots, None);
        args.extend(self.incumbent_args(device));
        let shared = self.shared();
        if let Some(next_root) = pool {
            args.push(Arg::U64(next_root));
            // SAFETY: atsp_pool(const unsigned* roots, u64 count, int len, const int* cost,
            // int n, int count_below, Incumbent* inc, unsigned char* tours, u64* next_root);
            // `roots` holds `count` nodes, the cost matrix n * n ints, `tours` TOUR_SLOTS
            // tours, and the shared memory the matrix.
            return unsafe { engine::launch_pool(device, "atsp_pool", shared, &args) };
        }
        // SAFETY: atsp_bp_dfs takes the same arguments as atsp_pool but the last.
        unsafe { engine::launch_per_root(device, "atsp_bp_dfs", roots.count, shared, &args) }
    }

    fn expand(&self, device: &Device, roots: Roots, expansion: Expansion) -> Result<()> {
        let mut args = self.leading_args(device, roots, Some(expansion.to));
        args.extend(self.incumbent_args(device));
        args.extend([
            Arg::U64(expansion.out),
            Arg::U64(expansion.written),
            Arg::U64(expansion.capacity),
        ]);
        // SAFETY: atsp_expand(const unsigned* roots, u64 count, int len, const int* cost, int
        // n, int to, int count_below, Incumbent* inc, unsigned char* tours, unsigned* out, u64*
        // written, u64 capacity); `out` has room for `capacity` nodes.
        unsafe { engine::launch_per_root(device, "atsp_expand", roots.count, self.shared(), &args) }
    }

    fn cdp(&self, device: &Device, roots: Roots, slices: CdpSlices) -> Result<()> {
        let mut args = self.leading_args(device, roots, Some(slices.to));
        args.extend(self.incumbent_args(device));
        args.extend([Arg::U64(slices.slices), Arg::U64(slices.per_block)]);
        args.extend(engine::cdp_child_args());
        args.push(Arg::U64(slices.launch_error));
        // SAFETY: atsp_cdp_bp(const unsigned* roots, u64 count, int len, const int* cost, int
        // n, int to, int count_below, Incumbent* inc, unsigned char* tours, unsigned* slices,
        // u64 slice_capacity, int streams, int child_block, unsigned* launch_error); every
        // block's slice of `per_block` nodes lies inside `slices`.
        unsafe { engine::launch_per_root(device, "atsp_cdp_bp", roots.count, self.shared(), &args) }
    }

    fn check(&self, device: &Device) -> Result<()> {
        let (_, overflow, _, _) = self.read(device)?;
        match overflow {
            0 => Ok(()),
            1 => Err(Error::Gpu(format!(
                "more than {TOUR_SLOTS} improving tours on the GPU"
            ))),
            _ => Err(Error::Gpu("a survivor buffer overflowed".into())),
        }
    }
}

/// One search from the incumbent `threshold` (tours must cost less), counting nodes below
/// `count_below`: the best tour found, if any, and the nodes.
struct Outcome {
    tour: Option<(i64, Vec<usize>)>,
    nodes: u64,
    run: GpuRun,
}

fn search(
    inst: &Instance,
    device: &Device,
    strategy: Strategy,
    params: &GpuParams,
    threshold: i64,
    count_below: i64,
    progress: &Progress,
) -> Result<Outcome> {
    let started = Instant::now();
    let n = inst.n;
    let automatic = || {
        levels(inst, threshold, count_below, |len, paths| {
            len + 1 >= n || paths as u64 >= AUTO_ROOTS
        })
        .1
    };
    let depths: Depths = resolve_depths(strategy, params, 1, n - 1, automatic);
    let (paths, _, above) = levels(inst, threshold, count_below, |len, _| len >= depths.d_cpu);
    let mut roots = Vec::with_capacity(paths.len() * WORDS);
    for path in &paths {
        path.pack(&mut roots);
    }
    let host_seconds = started.elapsed().as_secs_f64();
    let cost: Vec<i32> = inst.cost.iter().map(|&c| c as i32).collect();
    let mut incumbent = vec![0u64; INCUMBENT_WORDS];
    incumbent[0] = u64::from(threshold as i32 as u32);
    incumbent[1] = u64::MAX;
    let kernels = AtspKernels {
        n,
        count_below: count_below as i32,
        cost: device.upload(&cost)?,
        incumbent: device.upload(&incumbent)?,
        tours: device.zeros::<u8>(TOUR_SLOTS * MAX_CITIES)?,
    };
    progress.set_total(paths.len() as u64);
    let device_started = Instant::now();
    let launched = engine::run(&kernels, device, strategy, depths, &roots, progress)?;
    let (best, _, key, below) = kernels.read(device)?;
    let tour = if i64::from(best) < threshold {
        let slot = (key & 0xffff_ffff) as usize;
        if key >> 32 != best as u32 as u64 || slot >= TOUR_SLOTS {
            return Err(Error::Gpu(
                "the GPU's best tour does not match its best cost".into(),
            ));
        }
        let tours = device.download(&kernels.tours)?;
        let cities: Vec<usize> = tours[slot * MAX_CITIES..slot * MAX_CITIES + n]
            .iter()
            .map(|&c| usize::from(c))
            .collect();
        Some((i64::from(best), cities))
    } else {
        None
    };
    let device_seconds = device_started.elapsed().as_secs_f64();
    Ok(Outcome {
        tour,
        nodes: above + below,
        run: GpuRun {
            device: device.name().to_owned(),
            strategy,
            depths,
            roots: paths.len() as u64,
            chunk: launched.chunk,
            chunks: launched.chunks,
            launches: launched.launches,
            gpu_roots: launched.gpu_roots,
            host_seconds,
            device_seconds,
        },
    })
}

/// Whether the GPU kernels take `inst`: at most [`MAX_CITIES`] cities and tour costs that fit
/// the kernels' 32-bit sums.
fn check_instance(inst: &Instance) -> Result<()> {
    if inst.n > MAX_CITIES {
        return Err(Error::InvalidInput(format!(
            "{}: {} cities; the GPU strategies take at most {MAX_CITIES}",
            inst.name, inst.n
        )));
    }
    let largest = inst.cost.iter().copied().max().unwrap_or(0);
    if largest.saturating_mul(inst.n as i64 + 1) >= i64::from(i32::MAX) {
        return Err(Error::InvalidInput(format!(
            "{}: arc costs up to {largest} can make tours too long for the GPU's 32-bit sums; \
             use a CPU strategy (serial or multicore)",
            inst.name
        )));
    }
    Ok(())
}

/// Solves `inst` to optimality on the GPU with `strategy` and the partial-cost bound; see the
/// module's documentation for `upper_bound`.
pub fn solve_gpu(
    inst: &Instance,
    upper_bound: Option<i64>,
    strategy: Strategy,
    params: &GpuParams,
    progress: &Progress,
) -> Result<(AtspSolution, GpuRun)> {
    check_instance(inst)?;
    let device = open_for(
        strategy,
        &crate::kernels::ATSP,
        &crate::kernels::ATSP_CDP,
        params.device,
    )?;
    let (heur_tour, heur_cost) = heuristic_tour(inst);
    let solution =
        |outcome: Outcome, fallback: (i64, Vec<usize>)| -> Result<(AtspSolution, GpuRun)> {
            let (cost, tour) = outcome.tour.unwrap_or(fallback);
            verify(inst, &tour, cost)
                .map_err(|e| Error::Verification(format!("the GPU's answer: {}", e.message())))?;
            Ok((
                AtspSolution {
                    cost,
                    tour,
                    nodes: outcome.nodes,
                    proven_optimal: true,
                    lower_bound: cost,
                },
                outcome.run,
            ))
        };
    if let Some(bound) = upper_bound.filter(|&ub| ub < heur_cost) {
        let start = bound.max(-1) + 1;
        let outcome = search(inst, &device, strategy, params, start, bound, progress)?;
        if outcome.tour.is_some() {
            return solution(outcome, (heur_cost, heur_tour));
        }
    }
    let outcome = search(
        inst, &device, strategy, params, heur_cost, heur_cost, progress,
    )?;
    solution(outcome, (heur_cost, heur_tour))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_pack_into_the_kernels_node_layout() {
        let mut out = Vec::new();
        Path {
            cities: vec![0, 5, 2],
            cost: 17,
            visited: 0b100101,
        }
        .pack(&mut out);
        assert_eq!(out.len(), WORDS);
        assert_eq!(out[0], 0x0002_0500);
        assert_eq!(&out[8..], &[17, 0b100101]);
    }

    #[test]
    fn the_host_levels_count_and_prune_like_the_kernels() {
        // Four cities, arcs of cost 1 around the ring 0-1-2-3, 10 elsewhere.
        let mut cost = vec![10; 16];
        for i in 0..4 {
            cost[i * 4 + (i + 1) % 4] = 1;
        }
        let inst = Instance::new("ring", 4, cost).unwrap();
        let (paths, len, nodes) = levels(&inst, 12, 12, |len, _| len >= 3);
        // Paths of two cities: 0-1 (1), 0-2 (10), 0-3 (10); of three below 12: 0-1-2 (2),
        // 0-1-3 (11), 0-2-3 (11).
        assert_eq!(len, 3);
        assert_eq!(nodes, 6);
        assert_eq!(paths.len(), 3);
        let (_, _, counted) = levels(&inst, 12, 5, |len, _| len >= 3);
        assert_eq!(counted, 2);
    }

    #[test]
    fn instances_the_kernels_cannot_take_are_refused() {
        let big = Instance::new("big", 33, vec![1; 33 * 33]).unwrap();
        assert!(matches!(check_instance(&big), Err(Error::InvalidInput(_))));
        let costly = Instance::new("costly", 3, vec![1_000_000_000; 9]).unwrap();
        assert!(matches!(
            check_instance(&costly),
            Err(Error::InvalidInput(_))
        ));
        let fine = Instance::new("fine", 3, vec![7; 9]).unwrap();
        assert!(check_instance(&fine).is_ok());
    }
}
