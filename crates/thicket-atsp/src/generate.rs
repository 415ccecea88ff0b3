//! Seeded random instance classes after Cirasella, Johnson, McGeoch and Zhang (2001), *The
//! asymmetric TSP: algorithms, instance generators, and tests*, the classes Carneiro (2017)
//! solved and the rest of its test bed. These are reconstructions from the paper's descriptions, not ports of its
//! generators, so instances differ from the published ones; each is fixed by
//! `(class, n, seed)` through a ChaCha8 stream seeded with `seed`.
//!
//! - `coin` (coin collection in a city with one-way streets): a `g x g` grid of
//!   intersections, `g = ceil(sqrt(4n)) + 1`, with streets one block apart. Interior
//!   east-west streets alternate direction (even rows run east, odd rows west), interior
//!   north-south ones too (even columns run north, odd south); the four boundary streets
//!   are two-way, which keeps every intersection reachable from every other. The cities are
//!   `n` distinct random intersections and the cost is the driving distance, in blocks of
//!   length 100.
//! - `crane` (stacker crane): each city is a job, a source point uniform in the square
//!   `[0, 10^6)^2` and a destination displaced from it by a vector uniform in
//!   `[-r, r]^2`, `r = 10^6 / sqrt(n)`, kept inside the square. Serving job `j` after job
//!   `i` costs `i`'s own length (source to destination) plus the empty move from `i`'s
//!   destination to `j`'s source, Euclidean and rounded.
//! - `tsmat`: a random symmetric matrix with entries uniform in `0..10^6`, closed under
//!   shortest paths (Floyd-Warshall) so that it satisfies the triangle inequality.
//! - `amat`: a random matrix, every entry uniform in `0..10^6` on its own.
//! - `tmat`: an `amat` matrix closed under shortest paths.
//! - `disk` (scheduling reads on a disk): each city is a request at a random track (radius)
//!   and angle; the head moves across at one track width per unit of time, a full stroke
//!   taking one revolution, while the disk turns one way, so serving `j` after `i` costs the
//!   seek time plus the wait until `j`'s angle comes round, in millionths of a revolution.
//! - `super` (shortest common superstring): each city is a random string of 20 bits, and
//!   following `i` by `j` costs the part of `j` left over after the longest suffix of `i`
//!   that is a prefix of `j` (shorter than 20).
//! - `shop` (no-wait flow shop): each city is a job with processing times uniform in
//!   `0..1000` on each of 5 machines in order; a job may not wait between machines, so
//!   starting `j` after `i` costs the least delay between their starts that keeps every
//!   machine free, `max_k (p_i[..=k] - p_j[..k])` summed over machines `..=k` and `..k`.
//! - `stilt` and `rtilt` (a drilling machine on a tilted table): holes uniform in the
//!   square `[0, 10^6)^2`; moving up the tilt costs twice the distance climbed and moving
//!   down costs nothing vertically, across costs the distance. `rtilt` adds the across and
//!   vertical costs (the two motors one after the other), `stilt` takes their maximum (both
//!   at once).

use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use thicket_core::{Error, Result};

use super::instance::{check_size, Instance};

/// The side of the crane square and the range of tsmat entries.
const SCALE: i64 = 1_000_000;

/// The length of one coin-collection block.
const BLOCK: i64 = 100;

/// A generated instance class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeneratorClass {
    /// Coin collection on a grid of one-way streets.
    Coin,
    /// Stacker crane jobs.
    Crane,
    /// Symmetric random matrix closed under shortest paths.
    Tsmat,
    /// Random asymmetric matrix.
    Amat,
    /// Random asymmetric matrix closed under shortest paths.
    Tmat,
    /// Disk-head scheduling.
    Disk,
    /// Shortest common superstring.
    Super,
    /// No-wait flow shop.
    Shop,
    /// Tilted drilling machine, both motors at once (the larger move).
    Stilt,
    /// Tilted drilling machine, one motor after the other (the sum).
    Rtilt,
}

