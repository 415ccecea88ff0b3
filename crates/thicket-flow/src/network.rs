//! A flow network as read: vertices numbered from 0, a source, a sink and the arcs with their
//! capacities in input order (parallel arcs, antiparallel pairs, self-loops, zero
//! capacities, arcs into the source and out of the sink all kept: the solvers handle them).
//!
//! Flows are 64-bit. Every sum a solver forms (an excess, a potential, the flow value) is at
//! most the sum of all capacities, so a network is accepted only where that sum fits an
//! `i64`: then no solver, CPU or GPU, can overflow, and the GPU may use signed atomics.

use thicket_core::{Error, Result};

/// One arc: tail, head and capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowArc {
    /// Where it starts (0-based).
    pub tail: u32,
    /// Where it ends (0-based).
    pub head: u32,
    /// How much it carries at most.
    pub capacity: u64,
}

/// The largest sum of capacities a network may have (flows are signed 64-bit on the GPU).
pub const MAX_TOTAL_CAPACITY: u64 = i64::MAX as u64;

/// An s-t flow network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Network {
    /// Vertices, numbered 0..vertices.
    pub vertices: u32,
    /// The source (0-based).
    pub source: u32,
    /// The sink (0-based).
    pub sink: u32,
    /// The arcs in input order.
    pub arcs: Vec<FlowArc>,
    /// Comment lines a file writer puts first (without the `c `).
    pub comments: Vec<String>,
}

impl Network {
    /// Checks and builds a network: at least two vertices, fewer than 2^32 - 1, the source
    /// and sink distinct vertices, every arc between vertices, fewer than 2^31 arcs (each is
    /// two residual arcs, indexed by 32 bits), and the capacities' sum within
    /// [`MAX_TOTAL_CAPACITY`].
    pub fn new(vertices: u32, source: u32, sink: u32, arcs: Vec<FlowArc>) -> Result<Network> {
        if vertices < 2 || vertices == u32::MAX {
            return Err(Error::InvalidInput(format!(
                "a flow network has 2 to {} vertices, not {vertices}",
                u32::MAX - 1
            )));
        }
        for (what, v) in [("source", source), ("sink", sink)] {
            if v >= vertices {
                return Err(Error::InvalidInput(format!(
                    "the {what} {v} is not a vertex (0..{vertices})"
                )));
            }
        }
        if source == sink {
            return Err(Error::InvalidInput(format!(
                "the source and the sink are the same vertex ({source})"
            )));
        }
        if arcs.len() >= 1 << 31 {
            return Err(Error::InvalidInput(format!(
                "{} arcs: at most 2^31 - 1 fit the residual graph's 32-bit arc ids",
                arcs.len()
            )));
        }
        let mut total: u64 = 0;
        for (i, arc) in arcs.iter().enumerate() {
            if arc.tail >= vertices || arc.head >= vertices {
                return Err(Error::InvalidInput(format!(
                    "arc {i} ({} -> {}) names a vertex outside 0..{vertices}",
                    arc.tail, arc.head
                )));
            }
            total = total
                .checked_add(arc.capacity)
                .filter(|&t| t <= MAX_TOTAL_CAPACITY)
                .ok_or_else(|| overflow(i))?;
        }
        Ok(Network {
            vertices,
            source,
            sink,
            arcs,
            comments: Vec::new(),
        })
    }

