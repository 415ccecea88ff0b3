use super::*;
use crate::contract::Market;
use crate::test_support::serial_of;
use thicket_core::SplitMix;

/// The `k`th random option's payoff: calls, puts and both lookbacks in turn, the vanillas'
/// strikes drawn from 30 to 70.
fn payoff_of(k: usize, uniform: &mut impl FnMut(f64, f64) -> f64) -> Payoff {
    match k % 4 {
        0 => Payoff::Call {
            strike: uniform(30.0, 70.0),
        },
        1 => Payoff::Put {
            strike: uniform(30.0, 70.0),
        },
        2 => Payoff::LookbackPut,
        _ => Payoff::LookbackCall,
    }
}

#[test]
fn a_thousand_random_options_on_every_tree_and_seasoned_round_trip() {
    let mut random = SplitMix::new(34);
    let mut uniform = |lo: f64, hi: f64| lo + (hi - lo) * random.unit();
    let mut worst: f64 = 0.0;
    let mut not_monotone = 0;
    for k in 0..1_000 {
        let payoff = payoff_of(k, &mut uniform);
        let contract = Contract {
            payoff,
            style: if k % 8 < 4 {
                Style::American
            } else {
                Style::European
            },
            market: Market {
                spot: 50.0,
                maturity: uniform(0.1, 2.0),
                volatility: uniform(0.05, 0.9),
                rate: uniform(0.0, 0.08),
                dividend_yield: uniform(0.0, 0.05),
            },
            steps: 10 + k % 23,
            observed_extreme: None,
            tree: Default::default(),
        };
        // Vanillas on every tree (Leisen–Reimer on odd steps); a third of the lookbacks
        // seasoned, their extreme up to 20% from the spot.
        let tree = Tree::ALL[(k / 4) % 4];
        let contract = match payoff {
            Payoff::Call { .. } | Payoff::Put { .. } => Contract {
                tree,
                steps: contract.steps | usize::from(tree == Tree::LeisenReimer),
                ..contract
            },
            Payoff::LookbackPut if k % 3 == 0 => Contract {
                observed_extreme: Some(50.0 * uniform(1.0, 1.2)),
                ..contract
            },
            Payoff::LookbackCall if k % 3 == 0 => Contract {
                observed_extreme: Some(50.0 / uniform(1.0, 1.2)),
                ..contract
            },
            _ => contract,
        };
        let price = serial_of(&contract, Precision::F64).price;
        // Far out of the money a price barely moves with the volatility: no vol to find.
        let mut flatter = contract;
        flatter.market.volatility *= 0.999;
        let moves = price - serial_of(&flatter, Precision::F64).price;
        if moves < 1e-9 {
            continue;
        }
        let volatility = match implied_volatility(&contract, price) {
            Ok(volatility) => volatility,
            // A seasoned lookback deep in the money (its extreme far from the spot) can
            // be worth a little less at a modest volatility than at the lowest: then the
            // price is truly below the lowest the search starts from.
            Err(e)
                if contract.observed_extreme.is_some()
                    && e.to_string().contains("below the lowest price") =>
            {
                not_monotone += 1;
                continue;
            }
            Err(e) => panic!("{contract:?}: {e}"),
        };
        let mut back = contract;
        back.market.volatility = volatility;
        let again = serial_of(&back, Precision::F64).price;
        assert!(
            (again - price).abs() < 1e-10 * price.max(1.0),
            "{contract:?}: {price} -> {volatility} -> {again}"
        );
        // A seasoned lookback's price wiggles with σ at the scale of the lattice's error
        // (its states move with σ): its quote is met, but maybe at another volatility.
        if contract.observed_extreme.is_none() {
            worst = worst.max((volatility - contract.market.volatility).abs());
        }
    }
    assert!(worst < 1e-8, "{worst}");
    assert!(not_monotone < 20, "{not_monotone}");
}

