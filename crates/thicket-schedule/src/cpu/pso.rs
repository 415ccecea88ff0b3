//! The thesis's particle swarms (Solomon 2012, §6.1, after Shi and Eberhart and Vanneschi et
//! al. 2010), serial: the speed-up baseline and the reference of the GPU swarms.
//!
//! A particle is a point in [0, M − 1]^T, one dimension per task; rounded to the nearest
//! integer per dimension it is an assignment. Each iteration, as Algorithm 9 orders it: every
//! particle's makespan, its personal best, its swarm's best, then
//! `V ← w·V + c1·r1·(P − X) + c2·r2·(G − X)` (Eq. 6.1), on every second swarm
//! `+ c3·r3·f(F, G, X)` (Eq. 6.3), and `X ← X + V` (Eq. 6.2); w decays multiplicatively.
//! Every K iterations the n best particles of each swarm replace the n worst of the next
//! swarm on the ring.
//!
//! Choices where the thesis is silent (documented in docs/schedule.md): positions start
//! uniform in [0, M − 1] and velocities in [0, (M − 1)/2] (the thesis's X_max/2), positions
//! are clamped to [0, M − 1] and velocities to ±(M − 1); K = 10 and n = 5 (Vanneschi et al.
//! exchange a few best particles every few iterations); the repulsion is
//! `f(F, G, X) = X − F`, away from F, the global best of the previous swarm on the ring, with
//! c3 = 1.0 (our reading of MRPSO; G does not enter). Random numbers come from a counter-based
//! hash of (seed, iteration, particle, dimension, use), so the GPU draws the same ones.
//! Positions and velocities are f32 and makespans are f32 sums in task order, as on the GPU.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::etc::Etc;

/// The swarm parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwarmParams {
    /// Swarms on the ring (1: plain PSO).
    pub swarms: usize,
    /// Particles per swarm.
    pub particles: usize,
    /// Iterations.
    pub iterations: usize,
    /// Cognitive weight c1.
    pub c1: f32,
    /// Social weight c2.
    pub c2: f32,
    /// Repulsion weight c3 (every second swarm).
    pub c3: f32,
    /// Initial inertia w.
    pub inertia: f32,
    /// Inertia factor per iteration.
    pub decay: f32,
    /// Iterations between exchanges (K).
    pub exchange_every: usize,
    /// Particles exchanged (n).
    pub exchanged: usize,
}

impl SwarmParams {
    /// The thesis's MSPSO: 10 swarms × 128 particles, c1 = 2.0, c2 = 1.4, w = 0.9 × 0.995 per
    /// iteration, 1,000 iterations, with thicket's K = 10, n = 5, c3 = 1.0.
    pub const THESIS: SwarmParams = SwarmParams {
        swarms: 10,
        particles: 128,
        iterations: 1000,
        c1: 2.0,
        c2: 1.4,
        c3: 1.0,
        inertia: 0.9,
        decay: 0.995,
        exchange_every: 10,
        exchanged: 5,
    };

    /// Single-swarm PSO with the same parameters (one swarm of 128).
    pub const SINGLE: SwarmParams = SwarmParams {
        swarms: 1,
        ..SwarmParams::THESIS
    };
}

/// What a random number is for.
#[derive(Clone, Copy)]
#[repr(u64)]
pub(crate) enum Use {
    Position = 0,
    Velocity = 1,
    Cognitive = 2,
    Social = 3,
    Repulsion = 4,
}

/// A uniform f32 in [0, 1) from (seed, iteration, flat position index, use): SplitMix64's
/// finaliser on a packed counter. The GPU kernels compute the same function.
#[inline]
pub(crate) fn random(seed: u64, iteration: u64, index: u64, what: Use) -> f32 {
    let mut z = seed
        ^ iteration.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03)
        ^ (what as u64).wrapping_mul(0x8cb9_2ba7_2f3d_8dd7);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 40) as f32 * (1.0 / 16_777_216.0)
}

/// The makespan of a continuous position (rounded per dimension) in f32, task order.
pub(crate) fn fitness(
    etc: &[f32],
    machines: usize,
    position: impl Iterator<Item = f32>,
    loads: &mut [f32],
) -> f32 {
    loads.iter_mut().for_each(|l| *l = 0.0);
    let mut makespan = 0.0f32;
    for (t, x) in position.enumerate() {
        let m = round(x);
        let load = &mut loads[m];
        *load += etc[t * machines + m];
        makespan = makespan.max(*load);
    }
    makespan
}

/// A coordinate's machine: round half away from zero, as CUDA's `lroundf`.
#[inline]
pub(crate) fn round(x: f32) -> usize {
    x.round() as usize
}

