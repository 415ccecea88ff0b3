//! What every lattice shares, CPU and GPU: the working precision, the answer ([`Priced`]),
//! each option's weights and exercise values in units that stay near [0, 1] ([`Scheme`]), one
//! layer's update, and the price and greeks read off the first layers ([`read_out`]). The
//! algorithms that walk the layers are [`crate::cpu::serial`], [`crate::cpu::multicore`] and
//! [`crate::cpu::books`]; the GPU's kernels derive the same weights on the device
//! (`lattice_records_*` in kernels/tiles.cu).
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
//! (without the max if European). The weights sum to disc·(p·u + (1−p)·d) = exp(−q·dt): 1
//! without dividends. With a dividend yield q the lattice carries
//! `W[i][j] = C[i][j]·exp(q·dt·(N−i))` (units of the stock with its dividends reinvested to
//! maturity), whose weights disc·p·u·exp(q·dt) and disc·(1−p)·d·exp(q·dt) sum to 1, with
//! exercise value (1 − d^j)·exp(q·dt·(N−i)) and price `S·W[0][0]·exp(−q·T)`.
//!
//! **Dividends** enter every lattice through p = (exp((r − q)·dt) − d)/(u − d) only, and the
//! stock-unit lattices (lookback call, vanilla call) through the factor exp(q·dt) above; the
//! bond-unit ones (lookback put, vanilla put) keep their weights p and 1 − p. With q = 0 every
//! factor is exactly 1 and every price is what it was without the dividend input.
//!
//! **Vanilla call**: node j of layer i has the stock at S·u^(2j−i); in units of that price
//! (times exp(−q·(T−t)), as for the lookback call) the exercise value is
//! max(0, 1 − K/(S·u^(2j−i)))·exp(q·dt·(N−i)) and the weights are disc·p·u·exp(q·dt) and
//! disc·(1−p)·d·exp(q·dt).
//!
//! **Vanilla put**: in units of K·exp(−r·(T−t)) the exercise value is
//! max(0, 1 − S·u^(2j−i)/K)·exp(r·dt·(N−i)) and the weights are p and 1−p.
//!
//! Exercise values are computed once in `f64` per j (lookbacks) or per stock level
//! (vanilla), with exp of j·ln u, then rounded to the working precision.
//!
//! **Other trees** (`crate::Tree`, vanillas only) keep these units and weights with their own
//! u, d and risk-neutral p; where u·d ≠ 1 the stock levels drift from layer to layer, so an
//! American option's exercise values are made per layer from one `f64` table by level
//! (`Drift`).
//!
//! **A seasoned lookback** (an observed extreme j states from the spot) runs the same lattice
//! with `today` more layers before today and reads its price at layer `today`, whose node j
//! is the option in state j with N steps to go (the recursion does not depend on the layer).
//!
//! # Greeks
//!
//! Delta and gamma are Hull's finite differences on the first two layers:
//! delta = (f_u − f_d)/(S_u − S_d) and gamma = ((f_uu − f_ud)/(S_uu − S) −
//! (f_ud − f_dd)/(S − S_dd)) / (0.5·(S_uu − S_dd)). For a lookback, the middle node of layer 2
//! (stock back at S) is reached by up-down and down-up, which set different running extremes
//! and so have different values; both paths have probability p(1−p), so f_ud is their mean.
//! With one step there is no layer 2 and gamma is 0.
//!
//! Theta is Hull's (f_ud − f)/(2·dt): the middle node of layer 2 has the stock back at S two
//! steps later (0 with one step). For a lookback that node is two states, and theta takes the
//! one whose running extreme is still S (down-up for the put, up-down for the call), the
//! state the option is in today; gamma's mean of the two would bias it. Vega and rho need other lattices: the front door re-prices
//! the option at σ ± h and r ± h (`crate::greeks`).

use std::fmt;
use std::ops::{Add, Mul, Sub};
use std::str::FromStr;

use serde::Serialize;
use thicket_core::{Error, Result};

use crate::contract::{Lattice, Payoff, Seasoning, Style, ValidContract};
use crate::trees::Tree;

pub(crate) mod read_out;

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

