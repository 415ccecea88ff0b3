//! What is priced: the market, the payoff, the exercise style and the lattice size, and the
//! Cox–Ross–Rubinstein parameters they give.

use serde::Serialize;
use thicket_core::{Error, Result};

use crate::trees::{drifted_up_down, Tree};

/// The largest number of steps accepted: the CPU lattice keeps two layers of `steps + 1`
/// values (and a vanilla option one exercise value per stock level, `2 * steps + 1`), so this
/// bounds its memory at a few GiB.
pub(crate) const MAX_STEPS: usize = 100_000_000;

/// The largest |rate × maturity| accepted: the lattices carry values in units of a bond that
/// grows as exp(rate × maturity), which must stay well inside the range of `f32`.
pub(crate) const MAX_RATE_TIME: f64 = 80.0;

/// The range every tree's step must keep ([`Contract::check_step`]), as messages state it.
pub(crate) const STEP_RANGE: &str = "u > 1 > d > 0, 0 <= p <= 1";

/// The market of one option: a stock paying a continuous dividend yield, under Black–Scholes
/// dynamics.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Market {
    /// The stock price today (S > 0).
    pub spot: f64,
    /// The time to maturity in years (T > 0).
    pub maturity: f64,
    /// The annual volatility (σ > 0).
    pub volatility: f64,
    /// The continuously compounded risk-free rate per year (may be zero or negative).
    pub rate: f64,
    /// The continuous dividend yield q per year (0: no dividends; may be negative, as for a
    /// borrow cost): the stock drifts at r − q under the risk-neutral measure.
    pub dividend_yield: f64,
}

/// When the option may be exercised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// At any lattice date (every step), including today.
    American,
    /// At maturity only.
    European,
}

/// What the option pays on exercise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Payoff {
    /// The floating-strike lookback put: the running maximum of the stock (monitored at the
    /// lattice dates, starting at the spot) minus the stock price.
    LookbackPut,
    /// The floating-strike lookback call: the stock price minus its running minimum.
    LookbackCall,
    /// The vanilla call: max(S − strike, 0).
    Call {
        /// The strike (> 0).
        strike: f64,
    },
    /// The vanilla put: max(strike − S, 0).
    Put {
        /// The strike (> 0).
        strike: f64,
    },
}

impl Payoff {
    /// The payoff's name in batch files: `lookback-put`, `lookback-call`, `call` or `put`.
    pub fn name(&self) -> &'static str {
        match self {
            Payoff::LookbackPut => "lookback-put",
            Payoff::LookbackCall => "lookback-call",
            Payoff::Call { .. } => "call",
            Payoff::Put { .. } => "put",
        }
    }

    /// The strike of a vanilla option; `None` for a floating-strike lookback.
    pub fn strike(&self) -> Option<f64> {
        match self {
            Payoff::LookbackPut | Payoff::LookbackCall => None,
            Payoff::Call { strike } | Payoff::Put { strike } => Some(*strike),
        }
    }
}

impl Style {
    /// The style's name in batch files: `american` or `european`.
    pub fn name(self) -> &'static str {
        match self {
            Style::American => "american",
            Style::European => "european",
        }
    }
}

/// One option to price on an N-step binomial lattice.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Contract {
    /// What exercise pays.
    pub payoff: Payoff,
    /// When exercise is allowed.
    pub style: Style,
    /// Spot, maturity, volatility and rate.
    pub market: Market,
    /// The number of time steps N (the lattice has N + 1 dates).
    pub steps: usize,
    /// A lookback already alive: the running extreme observed so far, the maximum for a
    /// put (at or above the spot) or the minimum for a call (at or below it). `None` (the
    /// default): the spot, a lookback that starts today. Vanilla options take `None`.
    pub observed_extreme: Option<f64>,
    /// The tree of the lattice ([`Tree::Crr`] by default, the only one of the lookbacks).
    pub tree: Tree,
}

/// Where a lookback's observed extreme puts it on the lattice today: `state` steps of the
/// up factor between the stock and the extreme, and `weight` toward `state + 1` where the
/// extreme lies between two states (the price is interpolated linearly in log extreme).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Seasoning {
    /// The state at or below the extreme.
    pub(crate) state: usize,
    /// The weight of state + 1, in [0, 1); 0 where the extreme is a state.
    pub(crate) weight: f64,
}

