//! A book on the GPU ([`GpuBook`]), the solve pipeline's GPU solver: the whole book in one
//! launch of the tile kernel ([`LatticeGpu::book`], a block per option), the bumped lattices
//! of vega and rho in the same launch.

use thicket_core::pipeline::{Answered, Queue, Solver, Want};
use thicket_core::{Error, Result};

use crate::book::ValidBook;
use crate::contract::ValidContract;
use crate::gpu::LatticeGpu;
use crate::greeks::price_with_bumps;
use crate::scheme::Priced;

/// The GPU's book pricer.
pub(crate) struct GpuBook<'a> {
    gpu: &'a LatticeGpu,
    vega_rho: bool,
    /// Seconds of device work and of the span from upload to download, over the launches.
    timed: Option<(f64, f64)>,
}

impl<'a> GpuBook<'a> {
    /// The pricer on `gpu`, with vega and rho where asked.
    pub(crate) fn new(gpu: &'a LatticeGpu, vega_rho: bool) -> GpuBook<'a> {
        GpuBook {
            gpu,
            vega_rho,
            timed: None,
        }
    }

    /// Seconds of device work and of the span from upload to download of the launches so
    /// far (`None` before the first).
    pub(crate) fn timed(&self) -> Option<(f64, f64)> {
        self.timed
    }

    /// Prices `options` of `book` (and their bumped lattices) in one launch: every answer,
    /// and the launch's device seconds.
    fn launch(
        &mut self,
        book: &ValidBook,
        options: &[ValidContract],
    ) -> Result<(Vec<Priced>, f64)> {
        let (gpu, precision) = (self.gpu, book.precision());
        let mut timed = (0.0, 0.0);
        let mut price_all = |lattices: &[ValidContract]| -> Result<Vec<Priced>> {
            let run = gpu.book(lattices, precision)?;
            timed = (run.kernel_seconds, run.span_seconds);
            Ok(run.priced)
        };
        let priced = match self.vega_rho {
            true => price_with_bumps(options, precision, price_all)?,
            false => price_all(options)?,
        };
        let (kernel, span) = self.timed.unwrap_or_default();
        self.timed = Some((kernel + timed.0, span + timed.1));
        Ok((priced, timed.0))
    }
}

impl Solver<ValidBook> for GpuBook<'_> {
    /// The option alone, in a launch of its own.
    fn answer(&mut self, book: &ValidBook, &place: &usize, _: Want) -> Result<Answered<Priced>> {
        let not_in_book =
            || Error::InvalidInput(format!("option {} is not in the book", place + 1));
        let option = book.options().get(place..=place).ok_or_else(not_in_book)?;
        let (priced, seconds) = self.launch(book, option)?;
        let answer = *priced.first().ok_or_else(not_in_book)?;
        Ok(Answered { answer, seconds })
    }

    /// Every option handed out in one launch, each answer's seconds the launch's device
    /// seconds over its options. The caller's stop is seen before the launch only.
    fn answer_all(&mut self, queue: &mut Queue<'_, ValidBook>) -> Result<()> {
        let book = queue.problem();
        let count = book.options().len();
        let mut handed = 0;
        while handed < count && queue.next().is_some() {
            handed += 1;
        }
        let options = &book.options()[..handed];
        if options.is_empty() {
            return Ok(());
        }
        let (priced, seconds) = self.launch(book, options)?;
        let seconds = seconds / options.len() as f64;
        for answer in priced {
            queue.done(Answered { answer, seconds })?;
        }
        Ok(())
    }
}