/// `count` random options with `steps_below` steps at most, priced, as a quotes book's
/// CSV text (an id column carried), without those whose price barely moves with the
/// volatility (no volatility to find there); and their prices.
fn quoted_book(count: usize, steps_below: usize, seed: u64) -> (String, Vec<f64>) {
    let mut random = SplitMix::new(seed);
    let mut uniform = |lo: f64, hi: f64| lo + (hi - lo) * random.unit();
    let mut text =
        String::from("id,payoff,style,spot,strike,maturity,rate,dividend_yield,steps,price\n");
    let mut prices = Vec::new();
    for k in 0..count {
        let payoff = payoff_of(k, &mut uniform);
        let style = if k % 8 < 4 {
            Style::American
        } else {
            Style::European
        };
        let contract = Contract {
            payoff,
            style,
            market: Market {
                spot: 50.0,
                maturity: uniform(0.1, 2.0),
                volatility: uniform(0.05, 0.9),
                rate: uniform(0.0, 0.08),
                dividend_yield: uniform(0.0, 0.05),
            },
            steps: 10 + k % steps_below.saturating_sub(10).max(1),
            observed_extreme: None,
            tree: Tree::Crr,
        };
        let price = serial_of(&contract, Precision::F64).price;
        let mut flatter = contract;
        flatter.market.volatility *= 0.999;
        if price - serial_of(&flatter, Precision::F64).price < 1e-9 {
            continue;
        }
        let m = &contract.market;
        let strike = payoff.strike().map(|k| k.to_string()).unwrap_or_default();
        text += &format!(
            "opt-{k},{},{},{},{strike},{},{},{},{},{price}\n",
            payoff.name(),
            style.name(),
            m.spot,
            m.maturity,
            m.rate,
            m.dividend_yield,
            contract.steps
        );
        prices.push(price);
    }
    (text, prices)
}

/// Prices -> the book's implied volatilities -> prices again, through the CSV both ways.
fn round_trip_through_a_book(count: usize, steps_below: usize) {
    let (text, prices) = quoted_book(count, steps_below, 34);
    let book = crate::parse_book_of("quotes.csv", &text, crate::BookKind::Quotes).unwrap();
    let implied = implied_book(&book).volatilities;
    let out = book.implied_csv(&implied);
    // The answer is a book to price: its volatility column is now filled.
    let priced = crate::parse_book("implied.csv", &out).unwrap();
    assert_eq!(priced.len(), prices.len());
    for (contract, price) in priced.contracts().iter().zip(&prices) {
        let again = serial_of(contract, Precision::F64).price;
        assert!(
            (again - price).abs() < 1e-10 * price.max(1.0),
            "{contract:?}: {price} -> {again}"
        );
    }
    assert!(out.starts_with("id,"), "the id column leads: {out:.40}");
}

#[test]
fn a_thousand_random_options_round_trip_through_a_quotes_book() {
    round_trip_through_a_book(1_000, 33);
}

#[test]
#[ignore = "ten thousand options up to 200 steps: slow in debug"]
fn ten_thousand_random_options_round_trip_through_a_quotes_book() {
    round_trip_through_a_book(10_000, 200);
}

#[test]
fn an_unattainable_quote_leaves_its_row_empty_with_a_note() {
    let text = "payoff,style,spot,strike,maturity,rate,steps,price\n\
                put,american,50,60,1,0.05,50,9\n\
                put,american,50,60,1,0.05,50,11.5\n";
    let book = crate::parse_book_of("q.csv", text, crate::BookKind::Quotes).unwrap();
    let implied = implied_book(&book).volatilities;
    assert!(implied[1].is_ok());
    let out = book.implied_csv(&implied);
    let second = out.lines().nth(1).unwrap();
    assert!(
        second.starts_with(
            "put,american,50,60,1,0.05,50,9,,\"line 2: price 9 is at or below the lowest \
             price no arbitrage allows for this american put, 10 = max(0, K − S, "
        ),
        "{second}"
    );
}

#[test]
fn unattainable_prices_are_one_line_naming_the_bound() {
    let contract = Contract {
        payoff: Payoff::Put { strike: 60.0 },
        style: Style::American,
        market: Market {
            spot: 50.0,
            maturity: 1.0,
            volatility: 0.3,
            rate: 0.05,
            dividend_yield: 0.0,
        },
        steps: 50,
        observed_extreme: None,
        tree: Default::default(),
    };
    let below = implied_volatility(&contract, 9.0).unwrap_err().to_string();
    assert!(below.contains("below the lowest price"), "{below}");
    let above = implied_volatility(&contract, 61.0).unwrap_err().to_string();
    assert!(above.contains("above the highest price"), "{above}");
    for text in [below, above] {
        assert!(!text.contains('\n'));
    }
    assert!(implied_volatility(&contract, f64::NAN).is_err());
}

