//! Line charts of benchmark results as SVG files (plotters' SVG backend, no system libraries):
//! one line with markers per named series, on a linear or logarithmic y axis.

use std::path::Path;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use thicket_core::{Error, Result};

/// One named line of a chart: `(x, y)` points, drawn in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend's label.
    pub name: String,
    /// The points; on a logarithmic axis only those with `y > 0` are drawn.
    pub points: Vec<(f64, f64)>,
}

/// Pixel size of the charts.
const SIZE: (u32, u32) = (960, 600);

/// Writes an SVG line chart of `series` to `path`: x and y axes labelled `x_label` and
/// `y_label`, the y axis logarithmic when `log_y`, a legend naming every series.
///
/// Fails with [`Error::InvalidInput`] when there is nothing to draw (no point, or on a
/// logarithmic axis no positive y) and with [`Error::Io`] when the file cannot be written.
pub fn line_chart_svg(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    log_y: bool,
) -> Result<()> {
    let drawn: Vec<Series> = series
        .iter()
        .map(|s| Series {
            name: s.name.clone(),
            points: s
                .points
                .iter()
                .copied()
                .filter(|&(x, y)| x.is_finite() && y.is_finite() && (!log_y || y > 0.0))
                .collect(),
        })
        .collect();
    let all = || drawn.iter().flat_map(|s| s.points.iter().copied());
    let Some((x_min, x_max, y_min, y_max)) = all().fold(None, |range, (x, y)| {
        let (a, b, c, d) = range.unwrap_or((x, x, y, y));
        Some((a.min(x), b.max(x), c.min(y), d.max(y)))
    }) else {
        return Err(Error::InvalidInput(format!(
            "chart `{title}` has no point to draw{}",
            if log_y {
                " (a log axis needs y > 0)"
            } else {
                ""
            }
        )));
    };
    let x_range = widen(x_min, x_max, 0.5);
    let mut svg = String::new();
    let drawing = if log_y {
        let y_range = (y_min / 2.0)..(y_max * 2.0);
        render(
            &mut svg,
            title,
            x_label,
            y_label,
            &drawn,
            x_range,
            y_range.log_scale(),
        )
    } else {
        let pad = ((y_max - y_min) * 0.05).max(f64::EPSILON);
        render(
            &mut svg,
            title,
            x_label,
            y_label,
            &drawn,
            x_range,
            (y_min - pad)..(y_max + pad),
        )
    };
    drawing.map_err(|e| Error::Io(std::io::Error::other(format!("{}: {e}", path.display()))))?;
    // Drawn in memory, then written as every output is (whole, or a device in place).
    thicket_core::write_atomically(path, &svg)
}

/// `lo..hi` widened by `pad` on both sides (and made non-empty).
fn widen(lo: f64, hi: f64, pad: f64) -> std::ops::Range<f64> {
    (lo - pad)..(hi + pad).max(lo + pad)
}

/// Draws the chart with the y coordinate `y` (linear or logarithmic) into `svg`.
fn render<Y>(
    svg: &mut String,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    x: std::ops::Range<f64>,
    y: Y,
) -> std::result::Result<(), Box<dyn std::error::Error>>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(&|v| format!("{v:.0}"))
        // Three decimals, or a power of ten below 0.01 (errors on a log axis).
        .y_label_formatter(&|v| match v.abs() {
            small if small > 0.0 && small < 0.01 => format!("{v:.0e}"),
            _ => format!("{v:.3}"),
        })
        .draw()?;
    for (index, line) in series.iter().enumerate() {
        let color = Palette99::pick(index).to_rgba();
        chart
            .draw_series(LineSeries::new(
                line.points.iter().copied(),
                color.stroke_width(2),
            ))?
            .label(line.name.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        chart.draw_series(
            line.points
                .iter()
                .map(|&point| Circle::new(point, 3, color.filled())),
        )?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series() -> Vec<Series> {
        vec![
            Series {
                name: "naive".into(),
                points: vec![(15.0, 0.4), (16.0, 1.46), (17.0, 11.03)],
            },
            Series {
                name: "pool-global".into(),
                points: vec![(15.0, 0.06), (16.0, 0.15), (17.0, 0.0)],
            },
        ]
    }

    #[test]
    fn writes_an_svg_with_every_series_named() {
        let dir = tempfile::tempdir().unwrap();
        for log_y in [true, false] {
            let path = dir.path().join(format!("chart-{log_y}.svg"));
            line_chart_svg(&path, "queens", "N", "seconds", &series(), log_y).unwrap();
            let svg = std::fs::read_to_string(&path).unwrap();
            assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
            assert!(svg.contains("naive") && svg.contains("pool-global"));
            assert!(svg.contains("<polyline") || svg.contains("<path"));
        }
    }

    #[test]
    fn nothing_to_draw_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.svg");
        let zero = [Series {
            name: "zero".into(),
            points: vec![(1.0, 0.0)],
        }];
        assert!(matches!(
            line_chart_svg(&path, "t", "x", "y", &zero, true),
            Err(Error::InvalidInput(_))
        ));
        assert!(line_chart_svg(&path, "t", "x", "y", &zero, false).is_ok());
        assert!(matches!(
            line_chart_svg(&path, "t", "x", "y", &[], false),
            Err(Error::InvalidInput(_))
        ));
    }
}
