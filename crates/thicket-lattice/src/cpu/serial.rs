//! One option on one thread: a plain backward induction over two buffers of N + 1 values,
//! the speed-up reference of every other strategy.

use crate::contract::ValidContract;
use crate::scheme::read_out::{priced, Top};
use crate::scheme::{Precision, Priced, Real, Scheme};

/// Prices one option on one thread: a plain backward induction over two buffers of N + 1
/// values.
pub(crate) fn price_serial(valid: &ValidContract, precision: Precision) -> Priced {
    match precision {
        Precision::F32 => priced(&Scheme::<f32>::new(valid), serial),
        Precision::F64 => priced(&Scheme::<f64>::new(valid), serial),
    }
}

/// The induction from the leaves, layer by layer.
fn serial<T: Real>(scheme: &Scheme<T>) -> Top {
    let n = scheme.steps;
    let mut cur = scheme.leaves();
    let mut next = vec![T::ZERO; n + 1];
    let mut top = scheme.top();
    top.capture(n, &cur);
    descend(scheme, n, &mut cur, &mut next, &mut top);
    top
}

/// Layers `from − 1` down to today's (0, or a seasoned lookback's), one after the other;
/// `cur` holds layer `from`. Only the nodes today's price reads are computed
/// ([`Scheme::window`]: every node where the lattice starts today); a buffer's other values
/// are left as they were.
pub(crate) fn descend<T: Real>(
    scheme: &Scheme<T>,
    from: usize,
    cur: &mut Vec<T>,
    next: &mut Vec<T>,
    top: &mut Top,
) {
    for i in (scheme.today..from).rev() {
        // The caller's Ctrl-C (Python), every 64 layers: a stopped lattice's price is
        // discarded by the harness, so it may end here.
        if i % 64 == 0 && thicket_core::stop_requested() {
            return;
        }
        let (lo, hi) = scheme.window(i);
        scheme.step(i, lo, &mut next[lo..=hi], cur, 0);
        std::mem::swap(cur, next);
        top.capture(i, cur);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{Contract, Payoff, Style};
    use crate::test_support::*;
    use crate::verify::{black_scholes, exhaustive, goldman_sosin_gatto, hull_tn13};

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
                let got = serial_of(&contract, Precision::F64);
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
                let american = serial_of(
                    &lookback(Payoff::LookbackCall, Style::American, m, steps),
                    Precision::F64,
                );
                let european = serial_of(
                    &lookback(Payoff::LookbackCall, Style::European, m, steps),
                    Precision::F64,
                );
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
            let got = serial_of(&lookback(payoff, Style::European, m, 4_000), Precision::F64);
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
                let single = serial_of(&contract, Precision::F32).price;
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

    /// f32 at 100,000 steps against f64 at 10,000 steps (a binomial price's error falls as
    /// 1/steps, so the two step counts' prices differ by far less than the 1e-2 tolerance; an
    /// f64 lattice of 100,000 steps per case would double the test's time on CI); the four
    /// cases in parallel.
    #[test]
    #[ignore = "slow in debug builds: 100,000 steps"]
    fn vanilla_options_work_in_f32_on_100000_steps() {
        use rayon::prelude::*;
        let cases: Vec<(Payoff, [f64; 4])> =
            [Payoff::Call { strike: 50.0 }, Payoff::Put { strike: 50.0 }]
                .into_iter()
                .flat_map(|payoff| {
                    [[50.0, 1.0, 0.3, 0.05], [50.0, 10.0, 1.0, 0.05]].map(|m| (payoff, m))
                })
                .collect();
        cases.par_iter().for_each(|&(payoff, m)| {
            let single = serial_of(
                &lookback(payoff, Style::American, m, 100_000),
                Precision::F32,
            );
            let double = serial_of(
                &lookback(payoff, Style::American, m, 10_000),
                Precision::F64,
            );
            assert!(single.price.is_finite() && single.delta.is_finite());
            assert!(
                (single.price - double.price).abs() < 1e-2,
                "{single:?} {double:?}"
            );
        });
    }

    #[test]
    fn one_step_has_a_delta_and_zero_gamma() {
        for payoff in payoffs() {
            let got = serial_of(
                &lookback(payoff, Style::American, [50.0, 0.25, 0.4, 0.1], 1),
                Precision::F64,
            );
            assert!(
                got.price.is_finite() && got.delta.is_finite(),
                "{payoff:?} {got:?}"
            );
            assert_eq!(got.gamma, 0.0);
        }
    }
}
