//! Running a solver from Python: on the calling thread with the GIL released, so that a call
//! costs what the solver costs. (A thread of its own per call, and the wake-ups to hand the
//! answer back, cost about as much as a 1,024-option book on the GPU.)
//!
//! Ctrl-C: while the main thread's call runs, a SIGINT handler of ours sits in front of
//! Python's ([`interrupt`]). It raises the call's [`StopFlag`] and passes the signal on to
//! Python's handler; the solver stops at its next batch, task or launch, and once the call
//! has returned Python handles the signal as it always does (`KeyboardInterrupt`). A solver
//! with a best answer so far (an anytime search's incumbent, the items a multi-item run
//! finished) returns it marked stopped instead of an error, and [`solve_anytime`] raises it
//! as `thicket_solve.Interrupted`, a `KeyboardInterrupt` carrying that answer. The handler
//! is installed and removed around each call (two system calls): nothing watches while no
//! solver runs, and nothing polls while one does. Calls from other threads run the same way
//! without it (Python delivers signals to its main thread only).

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use thicket_core::{stoppable, StopFlag};

use crate::errors::to_py;

/// Runs `work` with the GIL released and Ctrl-C honoured; its error becomes the Python
/// exception of [`to_py`].
pub fn solve<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> thicket_core::Result<T> + Send,
{
    let (result, stopped) = watched(py, work)?;
    if stopped {
        // Python's handler runs now: KeyboardInterrupt, or whatever the program's own handler
        // raises. A handler that raises nothing leaves the stopped run's error below.
        py.check_signals()?;
    }
    result.map_err(to_py)
}

/// What a call returns, as [`solve_anytime`]'s `build` makes it from the solver's answer.
pub struct Answer<'py> {
    /// The object the call returns.
    pub value: Bound<'py, PyAny>,
    /// For an answer of several items (options, sources), a bool array of which were
    /// finished; `None` for an answer that says itself whether it is whole (`stopped`).
    pub finished: Option<Bound<'py, PyAny>>,
}

/// Runs `work` as [`solve`] does, for a solver that answers a run stopped by Ctrl-C with its
/// best answer so far (marked stopped) where it has one: `build` turns the answer into what
/// the call returns. After a Ctrl-C, where Python's handler raises `KeyboardInterrupt` (the
/// default), `thicket_solve.Interrupted` is raised instead, carrying that answer as its
/// `partial` (and `finished`); another exception of the program's own handler is raised as
/// it is, and a handler that raises nothing leaves the answer so far returned.
pub fn solve_anytime<'py, T, F, B>(
    py: Python<'py>,
    work: F,
    build: B,
) -> PyResult<Bound<'py, PyAny>>
where
    T: Send,
    F: FnOnce() -> thicket_core::Result<T> + Send,
    B: FnOnce(T) -> PyResult<Answer<'py>>,
{
    let (result, stopped) = watched(py, work)?;
    let answer = match result {
        Ok(answer) => build(answer)?,
        Err(error) => {
            if stopped {
                py.check_signals()?;
            }
            return Err(to_py(error));
        }
    };
    if !stopped {
        return Ok(answer.value);
    }
    match py.check_signals() {
        Ok(()) => Ok(answer.value),
        // Exactly Python's own: a subclass or anything else is the program's choice.
        Err(error) if error.get_type(py).is(py.get_type::<PyKeyboardInterrupt>()) => {
            Err(interrupted(py, answer)?)
        }
        Err(error) => Err(error),
    }
}

