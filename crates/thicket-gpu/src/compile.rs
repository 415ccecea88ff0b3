//! Compiling CUDA C++ with NVRTC. Needs only libnvrtc, no driver and no GPU.

use std::ffi::{c_char, c_int, CString};

use cudarc::nvrtc::result as rtc;
use cudarc::nvrtc::sys;
use serde::Serialize;

use crate::probe::ensure_nvrtc;
use crate::GpuError;

/// CUDA C++ source of one kernel module, normally embedded in a solver with `include_str!`
/// and listed in the solver crate's `kernels.rs`.
///
/// Kernels that solvers look up by name should be declared `extern "C"` so that their names
/// are not mangled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelSource {
    /// Program name, shown in NVRTC diagnostics and part of the cache key, e.g. `queens.cu`.
    pub name: &'static str,
    /// The CUDA C++ source text.
    pub source: &'static str,
    /// The headers the source may `#include "name"`, passed to NVRTC by name (no include path
    /// is searched); their text is part of the cache key.
    pub headers: &'static [Header],
}

/// A header that kernels include by name, e.g. [`THICKET_HEADER`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    /// The name kernels include, e.g. `thicket.cuh`.
    pub name: &'static str,
    /// Its text.
    pub source: &'static str,
}

/// thicket's shared CUDA header (`kernels/thicket.cuh`): what every kernel module may need,
/// written once: the `u32`, `u64` and `i64` types, `FULL_MASK`, signed 64-bit atomic adds,
/// warp sums, per-warp atomic adds, the grid barrier and programmatic dependent launch.
pub const THICKET_HEADER: Header = Header {
    name: "thicket.cuh",
    source: include_str!("../kernels/thicket.cuh"),
};

impl KernelSource {
    /// The text the kernel cache hashes for this module: the source and every header, each
    /// with its name.
    pub(crate) fn key_text(&self) -> String {
        let mut text = self.source.to_owned();
        for header in self.headers {
            text.push_str(&format!("\n// header {}\n{}", header.name, header.source));
        }
        text
    }
}

/// The NVRTC option that defines `name` as `value` for the kernel (`-DNAME=value`): how
/// constants that the host and the device must agree on reach the kernels, defined once in
/// Rust. Options are part of the cache key.
pub fn define(name: &str, value: impl std::fmt::Display) -> String {
    format!("-D{name}={value}")
}

/// The kind of code NVRTC produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ImageKind {
    /// Machine code for one exact architecture (`sm_XY`), loaded without JIT.
    Cubin,
    /// PTX for a virtual architecture (`compute_XY`), JIT-compiled by the driver at load time.
    Ptx,
}

/// Options passed to NVRTC ahead of the caller's. NVRTC optimises device code fully by default
/// (its counterpart of nvcc's `-O3`), so only the language standard is pinned here.
pub const DEFAULT_OPTIONS: &[&str] = &["-std=c++17"];

/// A compilation target: the architecture name NVRTC is given and the kind of image it yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// `sm_90`, `sm_90a`, `compute_90`, ...
    pub(crate) arch: String,
    /// CUBIN for `sm_*`, PTX for `compute_*`.
    pub(crate) kind: ImageKind,
}

impl Target {
    /// Parses `sm_XY[a|f]` (CUBIN) or `compute_XY[a|f]` (PTX).
    pub(crate) fn parse(arch: &str) -> Result<Target, GpuError> {
        let (kind, rest) = if let Some(rest) = arch.strip_prefix("sm_") {
            (ImageKind::Cubin, rest)
        } else if let Some(rest) = arch.strip_prefix("compute_") {
            (ImageKind::Ptx, rest)
        } else {
            return Err(bad_arch(arch));
        };
        let digits = rest.trim_end_matches(['a', 'f']);
        let suffix_ok = rest.len() - digits.len() <= 1;
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) || !suffix_ok {
            return Err(bad_arch(arch));
        }
        Ok(Target {
            arch: arch.to_owned(),
            kind,
        })
    }

    /// The best target for a device of compute capability `cc`, given the architectures
    /// (`major * 10 + minor`) that this NVRTC can emit CUBIN for.
    ///
    /// The device's own `sm_XY` when NVRTC knows it; otherwise PTX for the newest older
    /// architecture NVRTC knows, which the driver can JIT for a device newer than the compiler.
    pub(crate) fn for_device(
        cc: (u32, u32),
        supported: &[u32],
        nvrtc_version: (u32, u32),
    ) -> Result<Target, GpuError> {
        let wanted = cc.0 * 10 + cc.1;
        if supported.contains(&wanted) {
            return Ok(Target {
                arch: format!("sm_{wanted}"),
                kind: ImageKind::Cubin,
            });
        }
        match supported.iter().copied().filter(|&a| a < wanted).max() {
            Some(older) => Ok(Target {
                arch: format!("compute_{older}"),
                kind: ImageKind::Ptx,
            }),
            None => Err(GpuError::Unavailable(format!(
                "NVRTC {}.{} cannot compile for sm_{wanted} (its oldest target is sm_{})",
                nvrtc_version.0,
                nvrtc_version.1,
                supported.iter().min().copied().unwrap_or_default()
            ))),
        }
    }
}