/// The price of one option and its sensitivities, all in `f64`, per unit of the input (per
/// year for theta, per unit of volatility for vega, per unit of rate for rho: a vega of 12
/// means +0.12 for a volatility one point higher).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Priced {
    /// The option's value today.
    pub price: f64,
    /// d price / d spot, from the first layer (see the module documentation).
    pub delta: f64,
    /// d² price / d spot², from the second layer; 0 with one step.
    pub gamma: f64,
    /// d price / d time (the value's change per year as the calendar runs, the spot fixed),
    /// from the middle node of the second layer; 0 with one step.
    pub theta: f64,
    /// d price / d volatility, by re-pricing the lattice at bumped volatilities (central
    /// differences); `None` where it was not asked for ([`crate::PriceOptions`]) or a bumped
    /// lattice is invalid.
    pub vega: Option<f64>,
    /// d price / d rate, by re-pricing at bumped rates; `None` as for `vega`.
    pub rho: Option<f64>,
}

/// The arithmetic the lattices need, for `f32` and `f64`.
pub(crate) trait Real:
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
pub(crate) enum Kind {
    LookbackPut,
    LookbackCall,
    Call,
    Put,
}

/// One option's lattice in `T`: node (i, j) is `up`·old[j+1] + `down`·old[j−1] for the
/// lookbacks (old[max(j−1, 0)] for the call; `edge` replaces `down` at j = 0 for the put),
/// `up`·old[j+1] + `down`·old[j] for vanilla options, then maximised with its exercise value
/// if American.
pub(crate) struct Scheme<T> {
    kind: Kind,
    american: bool,
    pub(crate) steps: usize,
    up: T,
    down: T,
    edge: T,
    /// r·dt where the values are in bond units, q·dt where they are in units of the stock
    /// with its dividends reinvested (exercise values grow by exp(growth) per layer back from
    /// maturity; 0 in stock units without dividends).
    growth: f64,
    /// Exercise values: per j (lookbacks, `exercise[0]` only), or per stock level S·u^k for
    /// vanilla options, even k − N in `exercise[0]` (k = 2m − N) and odd in `exercise[1]`
    /// (k = 2m − N + 1), so that each layer's values are one contiguous run.
    exercise: [Vec<T>; 2],
    /// The exercise values of a vanilla option on a drifted tree (u·d ≠ 1), whose stock
    /// levels shift from layer to layer; `None` on CRR.
    drift: Option<Drift>,
    /// The layer that is today: 0, or for a seasoned lookback the layer of the extended
    /// lattice (`steps` = N + today) whose nodes are the states N steps from maturity.
    pub(crate) today: usize,
    /// Where a lookback's observed extreme puts it on the lattice today.
    seasoning: Seasoning,
    /// The option's market and lattice, for reading prices off the first layers.
    log_u: f64,
    spot: f64,
    strike: f64,
    u: f64,
    d: f64,
    dt: f64,
}

impl<T: Real> Scheme<T> {
    /// The whole lattice: weights and exercise values.
    pub(crate) fn new(valid: &ValidContract) -> Scheme<T> {
        Scheme::build(valid, true)
    }

    /// The weights and units without the exercise values (N + 1 exponentials): all that
    /// reading a price off the first layers needs.
    fn weights(valid: &ValidContract) -> Scheme<T> {
        Scheme::build(valid, false)
    }

