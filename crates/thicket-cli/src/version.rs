//! What `thicket --version` says: the version and git commit, the optional features built in,
//! and the CUDA the GPU code expects to find at run time.

/// The optional features this binary was built with, as `--version` lists them.
#[cfg(feature = "mpi")]
macro_rules! features {
    () => {
        "mpi (multi-node runs: --mpi)"
    };
}

/// The optional features this binary was built with, as `--version` lists them.
#[cfg(not(feature = "mpi"))]
macro_rules! features {
    () => {
        "none (mpi, for --mpi, needs `cargo build --features mpi`)"
    };
}

/// `thicket -V`: the version and the commit (`unknown` for a build outside a git checkout).
pub const SHORT_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("THICKET_GIT_HASH"),
    ")"
);

/// `thicket --version`: [`SHORT_VERSION`], the features and the CUDA requirement. The CUDA
/// lines follow the workspace's cudarc features (`cuda-13000`, `dynamic-loading`): the driver
/// API and NVRTC of CUDA 13, both loaded when a GPU is first used.
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\ncommit    ",
    env!("THICKET_GIT_HASH"),
    "\nfeatures  ",
    features!(),
    "\nCUDA      13 (driver API and NVRTC, loaded at run time; without them thicket runs on the CPU)",
    "\nNVRTC     libnvrtc.so.13 (CUDA 13.x), found through LD_LIBRARY_PATH or the system's loader",
    "\ndriver    one that supports CUDA 13.0 or newer (Linux 580.65.06 or newer), libcuda.so.1",
    "\n          `thicket devices` says whether a GPU is usable, and why not",
);
