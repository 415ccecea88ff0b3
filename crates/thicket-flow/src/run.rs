//! The front door: [`maxflow`] solves a network with the strategy asked for (or the default
//! of the backend) as a [`Kernel`], then checks the flow with [`crate::verify`] (always: the
//! certificate gives the minimum cut that is reported) outside the timed run. The GPU
//! strategies run on the process's shared device: the first solve opens it and loads the
//! kernels, every later one reuses them.

use std::time::Instant;

use serde::Serialize;
use serde_json::{Map, Value};
use thicket_core::{
    benchmark_kernel, Backend, Error, Kernel, Measured, Placement, Progress, Result, RunOptions,
};

use crate::gpu::{FlowDevice, FlowGpu, GpuPhases, GpuStrategy};
use crate::mpm;
use crate::network::Network;
use crate::push_relabel;
use crate::report::{FlowAnswer, FlowRun, FlowStats};
use crate::residual::Residual;
use crate::verify::verify;

/// Bytes a solve takes at most per vertex (labels, excesses, potentials, queues, the
/// residual graph's offsets) and per arc (two residual arcs, the flow, the certificate): a
/// generous bound for the check before any of it is allocated.
const SOLVE_BYTES_PER_VERTEX: u64 = 96;
/// See [`SOLVE_BYTES_PER_VERTEX`].
const SOLVE_BYTES_PER_ARC: u64 = 96;

/// Refuses, before allocating, a network whose solve would not fit this machine's memory
/// (a file may declare four billion vertices on one line).
fn check_solve_fits(network: &Network) -> Result<()> {
    let bytes = u64::from(network.vertices)
        .checked_mul(SOLVE_BYTES_PER_VERTEX)
        .and_then(|v| {
            (network.arcs.len() as u64)
                .checked_mul(SOLVE_BYTES_PER_ARC)
                .and_then(|a| a.checked_add(v))
        });
    thicket_core::check_fits(
        &format!(
            "a maximum flow of {} vertices and {} arcs",
            network.vertices,
            network.arcs.len()
        ),
        bytes,
    )
}

/// How a maximum flow is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// The thesis's MPM on one CPU thread, with residual reverse arcs (the baseline).
    MpmSerial,
    /// Highest-label push-relabel with global and gap relabelling (the CPU default).
    PushRelabel,
    /// The thesis's GPU MPM: one thread per vertex in every launch.
    Mpm,
    /// The thesis's active-vertices GPU MPM in one cooperative launch: grid barriers instead
    /// of host round trips, lists of active vertices built by atomic appends.
    MpmActive,
    /// The thesis's active-vertices GPU MPM as written: host loops, scans list the vertices
    /// each launch works on.
    MpmScan,
    /// Lock-free push-relabel on the GPU (Hong 2008) with global relabelling, both phases
    /// (the excess to the sink, then what cannot reach it back to the source) on the device
    /// (the GPU default: by far the fastest GPU strategy, see docs/maxflow.md).
    PushRelabelGpu,
}

impl Strategy {
    /// Every strategy.
    pub const ALL: [Strategy; 6] = [
        Strategy::MpmSerial,
        Strategy::PushRelabel,
        Strategy::Mpm,
        Strategy::MpmActive,
        Strategy::MpmScan,
        Strategy::PushRelabelGpu,
    ];

    /// Its name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::MpmSerial => "mpm-serial",
            Strategy::PushRelabel => "push-relabel",
            Strategy::Mpm => "mpm",
            Strategy::MpmActive => "mpm-active",
            Strategy::MpmScan => "mpm-scan",
            Strategy::PushRelabelGpu => "push-relabel-gpu",
        }
    }

    /// Whether it runs on the GPU.
    pub fn is_gpu(self) -> bool {
        matches!(
            self,
            Strategy::Mpm | Strategy::MpmActive | Strategy::MpmScan | Strategy::PushRelabelGpu
        )
    }
}

