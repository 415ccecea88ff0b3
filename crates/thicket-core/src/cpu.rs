//! Which code path the hot CPU counters take on this CPU, chosen at run time: thicket is built
//! for the x86-64 baseline, so it runs on any x86-64, and its hot loops come twice, once
//! compiled for [`FAST_FEATURES`] (the x86-64-v3 level: Intel Haswell 2013+, AMD Zen 2017+)
//! and once portable. `THICKET_CPU_PATH=portable` forces the portable path (tests, and a
//! machine whose feature detection is not to be trusted).

use std::sync::OnceLock;

/// The target features the fast path is compiled for: the x86-64-v3 level.
pub const FAST_FEATURES: &str = "avx,avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt";

/// The environment variable that forces a path (`portable`; `fast` where the CPU has it).
pub const CPU_PATH_ENV: &str = "THICKET_CPU_PATH";

/// A code path of the hot CPU counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuPath {
    /// Compiled for [`FAST_FEATURES`] (popcount, lowest-bit and bit-extract instructions, AVX2).
    Fast,
    /// Compiled for the baseline of the target.
    Portable,
}

impl CpuPath {
    /// How `thicket devices` names the path.
    pub fn describe(self) -> String {
        match self {
            CpuPath::Fast => format!("x86-64-v3 path ({FAST_FEATURES})"),
            CpuPath::Portable if fast_path_supported() => {
                format!("portable path (forced by {CPU_PATH_ENV})")
            }
            CpuPath::Portable => "portable path (this CPU lacks x86-64-v3 features)".to_owned(),
        }
    }
}

/// The path of this process: the fast one where the CPU has every feature of it and the
/// environment does not ask for the portable one; decided once.
pub fn cpu_path() -> CpuPath {
    static PATH: OnceLock<CpuPath> = OnceLock::new();
    *PATH.get_or_init(|| {
        let forced = std::env::var(CPU_PATH_ENV).ok();
        if forced.as_deref() == Some("portable") || !fast_path_supported() {
            CpuPath::Portable
        } else {
            CpuPath::Fast
        }
    })
}

/// Whether this CPU has every feature of [`FAST_FEATURES`].
pub fn fast_path_supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx")
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("fma")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("movbe")
            && std::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Compiles the function it wraps for [`FAST_FEATURES`] (`#[target_feature]`): call it only
/// where [`cpu_path`] is [`CpuPath::Fast`], or from another function of the fast path. Given
/// a macro call `m!(args)` that defines a function (taking leading attributes), it passes the
/// attributes to it.
#[macro_export]
macro_rules! fast_path {
    ($mac:ident ! ( $($args:tt)* )) => {
        $mac!(
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx,avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt")]
            $($args)*
        );
    };
    ($($item:tt)*) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx,avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt")]
        $($item)*
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_is_fast_only_where_the_cpu_has_it() {
        if cpu_path() == CpuPath::Fast {
            assert!(fast_path_supported());
        }
        assert!(CpuPath::Fast.describe().contains("bmi2"));
    }
}
