//! The GPU lattices (kernels in `kernels/lattice.cu`): the thesis's kernel, one launch per
//! layer and one thread per node in Hull's C form, with the CPU tail of its hybrid
//! ([`LatticeGpu::thesis`]); and thicket's tile kernel, many layers per launch with the nodes
//! in registers, for one long lattice in overlapping tiles ([`LatticeGpu::tiles`]) or a batch
//! with one block per option, in stages as the triangles shrink ([`LatticeGpu::batch`]).

use std::ffi::c_void;
use std::ops::{Add, Mul, Sub};
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr,
    LaunchConfig, PinnedHostSlice, PushKernelArg, ValidAsZeroBits,
};
use thicket_core::{Error, Result};
use thicket_gpu::{launch_after, record_event, seconds_between, Gpu, GpuError};

use crate::contract::{Contract, Payoff, Style};
use crate::cpu::{gpu_record, read_out_layers, Precision, Priced};
use crate::kernels::{LATTICE, PARAM_DOUBLES};
use crate::tile_shape::{long_launches, long_shape, TileClass, TileShape};

/// Threads per block of the thesis's kernel (the thesis does not say).
const THESIS_THREADS: u32 = 256;
/// Grids are at most 65,535 blocks high: one launch per this many options of a batch.
const OPTIONS_PER_LAUNCH: usize = 65_535;

/// One GPU with the lattice kernels loaded.
pub(crate) struct LatticeGpu {
    gpu: Gpu,
    module: Arc<CudaModule>,
}

/// A GPU answer and how long the device worked on it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GpuPriced<T> {
    /// The answer.
    pub(crate) priced: T,
    /// Seconds from the first launch to the end of the last (CUDA events), plus the CPU tail
    /// of the hybrid.
    pub(crate) kernel_seconds: f64,
    /// Seconds from the upload of the options to the download of the values (CUDA events):
    /// the span NVIDIA's binomialOptions sample times; the hybrid's CPU tail included.
    pub(crate) span_seconds: f64,
    /// Kernel launches.
    pub(crate) launches: usize,
}

/// The element types the kernels are compiled for.
trait DeviceReal:
    DeviceRepr
    + ValidAsZeroBits
    + Copy
    + Into<f64>
    + Unpin
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
{
    const SUFFIX: &'static str;
    fn of(x: f64) -> Self;
}

impl DeviceReal for f32 {
    const SUFFIX: &'static str = "f32";
    fn of(x: f64) -> f32 {
        x as f32
    }
}

impl DeviceReal for f64 {
    const SUFFIX: &'static str = "f64";
    fn of(x: f64) -> f64 {
        x
    }
}

/// The kind and style that pick `contract`'s tile kernel (one kernel each).
fn tile_class(contract: &Contract) -> (&'static str, &'static str) {
    let kind = match contract.payoff {
        Payoff::LookbackPut | Payoff::LookbackCall => "lookback",
        Payoff::Call { .. } | Payoff::Put { .. } => "vanilla",
    };
    (kind, contract.style.name())
}

/// What `contract`'s tile kernel in `T` holds per node.
fn shape_class<T: DeviceReal>(contract: &Contract) -> TileClass {
    TileClass {
        lookback: tile_class(contract).0 == "lookback",
        american: contract.style == Style::American,
        value_bytes: std::mem::size_of::<T>(),
    }
}

/// The tile kernel compiled for `contract`'s kind and style, in `T`, with `nodes` per lane.
fn tile_kernel_name<T: DeviceReal>(contract: &Contract, nodes: usize) -> String {
    let (kind, style) = tile_class(contract);
    format!("lattice_tile_{}_{kind}_{style}_r{nodes}", T::SUFFIX)
}

/// Downloads device values as `f64`.
fn download<T: DeviceReal>(
    stream: &Arc<CudaStream>,
    values: &impl DevicePtr<T>,
) -> Result<Vec<f64>> {
    Ok(stream
        .clone_dtoh(values)
        .map_err(GpuError::driver("cuMemcpyDtoH"))?
        .into_iter()
        .map(Into::into)
        .collect())
}