fn bad_arch(arch: &str) -> GpuError {
    GpuError::InvalidArgument(format!(
        "GPU architecture `{arch}` is not of the form sm_XY or compute_XY (e.g. sm_90)"
    ))
}

/// Code produced by NVRTC: a CUBIN, or PTX text without a terminating NUL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CompiledImage {
    pub(crate) kind: ImageKind,
    pub(crate) bytes: Vec<u8>,
}

/// The version of the libnvrtc that cudarc loads, as `(major, minor)`.
///
/// Returns [`GpuError::Unavailable`] saying so when libnvrtc cannot be found.
pub fn nvrtc_status() -> Result<(u32, u32), GpuError> {
    ensure_nvrtc()?;
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: libnvrtc is loaded and both out-pointers are valid.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(GpuError::nvrtc("nvrtcVersion"))?;
    Ok((
        u32::try_from(major).unwrap_or(0),
        u32::try_from(minor).unwrap_or(0),
    ))
}

/// Architectures this NVRTC can emit CUBIN for, as `major * 10 + minor` (e.g. 90 for `sm_90`).
pub(crate) fn supported_archs() -> Result<Vec<u32>, GpuError> {
    ensure_nvrtc()?;
    let mut count: c_int = 0;
    // SAFETY: libnvrtc is loaded and `count` is a valid out-pointer.
    unsafe { sys::nvrtcGetNumSupportedArchs(&mut count) }
        .result()
        .map_err(GpuError::nvrtc("nvrtcGetNumSupportedArchs"))?;
    let mut archs: Vec<c_int> = vec![0; usize::try_from(count).unwrap_or(0)];
    // SAFETY: `archs` has room for the `count` entries NVRTC writes.
    unsafe { sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()) }
        .result()
        .map_err(GpuError::nvrtc("nvrtcGetSupportedArchs"))?;
    Ok(archs
        .into_iter()
        .filter_map(|a| u32::try_from(a).ok())
        .collect())
}

/// Compiles `src` for `arch` without touching the driver: a CUBIN for `sm_XY`, PTX text for
/// `compute_XY`. This is what CI uses to check that kernels compile on machines without a GPU.
///
/// `options` are passed to NVRTC after [`DEFAULT_OPTIONS`]; they must not name an architecture.
pub fn compile_for_arch(
    src: &KernelSource,
    arch: &str,
    options: &[String],
) -> Result<Vec<u8>, GpuError> {
    let target = Target::parse(arch)?;
    compile(src, &target, options).map(|image| image.bytes)
}

/// Compiles `src` for `target` with NVRTC.
pub(crate) fn compile(
    src: &KernelSource,
    target: &Target,
    options: &[String],
) -> Result<CompiledImage, GpuError> {
    ensure_nvrtc()?;
    let all_options = full_options(target, options)?;
    let program = Program::create(src)?;
    let c_options = all_options
        .iter()
        .map(|o| c_string(o, "an NVRTC option"))
        .collect::<Result<Vec<_>, _>>()?;
    // SAFETY: `program` is live until dropped at the end of this function.
    if let Err(error) = unsafe { rtc::compile_program(program.raw, &c_options) } {
        let log = program.log();
        return Err(GpuError::Compile {
            kernel: src.name.to_owned(),
            target: target.arch.clone(),
            options: all_options,
            log: if log.is_empty() {
                crate::error::nvrtc_error_text(error.0)
            } else {
                log
            },
        });
    }
    let bytes = match target.kind {
        ImageKind::Cubin => program.cubin()?,
        ImageKind::Ptx => program.ptx()?,
    };
    Ok(CompiledImage {
        kind: target.kind,
        bytes,
    })
}

