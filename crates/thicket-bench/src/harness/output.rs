//! Where a bench's results go: stdout, and the Markdown, CSV, JSON and SVG files asked for,
//! rewritten after every case so that an interrupted bench keeps what it measured.

use std::path::{Path, PathBuf};

use thicket_core::{Error, OutputTarget, Result};

/// Writes a benchmark output file as every output is written (`thicket_core::write_atomically`:
/// whole or not at all, a device or FIFO in place), making its missing folders; an error
/// names the file.
pub fn write_file(path: &Path, contents: impl AsRef<[u8]>) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
    }
    thicket_core::write_atomically_with(path, |out| out.write_all(contents.as_ref()))
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
    /// The chart's x axis label (what the series' first coordinate counts).
    pub x_label: String,
    /// The chart's y axis label.
    pub y_label: String,
    /// Whether the chart's y axis is logarithmic (times) or linear (prices, errors).
    pub log_y: bool,
    /// The chart's series (y against size).
    pub series: Vec<crate::chart::Series>,
}

impl Outputs {
    /// These outputs split into those replaced as files (rewritten after every case) and
    /// those written in place (a device, a FIFO, standard output or error), which take one
    /// write, of the finished results, lest a reader get every partial table in turn.
    pub fn split_streams(&self) -> (Outputs, Outputs) {
        let streamed = |path: &Option<PathBuf>| {
            path.as_deref().is_some_and(|path| {
                thicket_core::output_target(path).is_ok_and(|t| t != OutputTarget::File)
            })
        };
        let mut files = self.clone();
        let mut streams = Outputs::default();
        for (file, stream) in [
            (&mut files.markdown, &mut streams.markdown),
            (&mut files.csv, &mut streams.csv),
            (&mut files.json, &mut streams.json),
            (&mut files.chart, &mut streams.chart),
        ] {
            if streamed(file) {
                *stream = file.take();
            }
        }
        (files, streams)
    }

    /// Writes every requested output of `rendered`; an empty chart is left out.
    pub fn write(&self, rendered: &Rendered) -> Result<()> {
        let in_dir = |ext: &str| {
            self.dir
                .as_ref()
                .map(|dir| dir.join(format!("{}.{ext}", rendered.name)))
        };
        let json = pretty_json(&rendered.json)?;
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
                &rendered.x_label,
                &rendered.y_label,
                series,
                rendered.log_y,
            )?;
        }
        Ok(())
    }
}

/// A finished bench: its last rendering and its verdict (a wrong answer or a failed case is an
/// error, reported after the tables are printed).
pub struct Report {
    /// The results.
    pub rendered: Rendered,
    /// `Ok` when every case that ran was right.
    pub verdict: Result<()>,
}

/// What a bench calls after every case: a progress line for the newest case and the results so
/// far (the command prints the one and writes the other).
pub type AfterCase<'a> = &'a mut dyn FnMut(&str, &Rendered) -> Result<()>;

/// Encodes `value` as pretty JSON.
pub fn pretty_json(value: &serde_json::Value) -> Result<String> {
    serde_json::to_string_pretty(value)
        .map_err(|e| Error::Verification(format!("cannot encode the results: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            x_label: "N".into(),
            y_label: "seconds".into(),
            log_y: true,
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
}