/// Every class, as specs name them.
pub const CLASSES: [GeneratorClass; 10] = [
    GeneratorClass::Coin,
    GeneratorClass::Crane,
    GeneratorClass::Tsmat,
    GeneratorClass::Amat,
    GeneratorClass::Tmat,
    GeneratorClass::Disk,
    GeneratorClass::Super,
    GeneratorClass::Shop,
    GeneratorClass::Stilt,
    GeneratorClass::Rtilt,
];

impl GeneratorClass {
    /// The class's name in specs and instance names.
    pub fn name(self) -> &'static str {
        match self {
            GeneratorClass::Coin => "coin",
            GeneratorClass::Crane => "crane",
            GeneratorClass::Tsmat => "tsmat",
            GeneratorClass::Amat => "amat",
            GeneratorClass::Tmat => "tmat",
            GeneratorClass::Disk => "disk",
            GeneratorClass::Super => "super",
            GeneratorClass::Shop => "shop",
            GeneratorClass::Stilt => "stilt",
            GeneratorClass::Rtilt => "rtilt",
        }
    }
}

/// A parsed `CLASS:N:SEED` spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratorSpec {
    /// The instance class.
    pub class: GeneratorClass,
    /// Number of cities.
    pub n: usize,
    /// Random seed.
    pub seed: u64,
}

impl GeneratorSpec {
    /// Generates the instance the spec names.
    pub fn generate(&self) -> Result<Instance> {
        generate(self.class, self.n, self.seed)
    }
}

/// Parses `CLASS:N:SEED`, e.g. `crane:15:1` (class names are case-insensitive).
pub fn parse_generator_spec(spec: &str) -> Result<GeneratorSpec> {
    let bad = |why: &str| {
        Error::InvalidInput(format!(
            "generator spec '{}': {why}",
            thicket_core::token(spec)
        ))
    };
    let parts: Vec<&str> = spec.split(':').map(str::trim).collect();
    let [class, n, seed] = parts[..] else {
        return Err(bad("expected CLASS:N:SEED"));
    };
    let lower = class.to_ascii_lowercase();
    let Some(class) = CLASSES.into_iter().find(|c| c.name() == lower) else {
        return Err(bad(
            "the class is one of coin, crane, tsmat, amat, tmat, disk, super, shop, stilt, rtilt",
        ));
    };
    let n = n.parse().map_err(|_| bad("N is not a number"))?;
    check_size(n).map_err(|e| match e {
        Error::TooLarge(_) => e,
        e => bad(&e.to_string()),
    })?;
    let seed = seed
        .parse()
        .map_err(|_| bad("SEED is not a 64-bit unsigned number"))?;
    Ok(GeneratorSpec { class, n, seed })
}

/// Generates an instance of `class` with `n` cities (2..=[`MAX_N`](super::instance::MAX_N) where memory allows;
/// 10..20 suits the exact search) from `seed`.
pub fn generate(class: GeneratorClass, n: usize, seed: u64) -> Result<Instance> {
    check_size(n)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let cost = match class {
        GeneratorClass::Coin => coin(n, &mut rng),
        GeneratorClass::Crane => crane(n, &mut rng),
        GeneratorClass::Tsmat => tsmat(n, &mut rng),
        GeneratorClass::Amat => amat(n, &mut rng),
        GeneratorClass::Tmat => {
            let mut cost = amat(n, &mut rng);
            close_under_shortest_paths(n, &mut cost);
            cost
        }
        GeneratorClass::Disk => disk(n, &mut rng),
        GeneratorClass::Super => superstring(n, &mut rng),
        GeneratorClass::Shop => shop(n, &mut rng),
        GeneratorClass::Stilt => tilt(n, &mut rng, i64::max),
        GeneratorClass::Rtilt => tilt(n, &mut rng, |across, up| across + up),
    };
    Instance::new(format!("{}:{n}:{seed}", class.name()), n, cost)
}

fn coin(n: usize, rng: &mut ChaCha8Rng) -> Vec<i64> {
    let g = (4.0 * n as f64).sqrt().ceil() as usize + 1;
    let cities: Vec<usize> = sample(rng, g * g, n).into_iter().collect();
    let mut cost = vec![0; n * n];
    for (i, &from) in cities.iter().enumerate() {
        let dist = grid_distances(g, from);
        for (j, &to) in cities.iter().enumerate() {
            cost[i * n + j] = dist[to] * BLOCK;
        }
    }
    cost
}