impl Strategy {
    /// The GPU solver of a GPU strategy.
    pub(crate) fn gpu_kind(self) -> Option<GpuStrategy> {
        match self {
            Strategy::Mpm => Some(GpuStrategy::Mpm),
            Strategy::MpmActive => Some(GpuStrategy::MpmActive),
            Strategy::MpmScan => Some(GpuStrategy::MpmScan),
            Strategy::PushRelabelGpu => Some(GpuStrategy::PushRelabel),
            Strategy::MpmSerial | Strategy::PushRelabel => None,
        }
    }
}

thicket_core::named_choice!(Strategy, "max-flow strategy");

/// How [`maxflow`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MaxflowOptions {
    /// Backend, trials, progress bar (the certificate is always checked).
    pub run: RunOptions,
    /// The strategy; `None`: the default of the backend.
    pub strategy: Option<Strategy>,
    /// The GPU.
    pub device: usize,
}

/// Finds a maximum flow of `network` as `options` ask, and checks it: a flow that fails the
/// certificate is an [`Error::Verification`]; a network too large for the GPU's free memory
/// is [`Error::TooLarge`]. The GPU is opened, and each strategy's kernels loaded, by the
/// process's first solve that needs them; later solves reuse them.
pub fn maxflow(network: &Network, options: &MaxflowOptions) -> Result<Measured<FlowRun>> {
    check_solve_fits(network)?;
    let run = RunOptions {
        backend: thicket_core::backend_for(
            options.strategy,
            Strategy::is_gpu,
            options.run.backend,
        )?,
        verify: false,
        ..options.run
    };
    let mut kernel = FlowKernel { network, options };
    let measured = benchmark_kernel(&mut kernel, &run)?;
    let Solved {
        value,
        flows,
        mut stats,
    } = measured.output;
    let checked = Instant::now();
    let certificate = verify(network, &flows).map_err(|e| {
        Error::Verification(format!("strategy {}: {}", stats.strategy, e.message()))
    })?;
    stats
        .host
        .push(("certificate", checked.elapsed().as_secs_f64()));
    if certificate.value != value {
        return Err(Error::Verification(format!(
            "strategy {} reports {value} for a flow of value {}",
            stats.strategy, certificate.value
        )));
    }
    Ok(Measured {
        output: FlowRun {
            answer: FlowAnswer {
                value,
                flows,
                source_side: certificate.source_side,
                cut_arcs: certificate.cut_arcs,
                verified: true,
            },
            stats,
        },
        info: measured.info,
        trial_seconds: measured.trial_seconds,
        verified: Some(true),
    })
}

/// What one run of the kernel yields, before the certificate.
struct Solved {
    value: u64,
    flows: Vec<u64>,
    stats: FlowStats,
}

struct FlowKernel<'a> {
    network: &'a Network,
    options: &'a MaxflowOptions,
}