/// The defaults, the architecture and the caller's options, in the order NVRTC receives them.
pub(crate) fn full_options(target: &Target, options: &[String]) -> Result<Vec<String>, GpuError> {
    if let Some(arch_option) = options.iter().find(|o| names_an_arch(o)) {
        return Err(GpuError::InvalidArgument(format!(
            "NVRTC option `{arch_option}` names an architecture; thicket-gpu picks it from the device"
        )));
    }
    Ok(DEFAULT_OPTIONS
        .iter()
        .map(|&o| o.to_owned())
        .chain([format!("--gpu-architecture={}", target.arch)])
        .chain(options.iter().cloned())
        .collect())
}

fn names_an_arch(option: &str) -> bool {
    ["--gpu-architecture", "-arch"]
        .iter()
        .any(|flag| option == *flag || option.starts_with(&format!("{flag}=")))
}

fn c_string(text: &str, what: &str) -> Result<CString, GpuError> {
    CString::new(text)
        .map_err(|_| GpuError::InvalidArgument(format!("{what} contains a NUL byte: {text:?}")))
}

/// An NVRTC program, destroyed on drop. Owns the C strings NVRTC may keep pointers to.
///
/// cudarc's own `Program` panics on NUL bytes and when destroying fails; this one reports the
/// first as an error and ignores the second, which only leaks memory.
struct Program {
    raw: sys::nvrtcProgram,
    _source: CString,
    _name: CString,
    _headers: Vec<(CString, CString)>,
}

impl Program {
    fn create(src: &KernelSource) -> Result<Program, GpuError> {
        let source = c_string(src.source, &format!("the source of kernel `{}`", src.name))?;
        let name = c_string(src.name, "a kernel name")?;
        let headers = src
            .headers
            .iter()
            .map(|h| {
                let text = c_string(h.source, &format!("the header `{}`", h.name))?;
                Ok((text, c_string(h.name, "a header name")?))
            })
            .collect::<Result<Vec<_>, GpuError>>()?;
        let texts: Vec<*const c_char> = headers.iter().map(|(t, _)| t.as_ptr()).collect();
        let names: Vec<*const c_char> = headers.iter().map(|(_, n)| n.as_ptr()).collect();
        let mut raw = std::ptr::null_mut();
        // SAFETY: every pointer is to a NUL-terminated string that `Program` owns (and so
        // outlives the program); `texts` and `names` hold `headers.len()` entries each.
        unsafe {
            sys::nvrtcCreateProgram(
                &mut raw,
                source.as_ptr(),
                name.as_ptr(),
                headers.len() as c_int,
                texts.as_ptr(),
                names.as_ptr(),
            )
        }
        .result()
        .map_err(GpuError::nvrtc("nvrtcCreateProgram"))?;
        Ok(Program {
            raw,
            _source: source,
            _name: name,
            _headers: headers,
        })
    }

    /// The compiler's diagnostics, empty if there are none or they cannot be read.
    fn log(&self) -> String {
        // SAFETY: `self.raw` is a live program.
        match unsafe { rtc::get_program_log(self.raw) } {
            Ok(log) => text_until_nul(&log).trim_end().to_owned(),
            Err(_) => String::new(),
        }
    }

    fn cubin(&self) -> Result<Vec<u8>, GpuError> {
        let mut size = 0usize;
        // SAFETY: `self.raw` is a live, compiled program; `size` is a valid out-pointer.
        unsafe { sys::nvrtcGetCUBINSize(self.raw, &mut size) }
            .result()
            .map_err(GpuError::nvrtc("nvrtcGetCUBINSize"))?;
        let mut cubin = vec![0u8; size];
        // SAFETY: `cubin` has room for the `size` bytes NVRTC writes.
        unsafe { sys::nvrtcGetCUBIN(self.raw, cubin.as_mut_ptr().cast::<c_char>()) }
            .result()
            .map_err(GpuError::nvrtc("nvrtcGetCUBIN"))?;
        Ok(cubin)
    }