impl Seasoning {
    /// The layers the lattice adds before today so that its layer `extra()` holds every
    /// state up to the ones read (0 for a lookback that starts today).
    pub(crate) fn extra(&self) -> usize {
        self.state + usize::from(self.weight > 0.0)
    }
}

/// The Cox–Ross–Rubinstein parameters, computed once in f64: dt = T/N, u = exp(σ·sqrt(dt)),
/// d = 1/u, p = (exp((r − q)·dt) − d)/(u − d), disc = exp(−r·dt).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Lattice {
    /// The length of one step in years, T/N.
    pub dt: f64,
    /// The up factor of the stock per step, exp(σ·sqrt(dt)).
    pub u: f64,
    /// The down factor of the stock per step, 1/u.
    pub d: f64,
    /// The risk-neutral probability of an up move, (exp((r − q)·dt) − d)/(u − d), in [0, 1].
    pub p: f64,
    /// The discount factor of one step, exp(−r·dt).
    pub disc: f64,
    /// The number of steps N.
    pub steps: usize,
}

/// A contract that passed [`Contract::validate`], with what the check derived: its lattice
/// (u, d, p, the discount factor) and where a lookback's observed extreme puts it. Only
/// [`Contract::checked`] makes one, so a pricer that takes it needs no check of its own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ValidContract {
    contract: Contract,
    lattice: Lattice,
    seasoning: Seasoning,
}

impl ValidContract {
    /// The contract as given.
    pub(crate) fn contract(&self) -> &Contract {
        &self.contract
    }

    /// Its lattice parameters.
    pub(crate) fn lattice(&self) -> &Lattice {
        &self.lattice
    }

    /// Where its observed extreme puts it on the lattice (state 0, weight 0 without one).
    pub(crate) fn seasoning(&self) -> Seasoning {
        self.seasoning
    }
}

impl Contract {
    /// Checks the contract and returns its lattice parameters.
    ///
    /// Rejected, each as [`Error::InvalidInput`] with a one-line message naming the value: a
    /// spot, maturity or volatility that is not a positive finite number; a rate that is not
    /// finite; a dividend yield that is not finite; zero steps or more than 10^8; a strike
    /// that is not a positive finite number; |rate × maturity| or |dividend yield × maturity|
    /// above 80 (the lattice works in units of a bond growing as exp(rate × maturity), or of
    /// a stock whose dividends grow as exp(q × maturity)); a step so large that
    /// u = exp(σ·sqrt(dt)) overflows; and a step outside the range every tree must keep,
    /// u > 1 > d > 0 and 0 <= p <= 1 (the same for every tree and payoff; `check_step` says
    /// why), which a drift too large (or too negative) for the volatility over steps of
    /// maturity/steps leaves.
    pub fn validate(&self) -> Result<Lattice> {
        self.checked().map(|valid| valid.lattice)
    }

    /// [`Contract::validate`], keeping what it derived: the contract with its lattice and
    /// seasoning, which every pricer and the verifier take instead of checking again.
    pub(crate) fn checked(&self) -> Result<ValidContract> {
        self.check_inputs()?;
        let m = &self.market;
        let dt = m.maturity / self.steps as f64;
        let log_u = m.volatility * dt.sqrt();
        let (u, d) = match (self.tree, self.payoff.strike()) {
            (Tree::Crr, _) | (_, None) => {
                let (u, d) = (log_u.exp(), (-log_u).exp());
                if !(u.is_finite() && d > 0.0) {
                    return Err(invalid(format!(
                        "volatility × sqrt(maturity/steps) is {} (volatility {}, maturity {}, steps {}); the up factor exp({}) overflows",
                        thicket_core::number(log_u),
                        thicket_core::number(m.volatility),
                        thicket_core::number(m.maturity),
                        self.steps,
                        thicket_core::number(log_u)
                    )));
                }
                (u, d)
            }
            (tree, Some(strike)) => drifted_up_down(tree, m, strike, self.steps, dt),
        };
        let p = self.check_step(u, d, dt)?;
        let lattice = Lattice {
            dt,
            u,
            d,
            p,
            disc: (-m.rate * dt).exp(),
            steps: self.steps,
        };
        let seasoning = self.seasoning(&lattice);
        let extra = seasoning.extra();
        if self.steps + extra > MAX_STEPS {
            return Err(invalid(format!(
                "the observed extreme {} lies {extra} steps of the lattice from the spot {}; steps + {extra} must be at most {MAX_STEPS}",
                thicket_core::number(self.observed_extreme.unwrap_or(m.spot)),
                thicket_core::number(m.spot)
            )));
        }
        Ok(ValidContract {
            contract: *self,
            lattice,
            seasoning,
        })
    }

