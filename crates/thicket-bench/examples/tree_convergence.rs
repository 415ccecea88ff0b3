//! The convergence of the four vanilla trees to Black–Scholes–Merton for a European put
//! (S = 100, K = 95, T = 1, σ = 0.2, r = 0.05, q = 0.02): |lattice − BSM| against N, on the
//! CPU (f64, one thread), as one SVG chart and a Markdown table for docs/lattice.md.
//!
//! ```console
//! $ cargo run --release -p thicket-bench --example tree_convergence -- docs/lattice-trees.svg
//! ```

use std::path::PathBuf;

use thicket_bench::chart::{line_chart_svg, Series};
use thicket_lattice::{
    black_scholes, price, Backend, Contract, Market, Payoff, PriceOptions, RunOptions, Strategy,
    Style, Tree,
};

const MARKET: Market = Market {
    spot: 100.0,
    maturity: 1.0,
    volatility: 0.2,
    rate: 0.05,
    dividend_yield: 0.02,
};
const STRIKE: f64 = 95.0;

fn main() -> thicket_lattice::Result<()> {
    let path: PathBuf = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "lattice-trees.svg".into())
        .into();
    let options = PriceOptions {
        run: RunOptions {
            backend: Backend::Cpu,
            quiet: true,
            ..RunOptions::default()
        },
        strategy: Some(Strategy::Serial),
        ..PriceOptions::default()
    };
    let want = black_scholes(&MARKET, STRIKE, false);
    // Odd step counts (Leisen–Reimer's), from 25 to about 6,400.
    let steps: Vec<usize> = (0..=16)
        .map(|k| (25.0 * 2f64.powf(k as f64 / 2.0)).round() as usize | 1)
        .collect();
    let mut series = vec![];
    let mut table = vec![];
    for tree in Tree::ALL {
        let mut points = vec![];
        for &n in &steps {
            let contract = Contract {
                payoff: Payoff::Put { strike: STRIKE },
                style: Style::European,
                market: MARKET,
                steps: n,
                observed_extreme: None,
                tree,
            };
            let got = price(&contract, &options)?.output.priced.price;
            points.push(((n as f64).log2(), (got - want).abs()));
        }
        table.push((tree, points.clone()));
        series.push(Series {
            name: tree.name().to_owned(),
            points,
        });
    }
    line_chart_svg(
        &path,
        "European put: |lattice - Black-Scholes-Merton| against N",
        "log2 N (N lattice steps, odd: 25 to 6,401)",
        "absolute error",
        &series,
        true,
    )?;
    println!("Black–Scholes–Merton: {want:.12}\n");
    println!("| N | crr | jarrow-rudd | tian | leisen-reimer |");
    println!("|---:|---:|---:|---:|---:|");
    for (row, &n) in steps.iter().enumerate() {
        let cells: Vec<String> = table
            .iter()
            .map(|(_, points)| format!("{:.2e}", points[row].1))
            .collect();
        println!("| {n} | {} |", cells.join(" | "));
    }
    Ok(())
}
