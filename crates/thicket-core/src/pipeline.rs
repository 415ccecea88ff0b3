//! The solve pipeline: one loop for every problem whose run answers many independent items
//! (a graph's sources, a book's rows, a schedule's instances), on every backend.
//!
//! A problem validates its input once into a typed value that implements [`Items`]: it lists
//! its items, checks an answer with its independent verifier, sums an answer up and, where
//! the caller keeps answers, turns one into what is kept. A backend implements [`Solver`]: it
//! answers one item ([`Solver::answer`]) or, where it needs batches or overlaps one item's
//! work with the next (a GPU), takes the items from a [`Queue`] itself
//! ([`Solver::answer_all`]). [`solve`] then does, for every problem and backend alike:
//!
//! - the caller's stop request ([`crate::stoppable`]) between items: a stopped run returns
//!   the items finished so far with [`Solved::stopped`] set (none finished:
//!   [`Error::Interrupted`]), for [`crate::Kernel::is_partial`] to pass on;
//! - progress over the item count;
//! - verification of each answer when asked ([`Solved::failures`]);
//! - keeping every answer, the first or none ([`Keep`]; [`Want`] tells the backend, which may
//!   skip building what nobody keeps or checks);
//! - the per-item seconds ([`Solved::seconds`], [`ItemSeconds`]: mean, fastest, slowest).
//!
//! The pipeline runs inside a [`crate::Kernel::run`]; [`crate::benchmark_kernel`] around it
//! keeps doing trials, the `auto` fallback and the report.
//!
//! ```
//! use thicket_core::pipeline::{solve, Answered, Items, Keep, Solver, Want};
//! use thicket_core::{Progress, Result};
//!
//! /// Squares of numbers, each checked by a division.
//! struct Squares(Vec<u64>);
//!
//! impl Items for Squares {
//!     type Item = u64;
//!     type Answer = u64;
//!     type Summary = u64;
//!     type Kept = (u64, u64);
//!     fn items(&self) -> &[u64] {
//!         &self.0
//!     }
//!     fn check(&self, item: &u64, answer: &u64) -> Option<String> {
//!         (*item != 0 && answer / item != *item).then(|| format!("{item}: {answer}"))
//!     }
//!     fn summarise(&self, _: &u64, answer: &u64, _seconds: f64) -> Result<u64> {
//!         Ok(*answer)
//!     }
//!     fn keep(&self, item: &u64, answer: u64) -> (u64, u64) {
//!         (*item, answer)
//!     }
//! }
//!
//! /// The CPU backend: one item at a time.
//! struct Cpu;
//!
//! impl Solver<Squares> for Cpu {
//!     fn answer(&mut self, _: &Squares, item: &u64, _: Want) -> Result<Answered<u64>> {
//!         Ok(Answered { answer: item * item, seconds: 0.0 })
//!     }
//! }
//!
//! let solved = solve(&Squares(vec![2, 3, 4]), &mut Cpu, Keep::First, true, &Progress::hidden())?;
//! assert_eq!(solved.summaries, [4, 9, 16]);
//! assert_eq!(solved.kept, [(2, 4)]);
//! assert!(solved.failures.is_empty() && !solved.stopped);
//! assert_eq!(solved.seconds().count, 3);
//! # Ok::<(), thicket_core::Error>(())
//! ```

use crate::{Error, Progress, Result};

/// A problem's validated input with the items a run answers.
pub trait Items {
    /// One item (graph: a source vertex).
    type Item;
    /// What a backend finds for one item (graph: a source's distances and parents).
    type Answer;
    /// What every answer is summed up to (graph: a source's reached, deepest and summed
    /// distances).
    type Summary;
    /// What is kept of an answer the caller keeps (graph: a source's paths).
    type Kept;

    /// The items, in the order they are answered.
    fn items(&self) -> &[Self::Item];

    /// Checks `answer` with the problem's independent verifier: why it is wrong, or `None`.
    fn check(&self, item: &Self::Item, answer: &Self::Answer) -> Option<String>;