/// A vanilla or lookback on S = 50, T = 1, r = 5%, q = 2%, 50 steps.
fn option(payoff: Payoff, style: Style) -> Contract {
    Contract {
        payoff,
        style,
        market: Market {
            spot: 50.0,
            maturity: 1.0,
            volatility: 0.3,
            rate: 0.05,
            dividend_yield: 0.02,
        },
        steps: 50,
        observed_extreme: None,
        tree: Tree::Crr,
    }
}

#[test]
fn a_price_at_a_no_arbitrage_bound_is_refused_naming_it() {
    let (bond, stock) = ((-0.05_f64).exp(), (-0.02_f64).exp());
    let put = Payoff::Put { strike: 60.0 };
    let call = Payoff::Call { strike: 40.0 };
    let far_put = Payoff::Put { strike: 40.0 };
    // (option, its lower bound, its upper bound)
    let cases = [
        (option(put, Style::American), 10.0, Some(60.0)),
        (
            option(put, Style::European),
            60.0 * bond - 50.0 * stock,
            Some(60.0 * bond),
        ),
        (
            option(call, Style::American),
            50.0 * stock - 40.0 * bond,
            Some(50.0),
        ),
        (
            option(call, Style::European),
            50.0 * stock - 40.0 * bond,
            Some(50.0 * stock),
        ),
        // Out of the money: 0, the price that returned the bottom of the bracket.
        (option(far_put, Style::American), 0.0, Some(40.0)),
        (option(Payoff::LookbackPut, Style::European), 0.0, None),
        // A fresh lookback call is worth at least the forward of the stock less the
        // spot, its minimum so far: S·e^(−qT) − S·e^(−rT).
        (
            option(Payoff::LookbackCall, Style::American),
            50.0 * stock - 50.0 * bond,
            Some(50.0),
        ),
    ];
    for (contract, lower, upper) in cases {
        let what = format!("{} {}", contract.style.name(), contract.payoff.name());
        for price in [lower, lower * 0.99] {
            let m = implied_volatility(&contract, price)
                .unwrap_err()
                .to_string();
            assert!(
                m.contains("at or below the lowest price no arbitrage allows")
                    && m.contains(&what)
                    && m.contains(&format!(", {} = max(0, ", number(lower))),
                "{what} at {price}: {m}"
            );
        }
        // Just above the lower bound a price is either found or below the lattice's
        // lowest: never the bottom of the bracket returned as an answer.
        if let Ok(volatility) = implied_volatility(&contract, lower + 1e-9) {
            let mut back = contract;
            back.market.volatility = volatility;
            let again = serial_of(&back, Precision::F64).price;
            assert!((again - lower - 1e-9).abs() < 1e-10, "{what}: {again}");
        }
        if let Some(upper) = upper {
            let m = implied_volatility(&contract, upper)
                .unwrap_err()
                .to_string();
            assert!(
                m.contains("at or above the highest price no arbitrage allows")
                    && m.contains(&format!(", {} = ", number(upper))),
                "{what}: {m}"
            );
        }
    }
    // A seasoned lookback put is worth its running maximum's lead, at least.
    let seasoned = Contract {
        observed_extreme: Some(60.0),
        ..option(Payoff::LookbackPut, Style::American)
    };
    let m = implied_volatility(&seasoned, 10.0).unwrap_err().to_string();
    assert!(
        m.contains("10 = max(0, M − S, M·e^(−rT) − S·e^(−qT)), M the running maximum"),
        "{m}"
    );
}