    fn build(valid: &ValidContract, with_exercise: bool) -> Scheme<T> {
        let (contract, lattice) = (valid.contract(), valid.lattice());
        // A seasoned lookback's lattice starts `today` layers earlier, so that today's layer
        // holds every state up to the ones it is read at.
        let seasoning = valid.seasoning();
        let today = seasoning.extra();
        // Without exercise values every layer is empty (n + 1 = 0 values of each).
        let n = lattice.steps + today;
        let values = if with_exercise { n + 1 } else { 0 };
        let log_u = contract.market.volatility * lattice.dt.sqrt();
        let spot = contract.market.spot;
        let rate_dt = contract.market.rate * lattice.dt;
        let yield_dt = contract.market.dividend_yield * lattice.dt;
        // Units of S·exp(−q·(T−t)): the weights disc·p·u·exp(q·dt) and disc·(1−p)·d·exp(q·dt)
        // sum to 1 (exp(0) = 1 exactly: without dividends the weights are unchanged).
        let stock_weights =
            complementary::<T>(lattice.disc * lattice.p * lattice.u * yield_dt.exp());
        // Units of a bond: the weights p and 1 − p.
        let (p, q) = complementary::<T>(lattice.p);
        let below_extreme = |j: usize| T::of(-(-(j as f64) * log_u).exp_m1());
        let by_j = |f: &dyn Fn(usize) -> T| (0..values).map(f).collect::<Vec<T>>();
        let levels = |f: &dyn Fn(f64) -> f64| {
            [
                (0..values)
                    .map(|m| T::of(f((2 * m) as f64 - n as f64)))
                    .collect(),
                (0..values.saturating_sub(1))
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
                yield_dt,
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
                    yield_dt,
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
        let drift = match (contract.tree, contract.payoff) {
            (Tree::Crr, _) | (_, Payoff::LookbackPut | Payoff::LookbackCall) => None,
            (_, Payoff::Call { strike }) => Some(Drift::new(
                lattice,
                (strike / spot).ln(),
                -1.0,
                with_exercise,
            )),
            (_, Payoff::Put { strike }) => Some(Drift::new(
                lattice,
                (spot / strike).ln(),
                1.0,
                with_exercise,
            )),
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
            drift,
            today,
            seasoning,
            log_u,
            spot,
            strike,
            u: lattice.u,
            d: lattice.d,
            dt: lattice.dt,
        }
    }

    /// The exercise values of layer `i`, node j at index j.
    pub(crate) fn exercise_row(&self, i: usize) -> &[T] {
        match self.kind {
            Kind::LookbackPut | Kind::LookbackCall => &self.exercise[0],
            Kind::Call | Kind::Put => {
                let back = self.steps - i;
                &self.exercise[back % 2][back / 2..]
            }
        }
    }

    /// The factor exercise values of layer `i` are scaled by: exp(r·dt·(N−i)) in bond units.
    pub(crate) fn growth_at(&self, i: usize) -> T {
        T::of((self.growth * (self.steps - i) as f64).exp())
    }

    /// The leaves (layer N): the payoff.
    pub(crate) fn leaves(&self) -> Vec<T> {
        match &self.drift {
            Some(drift) => drift.exercise(self.steps, 0, self.steps + 1),
            None => self.exercise_row(self.steps)[..=self.steps].to_vec(),
        }
    }

    /// The nodes `lo ..= hi` of layer `i` (at or above today's) that today's price and greeks
    /// depend on: all of them where the lattice starts today; for a seasoned lookback the
    /// states within i − today steps of the one or two read today, so that a far extreme
    /// costs memory for its states but no work for them.
    pub(crate) fn window(&self, i: usize) -> (usize, usize) {
        let reach = i - self.today;
        let Seasoning { state, weight } = self.seasoning;
        let top = state + usize::from(weight > 0.0) + reach;
        (state.saturating_sub(reach), top.min(i))
    }

    /// Layer `i` at nodes `lo .. lo + new.len()` into `new`, from layer i + 1 in `old`, whose
    /// first value is node `base` of that layer.
    #[inline]
    pub(crate) fn step(&self, i: usize, lo: usize, new: &mut [T], old: &[T], base: usize) {
        let hi = lo + new.len();
        let g = self.growth_at(i);
        let drifted;
        let exercise = match &self.drift {
            None => &self.exercise_row(i)[lo..hi],
            Some(drift) if self.american => {
                drifted = drift.exercise(i, lo, hi);
                &drifted[..]
            }
            // A European option's layers never read exercise values.
            Some(_) => &[],
        };
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
}

/// The exercise values of a vanilla option on a drifted tree: at node j of layer i the
/// stock is S·exp(i·a + (2j − i)·b), a and b the mean and half the difference of ln u and
/// ln d, so the exercise value (in the lattice's units, before its growth) is
/// max(0, 1 − exp(±i·a)·x[2j − i]) with x per stock level, computed once in `f64`.
struct Drift {
    /// x by level 2j − i, at index 2j − i + N.
    levels: Vec<f64>,
    /// ±a: the exponent the level's x is scaled by per layer.
    per_layer: f64,
    steps: usize,
}

impl Drift {
    /// `log_ratio` is ln(S/K) (a put, `sign` 1) or ln(K/S) (a call, `sign` −1).
    fn new(lattice: &Lattice, log_ratio: f64, sign: f64, with_exercise: bool) -> Drift {
        let (log_up, log_down) = (lattice.u.ln(), lattice.d.ln());
        let half = 0.5 * (log_up - log_down);
        let n = lattice.steps;
        let levels = if with_exercise {
            (0..=2 * n)
                .map(|index| (log_ratio + sign * (index as f64 - n as f64) * half).exp())
                .collect()
        } else {
            Vec::new()
        };
        Drift {
            levels,
            per_layer: sign * 0.5 * (log_up + log_down),
            steps: n,
        }
    }

    /// The exercise values of nodes `lo .. hi` of layer `i`.
    fn exercise<T: Real>(&self, i: usize, lo: usize, hi: usize) -> Vec<T> {
        let shift = (i as f64 * self.per_layer).exp();
        let levels = &self.levels[2 * lo + self.steps - i..];
        (0..hi - lo)
            .map(|n| T::of((1.0 - shift * levels[2 * n]).max(0.0)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
