//! The benchmark harness shared by every solver's `thicket bench`: time a run several times and
//! keep the best and the median ([`measure`]), predict whether the next, larger case would take
//! too long ([`predict_next`]), render the measurements (a Markdown table against a reference
//! row, CSV), and write every output a bench is asked for, after every case, so that an
//! interrupted bench keeps what it measured ([`Outputs`]).

use std::time::Instant;

use serde::Serialize;

use std::path::{Path, PathBuf};

use thicket_core::{Error, Result};

/// Writes a benchmark output file; an error names the file.
pub fn write_file(path: &Path, contents: impl AsRef<[u8]>) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
    }
    std::fs::write(path, contents).map_err(|e| Error::file(path, e))
}

/// The growth of the time per size step seen so far: the ratio of the last two times, kept
/// between 2 and 50; 10 when fewer than two are known.
pub fn growth(history: &[f64]) -> f64 {
    match history {
        [.., a, b] if *a > 0.0 => (b / a).clamp(2.0, 50.0),
        _ => 10.0,
    }
}

/// The predicted time of the next, larger case of a series from its times so far (`None`
/// before the first): a bench skips the case when this exceeds its cap.
pub fn predict_next(history: &[f64]) -> Option<f64> {
    history.last().map(|last| last * growth(history))
}

/// Where a bench writes its results besides stdout: each file is optional, and `dir` takes
/// them all as `<name>.md`, `.csv`, `.json` and `.svg`. The same flags for every bench.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outputs {
    /// The Markdown table.
    pub markdown: Option<PathBuf>,
    /// The rows as CSV.
    pub csv: Option<PathBuf>,
    /// The rows as JSON.
    pub json: Option<PathBuf>,
    /// The chart (SVG).
    pub chart: Option<PathBuf>,
    /// A folder for all four.
    pub dir: Option<PathBuf>,
}

/// One rendering of a bench's results, for [`Outputs::write`].
pub struct Rendered {
    /// The file stem in [`Outputs::dir`], e.g. `perm-bench`.
    pub name: &'static str,
    /// The Markdown table.
    pub markdown: String,
    /// The CSV.
    pub csv: String,
    /// The JSON.
    pub json: serde_json::Value,
    /// The chart's title.
    pub chart_title: String,
    /// The chart's y axis label (the x axis is N).
    pub y_label: String,
    /// The chart's series (time against size, log scale).
    pub series: Vec<crate::chart::Series>,
}

impl Outputs {
    /// Writes every requested output of `rendered`; an empty chart is left out.
    pub fn write(&self, rendered: &Rendered) -> Result<()> {
        let in_dir = |ext: &str| {
            self.dir
                .as_ref()
                .map(|dir| dir.join(format!("{}.{ext}", rendered.name)))
        };
        let json = serde_json::to_string_pretty(&rendered.json)
            .map_err(|e| Error::Verification(format!("cannot encode the results: {e}")))?;
        for (path, text) in [
            (&self.markdown, rendered.markdown.as_str()),
            (&self.csv, rendered.csv.as_str()),
            (&self.json, json.as_str()),
        ] {
            if let Some(path) = path {
                write_file(path, text)?;
            }
        }
        let files = [
            ("md", rendered.markdown.as_str()),
            ("csv", rendered.csv.as_str()),
            ("json", json.as_str()),
        ];
        for (ext, text) in files {
            if let Some(path) = in_dir(ext) {
                write_file(&path, text)?;
            }
        }
        let series = &rendered.series;
        if series.iter().all(|s| s.points.is_empty()) {
            return Ok(());
        }
        for path in [self.chart.clone(), in_dir("svg")].into_iter().flatten() {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
            }
            crate::chart::line_chart_svg(
                &path,
                &rendered.chart_title,
                "N",
                &rendered.y_label,
                series,
                true,
            )?;
        }
        Ok(())
    }
}

/// One benchmarked configuration.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Measurement {
    /// Problem family, e.g. `queens`.
    pub problem: String,
    /// The solver or strategy measured, e.g. `cpu` or `baseline-mirror`.
    pub strategy: String,
    /// Problem size.
    pub n: usize,
    /// CPU threads used.
    pub threads: usize,
    /// Fastest of the repeats, seconds.
    pub best_seconds: f64,
    /// Median of the repeats, seconds.
    pub median_seconds: f64,
    /// How many times it ran.
    pub repeats: usize,
    /// True when every repeat's answer matched the reference.
    pub verified: bool,
}

