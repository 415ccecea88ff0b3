//! thicket's tile kernel on the host side: many layers per launch with the nodes in
//! registers, for one long lattice in overlapping tiles ([`LatticeGpu::tiles`]) or a book with
//! one block per option, in stages as the triangles shrink ([`LatticeGpu::book`]).

use std::ffi::c_void;
use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use thicket_core::{Error, Result};
use thicket_gpu::{launch_after, record_event, seconds_between, GpuError};

use super::buffers::Workspace;
use super::{DeviceReal, GpuPriced, LatticeGpu};
use crate::contract::{Contract, Payoff, Seasoning, Style, ValidContract};
use crate::kernels::*;
use crate::scheme::{Precision, Priced};
use crate::tile_shape::{long_launches, long_shape, BookStage, TileClass, TileShape};
use crate::trees::Tree;

/// Grids are at most 65,535 blocks high: one launch per this many options of a book.
const OPTIONS_PER_LAUNCH: usize = 65_535;

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

/// A book's kernel for `contract`'s kind and style, in `T`, with `nodes` per lane.
fn tile_kernel_name<T: DeviceReal>(contract: &Contract, nodes: usize) -> String {
    let (kind, style) = tile_class(contract);
    format!("lattice_tile_{}_{kind}_{style}_r{nodes}", T::SUFFIX)
}

/// One long lattice's kernel for `contract` (blocks alone on their SMs): a seasoned lookback
/// has its own, which keeps the nodes around its state at run time.
fn long_kernel_name<T: DeviceReal>(contract: &Contract, nodes: usize) -> String {
    let (kind, style) = tile_class(contract);
    let seasoned = match (kind, contract.observed_extreme) {
        ("lookback", Some(_)) => "_seasoned",
        _ => "",
    };
    format!(
        "lattice_long_{}_{kind}_{style}{seasoned}_r{nodes}",
        T::SUFFIX
    )
}

/// One run of a book's options on one kernel: the kernel, its stages, and the options' places
/// in the launch.
struct KernelRun {
    function: CudaFunction,
    stages: Vec<BookStage>,
    options: Range<usize>,
}

/// The layers of `option`'s lattice on the device: N, or N + J for a lookback seasoned J
/// states from the spot (its lattice starts J layers before today, as the CPU's does).
fn lattice_layers(option: &ValidContract) -> usize {
    option.contract().steps + option.seasoning().extra()
}

/// Writes `option` into its parameter record (the offsets of [`crate::kernels`] the host
/// writes: the contract, its tree's step where that is not CRR, and a seasoned lookback's
/// state); the records kernel derives the rest on the device.
fn stage(option: &ValidContract, record: &mut [f64]) {
    let contract = option.contract();
    let market = &contract.market;
    let (payoff, strike) = match contract.payoff {
        Payoff::LookbackPut => (PAYOFF_LOOKBACK_PUT, 0.0),
        Payoff::LookbackCall => (PAYOFF_LOOKBACK_CALL, 0.0),
        Payoff::Call { strike } => (PAYOFF_CALL, strike),
        Payoff::Put { strike } => (PAYOFF_PUT, strike),
    };
    record[P_SPOT] = market.spot;
    record[P_STRIKE] = strike;
    record[P_MATURITY] = market.maturity;
    record[P_VOLATILITY] = market.volatility;
    record[P_RATE] = market.rate;
    record[P_PAYOFF] = payoff as f64;
    record[P_AMERICAN] = f64::from(u8::from(contract.style == Style::American));
    record[P_DIVIDEND] = market.dividend_yield;
    // Another tree's step comes from the host, with the CPU's formulas (Leisen–Reimer's
    // Peizer–Pratt inversion included), so the device need not reproduce them: node j of
    // layer i has the stock at S·u^j·d^(i−j) = S·exp((2j − i)·log_u + i·log_drift).
    record[P_TREE] = TREE_CRR as f64;
    record[P_LOG_DRIFT] = 0.0;
    if contract.tree != Tree::Crr {
        let lattice = option.lattice();
        let (log_up, log_down) = (lattice.u.ln(), lattice.d.ln());
        record[P_TREE] = TREE_STAGED as f64;
        record[P_U] = lattice.u;
        record[P_D] = lattice.d;
        record[P_LOG_U] = 0.5 * (log_up - log_down);
        record[P_LOG_DRIFT] = 0.5 * (log_up + log_down);
    }
    let Seasoning { state, weight } = option.seasoning();
    let today = state + usize::from(weight > 0.0);
    record[P_STEPS] = (contract.steps + today) as f64;
    record[P_TODAY] = today as f64;
    record[P_STATE] = state as f64;
    record[P_WEIGHT] = weight;
}

