//! Seeded ETC generators (the same seed gives the same matrix on every machine):
//!
//! - the thesis's: task lengths (instructions) over machine speeds (MIPS), hence consistent;
//!   the thesis does not give the distributions, thicket draws lengths uniformly from
//!   1,000..100,000 million instructions and speeds from 500..5,000 MIPS;
//! - Braun et al.'s range-based method (Ali et al. 2000): a baseline per task uniform in
//!   [1, R_task), times it a factor uniform in [1, R_machine) per machine, with Braun's ranges
//!   (task heterogeneity high 3,000, low 100; machine high 1,000, low 10), then each task's row
//!   sorted (consistent), its even-numbered machines' times sorted among themselves
//!   (semi-consistent), or left (inconsistent).

use std::fmt;
use std::str::FromStr;

use thicket_core::{Error, Result, SplitMix};

use crate::etc::{Etc, MAX_ENTRIES};

/// How machine orders agree between tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consistency {
    /// Machine 0 is the fastest for every task, machine 1 the next, ...
    Consistent,
    /// The even-numbered machines are consistent, the odd ones are not.
    SemiConsistent,
    /// No common order.
    Inconsistent,
}

/// A heterogeneity: the range of Braun's uniform factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heterogeneity {
    /// Tasks: 3,000; machines: 1,000.
    High,
    /// Tasks: 100; machines: 10.
    Low,
}

/// The matrices `thicket schedule --generate` makes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Generator {
    /// The thesis's: length / MIPS.
    Thesis {
        /// Tasks.
        tasks: usize,
        /// Machines.
        machines: usize,
    },
    /// Braun's range-based method.
    Braun {
        /// Tasks.
        tasks: usize,
        /// Machines.
        machines: usize,
        /// Consistency class.
        consistency: Consistency,
        /// Task heterogeneity.
        task: Heterogeneity,
        /// Machine heterogeneity.
        machine: Heterogeneity,
    },
}

impl Heterogeneity {
    fn range(self, task: bool) -> f64 {
        match (self, task) {
            (Heterogeneity::High, true) => 3000.0,
            (Heterogeneity::Low, true) => 100.0,
            (Heterogeneity::High, false) => 1000.0,
            (Heterogeneity::Low, false) => 10.0,
        }
    }

    fn letters(self) -> &'static str {
        match self {
            Heterogeneity::High => "hi",
            Heterogeneity::Low => "lo",
        }
    }
}

/// A value uniform in [lo, hi).
fn uniform(rng: &mut SplitMix, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.unit()
}

impl Generator {
    /// Generates the matrix from `seed`.
    pub fn generate(self, seed: u64) -> Result<Etc> {
        let mut rng = SplitMix::new(seed);
        match self {
            Generator::Thesis { tasks, machines } => {
                check(tasks, machines)?;
                let lengths: Vec<f64> = (0..tasks)
                    .map(|_| uniform(&mut rng, 1_000.0, 100_000.0))
                    .collect();
                let mut mips: Vec<f64> = (0..machines)
                    .map(|_| uniform(&mut rng, 500.0, 5_000.0))
                    .collect();
                // Fastest first, as Braun's consistent matrices order machines.
                mips.sort_by(|a, b| b.total_cmp(a));
                let times = lengths
                    .iter()
                    .flat_map(|l| mips.iter().map(move |s| l / s))
                    .collect();
                Etc::new(tasks, machines, times)
            }
            Generator::Braun {
                tasks,
                machines,
                consistency,
                task,
                machine,
            } => {
                check(tasks, machines)?;
                let mut times = Vec::with_capacity(tasks * machines);
                for _ in 0..tasks {
                    let base = uniform(&mut rng, 1.0, task.range(true));
                    let start = times.len();
                    for _ in 0..machines {
                        times.push(base * uniform(&mut rng, 1.0, machine.range(false)));
                    }
                    let row = &mut times[start..];
                    match consistency {
                        Consistency::Consistent => row.sort_by(f64::total_cmp),
                        Consistency::SemiConsistent => {
                            let mut even: Vec<f64> = row.iter().copied().step_by(2).collect();
                            even.sort_by(f64::total_cmp);
                            for (slot, value) in row.iter_mut().step_by(2).zip(even) {
                                *slot = value;
                            }
                        }
                        Consistency::Inconsistent => {}
                    }
                }
                Etc::new(tasks, machines, times)
            }
        }
    }
}

/// Refuses, before anything is allocated, a shape a file could not have either (no task or
/// machine, more than [`MAX_ENTRIES`] entries, counted without wrapping) or one whose matrix
/// would not fit this machine's memory.
fn check(tasks: usize, machines: usize) -> Result<()> {
    if tasks == 0 || machines == 0 {
        return Err(Error::InvalidInput(format!(
            "a generated matrix needs at least one task and one machine, not {tasks} x {machines}"
        )));
    }
    let entries = tasks
        .checked_mul(machines)
        .filter(|&n| n <= MAX_ENTRIES)
        .ok_or_else(|| {
            Error::InvalidInput(format!(
                "{tasks} x {machines} entries are too many (at most 2^28)"
            ))
        })?;
    // The matrix, and the copy the searches keep beside it.
    let bytes = (entries as u64).checked_mul(2 * std::mem::size_of::<f64>() as u64);
    thicket_core::check_fits(&format!("an ETC matrix of {tasks} x {machines}"), bytes)
}