    /// Sums `answer` up; `seconds` is the backend's time for it.
    fn summarise(
        &self,
        item: &Self::Item,
        answer: &Self::Answer,
        seconds: f64,
    ) -> Result<Self::Summary>;

    /// What is kept of `answer`, where the caller keeps it.
    fn keep(&self, item: &Self::Item, answer: Self::Answer) -> Self::Kept;
}

/// Which answers a run keeps (every answer is summed up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Keep {
    /// None: summaries only.
    None,
    /// The first item's only (a command shows one; a bench of many items keeps one's worth).
    First,
    /// Every item's.
    #[default]
    Every,
}

impl Keep {
    /// Whether the `index`th item's answer is kept.
    pub fn keeps(self, index: usize) -> bool {
        match self {
            Keep::None => false,
            Keep::First => index == 0,
            Keep::Every => true,
        }
    }
}

/// What will become of one item's answer, for a backend that can skip building what nobody
/// reads (graph: a parent tree for distances).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Want {
    /// The answer is kept ([`Items::keep`]).
    pub keep: bool,
    /// The answer is checked ([`Items::check`]).
    pub verify: bool,
}

/// One item's answer with the backend's seconds for it (what it times: a GPU's device time,
/// a CPU search up to its answer).
#[derive(Debug, Clone, PartialEq)]
pub struct Answered<A> {
    /// The answer.
    pub answer: A,
    /// Seconds the backend took for it.
    pub seconds: f64,
}

/// A backend of a problem `P`.
pub trait Solver<P: Items> {
    /// Answers `item`; `want` says whether the answer is kept or checked.
    fn answer(&mut self, problem: &P, item: &P::Item, want: Want) -> Result<Answered<P::Answer>>;

    /// Answers the items [`Queue::next`] hands out, in order, each handed back to
    /// [`Queue::done`]. The default answers one at a time; a backend that batches items or
    /// overlaps one with the next (a GPU searching while the host collects) overrides it.
    fn answer_all(&mut self, queue: &mut Queue<'_, P>) -> Result<()> {
        while let Some((item, want)) = queue.next() {
            let answered = self.answer(queue.problem(), item, want)?;
            queue.done(answered)?;
        }
        Ok(())
    }
}

/// The items of one run as a backend takes them, and the answers it hands back.
pub struct Queue<'a, P: Items> {
    problem: &'a P,
    keep: Keep,
    verify: bool,
    progress: &'a Progress,
    /// Items handed out so far.
    handed: usize,
    solved: Solved<P::Summary, P::Kept>,
}

impl<'a, P: Items> Queue<'a, P> {
    /// The problem.
    pub fn problem(&self) -> &'a P {
        self.problem
    }

    /// The next item with what becomes of its answer; `None` after the last, or once the
    /// caller asked the run to stop (the items handed out before are still answered).
    // Not an `Iterator`: the backend hands each answer back to the same queue in between.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<(&'a P::Item, Want)> {
        if self.progress.stop_requested() {
            self.solved.stopped = true;
            return None;
        }
        let item = self.problem.items().get(self.handed)?;
        let want = Want {
            keep: self.keep.keeps(self.handed),
            verify: self.verify,
        };
        self.handed += 1;
        Some((item, want))
    }

    /// Takes the answer of the next item not answered yet: checks it where asked, sums it
    /// up, keeps it where asked, counts it in the progress.
    pub fn done(&mut self, answered: Answered<P::Answer>) -> Result<()> {
        let index = self.solved.summaries.len();
        let item = match self.problem.items().get(index) {
            Some(item) if index < self.handed => item,
            _ => {
                return Err(Error::InvalidInput(format!(
                    "an answer for item {index}, which was not handed out"
                )))
            }
        };
        let Answered { answer, seconds } = answered;
        // A stopped run is returned unverified ([`crate::Kernel::is_partial`]): checking the
        // answers still coming in would only delay the stop.
        if self.verify && !self.progress.stop_requested() {
            if let Some(why) = self.problem.check(item, &answer) {
                self.solved.failures.push(why);
            }
        }
        let summary = self.problem.summarise(item, &answer, seconds)?;
        self.solved.summaries.push(summary);
        self.solved.item_seconds.push(seconds);
        if self.keep.keeps(index) {
            self.solved.kept.push(self.problem.keep(item, answer));
        }
        self.progress.inc(1);
        Ok(())
    }
}

