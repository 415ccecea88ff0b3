//! The thesis's kernel on the host side: one launch per layer and one thread per node in
//! Hull's C form (lookback puts only), with the CPU tail of its hybrid.

use std::time::Instant;

use cudarc::driver::{LaunchConfig, PushKernelArg};
use thicket_core::{Error, Result};
use thicket_gpu::{record_event, seconds_between, GpuError};

use super::buffers::Workspace;
use super::{download, DeviceReal, GpuPriced, LatticeGpu};
use crate::contract::{Payoff, Style, ValidContract};
use crate::scheme::read_out::{read_out_layers, Top};
use crate::scheme::{Precision, Priced};

/// Threads per block of the thesis's kernel (the thesis does not say).
const THESIS_THREADS: u32 = 256;

impl LatticeGpu {
    /// The thesis's kernel: one launch per layer in Hull's C form, in `precision`; with
    /// `cpu_tail`, the last layers on the CPU (the thesis's hybrid). Lookback puts that start
    /// today only: the front door refuses an observed maximum (the kernel's Hull C form has
    /// no running maximum of its own).
    pub(crate) fn thesis(
        &self,
        option: &ValidContract,
        precision: Precision,
        cpu_tail: Option<usize>,
    ) -> Result<GpuPriced<Priced>> {
        if option.contract().payoff != Payoff::LookbackPut {
            return Err(Error::InvalidInput(
                "the thesis's kernel prices the floating-strike lookback put only".into(),
            ));
        }
        let mut workspace = self.workspace();
        match precision {
            Precision::F32 => self.thesis_in::<f32>(&mut workspace, option, precision, cpu_tail),
            Precision::F64 => self.thesis_in::<f64>(&mut workspace, option, precision, cpu_tail),
        }
    }

    fn thesis_in<T: DeviceReal>(
        &self,
        workspace: &mut Workspace,
        option: &ValidContract,
        precision: Precision,
        cpu_tail: Option<usize>,
    ) -> Result<GpuPriced<Priced>> {
        let (contract, lattice) = (option.contract(), option.lattice());
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
        let function = self.function(&format!("thesis_layer_{}", T::SUFFIX), |_| Ok(()))?;
        let (_, buffers) = T::split(workspace);
        let mut cur = buffers.even.at_least(stream, n + 1)?;
        let mut next = buffers.odd.at_least(stream, n + 1)?;
        let span_start = record_event(stream)?;
        stream
            .memcpy_htod(&leaves, cur)
            .map_err(GpuError::driver("cuMemcpyHtoD"))?;
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
                .arg(&*cur)
                .arg(&mut *next)
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
        let mut top = Top::default();
        for (i, layer) in layers.iter().enumerate() {
            for (j, value) in layer.iter().enumerate() {
                top.layers[i][j] =
                    value * (growth * (n - i) as f64 - j as f64 * lattice.u.ln()).exp();
            }
        }
        let priced = read_out_layers(option, &top);
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