/// The kernels every call of `T` runs around the tile kernel: the one that derives the
/// options' lattices from their contracts, and the one that reads their prices and greeks off
/// the first layers.
struct Bookends {
    records: CudaFunction,
    read_out: CudaFunction,
}

impl Bookends {
    /// The name of the bookend `which` (`records`, `read_out`) in `T`.
    fn name<T: DeviceReal>(which: &str) -> String {
        format!("lattice_{which}_{}", T::SUFFIX)
    }
}

impl LatticeGpu {
    /// One option on the tile kernel: one block where the lattice fits in one, overlapping
    /// blocks of [`TileShape::long`] otherwise.
    pub(crate) fn tiles(
        &self,
        option: &ValidContract,
        precision: Precision,
    ) -> Result<GpuPriced<Priced>> {
        let mut workspace = self.workspace();
        match precision {
            Precision::F32 => self.tiles_in::<f32>(&mut workspace, option),
            Precision::F64 => self.tiles_in::<f64>(&mut workspace, option),
        }
    }

    /// Many options at once, one block each; an option whose lattice does not fit in a block
    /// goes through [`LatticeGpu::tiles`] on its own.
    pub(crate) fn book(
        &self,
        book: &[ValidContract],
        precision: Precision,
    ) -> Result<GpuPriced<Vec<Priced>>> {
        let mut workspace = self.workspace();
        match precision {
            Precision::F32 => self.book_in::<f32>(&mut workspace, book),
            Precision::F64 => self.book_in::<f64>(&mut workspace, book),
        }
    }

