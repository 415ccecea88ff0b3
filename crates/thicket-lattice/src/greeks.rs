//! Vega and rho by re-pricing: each option's lattice again at σ ± h and r ± h (central
//! differences), priced by the same strategy as the option itself, on the GPU as extra
//! options of the same book launch. Delta, gamma and theta come from the option's own first
//! layers ([`crate::scheme`]).

use thicket_core::Result;

use crate::contract::{Contract, ValidContract};
use crate::scheme::{Precision, Priced};

/// Re-priced lattices per option: σ + h, σ − h, r + h, r − h.
pub(crate) const BUMPS: usize = 4;

/// The bump h of the volatility and of the rate: small enough that the central difference's
/// error (h²/6 times the third derivative) is far below the lattice's own, large enough that
/// the working precision's rounding (divided by 2h) is too: 1e-4 in `f64` (rounding ~1e-12 of
/// the price), 1e-2 in `f32` (~1e-6).
fn bump(precision: Precision) -> f64 {
    match precision {
        Precision::F64 => 1e-4,
        Precision::F32 => 1e-2,
    }
}

/// The volatility's bump for `contract`: h, or half the volatility if that is smaller (so
/// that σ − h stays positive).
fn volatility_bump(contract: &Contract, precision: Precision) -> f64 {
    bump(precision).min(0.5 * contract.market.volatility)
}

/// The [`BUMPS`] re-priced lattices of `contract`, in the order [`with_bumped`] reads them.
fn bumped(contract: &Contract, precision: Precision) -> [Contract; BUMPS] {
    let (hv, hr) = (volatility_bump(contract, precision), bump(precision));
    let with = |dv: f64, dr: f64| {
        let mut c = *contract;
        c.market.volatility += dv;
        c.market.rate += dr;
        c
    };
    [with(hv, 0.0), with(-hv, 0.0), with(0.0, hr), with(0.0, -hr)]
}

/// `priced` with vega and rho from the prices of the bumped lattices (`None` for a price
/// whose lattice was invalid).
pub(crate) fn with_bumped(
    contract: &Contract,
    precision: Precision,
    priced: Priced,
    bumps: [Option<f64>; BUMPS],
) -> Priced {
    let (hv, hr) = (volatility_bump(contract, precision), bump(precision));
    let central = |up: Option<f64>, down: Option<f64>, h: f64| Some((up? - down?) / (2.0 * h));
    Priced {
        vega: central(bumps[0], bumps[1], hv),
        rho: central(bumps[2], bumps[3], hr),
        ..priced
    }
}

