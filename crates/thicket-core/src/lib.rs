//! What every thicket solver shares: the backend choice, the error type with its exit codes,
//! run reports, progress reported to an observer, CPU thread pools, and the kernel contract
//! ([`kernel::Kernel`]) with the one harness that runs any kernel as the command line asks
//! ([`kernel::benchmark_kernel`]).

pub mod backend;
pub mod cpu;
pub mod error;
pub mod files;
pub mod input;
pub mod kernel;
pub mod memory;
pub mod named;
pub mod output;
pub mod pipeline;
pub mod pool;
pub mod progress;
pub mod report;
pub mod splitmix;
pub mod text;

pub use backend::{backend_for, Backend};
pub use cpu::{cpu_path, CpuPath};
pub use error::{Error, Result};
pub use files::{
    write_atomically, write_atomically_sized, write_atomically_with, TEMPORARY_PREFIX,
};
pub use input::{
    is_stdio, read_bytes, read_bytes_with, read_text, without_bom, LineCheck, MAX_LINE_BYTES,
};
pub use kernel::{
    benchmark_kernel, object, with_fallback, Kernel, Measured, Placement, RunOptions,
};
pub use memory::{available_memory, check_fits};
pub use named::parse_named;
pub use output::{is_stdout, output_target, OutputTarget};
pub use pool::{available_threads, on_threads, pool, Workers};
pub use progress::{
    observe_progress, stop_requested, stoppable, Progress, ProgressObserver, ProgressView, StopFlag,
};
pub use report::RunInfo;
pub use splitmix::SplitMix;
pub use text::{input_name, number, os_reason, quoted, token};
