//! The search strategies of the thesis that thicket runs, selectable with `--strategy`.

use serde::Serialize;

/// How a permutation search is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// One thread, one non-recursive DFS from the root.
    Serial,
    /// A serial DFS to `--d-cpu` builds the active set; rayon's pool of threads takes its
    /// nodes and searches below each (the thesis's OpenMP multi-core pool scheme).
    Multicore,
}

impl Strategy {
    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Serial => "serial",
            Strategy::Multicore => "multicore",
        }
    }
}