/// Page-locked host memory holding `values`, so that a copy to the device starts at once
/// (from pageable memory the driver stages it first).
fn pinned_copy<T: DeviceReal>(
    context: &Arc<CudaContext>,
    values: &[T],
) -> Result<PinnedHostSlice<T>> {
    // SAFETY: the memory is written in full below before anything reads it.
    let mut pinned = unsafe { context.alloc_pinned::<T>(values.len()) }
        .map_err(GpuError::driver("cuMemHostAlloc"))?;
    pinned
        .as_mut_slice()
        .map_err(GpuError::driver("cuEventSynchronize"))?
        .copy_from_slice(values);
    Ok(pinned)
}

/// Page-locked host memory (cached: the host reads it) for `len` values from the device.
fn pinned_buffer<T: DeviceReal>(
    context: &Arc<CudaContext>,
    len: usize,
) -> Result<PinnedHostSlice<T>> {
    // SAFETY: the buffer is only read after a copy from the device has filled it.
    Ok(unsafe { context.alloc_pinned_with_flags::<T>(len, 0) }
        .map_err(GpuError::driver("cuMemHostAlloc"))?)
}

/// Layers 2, 1 and 0 as the tile kernel writes them (six values) in the CPU's order.
fn first_layers(values: &[f64]) -> [Vec<f64>; 3] {
    [
        vec![values[5]],
        values[3..5].to_vec(),
        values[0..3].to_vec(),
    ]
}

impl LatticeGpu {
    /// Opens GPU `ordinal` and loads the kernels.
    pub(crate) fn open(ordinal: usize) -> Result<LatticeGpu> {
        let gpu = Gpu::open(ordinal)?;
        let module = gpu.load_module(&LATTICE.source, &LATTICE.options())?;
        Ok(LatticeGpu { gpu, module })
    }

    /// The GPU's name.
    pub(crate) fn name(&self) -> String {
        self.gpu.info().name.clone()
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.gpu.stream()
    }

    fn function(&self, name: &str) -> Result<CudaFunction> {
        Ok(self.gpu.load_function(&self.module, name)?)
    }

    /// One option on the tile kernel: one block where the lattice fits in one, overlapping
    /// blocks of [`TileShape::long`] otherwise.
    pub(crate) fn tiles(
        &self,
        contract: &Contract,
        precision: Precision,
    ) -> Result<GpuPriced<Priced>> {
        match precision {
            Precision::F32 => self.tiles_in::<f32>(contract, precision),
            Precision::F64 => self.tiles_in::<f64>(contract, precision),
        }
    }

