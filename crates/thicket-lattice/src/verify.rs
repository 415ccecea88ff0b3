//! Independent references for the lattices: [`verify`] checks a price against brute force
//! over every path of the tree (which shares no code with the lattices) for N <= 14 and
//! against the f64 serial lattice above; the closed forms of Goldman–Sosin–Gatto and
//! Black–Scholes, which the lattices approach as N grows; and Hull's worked example.

use std::f64::consts::{FRAC_1_SQRT_2, PI};

use thicket_core::{Error, Result};

use crate::contract::{Contract, Market, Payoff, Style, ValidContract};
use crate::cpu::serial::price_serial;
use crate::scheme::{Precision, Priced};
use crate::trees::Tree;

/// Whether `priced` is `contract`'s price computed in `precision`: within 1e-9 (f64) or the
/// thesis's 1e-3 (f32), relative to max(1, |reference|), of the independent reference: every
/// path of the tree ([`exhaustive`]) for N <= [`EXHAUSTIVE_STEPS`], else the f64 serial
/// lattice (exact to the reference tables in `data/`). The verdict is `Some` for every valid
/// contract (as a [`thicket_core::Kernel`]'s, `None` where no reference exists); errors on
/// an invalid contract.
pub fn verify(contract: &Contract, priced: &Priced, precision: Precision) -> Result<Option<bool>> {
    Ok(Some(verdict(&contract.checked()?, priced, precision)))
}

/// [`verify`] of a contract the front door checked.
pub(crate) fn verdict(option: &ValidContract, priced: &Priced, precision: Precision) -> bool {
    mismatch(option, priced, precision).is_none()
}

/// Where `priced` is not `option`'s price in `precision` ([`verify`]), its price beside the
/// reference's; `None` where it is.
pub(crate) fn mismatch(
    option: &ValidContract,
    priced: &Priced,
    precision: Precision,
) -> Option<String> {
    let (reference, source) = if option.contract().steps <= EXHAUSTIVE_STEPS {
        (interpolated_paths(option), "every path of the tree")
    } else {
        (
            price_serial(option, Precision::F64).price,
            "the float64 serial lattice",
        )
    };
    let tolerance = match precision {
        Precision::F64 => 1e-9,
        Precision::F32 => 1e-3,
    };
    let within = (priced.price - reference).abs() <= tolerance * reference.abs().max(1.0);
    (!within).then(|| format!("price {} where {source} gives {reference}", priced.price))
}

/// The most steps [`exhaustive`] walks: 2^14 paths.
pub const EXHAUSTIVE_STEPS: usize = 14;

/// The price of `contract` by walking all 2^N paths of its tree in `f64`, with the stock
/// price (multiplied by u or d along the path) and its running maximum and minimum on each
/// (starting at the observed extreme of a seasoned lookback);
/// an American option compares exercise with continuation at every node. No state reduction
/// (such as the lookbacks' Y = G/S) is used, so this checks that reduction. Errors above 14
/// steps, and on an invalid contract.
pub fn exhaustive(contract: &Contract) -> Result<f64> {
    let option = checked_for_paths(contract)?;
    Ok(all_paths(&option, contract.observed_extreme))
}

/// [`exhaustive`] as the lattice reads a seasoned lookback whose observed extreme lies
/// between two of its states: the brute-force prices with the extreme at those two states,
/// S·u^j and S·u^(j+1) (the put; S·d^j and S·d^(j+1) the call), mixed linearly in the log of
/// the extreme. Equal to [`exhaustive`] everywhere else.
pub fn exhaustive_interpolated(contract: &Contract) -> Result<f64> {
    Ok(interpolated_paths(&checked_for_paths(contract)?))
}