    /// Every check of [`Contract::validate`] that needs no step of the lattice: the values
    /// one by one, the tree against the payoff and the steps, the observed extreme, and
    /// rate × maturity and dividend yield × maturity. Implied volatility checks these once,
    /// before it searches the volatilities whose step is valid.
    pub(crate) fn check_inputs(&self) -> Result<()> {
        let m = &self.market;
        for (name, value) in [
            ("spot", m.spot),
            ("maturity", m.maturity),
            ("volatility", m.volatility),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(invalid(format!(
                    "{name} is {}; it must be a positive finite number",
                    thicket_core::number(value)
                )));
            }
        }
        for (name, value) in [("rate", m.rate), ("dividend yield", m.dividend_yield)] {
            if !value.is_finite() {
                return Err(invalid(format!(
                    "{name} is {}; it must be a finite number",
                    thicket_core::number(value)
                )));
            }
        }
        if self.steps == 0 || self.steps > MAX_STEPS {
            return Err(invalid(format!(
                "steps is {}; it must be between 1 and {MAX_STEPS}",
                self.steps
            )));
        }
        if let Some(strike) = self.payoff.strike() {
            if !(strike.is_finite() && strike > 0.0) {
                return Err(invalid(format!(
                    "strike is {}; it must be a positive finite number",
                    thicket_core::number(strike)
                )));
            }
        }
        self.check_tree()?;
        self.check_extreme()?;
        let rate_time = m.rate * m.maturity;
        if rate_time.abs() > MAX_RATE_TIME {
            return Err(invalid(format!(
                "rate × maturity is {} (rate {}, maturity {}); it must be within ±{MAX_RATE_TIME}",
                thicket_core::number(rate_time),
                thicket_core::number(m.rate),
                thicket_core::number(m.maturity)
            )));
        }
        let yield_time = m.dividend_yield * m.maturity;
        if yield_time.abs() > MAX_RATE_TIME {
            return Err(invalid(format!(
                "dividend yield × maturity is {} (dividend yield {}, maturity {}); it must be within ±{MAX_RATE_TIME}",
                thicket_core::number(yield_time),
                thicket_core::number(m.dividend_yield),
                thicket_core::number(m.maturity)
            )));
        }
        Ok(())
    }

    /// The one check of a step, the same for every tree and payoff: returns the up
    /// probability p = (exp((r − q)·dt) − d)/(u − d) of the step `u`, `d` of `dt` years.
    ///
    /// Valid is u > 1 > d > 0 and 0 <= p <= 1. The probability must be one, exp((r − q)·dt)
    /// between d and u, or the lattice is not arbitrage-free; at 0 or 1 (the growth equal to
    /// d or u) the lattice is the limit of valid ones and its price the limit of theirs, so
    /// both ends are kept, as CRR always kept them. The moves must straddle today's stock:
    /// with d >= 1 (or u <= 1) every path moves one way, and an option on the other side of
    /// the spot is worth exactly 0 with every greek 0, which no market of positive
    /// volatility gives. CRR's u·d = 1 always straddles; Jarrow–Rudd's, Tian's and
    /// Leisen–Reimer's drifted moves leave it when the drift of a step outgrows σ·sqrt(dt)
    /// (high rates or volatilities over few steps), as CRR's p leaves [0, 1] there.
    pub(crate) fn check_step(&self, u: f64, d: f64, dt: f64) -> Result<f64> {
        let m = &self.market;
        // r − q is r exactly when q = 0, so prices without dividends are unchanged.
        let growth = ((m.rate - m.dividend_yield) * dt).exp();
        let p = (growth - d) / (u - d);
        if u.is_finite() && u > 1.0 && 1.0 > d && d > 0.0 && (0.0..=1.0).contains(&p) {
            return Ok(p);
        }
        let strike = self
            .payoff
            .strike()
            .map(|k| format!("strike {}, ", thicket_core::number(k)))
            .unwrap_or_default();
        // It starts "the up probability" for every tree: that is how a quotes book's reader
        // (`book_csv.rs`) tells this refusal at its placeholder volatility, which the search
        // steps past, from a bad value.
        Err(invalid(format!(
            "the up probability p = {} and the moves u = {}, d = {} of the {} tree leave the valid range {STEP_RANGE} (exp((rate − dividend yield) × dt) = {}; spot {}, {strike}volatility {}, rate {}, dividend yield {}, maturity {}, steps {})",
            thicket_core::number(p),
            thicket_core::number(u),
            thicket_core::number(d),
            self.tree.name(),
            thicket_core::number(growth),
            thicket_core::number(m.spot),
            thicket_core::number(m.volatility),
            thicket_core::number(m.rate),
            thicket_core::number(m.dividend_yield),
            thicket_core::number(m.maturity),
            self.steps
        )))
    }

    /// Only vanilla options take a tree other than CRR, and Leisen–Reimer an odd number of
    /// steps (its tree is centred on the strike at maturity).
    fn check_tree(&self) -> Result<()> {
        if self.tree == Tree::Crr {
            return Ok(());
        }
        if self.payoff.strike().is_none() {
            return Err(invalid(format!(
                "the {} tree is for vanilla options; a {} is priced on the crr tree (its running extreme needs u·d = 1)",
                self.tree.name(),
                self.payoff.name()
            )));
        }
        if self.tree == Tree::LeisenReimer && self.steps.is_multiple_of(2) {
            return Err(invalid(format!(
                "steps is {}; the leisen-reimer tree needs an odd number of steps ({} or {})",
                self.steps,
                self.steps - 1,
                self.steps + 1
            )));
        }
        Ok(())
    }

    /// An observed extreme is a positive finite number on the right side of the spot, and
    /// for lookbacks only.
    fn check_extreme(&self) -> Result<()> {
        let Some(extreme) = self.observed_extreme else {
            return Ok(());
        };
        let spot = self.market.spot;
        let (name, wrong_side) = match self.payoff {
            Payoff::LookbackPut => ("maximum", extreme < spot),
            Payoff::LookbackCall => ("minimum", extreme > spot),
            Payoff::Call { .. } | Payoff::Put { .. } => {
                return Err(invalid(format!(
                    "an observed extreme ({}) is for lookbacks; a {} has none",
                    thicket_core::number(extreme),
                    self.payoff.name()
                )))
            }
        };
        if !(extreme.is_finite() && extreme > 0.0) {
            return Err(invalid(format!(
                "the observed {name} is {}; it must be a positive finite number",
                thicket_core::number(extreme)
            )));
        }
        if wrong_side {
            return Err(invalid(format!(
                "the observed {name} {} of a {} is {} the spot {}",
                thicket_core::number(extreme),
                self.payoff.name(),
                if name == "maximum" { "below" } else { "above" },
                thicket_core::number(spot)
            )));
        }
        Ok(())
    }

    /// Where the observed extreme puts a lookback on `lattice` (this contract's, from
    /// [`Contract::validate`]): x = ln(extreme/spot)/ln(u) steps away (of the put's maximum,
    /// of the call's minimum the other way), a state where x is within 1e-9 of a whole number.
    fn seasoning(&self, lattice: &Lattice) -> Seasoning {
        let Some(extreme) = self.observed_extreme else {
            return Seasoning {
                state: 0,
                weight: 0.0,
            };
        };
        let log_u = self.market.volatility * lattice.dt.sqrt();
        // Past MAX_STEPS it is refused (`validate`): clamped there, so that no cast saturates.
        let x = ((extreme / self.market.spot).ln().abs() / log_u).min(MAX_STEPS as f64 + 1.0);
        let nearest = x.round();
        if (x - nearest).abs() <= 1e-9 * x.max(1.0) {
            return Seasoning {
                state: nearest as usize,
                weight: 0.0,
            };
        }
        Seasoning {
            state: x.floor() as usize,
            weight: x - x.floor(),
        }
    }
}

fn invalid(message: String) -> Error {
    Error::InvalidInput(message)
}

#[cfg(test)]
mod tests;
