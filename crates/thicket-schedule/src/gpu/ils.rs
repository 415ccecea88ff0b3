//! thicket's default on the GPU (kernels in `kernels/ils.cu`): the iterated local search of
//! [`crate::cpu::ils`], one chain per block ([`BLOCKS_PER_SM`] per multiprocessor), each
//! descent step evaluating all moves and swaps of one machine at once. [`SearchKernels::open`]
//! readies the GPU (context and kernels) so that the caller can do it on another thread
//! while the relaxation and the CPU chains run, [`Device::load`] adds the matrix; [`search`] then runs epochs: one launch of a number of kicks per chain
//! (grown until a launch takes about [`EPOCH_SECONDS`]), then the best chain's makespan read
//! back and every chain more than [`RESTART_GAP`] behind it restarted from it; it stops
//! before its deadline or at the lower bound. The chains' random numbers differ from the
//! CPU's, so the GPU's schedule is not the CPU's; both go through the verifier.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use thicket_core::{Error, Result};
use thicket_gpu::{record_event, seconds_between, Gpu, GpuError, LaunchPacer};

use super::functions;
use crate::cpu::ils::{SearchRun, RESTART_GAP};
use crate::etc::Etc;
use crate::kernels::{ILS, ILS_SURVIVORS, ILS_THREADS};

/// Chains (blocks) per streaming multiprocessor.
pub const BLOCKS_PER_SM: usize = 2;
/// The wall time an epoch's launch aims at.
pub const EPOCH_SECONDS: f64 = 0.02;
/// Shared memory a block may take without opting in.
const SHARED_BYTES: usize = 48 * 1024;

/// Shared memory of one chain: two f64 load vectors and two u64 per-machine bounds, the
/// reduction's per-warp slots, the u32 bucket starts and cursors and list of pairs, and u16
/// machine order, assignment, saved assignment and tasks grouped by machine.
pub fn shared_bytes(tasks: usize, machines: usize) -> usize {
    let warps = ILS_THREADS / 32;
    32 * machines
        + 12 * warps
        + 4 * (2 * machines + 1)
        + 4 * ILS_SURVIVORS
        + 2 * machines
        + 6 * tasks
        + 8
}

/// The device and the search's kernels, without a matrix: what [`SearchKernels::open`]
/// readies, which on the process's first call includes the NVRTC compile (or the kernel
/// cache's read) and so may take longer than a short run's whole limit.
pub struct SearchKernels {
    gpu: Arc<Gpu>,
    chains_kernel: CudaFunction,
    restart: CudaFunction,
}

impl SearchKernels {
    /// Opens GPU `ordinal` (the process's shared device) and loads the search's kernels,
    /// compiled by NVRTC or read from the kernel cache on the process's first call.
    pub fn open(ordinal: usize) -> Result<SearchKernels> {
        let gpu = Gpu::shared(ordinal)?;
        let [chains_kernel, restart] = functions(&gpu, &ILS, ["ils_chains", "ils_restart"])?;
        Ok(SearchKernels {
            gpu,
            chains_kernel,
            restart,
        })
    }
}

/// The threads [`open_beside`] started, until [`finish_opening`] joins them.
static OPENING: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());

/// Starts [`SearchKernels::open`] on a thread of its own and returns where its result (with
/// the moment it was ready) will arrive. A run that stops waiting drops the receiver; the
/// thread still finishes (the compiled module lands in the kernel cache and in the process's
/// shared device for the next run), and [`finish_opening`] waits for it.
pub fn open_beside(ordinal: usize) -> mpsc::Receiver<(Result<SearchKernels>, Instant)> {
    let (send, receive) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let kernels = SearchKernels::open(ordinal);
        // A run that gave up waiting has dropped its receiver: nothing to hand over.
        let _ = send.send((kernels, Instant::now()));
    });
    let mut opening = OPENING.lock().unwrap_or_else(|e| e.into_inner());
    opening.retain(|thread| !thread.is_finished());
    opening.push(handle);
    receive
}

