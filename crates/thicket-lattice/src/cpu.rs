//! The CPU lattices, in `f32` or `f64`: one thread ([`price_serial`], the speed-up
//! reference), one long lattice on many threads ([`price_multicore`], time-tiled so that a
//! block of layers costs one barrier), and many options at once ([`price_batch`]).
//!
//! # The four lattices and their units
//!
//! Every lattice is a backward induction over layers i = N … 0 of nodes j = 0 … i, and every
//! node value is kept in units that stay near [0, 1], so that nothing like u^j (which
//! overflows `f32` past about 30,000 steps for the thesis's parameters) is ever formed. The
//! units are chosen so that the two weights of a node sum to exactly 1 in exact arithmetic:
//! in `f32` the larger weight is rounded and the smaller one is 1 minus it, so the sum stays
//! exactly 1 and rounding cannot scale the price by (1 + ε)^N (the main `f32` error the
//! reference data's README measures).
//!
//! **Lookback put** (Hull, Technical Note 13): j counts the steps between the stock and its
//! running maximum G = S·u^j. With V = C/u^j (the value in units of G rather than S, which
//! needs d·u = 1), the README's recursion becomes
//!
//! ```text
//! V[N][j] = 1 − d^j
//! V[i][j] = max(1 − d^j, disc·((1−p)·V[i+1][j+1] + p·V[i+1][j−1]))   for j ≥ 1
//! V[i][0] = max(0,       disc·((1−p)·V[i+1][1]   + p·u·V[i+1][0]))
//! ```
//!
//! The weights disc·(1−p) and disc·p sum to disc, so the lattice carries
//! `W[i][j] = V[i][j]·exp(r·dt·(N−i))` (units of G·exp(−r·(T−t)), a bond): weights 1−p and p,
//! exercise value (1 − d^j)·exp(r·dt·(N−i)), price `S·W[0][0]·exp(−r·T)`.
//!
//! **Lookback call** (floating strike): j counts the steps between the stock and its running
//! minimum m = S·d^j; an up move raises j, a down move lowers it, floored at 0 (a new
//! minimum). In units of S the exercise value is 1 − d^j and
//!
//! ```text
//! C[i][j] = max(1 − d^j, disc·p·u·C[i+1][j+1] + disc·(1−p)·d·C[i+1][max(j−1, 0)])
//! ```
//!
//! (without the max if European); the weights sum to 1.
//!
//! **Vanilla call**: node j of layer i has the stock at S·u^(2j−i); in units of that price
//! the exercise value is max(0, 1 − K/(S·u^(2j−i))) and the weights are disc·p·u and
//! disc·(1−p)·d.
//!
//! **Vanilla put**: in units of K·exp(−r·(T−t)) the exercise value is
//! max(0, 1 − S·u^(2j−i)/K)·exp(r·dt·(N−i)) and the weights are p and 1−p.
//!
//! Exercise values are computed once in `f64` per j (lookbacks) or per stock level
//! (vanilla), with exp of j·ln u, then rounded to the working precision.
//!
//! # Greeks
//!
//! Delta and gamma are Hull's finite differences on the first two layers:
//! delta = (f_u − f_d)/(S_u − S_d) and gamma = ((f_uu − f_ud)/(S_uu − S) −
//! (f_ud − f_dd)/(S − S_dd)) / (0.5·(S_uu − S_dd)). For a lookback, the middle node of layer 2
//! (stock back at S) is reached by up-down and down-up, which set different running extremes
//! and so have different values; both paths have probability p(1−p), so f_ud is their mean.
//! With one step there is no layer 2 and gamma is 0.

use std::fmt;
use std::ops::{Add, Mul, Sub};
use std::str::FromStr;

use rayon::prelude::*;
use serde::Serialize;
use thicket_core::{Error, Result};

use crate::contract::{Contract, Lattice, Payoff, Style};

/// The floating-point type the lattice is computed in (the parameters and exercise values are
/// always computed in `f64` first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// Single precision, as in the thesis.
    F32,
    /// Double precision.
    F64,
}

impl Precision {
    /// The precision's name: `f32` or `f64`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Precision {
    type Err = Error;

    fn from_str(s: &str) -> Result<Precision> {
        match s {
            "f32" => Ok(Precision::F32),
            "f64" => Ok(Precision::F64),
            _ => Err(Error::InvalidInput(format!(
                "precision {s:?} is not f32 or f64"
            ))),
        }
    }
}

/// The price of one option and its sensitivities to the spot, all in `f64`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Priced {
    /// The option's value today.
    pub price: f64,
    /// d price / d spot, from the first layer (see the module documentation).
    pub delta: f64,
    /// d² price / d spot², from the second layer; 0 with one step.
    pub gamma: f64,
}

/// Prices one option on one thread: a plain backward induction over two buffers of N + 1
/// values.
pub fn price_serial(contract: &Contract, precision: Precision) -> Result<Priced> {
    let lattice = contract.validate()?;
    Ok(match precision {
        Precision::F32 => priced(&Scheme::<f32>::new(contract, &lattice), serial),
        Precision::F64 => priced(&Scheme::<f64>::new(contract, &lattice), serial),
    })
}

