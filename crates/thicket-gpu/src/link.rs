//! Kernels that launch kernels (CUDA dynamic parallelism): NVRTC compiles them as relocatable
//! device code (`-rdc=true`), and the driver's linker joins that code with the device runtime
//! library `libcudadevrt.a` of a CUDA toolkit into one CUBIN, which is loaded like any module.
//!
//! NVRTC can compile such kernels anywhere (CI does, see [`compile_relocatable_for_arch`]), but
//! linking needs the driver and the toolkit's `libcudadevrt.a`; [`find_cudadevrt`] says where
//! it looked when it is absent. Linked images are cached on disk like ordinary kernels, keyed
//! by the source, the options, the architecture, both versions and the library's own hash.

use std::ffi::{c_uint, c_void, CString};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys::{self as cu, CUjitInputType, CUjit_option, CUlinkState};
use cudarc::driver::CudaModule;
use cudarc::nvrtc::Ptx;
use sha2::{Digest, Sha256};

use crate::cache::{cache_key, KernelCache, KeyInputs};
use crate::compile::{compile, full_options, nvrtc_status, supported_archs, ImageKind, Target};
use crate::{Gpu, GpuError, KernelSource, ModuleStats};

/// The NVRTC option that makes device code relocatable, so that it can call into libcudadevrt.
pub const RDC_OPTION: &str = "-rdc=true";

/// Environment variable naming `libcudadevrt.a` (or its directory) explicitly.
pub const CUDADEVRT_ENV: &str = "THICKET_CUDADEVRT";

/// The file name of CUDA's device runtime library.
const CUDADEVRT: &str = "libcudadevrt.a";

/// Where `libcudadevrt.a` is looked for, in order: `$THICKET_CUDADEVRT` (the file or its
/// directory), `$CUDA_HOME` and `$CUDA_PATH` (`lib64`, `lib` and `targets/x86_64-linux/lib`
/// below each), `/usr/local/cuda`, every `/usr/local/cuda-*` (newest name first), and
/// `/usr/lib/x86_64-linux-gnu`.
pub fn cudadevrt_candidates() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut roots: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .collect();
    roots.push(PathBuf::from("/usr/local/cuda"));
    let mut versioned: Vec<PathBuf> = std::fs::read_dir("/usr/local")
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|f| f.to_string_lossy().starts_with("cuda-"))
                })
                .collect()
        })
        .unwrap_or_default();
    versioned.sort();
    versioned.reverse();
    roots.extend(versioned);
    for root in roots {
        for sub in ["lib64", "lib", "targets/x86_64-linux/lib"] {
            dirs.push(root.join(sub));
        }
    }
    dirs.push(PathBuf::from("/usr/lib/x86_64-linux-gnu"));
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(explicit) = std::env::var_os(CUDADEVRT_ENV).filter(|v| !v.is_empty()) {
        let explicit = PathBuf::from(explicit);
        files.push(if explicit.is_dir() {
            explicit.join(CUDADEVRT)
        } else {
            explicit
        });
    }
    files.extend(dirs.into_iter().map(|dir| dir.join(CUDADEVRT)));
    files
}

/// The first `libcudadevrt.a` of [`cudadevrt_candidates`] that exists, or
/// [`GpuError::Unavailable`] listing every place looked at.
pub fn find_cudadevrt() -> Result<PathBuf, GpuError> {
    let candidates = cudadevrt_candidates();
    candidates
        .iter()
        .find(|path| path.is_file())
        .cloned()
        .ok_or_else(|| {
            let looked: Vec<String> = candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            GpuError::Unavailable(format!(
                "dynamic parallelism needs CUDA's {CUDADEVRT} (from a CUDA toolkit) and none was found; \
                 set {CUDADEVRT_ENV} to its path (looked at: {})",
                looked.join(", ")
            ))
        })
}

/// The caller's options with [`RDC_OPTION`] added unless already there.
fn relocatable_options(options: &[String]) -> Vec<String> {
    let mut all = options.to_vec();
    if !all
        .iter()
        .any(|o| o == RDC_OPTION || o == "--relocatable-device-code=true")
    {
        all.push(RDC_OPTION.to_owned());
    }
    all
}

/// Compiles `src` as relocatable device code for `arch` (`sm_XY`: a relocatable CUBIN;
/// `compute_XY`: PTX) without a driver, the first half of [`Gpu::load_linked_module`]. CI uses
/// it to check that dynamic-parallelism kernels compile; linking them needs a GPU machine.
pub fn compile_relocatable_for_arch(
    src: &KernelSource,
    arch: &str,
    options: &[String],
) -> Result<Vec<u8>, GpuError> {
    crate::compile_for_arch(src, arch, &relocatable_options(options))
}

/// A driver link session, destroyed on drop.
struct LinkSession {
    state: CUlinkState,
    error_log: Vec<u8>,
}