    fn tiles_in<T: DeviceReal>(
        &self,
        workspace: &mut Workspace,
        option: &ValidContract,
    ) -> Result<GpuPriced<Priced>> {
        let contract = option.contract();
        let steps = lattice_layers(option);
        let class = shape_class::<T>(contract);
        if steps <= TileShape::widest_book(class) {
            let book = self.book_in::<T>(workspace, std::slice::from_ref(option))?;
            return Ok(GpuPriced {
                priced: book.priced[0],
                kernel_seconds: book.kernel_seconds,
                span_seconds: book.span_seconds,
                launches: book.launches,
            });
        }
        let mut record = [0.0; PARAM_DOUBLES];
        stage(option, &mut record);
        let shape = long_shape(class);
        let name = long_kernel_name::<T>(contract, shape.nodes);
        self.prepare(&[
            Bookends::name::<T>("records"),
            name.clone(),
            Bookends::name::<T>("read_out"),
        ])?;
        let bookends = self.bookends::<T>()?;
        // Each launch may start its blocks while the last one finishes (compute capability 9.0
        // and up; hundreds of launches, each a few tens of microseconds): a block runs its
        // prologue (constants, exercise values) on an SM the last launch has left, and waits
        // for that launch before it reads the layer. Each block asks for over half of an SM's
        // shared memory, so that no SM holds two: an early block doubled up beside a block of
        // the last launch or of its own held its launch back (measurements in
        // docs/benchmarks.md).
        let info = self.gpu.info();
        let dependent = info.compute_capability.0 >= 9;
        let sms = info.sm_count as usize;
        let solo_bytes = info.shared_memory_per_sm / 2 + 1;
        let function = self.function(&name, |f| {
            if dependent {
                f.set_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    solo_bytes as i32,
                )
                .map_err(GpuError::driver("cuFuncSetAttribute"))?;
            }
            Ok(())
        })?;
        let shared = shape.shared_bytes(std::mem::size_of::<T>());
        let stream = self.stream();
        let context = self.gpu.context();
        let (records, layers) = T::split(workspace);
        let params = records.device.at_least(stream, PARAM_DOUBLES)?;
        let priced = records.priced.at_least(stream, PRICED_VALUES)?;
        let priced_host = records.priced_host.at_least(context, PRICED_VALUES)?;
        let even = layers.even.at_least(stream, steps + 1)?;
        let odd = layers.odd.at_least(stream, steps + 1)?;
        let first = layers.first.at_least(stream, FIRST_VALUES)?;
        let span_start = record_event(stream)?;
        stream
            .memcpy_htod(&record, &mut *params)
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let start = record_event(stream)?;
        bookends.derive(stream, params, 1)?;
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
                0 => (&*even, &mut *odd),
                _ => (&*odd, &mut *even),
            };
            let (mut params_at, _params) = params.device_ptr(stream);
            let (input_at, _input) = input.device_ptr(stream);
            // The first launch starts from the leaves: a null input.
            let mut input_at = if launches == 0 { 0 } else { input_at };
            let (mut output_at, _output) = output.device_ptr_mut(stream);
            let (mut first_at, _first) = first.device_ptr_mut(stream);
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
                (&mut first_at as *mut u64).cast(),
                (&mut top_arg as *mut i32).cast(),
                (&mut run_arg as *mut i32).cast(),
                (&mut stride_arg as *mut i32).cast(),
                (&mut halo_arg as *mut i32).cast(),
            ];
            // The first launch waits for the records kernel to finish: its prologue reads the
            // record that kernel writes.
            let early = dependent && launches > 0;
            // SAFETY: the arguments match lattice_tile_*: one parameter record, layer `top`
            // (at least steps + 1 values; null on the first launch, which starts from the
            // leaves), the output layer (at least steps + 1 values), FIRST_VALUES kept values,
            // then top, the layers to advance (<= halo), the stride and the halo (>= the nodes
            // per lane); blocks touch nodes 0 ..= top only, with the shared memory their shape
            // asks for. The kernel waits for the previous launch before it touches either
            // layer.
            unsafe { launch_after(stream, &function, config, &mut args, early) }?;
            launches += 1;
        }
        bookends.read_out(stream, params, first, priced, 1)?;
        let kernels_end = record_event(stream)?;
        stream
            .memcpy_dtoh(&priced.slice(..PRICED_VALUES), priced_host)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        let span_end = record_event(stream)?;
        // Waiting for the last event is what makes the copied answer readable.
        let span_seconds = seconds_between(&span_start, &span_end)?;
        Ok(GpuPriced {
            priced: read_priced(priced_host, 1)?[0],
            kernel_seconds: seconds_between(&start, &kernels_end)?,
            span_seconds,
            launches: launches + 2,
        })
    }

    fn book_in<T: DeviceReal>(
        &self,
        workspace: &mut Workspace,
        book: &[ValidContract],
    ) -> Result<GpuPriced<Vec<Priced>>> {
        let mut priced: Vec<Option<Priced>> = vec![None; book.len()];
        let mut kernel_seconds = 0.0;
        let mut span_seconds = 0.0;
        let mut launches = 0;
        let mut in_blocks = Vec::with_capacity(book.len());
        for (index, option) in book.iter().enumerate() {
            let class = shape_class::<T>(option.contract());
            if lattice_layers(option) <= TileShape::widest_book(class) {
                in_blocks.push(index);
            } else {
                let one = self.tiles_in::<T>(workspace, option)?;
                kernel_seconds += one.kernel_seconds;
                span_seconds += one.span_seconds;
                launches += one.launches;
                priced[index] = Some(one.priced);
            }
        }
        // One kernel per kind and style: the options sorted into runs of one kernel each (most
        // books are of one kernel and need no sorting).
        if !in_blocks.is_sorted_by_key(|&i| tile_class(book[i].contract())) {
            in_blocks.sort_by_key(|&i| tile_class(book[i].contract()));
        }
        for chunk in in_blocks.chunks(OPTIONS_PER_LAUNCH) {
            let one = self.book_chunk::<T>(workspace, book, chunk)?;
            kernel_seconds += one.kernel_seconds;
            span_seconds += one.span_seconds;
            launches += one.launches;
            for (&i, answer) in chunk.iter().zip(one.priced) {
                priced[i] = Some(answer);
            }
        }
        Ok(GpuPriced {
            priced: priced.into_iter().flatten().collect(),
            kernel_seconds,
            span_seconds,
            launches,
        })
    }

    /// The options `chunk` (indices into `book`, sorted by kernel) in one launch per kernel
    /// and stage.
    fn book_chunk<T: DeviceReal>(
        &self,
        workspace: &mut Workspace,
        book: &[ValidContract],
        chunk: &[usize],
    ) -> Result<GpuPriced<Vec<Priced>>> {
        // The options of one kernel in a row (the chunk is sorted by kernel), and the kernels:
        // looked up (and compiled, all at once, and loaded) before the clock starts.
        let groups: Vec<&[usize]> = chunk
            .chunk_by(|&a, &b| tile_class(book[a].contract()) == tile_class(book[b].contract()))
            .collect();
        let kernels: Vec<String> = groups
            .iter()
            .map(|run| {
                let contract = book[run[0]].contract();
                tile_kernel_name::<T>(contract, shape_class::<T>(contract).book_nodes())
            })
            .collect();
        let bookend_names = [
            Bookends::name::<T>("records"),
            Bookends::name::<T>("read_out"),
        ];
        self.prepare(&[&bookend_names[..], &kernels].concat())?;
        let mut runs = Vec::new();
        let mut first_option = 0;
        for (run, name) in groups.iter().zip(&kernels) {
            let steps = run
                .iter()
                .map(|&i| lattice_layers(&book[i]))
                .max()
                .unwrap_or(0);
            let class = shape_class::<T>(book[run[0]].contract());
            let stages = TileShape::book_stages(steps, class).ok_or_else(|| {
                Error::TooLarge(format!("no tile kernel holds a lattice of {steps} steps"))
            })?;
            runs.push(KernelRun {
                function: self.function(name, |_| Ok(()))?,
                stages,
                options: first_option..first_option + run.len(),
            });
            first_option += run.len();
        }
        let bookends = self.bookends::<T>()?;
        // Values per option of the layers between stages.
        let width = runs
            .iter()
            .flat_map(|run| run.stages.iter().map(|stage| stage.end + 1))
            .max()
            .unwrap_or(1);
        let options = chunk.len();
        // The buffers are sized and the contracts staged before the clock starts: the span is
        // the copies and the kernels, as NVIDIA's sample times its own.
        let stream = self.stream();
        let context = self.gpu.context();
        let (records, layers) = T::split(workspace);
        let staged = records.host.at_least(context, options * PARAM_DOUBLES)?;
        let staged = &mut staged
            .as_mut_slice()
            .map_err(GpuError::driver("cuEventSynchronize"))?[..options * PARAM_DOUBLES];
        // The host only copies the contracts: their lattices are derived on the device.
        for (record, &i) in staged.chunks_exact_mut(PARAM_DOUBLES).zip(chunk) {
            stage(&book[i], record);
        }
        let params = records.device.at_least(stream, options * PARAM_DOUBLES)?;
        let first = layers.first.at_least(stream, FIRST_VALUES * options)?;
        let prices = layers.prices.at_least(stream, options)?;
        let even = layers.even.at_least(stream, width * options)?;
        let odd = layers.odd.at_least(stream, width * options)?;
        let priced = records.priced.at_least(stream, PRICED_VALUES * options)?;
        let priced_host = records
            .priced_host
            .at_least(context, PRICED_VALUES * options)?;
        let span_start = record_event(stream)?;
        stream
            .memcpy_htod(&*staged, params)
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
        let start = record_event(stream)?;
        bookends.derive(stream, params, options)?;
        let mut launches = 1;
        for run in &runs {
            let range = run.options.clone();
            let run_params = params.slice(range.start * PARAM_DOUBLES..range.end * PARAM_DOUBLES);
            let values = range.start * width..range.end * width;
            for (k, stage) in run.stages.iter().enumerate() {
                let shape = stage.shape;
                let config = LaunchConfig {
                    grid_dim: (1, range.len() as u32, 1),
                    block_dim: (shape.threads(), 1, 1),
                    shared_mem_bytes: shape.shared_bytes(std::mem::size_of::<T>()),
                };
                let book = -1i32;
                let (top, end, width_arg) = (stage.top as i32, stage.end as i32, width as i32);
                let (input, output) = if k % 2 == 0 {
                    (&*odd, &mut *even)
                } else {
                    (&*even, &mut *odd)
                };
                let input = input.slice(values.clone());
                let mut output = output.slice_mut(values.clone());
                let mut run_prices = prices.slice_mut(range.clone());
                let mut run_first =
                    first.slice_mut(FIRST_VALUES * range.start..FIRST_VALUES * range.end);
                let mut launch = stream.launch_builder(&run.function);
                launch.arg(&run_params).arg(&input);
                if stage.end == 0 {
                    launch.arg(&mut run_prices);
                } else {
                    launch.arg(&mut output);
                }
                launch
                    .arg(&mut run_first)
                    .arg(&book)
                    .arg(&top)
                    .arg(&end)
                    .arg(&width_arg);
                // SAFETY: the arguments match lattice_tile_*: one parameter record per option
                // of the run, all of the kernel's kind and style; the layer the last stage
                // ended at (`width` values per option, read only by options that stage
                // advanced); this stage's end layer (`width` values per option, `end` + 1 <=
                // width written) or, for the last stage, one price per option; FIRST_VALUES kept
                // values per option; then top = -1 (a book), the stage's start and end layers
                // and the width. Each block holds its option's layer `top` whole (the shape's
                // reach), with the shared memory the shape asks for.
                unsafe { launch.launch(config) }.map_err(GpuError::driver("cuLaunchKernel"))?;
                launches += 1;
            }
        }
        // The prices and greeks are read off the first layers on the device, so that the host
        // copies back four values an option and computes nothing.
        bookends.read_out(stream, params, first, priced, options)?;
        launches += 1;
        let kernels_end = record_event(stream)?;
        stream
            .memcpy_dtoh(&priced.slice(..PRICED_VALUES * options), priced_host)
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        let span_end = record_event(stream)?;
        let kernel_seconds = seconds_between(&start, &kernels_end)?;
        let span_seconds = seconds_between(&span_start, &span_end)?;
        let priced = read_priced(priced_host, options)?;
        Ok(GpuPriced {
            priced,
            kernel_seconds,
            span_seconds,
            launches,
        })
    }
}

