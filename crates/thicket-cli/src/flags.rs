//! Flag groups that several commands share, so that every command spells them alike: where to
//! run (`--backend/--threads/--devices`), how to report (`--json/--quiet`), how often and how
//! checked (`--trials/--verify`), and lists of sizes (`16,17` or `15..19`).

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use thicket_core::{Backend, RunOptions};
use thicket_run::Shard;

/// A parser for a choice type (a backend, a strategy) whose help and errors list every name
/// in `all`, read back by the type's `FromStr`: the lists come from the enums and cannot drift.
pub fn choices<T>(all: &[T], name: fn(T) -> &'static str) -> impl TypedValueParser<Value = T>
where
    T: Copy + Send + Sync + 'static + std::str::FromStr,
    T::Err: std::fmt::Debug,
{
    let names: Vec<&'static str> = all.iter().map(|&c| name(c)).collect();
    PossibleValuesParser::new(names).map(|s| {
        s.parse::<T>()
            .expect("every possible value is a name the type reads back")
    })
}

/// A graph format named on the command line (`--format gr`, in place of a file's extension):
/// thicket-graph's formats by their extensions, each with its description in `--help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphFormat(pub thicket_graph::Format);

impl clap::ValueEnum for GraphFormat {
    fn value_variants<'a>() -> &'a [GraphFormat] {
        use thicket_graph::Format;
        const ALL: [GraphFormat; Format::ALL.len()] = {
            let mut all = [GraphFormat(Format::Dimacs); Format::ALL.len()];
            let mut i = 0;
            while i < all.len() {
                all[i] = GraphFormat(Format::ALL[i]);
                i += 1;
            }
            all
        };
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.extension()).help(self.0.about()))
    }
}

/// Where a command runs.
#[derive(Debug, Clone, Args)]
pub struct BackendArgs {
    /// Where to run: `auto` uses the GPUs when it can and falls back to the CPU.
    #[arg(long, default_value_t = Backend::Auto, value_parser = choices(&Backend::ALL, Backend::name))]
    pub backend: Backend,
    /// CPU threads (default: all cores). Beside GPUs, the host threads that prepare their
    /// work (and, for N-Queens, count the rotation-symmetric solutions while the GPUs run).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// GPUs to use, by CUDA ordinal, e.g. `0,1` (default: all visible GPUs; one-GPU
    /// strategies take one ordinal, default 0).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub devices: Option<Vec<usize>>,
}

impl BackendArgs {
    /// The GPU of a one-GPU strategy: the first ordinal asked for, else 0.
    pub fn first_device(&self) -> usize {
        self.devices
            .as_ref()
            .and_then(|d| d.first().copied())
            .unwrap_or(0)
    }

    /// The threads asked for, else all cores.
    pub fn thread_count(&self) -> usize {
        self.threads
            .map(|t| t as usize)
            .unwrap_or_else(thicket_core::available_threads)
    }
}