impl LinkSession {
    /// Opens a link session that records the linker's errors in a buffer of its own.
    fn create(error_log_bytes: usize) -> Result<Box<LinkSession>, GpuError> {
        let mut session = Box::new(LinkSession {
            state: std::ptr::null_mut(),
            error_log: vec![0u8; error_log_bytes],
        });
        let mut options = [
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        // The driver reads option values as pointer-sized words: a pointer, then a size.
        let mut values: [*mut c_void; 2] = [
            session.error_log.as_mut_ptr().cast(),
            error_log_bytes as *mut c_void,
        ];
        let mut state: CUlinkState = std::ptr::null_mut();
        // SAFETY: two options with two values; the log buffer lives as long as the session,
        // which is boxed so that it does not move.
        unsafe {
            cu::cuLinkCreate_v2(
                options.len() as c_uint,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
                &mut state,
            )
        }
        .result()
        .map_err(GpuError::driver("cuLinkCreate"))?;
        session.state = state;
        Ok(session)
    }

    /// The linker's error log, empty when it wrote none.
    fn log(&self) -> String {
        let end = self
            .error_log
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.error_log.len());
        String::from_utf8_lossy(&self.error_log[..end])
            .trim()
            .to_owned()
    }

    /// A link error carrying the linker's log.
    fn error(&self, op: &'static str, error: cudarc::driver::DriverError) -> GpuError {
        let mut failed = GpuError::driver(op)(error);
        if let GpuError::Driver { message, .. } = &mut failed {
            let log = self.log();
            if !log.is_empty() {
                message.push_str(": ");
                message.push_str(&log);
            }
        }
        failed
    }

