//! Seeded generators of flow networks (the same seed gives the same network on every machine):
//!
//! - **genrmf** (Goldfarb and Grigoriadis's RMFGEN, as the DIMACS `genrmf` readme describes
//!   it): `b` frames of `a × a` grid vertices; inside a frame every vertex has arcs to its four
//!   grid neighbours of capacity `c2 · a²`; vertex i of frame k has one arc to vertex
//!   perm_k(i) of frame k + 1 (a fresh random permutation per frame pair), capacity uniform in
//!   `[c1, c2]`. Source: the first vertex of frame 0; sink: the last of frame b − 1.
//! - **rlg** (Washington's random level graph): a source, `rows × cols` vertices in `cols`
//!   columns and a sink; the source feeds every vertex of column 0 and every vertex of the last
//!   column feeds the sink (capacity 3R); every other vertex has arcs to three distinct random
//!   rows of the next column, capacities uniform in `[1, R]`.
//! - **random** (the thesis's graphs, Solomon 2012, ch. 5, whose choices of s, t and
//!   capacities the thesis does not state): thicket-graph's Viger–Latapy-style simple connected
//!   graph of the given mean degree, every edge as two arcs; capacities uniform in
//!   `[1, maxcap]`, drawn per arc in the graph's CSR order from a second stream (seed XOR
//!   [`CAPACITY_STREAM`]); the source is vertex 0 and the sink the vertex farthest from it in
//!   hops (the smallest id among the farthest), so that the layered networks are as deep as
//!   the graph allows.
//!
//! genrmf and rlg draw their numbers exactly as the project's reference data generator does
//! (its instances are listed in data/SOURCE.md): SplitMix64, `uniform(lo, hi)` by rejection,
//! Fisher–Yates permutations, the same order of draws and arcs. Their `.max` files therefore
//! equal the reference files from the `p` line on (the two comment lines name thicket); the
//! tests check this by hash.

use std::fmt;
use std::str::FromStr;

use std::collections::VecDeque;

use thicket_core::{Error, Result, SplitMix};
use thicket_graph::generate::Generator;

use crate::network::{FlowArc, Network};

/// XORed into the seed of a random graph for its capacities' stream.
pub const CAPACITY_STREAM: u64 = 0x6361_7061_6369_7479;

/// A family of generated networks with its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// RMFGEN: `a × a` frames, `b` of them, inter-frame capacities in `[c1, c2]`.
    Genrmf {
        /// Frame side.
        a: u32,
        /// Frames.
        b: u32,
        /// Smallest inter-frame capacity.
        c1: u64,
        /// Largest inter-frame capacity (in-frame arcs carry `c2 · a²`).
        c2: u64,
    },
    /// Washington random level graph.
    Rlg {
        /// Vertices per column.
        rows: u32,
        /// Columns.
        cols: u32,
        /// Largest capacity R of an inner arc.
        max_capacity: u64,
    },
    /// The thesis's random graphs.
    Random {
        /// Vertices.
        vertices: u32,
        /// Mean degree (arcs out of a vertex).
        degree: u32,
        /// Largest capacity.
        max_capacity: u64,
    },
}

/// A family and a seed: what `--generate` names, e.g. `genrmf:16:64:1:10000:1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// The family.
    pub family: Family,
    /// The seed.
    pub seed: u64,
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.family {
            Family::Genrmf { a, b, c1, c2 } => write!(f, "genrmf:{a}:{b}:{c1}:{c2}")?,
            Family::Rlg {
                rows,
                cols,
                max_capacity,
            } => write!(f, "rlg:{rows}:{cols}:{max_capacity}")?,
            Family::Random {
                vertices,
                degree,
                max_capacity,
            } => write!(f, "random:{vertices}:{degree}:{max_capacity}")?,
        }
        write!(f, ":{}", self.seed)
    }
}

const SPEC_FORMS: &str =
    "genrmf:A:B:C1:C2:SEED, rlg:ROWS:COLS:MAXCAP:SEED or random:VERTICES:DEGREE:MAXCAP:SEED";

