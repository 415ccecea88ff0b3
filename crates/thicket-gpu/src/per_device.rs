//! State a process keeps for each GPU it has opened (a device, a solver's kernels and
//! buffers), made on the first call for that ordinal and shared by every later one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// One `T` per device ordinal, made once per process: a `static` of a solver crate.
pub struct PerDevice<T> {
    opened: OnceLock<Mutex<HashMap<usize, Arc<T>>>>,
}

impl<T> PerDevice<T> {
    /// No device opened yet.
    pub const fn new() -> PerDevice<T> {
        PerDevice {
            opened: OnceLock::new(),
        }
    }

    /// The `T` of device `ordinal`: the one made before, else `open(ordinal)`'s (a failure is
    /// returned and not remembered, so a later call tries again).
    pub fn get_or_open<E>(
        &self,
        ordinal: usize,
        open: impl FnOnce(usize) -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        let opened = self.opened.get_or_init(|| Mutex::new(HashMap::new()));
        // The map is only inserted into: a panic elsewhere while it was held leaves it whole.
        let mut opened = opened.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(state) = opened.get(&ordinal) {
            return Ok(Arc::clone(state));
        }
        let state = Arc::new(open(ordinal)?);
        opened.insert(ordinal, Arc::clone(&state));
        Ok(state)
    }
}

impl<T> Default for PerDevice<T> {
    fn default() -> PerDevice<T> {
        PerDevice::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_ordinal_is_opened_once_and_a_failure_is_not_remembered() {
        static STATE: PerDevice<String> = PerDevice::new();
        let first = STATE
            .get_or_open(0, |o| Ok::<_, ()>(format!("gpu {o}")))
            .unwrap();
        let again = STATE.get_or_open(0, |_| Err(())).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert!(STATE.get_or_open(1, |_| Err("no device")).is_err());
        assert_eq!(
            *STATE
                .get_or_open(1, |o| Ok::<_, ()>(format!("gpu {o}")))
                .unwrap(),
            "gpu 1"
        );
    }
}
