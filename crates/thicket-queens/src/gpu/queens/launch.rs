//! Opening the devices, loading the kernel, and counting the tasks on them: one launch a
//! device, several devices sharing one task list and counter over peer links, or chunks from
//! thicket-gpu's host-side work queue where there are none.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde::Serialize;
use thicket_gpu::cudarc::driver::sys::CUfunction_attribute;
use thicket_gpu::cudarc::driver::{
    CudaFunction, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg,
};
use thicket_gpu::{
    peer_atomics, run_work_queue, Gpu, GpuError, MappedWord, ModuleStats, PeerMemory,
};

use super::tasks::TASK_WORDS;

use crate::kernels::{
    QUEENS, QUEENS_BLOCK as BLOCK, QUEENS_STACK_ENTRY_BYTES as STACK_ENTRY_BYTES,
};

/// How often the host reads how far a launch has handed its tasks out.
const PROGRESS_POLL: Duration = Duration::from_millis(100);

/// One device ready to count: the process's shared context ([`Gpu::shared`]) with the
/// kernel loaded (from the device's memoized module after the first count).
pub struct Device {
    gpu: Arc<Gpu>,
    function: CudaFunction,
    /// The plan table, uploaded once per run.
    plans: Option<CudaSlice<u32>>,
    /// How the kernel module was obtained on this device.
    pub stats: ModuleStats,
    /// Seconds from the start of the opening until this device was ready.
    pub ready_seconds: f64,
}

impl Device {
    /// The device's name.
    pub fn name(&self) -> &str {
        &self.gpu.info().name
    }
}

/// Devices being opened one after the other on a thread of their own, handed over as each
/// becomes ready: the driver creates contexts one at a time anyway, so in turn the first one
/// starts counting while the next one is created (measured: docs/benchmarks.md). After the
/// process's first count every device is already open and ready at once.
pub struct Opening {
    count: usize,
    peer: bool,
    ready: mpsc::Receiver<(usize, Result<Device, GpuError>)>,
}

impl Opening {
    /// Probes the driver and starts opening the devices `ordinals` (all when `None`) and
    /// loading the kernel on each; `started` is when the count started.
    pub fn start(ordinals: Option<&[usize]>, started: Instant) -> Result<Opening, GpuError> {
        let all = thicket_gpu::probe()?.len();
        let ordinals = ordinals.map_or_else(|| (0..all).collect(), <[usize]>::to_vec);
        let peer = ordinals.len() > 1 && peer_atomics(&ordinals)?;
        let (sender, ready) = mpsc::channel();
        let count = ordinals.len();
        // Not scoped: a device that is no longer awaited is simply closed again.
        std::thread::spawn(move || {
            for (index, ordinal) in ordinals.into_iter().enumerate() {
                if sender.send((index, open_device(ordinal, started))).is_err() {
                    break;
                }
            }
        });
        Ok(Opening { count, peer, ready })
    }

    /// Whether there are several devices and each can use atomics on the first one's memory.
    pub fn peer(&self) -> bool {
        self.peer
    }

    /// Every device, in the order asked for, once all are open.
    pub fn all(self) -> Result<Vec<Device>, GpuError> {
        let mut devices = (0..self.count)
            .map(|_| self.next())
            .collect::<Result<Vec<_>, _>>()?;
        devices.sort_by_key(|&(index, _)| index);
        Ok(devices.into_iter().map(|(_, device)| device).collect())
    }

    /// The next device to become ready, with its place in the order asked for.
    fn next(&self) -> Result<(usize, Device), GpuError> {
        let (index, device) = self
            .ready
            .recv()
            .map_err(|_| GpuError::Unavailable("a device thread ended without a device".into()))?;
        Ok((index, device?))
    }
}

/// Opens the devices `ordinals` (all when `None`) and loads the kernel on each.
pub fn open_devices(ordinals: Option<&[usize]>) -> Result<Vec<Device>, GpuError> {
    Opening::start(ordinals, Instant::now())?.all()
}

