// Binomial lattices on the GPU (Solomon 2012, ch. 3; Hull, Technical Note 13; Cox-Ross-
// Rubinstein): the opening of the module lattice.cu, which kernels.rs makes of this header,
// thesis.cu (the thesis's per-layer kernel) and tiles.cu (thicket's tile kernel that advances
// many layers per launch with the values in registers), in that order.
//
// Host defines: TILE_BLOCK_NODES (the most nodes a block of the tile kernel holds: threads
// times nodes per lane), PARAM_DOUBLES (doubles per option in the parameter array), the
// offsets P_* of the parameters in it, the kinds KIND_LOOKBACK and KIND_VANILLA, TREE_CRR,
// FIRST_NODES and FIRST_VALUES (the nodes a layer and values an option kept for the
// read-out), LONG_THREADS (the block of one long lattice's kernels), and BOOKEND_THREADS (the block of the records and read-out kernels: bounded, so
// that a block fits an SM's registers whatever the compiler gives a thread).
#include "thicket.cuh"

#if !defined(TILE_BLOCK_NODES) || !defined(PARAM_DOUBLES) || !defined(KIND_VANILLA) || \
    !defined(FIRST_VALUES) || !defined(BOOKEND_THREADS) || !defined(LONG_THREADS)
#error "lattice.cu needs the host's defines (TILE_BLOCK_NODES, PARAM_DOUBLES, P_*)"
#endif