    /// Adds the image `bytes` (a relocatable CUBIN or PTX) under `name`.
    fn add_data(&mut self, kind: ImageKind, bytes: &[u8], name: &str) -> Result<(), GpuError> {
        let (input, mut data) = match kind {
            ImageKind::Cubin => (CUjitInputType::CU_JIT_INPUT_CUBIN, bytes.to_vec()),
            // The driver reads PTX as a NUL-terminated string.
            ImageKind::Ptx => (CUjitInputType::CU_JIT_INPUT_PTX, {
                let mut text = bytes.to_vec();
                text.push(0);
                text
            }),
        };
        let name = CString::new(name).map_err(|_| {
            GpuError::InvalidArgument(format!("kernel name {name:?} contains a NUL byte"))
        })?;
        // SAFETY: `data` and `name` outlive the call (the driver copies the input); no options.
        unsafe {
            cu::cuLinkAddData_v2(
                self.state,
                input,
                data.as_mut_ptr().cast(),
                data.len(),
                name.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .map_err(|e| self.error("cuLinkAddData", e))
    }

    /// Adds the static library at `path`.
    fn add_library(&mut self, path: &Path) -> Result<(), GpuError> {
        let text = path.to_str().ok_or_else(|| {
            GpuError::InvalidArgument(format!("{} is not valid UTF-8", path.display()))
        })?;
        let c_path = CString::new(text).map_err(|_| {
            GpuError::InvalidArgument(format!("{} contains a NUL byte", path.display()))
        })?;
        // SAFETY: `c_path` outlives the call; no options.
        unsafe {
            cu::cuLinkAddFile_v2(
                self.state,
                CUjitInputType::CU_JIT_INPUT_LIBRARY,
                c_path.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .map_err(|e| self.error("cuLinkAddFile", e))
    }

    /// Completes the link and copies out the CUBIN (owned by the session until destroyed).
    fn complete(&mut self) -> Result<Vec<u8>, GpuError> {
        let mut cubin: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: both out-pointers are valid.
        unsafe { cu::cuLinkComplete(self.state, &mut cubin, &mut size) }
            .result()
            .map_err(|e| self.error("cuLinkComplete", e))?;
        if cubin.is_null() || size == 0 {
            return Err(GpuError::InvalidArgument(
                "the driver's linker produced an empty image".into(),
            ));
        }
        // SAFETY: the driver returned `size` readable bytes at `cubin`, valid until destroy.
        Ok(unsafe { std::slice::from_raw_parts(cubin.cast::<u8>(), size) }.to_vec())
    }
}

impl Drop for LinkSession {
    fn drop(&mut self) {
        if !self.state.is_null() {
            // SAFETY: the state was created by cuLinkCreate and is destroyed only here; a
            // failure leaks the linker's memory and nothing else.
            let _ = unsafe { cu::cuLinkDestroy(self.state) };
        }
    }
}

/// Hex SHA-256 of the file at `path`, so that the cache notices a different libcudadevrt.
fn file_hash(path: &Path) -> Result<String, GpuError> {
    let bytes = std::fs::read(path).map_err(|source| GpuError::Cache {
        path: path.to_owned(),
        source,
    })?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

impl Gpu {
    /// Compiles `src` as relocatable device code for this device (NVRTC, `-rdc=true`), links
    /// it with the toolkit's `libcudadevrt.a` through the driver's linker, and loads the linked
    /// CUBIN: the way to load kernels that launch kernels (dynamic parallelism).
    ///
    /// The linked image is cached on disk like [`Gpu::load_module_with_stats`]'s, under a key
    /// that also covers the library's contents; [`ModuleStats::compile_time`] is then the time
    /// of compiling and linking together. Fails with [`GpuError::Unavailable`] when
    /// `libcudadevrt.a` cannot be found (see [`find_cudadevrt`]). A module this device already
    /// loaded is returned at once (a cache hit with no load time).
    pub fn load_linked_module(
        &self,
        src: &KernelSource,
        options: &[String],
    ) -> Result<(Arc<CudaModule>, ModuleStats), GpuError> {
        let library = find_cudadevrt()?;
        let nvrtc_version = nvrtc_status()?;
        let target = Target::for_device(
            self.info().compute_capability,
            &supported_archs()?,
            nvrtc_version,
        )?;
        let options = relocatable_options(options);
        let mut key_options = full_options(&target, &options)?;
        key_options.push(format!("link:{CUDADEVRT}:{}", file_hash(&library)?));
        let key_text = src.key_text();
        let key = cache_key(&KeyInputs {
            name: src.name,
            source: &key_text,
            options: &key_options,
            target: &target.arch,
            driver_version: self.info().driver_version,
            nvrtc_version,
        });
        if let Some(module) = self.loaded_module(&key) {
            return Ok((module, ModuleStats::already_loaded(src, &target)));
        }
        let cache = KernelCache::new(self.kernel_cache_dir().map(Path::to_owned));
        let compile_and_link = || {
            let image = compile(src, &target, &options)?;
            self.context()
                .bind_to_thread()
                .map_err(GpuError::driver("cuCtxSetCurrent"))?;
            let mut session = LinkSession::create(64 * 1024)?;
            session.add_data(image.kind, &image.bytes, src.name)?;
            session.add_library(&library)?;
            let bytes = session.complete()?;
            Ok(crate::compile::CompiledImage {
                kind: ImageKind::Cubin,
                bytes,
            })
        };
        let load = |bytes: &[u8]| {
            let started = Instant::now();
            self.context()
                .load_module(Ptx::from_binary(bytes.to_vec()))
                .map(|module| (module, started.elapsed()))
                .map_err(GpuError::driver("cuModuleLoadData"))
        };
        let mut fetched = cache.fetch_or_compile(&key, compile_and_link)?;
        let (module, load_time) = match load(&fetched.image.bytes) {
            Ok(loaded) => loaded,
            Err(_) if fetched.cache_hit => {
                cache.remove(&key);
                fetched = cache.fetch_or_compile(&key, compile_and_link)?;
                load(&fetched.image.bytes)?
            }
            Err(error) => return Err(error),
        };
        self.keep_loaded(key, &module);
        Ok((
            module,
            ModuleStats {
                kernel: src.name.to_owned(),
                target: target.arch,
                image_kind: ImageKind::Cubin,
                cache_hit: fetched.cache_hit,
                compile_time: fetched.compile_time,
                load_time,
                cache_file: fetched.cache_file,
                cache_warning: fetched.cache_warning,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAUNCHER: KernelSource = KernelSource {
        name: "launcher.cu",
        source: r#"
extern "C" __global__ void child(unsigned int *out) { atomicAdd(out, 1u); }
extern "C" __global__ void parent(unsigned int *out) {
    child<<<1, 32, 0, cudaStreamFireAndForget>>>(out);
}
"#,
        headers: &[],
    };

    #[test]
    fn rdc_option_is_added_once() {
        assert_eq!(relocatable_options(&[]), [RDC_OPTION]);
        let given = ["-rdc=true".to_owned(), "-lineinfo".to_owned()];
        assert_eq!(relocatable_options(&given), given);
    }

    #[test]
    fn cudadevrt_search_covers_the_usual_places() {
        let candidates = cudadevrt_candidates();
        assert!(candidates
            .iter()
            .all(|p| p.file_name().is_some_and(|f| f == CUDADEVRT)));
        assert!(candidates.contains(&PathBuf::from("/usr/local/cuda/lib64/libcudadevrt.a")));
        assert!(candidates.contains(&PathBuf::from("/usr/lib/x86_64-linux-gnu/libcudadevrt.a")));
        if let Err(error) = find_cudadevrt() {
            let text = error.to_string();
            assert!(
                text.contains(CUDADEVRT_ENV) && text.contains("looked at"),
                "{text}"
            );
        }
    }

    /// Compiles a kernel that launches a kernel for sm_90 as relocatable code; linking needs a
    /// GPU machine with a toolkit, so CI stops here and says so.
    #[test]
    fn nvrtc_compiles_relocatable_device_launches_for_sm_90() {
        if let Err(error) = nvrtc_status() {
            if std::env::var_os("THICKET_REQUIRE_NVRTC").is_some_and(|v| v == "1") {
                panic!("THICKET_REQUIRE_NVRTC=1 but libnvrtc is absent: {error}");
            }
            println!("NOTE nvrtc_compiles_relocatable_device_launches_for_sm_90: libnvrtc is absent, so nothing was compiled ({error})");
            return;
        }
        let cubin =
            compile_relocatable_for_arch(&LAUNCHER, "sm_90", &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&cubin[..4], b"\x7fELF");
        println!(
            "compiled {} for sm_90 with {RDC_OPTION}: {} bytes; NOT linked (linking needs the driver and libcudadevrt.a)",
            LAUNCHER.name,
            cubin.len()
        );
    }
}