/// Prices one option on `threads` threads, time-tiled: the nodes of a layer are cut into
/// chunks, and each chunk advances a block of layers on its own from the layer above the
/// block, recomputing a halo of one node per layer on each side, so a block costs one
/// barrier instead of one per layer. Every node is computed by the same operations as in
/// [`price_serial`], so the results are bit-identical to it.
pub fn price_multicore(
    contract: &Contract,
    precision: Precision,
    threads: usize,
) -> Result<Priced> {
    price_tiled(contract, precision, threads, Tiling::standard())
}

/// Prices many options on `threads` threads, one option per rayon task, each priced as
/// [`price_serial`] does. All are checked before any is priced: the first invalid contract
/// is the error, its message naming its position ("option 3 of 10: ...").
pub fn price_batch(
    contracts: &[Contract],
    precision: Precision,
    threads: usize,
) -> Result<Vec<Priced>> {
    for (k, contract) in contracts.iter().enumerate() {
        contract.validate().map_err(|e| {
            Error::InvalidInput(format!(
                "option {} of {}: {}",
                k + 1,
                contracts.len(),
                e.message()
            ))
        })?;
    }
    thicket_core::pool(threads)?.install(|| {
        contracts
            .par_iter()
            .map(|contract| price_serial(contract, precision))
            .collect()
    })
}

/// How [`price_multicore`] cuts the lattice: blocks of `depth` layers; chunks of about a
/// quarter of a thread's share of the layer, but at least `width` nodes; the last `tail`
/// layers on one thread.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tiling {
    pub(crate) depth: usize,
    pub(crate) width: usize,
    pub(crate) tail: usize,
}

impl Tiling {
    /// Blocks of 64 layers and chunks of at least 1,024 nodes (the halo then adds at most
    /// 1/16 of the work); the last 2,048 layers (a few milliseconds) run serially, where the
    /// chunks would be too few to share.
    fn standard() -> Tiling {
        Tiling {
            depth: 64,
            width: 1024,
            tail: 2048,
        }
    }

    /// The chunk width for a layer of `nodes` nodes on `threads` threads: four chunks per
    /// thread, so that uneven chunks at the layer's end even out.
    fn chunk(&self, nodes: usize, threads: usize) -> usize {
        nodes.div_ceil(4 * threads.max(1)).max(self.width).max(1)
    }
}

pub(crate) fn price_tiled(
    contract: &Contract,
    precision: Precision,
    threads: usize,
    tiling: Tiling,
) -> Result<Priced> {
    let lattice = contract.validate()?;
    let pool = thicket_core::pool(threads)?;
    Ok(match precision {
        Precision::F32 => pool.install(|| {
            priced(&Scheme::<f32>::new(contract, &lattice), |s| {
                tiled(s, tiling, threads)
            })
        }),
        Precision::F64 => pool.install(|| {
            priced(&Scheme::<f64>::new(contract, &lattice), |s| {
                tiled(s, tiling, threads)
            })
        }),
    })
}

/// The arithmetic the lattices need, for `f32` and `f64`.
trait Real:
    Copy + Send + Sync + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    fn of(x: f64) -> Self;
    fn get(self) -> f64;
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn of(x: f64) -> f32 {
        x as f32
    }
    fn get(self) -> f64 {
        f64::from(self)
    }
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn of(x: f64) -> f64 {
        x
    }
    fn get(self) -> f64 {
        self
    }
}