/// Device `ordinal`, opened once per process, with the kernel loaded on it.
fn open_device(ordinal: usize, started: Instant) -> Result<Device, GpuError> {
    let gpu = Gpu::shared(ordinal)?;
    let (module, stats) = gpu.load_module_with_stats(&QUEENS.source, &QUEENS.options())?;
    let function = gpu.load_function(&module, "queens_count")?;
    Ok(Device {
        gpu,
        function,
        plans: None,
        stats,
        ready_seconds: started.elapsed().as_secs_f64(),
    })
}

/// Uploads the plan table to `device`.
fn upload_plans(device: &mut Device, plans: &[u32]) -> Result<(), GpuError> {
    let table = device
        .gpu
        .stream()
        .clone_htod(plans)
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    device.plans = Some(table);
    Ok(())
}

/// How the tasks were spread over the devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Queue {
    /// One device, one launch.
    Single,
    /// One launch per device, all claiming tasks from one list and counter in the memory of
    /// the first device ready, which the others reach over peer links.
    PeerCounter,
    /// Fixed chunks from a host-side queue, one launch each (no peer atomics between the
    /// devices).
    Chunks,
}

/// Counts the weighted solutions below every task of `tasks` (packed) with the plan table
/// `plans` (packed) on the open `devices`: one launch on a single device, otherwise `chunk`
/// tasks at a time from a host-side queue. Calls `reached(tasks)` with how many tasks have
/// been handed out (one launch, read while it runs) or finished (chunks), and returns one
/// count per launch and how the tasks were spread.
pub fn count_tasks(
    devices: &mut [Device],
    n: usize,
    plans: &[u32],
    tasks: &[u32],
    levels: usize,
    chunk: usize,
    reached: &(dyn Fn(u64) + Sync),
) -> Result<(Vec<u64>, Queue), GpuError> {
    for device in devices.iter_mut() {
        upload_plans(device, plans)?;
    }
    let total_tasks = tasks.len() / TASK_WORDS;
    if let [device] = devices {
        let handed_out = MappedWord::new(&device.gpu)?;
        let count = watching(&handed_out, reached, || {
            count_chunk(device, n, tasks, levels, handed_out.device_address())
        })?;
        return Ok((vec![count], Queue::Single));
    }
    let finished = AtomicU64::new(0);
    let outputs = run_work_queue(
        devices,
        total_tasks,
        chunk,
        |device, range: Range<usize>| {
            let count = range.len() as u64;
            let words = &tasks[range.start * TASK_WORDS..range.end * TASK_WORDS];
            // A chunk's task indices are its own, so its progress is reported when it ends.
            let solutions = count_chunk(device, n, words, levels, 0)?;
            reached(finished.fetch_add(count, Ordering::Relaxed) + count);
            Ok::<_, GpuError>(solutions)
        },
    )?;
    Ok((
        outputs.into_iter().map(|o| o.value).collect(),
        Queue::Chunks,
    ))
}