/// One thread an option in blocks of [`BOOKEND_THREADS`], the records and read-out kernels'
/// launch bound.
fn bookend_config(options: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (options.div_ceil(BOOKEND_THREADS).max(1) as u32, 1, 1),
        block_dim: (BOOKEND_THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

impl LatticeGpu {
    /// The records and read-out kernels in `T`, looked up (and loaded) on first use.
    fn bookends<T: DeviceReal>(&self) -> Result<Bookends> {
        Ok(Bookends {
            records: self.function(&Bookends::name::<T>("records"), |_| Ok(()))?,
            read_out: self.function(&Bookends::name::<T>("read_out"), |_| Ok(()))?,
        })
    }
}

impl Bookends {
    /// Derives the lattices of the first `options` records of `params` from their staged
    /// contracts.
    fn derive(
        &self,
        stream: &Arc<CudaStream>,
        params: &mut CudaSlice<f64>,
        options: usize,
    ) -> Result<()> {
        let count = options as i32;
        let mut launch = stream.launch_builder(&self.records);
        launch.arg(params).arg(&count);
        // SAFETY: the arguments match lattice_records_*: at least `options` parameter records
        // of PARAM_DOUBLES values, each with its contract staged, and their number; threads
        // past it return at once.
        unsafe { launch.launch(bookend_config(options)) }
            .map_err(GpuError::driver("cuLaunchKernel"))?;
        Ok(())
    }

    /// Writes four values per option (price, delta, gamma, theta) into `priced`, read off the
    /// [`FIRST_VALUES`] values per option the tile kernel kept in `first` (today's layer and
    /// the next two).
    fn read_out<T: DeviceReal>(
        &self,
        stream: &Arc<CudaStream>,
        params: &CudaSlice<f64>,
        first: &CudaSlice<T>,
        priced: &mut CudaSlice<f64>,
        options: usize,
    ) -> Result<()> {
        let count = options as i32;
        let mut launch = stream.launch_builder(&self.read_out);
        launch.arg(params).arg(first).arg(priced).arg(&count);
        // SAFETY: the arguments match lattice_read_out_*: at least `options` derived parameter
        // records, FIRST_VALUES kept values and four outputs per option, and their number;
        // threads past it return at once.
        unsafe { launch.launch(bookend_config(options)) }
            .map_err(GpuError::driver("cuLaunchKernel"))?;
        Ok(())
    }
}

/// The first `options` answers the read-out kernel wrote. The caller has waited for their
/// copy (an event recorded after it): reading the page-locked buffer does not wait for it.
fn read_priced(host: &PinnedHostSlice<f64>, options: usize) -> Result<Vec<Priced>> {
    let values = host
        .as_slice()
        .map_err(GpuError::driver("cuEventSynchronize"))?;
    Ok(values[..PRICED_VALUES * options]
        .chunks_exact(PRICED_VALUES)
        .map(|v| Priced {
            price: v[0],
            delta: v[1],
            gamma: v[2],
            theta: v[3],
            vega: None,
            rho: None,
        })
        .collect())
}