/// What a run of the pipeline found.
#[derive(Debug, Clone, PartialEq)]
pub struct Solved<S, K> {
    /// Every finished item's summary, in the items' order.
    pub summaries: Vec<S>,
    /// The answers kept ([`Keep`]), in the items' order.
    pub kept: Vec<K>,
    /// Why answers failed their check (only when verifying).
    pub failures: Vec<String>,
    /// Every finished item's seconds, in order.
    pub item_seconds: Vec<f64>,
    /// The caller stopped the run: only the first `summaries.len()` items were answered.
    pub stopped: bool,
}

impl<S, K> Solved<S, K> {
    /// The per-item seconds summed up.
    pub fn seconds(&self) -> ItemSeconds {
        ItemSeconds::of(&self.item_seconds)
    }
}

/// Per-item seconds summed up.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ItemSeconds {
    /// Items.
    pub count: usize,
    /// Their seconds in all.
    pub total: f64,
    /// The mean (0 without items).
    pub mean: f64,
    /// The fastest item's (0 without items).
    pub min: f64,
    /// The slowest item's (0 without items).
    pub max: f64,
}

impl ItemSeconds {
    /// `seconds` (one per item) summed up.
    pub fn of(seconds: &[f64]) -> ItemSeconds {
        if seconds.is_empty() {
            return ItemSeconds::default();
        }
        let total: f64 = seconds.iter().sum();
        ItemSeconds {
            count: seconds.len(),
            total,
            mean: total / seconds.len() as f64,
            min: seconds.iter().copied().fold(f64::INFINITY, f64::min),
            max: seconds.iter().copied().fold(0.0, f64::max),
        }
    }
}