/// How a command reports.
#[derive(Debug, Clone, Copy, Args)]
pub struct OutputArgs {
    /// Print one JSON object instead of the text summary (its keys are listed in the
    /// command's help).
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// How often a command runs and whether it checks its answer.
#[derive(Debug, Clone, Copy, Args)]
pub struct TrialArgs {
    /// Run this many times; the reported time is the fastest (JSON: `trial_seconds` lists
    /// them all).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub trials: u32,
    /// Check the answer against an independent reference (published counts, a proven
    /// optimum); a wrong answer exits with code 3, an input without a reference with code 2.
    #[arg(long)]
    pub verify: bool,
}

/// Where a bench writes its results: the same flags for every `thicket bench`. Every result
/// file is an `--output*` flag; the files are rewritten after every case, so they are files,
/// never stdout (the table or JSON goes there at the end).
#[derive(Debug, Clone, Args)]
pub struct BenchOutputArgs {
    /// Print the results as JSON on stdout instead of the Markdown table.
    #[arg(long)]
    pub json: bool,
    /// Also write the Markdown table to this file.
    #[arg(long = "output", short = 'o', alias = "out", value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
    /// Also write the results as CSV to this file.
    #[arg(long = "output-csv", alias = "csv", value_name = "FILE")]
    pub csv: Option<std::path::PathBuf>,
    /// Also write the results as JSON to this file.
    #[arg(long = "output-json", alias = "json-out", value_name = "FILE")]
    pub json_out: Option<std::path::PathBuf>,
    /// Also draw time against N per strategy (log scale) as SVG into this file.
    #[arg(long = "output-chart", alias = "chart", value_name = "FILE")]
    pub chart: Option<std::path::PathBuf>,
    /// Write all four (`<bench>.md`, `.csv`, `.json`, `.svg`) into this folder.
    #[arg(long = "output-dir", alias = "out-dir", value_name = "DIR")]
    pub out_dir: Option<std::path::PathBuf>,
}

impl BenchOutputArgs {
    /// The files asked for.
    pub fn outputs(&self) -> thicket_bench::harness::Outputs {
        thicket_bench::harness::Outputs {
            markdown: self.out.clone(),
            csv: self.csv.clone(),
            json: self.json_out.clone(),
            chart: self.chart.clone(),
            dir: self.out_dir.clone(),
        }
    }
}

/// The run options of a kernel command.
pub fn run_options(backend: &BackendArgs, output: &OutputArgs, trials: &TrialArgs) -> RunOptions {
    RunOptions {
        backend: backend.backend,
        trials: trials.trials as usize,
        verify: trials.verify,
        quiet: output.quiet,
    }
}

/// Parses a time cap in seconds: a finite number above 0 (`-1`, `0`, `nan` and `inf` would
/// make a bench skip everything or nothing).
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 => Ok(seconds),
        _ => Err(format!(
            "time cap '{}' is not a positive number of seconds",
            cut(text)
        )),
    }
}

/// `text` cut to 40 characters for a message, with `...` where it was cut.
pub fn cut(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// Parses a shard `i/K` (0 <= i < K).
pub fn parse_shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text).map_err(|e| e.message())
}

/// Sizes given on the command line.
#[derive(Debug, Clone)]
pub struct SizeList(pub Vec<usize>);

/// Parses `16,17` or `15..19` into board sizes 1..=32.
pub fn parse_sizes(text: &str) -> Result<SizeList, String> {
    parse_list(text, 1, 32, "board size")
}

/// The most lattice steps a bench takes.
const MAX_BENCH_STEPS: usize = 10_000_000;

/// Parses lattice steps: `1000,30000`, or `lo..hi` as the values 1, 3, 10, 30, ... times a
/// power of ten between lo and hi, with lo and hi themselves.
pub fn parse_steps(text: &str) -> Result<SizeList, String> {
    let Some((lo, hi)) = text.split_once("..") else {
        return parse_list(text, 1, MAX_BENCH_STEPS, "step count");
    };
    let ends = parse_list(
        &format!("{lo},{}", hi.trim_start_matches('=')),
        1,
        MAX_BENCH_STEPS,
        "step count",
    )?
    .0;
    let (lo, hi) = (ends[0], ends[1]);
    if lo > hi {
        return Err(format!("empty range {text}"));
    }
    let mut values = vec![lo];
    let mut decade = 1;
    while decade <= hi {
        for value in [decade, 3 * decade] {
            if value > lo && value < hi {
                values.push(value);
            }
        }
        decade *= 10;
    }
    if hi > lo {
        values.push(hi);
    }
    Ok(SizeList(values))
}

/// Parses a book size `OPTIONSxSTEPS`, e.g. `1024x2048`.
pub fn parse_book_size(text: &str) -> Result<(usize, usize), String> {
    let (options, steps) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{text}' is not OPTIONSxSTEPS (e.g. 1024x2048)"))?;
    let options = parse_list(options, 1, 1 << 20, "option count")?.0;
    let steps = parse_list(steps, 1, MAX_BENCH_STEPS, "step count")?.0;
    match (&options[..], &steps[..]) {
        (&[options], &[steps]) => Ok((options, steps)),
        _ => Err(format!("'{text}' is not OPTIONSxSTEPS (e.g. 1024x2048)")),
    }
}

