//! What the front doors answer: one priced option ([`LatticeRun`]) and a priced book
//! ([`BookRun`]), with their JSON keys.

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::contract::Contract;
use crate::scheme::{Precision, Priced};
use crate::strategy::Strategy;

/// One priced option and how.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatticeRun {
    /// What was priced.
    pub contract: Contract,
    /// Price, delta, gamma.
    pub priced: Priced,
    /// The strategy that ran.
    pub strategy: Strategy,
    /// The working precision.
    pub precision: Precision,
    /// GPU strategies: seconds of device work (CUDA events; the hybrid's CPU tail included).
    pub kernel_seconds: Option<f64>,
    /// GPU strategies: kernel launches.
    pub launches: Option<usize>,
}

/// A priced book of options.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BookRun {
    /// One answer per option, in order.
    pub priced: Vec<Priced>,
    /// The strategy that ran.
    pub strategy: Strategy,
    /// The working precision.
    pub precision: Precision,
    /// GPU: seconds of device work.
    pub kernel_seconds: Option<f64>,
    /// GPU: seconds from the upload of the options to the download of the prices (the span
    /// NVIDIA's binomialOptions sample times).
    pub span_seconds: Option<f64>,
    /// Lattice nodes over the options priced.
    pub nodes: u64,
    /// Whether the caller stopped the book ([`thicket_core::stoppable`]) before its end:
    /// `priced` then holds the first options of the book only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
}

/// Nodes of an N-step lattice: (N + 1)(N + 2) / 2.
pub fn lattice_nodes(steps: usize) -> u64 {
    let n = steps as u64;
    (n + 1) * (n + 2) / 2
}

impl LatticeRun {
    /// The answer as JSON keys: `price`, `delta`, `gamma`, `theta`, `vega`, `rho` (null where
    /// not computed), the contract (`payoff`, `style`, `spot`, `strike`, `maturity`,
    /// `volatility`, `rate`, `dividend_yield`, `observed_extreme` (a lookback's running
    /// extreme so far, the spot where none was given; null for a vanilla), `tree`, `steps`),
    /// `precision`, `strategy`,
    /// `kernel_seconds`, `launches`, `nodes`.
    pub fn stats(&self) -> Map<String, Value> {
        let c = &self.contract;
        thicket_core::object(json!({
            "price": self.priced.price,
            "delta": self.priced.delta,
            "gamma": self.priced.gamma,
            "theta": self.priced.theta,
            "vega": self.priced.vega,
            "rho": self.priced.rho,
            "payoff": c.payoff.name(),
            "style": c.style.name(),
            "spot": c.market.spot,
            "strike": c.payoff.strike(),
            "maturity": c.market.maturity,
            "volatility": c.market.volatility,
            "rate": c.market.rate,
            "dividend_yield": c.market.dividend_yield,
            "observed_extreme": c
                .payoff
                .strike()
                .is_none()
                .then(|| c.observed_extreme.unwrap_or(c.market.spot)),
            "tree": c.tree.name(),
            "steps": c.steps,
            "precision": self.precision,
            "strategy": self.strategy,
            "kernel_seconds": self.kernel_seconds,
            "launches": self.launches,
            "nodes": lattice_nodes(c.steps),
        }))
    }
}

impl BookRun {
    /// The book as JSON keys: `options`, `strategy`, `precision`, `kernel_seconds`,
    /// `span_seconds`, `nodes` and `priced` (price, delta, gamma, theta, vega and rho per
    /// option), and `stopped: true` where the caller stopped it before its end.
    pub fn stats(&self) -> Map<String, Value> {
        let mut stats = thicket_core::object(json!({
            "options": self.priced.len(),
            "strategy": self.strategy,
            "precision": self.precision,
            "kernel_seconds": self.kernel_seconds,
            "span_seconds": self.span_seconds,
            "nodes": self.nodes,
            "priced": self.priced,
        }));
        if self.stopped {
            stats.insert("stopped".into(), true.into());
        }
        stats
    }
}