/// `contract` checked, and at most [`EXHAUSTIVE_STEPS`] steps long.
fn checked_for_paths(contract: &Contract) -> Result<ValidContract> {
    let option = contract.checked()?;
    if contract.steps > EXHAUSTIVE_STEPS {
        return Err(Error::InvalidInput(format!(
            "steps is {}; exhaustive pricing walks all 2^steps paths and takes at most {EXHAUSTIVE_STEPS}",
            contract.steps
        )));
    }
    Ok(option)
}

/// [`exhaustive`] of `option` (at most [`EXHAUSTIVE_STEPS`] steps) with the running extreme
/// starting at `extreme` (the spot where `None`); the lattice does not depend on it.
fn all_paths(option: &ValidContract, extreme: Option<f64>) -> f64 {
    let (contract, lattice) = (option.contract(), option.lattice());
    let paths = Paths {
        payoff: contract.payoff,
        american: contract.style == Style::American,
        steps: contract.steps,
        u: lattice.u,
        d: lattice.d,
        p: lattice.p,
        disc: lattice.disc,
    };
    let s = contract.market.spot;
    let extreme = extreme.unwrap_or(s);
    match contract.payoff {
        Payoff::LookbackPut => paths.value(0, s, extreme, s),
        Payoff::LookbackCall => paths.value(0, s, s, extreme),
        Payoff::Call { .. } | Payoff::Put { .. } => paths.value(0, s, s, s),
    }
}

/// [`exhaustive_interpolated`] of `option` (at most [`EXHAUSTIVE_STEPS`] steps).
fn interpolated_paths(option: &ValidContract) -> f64 {
    let (contract, lattice) = (option.contract(), option.lattice());
    let seasoning = option.seasoning();
    if seasoning.weight == 0.0 {
        return all_paths(option, contract.observed_extreme);
    }
    let log_u = contract.market.volatility * lattice.dt.sqrt();
    let sign = if contract.payoff == Payoff::LookbackPut {
        1.0
    } else {
        -1.0
    };
    let at = |state: usize| {
        all_paths(
            option,
            Some(contract.market.spot * (sign * state as f64 * log_u).exp()),
        )
    };
    let (below, above) = (at(seasoning.state), at(seasoning.state + 1));
    below + seasoning.weight * (above - below)
}

struct Paths {
    payoff: Payoff,
    american: bool,
    steps: usize,
    u: f64,
    d: f64,
    p: f64,
    disc: f64,
}

impl Paths {
    /// The value at step `t` with the stock at `s`, its running maximum `high` and minimum
    /// `low` (all including `s`).
    fn value(&self, t: usize, s: f64, high: f64, low: f64) -> f64 {
        let exercise = match self.payoff {
            Payoff::LookbackPut => high - s,
            Payoff::LookbackCall => s - low,
            Payoff::Call { strike } => (s - strike).max(0.0),
            Payoff::Put { strike } => (strike - s).max(0.0),
        };
        if t == self.steps {
            return exercise;
        }
        let (up, down) = (s * self.u, s * self.d);
        let continuation = self.disc
            * (self.p * self.value(t + 1, up, high.max(up), low.min(up))
                + (1.0 - self.p) * self.value(t + 1, down, high.max(down), low.min(down)));
        if self.american {
            continuation.max(exercise)
        } else {
            continuation
        }
    }
}

/// The Goldman–Sosin–Gatto (1979) closed form of the European floating-strike lookback with
/// continuous monitoring, whose running extreme starts at the spot: the put (`call == false`,
/// payoff max − S_T) or the call (payoff S_T − min); [`seasoned_lookback`] with the extreme
/// at the spot. The lattice monitors the extreme only at its N + 1 dates, so its European
/// price approaches this from below as N grows (the gap shrinks like S·σ·sqrt(dt)).
pub fn goldman_sosin_gatto(market: &Market, call: bool) -> f64 {
    seasoned_lookback(market, market.spot, call)
}