/// A put at the money on a stock at 100 over a year of 3 steps at a rate of 60% on
/// `tree`: its lattice is invalid at low volatilities on every tree, at high ones on
/// Tian's (whose d climbs back above 1) and Jarrow–Rudd's, and in a narrow gap near its
/// lowest on Leisen–Reimer's.
fn high_rate_put(tree: Tree) -> Contract {
    Contract {
        payoff: Payoff::Put { strike: 100.0 },
        market: Market {
            spot: 100.0,
            rate: 0.6,
            dividend_yield: 0.0,
            ..option(Payoff::LookbackPut, Style::American).market
        },
        steps: 3,
        tree,
        ..option(Payoff::LookbackPut, Style::American)
    }
}

#[test]
fn the_search_keeps_to_the_volatilities_whose_tree_is_valid() {
    for tree in Tree::ALL {
        let contract = high_rate_put(tree);
        let floor = |v: f64| with_volatility(&contract, v).validate().is_ok();
        let (low, high) = valid_range(&contract, 1e-6, &floor).unwrap();
        assert!(floor(low) && !floor(low * (1.0 - 1e-9)), "{tree:?} {low}");
        assert!(floor(high), "{tree:?} {high}");
        for volatility in [low * 1.01, 0.8] {
            let quote = serial_of(&with_volatility(&contract, volatility), Precision::F64).price;
            let found = implied_volatility(&contract, quote)
                .unwrap_or_else(|e| panic!("{tree:?} at {volatility}: {e}"));
            let again = serial_of(&with_volatility(&contract, found), Precision::F64).price;
            assert!(
                (again - quote).abs() < 1e-10,
                "{tree:?}: {quote} -> {found}"
            );
        }
    }
    // Tian's valid volatilities end below 10: its d climbs back above 1.
    let tian = high_rate_put(Tree::Tian);
    let (_, high) = valid_range(&tian, 1e-6, &|v| {
        with_volatility(&tian, v).validate().is_ok()
    })
    .unwrap();
    assert!((1.9..2.0).contains(&high), "{high}");
    // A drift no volatility of Tian's tree straddles (its d/exp((r − q)·dt) stays above
    // 3/4): one line naming the range searched and why its lattice is invalid.
    let never = Contract {
        market: Market {
            rate: 3.0,
            ..tian.market
        },
        ..tian
    };
    let m = implied_volatility(&never, 5.0).unwrap_err().to_string();
    assert!(
        m.contains("no volatility from")
            && m.contains("gives a valid lattice")
            && m.contains("tian tree"),
        "{m}"
    );
    assert!(!m.contains('\n'));
}

#[test]
fn a_search_stopped_before_the_call_is_interrupted() {
    let contract = Contract {
        payoff: Payoff::Put { strike: 52.0 },
        ..crate::verify::hull_tn13()
    };
    let flag = thicket_core::StopFlag::new();
    flag.raise();
    let stopped = thicket_core::stoppable(&flag, || implied_volatility(&contract, 5.0));
    assert!(matches!(stopped, Err(Error::Interrupted(_))), "{stopped:?}");
}

#[test]
fn a_quotes_book_stopped_from_another_thread_keeps_its_first_rows_within_half_a_second() {
    let mut text = String::from("payoff,style,spot,strike,maturity,rate,steps,price\n");
    for _ in 0..20_000 {
        text += "put,american,50,52,0.5,0.05,200,4.5\n";
    }
    let book = crate::parse_book_of("q.csv", &text, crate::BookKind::Quotes).unwrap();
    let first = implied_volatility(&book.contracts()[0], 4.5).unwrap();
    let flag = thicket_core::StopFlag::new();
    let raiser = flag.clone();
    let raised = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        raiser.raise();
        std::time::Instant::now()
    });
    let implied = thicket_core::stoppable(&flag, || implied_book(&book));
    let ended = std::time::Instant::now();
    let late = ended
        .saturating_duration_since(raised.join().unwrap())
        .as_secs_f64();
    // Generous: a debug build on a loaded CI machine; the half second is measured in
    // release by the Python package's interrupt tests.
    assert!(late < 5.0, "stopped {late} s after the request");
    assert!(implied.stopped);
    assert!(implied.volatilities.len() < book.len());
    assert!(implied
        .volatilities
        .iter()
        .all(|v| *v.as_ref().unwrap() == first));
}