/// The run of a swarm search.
#[derive(Debug, Clone, PartialEq)]
pub struct SwarmRun {
    /// The best assignment found.
    pub assignment: Vec<u32>,
    /// Its makespan as the swarm computed it (f32).
    pub makespan: f32,
}

/// The swarms' state, structure of arrays, dimension-major within each swarm: the element of
/// (swarm s, particle p, dimension d) is at `(s·T + d)·P + p` (the thesis's Figure 6.4).
struct Swarms {
    x: Vec<f32>,
    v: Vec<f32>,
    pbest: Vec<f32>,
    pbest_fit: Vec<f32>,
    gbest: Vec<f32>,
    gbest_fit: Vec<f32>,
    fit: Vec<f32>,
}

/// Runs the swarms on the CPU, one thread; where `stop` is raised (checked after every
/// iteration's bests) the swarms' best so far.
pub fn run(etc: &Etc, params: &SwarmParams, seed: u64, stop: Option<&AtomicBool>) -> SwarmRun {
    let (t_n, m_n) = (etc.tasks(), etc.machines());
    let (s_n, p_n) = (params.swarms.max(1), params.particles.max(1));
    let etc32: Vec<f32> = etc.times().iter().map(|&t| t as f32).collect();
    let xmax = (m_n - 1) as f32;
    let n = s_n * p_n * t_n;
    let mut sw = Swarms {
        x: (0..n)
            .map(|i| xmax * random(seed, 0, i as u64, Use::Position))
            .collect(),
        v: (0..n)
            .map(|i| 0.5 * xmax * random(seed, 0, i as u64, Use::Velocity))
            .collect(),
        pbest: vec![0.0; n],
        pbest_fit: vec![f32::INFINITY; s_n * p_n],
        gbest: vec![0.0; s_n * t_n],
        gbest_fit: vec![f32::INFINITY; s_n],
        fit: vec![0.0; s_n * p_n],
    };
    let at = |s: usize, p: usize, d: usize| (s * t_n + d) * p_n + p;
    let mut loads = vec![0.0f32; m_n];
    let mut w = params.inertia;
    for iteration in 0..params.iterations {
        // Fitness, personal and swarm bests.
        for s in 0..s_n {
            for p in 0..p_n {
                let f = fitness(&etc32, m_n, (0..t_n).map(|d| sw.x[at(s, p, d)]), &mut loads);
                sw.fit[s * p_n + p] = f;
                if f < sw.pbest_fit[s * p_n + p] {
                    sw.pbest_fit[s * p_n + p] = f;
                    for d in 0..t_n {
                        sw.pbest[at(s, p, d)] = sw.x[at(s, p, d)];
                    }
                }
            }
            let best = first_min(&sw.pbest_fit[s * p_n..(s + 1) * p_n]);
            if sw.pbest_fit[s * p_n + best] < sw.gbest_fit[s] {
                sw.gbest_fit[s] = sw.pbest_fit[s * p_n + best];
                for d in 0..t_n {
                    sw.gbest[s * t_n + d] = sw.pbest[at(s, best, d)];
                }
            }
        }
        if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            break;
        }
        // Velocities and positions, every (swarm, particle, dimension) alike.
        let it = iteration as u64 + 1;
        for s in 0..s_n {
            let foreign = (s + s_n - 1) % s_n;
            let repulsive = s_n > 1 && s % 2 == 1;
            for d in 0..t_n {
                let g = sw.gbest[s * t_n + d];
                let f = sw.gbest[foreign * t_n + d];
                for p in 0..p_n {
                    let i = at(s, p, d);
                    sw.v[i] = update(
                        &sw,
                        i,
                        g,
                        f,
                        repulsive,
                        w,
                        params,
                        xmax,
                        [
                            random(seed, it, i as u64, Use::Cognitive),
                            random(seed, it, i as u64, Use::Social),
                            random(seed, it, i as u64, Use::Repulsion),
                        ],
                    );
                    sw.x[i] = (sw.x[i] + sw.v[i]).clamp(0.0, xmax);
                }
            }
        }
        w *= params.decay;
        if s_n > 1 && params.exchange_every > 0 && (iteration + 1) % params.exchange_every == 0 {
            exchange(&mut sw, s_n, p_n, t_n, params.exchanged.min(p_n / 2));
        }
    }
    let s = first_min(&sw.gbest_fit);
    let assignment = (0..t_n)
        .map(|d| round(sw.gbest[s * t_n + d]) as u32)
        .collect();
    SwarmRun {
        assignment,
        makespan: sw.gbest_fit[s],
    }
}

