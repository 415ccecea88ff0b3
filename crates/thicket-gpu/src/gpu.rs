//! An opened CUDA device: its context, its default stream, and kernel loading.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
use cudarc::nvrtc::Ptx;
use serde::Serialize;

use crate::cache::{cache_key, kernel_cache_dir, Fetched, KernelCache, KeyInputs};
use crate::compile::{
    compile, full_options, nvrtc_status, supported_archs, CompiledImage, ImageKind, Target,
};
use crate::probe::{device_count, device_info, DeviceInfo};
use crate::PerDevice;
use crate::{GpuError, KernelSource};

/// One CUDA device, opened: its primary context, default stream and facts.
///
/// Solver crates launch kernels through [`Gpu::stream`] with cudarc's `launch_builder`
/// (cudarc is re-exported as [`crate::cudarc`]). All cudarc calls on the context bind it to the
/// calling thread first, so a `Gpu` can be used from whichever thread owns it.
#[derive(Debug)]
pub struct Gpu {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
    cache: KernelCache,
    /// Modules loaded into the context, by cache key: a later load of the same source and
    /// options takes the loaded module (no disk read, no driver load).
    loaded: Mutex<HashMap<String, Arc<CudaModule>>>,
}

/// The devices this process has opened through [`Gpu::shared`], by ordinal.
static SHARED: PerDevice<Gpu> = PerDevice::new();

/// How a module was obtained, for benchmarks that report first-compile versus cached-load cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModuleStats {
    /// [`KernelSource::name`] of the module.
    pub kernel: String,
    /// What NVRTC compiled for: `sm_XY` (the device's own), or `compute_XY` when this NVRTC
    /// is older than the device and the driver JIT-compiles PTX.
    pub target: String,
    /// Whether the image is a CUBIN or PTX.
    pub image_kind: ImageKind,
    /// Whether the image came from the on-disk cache (no NVRTC compilation).
    pub cache_hit: bool,
    /// Time spent in NVRTC; zero on a cache hit.
    pub compile_time: Duration,
    /// Time the driver took to load the image (includes JIT for PTX).
    pub load_time: Duration,
    /// The cache entry read or written, if any.
    pub cache_file: Option<PathBuf>,
    /// Why the cache could not be used, if it could not; the module loaded regardless.
    pub cache_warning: Option<String>,
}

impl ModuleStats {
    /// The stats of a module the device had loaded already: a cache hit that took no time.
    pub(crate) fn already_loaded(src: &KernelSource, target: &Target) -> ModuleStats {
        ModuleStats {
            kernel: src.name.to_owned(),
            target: target.arch.clone(),
            image_kind: target.kind,
            cache_hit: true,
            compile_time: Duration::ZERO,
            load_time: Duration::ZERO,
            cache_file: None,
            cache_warning: None,
        }
    }
}

impl Gpu {
    /// Opens device `ordinal` (retaining its primary context).
    ///
    /// Needs only the driver, not NVRTC. Fails with [`GpuError::Unavailable`] when there is no
    /// driver or no device, and [`GpuError::InvalidArgument`] when `ordinal` does not exist.
    pub fn open(ordinal: usize) -> Result<Gpu, GpuError> {
        let count = device_count()?;
        if count == 0 {
            return Err(GpuError::Unavailable(
                "the driver reports no CUDA devices".to_owned(),
            ));
        }
        if ordinal >= count {
            return Err(GpuError::InvalidArgument(format!(
                "no CUDA device {ordinal}: the driver reports {count} device(s)"
            )));
        }
        let info = device_info(ordinal)?;
        let context =
            CudaContext::new(ordinal).map_err(GpuError::driver("cuDevicePrimaryCtxRetain"))?;
        let stream = context.default_stream();
        Ok(Gpu {
            context,
            stream,
            info,
            cache: KernelCache::new(kernel_cache_dir()),
            loaded: Mutex::new(HashMap::new()),
        })
    }

    /// Device `ordinal`, opened on the process's first call and shared by every later one:
    /// its context, stream and loaded modules live until the process ends, so a solver
    /// called many times pays the device's set-up (tens of milliseconds) once. Fails as
    /// [`Gpu::open`] does; a failed open is not remembered.
    pub fn shared(ordinal: usize) -> Result<Arc<Gpu>, GpuError> {
        SHARED.get_or_open(ordinal, Gpu::open)
    }

    /// Every device the driver reports, shared as by [`Gpu::shared`], in ordinal order.
    pub fn shared_all() -> Result<Vec<Arc<Gpu>>, GpuError> {
        (0..device_count()?).map(Gpu::shared).collect()
    }

    /// Opens every device the driver reports, in ordinal order.
    pub fn open_all() -> Result<Vec<Gpu>, GpuError> {
        (0..device_count()?).map(Gpu::open).collect()
    }

    /// The device's facts.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The device's CUDA ordinal.
    pub fn ordinal(&self) -> usize {
        self.info.ordinal
    }

    /// The device's primary context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The context's default stream, on which solvers allocate, copy and launch.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Where compiled kernels are cached, if anywhere (initially [`crate::kernel_cache_dir`]).
    pub fn kernel_cache_dir(&self) -> Option<&Path> {
        self.cache.dir()
    }