/// Waits for every GPU set-up a run started and stopped waiting for (see [`open_beside`]),
/// until `until` at the latest; returns whether every one finished. One still running then
/// is left to end with the process (its compile lost: the next process compiles again).
pub fn finish_opening(until: Instant) -> bool {
    let threads = std::mem::take(&mut *OPENING.lock().unwrap_or_else(|e| e.into_inner()));
    let mut finished = true;
    for thread in threads {
        // A join cannot time out: poll, at a step far below a compile's second.
        while !thread.is_finished() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
        if thread.is_finished() {
            // A panic there was a failed set-up, which a later run reports when it tries again.
            let _ = thread.join();
        } else {
            finished = false;
        }
    }
    finished
}

/// Refuses a matrix the GPU search cannot hold ([`Error::TooLarge`]): more than 65,535 tasks
/// or machines, or a chain's shared memory past [`SHARED_BYTES`].
pub fn check_fits(etc: &Etc) -> Result<()> {
    let (t_n, m_n) = (etc.tasks(), etc.machines());
    let keys = (t_n as u64) * (t_n as u64 + m_n as u64);
    let shared = shared_bytes(t_n, m_n);
    if t_n > u16::MAX as usize || m_n > u16::MAX as usize || keys >= u32::MAX as u64 {
        return Err(Error::TooLarge(format!(
            "the GPU search takes at most 65,535 tasks and machines, not {t_n} x {m_n}"
        )));
    }
    if shared > SHARED_BYTES {
        return Err(Error::TooLarge(format!(
            "{t_n} tasks x {m_n} machines need {shared} bytes of shared memory per chain, \
             more than the GPU search's {SHARED_BYTES} (use --backend cpu)"
        )));
    }
    Ok(())
}

/// A GPU readied for the search of one matrix: the process's shared device, the search's
/// kernels and the matrix in device memory. Dropping it frees the matrix; the device and
/// its kernels stay for the next run.
pub struct Device {
    gpu: Arc<Gpu>,
    chains_kernel: CudaFunction,
    restart: CudaFunction,
    etc: CudaSlice<f64>,
    chains: usize,
}

impl Device {
    /// Readies `kernels`' GPU for `etc`: checks that the search can hold it ([`check_fits`])
    /// and copies the matrix.
    pub fn load(kernels: SearchKernels, etc: &Etc) -> Result<Device> {
        check_fits(etc)?;
        let SearchKernels {
            gpu,
            chains_kernel,
            restart,
        } = kernels;
        let chains = (gpu.info().sm_count as usize * BLOCKS_PER_SM).max(1);
        let etc = gpu
            .stream()
            .clone_htod(etc.times())
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        gpu.stream()
            .synchronize()
            .map_err(GpuError::driver("cuStreamSynchronize"))?;
        Ok(Device {
            gpu,
            chains_kernel,
            restart,
            etc,
            chains,
        })
    }

    /// The GPU's name.
    pub fn name(&self) -> &str {
        &self.gpu.info().name
    }
}

/// A GPU search run.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuSearchRun {
    /// The schedule, epochs and kicks.
    pub run: SearchRun,
    /// Chains run side by side.
    pub chains: usize,
    /// Device seconds from the first launch to the last.
    pub kernel_seconds: f64,
}