/// The continuous-monitoring price of a European floating-strike lookback already alive, its
/// running extreme so far `extreme` (the maximum for the put, `call == false`: extreme >= S;
/// the minimum for the call: extreme <= S), on a stock with dividend yield q: Goldman, Sosin
/// and Gatto (1979) with Conze and Viswanathan's (1991) running extreme and cost of carry
/// b = r − q:
///
/// ```text
/// call = S·e^(−qT)·N(a1) − m·e^(−rT)·N(a2)
///        + S·e^(−rT)·σ²/(2b)·[(S/m)^(−2b/σ²)·N(−a1 + 2b·sqrt(T)/σ) − e^(bT)·N(−a1)]
/// put  = M·e^(−rT)·N(−a2) − S·e^(−qT)·N(−a1)
///        + S·e^(−rT)·σ²/(2b)·[e^(bT)·N(a1) − (S/M)^(−2b/σ²)·N(a1 − 2b·sqrt(T)/σ)]
/// a1 = (ln(S/extreme) + (b + σ²/2)·T)/(σ·sqrt(T)),  a2 = a1 − σ·sqrt(T)
/// ```
///
/// Where the bracket's σ²/(2b) is 0/0 (|b·T| < 1e-7) its limit as b → 0 is used:
/// S·e^(−rT)·(σ·sqrt(T)·φ(a1) − (L + σ²T/2)·N(−a1)) for the call and
/// S·e^(−rT)·(σ·sqrt(T)·φ(a1) + (L + σ²T/2)·N(a1)) for the put, L = ln(S/extreme), with an
/// error of order b·T relative to the term.
pub fn seasoned_lookback(market: &Market, extreme: f64, call: bool) -> f64 {
    let Market {
        spot: s,
        maturity: t,
        volatility: sigma,
        rate: r,
        dividend_yield: q,
    } = *market;
    let b = r - q;
    let sd = sigma * t.sqrt();
    let log_ratio = (s / extreme).ln();
    let a1 = (log_ratio + (b + 0.5 * sigma * sigma) * t) / sd;
    let a2 = a1 - sd;
    let discount = (-r * t).exp();
    let carry = (-q * t).exp();
    let near_zero = (b * t).abs() < 1e-7;
    let drift = log_ratio + 0.5 * sd * sd;
    if call {
        let extreme_term = if near_zero {
            s * discount * (sd * density(a1) - drift * normal(-a1))
        } else {
            let x = 2.0 * b / (sigma * sigma);
            s * discount / x
                * ((s / extreme).powf(-x) * normal(-a1 + x * sd) - (b * t).exp() * normal(-a1))
        };
        s * carry * normal(a1) - extreme * discount * normal(a2) + extreme_term
    } else {
        let extreme_term = if near_zero {
            s * discount * (sd * density(a1) + drift * normal(a1))
        } else {
            let x = 2.0 * b / (sigma * sigma);
            s * discount / x
                * ((b * t).exp() * normal(a1) - (s / extreme).powf(-x) * normal(a1 - x * sd))
        };
        extreme * discount * normal(-a2) - s * carry * normal(-a1) + extreme_term
    }
}

/// The Black–Scholes–Merton price of a European call (`call == true`) or put with `strike`
/// on a stock with dividend yield q; the CRR lattice's European price converges to it.
pub fn black_scholes(market: &Market, strike: f64, call: bool) -> f64 {
    let Market {
        spot: s,
        maturity: t,
        volatility: sigma,
        rate: r,
        dividend_yield: q,
    } = *market;
    let sd = sigma * t.sqrt();
    let d1 = ((s / strike).ln() + (r - q + 0.5 * sigma * sigma) * t) / sd;
    let d2 = d1 - sd;
    let k = strike * (-r * t).exp();
    let forward = s * (-q * t).exp();
    if call {
        forward * normal(d1) - k * normal(d2)
    } else {
        k * normal(-d2) - forward * normal(-d1)
    }
}

