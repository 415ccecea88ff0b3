//! Opening the devices, loading the kernel, and counting chunks of tasks on them through
//! thicket-gpu's dynamic work queue.

use std::ops::Range;

use serde::Serialize;
use thicket_gpu::cudarc::driver::sys::CUfunction_attribute;
use thicket_gpu::cudarc::driver::{
    CudaFunction, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg,
};
use thicket_gpu::{run_work_queue, Gpu, GpuError, KernelSource, ModuleStats, SharedCounter};

use super::tasks::TASK_WORDS;

/// The kernel module, compiled at run time for each device's architecture.
pub const QUEENS_KERNEL: KernelSource = KernelSource {
    name: "queens.cu",
    source: include_str!("../../kernels/queens.cu"),
};

/// Threads per block; must equal `BLOCK` in the kernel, which sizes the shared stack with it.
const BLOCK: u32 = 128;

/// Bytes of one stack level a thread: {untried columns, columns, "\\", "/", table word}.
const STACK_ENTRY_BYTES: usize = 20;

/// One device ready to count.
pub struct Device {
    gpu: Gpu,
    function: CudaFunction,
    /// The plan table, uploaded once per run.
    plans: Option<CudaSlice<u32>>,
    /// How the kernel module was obtained on this device.
    pub stats: ModuleStats,
}

impl Device {
    /// The device's name.
    pub fn name(&self) -> &str {
        &self.gpu.info().name
    }
}

/// Opens the devices `ordinals` (all when `None`) and loads the kernel on each, side by side
/// (two H200: 0.43-0.54 s, against 0.46-0.59 s one after the other; one alone takes 0.35 s).
pub fn open_devices(ordinals: Option<&[usize]>) -> Result<Vec<Device>, GpuError> {
    let all = thicket_gpu::probe()?.len();
    let ordinals = ordinals.map_or_else(|| (0..all).collect(), <[usize]>::to_vec);
    std::thread::scope(|scope| {
        let opening: Vec<_> = ordinals
            .iter()
            .map(|&ordinal| scope.spawn(move || open_device(ordinal)))
            .collect();
        opening
            .into_iter()
            .map(|device| device.join().expect("opening a device does not panic"))
            .collect()
    })
}

/// Closes the devices side by side: tearing down a context takes about 60 ms (H200), and the
/// contexts of different devices do not wait for each other.
pub fn close_devices(devices: Vec<Device>) {
    std::thread::scope(|scope| {
        for device in devices {
            scope.spawn(move || drop(device));
        }
    });
}

/// Opens device `ordinal` and loads the kernel on it.
fn open_device(ordinal: usize) -> Result<Device, GpuError> {
    let gpu = Gpu::open(ordinal)?;
    let (module, stats) = gpu.load_module_with_stats(&QUEENS_KERNEL, &[])?;
    let function = gpu.load_function(&module, "queens_count")?;
    Ok(Device {
        gpu,
        function,
        plans: None,
        stats,
    })
}

/// How the tasks were spread over the devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Queue {
    /// One device, one launch.
    Single,
    /// One launch per device, all claiming tasks from one counter in peer memory.
    PeerCounter,
    /// Fixed chunks from a host-side queue, one launch each (no peer atomics between the
    /// devices).
    Chunks,
}

