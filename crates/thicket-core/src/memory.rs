//! How much memory this machine can give a run, so that sizes are checked before memory is
//! taken: a reader or generator refuses, naming the size, what would not fit.

use crate::{Error, Result};

/// The memory available to new allocations: `MemAvailable` of /proc/meminfo where there is
/// one, else no limit (`u64::MAX`).
pub fn available_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            kib.checked_mul(1024)
        })
        .unwrap_or(u64::MAX)
}

/// Requests of at most this many bytes are taken to fit without asking the system: any
/// machine that runs thicket has that much, and reading /proc/meminfo for each small instance
/// of a batch (or of a reader's property test, thousands of specs) cost more than building it.
pub const ALWAYS_FITS: u64 = 16 << 20;

/// Refuses `what` when its `bytes` (`None`: beyond 64 bits) exceed the memory available:
/// "genrmf:... needs 41.0 GiB; this machine has 23.1 GiB available". Requests up to
/// [`ALWAYS_FITS`] pass without asking.
pub fn check_fits(what: &str, bytes: Option<u64>) -> Result<()> {
    if bytes.is_some_and(|bytes| bytes <= ALWAYS_FITS) {
        return Ok(());
    }
    let available = available_memory();
    match bytes {
        Some(bytes) if bytes <= available => Ok(()),
        _ => Err(Error::TooLarge(format!(
            "{what} needs {}; this machine has {} available",
            bytes.map_or_else(|| "more than 16 EiB".into(), bytes_text),
            bytes_text(available)
        ))),
    }
}

/// `bytes` in the largest binary unit that keeps one digit before the point: `23.1 GiB`.
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_past_the_machine_are_refused_by_name() {
        assert!(check_fits("a small graph", Some(1024)).is_ok());
        assert!(check_fits("a small matrix", Some(ALWAYS_FITS)).is_ok());
        let refused = check_fits("genrmf:9:9", None).unwrap_err();
        assert!(refused
            .message()
            .starts_with("genrmf:9:9 needs more than 16 EiB; this machine has"));
        assert_eq!(bytes_text(512), "512 bytes");
        assert_eq!(bytes_text(3 << 30), "3.0 GiB");
    }
}
