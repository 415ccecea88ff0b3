//! Shared pieces of every thicket solver: the backend choice, the error type with its exit
//! codes, run reports and timings, progress reporting on the terminal, the benchmark harness,
//! SVG charts of its results and the run ledger.

pub mod backend;
pub mod bench;
pub mod chart;
pub mod error;
pub mod ledger;
pub mod progress;
pub mod report;

pub use backend::Backend;
pub use error::{Error, Result};
pub use progress::Progress;
pub use report::RunInfo;
