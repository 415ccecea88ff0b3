//! The CUDA kernel modules of max flow.
