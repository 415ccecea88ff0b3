//! The GPU a permutation search runs on: opened, with the kernels loaded, and thin helpers to
//! allocate, copy and launch with raw device addresses (the kernels take plain pointers).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use thicket_core::{Error, Result};
use thicket_gpu::cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};
use thicket_gpu::{Gpu, GpuError, KernelModule};

/// Threads per block of every kernel launched from the host.
pub const BLOCK: u32 = 128;

/// An opened GPU with a loaded kernel module: the process's shared context
/// ([`Gpu::shared`]), so that cloning it or opening it again costs nothing.
#[derive(Clone)]
pub struct Device {
    gpu: Arc<Gpu>,
    module: Arc<CudaModule>,
    /// Whether the module is linked with the device runtime (dynamic parallelism).
    linked: bool,
}

/// The devices this process opened, by CUDA ordinal and kernel module name.
type Opened = HashMap<(usize, &'static str), Device>;

/// Every device of the process with a module loaded: kept until the process ends, so a
/// second search on the same GPU pays neither the context nor the module's load, and a
/// context's device-runtime limit is raised once (before its first launch that needs it).
static OPENED: OnceLock<Mutex<Opened>> = OnceLock::new();

/// A kernel argument: a device address, a count or a small integer.
#[derive(Debug, Clone, Copy)]
pub enum Arg {
    /// A device address or a 64-bit count.
    U64(u64),
    /// A 32-bit integer.
    I32(i32),
}

impl Device {
    /// GPU `ordinal` with `kernels` loaded, opened and loaded on the process's first call
    /// and shared by every later one; a linked module is relocatable code linked with the
    /// device runtime, and its context gets room for `CDP_PENDING_LAUNCHES`
    /// pending device-side launches.
    pub fn open(kernels: &KernelModule, ordinal: usize) -> Result<Device> {
        let opened = OPENED.get_or_init(|| Mutex::new(HashMap::new()));
        // The map is only inserted into, so one a panic left locked is still whole.
        let mut opened = opened.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (ordinal, kernels.source.name);
        if let Some(device) = opened.get(&key) {
            return Ok(device.clone());
        }
        thicket_gpu::probe()?;
        let gpu = Gpu::shared(ordinal)?;
        let (source, options) = (&kernels.source, kernels.options());
        let module = if kernels.linked {
            let linked_before = opened.iter().any(|(&(o, _), d)| o == ordinal && d.linked);
            if !linked_before {
                raise_pending_launches(&gpu)?;
            }
            gpu.load_linked_module(source, &options)?.0
        } else {
            gpu.load_module(source, &options)?
        };
        let device = Device {
            gpu,
            module,
            linked: kernels.linked,
        };
        opened.insert(key, device.clone());
        Ok(device)
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.gpu.info().name
    }

    /// The device's streaming multiprocessors.
    pub fn sm_count(&self) -> u32 {
        self.gpu.info().sm_count.max(1)
    }

    /// The stream everything runs on, in order.
    pub fn stream(&self) -> &Arc<CudaStream> {
        self.gpu.stream()
    }

    /// Free device memory in bytes.
    pub fn free_memory(&self) -> Result<u64> {
        let (free, _total) = self
            .gpu
            .context()
            .mem_get_info()
            .map_err(|e| Error::from(GpuError::driver("cuMemGetInfo")(e)))?;
        Ok(free as u64)
    }

    /// The kernel `name` of the module.
    pub fn function(&self, name: &str) -> Result<CudaFunction> {
        self.gpu
            .load_function(&self.module, name)
            .map_err(Error::from)
    }

    /// A zeroed buffer of `len` elements.
    pub fn zeros<T>(&self, len: usize) -> Result<CudaSlice<T>>
    where
        T: thicket_gpu::cudarc::driver::DeviceRepr + thicket_gpu::cudarc::driver::ValidAsZeroBits,
    {
        self.stream()
            .alloc_zeros::<T>(len.max(1))
            .map_err(|e| Error::from(GpuError::driver("cuMemAlloc")(e)))
    }

    /// A buffer holding a copy of `data`.
    pub fn upload<T: thicket_gpu::cudarc::driver::DeviceRepr>(
        &self,
        data: &[T],
    ) -> Result<CudaSlice<T>> {
        self.stream()
            .clone_htod(data)
            .map_err(|e| Error::from(GpuError::driver("cuMemcpyHtoD")(e)))
    }

    /// Copies `data` to the start of `buffer` (which must be at least as long).
    pub fn copy_into<T: thicket_gpu::cudarc::driver::DeviceRepr>(
        &self,
        data: &[T],
        buffer: &mut CudaSlice<T>,
    ) -> Result<()> {
        let mut view = buffer.slice_mut(0..data.len());
        self.stream()
            .memcpy_htod(data, &mut view)
            .map_err(|e| Error::from(GpuError::driver("cuMemcpyHtoD")(e)))
    }

    /// A copy of `buffer` (waits for the work queued before).
    pub fn download<T: thicket_gpu::cudarc::driver::DeviceRepr>(
        &self,
        buffer: &CudaSlice<T>,
    ) -> Result<Vec<T>> {
        self.stream()
            .clone_dtoh(buffer)
            .map_err(|e| Error::from(GpuError::driver("cuMemcpyDtoH")(e)))
    }

    /// The device address of `buffer`.
    pub fn address<T>(&self, buffer: &CudaSlice<T>) -> u64 {
        let (address, _record) = buffer.device_ptr(self.stream());
        address
    }

    /// Waits for everything queued.
    pub fn synchronize(&self) -> Result<()> {
        self.stream()
            .synchronize()
            .map_err(|e| Error::from(GpuError::driver("cuStreamSynchronize")(e)))
    }

    /// How many blocks of `block` threads with `shared` bytes of dynamic shared memory fit on
    /// one multiprocessor at once (at least one).
    pub fn blocks_per_sm(&self, function: &CudaFunction, block: u32, shared: u32) -> Result<u32> {
        let blocks = function
            .occupancy_max_active_blocks_per_multiprocessor(block, shared as usize, None)
            .map_err(|e| {
                Error::from(GpuError::driver(
                    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                )(e))
            })?;
        Ok(blocks.max(1))
    }

    /// Launches `function` on `grid` blocks of `block` threads with `shared` bytes of dynamic
    /// shared memory.
    ///
    /// # Safety
    /// `args` must match the kernel's parameters in number, order and type (device addresses
    /// of buffers large enough for what the kernel touches), and `shared` must cover what the
    /// kernel uses.
    pub unsafe fn launch(
        &self,
        function: &CudaFunction,
        grid: u32,
        block: u32,
        shared: u32,
        args: &[Arg],
    ) -> Result<()> {
        if grid == 0 {
            return Ok(());
        }
        allow_shared(function, shared)?;
        let mut builder = self.stream().launch_builder(function);
        for arg in args {
            match arg {
                Arg::U64(value) => builder.arg(value),
                Arg::I32(value) => builder.arg(value),
            };
        }
        let config = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: shared,
        };
        // SAFETY: the caller guarantees that the arguments and shared memory fit the kernel.
        unsafe { builder.launch(config) }
            .map(|_| ())
            .map_err(|e| Error::from(GpuError::driver("cuLaunchKernel")(e)))
    }
}

/// Lets `function` use `shared` bytes of dynamic shared memory (above 48 KiB it must opt in).
fn allow_shared(function: &CudaFunction, shared: u32) -> Result<()> {
    use thicket_gpu::cudarc::driver::sys::CUfunction_attribute_enum;
    if shared <= 48 * 1024 {
        return Ok(());
    }
    function
        .set_attribute(
            CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            shared as i32,
        )
        .map_err(|e| Error::from(GpuError::driver("cuFuncSetAttribute")(e)))
}

/// Gives `gpu`'s context room for `CDP_PENDING_LAUNCHES` pending device-side
/// launches, once per context.
fn raise_pending_launches(gpu: &Gpu) -> Result<()> {
    use thicket_gpu::cudarc::driver::sys::CUlimit;
    gpu.context()
        .set_limit(
            CUlimit::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT,
            super::CDP_PENDING_LAUNCHES as usize,
        )
        .map_err(|e| Error::from(GpuError::driver("cuCtxSetLimit")(e)))
}