impl FromStr for Spec {
    type Err = Error;

    fn from_str(text: &str) -> Result<Spec> {
        let wrong = || {
            Error::InvalidInput(format!(
                "generator {}: expected {SPEC_FORMS}",
                thicket_core::quoted(text)
            ))
        };
        let mut parts = text.split(':');
        let kind = parts.next().ok_or_else(wrong)?;
        let values: Vec<u64> = parts
            .map(|p| p.parse::<u64>().map_err(|_| wrong()))
            .collect::<Result<_>>()?;
        let small = |v: u64| u32::try_from(v).map_err(|_| wrong());
        let (family, seed) = match (kind, &values[..]) {
            ("genrmf", &[a, b, c1, c2, seed]) => (
                Family::Genrmf {
                    a: small(a)?,
                    b: small(b)?,
                    c1,
                    c2,
                },
                seed,
            ),
            ("rlg", &[rows, cols, max_capacity, seed]) => (
                Family::Rlg {
                    rows: small(rows)?,
                    cols: small(cols)?,
                    max_capacity,
                },
                seed,
            ),
            ("random", &[vertices, degree, max_capacity, seed]) => (
                Family::Random {
                    vertices: small(vertices)?,
                    degree: small(degree)?,
                    max_capacity,
                },
                seed,
            ),
            _ => return Err(wrong()),
        };
        Ok(Spec { family, seed })
    }
}

/// The shared data generator's random numbers: SplitMix64 with uniform draws by rejection.
struct Draws(SplitMix);

impl Draws {
    /// A uniform integer in `lo..=hi` (lo <= hi): draws below the largest multiple of the
    /// range's size are kept, so every value is exactly as likely.
    fn uniform(&mut self, lo: u64, hi: u64) -> u64 {
        let k = u128::from(hi - lo) + 1;
        let limit = (1u128 << 64) - (1u128 << 64) % k;
        loop {
            let x = u128::from(self.0.next_u64());
            if x < limit {
                return lo + (x % k) as u64;
            }
        }
    }

    /// A random permutation of 1..=k (Fisher–Yates from the back).
    fn permutation(&mut self, k: u32) -> Vec<u32> {
        let mut p: Vec<u32> = (1..=k).collect();
        for i in (1..k as usize).rev() {
            let j = self.uniform(0, i as u64) as usize;
            p.swap(i, j);
        }
        p
    }
}

/// `value` as a count within `limit`, or why not.
fn within(value: Option<u64>, limit: u64, what: &str) -> Result<u64> {
    value.filter(|&v| v <= limit).ok_or_else(|| {
        Error::InvalidInput(format!("{what}: a generated network has at most {limit}"))
    })
}

impl Spec {
    /// Generates the network (0-based ids), with two comment lines naming the family and
    /// thicket.
    pub fn generate(&self) -> Result<Network> {
        let mut network = match self.family {
            Family::Genrmf { a, b, c1, c2 } => genrmf(a, b, c1, c2, self.seed)?,
            Family::Rlg {
                rows,
                cols,
                max_capacity,
            } => rlg(rows, cols, max_capacity, self.seed)?,
            Family::Random {
                vertices,
                degree,
                max_capacity,
            } => random(vertices, degree, max_capacity, self.seed)?,
        };
        let name = match self.family {
            Family::Genrmf { a, b, c1, c2 } => format!(
                "genrmf-style (RMFGEN, Goldfarb-Grigoriadis) a={a} b={b} c1={c1} c2={c2} seed={}",
                self.seed
            ),
            Family::Rlg {
                rows,
                cols,
                max_capacity,
            } => format!(
                "Washington Random Level Graph (RLG)-style rows={rows} cols={cols} \
                 maxcap={max_capacity} seed={}",
                self.seed
            ),
            Family::Random {
                vertices,
                degree,
                max_capacity,
            } => format!(
                "random (Viger-Latapy-style) vertices={vertices} degree={degree} \
                 maxcap={max_capacity} seed={}",
                self.seed
            ),
        };
        network.comments = vec![
            name,
            format!("generated by thicket maxflow --generate {self}"),
        ];
        Ok(network)
    }
}