/// Parses a list or range of search depths 0..=32.
pub fn parse_depths(text: &str) -> Result<SizeList, String> {
    parse_list(text, 0, 32, "depth")
}

/// Parses a list or range of Kronecker scales 1..=31.
pub fn parse_scales(text: &str) -> Result<SizeList, String> {
    parse_list(text, 1, 31, "Kronecker scale")
}

/// Parses a list of vertex counts 1..2^31 (`1000000,2000000`).
pub fn parse_vertex_counts(text: &str) -> Result<SizeList, String> {
    parse_list(text, 1, 1 << 31, "vertex count")
}

/// Parses a grid size `ROWSxCOLS` (e.g. `4096x4096`), each side 1..=65536.
pub fn parse_grid(text: &str) -> Result<(u32, u32), String> {
    let invalid = || format!("'{text}' is not ROWSxCOLS (e.g. 4096x4096)");
    let (rows, cols) = text.split_once(['x', 'X']).ok_or_else(invalid)?;
    let side = |s: &str| match parse_list(s, 1, 1 << 16, "grid side")?.0[..] {
        [side] => Ok(side as u32),
        _ => Err(invalid()),
    };
    Ok((side(rows)?, side(cols)?))
}

/// Parses `a,b,c` or `lo..hi` (`lo..=hi`) into values in `min..=max`.
fn parse_list(text: &str, min: usize, max: usize, what: &str) -> Result<SizeList, String> {
    let parse = |s: &str| -> Result<usize, String> {
        let value: usize = s
            .trim()
            .parse()
            .map_err(|_| format!("'{s}' is not a {what}"))?;
        if (min..=max).contains(&value) {
            Ok(value)
        } else {
            Err(format!("{what} {value} is out of range {min}..={max}"))
        }
    };
    let values = match text.split_once("..") {
        Some((lo, hi)) => {
            let (lo, hi) = (parse(lo)?, parse(hi.trim_start_matches('='))?);
            if lo > hi {
                return Err(format!("empty range {text}"));
            }
            (lo..=hi).collect()
        }
        None => text.split(',').map(parse).collect::<Result<Vec<_>, _>>()?,
    };
    Ok(SizeList(values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_parse_as_lists_and_decade_ranges() {
        assert_eq!(
            parse_steps("1000..100000").unwrap().0,
            vec![1000, 3000, 10000, 30000, 100000]
        );
        assert_eq!(parse_steps("500..2000").unwrap().0, vec![500, 1000, 2000]);
        assert_eq!(parse_steps("100,250").unwrap().0, vec![100, 250]);
        assert_eq!(parse_steps("7..7").unwrap().0, vec![7]);
        assert!(parse_steps("10..5").is_err());
        assert!(parse_steps("0..5").is_err());
        assert_eq!(parse_book_size("1024x2048"), Ok((1024, 2048)));
        assert!(parse_book_size("1024").is_err());
        assert!(parse_book_size("0x5").is_err());
    }

    #[test]
    fn sizes_parse_as_lists_and_ranges() {
        assert_eq!(parse_sizes("16,17").unwrap().0, vec![16, 17]);
        assert_eq!(parse_sizes("15..19").unwrap().0, vec![15, 16, 17, 18, 19]);
        assert!(parse_sizes("0..3").is_err());
        assert!(parse_sizes("9..3").is_err());
        assert!(parse_sizes("x").is_err());
        assert_eq!(parse_depths("3..7").unwrap().0, vec![3, 4, 5, 6, 7]);
        assert_eq!(parse_depths("0,4").unwrap().0, vec![0, 4]);
        assert!(parse_depths("5..33").is_err());
    }
}