/// Answers every item of `problem` with `solver`: stop checks between items, progress over
/// the item count, each answer checked when `verify`, kept as `keep` says, and its seconds
/// recorded. A run stopped by its caller returns the items finished so far with
/// [`Solved::stopped`] set, or [`Error::Interrupted`] where none finished.
pub fn solve<P: Items, S: Solver<P>>(
    problem: &P,
    solver: &mut S,
    keep: Keep,
    verify: bool,
    progress: &Progress,
) -> Result<Solved<P::Summary, P::Kept>> {
    let count = problem.items().len();
    progress.set_total(count as u64);
    let mut queue = Queue {
        problem,
        keep,
        verify,
        progress,
        handed: 0,
        solved: Solved {
            summaries: Vec::with_capacity(count),
            kept: Vec::new(),
            failures: Vec::new(),
            item_seconds: Vec::with_capacity(count),
            stopped: false,
        },
    };
    solver.answer_all(&mut queue)?;
    let mut solved = queue.solved;
    if solved.summaries.len() < count {
        // A backend that returned early without a stop request left items unanswered.
        solved.stopped |= progress.stop_requested();
        if !solved.stopped {
            return Err(Error::InvalidInput(format!(
                "{} of {count} items were answered",
                solved.summaries.len()
            )));
        }
    }
    if solved.stopped && solved.summaries.is_empty() {
        return Err(Error::Interrupted(
            "the run was stopped by its caller".into(),
        ));
    }
    Ok(solved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{stoppable, StopFlag};

    /// Items are numbers, answers their doubles; 13 is answered wrong.
    struct Doubles(Vec<u32>);

    impl Items for Doubles {
        type Item = u32;
        type Answer = u64;
        type Summary = u64;
        type Kept = u64;
        fn items(&self) -> &[u32] {
            &self.0
        }
        fn check(&self, item: &u32, answer: &u64) -> Option<String> {
            (*answer != 2 * u64::from(*item)).then(|| format!("item {item}"))
        }
        fn summarise(&self, _: &u32, answer: &u64, _: f64) -> Result<u64> {
            Ok(*answer)
        }
        fn keep(&self, _: &u32, answer: u64) -> u64 {
            answer
        }
    }

    /// Answers one at a time; raises `stop` after `stop_after` answers.
    struct OneByOne {
        stop: Option<(StopFlag, usize)>,
        answered: usize,
        wants: Vec<Want>,
    }

    impl Solver<Doubles> for OneByOne {
        fn answer(&mut self, _: &Doubles, item: &u32, want: Want) -> Result<Answered<u64>> {
            self.answered += 1;
            self.wants.push(want);
            if let Some((flag, after)) = &self.stop {
                if self.answered == *after {
                    flag.raise();
                }
            }
            let wrong = u64::from(*item == 13);
            Ok(Answered {
                answer: 2 * u64::from(*item) + wrong,
                seconds: f64::from(*item),
            })
        }
    }

    /// Answers two at a time, collecting the first of a pair after handing out the second.
    struct Pairs;

    impl Solver<Doubles> for Pairs {
        fn answer(&mut self, _: &Doubles, item: &u32, _: Want) -> Result<Answered<u64>> {
            Ok(Answered {
                answer: 2 * u64::from(*item),
                seconds: 1.0,
            })
        }
        fn answer_all(&mut self, queue: &mut Queue<'_, Doubles>) -> Result<()> {
            let mut pending = None;
            while let Some((item, want)) = queue.next() {
                let answered = self.answer(queue.problem(), item, want)?;
                if let Some(previous) = pending.replace(answered) {
                    queue.done(previous)?;
                }
            }
            pending.map_or(Ok(()), |last| queue.done(last))
        }
    }

    fn one_by_one() -> OneByOne {
        OneByOne {
            stop: None,
            answered: 0,
            wants: Vec::new(),
        }
    }

    #[test]
    fn every_item_is_answered_checked_summed_up_and_kept_as_asked() {
        let problem = Doubles(vec![1, 13, 4]);
        let progress = Progress::hidden();
        let mut solver = one_by_one();
        let solved = solve(&problem, &mut solver, Keep::First, true, &progress).unwrap();
        assert_eq!(solved.summaries, [2, 27, 8]);
        assert_eq!(solved.kept, [2]);
        assert_eq!(solved.failures, ["item 13"]);
        assert!(!solved.stopped);
        assert_eq!(progress.position(), 3);
        let wants: Vec<bool> = solver.wants.iter().map(|w| w.keep).collect();
        assert_eq!(wants, [true, false, false]);
        let seconds = solved.seconds();
        assert_eq!((seconds.count, seconds.total), (3, 18.0));
        assert_eq!((seconds.mean, seconds.min, seconds.max), (6.0, 1.0, 13.0));
        let every = solve(&problem, &mut one_by_one(), Keep::Every, false, &progress).unwrap();
        assert_eq!(every.kept, [2, 27, 8]);
        assert!(every.failures.is_empty(), "not verified");
        let none = solve(&problem, &mut Pairs, Keep::None, true, &progress).unwrap();
        assert_eq!((none.summaries.len(), none.kept.len()), (3, 0));
    }

    #[test]
    fn a_stopped_run_returns_the_items_finished_and_none_is_interrupted() {
        let problem = Doubles(vec![1, 2, 3, 4]);
        let flag = StopFlag::new();
        let mut solver = OneByOne {
            stop: Some((flag.clone(), 2)),
            ..one_by_one()
        };
        let solved = stoppable(&flag, || {
            solve(
                &problem,
                &mut solver,
                Keep::Every,
                false,
                &Progress::hidden(),
            )
        })
        .unwrap();
        assert!(solved.stopped);
        assert_eq!(solved.summaries, [2, 4]);
        let stopped = stoppable(&flag, || {
            solve(
                &problem,
                &mut Pairs,
                Keep::Every,
                false,
                &Progress::hidden(),
            )
        });
        assert!(matches!(stopped, Err(Error::Interrupted(_))));
    }

    #[test]
    fn no_items_sum_up_to_zero_seconds() {
        assert_eq!(ItemSeconds::of(&[]), ItemSeconds::default());
    }
}
