//! The Rust side of `bench/bench.py`: the same work as the Python calls, through the same
//! front doors, timed here after one untimed warm-up run (which opens the GPU, as the bench's
//! warm-up call does in Python), printed as one JSON line: `seconds` (the fastest trial) and
//! `trials` (every trial's seconds, in order, for the bench's medians).
//!
//! `same_work bfs GRAPH.tgr TRIALS SOURCE...`: `Graph::from_csr` on the graph's arrays (moved
//! in, as a Rust caller that owns them would), `bfs` from every source, hop counts as int32
//! with -1 unreached: what `thicket.bfs` does.
//! `same_work book OPTIONS STEPS TRIALS`: the book of OPTIONS American puts (spot 80 to 120
//! from an array, strike 100, 1 year, 25% volatility, 5% rate) built, priced by `price_book`
//! and its prices gathered into one array: what `thicket.price_book` does.

use std::time::Instant;

use thicket_core::{Backend, RunOptions};
use thicket_graph::{Graph, SearchOptions, INFINITE};
use thicket_lattice::{Contract, Market, Payoff, PriceOptions, Style};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let backend: Backend = std::env::var("BACKEND")
        .unwrap_or_else(|_| "cpu".into())
        .parse()?;
    let run = RunOptions {
        backend,
        quiet: true,
        ..RunOptions::default()
    };
    // Every timed trial's seconds; the run before them is the warm-up.
    let mut times = Vec::new();
    match args.first().map(String::as_str) {
        Some("bfs") => {
            let loaded = thicket_graph::io::read(std::path::Path::new(&args[1]))?;
            let trials: usize = args[2].parse()?;
            let sources = args[3..]
                .iter()
                .map(|s| s.parse())
                .collect::<Result<Vec<u32>, _>>()?;
            let options = SearchOptions {
                run,
                ..SearchOptions::default()
            };
            for _ in 0..=trials {
                let offsets = loaded.graph.offsets().to_vec();
                let targets = loaded.graph.targets().to_vec();
                let started = Instant::now();
                let graph = Graph::from_csr(offsets, targets, None)?;
                let paths = thicket_graph::bfs(&graph, &sources, &options)?.output.paths;
                let hops: Vec<i32> = paths
                    .iter()
                    .flat_map(|p| p.distances.iter())
                    .map(|&d| if d == INFINITE { -1 } else { d as i32 })
                    .collect();
                times.push(started.elapsed().as_secs_f64());
                std::hint::black_box(hops);
            }
        }
        Some("book") => {
            let (options, steps, trials): (usize, usize, usize) =
                (args[1].parse()?, args[2].parse()?, args[3].parse()?);
            // The spots as a caller holds them (Python passes them as an array): the book is
            // built from them inside the timed work, as `thicket.price_book` builds it.
            let spots: Vec<f64> = (0..options)
                .map(|i| 80.0 + 40.0 * i as f64 / (options.max(2) - 1) as f64)
                .collect();
            let price_options = PriceOptions {
                run,
                ..PriceOptions::default()
            };
            for _ in 0..=trials {
                let started = Instant::now();
                let book: Vec<Contract> = spots
                    .iter()
                    .map(|&spot| Contract {
                        payoff: Payoff::Put { strike: 100.0 },
                        style: Style::American,
                        market: Market {
                            spot,
                            maturity: 1.0,
                            volatility: 0.25,
                            rate: 0.05,
                            dividend_yield: 0.0,
                        },
                        steps,
                        observed_extreme: None,
                        tree: Default::default(),
                    })
                    .collect();
                let priced = thicket_lattice::price_book(&book, &price_options)?
                    .output
                    .priced;
                // The prices as one array, as Python returns them.
                let prices: Vec<f64> = priced.iter().map(|p| p.price).collect();
                times.push(started.elapsed().as_secs_f64());
                std::hint::black_box(prices);
            }
        }
        _ => {
            return Err(
                "usage: same_work bfs GRAPH.tgr TRIALS SOURCE... | book OPTIONS STEPS TRIALS"
                    .into(),
            )
        }
    }
    // The warm-up run is not reported.
    let times = &times[1..];
    let best = times.iter().copied().fold(f64::INFINITY, f64::min);
    let listed: Vec<String> = times.iter().map(f64::to_string).collect();
    println!(
        "{{\"seconds\": {best}, \"trials\": [{}]}}",
        listed.join(", ")
    );
    Ok(())
}