impl Kernel for FlowKernel<'_> {
    type Output = Solved;
    const DOING: &'static str = "solving";

    fn label(&self) -> String {
        format!(
            "max flow ({} vertices, {} arcs)",
            self.network.vertices,
            self.network.arcs.len()
        )
    }

    fn run(&mut self, backend: Backend, progress: &Progress) -> Result<(Solved, Placement)> {
        let strategy = self.options.strategy.unwrap_or(match backend {
            Backend::Cpu => Strategy::PushRelabel,
            _ => Strategy::PushRelabelGpu,
        });
        let (s, t) = (self.network.source, self.network.sink);
        let mut host = Vec::new();
        let built = Instant::now();
        let mut r = Residual::new(self.network);
        host.push(("residual", built.elapsed().as_secs_f64()));
        let (flows, counts, phases, placement, solve_seconds) =
            if let Some(kind) = strategy.gpu_kind() {
                // The device and the kernels, outside the solve; timed where this run was the
                // process's first to need them.
                let setup = Instant::now();
                let device = FlowDevice::shared(self.options.device)?;
                if device.prepare(kind)? {
                    host.push(("device_setup", setup.elapsed().as_secs_f64()));
                }
                let solving = Instant::now();
                let uploaded = FlowGpu::upload(&device, r, s, t)?;
                host.push(("upload", solving.elapsed().as_secs_f64()));
                let solved = uploaded.solve(kind)?;
                let solve_seconds = solving.elapsed().as_secs_f64();
                host.push(("download", solved.download_seconds));
                let placement = Placement {
                    threads: 1,
                    devices: vec![device.name()],
                };
                (
                    solved.flows,
                    solved.stats,
                    Some(solved.phases),
                    placement,
                    solve_seconds,
                )
            } else {
                let solving = Instant::now();
                // mpm-serial's time per phase, the CPU side of the thesis's Table 5.3.
                let (counts, phases) = match strategy {
                    Strategy::MpmSerial => {
                        let (counts, times) = mpm::solve_timed(&mut r, s, t);
                        let mut phases = GpuPhases::default();
                        for (name, seconds) in times {
                            phases.add(name, seconds);
                        }
                        (counts, Some(phases))
                    }
                    _ => {
                        let stop = progress.stop_flag();
                        (push_relabel::solve(&mut r, s, t, stop.as_ref()), None)
                    }
                };
                // A stopped solve leaves a preflow, not a flow.
                progress.check_stop()?;
                let flows = r.flows();
                let placement = Placement {
                    threads: 1,
                    devices: vec![],
                };
                let solve_seconds = solving.elapsed().as_secs_f64();
                (flows, counts, phases, placement, solve_seconds)
            };
        let value = net_into(self.network, &flows)?;
        let stats = FlowStats {
            strategy,
            vertices: self.network.vertices,
            arcs: self.network.arcs.len(),
            counts,
            phases,
            solve_seconds,
            host,
        };
        Ok((
            Solved {
                value,
                flows,
                stats,
            },
            placement,
        ))
    }

    fn verify(&self, output: &Solved) -> Result<Option<bool>> {
        Ok(Some(verify(self.network, &output.flows).is_ok()))
    }

    fn stats(&self, output: &Solved) -> Map<String, Value> {
        output.stats.json(output.value)
    }
}