const MAX_VERTICES: u64 = u32::MAX as u64 - 1;
const MAX_ARCS: u64 = (1 << 31) - 1;

/// Bytes a generated network takes per arc while it is made (the arc, and in a random
/// graph the graph's own arc lists beside it) and per vertex (a genrmf frame's permutation, a
/// random graph's offsets and BFS levels).
const GENERATED_BYTES_PER_ARC: u64 = 48;
/// See [`GENERATED_BYTES_PER_ARC`].
const GENERATED_BYTES_PER_VERTEX: u64 = 32;

/// Refuses, before allocating, the network `what` of `vertices` and `arcs` where it would not
/// fit this machine's memory.
fn check_generated_fits(what: &str, vertices: u64, arcs: u64) -> Result<()> {
    let bytes = arcs
        .checked_mul(GENERATED_BYTES_PER_ARC)
        .zip(vertices.checked_mul(GENERATED_BYTES_PER_VERTEX))
        .and_then(|(a, v)| a.checked_add(v));
    thicket_core::check_fits(what, bytes)
}

fn genrmf(a: u32, b: u32, c1: u64, c2: u64, seed: u64) -> Result<Network> {
    if a < 1 || b < 2 || c1 > c2 {
        return Err(Error::InvalidInput(format!(
            "genrmf a={a} b={b} c1={c1} c2={c2}: it needs a >= 1, b >= 2 and c1 <= c2"
        )));
    }
    let (a64, b64) = (u64::from(a), u64::from(b));
    let aa = a64 * a64;
    let n = within(aa.checked_mul(b64), MAX_VERTICES, "genrmf vertices (a² b)")?;
    // With n = a² b below 2^32, none of these products can pass 2^64.
    let m = within(
        (5 * aa * b64).checked_sub(4 * a64 * b64 + aa),
        MAX_ARCS,
        "genrmf arcs",
    )?;
    check_generated_fits(&format!("genrmf:{a}:{b}:{c1}:{c2}"), n, m)?;
    let frame_capacity = c2
        .checked_mul(aa)
        .ok_or_else(|| Error::InvalidInput(format!("genrmf c2 · a² = {c2} · {aa} passes 2^64")))?;
    let mut draws = Draws(SplitMix::new(seed));
    let mut arcs = Vec::with_capacity(m as usize);
    let aa32 = a * a;
    for k in 0..b {
        let offset = k * aa32;
        let perm = (k + 1 < b).then(|| draws.permutation(aa32));
        for x in 1..=a {
            for y in 1..=a {
                // 1-based as the specification numbers them; 0-based in the network.
                let v = offset + (x - 1) * a + y;
                if let Some(perm) = &perm {
                    let head = offset + aa32 + perm[(v - offset - 1) as usize];
                    arcs.push(FlowArc {
                        tail: v - 1,
                        head: head - 1,
                        capacity: draws.uniform(c1, c2),
                    });
                }
                let neighbours = [
                    (x, y + 1),
                    (x, y.wrapping_sub(1)),
                    (x + 1, y),
                    (x.wrapping_sub(1), y),
                ];
                for (x1, y1) in neighbours {
                    if (1..=a).contains(&x1) && (1..=a).contains(&y1) {
                        arcs.push(FlowArc {
                            tail: v - 1,
                            head: offset + (x1 - 1) * a + y1 - 1,
                            capacity: frame_capacity,
                        });
                    }
                }
            }
        }
    }
    Network::new(n as u32, 0, n as u32 - 1, arcs)
}