/// Runs `job` `repeats` times (at least once); `job` returns whether its answer was right.
pub fn measure(
    problem: &str,
    strategy: &str,
    n: usize,
    threads: usize,
    repeats: usize,
    mut job: impl FnMut() -> Result<bool>,
) -> Result<Measurement> {
    let mut times = Vec::with_capacity(repeats.max(1));
    let mut verified = true;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        verified &= job()?;
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(Measurement {
        problem: problem.to_string(),
        strategy: strategy.to_string(),
        n,
        threads,
        best_seconds: times[0],
        median_seconds: times[times.len() / 2],
        repeats: times.len(),
        verified,
    })
}

/// A Markdown table of the measurements, with each row's speed-up over the row of the same `n`
/// whose strategy is `reference` (if that row exists).
pub fn markdown_table(rows: &[Measurement], reference: &str) -> String {
    let mut out = String::from(
        "| problem | n | strategy | threads | best (s) | median (s) | repeats | speed-up vs reference | verified |\n\
         |---|---:|---|---:|---:|---:|---:|---:|---|\n",
    );
    for row in rows {
        let speedup = rows
            .iter()
            .find(|r| r.n == row.n && r.problem == row.problem && r.strategy == reference)
            .map(|r| format!("{:.2}x", r.best_seconds / row.best_seconds))
            .unwrap_or_else(|| "-".into());
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.4} | {:.4} | {} | {} | {} |\n",
            row.problem,
            row.n,
            row.strategy,
            row.threads,
            row.best_seconds,
            row.median_seconds,
            row.repeats,
            speedup,
            if row.verified { "yes" } else { "NO" }
        ));
    }
    out
}

/// The measurements as CSV with a header line.
pub fn csv_table(rows: &[Measurement]) -> String {
    let mut out =
        String::from("problem,n,strategy,threads,best_seconds,median_seconds,repeats,verified\n");
    for r in rows {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            r.problem,
            r.n,
            r.strategy,
            r.threads,
            r.best_seconds,
            r.median_seconds,
            r.repeats,
            r.verified
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measure_keeps_best_and_median_and_verification() {
        let mut calls = 0;
        let m = measure("queens", "cpu", 8, 1, 3, || {
            calls += 1;
            Ok(calls != 2)
        })
        .unwrap();
        assert_eq!(m.repeats, 3);
        assert!(m.best_seconds <= m.median_seconds);
        assert!(!m.verified);
    }

    #[test]
    fn the_next_case_is_predicted_from_the_growth_so_far() {
        assert_eq!(predict_next(&[]), None);
        assert_eq!(predict_next(&[2.0]), Some(20.0));
        assert_eq!(predict_next(&[1.0, 8.0]), Some(64.0));
        assert_eq!(predict_next(&[1.0, 100.0]), Some(5000.0));
    }

    #[test]
    fn outputs_go_to_the_files_and_the_folder_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let outputs = Outputs {
            csv: Some(dir.path().join("a.csv")),
            dir: Some(dir.path().join("all")),
            ..Outputs::default()
        };
        let rendered = Rendered {
            name: "bench",
            markdown: "| x |\n".into(),
            csv: "x\n".into(),
            json: serde_json::json!({"rows": []}),
            chart_title: "title".into(),
            y_label: "seconds".into(),
            series: vec![crate::chart::Series {
                name: "cpu".into(),
                points: vec![(8.0, 0.1), (9.0, 0.5)],
            }],
        };
        outputs.write(&rendered).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.csv")).unwrap(),
            "x\n"
        );
        for ext in ["md", "csv", "json", "svg"] {
            assert!(
                dir.path().join(format!("all/bench.{ext}")).exists(),
                "{ext}"
            );
        }
        assert!(!dir.path().join("a.md").exists());
    }

    #[test]
    fn table_shows_speedup_against_the_reference_row() {
        let row = |strategy: &str, secs: f64| Measurement {
            problem: "queens".into(),
            strategy: strategy.into(),
            n: 16,
            threads: 1,
            best_seconds: secs,
            median_seconds: secs,
            repeats: 1,
            verified: true,
        };
        let rows = [row("baseline", 4.0), row("cpu", 0.5)];
        let table = markdown_table(&rows, "baseline");
        assert!(table.contains("| 8.00x |"), "{table}");
        assert!(csv_table(&rows).lines().count() == 3);
    }
}
