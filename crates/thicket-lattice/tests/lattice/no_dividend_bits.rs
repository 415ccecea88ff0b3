//! A dividend yield of 0 leaves every price bit-for-bit what it was before the dividend input
//! existed: `data/no-dividend-bits.txt` holds the f64 bits of price, delta and gamma that the
//! serial lattice computed before it (every payoff and style, f32 and f64, 3 to 2,500 steps).

use thicket_lattice::{
    price, Backend, Contract, Market, Payoff, Precision, PriceOptions, RunOptions, Strategy, Style,
};

#[test]
fn zero_dividends_price_bit_for_bit_as_before() {
    let text = include_str!("../../data/no-dividend-bits.txt");
    let mut lines = text.lines();
    let mut checked = 0;
    for payoff in [
        Payoff::LookbackPut,
        Payoff::LookbackCall,
        Payoff::Call { strike: 52.0 },
        Payoff::Put { strike: 47.0 },
    ] {
        for style in [Style::American, Style::European] {
            for (m, steps) in [
                ([50.0, 0.35, 0.3, 0.1], 3),
                ([42.0, 1.5, 0.25, 0.05], 777),
                ([30.0, 0.5, 0.45, -0.01], 2500),
            ] {
                for precision in [Precision::F32, Precision::F64] {
                    let contract = Contract {
                        payoff,
                        style,
                        market: Market {
                            spot: m[0],
                            maturity: m[1],
                            volatility: m[2],
                            rate: m[3],
                            dividend_yield: 0.0,
                        },
                        steps,
                        observed_extreme: None,
                        tree: Default::default(),
                    };
                    let options = PriceOptions {
                        run: RunOptions {
                            backend: Backend::Cpu,
                            quiet: true,
                            ..RunOptions::default()
                        },
                        strategy: Some(Strategy::Serial),
                        precision,
                        ..PriceOptions::default()
                    };
                    let p = price(&contract, &options).unwrap().output.priced;
                    let line = lines.next().unwrap();
                    let want: Vec<&str> = line.split(' ').skip(4).collect();
                    let got = [p.price, p.delta, p.gamma].map(|x| format!("{:x}", x.to_bits()));
                    assert_eq!(got.to_vec(), want, "{line}");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 48);
}
