//! Binomial-lattice option pricing, the CPU half: Solomon (2012), *Parallel Algorithm Design
//! and Implementation of Regular/Irregular Problems*, ch. 3 (digest:
//! `shared/docs/seed-004-digest.md`, section 1), which prices Hull's (Technical Note 13)
//! American floating-strike lookback put on a Cox–Ross–Rubinstein lattice; here also the
//! floating-strike lookback call and vanilla calls and puts, American and European.
//!
//! - [`contract`]: what is priced ([`Contract`]) and its CRR parameters ([`Lattice`]).
//! - [`cpu`]: the lattices in `f32` or `f64` on one thread ([`price_serial`]), on many
//!   ([`price_multicore`], time-tiled, bit-identical to serial), and many options at once
//!   ([`price_batch`]), with delta and gamma.
//! - [`verify`]: independent references: every path of the tree for small N
//!   ([`verify::exhaustive`]), the Goldman–Sosin–Gatto and Black–Scholes closed forms, and
//!   Hull's example.
//! - [`batch`]: books of options as CSV.
//! - [`bench`](mod@bench): `thicket bench lookback` (the steps sweep, the books, the convergence table).
//!
//! The reference prices in `data/` (see `data/SOURCE.md`) were computed outside thicket.

pub mod batch;
pub mod bench;
pub mod contract;
pub mod cpu;
mod gpu;
pub mod kernels;
mod run;
mod tile_shape;
pub mod verify;

pub use batch::{read_batch, write_atomically, write_batch_csv};
pub use contract::{Contract, Lattice, Market, Payoff, Style};
pub use cpu::{price_batch, price_multicore, price_serial, Precision, Priced};
pub use run::{
    lattice_nodes, price, price_book, BookRun, LatticeRun, PriceOptions, Strategy, HYBRID_THRESHOLD,
};
