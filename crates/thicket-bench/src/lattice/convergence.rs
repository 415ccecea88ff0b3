//! The convergence experiment of `thicket bench lookback --convergence`: the American and
//! European put against N beside the Goldman–Sosin–Gatto closed form.

use rayon::ThreadPool;
use thicket_core::{Error, Result, RunOptions};
use thicket_lattice::{goldman_sosin_gatto, price, PriceOptions, Style};

use super::render::render_convergence;
use super::{sweep_contract, ConvergenceRow, LookbackBenchOptions};
use crate::harness::{timed, AfterCase, Report};

/// The convergence table: the American and European put against N, and the closed form.
pub(super) fn convergence(
    steps: &[usize],
    options: &LookbackBenchOptions,
    pool: &ThreadPool,
    after_case: AfterCase,
) -> Result<Report> {
    let mut rows = Vec::new();
    let settings = PriceOptions {
        run: RunOptions {
            quiet: true,
            ..RunOptions::default()
        },
        device: options.device,
        ..PriceOptions::default()
    };
    let closed_form = goldman_sosin_gatto(&sweep_contract(1, Style::European).market, false);
    for &n in steps {
        let (seconds, (american, european)) = timed(|| {
            let american =
                pool.install(|| price(&sweep_contract(n, Style::American), &settings))?;
            let european =
                pool.install(|| price(&sweep_contract(n, Style::European), &settings))?;
            Ok((american.output.priced.price, european.output.priced.price))
        })?;
        rows.push(ConvergenceRow {
            n,
            american,
            european,
            closed_form,
            gap: closed_form - european,
            seconds,
        });
        let line = format!(
            "N = {n:>7}: American {american:.6}, European {european:.6}, closed form {closed_form:.6}"
        );
        after_case(&line, &render_convergence(&rows))?;
    }
    let verdict = match rows
        .windows(2)
        .find(|w| w[1].gap.abs() > w[0].gap.abs() * 1.01)
    {
        Some(w) => Err(Error::Verification(format!(
            "the European lattice moved away from the closed form between N = {} and {}",
            w[0].n, w[1].n
        ))),
        None => Ok(()),
    };
    Ok(Report {
        rendered: render_convergence(&rows),
        verdict,
    })
}