    /// Builds a network from parallel arrays, as a caller holding its graph in memory has it:
    /// arc `i` goes from `tails[i]` to `heads[i]` with capacity `capacities[i]`. Everything
    /// [`Network::new`] checks is checked, and also that the arrays have one length and that
    /// no capacity is negative: a bad input is an [`Error::InvalidInput`] that says what is
    /// wrong where, never a panic.
    ///
    /// ```
    /// use thicket_flow::Network;
    ///
    /// let network = Network::from_arrays(4, &[0, 0, 1, 2], &[1, 2, 3, 3], &[3, 2, 2, 3], 0, 3)?;
    /// assert_eq!(network.arc_count(), 4);
    /// assert!(Network::from_arrays(4, &[0], &[9], &[1], 0, 3).is_err());
    /// assert!(Network::from_arrays(4, &[0], &[1], &[-1], 0, 3).is_err());
    /// assert!(Network::from_arrays(4, &[0], &[1], &[1], 2, 2).is_err());
    /// # Ok::<(), thicket_flow::Error>(())
    /// ```
    pub fn from_arrays(
        vertices: u32,
        tails: &[u32],
        heads: &[u32],
        capacities: &[i64],
        source: u32,
        sink: u32,
    ) -> Result<Network> {
        if tails.len() != heads.len() || tails.len() != capacities.len() {
            return Err(Error::InvalidInput(format!(
                "{} tails, {} heads and {} capacities: one of each per arc",
                tails.len(),
                heads.len(),
                capacities.len()
            )));
        }
        let arcs = tails
            .iter()
            .zip(heads)
            .zip(capacities)
            .enumerate()
            .map(|(i, ((&tail, &head), &capacity))| {
                let capacity = u64::try_from(capacity).map_err(|_| {
                    Error::InvalidInput(format!(
                        "arc {i} ({tail} -> {head}) has a negative capacity ({capacity})"
                    ))
                })?;
                Ok(FlowArc {
                    tail,
                    head,
                    capacity,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Network::new(vertices, source, sink, arcs)
    }

    /// The number of arcs.
    pub fn arc_count(&self) -> usize {
        self.arcs.len()
    }

    /// The sum of all capacities (fits an `i64` by construction).
    pub fn total_capacity(&self) -> u64 {
        self.arcs.iter().map(|a| a.capacity).sum()
    }
}

/// The error of capacities whose sum passes [`MAX_TOTAL_CAPACITY`] at arc `index`.
pub(crate) fn overflow(index: usize) -> Error {
    Error::InvalidInput(format!(
        "the capacities up to arc {index} sum to more than 2^63 - 1, which overflows the 64-bit \
         flow type"
    ))
}

/// Bytes a solve takes at most per vertex (labels, excesses, potentials, queues, the
/// residual graph's offsets) and per arc (two residual arcs, the flow, the certificate): a
/// generous bound for the check before any of it is allocated.
const SOLVE_BYTES_PER_VERTEX: u64 = 96;
/// See [`SOLVE_BYTES_PER_VERTEX`].
const SOLVE_BYTES_PER_ARC: u64 = 96;

impl Network {
    /// Refuses, before allocating, a network whose solve would not fit this machine's memory
    /// (a file may declare four billion vertices on one line).
    pub(crate) fn check_solve_fits(&self) -> Result<()> {
        let bytes = u64::from(self.vertices)
            .checked_mul(SOLVE_BYTES_PER_VERTEX)
            .and_then(|v| {
                (self.arcs.len() as u64)
                    .checked_mul(SOLVE_BYTES_PER_ARC)
                    .and_then(|a| a.checked_add(v))
            });
        thicket_core::check_fits(
            &format!(
                "a maximum flow of {} vertices and {} arcs",
                self.vertices,
                self.arcs.len()
            ),
            bytes,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arc(tail: u32, head: u32, capacity: u64) -> FlowArc {
        FlowArc {
            tail,
            head,
            capacity,
        }
    }

    #[test]
    fn bad_networks_are_refused_with_why() {
        let cases: [(u32, u32, u32, Vec<FlowArc>, &str); 5] = [
            (1, 0, 0, vec![], "2 to"),
            (3, 0, 3, vec![], "sink 3 is not a vertex"),
            (3, 1, 1, vec![], "same vertex (1)"),
            (3, 0, 2, vec![arc(0, 5, 1)], "outside 0..3"),
            (
                3,
                0,
                2,
                vec![arc(0, 1, u64::MAX / 2), arc(1, 2, u64::MAX / 2)],
                "overflows the 64-bit flow type",
            ),
        ];
        for (n, s, t, arcs, message) in cases {
            let err = Network::new(n, s, t, arcs).unwrap_err();
            assert!(err.to_string().contains(message), "{err}");
            assert_eq!(err.exit_code(), 2);
        }
        let ok = Network::new(3, 0, 2, vec![arc(0, 1, 5), arc(1, 2, 7)]).unwrap();
        assert_eq!(ok.total_capacity(), 12);
    }

    #[test]
    fn networks_from_arrays_are_checked_like_any_other() {
        let built = Network::from_arrays(3, &[0, 1], &[1, 2], &[5, 7], 0, 2).unwrap();
        assert_eq!(built.arcs, vec![arc(0, 1, 5), arc(1, 2, 7)]);
        // Three vertices, source 0, sink 2 unless a case says otherwise.
        let refused = |tails: &[u32], heads: &[u32], capacities: &[i64], s: u32, t: u32| {
            let err = Network::from_arrays(3, tails, heads, capacities, s, t).unwrap_err();
            assert!(matches!(err, Error::InvalidInput(_)), "{err}");
            err.to_string()
        };
        let message = refused(&[0, 1], &[1], &[5, 7], 0, 2);
        assert!(
            message.contains("2 tails, 1 heads and 2 capacities"),
            "{message}"
        );
        let message = refused(&[0, 1], &[1, 2], &[5, -7], 0, 2);
        assert!(
            message.contains("arc 1 (1 -> 2) has a negative capacity"),
            "{message}"
        );
        let message = refused(&[0, 1], &[1, 3], &[5, 7], 0, 2);
        assert!(message.contains("outside 0..3"), "{message}");
        let message = refused(&[0], &[1], &[5], 2, 2);
        assert!(message.contains("same vertex (2)"), "{message}");
        let message = refused(&[0], &[1], &[5], 0, 7);
        assert!(message.contains("sink 7 is not a vertex"), "{message}");
    }
}