/// Blocks driven from intersection `from` (index `y * g + x`) to every intersection.
fn grid_distances(g: usize, from: usize) -> Vec<i64> {
    let mut dist = vec![-1i64; g * g];
    let mut queue = std::collections::VecDeque::from([from]);
    dist[from] = 0;
    while let Some(at) = queue.pop_front() {
        let (x, y) = (at % g, at / g);
        let row_two_way = y == 0 || y == g - 1;
        let col_two_way = x == 0 || x == g - 1;
        let mut moves = Vec::with_capacity(4);
        if (row_two_way || y % 2 == 0) && x + 1 < g {
            moves.push(at + 1);
        }
        if (row_two_way || y % 2 == 1) && x > 0 {
            moves.push(at - 1);
        }
        if (col_two_way || x % 2 == 0) && y + 1 < g {
            moves.push(at + g);
        }
        if (col_two_way || x % 2 == 1) && y > 0 {
            moves.push(at - g);
        }
        for next in moves {
            if dist[next] < 0 {
                dist[next] = dist[at] + 1;
                queue.push_back(next);
            }
        }
    }
    dist
}

fn crane(n: usize, rng: &mut ChaCha8Rng) -> Vec<i64> {
    let side = SCALE as f64;
    let reach = side / (n as f64).sqrt();
    let jobs: Vec<[f64; 4]> = (0..n)
        .map(|_| {
            let (sx, sy) = (rng.random_range(0.0..side), rng.random_range(0.0..side));
            let dx = (sx + rng.random_range(-reach..=reach)).clamp(0.0, side);
            let dy = (sy + rng.random_range(-reach..=reach)).clamp(0.0, side);
            [sx, sy, dx, dy]
        })
        .collect();
    let dist = |ax: f64, ay: f64, bx: f64, by: f64| (ax - bx).hypot(ay - by).round() as i64;
    let mut cost = vec![0; n * n];
    for (i, a) in jobs.iter().enumerate() {
        let own = dist(a[0], a[1], a[2], a[3]);
        for (j, b) in jobs.iter().enumerate() {
            cost[i * n + j] = own + dist(a[2], a[3], b[0], b[1]);
        }
    }
    cost
}

fn tsmat(n: usize, rng: &mut ChaCha8Rng) -> Vec<i64> {
    let mut cost = vec![0; n * n];
    for i in 0..n {
        for j in i + 1..n {
            let c = rng.random_range(0..SCALE);
            cost[i * n + j] = c;
            cost[j * n + i] = c;
        }
    }
    close_under_shortest_paths(n, &mut cost);
    cost
}

/// Replaces every entry of the `n x n` matrix by the cheapest path's (Floyd-Warshall). Row k
/// does not change in round k, so every other row reads a copy of it and the rows of a round
/// are relaxed in parallel (at n = 3,000 one thread took 35 s on the H200's host).
fn close_under_shortest_paths(n: usize, cost: &mut [i64]) {
    for i in 0..n {
        cost[i * n + i] = 0;
    }
    let mut from_k = vec![0; n];
    for k in 0..n {
        from_k.copy_from_slice(&cost[k * n..(k + 1) * n]);
        cost.par_chunks_mut(n).with_min_len(32).for_each(|row| {
            let to_k = row[k];
            for (c, &k_to) in row.iter_mut().zip(&from_k) {
                *c = (*c).min(to_k + k_to);
            }
        });
    }
}

fn amat(n: usize, rng: &mut ChaCha8Rng) -> Vec<i64> {
    (0..n * n).map(|_| rng.random_range(0..SCALE)).collect()
}

