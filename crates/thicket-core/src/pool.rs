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
}