/// Runs `work` with the GIL released, under the main thread's Ctrl-C handler where this is
/// the main thread: its result, and whether a Ctrl-C raised the stop flag (the signal is then
/// pending in Python, for the caller to hand to Python's handler).
fn watched<T, F>(py: Python<'_>, work: F) -> PyResult<(thicket_core::Result<T>, bool)>
where
    T: Send,
    F: FnOnce() -> thicket_core::Result<T> + Send,
{
    let watch = interrupt::Watch::start();
    // A Ctrl-C that came before the handler was in place is pending in Python: it interrupts
    // this call before any work (otherwise the work would run to its end unwatched).
    py.check_signals()?;
    let flag = watch
        .as_ref()
        .map_or_else(StopFlag::new, |watch| watch.flag().clone());
    let result = py.detach(|| stoppable(&flag, work));
    // Python's handler is back before any Python code runs again.
    drop(watch);
    Ok((result, flag.is_raised()))
}

/// `thicket_solve.Interrupted(message, partial, finished)`: the package's exception for a
/// call stopped by Ctrl-C with an answer so far. The class is the package's (Python code,
/// documented there); the package has been imported whenever a solver runs.
fn interrupted(py: Python<'_>, answer: Answer<'_>) -> PyResult<PyErr> {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let class = CLASS.import(py, "thicket_solve", "Interrupted")?;
    let message = "stopped by Ctrl-C: the answer so far is the exception's .partial";
    let raised = class.call1((message, answer.value, answer.finished))?;
    Ok(PyErr::from_value(raised))
}

/// Records which thread is Python's main thread (the one its signal handlers run on), from
/// `threading.main_thread()`; called once, when the module is imported.
pub fn remember_main_thread(py: Python<'_>) -> PyResult<()> {
    let ident: u64 = py
        .import("threading")?
        .call_method0("main_thread")?
        .getattr("ident")?
        .extract()?;
    interrupt::remember_main_thread(ident);
    Ok(())
}

#[cfg(unix)]
mod interrupt {
    //! The SIGINT handler that sits in front of Python's while the main thread runs a solver.

    use std::ffi::c_int;
    use std::ptr;
    use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
    use std::sync::OnceLock;

    use thicket_core::StopFlag;

    /// Python's main thread, as `threading.get_ident()` numbers it (`pthread_self`).
    static MAIN_THREAD: OnceLock<u64> = OnceLock::new();

    /// The stop flag of the main thread's calls. Never freed, so that the handler may read it
    /// whenever a signal comes, on whichever thread; a call that found it raised replaces it
    /// with a fresh one and leaves the old one behind (one small allocation per Ctrl-C).
    static MAIN_STOP: AtomicPtr<StopFlag> = AtomicPtr::new(ptr::null_mut());

    /// Python's SIGINT handler while ours is in front of it: its address and `sa_flags`.
    static PYTHON_HANDLER: AtomicUsize = AtomicUsize::new(0);
    static PYTHON_FLAGS: AtomicUsize = AtomicUsize::new(0);

    pub(super) fn remember_main_thread(ident: u64) {
        let _ = MAIN_THREAD.set(ident);
    }

    /// Raises the main thread's stop flag, then runs Python's handler (which marks the
    /// signal for Python and wakes its main thread). Only atomic loads and stores: safe in a
    /// signal handler.
    extern "C" fn on_sigint(signal: c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        let flag = MAIN_STOP.load(Ordering::Acquire);
        if !flag.is_null() {
            // SAFETY: the flags MAIN_STOP points to are never freed.
            unsafe { (*flag).raise() };
        }
        let handler = PYTHON_HANDLER.load(Ordering::Acquire);
        let flags = PYTHON_FLAGS.load(Ordering::Acquire) as c_int;
        if flags & libc::SA_SIGINFO != 0 {
            // SAFETY: `handler` is the function Python installed with SA_SIGINFO, so it takes
            // these three arguments.
            let handler: extern "C" fn(c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(handler) };
            handler(signal, info, context);
        } else {
            // SAFETY: `handler` is the one-argument function Python installed (Watch::start
            // installs ours only in front of a function, never SIG_DFL or SIG_IGN).
            let handler: extern "C" fn(c_int) = unsafe { std::mem::transmute(handler) };
            handler(signal);
        }
    }

    /// Our handler in front of Python's for the length of one call; Python's is put back
    /// when it drops.
    pub(super) struct Watch {
        python: libc::sigaction,
        flag: &'static StopFlag,
    }

    impl Watch {
        /// Installs the handler where this is Python's main thread and SIGINT has a handler
        /// function (not the default action or ignored); `None` otherwise.
        pub(super) fn start() -> Option<Watch> {
            // SAFETY: pthread_self has no preconditions.
            let this_thread = unsafe { libc::pthread_self() } as u64;
            if MAIN_THREAD.get() != Some(&this_thread) {
                return None;
            }
            // SAFETY: a zeroed sigaction is a valid value to be overwritten by sigaction.
            let mut python: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: reads the current action into `python`; no action is changed.
            if unsafe { libc::sigaction(libc::SIGINT, ptr::null(), &mut python) } != 0 {
                return None;
            }
            if python.sa_sigaction == libc::SIG_DFL || python.sa_sigaction == libc::SIG_IGN {
                return None;
            }
            PYTHON_HANDLER.store(python.sa_sigaction, Ordering::Release);
            PYTHON_FLAGS.store(python.sa_flags as usize, Ordering::Release);
            let flag = main_flag();
            let mut ours = python;
            ours.sa_sigaction = on_sigint as *const () as usize;
            ours.sa_flags = python.sa_flags | libc::SA_SIGINFO;
            // SAFETY: `ours` is a complete action (Python's mask and flags, our handler).
            if unsafe { libc::sigaction(libc::SIGINT, &ours, ptr::null_mut()) } != 0 {
                return None;
            }
            Some(Watch { python, flag })
        }

        /// The stop flag the handler raises.
        pub(super) fn flag(&self) -> &'static StopFlag {
            self.flag
        }
    }

    impl Drop for Watch {
        fn drop(&mut self) {
            // SAFETY: puts back the action read in `start`.
            unsafe { libc::sigaction(libc::SIGINT, &self.python, ptr::null_mut()) };
        }
    }

    /// The main thread's stop flag, not raised: a fresh one where the last was raised. Only
    /// the main thread calls this (with the GIL), so no two calls race to replace it.
    fn main_flag() -> &'static StopFlag {
        let mut flag = MAIN_STOP.load(Ordering::Acquire);
        // SAFETY: a non-null MAIN_STOP points to a flag that is never freed.
        if flag.is_null() || unsafe { (*flag).is_raised() } {
            flag = Box::into_raw(Box::new(StopFlag::new()));
            MAIN_STOP.store(flag, Ordering::Release);
        }
        // SAFETY: as above; the box is never freed.
        unsafe { &*flag }
    }
}

#[cfg(not(unix))]
mod interrupt {
    //! Outside Unix no handler is installed: a call runs to its end (Python handles Ctrl-C
    //! once it returns).

    use thicket_core::StopFlag;

    pub(super) fn remember_main_thread(_ident: u64) {}

    /// Never made.
    pub(super) enum Watch {}

    impl Watch {
        pub(super) fn start() -> Option<Watch> {
            None
        }

        pub(super) fn flag(&self) -> &'static StopFlag {
            match *self {}
        }
    }
}
