//! Binomial-lattice option pricing: Solomon (2012), *Parallel Algorithm Design and
//! Implementation of Regular/Irregular Problems*, ch. 3, which prices Hull's (Technical Note
//! 13) American floating-strike lookback put on a Cox–Ross–Rubinstein lattice; here also the
//! floating-strike lookback call and vanilla calls and puts, American and European, with
//! delta and gamma, in `f32` or `f64`.
//!
//! [`price`] prices one [`Contract`] and [`price_book`] many, on a [`Strategy`]: one CPU
//! thread, the caller's rayon pool (time-tiled, bit-identical to one thread), the thesis's GPU
//! kernel and its hybrid, or thicket's tile kernel (many layers per launch, a block per option
//! of a book). A process opens each GPU once, on its first GPU call, and keeps its kernels and
//! buffers for every later call. Every answer can be checked ([`verify`]) against brute force
//! over every path of the tree, and the lattices approach the closed forms
//! ([`goldman_sosin_gatto`], [`black_scholes`]) as N grows. Books read from and write to CSV
//! ([`read_book`], [`Book::priced_csv`]). A book runs on thicket-core's solve pipeline
//! ([`thicket_core::pipeline`]), an option an item, on every strategy: progress over its
//! options, each option checked as it comes, and a book on the CPU, or a book of implied
//! volatilities ([`implied_book`]), that its caller stops ([`thicket_core::stoppable`]: Ctrl-C
//! in Python) ends with its first options answered, marked stopped. The reference prices in
//! `data/` (see `data/SOURCE.md`) were computed outside thicket.
//!
//! ```
//! use thicket_lattice::{price, Backend, Contract, Market, Payoff, PriceOptions, RunOptions, Style, Tree};
//!
//! // Hull's example: an American floating-strike lookback put on 3 steps.
//! let put = Contract {
//!     payoff: Payoff::LookbackPut,
//!     style: Style::American,
//!     market: Market { spot: 50.0, maturity: 0.25, volatility: 0.4, rate: 0.1, dividend_yield: 0.0 },
//!     steps: 3,
//!     observed_extreme: None,
//!     tree: Tree::Crr,
//! };
//! let options = PriceOptions {
//!     run: RunOptions { backend: Backend::Cpu, verify: true, ..RunOptions::default() },
//!     ..PriceOptions::default()
//! };
//! let run = price(&put, &options)?;
//! assert!((run.output.priced.price - 5.4702).abs() < 1e-4);
//! assert_eq!(run.verified, Some(true));
//! # Ok::<(), thicket_lattice::Error>(())
//! ```

mod book;
mod book_csv;
mod contract;
mod cpu;
mod gpu;
mod greeks;
mod implied;
pub mod kernels;
#[cfg(feature = "ledger")]
mod ledgered;
mod report;
mod run;
mod scheme;
mod strategy;
#[cfg(test)]
mod test_support;
mod tile_shape;
mod trees;
mod verify;

pub use book_csv::{
    parse_book, parse_book_of, parse_book_with, read_book, read_book_of, read_book_with, Book,
    BookKind, OnError,
};
pub use contract::{Contract, Lattice, Market, Payoff, Style};
pub use implied::{implied_book, implied_volatility, ImpliedBook, MAX_IMPLIED_VOLATILITY};
#[cfg(feature = "ledger")]
pub use ledgered::{
    merge_book, price_book_ledgered, BookBatches, BookBatching, BookPricer, LedgeredBook,
    BOOK_BATCH_SIZE,
};
pub use report::{lattice_nodes, BookRun, LatticeRun};
pub use run::{price, price_book, PriceOptions};
pub use scheme::{Precision, Priced};
pub use strategy::{Strategy, HYBRID_THRESHOLD};
pub use thicket_core::{Backend, Error, Measured, Result, RunOptions};
pub use trees::Tree;
pub use verify::{
    black_scholes, exhaustive, exhaustive_interpolated, goldman_sosin_gatto, hull_tn13,
    seasoned_lookback, verify, EXHAUSTIVE_STEPS,
};