    fn tiles_in<T: DeviceReal>(
        &self,
        contract: &Contract,
        precision: Precision,
    ) -> Result<GpuPriced<Priced>> {
        let steps = contract.validate()?.steps;
        let class = shape_class::<T>(contract);
        if steps <= TileShape::widest_book(class) {
            let batch = self.batch_in::<T>(std::slice::from_ref(contract), precision)?;
            return Ok(GpuPriced {
                priced: batch.priced[0],
                kernel_seconds: batch.kernel_seconds,
                span_seconds: batch.span_seconds,
                launches: batch.launches,
            });
        }
        let stream = self.stream();
        let span_start = record_event(stream)?;
        let params = stream
            .clone_htod(&gpu_record(contract, precision)?)
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let mut even = stream
            .alloc_zeros::<T>(steps + 1)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let mut odd = stream
            .alloc_zeros::<T>(steps + 1)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let mut layers = stream
            .alloc_zeros::<T>(6)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        // Each launch may start its blocks while the last one finishes (compute capability 9.0
        // and up; hundreds of launches, each a few tens of microseconds): a block runs its
        // prologue (constants, exercise values) on an SM the last launch has left, and waits
        // for that launch before it reads the layer. Each block asks for over half of an SM's
        // shared memory, so that no SM holds two: an early block doubled up beside a block of
        // the last launch or of its own, two warps a scheduler, held its launch back (H100,
        // one f64 lattice of 100,000 steps at 12 nodes a lane, in a build on the way to this
        // one: 12.0 ms overlapping launches freely, 8.8 ms never, 8.5 ms one block an SM).
        let info = self.gpu.info();
        let dependent = info.compute_capability.0 >= 9;
        let sms = info.sm_count as usize;
        let solo_bytes = info.shared_memory_per_sm / 2 + 1;
        let shape = long_shape(class);
        let function = self.function(&tile_kernel_name::<T>(contract, shape.nodes))?;
        if dependent {
            function
                .set_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    solo_bytes as i32,
                )
                .map_err(GpuError::driver("cuFuncSetAttribute"))?;
        }
        let shared = shape.shared_bytes(std::mem::size_of::<T>());
        let start = record_event(stream)?;
        let mut launches = 0;
        for launch in long_launches(steps, shape, sms) {
            let config = LaunchConfig {
                grid_dim: (launch.blocks as u32, 1, 1),
                block_dim: (shape.threads(), 1, 1),
                shared_mem_bytes: if dependent {
                    shared.max(solo_bytes)
                } else {
                    shared
                },
            };
            let (input, output) = match launches % 2 {
                0 => (&even, &mut odd),
                _ => (&odd, &mut even),
            };
            let (mut params_at, _params) = params.device_ptr(stream);
            let (input_at, _input) = input.device_ptr(stream);
            // The first launch starts from the leaves: a null input.
            let mut input_at = if launches == 0 { 0 } else { input_at };
            let (mut output_at, _output) = output.device_ptr_mut(stream);
            let (mut layers_at, _layers) = layers.device_ptr_mut(stream);
            let (mut top_arg, mut run_arg, mut stride_arg, mut halo_arg) = (
                launch.top as i32,
                launch.run as i32,
                launch.stride as i32,
                launch.halo as i32,
            );
            let mut args = [
                (&mut params_at as *mut u64).cast::<c_void>(),
                (&mut input_at as *mut u64).cast(),
                (&mut output_at as *mut u64).cast(),
                (&mut layers_at as *mut u64).cast(),
                (&mut top_arg as *mut i32).cast(),
                (&mut run_arg as *mut i32).cast(),
                (&mut stride_arg as *mut i32).cast(),
                (&mut halo_arg as *mut i32).cast(),
            ];
            // SAFETY: the arguments match lattice_tile_*: one parameter record, layer `top`
            // (steps + 1 values; null on the first launch, which starts from the leaves), the
            // output layer (steps + 1 values), six first-layer values, then top, the layers to
            // advance (<= halo), the stride and the halo (>= the nodes per lane); blocks touch
            // nodes 0 ..= top only, with the shared memory their shape asks for. The kernel
            // waits for the previous launch before it touches either layer.
            unsafe { launch_after(stream, &function, config, &mut args, dependent) }?;
            launches += 1;
        }
        let kernels_end = record_event(stream)?;
        let values = download(stream, &layers)?;
        let span_end = record_event(stream)?;
        Ok(GpuPriced {
            priced: read_out_layers(contract, first_layers(&values))?,
            kernel_seconds: seconds_between(&start, &kernels_end)?,
            span_seconds: seconds_between(&span_start, &span_end)?,
            launches,
        })
    }

    /// Many options at once, one block each; an option whose lattice does not fit in a block
    /// goes through [`LatticeGpu::tiles`] on its own.
    pub(crate) fn batch(
        &self,
        contracts: &[Contract],
        precision: Precision,
    ) -> Result<GpuPriced<Vec<Priced>>> {
        match precision {
            Precision::F32 => self.batch_in::<f32>(contracts, precision),
            Precision::F64 => self.batch_in::<f64>(contracts, precision),
        }
    }

    fn batch_in<T: DeviceReal>(
        &self,
        contracts: &[Contract],
        precision: Precision,
    ) -> Result<GpuPriced<Vec<Priced>>> {
        let mut priced: Vec<Option<Priced>> = vec![None; contracts.len()];
        let mut kernel_seconds = 0.0;
        let mut span_seconds = 0.0;
        let mut launches = 0;
        let mut in_blocks = Vec::new();
        for (index, contract) in contracts.iter().enumerate() {
            if contract.validate()?.steps <= TileShape::widest_book(shape_class::<T>(contract)) {
                in_blocks.push(index);
            } else {
                let one = self.tiles_in::<T>(contract, precision)?;
                kernel_seconds += one.kernel_seconds;
                span_seconds += one.span_seconds;
                launches += one.launches;
                priced[index] = Some(one.priced);
            }
        }
        // One kernel per kind and style: the options sorted into runs of one kernel each.
        in_blocks.sort_by_key(|&i| tile_class(&contracts[i]));
        let stream = self.stream();
        for chunk in in_blocks.chunks(OPTIONS_PER_LAUNCH) {
            let mut records = Vec::with_capacity(chunk.len() * PARAM_DOUBLES);
            for &i in chunk {
                records.extend(gpu_record(&contracts[i], precision)?);
            }
            // The kernels are looked up (and loaded) before the clock starts.
            let mut runs = Vec::new();
            let mut first = 0;
            for run in
                chunk.chunk_by(|&a, &b| tile_class(&contracts[a]) == tile_class(&contracts[b]))
            {
                let steps = run.iter().map(|&i| contracts[i].steps).max().unwrap_or(0);
                let class = shape_class::<T>(&contracts[run[0]]);
                let stages = TileShape::book_stages(steps, class).ok_or_else(|| {
                    Error::Gpu(format!("no tile kernel holds a lattice of {steps} steps"))
                })?;
                let function = self.function(&tile_kernel_name::<T>(
                    &contracts[run[0]],
                    class.book_nodes(),
                ))?;
                runs.push((function, stages, first..first + run.len()));
                first += run.len();
            }
            // Values per option of the layers between stages.
            let width = runs
                .iter()
                .flat_map(|(_, stages, _)| stages.iter().map(|stage| stage.end + 1))
                .max()
                .unwrap_or(1);
            // Device memory and page-locked host buffers are set up before the clock starts:
            // the span is the copies and the kernels, as NVIDIA's sample times its own.
            let mut layers = stream
                .alloc_zeros::<T>(6 * chunk.len())
                .map_err(GpuError::driver("cuMemAlloc"))?;
            let mut prices = stream
                .alloc_zeros::<T>(chunk.len())
                .map_err(GpuError::driver("cuMemAlloc"))?;
            let mut between = [
                stream
                    .alloc_zeros::<T>(width * chunk.len())
                    .map_err(GpuError::driver("cuMemAlloc"))?,
                stream
                    .alloc_zeros::<T>(width * chunk.len())
                    .map_err(GpuError::driver("cuMemAlloc"))?,
            ];
            let mut params = stream
                .alloc_zeros::<f64>(records.len())
                .map_err(GpuError::driver("cuMemAlloc"))?;
            let staged = pinned_copy(self.gpu.context(), &records)?;
            let mut layers_host = pinned_buffer::<T>(self.gpu.context(), 6 * chunk.len())?;
            let span_start = record_event(stream)?;
            stream
                .memcpy_htod(&staged, &mut params)
                .map_err(GpuError::driver("cuMemcpyHtoD"))?;
            let start = record_event(stream)?;
            for (function, stages, range) in &runs {
                let run_params =
                    params.slice(range.start * PARAM_DOUBLES..range.end * PARAM_DOUBLES);
                let values = range.start * width..range.end * width;
                for (k, stage) in stages.iter().enumerate() {
                    let shape = stage.shape;
                    let config = LaunchConfig {
                        grid_dim: (1, range.len() as u32, 1),
                        block_dim: (shape.threads(), 1, 1),
                        shared_mem_bytes: shape.shared_bytes(std::mem::size_of::<T>()),
                    };
                    let book = -1i32;
                    let (top, end, width_arg) = (stage.top as i32, stage.end as i32, width as i32);
                    let [even, odd] = &mut between;
                    let (input, output) = if k % 2 == 0 { (odd, even) } else { (even, odd) };
                    let input = input.slice(values.clone());
                    let mut output = output.slice_mut(values.clone());
                    let mut run_prices = prices.slice_mut(range.clone());
                    let mut run_layers = layers.slice_mut(6 * range.start..6 * range.end);
                    let mut launch = stream.launch_builder(function);
                    launch.arg(&run_params).arg(&input);
                    if stage.end == 0 {
                        launch.arg(&mut run_prices);
                    } else {
                        launch.arg(&mut output);
                    }
                    launch
                        .arg(&mut run_layers)
                        .arg(&book)
                        .arg(&top)
                        .arg(&end)
                        .arg(&width_arg);
                    // SAFETY: the arguments match lattice_tile_*: one parameter record per
                    // option of the run, all of the kernel's kind and style; the layer the
                    // last stage ended at (`width` values per option, read only by options
                    // that stage advanced); this stage's end layer (`width` values per option,
                    // `end` + 1 <= width written) or, for the last stage, one price per option;
                    // six first-layer values per option; then top = -1 (a book), the stage's
                    // start and end layers and the width. Each block holds its option's layer
                    // `top` whole (the shape's reach), with the shared memory the shape asks for.
                    unsafe { launch.launch(config) }.map_err(GpuError::driver("cuLaunchKernel"))?;
                    launches += 1;
                }
            }
            let kernels_end = record_event(stream)?;
            stream
                .memcpy_dtoh(&layers, &mut layers_host)
                .map_err(GpuError::driver("cuMemcpyDtoH"))?;
            let span_end = record_event(stream)?;
            kernel_seconds += seconds_between(&start, &kernels_end)?;
            span_seconds += seconds_between(&span_start, &span_end)?;
            let values: Vec<f64> = layers_host
                .as_slice()
                .map_err(GpuError::driver("cuEventSynchronize"))?
                .iter()
                .map(|&v| v.into())
                .collect();
            for (k, &i) in chunk.iter().enumerate() {
                priced[i] = Some(read_out_layers(
                    &contracts[i],
                    first_layers(&values[6 * k..6 * k + 6]),
                )?);
            }
        }
        Ok(GpuPriced {
            priced: priced.into_iter().flatten().collect(),
            kernel_seconds,
            span_seconds,
            launches,
        })
    }

    /// The thesis's kernel: one launch per layer in Hull's C form, in `precision`; with
    /// `cpu_tail`, the last layers on the CPU (the thesis's hybrid). Lookback puts only.
    pub(crate) fn thesis(
        &self,
        contract: &Contract,
        precision: Precision,
        cpu_tail: Option<usize>,
    ) -> Result<GpuPriced<Priced>> {
        if contract.payoff != Payoff::LookbackPut {
            return Err(Error::InvalidInput(
                "the thesis's kernel prices the floating-strike lookback put only".into(),
            ));
        }
        match precision {
            Precision::F32 => self.thesis_in::<f32>(contract, precision, cpu_tail),
            Precision::F64 => self.thesis_in::<f64>(contract, precision, cpu_tail),
        }
    }

    fn thesis_in<T: DeviceReal>(
        &self,
        contract: &Contract,
        precision: Precision,
        cpu_tail: Option<usize>,
    ) -> Result<GpuPriced<Priced>> {
        let lattice = contract.validate()?;
        let n = lattice.steps;
        let american = contract.style == Style::American;
        let c = ThesisStep {
            u: T::of(lattice.u),
            d: T::of(lattice.d),
            pu: T::of(lattice.disc * (1.0 - lattice.p)),
            pd: T::of(lattice.disc * lattice.p),
            american,
        };
        // The leaves, computed on the host as in the thesis: C[N][j] = u^j - 1.
        let leaves: Vec<T> = (0..=n)
            .map(|j| T::of(lattice.u.powf(j as f64) - 1.0))
            .collect();
        let stream = self.stream();
        let span_start = record_event(stream)?;
        let mut cur = stream
            .clone_htod(&leaves)
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let mut next = stream
            .alloc_zeros::<T>(n + 1)
            .map_err(GpuError::driver("cuMemAlloc"))?;
        let function = self.function(&format!("thesis_layer_{}", T::SUFFIX))?;
        let stop = cpu_tail.unwrap_or(0).min(n);
        let mut layers: [Vec<f64>; 3] = Default::default();
        let american_arg = i32::from(american);
        let start = record_event(stream)?;
        let mut i = n;
        while i > stop {
            i -= 1;
            let count = (i + 1) as i32;
            let config = LaunchConfig {
                grid_dim: ((i as u32 + 1).div_ceil(THESIS_THREADS), 1, 1),
                block_dim: (THESIS_THREADS, 1, 1),
                shared_mem_bytes: (THESIS_THREADS + 2) * std::mem::size_of::<T>() as u32,
            };
            let mut launch = stream.launch_builder(&function);
            launch
                .arg(&cur)
                .arg(&mut next)
                .arg(&count)
                .arg(&c.u)
                .arg(&c.d)
                .arg(&c.pu)
                .arg(&c.pd)
                .arg(&american_arg);
            // SAFETY: the arguments match thesis_layer_*: layer i + 1 and layer i (n + 1
            // values each), i + 1 nodes, u, d, pu, pd and the style; a thread reads nodes up
            // to i + 1 and writes node j <= i, with blockDim + 2 values of shared memory.
            unsafe { launch.launch(config) }.map_err(GpuError::driver("cuLaunchKernel"))?;
            std::mem::swap(&mut cur, &mut next);
            if i <= 2 {
                layers[i] = download(stream, &cur.slice(..=i))?;
            }
        }
        let mut kernel_seconds = seconds_between(&start, &record_event(stream)?)?;
        let mut span_seconds = seconds_between(&span_start, &record_event(stream)?)?;
        let launches = n - i;
        if i > 0 || n == 0 {
            let tail = Instant::now();
            let mut values: Vec<T> = stream
                .clone_dtoh(&cur.slice(..=i))
                .map_err(GpuError::driver("cuMemcpyDtoH"))?;
            c.finish_on_cpu(&mut values, i, &mut layers);
            let tail_seconds = tail.elapsed().as_secs_f64();
            kernel_seconds += tail_seconds;
            span_seconds += tail_seconds;
        }
        // From the C form (C = u^j V) to the CPU's units (V grown to a bond at maturity).
        let growth = contract.market.rate * lattice.dt;
        for (i, layer) in layers.iter_mut().enumerate() {
            for (j, value) in layer.iter_mut().enumerate() {
                *value *= (growth * (n - i) as f64 - j as f64 * lattice.u.ln()).exp();
            }
        }
        let priced = read_out_layers(contract, layers)?;
        if !priced.price.is_finite() {
            return Err(Error::Verification(format!(
                "the thesis's kernel overflowed in {precision} at N = {n} (u^j passes the \
                 type's range)"
            )));
        }
        Ok(GpuPriced {
            priced,
            kernel_seconds,
            span_seconds,
            launches,
        })
    }
}

/// The thesis's node update in `T`, for the CPU tail of its hybrid.
struct ThesisStep<T> {
    u: T,
    d: T,
    pu: T,
    pd: T,
    american: bool,
}

impl<T: DeviceReal> ThesisStep<T> {
    /// Layers `from - 1` down to 0 on the CPU, in place; `values` holds layer `from`.
    fn finish_on_cpu(&self, values: &mut [T], from: usize, layers: &mut [Vec<f64>; 3]) {
        let one = T::of(1.0);
        for i in (0..from).rev() {
            let mut below = values[0];
            for j in 0..=i {
                let old = values[j];
                let lower = if j == 0 { old } else { below };
                let held = self.pu * values[j + 1] * self.d + self.pd * lower * self.u;
                let exercise = if j == 0 {
                    T::of(0.0)
                } else {
                    T::of(self.u.into().powf(j as f64)) - one
                };
                values[j] = if self.american && exercise > held {
                    exercise
                } else {
                    held
                };
                below = old;
            }
            if i <= 2 {
                layers[i] = values[..=i].iter().map(|&v| v.into()).collect();
            }
        }
    }
}
