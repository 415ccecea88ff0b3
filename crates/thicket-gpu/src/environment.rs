//! Driver settings thicket chooses for itself, read by the CUDA driver when it starts.

/// The variable that sets how many hardware work queues (connections) a CUDA context opens.
pub const MAX_CONNECTIONS_ENV: &str = "CUDA_DEVICE_MAX_CONNECTIONS";

/// Asks the driver for one hardware work queue per context instead of its default eight,
/// unless the user set [`MAX_CONNECTIONS_ENV`] already.
///
/// thicket gives every device one stream, so the other queues would go unused, and each costs
/// time to open and to close (contexts open and close about twice as fast with one queue:
/// docs/benchmarks.md, GPU section).
///
/// The driver reads the variable once, when it starts, and the environment is process-wide:
/// call this first thing in `main`, before any thread is started and any CUDA call made.
pub fn prefer_one_hardware_queue() {
    if let Some(value) = connections_to_set(std::env::var_os(MAX_CONNECTIONS_ENV).as_deref()) {
        std::env::set_var(MAX_CONNECTIONS_ENV, value);
    }
}

/// The connection count to set, given the variable's current value: none if there is one.
fn connections_to_set(current: Option<&std::ffi::OsStr>) -> Option<&'static str> {
    current.is_none().then_some("1")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One queue unless the user chose a count (tested without touching the environment,
    /// which other tests read from their threads).
    #[test]
    fn a_chosen_connection_count_is_kept() {
        assert_eq!(connections_to_set(None), Some("1"));
        assert_eq!(connections_to_set(Some("4".as_ref())), None);
    }
}