/// The two weights x and 1 − x in `T`, summing to exactly 1: the larger is rounded and the
/// smaller is 1 minus it, which is exact (Sterbenz) because the larger lies in [0.5, 1].
fn complementary<T: Real>(x: f64) -> (T, T) {
    if x >= 0.5 {
        let a = T::of(x);
        (a, T::ONE - a)
    } else {
        let b = T::of(1.0 - x);
        (T::ONE - b, b)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    LookbackPut,
    LookbackCall,
    Call,
    Put,
}

/// One option's lattice in `T`: node (i, j) is `up`·old[j+1] + `down`·old[j−1] for the
/// lookbacks (old[max(j−1, 0)] for the call; `edge` replaces `down` at j = 0 for the put),
/// `up`·old[j+1] + `down`·old[j] for vanilla options, then maximised with its exercise value
/// if American.
struct Scheme<T> {
    kind: Kind,
    american: bool,
    steps: usize,
    up: T,
    down: T,
    edge: T,
    /// r·dt where the values are in bond units (exercise values grow by exp(r·dt) per layer
    /// back from maturity), 0 where they are in stock units.
    growth: f64,
    /// Exercise values: per j (lookbacks, `exercise[0]` only), or per stock level S·u^k for
    /// vanilla options, even k − N in `exercise[0]` (k = 2m − N) and odd in `exercise[1]`
    /// (k = 2m − N + 1), so that each layer's values are one contiguous run.
    exercise: [Vec<T>; 2],
    /// The option's market and lattice, for reading prices off the first layers.
    spot: f64,
    strike: f64,
    u: f64,
    d: f64,
}

impl<T: Real> Scheme<T> {
    fn new(contract: &Contract, lattice: &Lattice) -> Scheme<T> {
        let n = lattice.steps;
        let log_u = contract.market.volatility * lattice.dt.sqrt();
        let spot = contract.market.spot;
        let rate_dt = contract.market.rate * lattice.dt;
        // Units of S: the weights disc·p·u and disc·(1−p)·d sum to 1.
        let stock_weights = complementary::<T>(lattice.disc * lattice.p * lattice.u);
        // Units of a bond: the weights p and 1 − p.
        let (p, q) = complementary::<T>(lattice.p);
        let below_extreme = |j: usize| T::of(-(-(j as f64) * log_u).exp_m1());
        let by_j = |f: &dyn Fn(usize) -> T| (0..=n).map(f).collect::<Vec<T>>();
        let levels = |f: &dyn Fn(f64) -> f64| {
            [
                (0..=n)
                    .map(|m| T::of(f((2 * m) as f64 - n as f64)))
                    .collect(),
                (0..n)
                    .map(|m| T::of(f((2 * m + 1) as f64 - n as f64)))
                    .collect(),
            ]
        };
        let (kind, up, down, edge, growth, exercise, strike) = match contract.payoff {
            Payoff::LookbackPut => (
                Kind::LookbackPut,
                q,
                p,
                T::of(lattice.p * lattice.u),
                rate_dt,
                [by_j(&below_extreme), Vec::new()],
                f64::NAN,
            ),
            Payoff::LookbackCall => (
                Kind::LookbackCall,
                stock_weights.0,
                stock_weights.1,
                stock_weights.1,
                0.0,
                [by_j(&below_extreme), Vec::new()],
                f64::NAN,
            ),
            Payoff::Call { strike } => {
                let log_ks = (strike / spot).ln();
                (
                    Kind::Call,
                    stock_weights.0,
                    stock_weights.1,
                    stock_weights.1,
                    0.0,
                    levels(&|k| (1.0 - (log_ks - k * log_u).exp()).max(0.0)),
                    strike,
                )
            }
            Payoff::Put { strike } => {
                let log_sk = (spot / strike).ln();
                (
                    Kind::Put,
                    p,
                    q,
                    q,
                    rate_dt,
                    levels(&|k| (1.0 - (log_sk + k * log_u).exp()).max(0.0)),
                    strike,
                )
            }
        };
        Scheme {
            kind,
            american: contract.style == Style::American,
            steps: n,
            up,
            down,
            edge,
            growth,
            exercise,
            spot,
            strike,
            u: lattice.u,
            d: lattice.d,
        }
    }

    /// The exercise values of layer `i`, node j at index j.
    fn exercise_row(&self, i: usize) -> &[T] {
        match self.kind {
            Kind::LookbackPut | Kind::LookbackCall => &self.exercise[0],
            Kind::Call | Kind::Put => {
                let back = self.steps - i;
                &self.exercise[back % 2][back / 2..]
            }
        }
    }

    /// The factor exercise values of layer `i` are scaled by: exp(r·dt·(N−i)) in bond units.
    fn growth_at(&self, i: usize) -> T {
        T::of((self.growth * (self.steps - i) as f64).exp())
    }

    /// The leaves (layer N): the payoff.
    fn leaves(&self) -> Vec<T> {
        self.exercise_row(self.steps)[..=self.steps].to_vec()
    }

    /// Layer `i` at nodes `lo .. lo + new.len()` into `new`, from layer i + 1 in `old`, whose
    /// first value is node `base` of that layer.
    #[inline]
    fn step(&self, i: usize, lo: usize, new: &mut [T], old: &[T], base: usize) {
        let hi = lo + new.len();
        let g = self.growth_at(i);
        let exercise = &self.exercise_row(i)[lo..hi];
        match self.kind {
            Kind::LookbackPut | Kind::LookbackCall => {
                let start = usize::from(lo == 0);
                if lo == 0 {
                    // The boundary: a move that would set j to −1 sets a new extreme, j = 0.
                    let continuation = self.up * old[1] + self.edge * old[0];
                    new[0] = self.exercised(continuation, exercise[0], g);
                }
                let lo = lo + start;
                self.combine(
                    &mut new[start..],
                    &old[lo + 1 - base..hi + 1 - base],
                    &old[lo - 1 - base..hi - 1 - base],
                    &exercise[start..],
                    g,
                );
            }
            Kind::Call | Kind::Put => self.combine(
                new,
                &old[lo + 1 - base..hi + 1 - base],
                &old[lo - base..hi - base],
                exercise,
                g,
            ),
        }
    }

    /// The interior nodes: `up`·a + `down`·b, maximised with exercise·g if American.
    #[inline]
    fn combine(&self, new: &mut [T], above: &[T], below: &[T], exercise: &[T], g: T) {
        let (up, down) = (self.up, self.down);
        if self.american {
            for (((out, &a), &b), &e) in new.iter_mut().zip(above).zip(below).zip(exercise) {
                let continuation = up * a + down * b;
                let now = e * g;
                *out = if now > continuation {
                    now
                } else {
                    continuation
                };
            }
        } else {
            for ((out, &a), &b) in new.iter_mut().zip(above).zip(below) {
                *out = up * a + down * b;
            }
        }
    }

    #[inline]
    fn exercised(&self, continuation: T, exercise: T, g: T) -> T {
        let now = exercise * g;
        if self.american && now > continuation {
            now
        } else {
            continuation
        }
    }

    /// The price and greeks from layers 0, 1 and 2 (in `f64`; layer 2 is empty with one
    /// step).
    fn read_out(&self, top: &Top) -> Priced {
        let (s, u, d, k) = (self.spot, self.u, self.d, self.strike);
        // The factor from the lattice's bond units back to today's money at layer i.
        let bond = |i: f64| (-self.growth * (self.steps as f64 - i)).exp();
        let [l0, l1, l2] = &top.layers;
        let (d0, d1, d2) = (bond(0.0), bond(1.0), bond(2.0));
        // Values at layer 0, 1 (down, up) and 2 (down-down, middle, up-up).
        let (f, fd, fu) = match self.kind {
            Kind::LookbackPut => (s * l0[0] * d0, s * l1[1] * d1, s * u * l1[0] * d1),
            Kind::LookbackCall | Kind::Call => (s * l0[0], s * d * l1[0], s * u * l1[1]),
            Kind::Put => (k * l0[0] * d0, k * l1[0] * d1, k * l1[1] * d1),
        };
        let delta = (fu - fd) / (s * u - s * d);
        let gamma = if l2.len() < 3 {
            0.0
        } else {
            let (fdd, fud, fuu) = match self.kind {
                Kind::LookbackPut => (
                    s * l2[2] * d2,
                    0.5 * (s * u * l2[1] + s * l2[0]) * d2,
                    s * u * u * l2[0] * d2,
                ),
                Kind::LookbackCall => (
                    s * d * d * l2[0],
                    0.5 * s * (l2[0] + l2[1]),
                    s * u * u * l2[2],
                ),
                Kind::Call => (s * d * d * l2[0], s * l2[1], s * u * u * l2[2]),
                Kind::Put => (k * l2[0] * d2, k * l2[1] * d2, k * l2[2] * d2),
            };
            let (suu, sdd) = (s * u * u, s * d * d);
            ((fuu - fud) / (suu - s) - (fud - fdd) / (s - sdd)) / (0.5 * (suu - sdd))
        };
        Priced {
            price: f,
            delta,
            gamma,
        }
    }
}

/// Layers 0, 1 and 2 of a finished induction, in `f64`.
#[derive(Default)]
struct Top {
    layers: [Vec<f64>; 3],
}

impl Top {
    fn capture<T: Real>(&mut self, i: usize, layer: &[T]) {
        if i <= 2 {
            self.layers[i] = layer[..=i].iter().map(|v| v.get()).collect();
        }
    }
}

/// The parameter record of the GPU tile kernel for `contract` in `precision` (offsets
/// `P_*` of [`crate::kernels`]): the same weights and units as the CPU lattice.
pub(crate) fn gpu_record(contract: &Contract, precision: Precision) -> Result<Vec<f64>> {
    let lattice = contract.validate()?;
    Ok(match precision {
        Precision::F32 => Scheme::<f32>::new(contract, &lattice).gpu_record(contract, &lattice),
        Precision::F64 => Scheme::<f64>::new(contract, &lattice).gpu_record(contract, &lattice),
    })
}

/// The price and greeks of `contract` from its layers 0, 1 and 2 (node values in the CPU
/// lattice's units, as the GPU kernels report them).
pub(crate) fn read_out_layers(contract: &Contract, layers: [Vec<f64>; 3]) -> Result<Priced> {
    let lattice = contract.validate()?;
    Ok(Scheme::<f64>::new(contract, &lattice).read_out(&Top { layers }))
}

impl<T: Real> Scheme<T> {
    fn gpu_record(&self, contract: &Contract, lattice: &Lattice) -> Vec<f64> {
        use crate::kernels::*;
        let log_u = contract.market.volatility * lattice.dt.sqrt();
        let spot = contract.market.spot;
        let (kind, x_log, x_sign) = match contract.payoff {
            Payoff::LookbackPut | Payoff::LookbackCall => (KIND_LOOKBACK, 0.0, 0.0),
            Payoff::Call { strike } => (KIND_VANILLA, (strike / spot).ln(), -1.0),
            Payoff::Put { strike } => (KIND_VANILLA, (spot / strike).ln(), 1.0),
        };
        let mut record = vec![0.0; PARAM_DOUBLES];
        record[P_UP] = self.up.get();
        record[P_DOWN] = self.down.get();
        record[P_EDGE] = self.edge.get();
        record[P_GROWTH] = self.growth;
        record[P_LOG_U] = log_u;
        record[P_X_LOG] = x_log;
        record[P_X_SIGN] = x_sign;
        record[P_STEPS] = self.steps as f64;
        record[P_KIND] = kind as f64;
        record[P_AMERICAN] = f64::from(u8::from(self.american));
        record
    }
}

fn priced<T: Real>(scheme: &Scheme<T>, run: impl FnOnce(&Scheme<T>) -> Top) -> Priced {
    scheme.read_out(&run(scheme))
}

fn serial<T: Real>(scheme: &Scheme<T>) -> Top {
    let n = scheme.steps;
    let mut cur = scheme.leaves();
    let mut next = vec![T::ZERO; n + 1];
    let mut top = Top::default();
    top.capture(n, &cur);
    descend(scheme, n, &mut cur, &mut next, &mut top);
    top
}

/// Layers `from − 1` down to 0, one after the other; `cur` holds layer `from`.
fn descend<T: Real>(
    scheme: &Scheme<T>,
    from: usize,
    cur: &mut Vec<T>,
    next: &mut Vec<T>,
    top: &mut Top,
) {
    for i in (0..from).rev() {
        scheme.step(i, 0, &mut next[..=i], cur, 0);
        std::mem::swap(cur, next);
        top.capture(i, cur);
    }
}

/// The time-tiled induction (see [`price_multicore`]), inside the caller's pool.
fn tiled<T: Real>(scheme: &Scheme<T>, tiling: Tiling, threads: usize) -> Top {
    let n = scheme.steps;
    let mut cur = scheme.leaves();
    let mut next = vec![T::ZERO; n + 1];
    let mut top = Top::default();
    top.capture(n, &cur);
    // At least layers 1 and 0 run serially, so a block never ends below layer 2.
    let tail = tiling.tail.max(2);
    let mut i0 = n;
    while i0 > tail {
        let depth = tiling.depth.max(1).min(i0 - tail);
        let i1 = i0 - depth;
        let width = tiling.chunk(i1 + 1, threads);
        let old = &cur[..=i0];
        next[..=i1].par_chunks_mut(width).enumerate().for_each_init(
            || (Vec::new(), Vec::new()),
            |(buffer, spare), (c, out)| {
                block(scheme, old, i0, depth, c * width, out, buffer, spare);
            },
        );
        std::mem::swap(&mut cur, &mut next);
        top.capture(i1, &cur);
        i0 = i1;
    }
    descend(scheme, i0, &mut cur, &mut next, &mut top);
    top
}

/// One chunk of one block: nodes `a .. a + out.len()` of layer `i0 − depth`, from layer `i0`
/// in `old`. Layer i0 − t is computed on the chunk widened by depth − t nodes on each side
/// (clipped to the layer), exactly what the next layer down reads.
#[allow(clippy::too_many_arguments)]
fn block<T: Real>(
    scheme: &Scheme<T>,
    old: &[T],
    i0: usize,
    depth: usize,
    a: usize,
    out: &mut [T],
    buffer: &mut Vec<T>,
    spare: &mut Vec<T>,
) {
    let b = a + out.len();
    // Sized once per task and never cleared: zero-filling each layer would cost a pass.
    let span = out.len() + 2 * depth;
    for scratch in [&mut *buffer, &mut *spare] {
        if scratch.len() < span {
            scratch.resize(span, T::ZERO);
        }
    }
    let mut base = a.saturating_sub(depth);
    let first = &old[base..(b + depth).min(i0 + 1)];
    buffer[..first.len()].copy_from_slice(first);
    let mut len = first.len();
    for t in 1..depth {
        let i = i0 - t;
        let lo = a.saturating_sub(depth - t);
        let hi = (b + depth - t).min(i + 1);
        scheme.step(i, lo, &mut spare[..hi - lo], &buffer[..len], base);
        std::mem::swap(buffer, spare);
        (base, len) = (lo, hi - lo);
    }
    scheme.step(i0 - depth, a, out, &buffer[..len], base);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Market;
    use crate::verify::{black_scholes, exhaustive, goldman_sosin_gatto, hull_tn13};

    fn lookback(payoff: Payoff, style: Style, m: [f64; 4], steps: usize) -> Contract {
        Contract {
            payoff,
            style,
            market: Market {
                spot: m[0],
                maturity: m[1],
                volatility: m[2],
                rate: m[3],
            },
            steps,
        }
    }

    fn price(contract: &Contract) -> f64 {
        price_serial(contract, Precision::F64).unwrap().price
    }

    fn close(got: f64, want: f64, relative: f64) -> bool {
        (got - want).abs() <= relative * want.abs()
    }

    /// The rows of a reference CSV as (column name → field) maps.
    fn rows(text: &str) -> Vec<Vec<(String, String)>> {
        let mut lines = text.lines();
        let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
        lines
            .map(|line| {
                header
                    .iter()
                    .cloned()
                    .zip(line.split(',').map(String::from))
                    .collect()
            })
            .collect()
    }

    fn get(row: &[(String, String)], column: &str) -> f64 {
        row.iter()
            .find(|(c, _)| c == column)
            .unwrap()
            .1
            .parse()
            .unwrap()
    }

    /// Checks the American and European lookback puts of every row with at most `max_steps`
    /// (and more than `min_steps`) against the high-precision columns, to 1e-9 relative.
    fn check_reference(text: &str, min_steps: usize, max_steps: usize) -> usize {
        let mut checked = 0;
        for row in rows(text) {
            let steps = get(&row, "N") as usize;
            if steps <= min_steps || steps > max_steps {
                continue;
            }
            let m = [
                get(&row, "S"),
                get(&row, "T"),
                get(&row, "sigma"),
                get(&row, "r"),
            ];
            for (style, column) in [
                (Style::American, "american_hp"),
                (Style::European, "european_hp"),
            ] {
                let got = price(&lookback(Payoff::LookbackPut, style, m, steps));
                let want = get(&row, column);
                assert!(
                    close(got, want, 1e-9),
                    "{row:?} {style:?}: {got}, want {want}"
                );
            }
            checked += 1;
        }
        checked
    }

    const REFERENCE: &str = include_str!("../data/lookback-reference.csv");
    const SMALL_N: &str = include_str!("../data/lookback-small-n.csv");

    #[test]
    fn every_small_n_row_matches_its_high_precision_value() {
        assert_eq!(check_reference(SMALL_N, 0, usize::MAX), 36);
    }

    #[test]
    fn the_reference_rows_up_to_5000_steps_match() {
        assert_eq!(check_reference(REFERENCE, 0, 5_000), 6);
    }

    #[test]
    #[ignore = "slow in debug builds: lattices of 10,000 to 100,000 steps"]
    fn the_reference_rows_above_5000_steps_match() {
        assert_eq!(check_reference(REFERENCE, 5_000, usize::MAX), 6);
    }

    #[test]
    fn hulls_example_is_5_47() {
        let got = price(&hull_tn13());
        assert!((got - 5.470_181_376_1).abs() < 1e-10, "{got}");
    }

    /// The README's recursion, literally: C[i][j] in units of S with u^j formed.
    fn c_form(contract: &Contract) -> Vec<Vec<f64>> {
        let l = contract.validate().unwrap();
        let n = contract.steps;
        let american = contract.style == Style::American;
        let mut layers = vec![(0..=n)
            .map(|j| l.u.powi(j as i32) - 1.0)
            .collect::<Vec<_>>()];
        for i in (0..n).rev() {
            let c = layers.last().unwrap();
            let layer = (0..=i)
                .map(|j| {
                    let below = if j == 0 { c[0] } else { c[j - 1] };
                    let continuation = l.disc * ((1.0 - l.p) * l.d * c[j + 1] + l.p * l.u * below);
                    let exercise = l.u.powi(j as i32) - 1.0;
                    if american && exercise > continuation {
                        exercise
                    } else {
                        continuation
                    }
                })
                .collect();
            layers.push(layer);
        }
        layers.reverse();
        layers
    }

    #[test]
    fn the_normalised_lookback_put_equals_the_readmes_recursion() {
        for steps in 1..=40 {
            for style in [Style::American, Style::European] {
                let contract = lookback(Payoff::LookbackPut, style, [50.0, 0.35, 0.3, 0.1], steps);
                let c = c_form(&contract);
                let s = contract.market.spot;
                let got = price_serial(&contract, Precision::F64).unwrap();
                assert!(close(got.price, s * c[0][0], 1e-12), "{steps} {style:?}");
                if steps < 2 {
                    continue;
                }
                // The greeks from the C form: a node's value is S_node · C[i][j].
                let l = contract.validate().unwrap();
                let (u, d) = (l.u, l.d);
                let (fu, fd) = (s * u * c[1][0], s * d * c[1][1]);
                let delta = (fu - fd) / (s * u - s * d);
                let (fuu, fdd) = (s * u * u * c[2][0], s * d * d * c[2][2]);
                // Up-down has its maximum one step above the stock, down-up at the stock.
                let fud = 0.5 * (s * c[2][1] + s * c[2][0]);
                let gamma = ((fuu - fud) / (s * u * u - s) - (fud - fdd) / (s - s * d * d))
                    / (0.5 * (s * u * u - s * d * d));
                assert!(
                    (got.delta - delta).abs() < 1e-11,
                    "{steps}: {got:?} {delta}"
                );
                assert!(
                    (got.gamma - gamma).abs() < 1e-10,
                    "{steps}: {got:?} {gamma}"
                );
            }
        }
    }

    fn payoffs() -> [Payoff; 4] {
        [
            Payoff::LookbackPut,
            Payoff::LookbackCall,
            Payoff::Call { strike: 52.0 },
            Payoff::Put { strike: 52.0 },
        ]
    }

    #[test]
    fn every_payoff_equals_brute_force_over_all_paths() {
        for payoff in payoffs() {
            for style in [Style::American, Style::European] {
                for m in [
                    [50.0, 0.25, 0.4, 0.1],
                    [50.0, 1.0, 0.3, 0.03],
                    [50.0, 0.5, 0.2, -0.02],
                ] {
                    for steps in 1..=12 {
                        let contract = lookback(payoff, style, m, steps);
                        let (got, want) = (price(&contract), exhaustive(&contract).unwrap());
                        assert!(
                            close(got, want, 1e-12),
                            "{payoff:?} {style:?} {m:?} N={steps}: {got}, want {want}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_small_n_rows_up_to_14_steps_equal_brute_force() {
        for row in rows(SMALL_N) {
            let steps = get(&row, "N") as usize;
            if steps > 14 {
                continue;
            }
            let m = [
                get(&row, "S"),
                get(&row, "T"),
                get(&row, "sigma"),
                get(&row, "r"),
            ];
            for (style, column) in [
                (Style::American, "american_hp"),
                (Style::European, "european_hp"),
            ] {
                let brute = exhaustive(&lookback(Payoff::LookbackPut, style, m, steps)).unwrap();
                let want = get(&row, column);
                assert!(close(brute, want, 1e-12), "{row:?}: {brute}, want {want}");
            }
        }
    }

    #[test]
    fn the_european_lookback_put_approaches_goldman_sosin_gatto() {
        let m = [50.0, 0.35, 0.3, 0.1];
        let gsg = goldman_sosin_gatto(
            &lookback(Payoff::LookbackPut, Style::European, m, 1).market,
            false,
        );
        let gaps: Vec<f64> = [100, 1_000, 10_000]
            .iter()
            .map(|&n| gsg - price(&lookback(Payoff::LookbackPut, Style::European, m, n)))
            .collect();
        // The README's gaps: 0.4807, 0.1565, 0.0500 (shrinking like sqrt(dt)).
        assert!(
            gaps[0] > gaps[1] && gaps[1] > gaps[2] && gaps[2] > 0.0,
            "{gaps:?}"
        );
        assert!((gaps[2] - 0.049_961_533_6).abs() < 1e-8, "{gaps:?}");
    }

    #[test]
    fn the_european_lookback_call_approaches_goldman_sosin_gatto() {
        let m = [50.0, 0.35, 0.3, 0.1];
        let market = lookback(Payoff::LookbackCall, Style::European, m, 1).market;
        let gsg = goldman_sosin_gatto(&market, true);
        let gaps: Vec<f64> = [100, 1_000, 10_000]
            .iter()
            .map(|&n| gsg - price(&lookback(Payoff::LookbackCall, Style::European, m, n)))
            .collect();
        assert!(
            gaps[0] > gaps[1] && gaps[1] > gaps[2] && gaps[2] > 0.0,
            "{gaps:?}"
        );
        // The gap shrinks like sqrt(dt): by about sqrt(10) from 1,000 to 10,000 steps.
        assert!((2.9..3.4).contains(&(gaps[1] / gaps[2])), "{gaps:?}");
    }

    #[test]
    fn the_american_lookback_call_is_never_exercised_early() {
        for m in [
            [50.0, 0.35, 0.3, 0.1],
            [25.0, 2.0, 0.5, 0.0],
            [40.0, 1.0, 0.2, 0.05],
        ] {
            for steps in [1, 2, 7, 100, 1_001] {
                let american = price_serial(
                    &lookback(Payoff::LookbackCall, Style::American, m, steps),
                    Precision::F64,
                )
                .unwrap();
                let european = price_serial(
                    &lookback(Payoff::LookbackCall, Style::European, m, steps),
                    Precision::F64,
                )
                .unwrap();
                assert!(
                    close(american.price, european.price, 1e-13),
                    "{m:?} {steps}"
                );
                assert!((american.delta - european.delta).abs() < 1e-12);
                assert!((american.gamma - european.gamma).abs() < 1e-10);
            }
        }
    }

    #[test]
    fn crr_european_approaches_black_scholes_with_its_greeks() {
        let m = [42.0, 0.5, 0.2, 0.1];
        for (strike, call) in [(40.0, true), (40.0, false), (45.0, true), (45.0, false)] {
            let payoff = if call {
                Payoff::Call { strike }
            } else {
                Payoff::Put { strike }
            };
            let market = lookback(payoff, Style::European, m, 1).market;
            let bs = black_scholes(&market, strike, call);
            let errors: Vec<f64> = [100, 1_000, 4_000]
                .iter()
                .map(|&n| (price(&lookback(payoff, Style::European, m, n)) - bs).abs())
                .collect();
            assert!(errors[2] < 2e-3 && errors[2] < errors[0], "{errors:?}");
            // Delta N(d1) (call) or N(d1) − 1 (put), gamma φ(d1)/(S·σ·sqrt(T)).
            let (s, t, sigma, r) = (m[0], m[1], m[2], m[3]);
            let d1 = ((s / strike).ln() + (r + 0.5 * sigma * sigma) * t) / (sigma * t.sqrt());
            let delta = crate::verify::normal(d1) - if call { 0.0 } else { 1.0 };
            let gamma = crate::verify::density(d1) / (s * sigma * t.sqrt());
            let got =
                price_serial(&lookback(payoff, Style::European, m, 4_000), Precision::F64).unwrap();
            assert!((got.delta - delta).abs() < 1e-3, "{got:?} {delta}");
            assert!((got.gamma - gamma).abs() < 1e-3, "{got:?} {gamma}");
        }
    }

    #[test]
    fn the_american_vanilla_call_equals_the_european_and_the_put_is_worth_more() {
        let m = [42.0, 0.5, 0.2, 0.1];
        let call = |style| price(&lookback(Payoff::Call { strike: 40.0 }, style, m, 500));
        let put = |style| price(&lookback(Payoff::Put { strike: 40.0 }, style, m, 500));
        assert!(close(call(Style::American), call(Style::European), 1e-13));
        assert!(put(Style::American) > put(Style::European) + 1e-3);
    }

    fn assert_tiled_equals_serial(steps: usize, tilings: &[Tiling], threads: &[usize]) {
        for payoff in payoffs() {
            for style in [Style::American, Style::European] {
                let contract = lookback(payoff, style, [50.0, 0.75, 0.3, 0.1], steps);
                for precision in [Precision::F64, Precision::F32] {
                    let serial = price_serial(&contract, precision).unwrap();
                    for &tiling in tilings {
                        for &t in threads {
                            let tiled = price_tiled(&contract, precision, t, tiling).unwrap();
                            assert_eq!(
                                serial, tiled,
                                "{payoff:?} {style:?} {precision} {tiling:?} {t} threads"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn multicore_equals_serial_exactly_on_1000_steps() {
        let tilings = [
            Tiling {
                depth: 7,
                width: 37,
                tail: 2,
            },
            Tiling {
                depth: 64,
                width: 100,
                tail: 3,
            },
            Tiling {
                depth: 1,
                width: 1,
                tail: 2,
            },
            Tiling::standard(),
        ];
        assert_tiled_equals_serial(1_000, &tilings, &[1, 3, 4]);
        assert_tiled_equals_serial(5, &tilings, &[2]);
        let contract = lookback(
            Payoff::LookbackPut,
            Style::American,
            [50.0, 0.35, 0.3, 0.1],
            1_000,
        );
        assert_eq!(
            price_multicore(&contract, Precision::F64, 3).unwrap(),
            price_serial(&contract, Precision::F64).unwrap()
        );
    }

    #[test]
    fn multicore_equals_serial_exactly_on_20000_steps_for_one_case() {
        let contract = lookback(
            Payoff::LookbackPut,
            Style::American,
            [25.0, 0.75, 0.3, 0.1],
            20_000,
        );
        let tiling = Tiling {
            depth: 61,
            width: 777,
            tail: 2,
        };
        assert_eq!(
            price_tiled(&contract, Precision::F64, 3, tiling).unwrap(),
            price_serial(&contract, Precision::F64).unwrap()
        );
    }

    #[test]
    #[ignore = "slow in debug builds: 20,000 steps, many thread counts"]
    fn multicore_equals_serial_exactly_on_20000_steps() {
        let tilings = [
            Tiling {
                depth: 61,
                width: 777,
                tail: 2,
            },
            Tiling::standard(),
        ];
        assert_tiled_equals_serial(20_000, &tilings, &[2, 5, 8]);
    }

    /// The lookback put in `f32` against `f64` on the reference rows up to `max_steps`.
    fn f32_error(min_steps: usize, max_steps: usize) -> f64 {
        let mut worst: f64 = 0.0;
        for row in rows(REFERENCE) {
            let steps = get(&row, "N") as usize;
            if steps <= min_steps || steps > max_steps {
                continue;
            }
            let m = [
                get(&row, "S"),
                get(&row, "T"),
                get(&row, "sigma"),
                get(&row, "r"),
            ];
            for style in [Style::American, Style::European] {
                let contract = lookback(Payoff::LookbackPut, style, m, steps);
                let single = price_serial(&contract, Precision::F32).unwrap().price;
                let double = price(&contract);
                assert!(
                    (single - double).abs() < 1e-3,
                    "{row:?} {style:?}: {single} vs {double}"
                );
                worst = worst.max((single - double).abs());
            }
        }
        worst
    }

    #[test]
    fn f32_is_within_1e3_of_f64_up_to_5000_steps() {
        assert!(f32_error(0, 5_000) < 1e-3);
    }

    #[test]
    #[ignore = "slow in debug builds: 10,000 to 30,000 steps"]
    fn f32_is_within_1e3_of_f64_up_to_30000_steps() {
        assert!(f32_error(5_000, 30_000) < 1e-3);
    }

    #[test]
    #[ignore = "slow in debug builds: 100,000 steps"]
    fn vanilla_options_work_in_f32_on_100000_steps() {
        for payoff in [Payoff::Call { strike: 50.0 }, Payoff::Put { strike: 50.0 }] {
            for m in [[50.0, 1.0, 0.3, 0.05], [50.0, 10.0, 1.0, 0.05]] {
                let contract = lookback(payoff, Style::American, m, 100_000);
                let single = price_serial(&contract, Precision::F32).unwrap();
                let double = price_serial(&contract, Precision::F64).unwrap();
                assert!(single.price.is_finite() && single.delta.is_finite());
                assert!(
                    (single.price - double.price).abs() < 1e-2,
                    "{single:?} {double:?}"
                );
            }
        }
    }

    #[test]
    fn a_batch_prices_each_option_as_serial_does() {
        let contracts: Vec<Contract> = payoffs()
            .into_iter()
            .flat_map(|payoff| {
                [Style::American, Style::European]
                    .map(|style| lookback(payoff, style, [50.0, 0.5, 0.3, 0.05], 300))
            })
            .collect();
        let batch = price_batch(&contracts, Precision::F64, 3).unwrap();
        for (contract, priced) in contracts.iter().zip(&batch) {
            assert_eq!(*priced, price_serial(contract, Precision::F64).unwrap());
        }
        let mut bad = contracts.clone();
        bad[5].market.volatility = -1.0;
        bad[7].steps = 0;
        let err = price_batch(&bad, Precision::F64, 2).unwrap_err();
        assert!(
            err.to_string().contains("option 6 of 8: volatility is -1"),
            "{err}"
        );
        assert!(price_batch(&contracts, Precision::F64, 0).is_err());
    }

    #[test]
    fn one_step_has_a_delta_and_zero_gamma() {
        for payoff in payoffs() {
            let got = price_serial(
                &lookback(payoff, Style::American, [50.0, 0.25, 0.4, 0.1], 1),
                Precision::F64,
            )
            .unwrap();
            assert!(
                got.price.is_finite() && got.delta.is_finite(),
                "{payoff:?} {got:?}"
            );
            assert_eq!(got.gamma, 0.0);
        }
    }

    #[test]
    fn precisions_read_and_print_as_f32_and_f64() {
        for p in [Precision::F32, Precision::F64] {
            assert_eq!(p.to_string().parse::<Precision>().unwrap(), p);
        }
        assert_eq!(Precision::F32.to_string(), "f32");
        let err = "f16".parse::<Precision>().unwrap_err();
        assert!(err.to_string().contains("\"f16\""), "{err}");
    }
}