impl fmt::Display for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Generator::Thesis { tasks, machines } => write!(f, "thesis:{tasks}x{machines}"),
            Generator::Braun {
                tasks,
                machines,
                consistency,
                task,
                machine,
            } => {
                let c = match consistency {
                    Consistency::Consistent => "c",
                    Consistency::SemiConsistent => "s",
                    Consistency::Inconsistent => "i",
                };
                write!(
                    f,
                    "u_{c}_{}{}:{tasks}x{machines}",
                    task.letters(),
                    machine.letters()
                )
            }
        }
    }
}

impl FromStr for Generator {
    type Err = Error;

    /// `thesis:TxM` or `u_<c|s|i>_<hi|lo><hi|lo>:TxM` (Braun's names), e.g. `u_c_hihi:512x16`.
    fn from_str(text: &str) -> Result<Generator> {
        let bad = || {
            Error::InvalidInput(format!(
                "generator {} is not thesis:TASKSxMACHINES or \
                 u_<c|s|i>_<hi|lo><hi|lo>:TASKSxMACHINES (e.g. u_c_hihi:512x16)",
                thicket_core::quoted(text)
            ))
        };
        let (kind, size) = text.split_once(':').ok_or_else(bad)?;
        let (tasks, machines) = size.split_once(['x', 'X']).ok_or_else(bad)?;
        let tasks: usize = tasks.parse().map_err(|_| bad())?;
        let machines: usize = machines.parse().map_err(|_| bad())?;
        if kind == "thesis" {
            return Ok(Generator::Thesis { tasks, machines });
        }
        let het = |s: &str| match s {
            "hi" => Some(Heterogeneity::High),
            "lo" => Some(Heterogeneity::Low),
            _ => None,
        };
        let rest = kind.strip_prefix("u_").ok_or_else(bad)?;
        let (c, h) = rest.split_once('_').ok_or_else(bad)?;
        let consistency = match c {
            "c" => Consistency::Consistent,
            "s" => Consistency::SemiConsistent,
            "i" => Consistency::Inconsistent,
            _ => return Err(bad()),
        };
        if h.len() != 4 || !h.is_ascii() {
            return Err(bad());
        }
        Ok(Generator::Braun {
            tasks,
            machines,
            consistency,
            task: het(&h[..2]).ok_or_else(bad)?,
            machine: het(&h[2..]).ok_or_else(bad)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(values: &[f64]) -> bool {
        values.windows(2).all(|w| w[0] <= w[1])
    }

    #[test]
    fn names_parse_and_print_back() {
        for name in [
            "thesis:80x8",
            "u_c_hihi:512x16",
            "u_s_lohi:10x4",
            "u_i_lolo:3x3",
        ] {
            assert_eq!(name.parse::<Generator>().unwrap().to_string(), name);
        }
        for bad in [
            "u_x_hihi:5x5",
            "u_c_hi:5x5",
            "thesis:5",
            "u_c_hihi",
            "u_c_hihi:ax5",
        ] {
            assert_eq!(bad.parse::<Generator>().unwrap_err().exit_code(), 2);
        }
        assert!("thesis:0x5"
            .parse::<Generator>()
            .unwrap()
            .generate(1)
            .is_err());
        // Issue 29: sizes are refused before the matrix is filled, and never wrap.
        for (spec, message) in [
            ("thesis:100000x100000", "too many"),
            ("u_c_hihi:4294967296x4294967296", "too many"),
            ("u_c_hihi:18446744073709551615x2", "too many"),
        ] {
            let error = spec.parse::<Generator>().unwrap().generate(1).unwrap_err();
            assert!(error.to_string().contains(message), "{spec}: {error}");
            assert_eq!(error.exit_code(), 2);
        }
    }

    #[test]
    fn classes_hold_and_ranges_match_braun() {
        for (name, c) in [("u_c_hihi", 'c'), ("u_s_hilo", 's'), ("u_i_lolo", 'i')] {
            let g: Generator = format!("{name}:200x16").parse().unwrap();
            let etc = g.generate(5).unwrap();
            assert_eq!(etc, g.generate(5).unwrap(), "seeded");
            let max = etc.times().iter().copied().fold(0.0, f64::max);
            assert!(etc.times().iter().all(|&t| t >= 1.0));
            let bound = if name.ends_with("hihi") {
                3e6
            } else if name.ends_with("hilo") {
                3e4
            } else {
                1e3
            };
            assert!(max < bound, "{name}: {max}");
            let even: Vec<Vec<f64>> = (0..200)
                .map(|t| etc.row(t).iter().copied().step_by(2).collect())
                .collect();
            match c {
                'c' => assert!((0..200).all(|t| sorted(etc.row(t)))),
                's' => {
                    assert!(even.iter().all(|r| sorted(r)));
                    assert!(!(0..200).all(|t| sorted(etc.row(t))));
                }
                _ => assert!(!even.iter().all(|r| sorted(r))),
            }
        }
        let thesis = Generator::Thesis {
            tasks: 50,
            machines: 7,
        }
        .generate(3)
        .unwrap();
        assert!(
            (0..50).all(|t| sorted(thesis.row(t))),
            "length / MIPS is consistent"
        );
    }
}