/// Counts `tasks` (packed) with the plan table `plans` on every device of `opening` as soon as
/// it is ready, one launch each, all claiming tasks from one counter: the first device ready
/// holds the tasks and the counter (the tasks cross the bus once), the others reach them over
/// peer links (`opening` must have [`Opening::peer`]). Calls `reached(tasks)` with how many
/// tasks have been handed out, read while the kernels run. Returns the devices in the order
/// asked for and each one's count.
pub fn count_streamed(
    opening: Opening,
    n: usize,
    plans: &[u32],
    tasks: &[u32],
    levels: usize,
    reached: &(dyn Fn(u64) + Sync),
) -> Result<(Vec<Device>, Vec<u64>), GpuError> {
    let count = task_count(tasks)?;
    let (first_index, mut owner) = opening.next()?;
    upload_plans(&mut owner, plans)?;
    let task_memory = PeerMemory::copied(&owner.gpu, tasks)?;
    let counter = PeerMemory::zeroed(&owner.gpu, std::mem::size_of::<u32>())?;
    let handed_out = MappedWord::new(&owner.gpu)?;
    let source = TaskSource {
        tasks: task_memory.address(),
        count,
        counter: counter.address(),
        handed_out: handed_out.device_address(),
    };
    let launched = watching(&handed_out, reached, || {
        std::thread::scope(|scope| {
            let launch = |index: usize, device: Device| {
                scope.spawn(move || {
                    let solutions = launch_tasks(&device, n, source, levels);
                    (index, device, solutions)
                })
            };
            let mut launches = vec![launch(first_index, owner)];
            let mut failure = None;
            for _ in 1..opening.count {
                let joining = opening.next().and_then(|(index, mut device)| {
                    task_memory.admit(&device.gpu)?;
                    upload_plans(&mut device, plans)?;
                    Ok((index, device))
                });
                match joining {
                    Ok((index, device)) => launches.push(launch(index, device)),
                    Err(error) => {
                        failure.get_or_insert(error);
                    }
                }
            }
            let finished: Vec<_> = launches
                .into_iter()
                .map(|launch| launch.join().expect("a device thread does not panic"))
                .collect();
            (finished, failure)
        })
    });
    let (mut finished, failure) = launched;
    if let Some(error) = failure {
        return Err(error);
    }
    finished.sort_by_key(|&(index, _, _)| index);
    let mut devices = Vec::with_capacity(finished.len());
    let mut counts = Vec::with_capacity(finished.len());
    for (_, device, solutions) in finished {
        counts.push(solutions?);
        devices.push(device);
    }
    Ok((devices, counts))
}

/// Where a launch finds its tasks: device addresses of the packed tasks, of the counter the
/// kernel claims them through, and of the mapped host word it reports progress to (0: none).
#[derive(Debug, Clone, Copy)]
struct TaskSource {
    tasks: u64,
    count: u32,
    counter: u64,
    handed_out: u64,
}

/// Runs `launch` while a watcher thread calls `reached` with the task index in `handed_out`
/// every [`PROGRESS_POLL`]; the watcher ends as soon as `launch` returns.
fn watching<T>(
    handed_out: &MappedWord,
    reached: &(dyn Fn(u64) + Sync),
    launch: impl FnOnce() -> T,
) -> T {
    let (stop, stopped) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(PROGRESS_POLL) {
                reached(u64::from(handed_out.read()));
            }
        });
        let result = launch();
        drop(stop);
        result
    })
}

/// The number of packed tasks in `words`, as the kernel's 32-bit count.
fn task_count(words: &[u32]) -> Result<u32, GpuError> {
    u32::try_from(words.len() / TASK_WORDS)
        .map_err(|_| GpuError::InvalidArgument("too many tasks for one launch".into()))
}

/// One launch of the persistent kernel over the packed tasks `words`, uploaded to the device
/// with a counter of its own, reporting progress to the mapped host word at `handed_out` (0:
/// none).
fn count_chunk(
    device: &Device,
    n: usize,
    words: &[u32],
    levels: usize,
    handed_out: u64,
) -> Result<u64, GpuError> {
    let stream = device.gpu.stream();
    let tasks = stream
        .clone_htod(words)
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    let counter = stream
        .alloc_zeros::<u32>(1)
        .map_err(GpuError::driver("cuMemAlloc"))?;
    let count = task_count(words)?;
    let source = TaskSource {
        tasks: tasks.device_ptr(stream).0,
        count,
        counter: counter.device_ptr(stream).0,
        handed_out,
    };
    // `tasks` and `counter` live until the launch has been waited for.
    launch_tasks(device, n, source, levels)
}

