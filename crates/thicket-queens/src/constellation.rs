//! Border constellations: every solution has exactly one queen on each of the four border
//! lines (first and last row, first and last column). Fixing those two to four queens first
//! (Preusser's "coronal" pre-placement, the "constellations" of NQueensFAF) splits the search
//! into independent subproblems that the 8 board symmetries permute. Only one canonical
//! constellation per symmetry class is searched; its count is weighted by the size of its
//! class (8, 4 or 2).

use rayon::prelude::*;

use crate::symmetry::Symmetry;

/// The queens on the four border lines of an `n x n` board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Constellation {
    /// Column of the queen in the first row.
    pub top: u8,
    /// Column of the queen in the last row.
    pub bottom: u8,
    /// Row of the queen in the first column.
    pub left: u8,
    /// Row of the queen in the last column.
    pub right: u8,
}

/// The searched representative of one symmetry class of constellations, with the symmetries
/// that leave it unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalConstellation {
    /// The member of its class that the search fills (see [`canonical_constellations`]).
    pub constellation: Constellation,
    /// The symmetries that map the constellation onto itself (the identity included).
    pub stabilizer: Vec<Symmetry>,
}

impl CanonicalConstellation {
    /// How many constellations its class holds: the factor its solution count is weighted by.
    pub fn class_size(&self) -> u64 {
        8 / self.stabilizer.len() as u64
    }

    /// True when no symmetry but the identity fixes it, so every solution in it is the only
    /// member of its solution class with this constellation.
    pub fn is_asymmetric(&self) -> bool {
        self.stabilizer.len() == 1
    }
}