fn rlg(rows: u32, cols: u32, r: u64, seed: u64) -> Result<Network> {
    if rows < 3 || cols < 2 || r < 1 {
        return Err(Error::InvalidInput(format!(
            "rlg rows={rows} cols={cols} maxcap={r}: it needs rows >= 3 (three distinct \
             successors), cols >= 2 and maxcap >= 1"
        )));
    }
    let (rows64, cols64) = (u64::from(rows), u64::from(cols));
    let n = within(
        (rows64 * cols64).checked_add(2),
        MAX_VERTICES,
        "rlg vertices (rows · cols + 2)",
    )?;
    let m = within(
        Some(2 * rows64 + 3 * rows64 * (cols64 - 1)),
        MAX_ARCS,
        "rlg arcs",
    )?;
    check_generated_fits(&format!("rlg:{rows}:{cols}:{r}"), n, m)?;
    let end_capacity = r
        .checked_mul(3)
        .ok_or_else(|| Error::InvalidInput(format!("rlg 3 · maxcap = 3 · {r} passes 2^64")))?;
    let mut draws = Draws(SplitMix::new(seed));
    // 0-based: the source 0, (column c, row j = 1..=rows) at 1 + c · rows + j − 1, the sink last.
    let (s, t) = (0u32, n as u32 - 1);
    let id = |c: u32, j: u32| 1 + c * rows + (j - 1);
    let mut arcs = Vec::with_capacity(m as usize);
    for j in 1..=rows {
        arcs.push(FlowArc {
            tail: s,
            head: id(0, j),
            capacity: end_capacity,
        });
    }
    for j in 1..=rows {
        arcs.push(FlowArc {
            tail: id(cols - 1, j),
            head: t,
            capacity: end_capacity,
        });
    }
    let rows_range = u64::from(rows);
    for c in 0..cols - 1 {
        for j in 1..=rows {
            let first = draws.uniform(1, rows_range);
            let mut second = draws.uniform(1, rows_range);
            while second == first {
                second = draws.uniform(1, rows_range);
            }
            let mut third = draws.uniform(1, rows_range);
            while third == first || third == second {
                third = draws.uniform(1, rows_range);
            }
            for row in [first, second, third] {
                arcs.push(FlowArc {
                    tail: id(c, j),
                    head: id(c + 1, row as u32),
                    capacity: draws.uniform(1, r),
                });
            }
        }
    }
    Network::new(n as u32, s, t, arcs)
}

fn random(vertices: u32, degree: u32, max_capacity: u64, seed: u64) -> Result<Network> {
    if max_capacity < 1 {
        return Err(Error::InvalidInput("random graphs need maxcap >= 1".into()));
    }
    check_generated_fits(
        &format!("random:{vertices}:{degree}:{max_capacity}"),
        u64::from(vertices),
        u64::from(vertices) * u64::from(degree),
    )?;
    let graph = Generator::VigerLatapy { vertices, degree }.generate(seed)?;
    let mut draws = Draws(SplitMix::new(seed ^ CAPACITY_STREAM));
    let arcs: Vec<FlowArc> = graph
        .arc_list()
        .into_iter()
        .map(|(tail, head, _)| FlowArc {
            tail,
            head,
            capacity: draws.uniform(1, max_capacity),
        })
        .collect();
    let sink = farthest_from_source(vertices, &arcs);
    Network::new(vertices, 0, sink, arcs)
}