/// One launch of the persistent kernel over the tasks of `source`; waits for it and returns
/// its weighted count. The device's plan table must be uploaded.
fn launch_tasks(
    device: &Device,
    n: usize,
    source: TaskSource,
    levels: usize,
) -> Result<u64, GpuError> {
    let plans = device
        .plans
        .as_ref()
        .ok_or_else(|| GpuError::InvalidArgument("the plan table was not uploaded".into()))?;
    let stream = device.gpu.stream();
    let mut total = stream
        .alloc_zeros::<u64>(1)
        .map_err(GpuError::driver("cuMemAlloc"))?;
    let board = crate::count::board_mask(n);
    // A level for each row a task fills, and past them the sentinel's table word (a level's
    // first word): at N = 21 six blocks fit an H100's SM where six full levels more let five.
    let shared_mem_bytes = levels
        .checked_mul(STACK_ENTRY_BYTES)
        .and_then(|bytes| bytes.checked_add(4))
        .and_then(|bytes| u32::try_from(bytes).ok())
        .and_then(|bytes| bytes.checked_mul(BLOCK))
        .ok_or_else(|| GpuError::InvalidArgument("the search stack is too deep".into()))?;
    // Above 48 KiB a block's dynamic shared memory must be allowed explicitly.
    device
        .function
        .set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            shared_mem_bytes as i32,
        )
        .map_err(GpuError::driver("cuFuncSetAttribute"))?;
    // Exactly the blocks that fit at once: the kernel is persistent, so more would only start
    // when the first ones leave.
    let resident = device
        .function
        .occupancy_max_active_blocks_per_multiprocessor(BLOCK, shared_mem_bytes as usize, None)
        .map_err(GpuError::driver(
            "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        ))?;
    if resident == 0 {
        return Err(GpuError::InvalidArgument(format!(
            "a block's {shared_mem_bytes}-byte stack does not fit on the device"
        )));
    }
    let config = LaunchConfig {
        grid_dim: (device.gpu.info().sm_count.max(1) * resident, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes,
    };
    let mut launch = stream.launch_builder(&device.function);
    launch
        .arg(&source.tasks)
        .arg(&source.count)
        .arg(plans)
        .arg(&source.counter)
        .arg(&mut total)
        .arg(&board)
        .arg(&source.handed_out);
    // SAFETY: the arguments match queens_count's parameters (const uint4* tasks, unsigned
    // count, const unsigned* plans, unsigned* next_task, unsigned long long* total, unsigned
    // board, unsigned* handed_out); source.handed_out is null or a mapped host word that
    // outlives the launch; source.tasks is the address of source.count packed tasks (4 words each, aligned
    // for uint4) and source.counter that of a u32, both reachable from this device (its own
    // allocations, or peer memory it was admitted to) and kept alive by the caller until this
    // function has waited for the kernel; every task's plan index is inside the plan table,
    // and the kernel's stack stays within the `levels` levels of dynamic shared memory given
    // here and the sentinel's table word past them (levels is the largest number of rows a
    // task still fills; a level's table word is its first, and the level past the last is
    // only ever read for it).
    unsafe { launch.launch(config) }.map_err(GpuError::driver("cuLaunchKernel"))?;
    let result = stream
        .clone_dtoh(&total)
        .map_err(GpuError::driver("cuMemcpyDtoH"))?;
    Ok(result[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NVRTC is optional on developer machines but required in CI (THICKET_REQUIRE_NVRTC=1);
    /// without it the test says loudly that nothing was compiled.
    #[test]
    fn nvrtc_compiles_the_queens_kernel_for_sm_90() {
        if let Err(error) = thicket_gpu::nvrtc_status() {
            if std::env::var_os("THICKET_REQUIRE_NVRTC").is_some_and(|v| v == "1") {
                panic!("THICKET_REQUIRE_NVRTC=1 but libnvrtc is absent: {error}");
            }
            println!("NOTE nvrtc_compiles_the_queens_kernel_for_sm_90: libnvrtc is absent, so the kernel was NOT compiled ({error})");
            return;
        }
        let cubin = QUEENS
            .compile_for_arch("sm_90")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&cubin[..4], b"\x7fELF");
        let kernel_name: &[u8] = b"queens_count";
        assert!(cubin.windows(kernel_name.len()).any(|w| w == kernel_name));
    }
}
