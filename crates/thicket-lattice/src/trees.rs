//! The binomial trees a vanilla option can be priced on (`--tree`): Cox–Ross–Rubinstein
//! (the default, and the only tree of the lookbacks), Jarrow–Rudd, Tian and Leisen–Reimer.
//! Each gives one step's up and down factors; the risk-neutral probability is then the same
//! formula for all of them, p = (exp((r − q)·dt) − d)/(u − d) (`Contract::validate`), so that
//! the lattices' two weights still sum to exactly 1 in their units.

use serde::Serialize;

use crate::contract::Market;

/// The tree of a vanilla option's lattice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tree {
    /// Cox, Ross and Rubinstein (1979): u = exp(σ·sqrt(dt)), d = 1/u. The default, and the
    /// only tree of the floating-strike lookbacks (their states are powers of u with u·d = 1).
    #[default]
    Crr,
    /// Jarrow and Rudd (1983): u, d = exp((r − q − σ²/2)·dt ± σ·sqrt(dt)), with the
    /// risk-neutral p (close to 1/2; the "JR-RN" form, where Jarrow and Rudd took p = 1/2).
    JarrowRudd,
    /// Tian (1993), matching the first three moments: with M = exp((r − q)·dt) and
    /// V = exp(σ²·dt), u, d = M·V/2·(V + 1 ± sqrt(V² + 2V − 3)).
    Tian,
    /// Leisen and Reimer (1996) with the Peizer–Pratt inversion (method 2): p = h(d2),
    /// p' = h(d1), u = M·p'/p, d = (M − p·u)/(1 − p). The tree is centred on the strike and
    /// needs an odd number of steps; an even one is refused.
    LeisenReimer,
}

impl Tree {
    /// Every tree, in the order of the documentation.
    pub const ALL: [Tree; 4] = [Tree::Crr, Tree::JarrowRudd, Tree::Tian, Tree::LeisenReimer];

    /// The tree's name on the command line, in JSON and in books: `crr`, `jarrow-rudd`,
    /// `tian` or `leisen-reimer`.
    pub fn name(self) -> &'static str {
        match self {
            Tree::Crr => "crr",
            Tree::JarrowRudd => "jarrow-rudd",
            Tree::Tian => "tian",
            Tree::LeisenReimer => "leisen-reimer",
        }
    }
}

thicket_core::named_choice!(Tree, "tree");

/// The up and down factors of one step of `tree` (not CRR, which `Contract::validate`
/// computes itself) for a vanilla option with `strike` on `steps` steps of `dt` years.
pub(crate) fn drifted_up_down(
    tree: Tree,
    market: &Market,
    strike: f64,
    steps: usize,
    dt: f64,
) -> (f64, f64) {
    let Market {
        spot,
        maturity,
        volatility: sigma,
        rate,
        dividend_yield,
    } = *market;
    let carry = rate - dividend_yield;
    match tree {
        Tree::Crr | Tree::JarrowRudd => {
            let drift = (carry - 0.5 * sigma * sigma) * dt;
            let spread = sigma * dt.sqrt();
            ((drift + spread).exp(), (drift - spread).exp())
        }
        Tree::Tian => {
            let m = (carry * dt).exp();
            let v = (sigma * sigma * dt).exp();
            let root = (v * v + 2.0 * v - 3.0).sqrt();
            (
                0.5 * m * v * (v + 1.0 + root),
                // M·V/2·(V + 1 − root) = 2·M·V/(V + 1 + root), as (V + 1)² − root² = 4:
                // without the cancellation at large σ²·dt.
                2.0 * m * v / (v + 1.0 + root),
            )
        }
        Tree::LeisenReimer => {
            let sd = sigma * maturity.sqrt();
            let d1 = ((spot / strike).ln() + (carry + 0.5 * sigma * sigma) * maturity) / sd;
            let d2 = d1 - sd;
            let p = peizer_pratt(d2, steps);
            let m = (carry * dt).exp();
            let u = m * peizer_pratt(d1, steps) / p;
            (u, (m - p * u) / (1.0 - p))
        }
    }
}

/// The Peizer–Pratt inversion (method 2) of the normal distribution for a tree of `steps`
/// (odd) steps: the binomial probability whose tail beyond the middle node is N(z).
fn peizer_pratt(z: f64, steps: usize) -> f64 {
    let n = steps as f64;
    let t = z / (n + 1.0 / 3.0 + 0.1 / (n + 1.0));
    0.5 + 0.5 * z.signum() * (1.0 - (-t * t * (n + 1.0 / 6.0)).exp()).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for tree in Tree::ALL {
            assert_eq!(tree.name().parse::<Tree>().unwrap(), tree);
        }
        assert_eq!(Tree::default(), Tree::Crr);
        assert!("boyle".parse::<Tree>().is_err());
    }

    /// P(more than half of `n` (odd) draws of probability `p` are up), by the pmf's recursion.
    fn upper_half(p: f64, n: usize) -> f64 {
        let mut pmf = (1.0 - p).powi(n as i32);
        let mut tail = 0.0;
        for k in 0..=n {
            if k > n / 2 {
                tail += pmf;
            }
            pmf *= (n - k) as f64 / (k + 1) as f64 * p / (1.0 - p);
        }
        tail
    }

    #[test]
    fn peizer_pratt_inverts_the_normal_through_the_binomial_tail() {
        for z in [-2.0, -0.3, 0.0, 0.7, 1.5] {
            let (a, b) = (peizer_pratt(z, 101), peizer_pratt(-z, 101));
            assert!((a + b - 1.0).abs() < 1e-15, "{z}");
            let (tail, normal) = (upper_half(a, 101), crate::verify::normal(z));
            assert!((tail - normal).abs() < 1e-4, "{z}: {tail} {normal}");
        }
    }

    #[test]
    fn every_tree_is_risk_neutral_in_the_mean() {
        let market = Market {
            spot: 100.0,
            maturity: 1.0,
            volatility: 0.25,
            rate: 0.05,
            dividend_yield: 0.02,
        };
        let (steps, dt) = (101, 1.0_f64 / 101.0);
        let m = (0.03_f64 * dt).exp();
        for tree in [Tree::JarrowRudd, Tree::Tian, Tree::LeisenReimer] {
            let (u, d) = drifted_up_down(tree, &market, 95.0, steps, dt);
            let p = (m - d) / (u - d);
            assert!(d < m && m < u && (0.0..=1.0).contains(&p), "{tree:?}");
            // The variance of one step's log return is about σ²·dt.
            let var = p * (1.0 - p) * (u / d).ln().powi(2);
            assert!((var / (0.0625 * dt) - 1.0).abs() < 0.05, "{tree:?} {var}");
        }
    }
}
