//! Graphs: BFS on the GPU (Solomon 2012, ch. 4, and thicket's direction-optimizing search).

pub mod gpu;
pub mod kernels;