/// Runs the chains on `device` from `start` until a chain reaches `bound`, the next launch
/// would not end before `deadline` or `stop` is raised (checked before every launch);
/// `report(best)` after every epoch. The first
/// launch (one kick per chain, whose time is not known before) runs whenever the deadline
/// has not passed; if it has, the start comes back unsearched.
#[allow(clippy::too_many_arguments)] // the search's inputs and its three ends
pub fn search(
    device: &Device,
    etc: &Etc,
    start: &[u32],
    seed: u64,
    deadline: Instant,
    bound: f64,
    stop: Option<&AtomicBool>,
    mut report: impl FnMut(f64),
) -> Result<GpuSearchRun> {
    let (t_n, m_n, chains) = (etc.tasks(), etc.machines(), device.chains);
    let stream = device.gpu.stream().clone();
    let starts: Vec<u32> = (0..chains).flat_map(|_| start.iter().copied()).collect();
    let mut assign = stream
        .clone_htod(&starts)
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    let mut makespans = stream
        .alloc_zeros::<f64>(chains)
        .map_err(GpuError::driver("cuMemAlloc"))?;
    let mut done = stream
        .alloc_zeros::<u64>(1)
        .map_err(GpuError::driver("cuMemAlloc"))?;
    let per_chain = LaunchConfig {
        grid_dim: (chains as u32, 1, 1),
        block_dim: (ILS_THREADS as u32, 1, 1),
        shared_mem_bytes: shared_bytes(t_n, m_n) as u32,
    };
    let copy = LaunchConfig {
        shared_mem_bytes: 0,
        ..per_chain
    };
    let (t32, m32) = (t_n as u32, m_n as u32);
    // A chain stops once it is within rounding of the bound.
    let stop_at = bound * (1.0 + crate::cpu::ils::BOUND_TOLERANCE);
    let first = record_event(&stream)?;
    let mut pacer = LaunchPacer::new(EPOCH_SECONDS);
    let mut epochs = 0usize;
    let mut best_chain = None;
    while Instant::now() < deadline && !stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
        let launched = Instant::now();
        let launch = epochs as u64;
        let kicks = pacer.kicks();
        {
            let mut l = stream.launch_builder(&device.chains_kernel);
            l.arg(&device.etc)
                .arg(&t32)
                .arg(&m32)
                .arg(&mut assign)
                .arg(&mut makespans)
                .arg(&kicks)
                .arg(&seed)
                .arg(&launch)
                .arg(&stop_at)
                .arg(&mut done);
            // SAFETY: one block per chain over its own T assignment words and makespan slot,
            // every machine index < M (the start's and the kernel's own), `shared` bytes of
            // dynamic shared memory as shared_bytes() lays them out.
            unsafe { l.launch(per_chain) }.map_err(GpuError::driver("cuLaunchKernel"))?;
        }
        let spans = stream
            .clone_dtoh(&makespans)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        epochs += 1;
        let (c, &m) = spans
            .iter()
            .enumerate()
            .fold(
                (0, &f64::INFINITY),
                |acc, cur| if cur.1 < acc.1 { cur } else { acc },
            );
        best_chain = Some(c);
        // Chains never get worse, so the best of this epoch is the best so far.
        report(m);
        if m <= stop_at {
            break;
        }
        // Longer launches while they are short; near the deadline, only as many kicks as
        // the last launch's rate fits in a share of the time left, and none where not one
        // fits (a kick of a large matrix can take a second: the deadline bounds the run).
        let took = launched.elapsed().as_secs_f64();
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        if !pacer.next(took, left) {
            break;
        }
        let limit = spans[c] * (1.0 + RESTART_GAP);
        let c32 = c as u32;
        {
            let mut l = stream.launch_builder(&device.restart);
            l.arg(&mut assign)
                .arg(&makespans)
                .arg(&t32)
                .arg(&c32)
                .arg(&limit);
            // SAFETY: block i copies chain c's T words over chain i's (c < chains).
            unsafe { l.launch(copy) }.map_err(GpuError::driver("cuLaunchKernel"))?;
        }
    }
    let last = record_event(&stream)?;
    let kernel_seconds = seconds_between(&first, &last)?;
    let total = stream
        .clone_dtoh(&done)
        .map_err(GpuError::driver("cuMemcpyDtoH"))?;
    let assignment = match best_chain {
        Some(c) => {
            let mut best = vec![0u32; t_n];
            stream
                .memcpy_dtoh(&assign.slice(c * t_n..(c + 1) * t_n), &mut best)
                .map_err(GpuError::driver("cuMemcpyDtoH"))?;
            best
        }
        None => start.to_vec(),
    };
    let (_, makespan) = crate::io::assignment::loads(etc, &assignment);
    Ok(GpuSearchRun {
        run: SearchRun {
            assignment,
            makespan,
            epochs,
            kicks: total[0],
        },
        chains,
        kernel_seconds,
    })
}
