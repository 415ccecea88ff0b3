//! The residual graph every solver works on: each input arc u → v is a pair of residual arcs,
//! u → v with the capacity left and v → u with the flow sent (the reverse arc that lets a
//! later augmentation cancel flow, which the thesis's MPM lacks). The arcs out of each vertex
//! lie together (CSR), each knowing its pair; the flow on input arc i is the residual
//! capacity of its reverse arc, so it stays within 0..=capacity by construction.

use rayon::prelude::*;

use crate::network::Network;

/// A residual graph with paired arcs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Residual {
    /// Vertices.
    pub vertices: u32,
    /// One entry per vertex and one more: the residual arcs out of `v` are
    /// `start[v]..start[v + 1]`.
    pub start: Vec<u32>,
    /// Each residual arc's head.
    pub head: Vec<u32>,
    /// Each residual arc's pair (the arc back).
    pub pair: Vec<u32>,
    /// Each residual arc's residual capacity.
    pub capacity: Vec<u64>,
    /// Input arc i's forward residual arc.
    pub forward: Vec<u32>,
}

/// Input arcs per part of the parallel build: below twice this, one part (no threads).
const ARCS_PER_PART: usize = 1 << 18;

impl Residual {
    /// The residual graph of the zero flow on `network`, built by as many threads as the
    /// arcs warrant (the same graph whatever their number: see [`Residual::build`]).
    pub fn new(network: &Network) -> Residual {
        let parts = rayon::current_num_threads()
            .min(network.arcs.len() / ARCS_PER_PART)
            .max(1);
        Residual::build(network, parts)
    }

    /// A counting sort of the residual arcs by tail, the input order kept within a vertex,
    /// in `parts` parts: each part counts its input arcs' ends per vertex; a prefix over
    /// vertices, then over parts, gives each part its first slot at every vertex, so each
    /// part places its arcs where the serial sort would; then each range of vertices writes
    /// its own slots. Every step is on disjoint slices, so no part waits for another.
    fn build(network: &Network, parts: usize) -> Residual {
        let n = network.vertices as usize;
        let m = network.arcs.len();
        let chunk = m.div_ceil(parts.max(1)).max(1);
        // Each part's residual arcs per vertex (tails and heads of its input arcs).
        let mut cursor: Vec<Vec<u32>> = network
            .arcs
            .par_chunks(chunk)
            .map(|arcs| {
                let mut count = vec![0u32; n];
                for a in arcs {
                    count[a.tail as usize] += 1;
                    count[a.head as usize] += 1;
                }
                count
            })
            .collect();
        // start[v] is the slots before v; a part's cursor at v starts after the earlier
        // parts' arcs at v. Fewer than 2^32 slots: a network has fewer than 2^31 arcs.
        let mut start = vec![0u32; n + 1];
        let mut total = 0u32;
        for v in 0..n {
            start[v] = total;
            for count in &mut cursor {
                let k = count[v];
                count[v] = total;
                total += k;
            }
        }
        start[n] = total;
        // Each input arc's two slots, by the part that holds it.
        let mut forward = vec![0u32; m];
        let mut reverse = vec![0u32; m];
        network
            .arcs
            .par_chunks(chunk)
            .zip(forward.par_chunks_mut(chunk))
            .zip(reverse.par_chunks_mut(chunk))
            .zip(cursor.par_iter_mut())
            .for_each(|(((arcs, forward), reverse), next)| {
                for ((a, f), r) in arcs.iter().zip(forward).zip(reverse) {
                    *f = next[a.tail as usize];
                    next[a.tail as usize] += 1;
                    *r = next[a.head as usize];
                    next[a.head as usize] += 1;
                }
            });
        drop(cursor);
        let slots = 2 * m;
        let mut head = vec![0u32; slots];
        let mut pair = vec![0u32; slots];
        let mut capacity = vec![0u64; slots];
        // Ranges of about slots / parts consecutive slots, each written by one thread that
        // reads every input arc and keeps the ends that fall in its range.
        let mut ranges = Vec::with_capacity(parts);
        let (mut head_rest, mut pair_rest, mut capacity_rest) =
            (&mut head[..], &mut pair[..], &mut capacity[..]);
        let mut low = 0usize;
        for part in 1..=parts.max(1) {
            let high = slots * part / parts.max(1);
            let (h, hr) = std::mem::take(&mut head_rest).split_at_mut(high - low);
            let (p, pr) = std::mem::take(&mut pair_rest).split_at_mut(high - low);
            let (c, cr) = std::mem::take(&mut capacity_rest).split_at_mut(high - low);
            ranges.push((low, h, p, c));
            (head_rest, pair_rest, capacity_rest) = (hr, pr, cr);
            low = high;
        }
        ranges
            .into_par_iter()
            .for_each(|(low, head, pair, capacity)| {
                let len = head.len();
                let in_range = |slot: u32| (slot as usize).checked_sub(low).filter(|&i| i < len);
                for ((a, &f), &r) in network.arcs.iter().zip(&forward).zip(&reverse) {
                    if let Some(i) = in_range(f) {
                        head[i] = a.head;
                        pair[i] = r;
                        capacity[i] = a.capacity;
                    }
                    if let Some(i) = in_range(r) {
                        head[i] = a.tail;
                        pair[i] = f;
                    }
                }
            });
        Residual {
            vertices: network.vertices,
            start,
            head,
            pair,
            capacity,
            forward,
        }
    }

