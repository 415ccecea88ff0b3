//! One long lattice on the caller's rayon pool, time-tiled: a block of layers costs one
//! barrier, and every node is computed as [`crate::cpu::serial`] computes it.

use crate::contract::ValidContract;
use crate::cpu::serial::descend;
use crate::scheme::read_out::{priced, Top};
use crate::scheme::{Precision, Priced, Real, Scheme};
use rayon::prelude::*;

/// Prices one option on the caller's rayon pool (the global one unless the caller installed
/// another), time-tiled: the nodes of a layer are cut into
/// chunks, and each chunk advances a block of layers on its own from the layer above the
/// block, recomputing a halo of one node per layer on each side, so a block costs one
/// barrier instead of one per layer. Every node is computed by the same operations as in
/// [`crate::cpu::serial`], so the results are bit-identical to it.
pub(crate) fn price_multicore(valid: &ValidContract, precision: Precision) -> Priced {
    price_tiled(valid, precision, Tiling::standard())
}

/// How [`price_multicore`] cuts the lattice: blocks of `depth` layers; chunks of about a
/// quarter of a thread's share of the layer, but at least `width` nodes; the last `tail`
/// layers on one thread.
#[derive(Debug, Clone, Copy)]
struct Tiling {
    depth: usize,
    width: usize,
    tail: usize,
}

impl Tiling {
    /// Blocks of 64 layers and chunks of at least 1,024 nodes (the halo then adds at most
    /// 1/16 of the work); the last 2,048 layers (a few milliseconds) run serially, where the
    /// chunks would be too few to share.
    fn standard() -> Tiling {
        Tiling {
            depth: 64,
            width: 1024,
            tail: 2048,
        }
    }

    /// The chunk width for a layer of `nodes` nodes on `threads` threads: four chunks per
    /// thread, so that uneven chunks at the layer's end even out.
    fn chunk(&self, nodes: usize, threads: usize) -> usize {
        nodes.div_ceil(4 * threads.max(1)).max(self.width).max(1)
    }
}

/// [`price_multicore`] cut as `tiling` says, its chunks sized for the current pool's threads.
fn price_tiled(valid: &ValidContract, precision: Precision, tiling: Tiling) -> Priced {
    let threads = rayon::current_num_threads();
    match precision {
        Precision::F32 => priced(&Scheme::<f32>::new(valid), |s| tiled(s, tiling, threads)),
        Precision::F64 => priced(&Scheme::<f64>::new(valid), |s| tiled(s, tiling, threads)),
    }
}

/// The time-tiled induction (see [`price_multicore`]), inside the caller's pool.
fn tiled<T: Real>(scheme: &Scheme<T>, tiling: Tiling, threads: usize) -> Top {
    let n = scheme.steps;
    let mut cur = scheme.leaves();
    let mut next = vec![T::ZERO; n + 1];
    let mut top = scheme.top();
    top.capture(n, &cur);
    // At least today's layer and the next run serially, so a block never ends below the
    // layers the price is read off.
    let tail = tiling.tail.max(2 + scheme.today);
    let mut i0 = n;
    while i0 > tail {
        // The caller's Ctrl-C (Python), once a block: see `descend`.
        if thicket_core::stop_requested() {
            return top;
        }
        let depth = tiling.depth.max(1).min(i0 - tail);
        let i1 = i0 - depth;
        let width = tiling.chunk(i1 + 1, threads);
        let old = &cur[..=i0];
        next[..=i1].par_chunks_mut(width).enumerate().for_each_init(
            || (Vec::new(), Vec::new()),
            |(buffer, spare), (c, out)| {
                block(scheme, old, i0, depth, c * width, out, buffer, spare);
            },
        );
        std::mem::swap(&mut cur, &mut next);
        top.capture(i1, &cur);
        i0 = i1;
    }
    descend(scheme, i0, &mut cur, &mut next, &mut top);
    top
}