/// Hull's Technical Note 13 example: the American floating-strike lookback put with S = 50,
/// σ = 0.4, r = 0.1, T = 0.25 on 3 steps, worth 5.47 (5.4701813761 to ten places).
pub fn hull_tn13() -> Contract {
    Contract {
        payoff: Payoff::LookbackPut,
        style: Style::American,
        market: Market {
            spot: 50.0,
            maturity: 0.25,
            volatility: 0.4,
            rate: 0.1,
            dividend_yield: 0.0,
        },
        steps: 3,
        observed_extreme: None,
        tree: Tree::Crr,
    }
}

/// The standard normal distribution function.
pub(crate) fn normal(x: f64) -> f64 {
    0.5 * erfc(-x * FRAC_1_SQRT_2)
}

/// The standard normal density.
pub(crate) fn density(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * PI).sqrt()
}

/// The complementary error function, by W. J. Cody's rational Chebyshev approximations
/// ("Rational Chebyshev approximations for the error function", Math. Comp. 1969; the
/// coefficients of netlib's specfun CALERF), accurate to about 1e-16 relative: Rust's
/// standard library has no erfc.
fn erfc(x: f64) -> f64 {
    const A: [f64; 5] = [
        3.161_123_743_870_565_6,
        1.138_641_541_510_501_6e2,
        3.774_852_376_853_02e2,
        3.209_377_589_138_469_5e3,
        1.857_777_061_846_031_5e-1,
    ];
    const B: [f64; 4] = [
        2.360_129_095_234_412_1e1,
        2.440_246_379_344_441_7e2,
        1.282_616_526_077_372_3e3,
        2.844_236_833_439_171e3,
    ];
    const C: [f64; 9] = [
        5.641_884_969_886_701e-1,
        8.883_149_794_388_376,
        6.611_919_063_714_163e1,
        2.986_351_381_974_001e2,
        8.819_522_212_417_69e2,
        1.712_047_612_634_070_6e3,
        2.051_078_377_826_071_5e3,
        1.230_339_354_797_997_2e3,
        2.153_115_354_744_038_5e-8,
    ];
    const D: [f64; 8] = [
        1.574_492_611_070_983_5e1,
        1.176_939_508_913_125e2,
        5.371_811_018_620_099e2,
        1.621_389_574_566_690_2e3,
        3.290_799_235_733_459_6e3,
        4.362_619_090_143_247e3,
        3.439_367_674_143_721_6e3,
        1.230_339_354_803_749_4e3,
    ];
    const P: [f64; 6] = [
        3.053_266_349_612_323_4e-1,
        3.603_448_999_498_044_4e-1,
        1.257_817_261_112_292_5e-1,
        1.608_378_514_874_228e-2,
        6.587_491_615_298_378e-4,
        1.631_538_713_730_209_8e-2,
    ];
    const Q: [f64; 5] = [
        2.568_520_192_289_822,
        1.872_952_849_923_460_5,
        5.279_051_029_514_284e-1,
        6.051_834_131_244_132e-2,
        2.335_204_976_268_691_8e-3,
    ];
    let y = x.abs();
    if y <= 0.46875 {
        let ysq = if y > 1.11e-16 { y * y } else { 0.0 };
        let (mut num, mut den) = (A[4] * ysq, ysq);
        for i in 0..3 {
            num = (num + A[i]) * ysq;
            den = (den + B[i]) * ysq;
        }
        return 1.0 - x * (num + A[3]) / (den + B[3]);
    }
    let tail = if y <= 4.0 {
        let (mut num, mut den) = (C[8] * y, y);
        for i in 0..7 {
            num = (num + C[i]) * y;
            den = (den + D[i]) * y;
        }
        (num + C[7]) / (den + D[7])
    } else if y >= 26.543 {
        0.0
    } else {
        let ysq = 1.0 / (y * y);
        let (mut num, mut den) = (P[5] * ysq, ysq);
        for i in 0..4 {
            num = (num + P[i]) * ysq;
            den = (den + Q[i]) * ysq;
        }
        (1.0 / PI.sqrt() - ysq * (num + P[4]) / (den + Q[4])) / y
    };
    // exp(−y²) in two factors, the first exact in its argument, to keep the relative accuracy.
    let ysq = (y * 16.0).trunc() / 16.0;
    let del = (y - ysq) * (y + ysq);
    let value = (-ysq * ysq).exp() * (-del).exp() * tail;
    if x < 0.0 {
        2.0 - value
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfc_matches_known_values() {
        // Values of erfc to 16 or 17 digits (the C library's, which is correctly rounded here).
        let cases = [
            (0.0, 1.0),
            (0.25, 0.723_673_609_831_763_1),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_13),
            (2.0, 0.004_677_734_981_047_265),
            (5.0, 1.537_459_794_428_035_1e-12),
            (-1.0, 1.842_700_792_949_715),
        ];
        for (x, want) in cases {
            let got = erfc(x);
            assert!(
                ((got - want) / want).abs() < 1e-14,
                "erfc({x}) = {got}, want {want}"
            );
        }
        assert!((normal(1.959_963_984_540_054) - 0.975).abs() < 1e-15);
    }

    #[test]
    fn hulls_example_by_brute_force() {
        let price = exhaustive(&hull_tn13()).unwrap();
        assert!((price - 5.470_181_376_133_774).abs() < 1e-12, "{price}");
    }

    #[test]
    fn brute_force_refuses_more_than_14_steps() {
        let contract = Contract {
            steps: 15,
            ..hull_tn13()
        };
        let err = exhaustive(&contract).unwrap_err();
        assert!(err.to_string().contains("steps is 15"), "{err}");
    }

    #[test]
    fn goldman_sosin_gatto_matches_the_reference_values() {
        // The gsg_continuous_european column of data/lookback-reference.csv.
        let market = |spot, maturity, volatility, rate| Market {
            spot,
            maturity,
            volatility,
            rate,
            dividend_yield: 0.0,
        };
        for (m, want) in [
            (market(50.0, 0.25, 0.4, 0.1), 7.790_219_259_9),
            (market(50.0, 0.35, 0.3, 0.1), 6.539_438_172_6),
            (market(50.0, 1.5, 0.3, 0.15), 10.492_581_146_6),
            (market(25.0, 0.75, 0.3, 0.1), 4.579_745_508_5),
        ] {
            let got = goldman_sosin_gatto(&m, false);
            assert!((got - want).abs() < 1e-9, "{m:?}: {got}, want {want}");
        }
    }

    #[test]
    fn goldman_sosin_gatto_is_continuous_at_a_zero_rate() {
        for call in [false, true] {
            let at = |rate| {
                goldman_sosin_gatto(
                    &Market {
                        spot: 50.0,
                        maturity: 0.5,
                        volatility: 0.3,
                        rate,
                        dividend_yield: 0.0,
                    },
                    call,
                )
            };
            let zero = at(0.0);
            assert!((zero - at(1e-5)).abs() < 1e-3, "call {call}: {zero}");
            assert!((zero - at(-1e-5)).abs() < 1e-3, "call {call}: {zero}");
            assert!((at(1e-5) - at(-1e-5)).abs() < 1e-3);
        }
    }

    #[test]
    fn black_scholes_matches_a_textbook_value_and_parity() {
        // Hull's example: S = 42, K = 40, r = 0.1, σ = 0.2, T = 0.5: call 4.76, put 0.81.
        let m = Market {
            spot: 42.0,
            maturity: 0.5,
            volatility: 0.2,
            rate: 0.1,
            dividend_yield: 0.0,
        };
        let (call, put) = (
            black_scholes(&m, 40.0, true),
            black_scholes(&m, 40.0, false),
        );
        assert!((call - 4.759_422_392_871_535).abs() < 1e-12, "{call}");
        assert!((put - 0.808_599_372_900_095_8).abs() < 1e-12, "{put}");
        assert!((call - put - (42.0 - 40.0 * (-0.05f64).exp())).abs() < 1e-12);
    }
}