/// The flow into the sink less the flow out of it.
fn net_into(network: &Network, flows: &[u64]) -> Result<u64> {
    let mut net: i128 = 0;
    for (a, &f) in network.arcs.iter().zip(flows) {
        if a.head == network.sink {
            net += i128::from(f);
        }
        if a.tail == network.sink {
            net -= i128::from(f);
        }
    }
    u64::try_from(net)
        .map_err(|_| Error::Verification(format!("the sink receives a negative net flow ({net})")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dimacs;
    use crate::generate::Spec;
    use crate::network::FlowArc;
    use std::path::Path;
    use thicket_core::SplitMix;

    fn options(strategy: Strategy) -> MaxflowOptions {
        MaxflowOptions {
            run: RunOptions {
                backend: Backend::Cpu,
                quiet: true,
                ..RunOptions::default()
            },
            strategy: Some(strategy),
            ..MaxflowOptions::default()
        }
    }

    const CPU: [Strategy; 2] = [Strategy::MpmSerial, Strategy::PushRelabel];

    /// Solves with every CPU strategy (each flow certified) and returns the common value.
    fn solve_all(network: &Network, name: &str) -> u64 {
        let values: Vec<u64> = CPU
            .iter()
            .map(|&s| {
                let run =
                    maxflow(network, &options(s)).unwrap_or_else(|e| panic!("{name} {s}: {e}"));
                assert_eq!(run.verified, Some(true));
                let answer = &run.output.answer;
                assert!(answer.verified);
                assert!(answer.source_side[network.source as usize]);
                assert!(!answer.source_side[network.sink as usize]);
                let cut: u64 = answer
                    .cut_arcs
                    .iter()
                    .map(|&i| network.arcs[i].capacity)
                    .sum();
                assert_eq!(cut, answer.value);
                answer.value
            })
            .collect();
        assert!(
            values.windows(2).all(|w| w[0] == w[1]),
            "{name}: {values:?}"
        );
        values[0]
    }

    /// The shared data's reference values (data/SOURCE.md: five solvers outside thicket
    /// agree, certified by a min cut).
    #[test]
    fn every_copied_instance_has_its_reference_value() {
        for (file, value) in [
            ("waissi-example.max", 6),
            ("genrmf-a4b3.max", 228),
            ("m10.max", 9_860_177),
            ("m30.max", 28_258_807),
            ("m50.max", 42_791_871),
        ] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("data")
                .join(file);
            let network = dimacs::read(&path).unwrap();
            assert_eq!(solve_all(&network, file), value, "{file}");
        }
    }

    /// The shared data's generated instances, regenerated by thicket (byte for byte, see
    /// `generate`), with their reference values.
    #[test]
    #[ignore = "seconds in release; minutes in debug"]
    fn the_generated_shared_instances_have_their_reference_values() {
        for (spec, value) in [
            ("genrmf:16:64:1:10000:1", 1_197_616),
            ("genrmf:64:8:1:10000:1", 20_209_215),
            ("rlg:256:256:10000:1", 1_933_769),
        ] {
            let network = spec.parse::<Spec>().unwrap().generate().unwrap();
            assert_eq!(solve_all(&network, spec), value, "{spec}");
        }
    }

    #[test]
    fn small_generated_instances_agree_across_strategies() {
        for spec in [
            "genrmf:4:3:10:20:1",
            "genrmf:5:6:1:100:2",
            "rlg:6:8:50:3",
            "rlg:20:30:1000:4",
            "random:300:12:1000:5",
            "random:500:6:20:6",
        ] {
            let network = spec.parse::<Spec>().unwrap().generate().unwrap();
            let value = solve_all(&network, spec);
            assert!(value > 0, "{spec}");
        }
    }

    /// Edmonds–Karp on a capacity matrix: the brute-force reference of small networks.
    fn brute_force(network: &Network) -> u64 {
        let n = network.vertices as usize;
        let mut room = vec![vec![0u64; n]; n];
        for a in &network.arcs {
            if a.tail != a.head {
                room[a.tail as usize][a.head as usize] += a.capacity;
            }
        }
        let (s, t) = (network.source as usize, network.sink as usize);
        let mut total = 0;
        loop {
            let mut parent = vec![usize::MAX; n];
            parent[s] = s;
            let mut queue = std::collections::VecDeque::from([s]);
            while let Some(u) = queue.pop_front() {
                for v in 0..n {
                    if parent[v] == usize::MAX && room[u][v] > 0 {
                        parent[v] = u;
                        queue.push_back(v);
                    }
                }
            }
            if parent[t] == usize::MAX {
                return total;
            }
            let mut bottleneck = u64::MAX;
            let mut v = t;
            while v != s {
                bottleneck = bottleneck.min(room[parent[v]][v]);
                v = parent[v];
            }
            let mut v = t;
            while v != s {
                room[parent[v]][v] -= bottleneck;
                room[v][parent[v]] += bottleneck;
                v = parent[v];
            }
            total += bottleneck;
        }
    }

    /// Random small networks with parallel and antiparallel arcs, self-loops, zero
    /// capacities, arcs into the source and out of the sink.
    #[test]
    fn random_small_networks_match_brute_force() {
        let mut rng = SplitMix::new(16);
        for case in 0..300 {
            let n = 2 + rng.below(9) as u32;
            let m = rng.below(40) as usize;
            let arcs: Vec<FlowArc> = (0..m)
                .map(|_| FlowArc {
                    tail: rng.below(u64::from(n)) as u32,
                    head: rng.below(u64::from(n)) as u32,
                    capacity: rng.below(if case % 3 == 0 { 4 } else { 1000 }),
                })
                .collect();
            let s = rng.below(u64::from(n)) as u32;
            let t = (s + 1 + rng.below(u64::from(n) - 1) as u32) % n;
            let network = Network::new(n, s, t, arcs).unwrap();
            assert_eq!(
                solve_all(&network, &format!("case {case}")),
                brute_force(&network),
                "case {case}: {network:?}"
            );
        }
    }

    /// Every GPU strategy against the CPU on small networks, where a GPU is present (on the
    /// device: `scripts/gpu-check.sh --maxflow` covers the shared instances), the device
    /// opened once for them all.
    #[test]
    fn gpu_strategies_agree_with_the_cpu_where_a_gpu_is_present() {
        for spec in ["genrmf:4:3:10:20:1", "rlg:6:8:50:3", "random:300:12:1000:5"] {
            let network = spec.parse::<Spec>().unwrap().generate().unwrap();
            let cpu = maxflow(&network, &options(Strategy::PushRelabel)).unwrap();
            for strategy in [
                Strategy::Mpm,
                Strategy::MpmActive,
                Strategy::MpmScan,
                Strategy::PushRelabelGpu,
            ] {
                let mut o = options(strategy);
                o.run.backend = Backend::Cuda;
                match maxflow(&network, &o) {
                    Err(Error::Unavailable(_)) => return,
                    Err(e) => panic!("{spec} {strategy}: {e}"),
                    Ok(run) => {
                        assert_eq!(
                            run.output.answer.value, cpu.output.answer.value,
                            "{spec} {strategy}"
                        );
                        assert_eq!(run.verified, Some(true));
                        // The first network loaded the kernels; every later solve in the
                        // process finds the device and its kernels ready.
                        if spec != "genrmf:4:3:10:20:1" {
                            let host = &run.output.stats.host;
                            assert!(host.iter().all(|(n, _)| *n != "device_setup"), "{host:?}");
                        }
                    }
                }
            }
        }
    }

    /// Every strategy times the same span: the solve lies inside the wall time, after the
    /// residual graph's build, and the JSON names both.
    #[test]
    fn the_solve_time_is_the_span_from_the_residual_graph_to_the_flows() {
        let network = "random:400:12:1000:3"
            .parse::<Spec>()
            .unwrap()
            .generate()
            .unwrap();
        for strategy in CPU {
            let run = maxflow(&network, &options(strategy)).unwrap();
            let out = &run.output.stats;
            let names: Vec<&str> = out.host.iter().map(|(n, _)| *n).collect();
            // The certificate's check follows the run, outside its wall time.
            assert_eq!(names, ["residual", "certificate"], "{strategy}");
            assert!(
                out.solve_seconds + out.host[0].1 <= run.info.seconds,
                "{strategy}"
            );
            let stats = run.output.json();
            for key in ["solve_seconds", "residual_seconds", "certificate_seconds"] {
                assert!(stats[key].is_number(), "{key}");
            }
        }
    }

    #[test]
    fn a_strategy_on_the_wrong_backend_is_refused() {
        let network =
            dimacs::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/waissi-example.max"))
                .unwrap();
        let mut o = options(Strategy::Mpm);
        let err = maxflow(&network, &o).unwrap_err();
        assert!(err.to_string().contains("runs on a GPU"), "{err}");
        o.strategy = Some(Strategy::PushRelabel);
        o.run.backend = Backend::Cuda;
        let err = maxflow(&network, &o).unwrap_err();
        assert!(err.to_string().contains("runs on the CPU"), "{err}");
        assert_eq!(
            "mpm-active".parse::<Strategy>().unwrap(),
            Strategy::MpmActive
        );
        assert!("dinic".parse::<Strategy>().is_err());
    }
}