fn disk(n: usize, rng: &mut ChaCha8Rng) -> Vec<i64> {
    // Tracks and angles in millionths of a stroke and of a revolution.
    let requests: Vec<(i64, i64)> = (0..n)
        .map(|_| (rng.random_range(0..SCALE), rng.random_range(0..SCALE)))
        .collect();
    let mut cost = vec![0; n * n];
    for (i, &(track_i, angle_i)) in requests.iter().enumerate() {
        for (j, &(track_j, angle_j)) in requests.iter().enumerate() {
            let seek = (track_i - track_j).abs();
            let wait = (angle_j - angle_i - seek).rem_euclid(SCALE);
            cost[i * n + j] = seek + wait;
        }
    }
    cost
}

/// The length of a `super` string, in bits.
const SUPER_BITS: u32 = 20;

fn superstring(n: usize, rng: &mut ChaCha8Rng) -> Vec<i64> {
    let strings: Vec<u32> = (0..n)
        .map(|_| rng.random_range(0..1u32 << SUPER_BITS))
        .collect();
    let mut cost = vec![0; n * n];
    for (i, &a) in strings.iter().enumerate() {
        for (j, &b) in strings.iter().enumerate() {
            cost[i * n + j] = leftover(a, b);
        }
    }
    cost
}

/// The bits of `b` left after the longest proper suffix of `a` that is a prefix of `b`
/// (a string's first bit is its highest).
fn leftover(a: u32, b: u32) -> i64 {
    let overlap = (1..SUPER_BITS)
        .rev()
        .find(|&k| a & ((1 << k) - 1) == b >> (SUPER_BITS - k))
        .unwrap_or(0);
    i64::from(SUPER_BITS - overlap)
}

/// Machines of a `shop` job.
const SHOP_MACHINES: usize = 5;

fn shop(n: usize, rng: &mut ChaCha8Rng) -> Vec<i64> {
    let jobs: Vec<[i64; SHOP_MACHINES]> = (0..n)
        .map(|_| std::array::from_fn(|_| rng.random_range(0..1000)))
        .collect();
    let mut cost = vec![0; n * n];
    for (i, a) in jobs.iter().enumerate() {
        for (j, b) in jobs.iter().enumerate() {
            cost[i * n + j] = no_wait_delay(a, b);
        }
    }
    cost
}

/// The least delay between the starts of jobs `a` and `b` (in that order) of a no-wait
/// flow shop: machine k is free for `b` once `a` has left it, after `a`'s work up to and
/// with k, and `b` reaches it after its own work before k.
fn no_wait_delay(a: &[i64; SHOP_MACHINES], b: &[i64; SHOP_MACHINES]) -> i64 {
    let (mut done_a, mut before_b, mut delay) = (0, 0, 0);
    for k in 0..SHOP_MACHINES {
        done_a += a[k];
        delay = i64::max(delay, done_a - before_b);
        before_b += b[k];
    }
    delay
}