    fn ptx(&self) -> Result<Vec<u8>, GpuError> {
        // SAFETY: `self.raw` is a live, compiled program.
        let ptx = unsafe { rtc::get_ptx(self.raw) }.map_err(GpuError::nvrtc("nvrtcGetPTX"))?;
        Ok(text_until_nul(&ptx).into_bytes())
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: `self.raw` was created by nvrtcCreateProgram and is destroyed only here.
        // A failure to destroy leaks the program's memory and nothing else.
        let _ = unsafe { rtc::destroy_program(self.raw) };
    }
}

/// The text of a C buffer up to its first NUL (or its end), lossily decoded.
fn text_until_nul(buffer: &[c_char]) -> String {
    let bytes: Vec<u8> = buffer
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: KernelSource = KernelSource {
        name: "tiny.cu",
        source: r#"
extern "C" __global__ void add_one(unsigned int *data, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1u;
}
"#,
        headers: &[],
    };

    /// NVRTC is optional on developer machines but required in CI (THICKET_REQUIRE_NVRTC=1).
    /// Without it the test says loudly that nothing was compiled; `cargo test -- --nocapture`
    /// shows that line.
    fn nvrtc_or_skip(test: &str) -> bool {
        match nvrtc_status() {
            Ok(_) => true,
            Err(error) => {
                if std::env::var_os("THICKET_REQUIRE_NVRTC").is_some_and(|v| v == "1") {
                    panic!("THICKET_REQUIRE_NVRTC=1 but libnvrtc is absent: {error}");
                }
                println!(
                    "NOTE {test}: libnvrtc is absent, so NVRTC compilation was NOT tested ({error})"
                );
                false
            }
        }
    }

    #[test]
    fn nvrtc_compiles_tiny_kernel_to_sm_90_cubin() {
        if !nvrtc_or_skip("nvrtc_compiles_tiny_kernel_to_sm_90_cubin") {
            return;
        }
        let version = nvrtc_status().expect("nvrtc present");
        let started = std::time::Instant::now();
        let cubin = compile_for_arch(&TINY, "sm_90", &[]).expect("tiny kernel compiles");
        // An ELF image whose e_machine is EM_CUDA (190): real machine code for the GPU.
        assert_eq!(&cubin[..4], b"\x7fELF");
        assert_eq!(u16::from_le_bytes([cubin[18], cubin[19]]), 190);
        println!(
            "nvrtc {}.{} compiled {} for sm_90: {} byte CUBIN in {:?}",
            version.0,
            version.1,
            TINY.name,
            cubin.len(),
            started.elapsed()
        );
    }

    #[test]
    fn nvrtc_compiles_ptx_for_virtual_arch() {
        if !nvrtc_or_skip("nvrtc_compiles_ptx_for_virtual_arch") {
            return;
        }
        let ptx = compile_for_arch(&TINY, "compute_90", &[]).expect("tiny kernel compiles");
        let text = String::from_utf8(ptx).expect("PTX is text");
        assert!(text.contains(".target sm_90"), "{text}");
        assert!(text.contains(".entry add_one"), "{text}");
        assert!(!text.ends_with('\0'));
    }

    #[test]
    fn nvrtc_reports_compile_errors_with_the_log() {
        if !nvrtc_or_skip("nvrtc_reports_compile_errors_with_the_log") {
            return;
        }
        let broken = KernelSource {
            name: "broken.cu",
            source: "extern \"C\" __global__ void k() { undeclared_thing = 1; }",
            headers: &[],
        };
        match compile_for_arch(&broken, "sm_90", &[]) {
            Err(GpuError::Compile { kernel, log, .. }) => {
                assert_eq!(kernel, "broken.cu");
                assert!(log.contains("undeclared_thing"), "{log}");
            }
            other => panic!("expected a compile error, got {other:?}"),
        }
        match compile_for_arch(&TINY, "sm_90", &["--no-such-option".to_owned()]) {
            Err(GpuError::Compile { log, .. }) => assert!(!log.is_empty()),
            other => panic!("expected a compile error, got {other:?}"),
        }
    }

    const WITH_HEADER: KernelSource = KernelSource {
        name: "with_header.cu",
        source:
            "#include \"thicket.cuh\"\n#ifndef WIDTH\n#error WIDTH is the host's\n#endif\n\
                 extern \"C\" __global__ void k(u64* t, i64* s) { add_per_warp(t, WIDTH); atomic_add_i64(s, -WIDTH); }",
        headers: &[THICKET_HEADER],
    };

    #[test]
    fn headers_and_defines_reach_the_kernel() {
        if !nvrtc_or_skip("headers_and_defines_reach_the_kernel") {
            return;
        }
        compile_for_arch(&WITH_HEADER, "sm_90", &[define("WIDTH", 4)]).expect("compiles");
        let missing = compile_for_arch(&WITH_HEADER, "sm_90", &[]);
        assert!(
            matches!(missing, Err(GpuError::Compile { .. })),
            "{missing:?}"
        );
    }

    #[test]
    fn the_cache_text_holds_every_header() {
        const OTHER: [Header; 1] = [Header {
            name: "thicket.cuh",
            source: "// another text",
        }];
        let changed = KernelSource {
            headers: &OTHER,
            ..WITH_HEADER
        };
        assert_ne!(WITH_HEADER.key_text(), changed.key_text());
        assert!(WITH_HEADER.key_text().contains("add_per_warp"));
        assert_eq!(define("BLOCK", 128), "-DBLOCK=128");
    }

    #[test]
    fn nvrtc_lists_sm_90_among_supported_archs() {
        if !nvrtc_or_skip("nvrtc_lists_sm_90_among_supported_archs") {
            return;
        }
        assert!(supported_archs().expect("archs").contains(&90));
    }

    #[test]
    fn nvrtc_absence_or_bad_input_is_an_error_not_a_panic() {
        let nul = KernelSource {
            name: "nul.cu",
            source: "extern \"C\" __global__ void k() {}\0",
            headers: &[],
        };
        let result = compile_for_arch(&nul, "sm_90", &[]);
        if nvrtc_status().is_ok() {
            assert!(matches!(result, Err(GpuError::InvalidArgument(_))));
        } else {
            assert!(
                matches!(result, Err(GpuError::Unavailable(ref why)) if why.contains("libnvrtc"))
            );
        }
    }

    #[test]
    fn arch_strings_are_validated() {
        for good in ["sm_90", "sm_90a", "sm_100f", "sm_120", "compute_75"] {
            assert!(Target::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "", "90", "sm90", "sm_", "sm_9", "sm_9x", "sm_90af", "gfx90a",
        ] {
            assert!(
                matches!(Target::parse(bad), Err(GpuError::InvalidArgument(_))),
                "{bad}"
            );
        }
        assert_eq!(Target::parse("compute_90").unwrap().kind, ImageKind::Ptx);
        assert_eq!(Target::parse("sm_90").unwrap().kind, ImageKind::Cubin);
    }

    #[test]
    fn options_are_defaults_then_arch_then_callers() {
        let target = Target::parse("sm_90").unwrap();
        let options = full_options(&target, &["-lineinfo".to_owned()]).unwrap();
        assert_eq!(
            options,
            ["-std=c++17", "--gpu-architecture=sm_90", "-lineinfo"]
        );
        for clash in ["-arch=sm_80", "--gpu-architecture=sm_80", "-arch"] {
            assert!(matches!(
                full_options(&target, &[clash.to_owned()]),
                Err(GpuError::InvalidArgument(_))
            ));
        }
    }

    #[test]
    fn device_target_prefers_exact_cubin_then_older_ptx() {
        let supported = [75, 80, 86, 89, 90, 100, 120];
        let exact = Target::for_device((9, 0), &supported, (13, 0)).unwrap();
        assert_eq!(
            (exact.arch.as_str(), exact.kind),
            ("sm_90", ImageKind::Cubin)
        );
        let newer = Target::for_device((13, 0), &supported, (13, 0)).unwrap();
        assert_eq!(
            (newer.arch.as_str(), newer.kind),
            ("compute_120", ImageKind::Ptx)
        );
        assert!(matches!(
            Target::for_device((7, 0), &supported, (13, 0)),
            Err(GpuError::Unavailable(ref why)) if why.contains("sm_70") && why.contains("sm_75")
        ));
    }
}
