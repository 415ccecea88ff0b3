//! Running a solver from Python: on a thread of its own with the GIL released, while the
//! calling thread wakes every [`POLL`] to let Python handle signals; Ctrl-C raises the run's
//! [`StopFlag`], the solver stops at its next batch, task or launch, and the caller gets
//! Python's `KeyboardInterrupt`.

use std::sync::{mpsc, Mutex};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use thicket_core::{stoppable, StopFlag};

use crate::errors::to_py;

/// How often the caller checks for signals while a solver runs (well under the second Ctrl-C
/// must take).
const POLL: Duration = Duration::from_millis(50);

/// Runs `work` with the GIL released and Ctrl-C honoured; its error becomes the Python
/// exception of [`to_py`].
pub fn solve<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> thicket_core::Result<T> + Send,
{
    let flag = StopFlag::new();
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        // In a mutex so that the GIL-free closure below may borrow it (a receiver is not Sync).
        let receiver = Mutex::new(receiver);
        let flag_of_run = flag.clone();
        let worker = scope.spawn(move || {
            let result = stoppable(&flag_of_run, work);
            // The receiver outlives the scope's threads; a failed send cannot happen.
            let _ = sender.send(());
            result
        });
        loop {
            let finished = py.detach(|| {
                receiver
                    .lock()
                    .map_or(true, |receiver| receiver.recv_timeout(POLL).is_ok())
            });
            if finished || worker.is_finished() {
                break;
            }
            if let Err(signal) = py.check_signals() {
                flag.raise();
                // The solver ends at its next check; its answer is discarded.
                let _ = py.detach(|| worker.join());
                return Err(signal);
            }
        }
        match py.detach(|| worker.join()) {
            Ok(result) => result.map_err(to_py),
            Err(_) => Err(PyRuntimeError::new_err("the solver panicked")),
        }
    })
}