/// Prices `options` with vega and rho: `price_all` prices a list of valid contracts (the
/// strategy's book pricer), called once on the options and their valid bumped lattices
/// together, so that a GPU prices them in one launch. Where the caller stopped it,
/// `price_all` returns the first answers only, and this the first options whose lattices all
/// ran. A bump can push the up probability out of [0, 1] (a lattice at the edge of
/// validity); that greek is then not reported.
pub(crate) fn price_with_bumps(
    options: &[ValidContract],
    precision: Precision,
    price_all: impl FnOnce(&[ValidContract]) -> Result<Vec<Priced>>,
) -> Result<Vec<Priced>> {
    let mut all = options.to_vec();
    // Where each option's bumped prices are in `all`, if valid.
    let mut places = Vec::with_capacity(options.len());
    for option in options {
        let mut at = [None; BUMPS];
        for (place, lattice) in at.iter_mut().zip(bumped(option.contract(), precision)) {
            if let Ok(valid) = lattice.checked() {
                *place = Some(all.len());
                all.push(valid);
            }
        }
        places.push(at);
    }
    // A stopped book prices the first lattices of `all` only: the options whose bumped
    // lattices all ran are the first ones.
    let prices = price_all(&all)?;
    Ok(options
        .iter()
        .zip(&prices)
        .zip(places)
        .map_while(|((option, &priced), at)| {
            let mut bumps = [None; BUMPS];
            for (bump, place) in bumps.iter_mut().zip(at) {
                if let Some(i) = place {
                    *bump = Some(prices.get(i)?.price);
                }
            }
            Some(with_bumped(option.contract(), precision, priced, bumps))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{Market, Payoff, Style};
    use crate::cpu::serial::price_serial;
    use crate::test_support::serial_of;
    use crate::verify::{density, normal};

    fn serial_all(options: &[ValidContract]) -> Result<Vec<Priced>> {
        Ok(options
            .iter()
            .map(|c| price_serial(c, Precision::F64))
            .collect())
    }

    fn european(payoff: Payoff, market: Market, steps: usize) -> Contract {
        Contract {
            payoff,
            style: Style::European,
            market,
            steps,
            observed_extreme: None,
            tree: Default::default(),
        }
    }

    /// Black–Scholes–Merton greeks of a European call or put with dividend yield q, written
    /// out here from the closed form (not thicket's pricer): delta, gamma, theta (per year of
    /// calendar time), vega, rho.
    fn bsm_greeks(m: &Market, strike: f64, call: bool) -> [f64; 5] {
        let (s, t, v, r, q) = (m.spot, m.maturity, m.volatility, m.rate, m.dividend_yield);
        let sd = v * t.sqrt();
        let d1 = ((s / strike).ln() + (r - q + 0.5 * v * v) * t) / sd;
        let d2 = d1 - sd;
        let (eq, er) = ((-q * t).exp(), (-r * t).exp());
        let gamma = eq * density(d1) / (s * sd);
        let vega = s * eq * density(d1) * t.sqrt();
        let decay = -s * eq * density(d1) * v / (2.0 * t.sqrt());
        if call {
            [
                eq * normal(d1),
                gamma,
                decay - r * strike * er * normal(d2) + q * s * eq * normal(d1),
                vega,
                strike * t * er * normal(d2),
            ]
        } else {
            [
                eq * (normal(d1) - 1.0),
                gamma,
                decay + r * strike * er * normal(-d2) - q * s * eq * normal(-d1),
                vega,
                -strike * t * er * normal(-d2),
            ]
        }
    }

    #[test]
    fn european_greeks_approach_black_scholes_merton_with_dividends() {
        for (q, strike) in [(0.0, 40.0), (0.03, 40.0), (0.05, 45.0), (0.08, 38.0)] {
            let market = Market {
                spot: 42.0,
                maturity: 0.5,
                volatility: 0.2,
                rate: 0.1,
                dividend_yield: q,
            };
            for call in [true, false] {
                let payoff = if call {
                    Payoff::Call { strike }
                } else {
                    Payoff::Put { strike }
                };
                let contract = european(payoff, market, 2_000);
                let got =
                    price_with_bumps(&[contract.checked().unwrap()], Precision::F64, serial_all)
                        .unwrap()[0];
                let want = bsm_greeks(&market, strike, call);
                let have = [
                    got.delta,
                    got.gamma,
                    got.theta,
                    got.vega.unwrap(),
                    got.rho.unwrap(),
                ];
                // The lattice's own error at N = 2,000 (its prices are within ~1e-3).
                for (name, (h, w)) in ["delta", "gamma", "theta", "vega", "rho"]
                    .iter()
                    .zip(have.iter().zip(want))
                {
                    let tolerance = 2e-2 * w.abs().max(0.1);
                    assert!(
                        (h - w).abs() < tolerance,
                        "q {q} K {strike} call {call} {name}: {h} vs {w}"
                    );
                }
            }
        }
    }

    #[test]
    fn greeks_match_finite_differences_of_the_price() {
        let market = Market {
            spot: 50.0,
            maturity: 0.75,
            volatility: 0.3,
            rate: 0.05,
            dividend_yield: 0.02,
        };
        for payoff in [
            Payoff::LookbackPut,
            Payoff::LookbackCall,
            Payoff::Call { strike: 52.0 },
            Payoff::Put { strike: 52.0 },
        ] {
            for style in [Style::American, Style::European] {
                let contract = Contract {
                    payoff,
                    style,
                    market,
                    steps: 400,
                    observed_extreme: None,
                    tree: Default::default(),
                };
                let got =
                    price_with_bumps(&[contract.checked().unwrap()], Precision::F64, serial_all)
                        .unwrap()[0];
                let at = |dv: f64, dr: f64| {
                    let mut c = contract;
                    c.market.volatility += dv;
                    c.market.rate += dr;
                    serial_of(&c, Precision::F64).price
                };
                // Wider differences than the bumps: the same derivative, other lattices.
                let h = 1e-3;
                let vega = (at(h, 0.0) - at(-h, 0.0)) / (2.0 * h);
                let rho = (at(0.0, h) - at(0.0, -h)) / (2.0 * h);
                assert!(
                    (got.vega.unwrap() - vega).abs() < 1e-2 * vega.abs().max(1.0),
                    "{payoff:?} {style:?}: vega {:?} vs {vega}",
                    got.vega
                );
                assert!(
                    (got.rho.unwrap() - rho).abs() < 1e-2 * rho.abs().max(1.0),
                    "{payoff:?} {style:?}: rho {:?} vs {rho}",
                    got.rho
                );
                // Theta from the tree against the price's change with maturity (the spot
                // fixed, the lattice's step count kept): −d price / d T.
                let longer = |dt: f64| {
                    let mut c = contract;
                    c.market.maturity += dt;
                    serial_of(&c, Precision::F64).price
                };
                let theta = -(longer(1e-3) - longer(-1e-3)) / 2e-3;
                assert!(
                    (got.theta - theta).abs() < 5e-2 * theta.abs().max(1.0),
                    "{payoff:?} {style:?}: theta {} vs {theta}",
                    got.theta
                );
            }
        }
    }

    #[test]
    fn an_invalid_bump_leaves_its_greek_out() {
        // At a step where exp(r·dt) is just below u, a higher rate leaves [0, 1].
        let mut contract = european(
            Payoff::Put { strike: 50.0 },
            Market {
                spot: 50.0,
                maturity: 1.0,
                volatility: 0.01,
                rate: 0.0,
                dividend_yield: 0.0,
            },
            2,
        );
        let u = (0.01f64 * 0.5f64.sqrt()).exp();
        contract.market.rate = 2.0 * u.ln() - 5e-5;
        assert!(contract.validate().is_ok());
        let got = price_with_bumps(&[contract.checked().unwrap()], Precision::F64, serial_all)
            .unwrap()[0];
        assert!(got.rho.is_none(), "{got:?}");
    }
}
