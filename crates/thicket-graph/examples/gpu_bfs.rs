//! Device check of the GPU BFS kernels: Kronecker and grid graphs, every strategy against a
//! serial BFS (levels equal, every parent one level up with an arc to its child).

use std::time::Instant;

use thicket_graph::gpu::{BfsGpu, CsrArrays, GpuBfsStrategy, UNREACHED};

struct Csr {
    offsets: Vec<u64>,
    targets: Vec<u32>,
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn csr_from_edges(n: usize, edges: &[(u32, u32)]) -> Csr {
    let mut offsets = vec![0u64; n + 1];
    for &(u, v) in edges {
        offsets[u as usize + 1] += 1;
        offsets[v as usize + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut fill = offsets.clone();
    let mut targets = vec![0u32; offsets[n] as usize];
    for &(u, v) in edges {
        targets[fill[u as usize] as usize] = v;
        fill[u as usize] += 1;
        targets[fill[v as usize] as usize] = u;
        fill[v as usize] += 1;
    }
    Csr { offsets, targets }
}

fn kronecker(scale: u32, edge_factor: usize, seed: u64) -> Csr {
    let n = 1usize << scale;
    let m = n * edge_factor;
    let threads = std::thread::available_parallelism().map_or(4, |t| t.get());
    let chunk = m.div_ceil(threads);
    let parts: Vec<Vec<(u32, u32)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut rng = Rng(seed ^ (t as u64).wrapping_mul(0x1234_5678_9abc_def1));
                    let count = chunk.min(m.saturating_sub(t * chunk));
                    (0..count)
                        .map(|_| {
                            let (mut u, mut v) = (0u32, 0u32);
                            for _ in 0..scale {
                                let r = rng.unit();
                                let (bu, bv) = if r < 0.57 {
                                    (0, 0)
                                } else if r < 0.76 {
                                    (0, 1)
                                } else if r < 0.95 {
                                    (1, 0)
                                } else {
                                    (1, 1)
                                };
                                u = (u << 1) | bu;
                                v = (v << 1) | bv;
                            }
                            (u, v)
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let edges: Vec<(u32, u32)> = parts
        .into_iter()
        .flatten()
        .filter(|(u, v)| u != v)
        .collect();
    csr_from_edges(n, &edges)
}

fn grid(rows: usize, cols: usize) -> Csr {
    let mut edges = Vec::with_capacity(2 * rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            let v = (r * cols + c) as u32;
            if c + 1 < cols {
                edges.push((v, v + 1));
            }
            if r + 1 < rows {
                edges.push((v, v + cols as u32));
            }
        }
    }
    csr_from_edges(rows * cols, &edges)
}

fn serial_bfs(g: &Csr, source: u32) -> Vec<u32> {
    let n = g.offsets.len() - 1;
    let mut levels = vec![UNREACHED; n];
    let mut queue = std::collections::VecDeque::new();
    levels[source as usize] = 0;
    queue.push_back(source);
    while let Some(u) = queue.pop_front() {
        let (a, b) = (
            g.offsets[u as usize] as usize,
            g.offsets[u as usize + 1] as usize,
        );
        for &v in &g.targets[a..b] {
            if levels[v as usize] == UNREACHED {
                levels[v as usize] = levels[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    levels
}

fn check(
    g: &Csr,
    want: &[u32],
    levels: &[u32],
    parents: &[u32],
    source: u32,
) -> Result<(), String> {
    if levels != want {
        let bad = levels.iter().zip(want).filter(|(a, b)| a != b).count();
        return Err(format!("{bad} levels differ"));
    }
    for (v, (&l, &p)) in levels.iter().zip(parents).enumerate() {
        if l == UNREACHED || v as u32 == source {
            continue;
        }
        if p == UNREACHED || levels[p as usize] != l - 1 {
            return Err(format!("vertex {v}: parent {p} not one level up"));
        }
        let (a, b) = (
            g.offsets[p as usize] as usize,
            g.offsets[p as usize + 1] as usize,
        );
        if !g.targets[a..b].contains(&(v as u32)) {
            return Err(format!("vertex {v}: no arc from its parent {p}"));
        }
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map_or("kron20", String::as_str);
    let sources: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4);
    let strategies: Vec<GpuBfsStrategy> = match args.get(3).map(String::as_str) {
        Some("fast") => vec![GpuBfsStrategy::Fast],
        _ => vec![
            GpuBfsStrategy::Fast,
            GpuBfsStrategy::Thesis,
            GpuBfsStrategy::ThesisActive,
        ],
    };
    let t = Instant::now();
    let g = if let Some(scale) = what.strip_prefix("kron") {
        kronecker(scale.parse().unwrap(), 16, 7)
    } else if let Some(side) = what.strip_prefix("grid") {
        let side: usize = side.parse().unwrap();
        grid(side, side)
    } else {
        panic!("kronS or gridS");
    };
    let n = g.offsets.len() - 1;
    let arcs = g.targets.len();
    println!(
        "{what}: {n} vertices, {arcs} arcs, built in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let csr = CsrArrays {
        offsets: &g.offsets,
        targets: &g.targets,
    };
    let t = Instant::now();
    let gpu = BfsGpu::open(0, csr, Some(csr)).expect("open");
    println!(
        "{}: uploaded in {:.2} s, {:.1} bytes per arc",
        gpu.name(),
        t.elapsed().as_secs_f64(),
        gpu.device_bytes() as f64 / arcs as f64
    );
    let mut rng = Rng(42);
    let mut picked = Vec::new();
    while picked.len() < sources {
        let s = (rng.next() % n as u64) as u32;
        if g.offsets[s as usize + 1] > g.offsets[s as usize] {
            picked.push(s);
        }
    }
    for strategy in strategies {
        // A warm-up search (kernel loading).
        gpu.run(picked[0], strategy).expect("warm-up");
        let mut times = Vec::new();
        for &s in &picked {
            let want = serial_bfs(&g, s);
            let run = gpu.run(s, strategy).expect("run");
            let verdict = check(&g, &want, &run.levels, &run.parents, s);
            let reached_arcs: u64 = (0..n)
                .filter(|&v| run.levels[v] != UNREACHED)
                .map(|v| g.offsets[v + 1] - g.offsets[v])
                .sum();
            println!(
                "  {strategy:?} source {s}: depth {} ({} bottom-up), {:.3} ms (scan {:.3} ms), {} launches, {:.2} GTEPS (arcs reached / time), {}",
                run.depth,
                run.bottom_up_levels,
                run.kernel_seconds * 1e3,
                run.scan_seconds * 1e3,
                run.launches,
                reached_arcs as f64 / run.kernel_seconds / 1e9,
                match verdict {
                    Ok(()) => "ok".to_string(),
                    Err(e) => format!("WRONG: {e}"),
                }
            );
            times.push(run.kernel_seconds);
        }
        times.sort_by(f64::total_cmp);
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        println!(
            "  {strategy:?}: mean {:.3} ms, median {:.3} ms",
            mean * 1e3,
            times[times.len() / 2] * 1e3
        );
    }
}