/// Counts the weighted solutions below every task of `tasks` (packed) with the plan table
/// `plans` (packed) on `devices`; calls `done(tasks)` as tasks finish and returns one count
/// per launch and how the tasks were spread. Several devices share one task counter when
/// they can reach each other's memory with atomics, and take `chunk` tasks at a time from a
/// host-side queue otherwise.
pub fn count_tasks(
    devices: &mut [Device],
    n: usize,
    plans: &[u32],
    tasks: &[u32],
    levels: usize,
    chunk: usize,
    done: &(dyn Fn(usize) + Sync),
) -> Result<(Vec<u64>, Queue), GpuError> {
    for device in devices.iter_mut() {
        let table = device
            .gpu
            .stream()
            .clone_htod(plans)
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        device.plans = Some(table);
    }
    let total_tasks = tasks.len() / TASK_WORDS;
    if let [device] = devices {
        let count = count_chunk(device, n, tasks, levels, None)?;
        done(total_tasks);
        return Ok((vec![count], Queue::Single));
    }
    let gpus: Vec<&Gpu> = devices.iter().map(|d| &d.gpu).collect();
    match SharedCounter::new(&gpus) {
        Ok(counter) => {
            let counts = count_with_shared_counter(devices, n, tasks, levels, &counter)?;
            done(total_tasks);
            Ok((counts, Queue::PeerCounter))
        }
        Err(GpuError::Unavailable(_)) => {
            let outputs = run_work_queue(
                devices,
                total_tasks,
                chunk,
                |device, range: Range<usize>| {
                    let count = range.len();
                    let words = &tasks[range.start * TASK_WORDS..range.end * TASK_WORDS];
                    let solutions = count_chunk(device, n, words, levels, None)?;
                    done(count);
                    Ok::<_, GpuError>(solutions)
                },
            )?;
            Ok((
                outputs.into_iter().map(|o| o.value).collect(),
                Queue::Chunks,
            ))
        }
        Err(error) => Err(error),
    }
}

/// One launch per device over all of `tasks`, every device claiming tasks from `counter`.
fn count_with_shared_counter(
    devices: &mut [Device],
    n: usize,
    tasks: &[u32],
    levels: usize,
    counter: &SharedCounter,
) -> Result<Vec<u64>, GpuError> {
    std::thread::scope(|scope| {
        let launches: Vec<_> = devices
            .iter_mut()
            .map(|device| {
                scope.spawn(move || count_chunk(device, n, tasks, levels, Some(counter.address())))
            })
            .collect();
        launches
            .into_iter()
            .map(|launch| launch.join().expect("a device thread does not panic"))
            .collect()
    })
}

/// One launch of the persistent kernel over the packed tasks `words`, claimed through the
/// counter at device address `shared_counter` (a fresh one on this device when `None`).
fn count_chunk(
    device: &Device,
    n: usize,
    words: &[u32],
    levels: usize,
    shared_counter: Option<u64>,
) -> Result<u64, GpuError> {
    let plans = device
        .plans
        .as_ref()
        .ok_or_else(|| GpuError::InvalidArgument("the plan table was not uploaded".into()))?;
    let stream = device.gpu.stream();
    let tasks = stream
        .clone_htod(words)
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    let own_counter = stream
        .alloc_zeros::<u32>(1)
        .map_err(GpuError::driver("cuMemAlloc"))?;
    let next_task = shared_counter.unwrap_or_else(|| own_counter.device_ptr(stream).0);
    let mut total = stream
        .alloc_zeros::<u64>(1)
        .map_err(GpuError::driver("cuMemAlloc"))?;
    let task_count = u32::try_from(words.len() / TASK_WORDS)
        .map_err(|_| GpuError::InvalidArgument("too many tasks for one launch".into()))?;
    let board = crate::count::board_mask(n);
    // One level more than a task fills: the level past the last holds the sentinel word.
    let shared_mem_bytes = u32::try_from((levels + 1) * STACK_ENTRY_BYTES)
        .ok()
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
        .arg(&tasks)
        .arg(&task_count)
        .arg(plans)
        .arg(&next_task)
        .arg(&mut total)
        .arg(&board);
    // SAFETY: the arguments match queens_count's parameters (const uint4* tasks, unsigned
    // count, const unsigned* plans, unsigned* next_task, unsigned long long* total, unsigned board);
    // the task buffer is a device allocation (aligned for uint4) of 4 words a task, every
    // task's plan index is inside the plan table, the kernel reads only tasks[0..task_count),
    // and its stack stays within the `levels + 1` levels of dynamic shared memory given here
    // (levels is the largest number of rows a task still fills; one more for the sentinel);
    // next_task is the address of a u32 this device can reach with atomics: its own
    // allocation, alive until the read of `total` below has waited for the kernel, or a
    // SharedCounter, which the caller keeps alive and opened peer access to.
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
        let cubin = thicket_gpu::compile_for_arch(&QUEENS_KERNEL, "sm_90", &[])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&cubin[..4], b"\x7fELF");
        let kernel_name: &[u8] = b"queens_count";
        assert!(cubin.windows(kernel_name.len()).any(|w| w == kernel_name));
    }
}
