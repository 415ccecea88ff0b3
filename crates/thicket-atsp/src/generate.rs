//! Seeded random instance classes after Cirasella, Johnson, McGeoch and Zhang (2001), *The
//! asymmetric TSP: algorithms, instance generators, and tests*, the classes Carneiro (2017)
//! solved. These are reconstructions from the paper's descriptions, not ports of its
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

use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
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
}

impl GeneratorClass {
    /// The class's name in specs and instance names.
    pub fn name(self) -> &'static str {
        match self {
            GeneratorClass::Coin => "coin",
            GeneratorClass::Crane => "crane",
            GeneratorClass::Tsmat => "tsmat",
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
    let class = match class.to_ascii_lowercase().as_str() {
        "coin" => GeneratorClass::Coin,
        "crane" => GeneratorClass::Crane,
        "tsmat" => GeneratorClass::Tsmat,
        _ => return Err(bad("the class is one of coin, crane, tsmat")),
    };
    let n = n.parse().map_err(|_| bad("N is not a number"))?;
    check_size(n).map_err(|e| bad(&e.to_string()))?;
    let seed = seed
        .parse()
        .map_err(|_| bad("SEED is not a 64-bit unsigned number"))?;
    Ok(GeneratorSpec { class, n, seed })
}

/// Generates an instance of `class` with `n` cities (2..=1000; 10..20 suits the exact
/// search) from `seed`.
pub fn generate(class: GeneratorClass, n: usize, seed: u64) -> Result<Instance> {
    check_size(n)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let cost = match class {
        GeneratorClass::Coin => coin(n, &mut rng),
        GeneratorClass::Crane => crane(n, &mut rng),
        GeneratorClass::Tsmat => tsmat(n, &mut rng),
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
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                let via = cost[i * n + k] + cost[k * n + j];
                if via < cost[i * n + j] {
                    cost[i * n + j] = via;
                }
            }
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
            "tsmat:1001:0",
        ] {
            assert!(parse_generator_spec(bad).is_err(), "{bad}");
        }
    }
}