/// Eq. 6.1 with Eq. 6.3 on repulsive swarms, the velocity clamped to ±xmax.
#[allow(clippy::too_many_arguments)]
#[inline]
fn update(
    sw: &Swarms,
    i: usize,
    g: f32,
    f: f32,
    repulsive: bool,
    w: f32,
    params: &SwarmParams,
    xmax: f32,
    r: [f32; 3],
) -> f32 {
    let x = sw.x[i];
    let mut v = w * sw.v[i] + params.c1 * r[0] * (sw.pbest[i] - x) + params.c2 * r[1] * (g - x);
    if repulsive {
        v += params.c3 * r[2] * (x - f);
    }
    v.clamp(-xmax, xmax)
}

/// The index of the first smallest value.
pub(crate) fn first_min(values: &[f32]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v < values[best] {
            best = i;
        }
    }
    best
}

/// The `n` particles of a swarm by fitness, best first or worst first (ties: lowest index),
/// as the thesis's n successive reductions find them.
pub(crate) fn ranked(fit: &[f32], n: usize, best: bool) -> Vec<usize> {
    let mut taken = vec![false; fit.len()];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let mut pick = usize::MAX;
        for (i, &f) in fit.iter().enumerate() {
            if taken[i] {
                continue;
            }
            let better = pick == usize::MAX || if best { f < fit[pick] } else { f > fit[pick] };
            if better {
                pick = i;
            }
        }
        taken[pick] = true;
        out.push(pick);
    }
    out
}

/// The ring exchange: swarm s's n best (by current fitness) overwrite swarm s+1's n worst
/// (position, velocity, personal best), all chosen before any is copied.
fn exchange(sw: &mut Swarms, s_n: usize, p_n: usize, t_n: usize, n: usize) {
    let best: Vec<Vec<usize>> = (0..s_n)
        .map(|s| ranked(&sw.fit[s * p_n..(s + 1) * p_n], n, true))
        .collect();
    let worst: Vec<Vec<usize>> = (0..s_n)
        .map(|s| ranked(&sw.fit[s * p_n..(s + 1) * p_n], n, false))
        .collect();
    let (x, v, pb) = (sw.x.clone(), sw.v.clone(), sw.pbest.clone());
    let pbf = sw.pbest_fit.clone();
    for s in 0..s_n {
        let to = (s + 1) % s_n;
        for k in 0..n {
            let (from_p, to_p) = (best[s][k], worst[to][k]);
            for d in 0..t_n {
                let (i, j) = ((s * t_n + d) * p_n + from_p, (to * t_n + d) * p_n + to_p);
                sw.x[j] = x[i];
                sw.v[j] = v[i];
                sw.pbest[j] = pb[i];
            }
            sw.pbest_fit[to * p_n + to_p] = pbf[s * p_n + from_p];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::assignment::loads;

    fn small() -> Etc {
        crate::generate::Generator::Thesis {
            tasks: 20,
            machines: 4,
        }
        .generate(3)
        .unwrap()
    }

    #[test]
    fn runs_are_seeded_and_report_their_assignment_makespan() {
        let etc = small();
        let params = SwarmParams {
            swarms: 4,
            particles: 16,
            iterations: 50,
            ..SwarmParams::THESIS
        };
        let a = run(&etc, &params, 9, None);
        assert_eq!(a, run(&etc, &params, 9, None));
        let (_, makespan) = loads(&etc, &a.assignment);
        assert!((makespan - a.makespan as f64).abs() <= 1e-5 * makespan);
        assert!(a.assignment.iter().all(|&m| m < 4));
        // Stopped, the swarms answer after their first iteration's bests.
        let stopped = run(&etc, &params, 9, Some(&AtomicBool::new(true)));
        let first = run(
            &etc,
            &SwarmParams {
                iterations: 1,
                ..params
            },
            9,
            None,
        );
        assert_eq!(stopped, first);
        assert!(stopped.makespan.is_finite());
    }

    #[test]
    fn ranking_takes_successive_bests_and_worsts() {
        let fit = [3.0, 1.0, 2.0, 1.0, 5.0];
        assert_eq!(ranked(&fit, 3, true), vec![1, 3, 2]);
        assert_eq!(ranked(&fit, 2, false), vec![4, 0]);
    }

    #[test]
    fn random_numbers_are_uniform_enough() {
        let mean: f32 = (0..10_000)
            .map(|i| random(1, 2, i, Use::Social))
            .sum::<f32>()
            / 1e4;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
        assert!((0..1000).all(|i| (0.0..1.0).contains(&random(7, i, 3, Use::Position))));
    }
}
