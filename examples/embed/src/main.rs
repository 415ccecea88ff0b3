//! A stranger's program: prices an option, runs BFS on an in-memory graph and a max flow on
//! an in-memory network, through thicket's libraries alone. The libraries print nothing; this
//! program writes one line of its own answers to a file given as its argument (so that its
//! stdout and stderr must stay empty).

use thicket_flow::{maxflow, MaxflowOptions, Network};
use thicket_graph::{bfs, Graph, SearchOptions};
use thicket_lattice::{price, Contract, Market, Payoff, PriceOptions, Style};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let put = Contract {
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
        tree: Default::default(),
    };
    let priced = price(&put, &PriceOptions::default())?;
    let graph = Graph::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4)])?;
    let searched = bfs(&graph, &[0, 4], &SearchOptions::default())?;
    let network = Network::from_arrays(4, &[0, 0, 1, 2], &[1, 2, 3, 3], &[3, 2, 2, 3], 0, 3)?;
    let flow = maxflow(&network, &MaxflowOptions::default())?;
    let line = format!(
        "price {:.4} notes {:?}; bfs hops from 0 {:?}, from 4 {:?}; flow {}\n",
        priced.output.priced.price,
        priced.info.notes,
        searched.output.paths[0].distances,
        searched.output.paths[1].distances,
        flow.output.answer.value
    );
    let out = std::env::args().nth(1).ok_or("an output file")?;
    std::fs::write(out, line)?;
    Ok(())
}