impl Constellation {
    /// The distinct border queens as `(row, col)` cells (two to four of them).
    pub fn queens(&self, n: usize) -> Vec<(usize, usize)> {
        let last = n - 1;
        let mut cells = vec![
            (0, usize::from(self.top)),
            (last, usize::from(self.bottom)),
            (usize::from(self.left), 0),
            (usize::from(self.right), last),
        ];
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    /// Rebuilds a constellation from its border queens; `None` unless each border line holds
    /// exactly one of them.
    fn from_queens(n: usize, cells: &[(usize, usize)]) -> Option<Constellation> {
        let last = n - 1;
        let line = |on_line: &dyn Fn(&(usize, usize)) -> bool,
                    coord: &dyn Fn(&(usize, usize)) -> usize| {
            let mut hits = cells.iter().filter(|c| on_line(c));
            match (hits.next(), hits.next()) {
                (Some(cell), None) => Some(coord(cell) as u8),
                _ => None,
            }
        };
        Some(Constellation {
            top: line(&|c| c.0 == 0, &|c| c.1)?,
            bottom: line(&|c| c.0 == last, &|c| c.1)?,
            left: line(&|c| c.1 == 0, &|c| c.0)?,
            right: line(&|c| c.1 == last, &|c| c.0)?,
        })
    }

    /// True when the border queens are consistent (corner queens shared by both lines) and no
    /// two of them attack each other.
    pub fn is_valid(&self, n: usize) -> bool {
        let cells = self.queens(n);
        if Constellation::from_queens(n, &cells) != Some(*self) {
            return false;
        }
        cells.iter().enumerate().all(|(i, a)| {
            cells[i + 1..]
                .iter()
                .all(|b| a.0 != b.0 && a.1 != b.1 && a.0.abs_diff(b.0) != a.1.abs_diff(b.1))
        })
    }

    /// The image of this constellation under a board symmetry.
    pub fn transformed(&self, n: usize, symmetry: Symmetry) -> Constellation {
        let cells: Vec<_> = self
            .queens(n)
            .into_iter()
            .map(|cell| symmetry.apply(n, cell))
            .collect();
        Constellation::from_queens(n, &cells)
            .expect("a board symmetry maps the border lines onto the border lines")
    }
}

#[cfg(test)]
/// Every valid constellation of an `n x n` board (`1 <= n <= 32`), in ascending order.
pub fn valid_constellations(n: usize) -> impl Iterator<Item = Constellation> {
    (0..n * n).flat_map(move |top_bottom| valid_with_top_bottom(n, top_bottom))
}

/// The valid constellations of an `n x n` board whose top and bottom queens are in the
/// columns `top_bottom / n` and `top_bottom % n`, in ascending order: the `n * n` independent
/// slices that [`canonical_constellations`] checks in parallel.
fn valid_with_top_bottom(n: usize, top_bottom: usize) -> impl Iterator<Item = Constellation> {
    let (top, bottom) = ((top_bottom / n) as u8, (top_bottom % n) as u8);
    (0..n as u8)
        .flat_map(move |left| {
            (0..n as u8).map(move |right| Constellation {
                top,
                bottom,
                left,
                right,
            })
        })
        .filter(move |c| c.is_valid(n))
}

/// One representative of every class of constellations of an `n x n` board (`1 <= n <= 32`):
/// the class's smallest member turned upside down, in ascending order of that smallest
/// member. Checked in parallel (tens of milliseconds on one core from N = 20 on, on the GPU
/// backend's path before the first launch); the order is the sequential one.
pub fn canonical_constellations(n: usize) -> Vec<CanonicalConstellation> {
    (0..n * n)
        .into_par_iter()
        .flat_map_iter(|top_bottom| valid_with_top_bottom(n, top_bottom))
        .filter(|c| Symmetry::ALL.iter().all(|&g| *c <= c.transformed(n, g)))
        .map(|c| search_orientation(n, c))
        .collect()
}

/// The member of the class of the canonical constellation `canonical` that the search fills.
///
/// The smallest member has its top queen nearest a corner, which constrains the first rows
/// least; the search runs top-down, so it takes the class member upside down, whose last-row
/// queen is that weak one. This visits about 1.6x fewer nodes (measured for n = 12..14).
fn search_orientation(n: usize, canonical: Constellation) -> CanonicalConstellation {
    let constellation = canonical.transformed(n, Symmetry::MirrorRows);
    let stabilizer = Symmetry::ALL
        .into_iter()
        .filter(|&g| constellation.transformed(n, g) == constellation)
        .collect();
    CanonicalConstellation {
        constellation,
        stabilizer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Every valid constellation lies in the class of exactly one canonical one, and the class
    /// sizes add up to the number of valid constellations.
    #[test]
    fn canonical_classes_partition_all_constellations() {
        for n in 1..=9 {
            let canonical = canonical_constellations(n);
            let all: HashSet<Constellation> = valid_constellations(n).collect();
            let mut covered = HashSet::new();
            for rep in &canonical {
                let class: HashSet<_> = Symmetry::ALL
                    .iter()
                    .map(|&g| rep.constellation.transformed(n, g))
                    .collect();
                assert_eq!(class.len() as u64, rep.class_size());
                for member in class {
                    assert!(covered.insert(member), "n={n}: {member:?} in two classes");
                }
            }
            assert_eq!(covered, all, "n={n}");
        }
    }

    /// The parallel listing keeps the order of a sequential pass over every constellation.
    #[test]
    fn canonical_constellations_keep_the_sequential_order() {
        for n in 1..=13 {
            let sequential: Vec<CanonicalConstellation> = valid_constellations(n)
                .filter(|c| Symmetry::ALL.iter().all(|&g| *c <= c.transformed(n, g)))
                .map(|c| search_orientation(n, c))
                .collect();
            assert_eq!(canonical_constellations(n), sequential, "n={n}");
        }
    }

    #[test]
    fn corner_queens_are_shared_by_two_lines() {
        let c = Constellation {
            top: 0,
            bottom: 2,
            left: 0,
            right: 3,
        };
        assert!(c.is_valid(5));
        assert_eq!(c.queens(5).len(), 3);
        let inconsistent = Constellation {
            top: 0,
            bottom: 2,
            left: 3,
            right: 1,
        };
        assert!(!inconsistent.is_valid(5));
    }
}