    /// Caches compiled kernels in `dir` instead, or nowhere with `None` (every load compiles);
    /// forgets the modules loaded so far, so the next load goes through the new cache.
    pub fn set_kernel_cache_dir(&mut self, dir: Option<PathBuf>) {
        self.cache = KernelCache::new(dir);
        self.loaded = Mutex::new(HashMap::new());
    }

    /// Compiles `src` for this device (or takes it from the cache) and loads it.
    /// See [`Gpu::load_module_with_stats`].
    pub fn load_module(
        &self,
        src: &KernelSource,
        options: &[String],
    ) -> Result<Arc<CudaModule>, GpuError> {
        self.load_module_with_stats(src, options)
            .map(|(module, _)| module)
    }

    /// Compiles `src` with NVRTC for this device's exact architecture (a CUBIN for `sm_XY`),
    /// caching the image on disk, loads it into the context, and says how that went.
    ///
    /// `options` follow [`crate::DEFAULT_OPTIONS`] and must not name an architecture. An older
    /// NVRTC that does not know the device gets PTX for its newest architecture instead, which
    /// the driver JIT-compiles. A cached image the driver rejects is dropped and recompiled once.
    /// A module this device already loaded is returned at once (a cache hit with no load time).
    pub fn load_module_with_stats(
        &self,
        src: &KernelSource,
        options: &[String],
    ) -> Result<(Arc<CudaModule>, ModuleStats), GpuError> {
        let nvrtc_version = nvrtc_status()?;
        let target = Target::for_device(
            self.info.compute_capability,
            &supported_archs()?,
            nvrtc_version,
        )?;
        let all_options = full_options(&target, options)?;
        let key_text = src.key_text();
        let key = cache_key(&KeyInputs {
            name: src.name,
            source: &key_text,
            options: &all_options,
            target: &target.arch,
            driver_version: self.info.driver_version,
            nvrtc_version,
        });
        if let Some(module) = self.loaded_module(&key) {
            return Ok((module, ModuleStats::already_loaded(src, &target)));
        }
        let compile_now = || compile(src, &target, options);

        let fetched = self.cache.fetch_or_compile(&key, compile_now)?;
        let (fetched, (module, load_time)) = match self.load_image(&fetched.image) {
            Ok(loaded) => (fetched, loaded),
            Err(_) if fetched.cache_hit => {
                self.cache.remove(&key);
                let fresh = self.cache.fetch_or_compile(&key, compile_now)?;
                let loaded = self.load_image(&fresh.image)?;
                (fresh, loaded)
            }
            Err(error) => return Err(error),
        };
        self.keep_loaded(key, &module);
        let Fetched {
            cache_hit,
            compile_time,
            cache_file,
            cache_warning,
            ..
        } = fetched;
        Ok((
            module,
            ModuleStats {
                kernel: src.name.to_owned(),
                target: target.arch,
                image_kind: target.kind,
                cache_hit,
                compile_time,
                load_time,
                cache_file,
                cache_warning,
            },
        ))
    }

    /// The module loaded under cache key `key`, if this device has loaded it.
    pub(crate) fn loaded_module(&self, key: &str) -> Option<Arc<CudaModule>> {
        self.loaded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    /// Remembers `module` as loaded under cache key `key`.
    pub(crate) fn keep_loaded(&self, key: String, module: &Arc<CudaModule>) {
        self.loaded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, Arc::clone(module));
    }

    /// Loads an image into this device's context.
    fn load_image(&self, image: &CompiledImage) -> Result<(Arc<CudaModule>, Duration), GpuError> {
        let mut bytes = image.bytes.clone();
        if image.kind == ImageKind::Ptx {
            // cuModuleLoadData recognises PTX only as a NUL-terminated string.
            bytes.push(0);
        }
        let started = Instant::now();
        let module = self
            .context
            .load_module(Ptx::from_binary(bytes))
            .map_err(GpuError::driver("cuModuleLoadData"))?;
        Ok((module, started.elapsed()))
    }

    /// Looks up the kernel `name` (an `extern "C"` function) in `module` and loads it onto the
    /// device now: under CUDA's lazy loading its first launch would load it, and a timed launch
    /// would count that.
    pub fn load_function(
        &self,
        module: &Arc<CudaModule>,
        name: &str,
    ) -> Result<CudaFunction, GpuError> {
        // cudarc panics on a NUL byte in the name; reject it here instead.
        if name.contains('\0') {
            return Err(GpuError::InvalidArgument(format!(
                "kernel name {name:?} contains a NUL byte"
            )));
        }
        let function = module
            .load_function(name)
            .map_err(GpuError::driver("cuModuleGetFunction"))?;
        // SAFETY: the handle is a function of a module this context holds loaded.
        unsafe { cudarc::driver::sys::cuFuncLoad(function.cu_function()) }
            .result()
            .map_err(GpuError::driver("cuFuncLoad"))?;
        Ok(function)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_a_device_fails_cleanly_without_one() {
        if let Err(error) = Gpu::open(0) {
            assert!(
                matches!(error, GpuError::Unavailable(_)),
                "expected Unavailable, got {error}"
            );
        }
        if let Ok(count) = device_count() {
            assert!(matches!(
                Gpu::open(count),
                Err(GpuError::InvalidArgument(_) | GpuError::Unavailable(_))
            ));
        }
    }
}
