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
        let extra = self.seasoning(&lattice).extra();
        if self.steps + extra > MAX_STEPS {
            return Err(invalid(format!(
                "the observed extreme {} lies {extra} steps of the lattice from the spot {}; steps + {extra} must be at most {MAX_STEPS}",
                thicket_core::number(self.observed_extreme.unwrap_or(m.spot)),
                thicket_core::number(m.spot)
            )));
        }
        Ok(lattice)
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
    pub(crate) fn seasoning(&self, lattice: &Lattice) -> Seasoning {
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
mod tests {
    use super::*;

    fn contract(spot: f64, maturity: f64, volatility: f64, rate: f64, steps: usize) -> Contract {
        Contract {
            payoff: Payoff::LookbackPut,
            style: Style::American,
            market: Market {
                spot,
                maturity,
                volatility,
                rate,
                dividend_yield: 0.0,
            },
            steps,
            observed_extreme: None,
            tree: Tree::Crr,
        }
    }

    fn message(c: &Contract) -> String {
        match c.validate() {
            Err(Error::InvalidInput(m)) => m,
            other => panic!("expected invalid input, got {other:?}"),
        }
    }

    #[test]
    fn hulls_parameters_are_the_crr_ones() {
        let l = contract(50.0, 0.25, 0.4, 0.1, 3).validate().unwrap();
        assert!((l.dt - 0.25 / 3.0).abs() < 1e-16);
        assert!((l.u * l.d - 1.0).abs() < 1e-15);
        assert!((l.u - (0.4 * (0.25f64 / 3.0).sqrt()).exp()).abs() < 1e-15);
        // Hull quotes p = 0.5073.
        assert!((l.p - 0.5073).abs() < 1e-4, "{}", l.p);
        assert!((l.disc * (0.1 * l.dt).exp() - 1.0).abs() < 1e-15);
        assert_eq!(l.steps, 3);
    }

    #[test]
    fn a_million_steps_are_accepted() {
        assert!(contract(50.0, 0.35, 0.3, 0.1, 1_000_000).validate().is_ok());
    }

    #[test]
    fn each_bad_value_is_one_line_naming_the_parameter() {
        let bad = [
            (contract(0.0, 1.0, 0.3, 0.1, 10), "spot"),
            (contract(-1.0, 1.0, 0.3, 0.1, 10), "spot"),
            (contract(f64::NAN, 1.0, 0.3, 0.1, 10), "spot"),
            (contract(50.0, 0.0, 0.3, 0.1, 10), "maturity"),
            (contract(50.0, f64::INFINITY, 0.3, 0.1, 10), "maturity"),
            (contract(50.0, 1.0, -0.3, 0.1, 10), "volatility"),
            (contract(50.0, 1.0, 0.3, f64::NAN, 10), "rate"),
            (
                Contract {
                    market: Market {
                        dividend_yield: f64::INFINITY,
                        ..contract(50.0, 1.0, 0.3, 0.1, 10).market
                    },
                    ..contract(50.0, 1.0, 0.3, 0.1, 10)
                },
                "dividend yield",
            ),
            (
                Contract {
                    market: Market {
                        dividend_yield: 100.0,
                        ..contract(50.0, 1.0, 0.3, 0.1, 10).market
                    },
                    ..contract(50.0, 1.0, 0.3, 0.1, 10)
                },
                "dividend yield × maturity",
            ),
            (contract(50.0, 1.0, 0.3, 0.1, 0), "steps"),
            (contract(50.0, 1.0, 0.3, 0.1, MAX_STEPS + 1), "steps"),
            (contract(50.0, 1000.0, 0.3, 0.1, 10), "rate × maturity"),
            (contract(50.0, 1.0, 2000.0, 0.1, 1), "volatility"),
        ];
        for (c, name) in bad {
            let m = message(&c);
            assert!(m.contains(name), "{m:?} should name {name}");
            assert!(!m.contains('\n') && !m.contains("--"), "{m:?}");
        }
        for strike in [0.0, -5.0, f64::NAN, f64::INFINITY] {
            for payoff in [Payoff::Call { strike }, Payoff::Put { strike }] {
                let c = Contract {
                    payoff,
                    ..contract(50.0, 1.0, 0.3, 0.1, 10)
                };
                assert!(message(&c).starts_with("strike is"), "{}", message(&c));
            }
        }
    }

    #[test]
    fn an_up_probability_outside_zero_one_names_its_causes() {
        // A high rate against a low volatility over long steps: exp(r·dt) > u. The lookback
        // put is on CRR: the same check as every tree's, the same message.
        let m = message(&contract(50.0, 1.0, 0.01, 0.5, 2));
        assert!(m.starts_with("the up probability"), "{m}");
        for name in [
            "rate",
            "volatility",
            "maturity",
            "steps",
            STEP_RANGE,
            "crr tree",
        ] {
            assert!(m.contains(name), "{m:?} should name {name}");
        }
        // A negative rate the other way: exp(r·dt) < d.
        let m = message(&contract(50.0, 1.0, 0.01, -0.5, 2));
        assert!(m.contains(STEP_RANGE), "{m}");
        // More steps make the same market valid.
        assert!(contract(50.0, 1.0, 0.01, 0.5, 10_000).validate().is_ok());
    }

    /// A put of `strike` on a stock at 100 over a year of 3 steps at a rate of 60%, on
    /// `tree` at `volatility`.
    fn high_rate_put(tree: Tree, strike: f64, volatility: f64) -> Contract {
        Contract {
            payoff: Payoff::Put { strike },
            tree,
            ..contract(100.0, 1.0, volatility, 0.6, 3)
        }
    }

    #[test]
    fn every_tree_refuses_a_step_outside_the_range_and_prices_up_to_its_edge() {
        // The edges, where a condition of the range holds with equality (found outside
        // thicket by bisection on the trees' formulas): CRR's p = 1 at σ = r·sqrt(dt),
        // Jarrow–Rudd's and Tian's d = 1, Leisen–Reimer's p = 1 (its moves depend on the
        // strike; at 95 its valid volatilities start there and have no gap near it).
        let edges = [
            (Tree::Crr, 100.0, 0.346_410_161_513_775_35),
            (Tree::JarrowRudd, 100.0, 0.317_339_345_623_042_5),
            (Tree::Tian, 100.0, 0.463_437_847_124_684_7),
            (Tree::LeisenReimer, 95.0, 0.058_697_087_004_326_645),
        ];
        for (tree, strike, edge) in edges {
            let m = message(&high_rate_put(tree, strike, edge * 0.999));
            assert!(m.starts_with("the up probability"), "{m}");
            let strike = format!("strike {strike}");
            for word in [STEP_RANGE, tree.name(), "rate 0.6", &strike, "steps 3"] {
                assert!(m.contains(word), "{tree:?}: {m:?} should name {word:?}");
            }
            let inside = high_rate_put(tree, 100.0, edge * 1.001);
            let lattice = inside.validate().unwrap();
            assert!(lattice.u > 1.0 && lattice.d < 1.0, "{tree:?} {lattice:?}");
            let priced = crate::serial::price_serial(&inside, crate::Precision::F64).unwrap();
            // At the money the stock can fall below the strike: worth something.
            assert!(
                priced.price > 0.0 && priced.price < 100.0,
                "{tree:?} {priced:?}"
            );
        }
        // The case: Tian's d above 1 at a large volatility and rate over few steps
        // priced the put at exactly 0 with every greek 0.
        let tian = Contract {
            market: Market {
                rate: 3.0,
                ..high_rate_put(Tree::Tian, 95.0, 1.5).market
            },
            ..high_rate_put(Tree::Tian, 95.0, 1.5)
        };
        assert!(message(&tian).contains("d = 2.089"), "{}", message(&tian));
        // Tian's d also climbs back above 1 as the volatility grows (towards exp((r − q)·dt)).
        assert!(message(&high_rate_put(Tree::Tian, 100.0, 2.5)).contains(STEP_RANGE));
    }
}