    /// The residual arcs out of `v`.
    pub fn arcs(&self, v: u32) -> std::ops::Range<usize> {
        self.start[v as usize] as usize..self.start[v as usize + 1] as usize
    }

    /// The flow on every input arc.
    pub fn flows(&self) -> Vec<u64> {
        self.flows_from(&self.capacity, |c| c)
    }

    /// The flow on every input arc where `capacity` holds the residual capacities (as the
    /// GPU's signed words, converted by `value`), by as many threads as there are arcs for.
    pub(crate) fn flows_from<T: Copy + Sync>(
        &self,
        capacity: &[T],
        value: impl Fn(T) -> u64 + Sync,
    ) -> Vec<u64> {
        self.forward
            .par_iter()
            .with_min_len(ARCS_PER_PART)
            .map(|&f| value(capacity[self.pair[f as usize] as usize]))
            .collect()
    }

    /// Sends `amount` along residual arc `e` (at most its residual capacity).
    pub(crate) fn send(&mut self, e: usize, amount: u64) {
        self.capacity[e] -= amount;
        let p = self.pair[e] as usize;
        self.capacity[p] += amount;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::FlowArc;

    #[test]
    fn pairs_point_at_each_other_and_flows_read_back() {
        let arcs = vec![
            FlowArc {
                tail: 0,
                head: 1,
                capacity: 4,
            },
            FlowArc {
                tail: 1,
                head: 0,
                capacity: 2,
            },
            FlowArc {
                tail: 1,
                head: 2,
                capacity: 3,
            },
        ];
        let network = Network::new(3, 0, 2, arcs).unwrap();
        let mut r = Residual::new(&network);
        for e in 0..r.head.len() {
            assert_eq!(r.pair[r.pair[e] as usize] as usize, e);
        }
        r.send(r.forward[0] as usize, 3);
        r.send(r.forward[2] as usize, 3);
        assert_eq!(r.flows(), vec![3, 0, 3]);
    }

    /// The serial counting sort the parallel build replaced: the reference layout.
    fn serial(network: &Network) -> Residual {
        let n = network.vertices as usize;
        let mut start = vec![0u32; n + 1];
        for a in &network.arcs {
            start[a.tail as usize + 1] += 1;
            start[a.head as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut next = start.clone();
        let slots = 2 * network.arcs.len();
        let (mut head, mut pair, mut capacity) =
            (vec![0u32; slots], vec![0u32; slots], vec![0u64; slots]);
        let mut forward = Vec::new();
        for a in &network.arcs {
            let f = next[a.tail as usize];
            next[a.tail as usize] += 1;
            let r = next[a.head as usize];
            next[a.head as usize] += 1;
            head[f as usize] = a.head;
            head[r as usize] = a.tail;
            pair[f as usize] = r;
            pair[r as usize] = f;
            capacity[f as usize] = a.capacity;
            forward.push(f);
        }
        Residual {
            vertices: network.vertices,
            start,
            head,
            pair,
            capacity,
            forward,
        }
    }

    /// Any number of parts builds the serial sort's graph, on networks with self-loops,
    /// parallel and antiparallel arcs, isolated vertices, no arcs, and the thesis's graphs.
    #[test]
    fn the_parallel_build_equals_the_serial_one() {
        let mut rng = thicket_core::SplitMix::new(5);
        let mut networks = vec![crate::generate::Spec {
            family: crate::generate::Family::Random {
                vertices: 3000,
                degree: 12,
                max_capacity: 1000,
            },
            seed: 2,
        }
        .generate()
        .unwrap()];
        for case in 0..40 {
            let n = 2 + rng.below(30) as u32;
            let arcs = (0..rng.below(200) as usize)
                .map(|_| FlowArc {
                    tail: rng.below(u64::from(n)) as u32,
                    head: rng.below(u64::from(n)) as u32,
                    capacity: rng.below(100),
                })
                .collect();
            networks.push(Network::new(n, 0, 1 + case % (n - 1), arcs).unwrap());
        }
        for network in &networks {
            let reference = serial(network);
            for parts in [1, 2, 3, 7, 16] {
                assert_eq!(Residual::build(network, parts), reference, "{parts} parts");
            }
            assert_eq!(Residual::new(network), reference);
            assert_eq!(reference.flows(), vec![0; network.arcs.len()]);
        }
    }
}
