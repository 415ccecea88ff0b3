//! The CPU thread pools every solver runs on.

use crate::{Error, Result};

/// A rayon pool of `threads` worker threads (at least one is asked for); a pool that cannot
/// start is [`Error::Unavailable`].
pub fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    if threads == 0 {
        return Err(Error::InvalidInput(
            "the thread count must be at least 1".into(),
        ));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Unavailable(format!("cannot start {threads} CPU threads: {e}")))
}

/// `threads` worker threads for a run: the caller's own rayon pool where it already has that
/// many (the default pool, or one the caller installed), so that a call that asks for what it
/// has builds no pool (tens to hundreds of microseconds a call), else a pool built for the run.
pub struct Workers(Option<rayon::ThreadPool>);

impl Workers {
    /// Workers for `threads` threads (at least one; a pool that cannot start is
    /// [`Error::Unavailable`]).
    pub fn new(threads: usize) -> Result<Workers> {
        if threads == rayon::current_num_threads() {
            return Ok(Workers(None));
        }
        pool(threads).map(|pool| Workers(Some(pool)))
    }

    /// Runs `op` on the workers.
    pub fn install<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        match &self.0 {
            None => op(),
            Some(pool) => pool.install(op),
        }
    }
}

/// Runs `op` on `threads` worker threads ([`Workers`]).
pub fn on_threads<R: Send>(threads: usize, op: impl FnOnce() -> R + Send) -> Result<R> {
    Ok(Workers::new(threads)?.install(op))
}

/// All cores of this machine (one where the count cannot be read).
pub fn available_threads() -> usize {
    std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_have_the_threads_asked_for() {
        assert_eq!(pool(3).unwrap().current_num_threads(), 3);
        assert_eq!(pool(0).err().map(|e| e.exit_code()), Some(2));
        assert!(available_threads() >= 1);
    }

    #[test]
    fn work_runs_on_the_callers_pool_when_it_has_the_threads_asked_for() {
        let outer = pool(3).unwrap();
        let inner = outer.install(|| on_threads(3, rayon::current_thread_index).unwrap());
        assert!(inner.is_some(), "ran on a worker of the caller's pool");
        let other = outer.install(|| on_threads(2, rayon::current_num_threads).unwrap());
        assert_eq!(other, 2);
        assert_eq!(on_threads(0, || ()).err().map(|e| e.exit_code()), Some(2));
    }
}