/// A random network's sink: of the vertices vertex 0 reaches along the arcs, one farthest
/// from it in hops (breadth first), the lowest id on ties; vertex 0 itself where it reaches
/// none.
fn farthest_from_source(vertices: u32, arcs: &[FlowArc]) -> u32 {
    let n = vertices as usize;
    // The arcs by tail, as offsets into one list of heads (counting sort, input order kept).
    let mut start = vec![0usize; n + 1];
    for arc in arcs {
        start[arc.tail as usize + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut next = start.clone();
    let mut heads = vec![0u32; arcs.len()];
    for arc in arcs {
        heads[next[arc.tail as usize]] = arc.head;
        next[arc.tail as usize] += 1;
    }
    let mut hops = vec![u32::MAX; n];
    let mut queue = VecDeque::new();
    let mut sink = (0, 0u32);
    if n > 0 {
        hops[0] = 0;
        queue.push_back(0u32);
    }
    while let Some(v) = queue.pop_front() {
        let h = hops[v as usize];
        if (h, std::cmp::Reverse(v)) > (sink.0, std::cmp::Reverse(sink.1)) {
            sink = (h, v);
        }
        for &w in &heads[start[v as usize]..start[v as usize + 1]] {
            if hops[w as usize] == u32::MAX {
                hops[w as usize] = h + 1;
                queue.push_back(w);
            }
        }
    }
    sink.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::dimacs;
    use sha2::{Digest, Sha256};

    /// The file from its `p` line on, hashed (the two comment lines name the generator).
    fn body_hash(text: &str) -> String {
        let at = text.find("\np ").expect("a p line") + 1;
        Sha256::digest(&text.as_bytes()[at..])
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The reference data's generated files (data/SOURCE.md, made by its own
    /// Python script), hashed from the `p` line on outside thicket: thicket's generators
    /// make them byte for byte.
    #[test]
    fn genrmf_and_rlg_reproduce_the_shared_files_byte_for_byte() {
        let cases = [
            (
                "genrmf:16:64:1:10000:1",
                "95a926ded0cb3ce190b2667d5d164294d9fc78910367312cc69ad770670cd774",
            ),
            (
                "genrmf:64:8:1:10000:1",
                "c1945e85f432283de1f2ac07877b6f32d94fe4307a01cba61b3d23d4b7cd0163",
            ),
            (
                "rlg:256:256:10000:1",
                "42735c9316f6369d95f269fbbbcea7b50e57b4e992d9bffec233a76093353b63",
            ),
        ];
        for (spec, hash) in cases {
            let network = spec.parse::<Spec>().unwrap().generate().unwrap();
            assert_eq!(body_hash(&dimacs::write(&network)), hash, "{spec}");
        }
    }

    #[test]
    fn sizes_and_terminals_follow_the_families() {
        let g = "genrmf:4:3:10:20:7"
            .parse::<Spec>()
            .unwrap()
            .generate()
            .unwrap();
        assert_eq!(
            (g.vertices, g.arcs.len(), g.source, g.sink),
            (48, 176, 0, 47)
        );
        let r = "rlg:5:4:100:7".parse::<Spec>().unwrap().generate().unwrap();
        assert_eq!(
            (r.vertices, r.arcs.len(), r.source, r.sink),
            (22, 55, 0, 21)
        );
        let x = "random:200:12:1000:3"
            .parse::<Spec>()
            .unwrap()
            .generate()
            .unwrap();
        assert_eq!(x.source, 0);
        assert!(x.arcs.iter().all(|a| (1..=1000).contains(&a.capacity)));
        assert_eq!(
            x,
            "random:200:12:1000:3"
                .parse::<Spec>()
                .unwrap()
                .generate()
                .unwrap()
        );
        assert_eq!(
            "rlg:5:4:100:7".parse::<Spec>().unwrap().to_string(),
            "rlg:5:4:100:7"
        );
    }

    #[test]
    fn bad_specs_are_refused() {
        for (spec, message) in [
            ("genrmf:4:3:10", "expected genrmf"),
            ("rlg:x:3:4:5", "expected genrmf"),
            ("grid:1:2:3:4", "expected genrmf"),
            ("genrmf:4:1:10:20:1", "b >= 2"),
            ("genrmf:4:3:30:20:1", "c1 <= c2"),
            ("rlg:2:3:4:5", "rows >= 3"),
            ("genrmf:65536:65536:1:2:1", "at most"),
            ("random:10:12:5:1", "degree 12"),
        ] {
            let err = spec.parse::<Spec>().and_then(|s| s.generate()).unwrap_err();
            assert!(err.to_string().contains(message), "{spec}: {err}");
            assert_eq!(err.exit_code(), 2);
        }
    }
}