fn tilt(n: usize, rng: &mut ChaCha8Rng, combine: impl Fn(i64, i64) -> i64) -> Vec<i64> {
    let holes: Vec<(i64, i64)> = (0..n)
        .map(|_| (rng.random_range(0..SCALE), rng.random_range(0..SCALE)))
        .collect();
    let mut cost = vec![0; n * n];
    for (i, &(xi, yi)) in holes.iter().enumerate() {
        for (j, &(xj, yj)) in holes.iter().enumerate() {
            let up = 2 * (yj - yi).max(0);
            cost[i * n + j] = combine((xj - xi).abs(), up);
        }
    }
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_intersection_is_reachable_on_the_one_way_grid() {
        for g in 2..9 {
            assert!(grid_distances(g, 0).iter().all(|&d| d >= 0), "g = {g}");
            assert!(
                grid_distances(g, g * g - 1).iter().all(|&d| d >= 0),
                "g = {g}"
            );
        }
    }

    #[test]
    fn specs_parse_and_reject() {
        let spec = parse_generator_spec("Crane:15:7").unwrap();
        assert_eq!(
            spec,
            GeneratorSpec {
                class: GeneratorClass::Crane,
                n: 15,
                seed: 7
            }
        );
        for bad in [
            "crane:15",
            "bus:15:1",
            "coin:x:1",
            "coin:1:1",
            "coin:5:-1",
            "tsmat:10001:0",
        ] {
            assert!(parse_generator_spec(bad).is_err(), "{bad}");
        }
        for class in CLASSES {
            let spec = format!("{}:12:3", class.name().to_uppercase());
            assert_eq!(parse_generator_spec(&spec).unwrap().class, class);
        }
    }

    /// The parallel closure gives every pair its cheapest path, as the plain triple loop.
    #[test]
    fn the_closure_is_the_plain_floyd_warshall() {
        let n = 70;
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let original = amat(n, &mut rng);
        let mut plain = original.clone();
        for i in 0..n {
            plain[i * n + i] = 0;
        }
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    plain[i * n + j] = plain[i * n + j].min(plain[i * n + k] + plain[k * n + j]);
                }
            }
        }
        let mut closed = original;
        close_under_shortest_paths(n, &mut closed);
        assert_eq!(closed, plain);
    }

    #[test]
    fn every_class_is_seeded_nonnegative_and_closed_where_it_should_be() {
        for class in CLASSES {
            for n in [2, 3, 17, 40] {
                let inst = generate(class, n, 5).unwrap();
                let c = |i, j| inst.cost(i, j);
                assert_eq!(inst.name, format!("{}:{n}:5", class.name()));
                assert_eq!(generate(class, n, 5).unwrap().cost, inst.cost, "{class:?}");
                let arcs = || (0..n).flat_map(|i| (0..n).map(move |j| (i, j)));
                assert!(arcs().all(|(i, j)| i == j || c(i, j) >= 0), "{class:?}");
                let triangle = (0..n).all(|k| arcs().all(|(i, j)| c(i, j) <= c(i, k) + c(k, j)));
                if matches!(class, GeneratorClass::Tmat | GeneratorClass::Tsmat) {
                    assert!(triangle, "{class:?} {n}");
                }
            }
            let (a, b) = (
                generate(class, 30, 1).unwrap(),
                generate(class, 30, 2).unwrap(),
            );
            assert_ne!(a.cost, b.cost, "{class:?}");
        }
        let (stilt, rtilt) = (
            generate(GeneratorClass::Stilt, 30, 4).unwrap(),
            generate(GeneratorClass::Rtilt, 30, 4).unwrap(),
        );
        assert!(stilt.cost.iter().zip(&rtilt.cost).all(|(s, r)| s <= r));
        let disk = generate(GeneratorClass::Disk, 30, 4).unwrap();
        assert!(disk.cost.iter().all(|&c| (0..2 * SCALE).contains(&c)));
    }

    #[test]
    fn superstring_leftovers_match_string_overlaps() {
        let bits = |x: u32| format!("{x:020b}");
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..500 {
            // Few distinct bits, so that long overlaps occur.
            let a = rng.random_range(0..1u32 << 20) & 0xF0F0F;
            let b = rng.random_range(0..1u32 << 20) & 0xF0F0F;
            let (sa, sb) = (bits(a), bits(b));
            let overlap = (0..20).rev().find(|&k| sa.ends_with(&sb[..k])).unwrap();
            assert_eq!(leftover(a, b), 20 - overlap as i64, "{sa} {sb}");
        }
        assert_eq!(leftover(0b1, 0b1 << 19), 19);
        assert_eq!(leftover(0, 0), 1);
    }

    #[test]
    fn no_wait_delays_are_the_least_that_keep_each_machine_free() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for _ in 0..200 {
            let a: [i64; SHOP_MACHINES] = std::array::from_fn(|_| rng.random_range(0..30));
            let b: [i64; SHOP_MACHINES] = std::array::from_fn(|_| rng.random_range(0..30));
            // Machine k holds a until a[..=k] and b from d + b[..k] on: the least d at
            // which b reaches every machine no sooner than a leaves it.
            let sum = |p: &[i64]| p.iter().sum::<i64>();
            let free = |d: i64| (0..SHOP_MACHINES).all(|k| d + sum(&b[..k]) >= sum(&a[..=k]));
            let least = (0..).find(|&d| free(d)).unwrap();
            assert_eq!(no_wait_delay(&a, &b), least, "{a:?} {b:?}");
        }
    }
}