/// One chunk of one block: nodes `a .. a + out.len()` of layer `i0 − depth`, from layer `i0`
/// in `old`. Layer i0 − t is computed on the chunk widened by depth − t nodes on each side
/// (clipped to the layer), exactly what the next layer down reads.
#[allow(clippy::too_many_arguments)]
fn block<T: Real>(
    scheme: &Scheme<T>,
    old: &[T],
    i0: usize,
    depth: usize,
    a: usize,
    out: &mut [T],
    buffer: &mut Vec<T>,
    spare: &mut Vec<T>,
) {
    let b = a + out.len();
    // Sized once per task and never cleared: zero-filling each layer would cost a pass.
    let span = out.len() + 2 * depth;
    for scratch in [&mut *buffer, &mut *spare] {
        if scratch.len() < span {
            scratch.resize(span, T::ZERO);
        }
    }
    let mut base = a.saturating_sub(depth);
    let first = &old[base..(b + depth).min(i0 + 1)];
    buffer[..first.len()].copy_from_slice(first);
    let mut len = first.len();
    for t in 1..depth {
        let i = i0 - t;
        let lo = a.saturating_sub(depth - t);
        let hi = (b + depth - t).min(i + 1);
        scheme.step(i, lo, &mut spare[..hi - lo], &buffer[..len], base);
        std::mem::swap(buffer, spare);
        (base, len) = (lo, hi - lo);
    }
    scheme.step(i0 - depth, a, out, &buffer[..len], base);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{Contract, Payoff, Style};
    use crate::test_support::*;
    use crate::trees::Tree;

    /// `price` on a pool of `threads` threads, as a caller who installs one runs it.
    fn on_threads(threads: usize, price: impl FnOnce() -> Priced + Send) -> Priced {
        thicket_core::pool(threads).unwrap().install(price)
    }

    fn assert_tiled_equals_serial(steps: usize, tilings: &[Tiling], threads: &[usize]) {
        for payoff in payoffs() {
            for style in [Style::American, Style::European] {
                let contract = lookback(payoff, style, [50.0, 0.75, 0.3, 0.1], steps);
                for precision in [Precision::F64, Precision::F32] {
                    let serial = serial_of(&contract, precision);
                    for &tiling in tilings {
                        for &t in threads {
                            let tiled = on_threads(t, || {
                                price_tiled(&contract.checked().unwrap(), precision, tiling)
                            });
                            assert_eq!(
                                serial, tiled,
                                "{payoff:?} {style:?} {precision} {tiling:?} {t} threads"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn multicore_equals_serial_exactly_on_1000_steps() {
        let tilings = [
            Tiling {
                depth: 7,
                width: 37,
                tail: 2,
            },
            Tiling {
                depth: 64,
                width: 100,
                tail: 3,
            },
            Tiling {
                depth: 1,
                width: 1,
                tail: 2,
            },
            Tiling::standard(),
        ];
        assert_tiled_equals_serial(1_000, &tilings, &[1, 3, 4]);
        assert_tiled_equals_serial(5, &tilings, &[2]);
        let contract = lookback(
            Payoff::LookbackPut,
            Style::American,
            [50.0, 0.35, 0.3, 0.1],
            1_000,
        );
        assert_eq!(
            on_threads(3, || price_multicore(
                &contract.checked().unwrap(),
                Precision::F64
            )),
            serial_of(&contract, Precision::F64)
        );
    }

    #[test]
    fn multicore_equals_serial_exactly_on_other_trees_and_seasoned_lookbacks() {
        let tiling = Tiling {
            depth: 7,
            width: 37,
            tail: 2,
        };
        let mut contracts = vec![];
        for tree in Tree::ALL {
            for payoff in [Payoff::Call { strike: 55.0 }, Payoff::Put { strike: 55.0 }] {
                contracts.push(Contract {
                    tree,
                    ..lookback(payoff, Style::American, [50.0, 0.75, 0.3, 0.1], 601)
                });
            }
        }
        // States 0 … 40 of the lattice, and between them: today's layer is well inside the
        // blocks, which must stop above it.
        for (payoff, extreme) in [
            (Payoff::LookbackPut, 57.0),
            (Payoff::LookbackPut, 80.0),
            (Payoff::LookbackCall, 41.0),
        ] {
            contracts.push(Contract {
                observed_extreme: Some(extreme),
                ..lookback(payoff, Style::American, [50.0, 0.75, 0.3, 0.1], 600)
            });
        }
        for contract in contracts {
            for precision in [Precision::F64, Precision::F32] {
                assert_eq!(
                    on_threads(3, || price_tiled(
                        &contract.checked().unwrap(),
                        precision,
                        tiling
                    )),
                    serial_of(&contract, precision),
                    "{contract:?} {precision}"
                );
            }
        }
    }

    #[test]
    fn multicore_equals_serial_exactly_on_20000_steps_for_one_case() {
        let contract = lookback(
            Payoff::LookbackPut,
            Style::American,
            [25.0, 0.75, 0.3, 0.1],
            20_000,
        );
        let tiling = Tiling {
            depth: 61,
            width: 777,
            tail: 2,
        };
        assert_eq!(
            on_threads(3, || price_tiled(
                &contract.checked().unwrap(),
                Precision::F64,
                tiling
            )),
            serial_of(&contract, Precision::F64)
        );
    }

    #[test]
    #[ignore = "slow in debug builds: 20,000 steps, many thread counts"]
    fn multicore_equals_serial_exactly_on_20000_steps() {
        let tilings = [
            Tiling {
                depth: 61,
                width: 777,
                tail: 2,
            },
            Tiling::standard(),
        ];
        assert_tiled_equals_serial(20_000, &tilings, &[2, 5, 8]);
    }
}
