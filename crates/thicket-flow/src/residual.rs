//! The residual graph every solver works on: each input arc u → v is a pair of residual arcs,
//! u → v with the capacity left and v → u with the flow sent (the reverse arc that lets a
//! later augmentation cancel flow, which the thesis's MPM lacks). The arcs out of each vertex
//! lie together (CSR), each knowing its pair; the flow on input arc i is the residual
//! capacity of its reverse arc, so it stays within 0..=capacity by construction.

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

impl Residual {
    /// The residual graph of the zero flow on `network`.
    pub fn new(network: &Network) -> Residual {
        let n = network.vertices as usize;
        let slots = 2 * network.arcs.len();
        let mut start = vec![0u32; n + 1];
        for a in &network.arcs {
            start[a.tail as usize + 1] += 1;
            start[a.head as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut next = start.clone();
        let mut head = vec![0u32; slots];
        let mut pair = vec![0u32; slots];
        let mut capacity = vec![0u64; slots];
        let mut forward = Vec::with_capacity(network.arcs.len());
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

    /// The residual arcs out of `v`.
    pub fn arcs(&self, v: u32) -> std::ops::Range<usize> {
        self.start[v as usize] as usize..self.start[v as usize + 1] as usize
    }

    /// The flow on every input arc.
    pub fn flows(&self) -> Vec<u64> {
        self.forward
            .iter()
            .map(|&f| self.capacity[self.pair[f as usize] as usize])
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
}
