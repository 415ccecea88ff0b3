//! The on-disk cache of compiled kernels.
//!
//! An entry is keyed by a SHA-256 of everything that determines NVRTC's output (source, options,
//! target, NVRTC version) and of the driver version, so upgrading any of them compiles afresh.
//! Entries carry a checksum of their payload: a truncated or corrupt file is treated as a miss
//! and rewritten, never trusted and never fatal. Writes go to a temporary file that is renamed
//! into place, so concurrent processes see either no entry or a whole one.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::compile::{CompiledImage, ImageKind};
use crate::GpuError;

/// The directory compiled kernels are cached in: `$THICKET_CACHE_DIR` if set, else
/// `$XDG_CACHE_HOME/thicket/kernels`, else `$HOME/.cache/thicket/kernels`; `None` when none of
/// these variables is usable, in which case kernels are compiled every time.
pub fn kernel_cache_dir() -> Option<PathBuf> {
    cache_dir_from(|name| std::env::var_os(name))
}

/// [`kernel_cache_dir`] over an arbitrary environment, so tests need not mutate the real one.
fn cache_dir_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name| {
        var(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = set("THICKET_CACHE_DIR") {
        return Some(dir);
    }
    // The XDG spec says relative values are invalid and must be ignored.
    if let Some(xdg) = set("XDG_CACHE_HOME").filter(|dir| dir.is_absolute()) {
        return Some(xdg.join("thicket").join("kernels"));
    }
    set("HOME").map(|home| home.join(".cache").join("thicket").join("kernels"))
}

/// Everything that determines a cached kernel image.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyInputs<'a> {
    pub(crate) name: &'a str,
    pub(crate) source: &'a str,
    /// The complete NVRTC option list, defaults and architecture included.
    pub(crate) options: &'a [String],
    pub(crate) target: &'a str,
    pub(crate) driver_version: (u32, u32),
    pub(crate) nvrtc_version: (u32, u32),
}

/// Bumped whenever the entry format or the meaning of the key changes.
const FORMAT: &[u8] = b"thicket-kernel-cache-v1";

/// Hex SHA-256 of the key inputs. Every field is length-prefixed so that no two different
/// inputs can serialise to the same bytes (e.g. options `["ab"]` vs `["a", "b"]`).
pub(crate) fn cache_key(inputs: &KeyInputs<'_>) -> String {
    let mut hasher = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    field(FORMAT);
    field(inputs.name.as_bytes());
    field(inputs.source.as_bytes());
    field(&(inputs.options.len() as u64).to_le_bytes());
    for option in inputs.options {
        field(option.as_bytes());
    }
    field(inputs.target.as_bytes());
    for part in [
        inputs.driver_version.0,
        inputs.driver_version.1,
        inputs.nvrtc_version.0,
        inputs.nvrtc_version.1,
    ] {
        field(&part.to_le_bytes());
    }
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// File layout: MAGIC, one kind byte, SHA-256 of the payload, the payload.
const MAGIC: &[u8; 8] = b"THKTKRN1";
const HEADER_LEN: usize = MAGIC.len() + 1 + 32;

fn kind_byte(kind: ImageKind) -> u8 {
    match kind {
        ImageKind::Cubin => 0,
        ImageKind::Ptx => 1,
    }
}

fn encode(image: &CompiledImage) -> Vec<u8> {
    let mut file = Vec::with_capacity(HEADER_LEN + image.bytes.len());
    file.extend_from_slice(MAGIC);
    file.push(kind_byte(image.kind));
    file.extend_from_slice(&Sha256::digest(&image.bytes));
    file.extend_from_slice(&image.bytes);
    file
}

/// The image in `file`, or `None` if the file is not an intact entry.
fn decode(file: &[u8]) -> Option<CompiledImage> {
    let (header, payload) = file.split_at_checked(HEADER_LEN)?;
    let (magic, rest) = header.split_at(MAGIC.len());
    let (kind, checksum) = rest.split_at(1);
    let kind = match kind[0] {
        0 => ImageKind::Cubin,
        1 => ImageKind::Ptx,
        _ => return None,
    };
    (magic == MAGIC && checksum == Sha256::digest(payload).as_slice() && !payload.is_empty()).then(
        || CompiledImage {
            kind,
            bytes: payload.to_vec(),
        },
    )
}

/// A cache directory, or none (caching off).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KernelCache {
    dir: Option<PathBuf>,
}

/// The outcome of [`KernelCache::fetch_or_compile`].
#[derive(Debug)]
pub(crate) struct Fetched {
    pub(crate) image: CompiledImage,
    pub(crate) cache_hit: bool,
    /// Zero on a hit.
    pub(crate) compile_time: Duration,
    /// The entry read or written, if any.
    pub(crate) cache_file: Option<PathBuf>,
    /// Why the cache could not be read or written, if it could not; the image is good anyway.
    pub(crate) cache_warning: Option<String>,
}

impl KernelCache {
    pub(crate) fn new(dir: Option<PathBuf>) -> KernelCache {
        KernelCache { dir }
    }

    pub(crate) fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn entry_path(&self, key: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|dir| dir.join(format!("{key}.bin")))
    }

    /// The cached image at `path`: `Ok(None)` when absent or corrupt, `Err` when unreadable.
    fn read(path: &Path) -> Result<Option<CompiledImage>, GpuError> {
        match fs::read(path) {
            Ok(file) => Ok(decode(&file)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(GpuError::Cache {
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// Stores `image` at `path` atomically: a uniquely named temporary file in the same
    /// directory, renamed over the entry.
    fn write(path: &Path, image: &CompiledImage) -> Result<(), GpuError> {
        static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);
        let io_error = |path: &Path| {
            let path = path.to_owned();
            move |source| GpuError::Cache { path, source }
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        fs::create_dir_all(dir).map_err(io_error(dir))?;
        let temp = dir.join(format!(
            ".{}.{}.{}.tmp",
            path.file_name().unwrap_or_default().to_string_lossy(),
            std::process::id(),
            NEXT_TEMP.fetch_add(1, Ordering::Relaxed)
        ));
        let written = fs::File::create_new(&temp)
            .and_then(|mut file| file.write_all(&encode(image)))
            .map_err(io_error(&temp))
            .and_then(|()| fs::rename(&temp, path).map_err(io_error(path)));
        if written.is_err() {
            // Best effort: a stray temporary file wastes space but is never read as an entry.
            let _ = fs::remove_file(&temp);
        }
        written
    }

    /// Drops the entry for `key`, e.g. after the driver rejected it.
    pub(crate) fn remove(&self, key: &str) {
        if let Some(path) = self.entry_path(key) {
            // Best effort: if it cannot be removed it will be overwritten by the next compile.
            let _ = fs::remove_file(path);
        }
    }

    /// The image for `key` from the cache, or from `compile` (then stored in the cache).
    /// Cache problems never fail the call; they are reported in [`Fetched::cache_warning`].
    pub(crate) fn fetch_or_compile(
        &self,
        key: &str,
        compile: impl FnOnce() -> Result<CompiledImage, GpuError>,
    ) -> Result<Fetched, GpuError> {
        let path = self.entry_path(key);
        let mut warning = None;
        if let Some(path) = &path {
            match Self::read(path) {
                Ok(Some(image)) => {
                    return Ok(Fetched {
                        image,
                        cache_hit: true,
                        compile_time: Duration::ZERO,
                        cache_file: Some(path.clone()),
                        cache_warning: None,
                    })
                }
                Ok(None) => {}
                Err(error) => warning = Some(error.to_string()),
            }
        }
        let started = Instant::now();
        let image = compile()?;
        let compile_time = started.elapsed();
        let cache_file = match &path {
            Some(path) => match Self::write(path, &image) {
                Ok(()) => Some(path.clone()),
                Err(error) => {
                    warning = Some(error.to_string());
                    None
                }
            },
            None => {
                warning = Some(
                    "no kernel cache directory (THICKET_CACHE_DIR, XDG_CACHE_HOME and HOME unset)"
                        .to_owned(),
                );
                None
            }
        };
        Ok(Fetched {
            image,
            cache_hit: false,
            compile_time,
            cache_file,
            cache_warning: warning,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn cache_dir_honours_thicket_cache_dir_first() {
        let all = [
            ("THICKET_CACHE_DIR", "/tmp/thicket-cache"),
            ("XDG_CACHE_HOME", "/xdg"),
            ("HOME", "/home/u"),
        ];
        assert_eq!(
            cache_dir_from(env(&all)),
            Some(PathBuf::from("/tmp/thicket-cache"))
        );
    }

    #[test]
    fn cache_dir_falls_back_to_xdg_then_home() {
        assert_eq!(
            cache_dir_from(env(&[("XDG_CACHE_HOME", "/xdg"), ("HOME", "/home/u")])),
            Some(PathBuf::from("/xdg/thicket/kernels"))
        );
        assert_eq!(
            cache_dir_from(env(&[
                ("THICKET_CACHE_DIR", ""),
                ("XDG_CACHE_HOME", "relative/xdg"),
                ("HOME", "/home/u"),
            ])),
            Some(PathBuf::from("/home/u/.cache/thicket/kernels"))
        );
        assert_eq!(cache_dir_from(env(&[])), None);
    }

    const BASE: KeyInputs<'static> = KeyInputs {
        name: "k.cu",
        source: "extern \"C\" __global__ void k() {}",
        options: &[],
        target: "sm_90",
        driver_version: (13, 0),
        nvrtc_version: (13, 0),
    };

    #[test]
    fn cache_key_changes_with_each_input() {
        let options = ["-std=c++17".to_owned()];
        let split = ["a".to_owned(), "b".to_owned()];
        let joined = ["ab".to_owned()];
        let variants = [
            BASE,
            KeyInputs {
                name: "other.cu",
                ..BASE
            },
            KeyInputs {
                source: "extern \"C\" __global__ void j() {}",
                ..BASE
            },
            KeyInputs {
                options: &options,
                ..BASE
            },
            KeyInputs {
                options: &split,
                ..BASE
            },
            KeyInputs {
                options: &joined,
                ..BASE
            },
            KeyInputs {
                target: "sm_80",
                ..BASE
            },
            KeyInputs {
                driver_version: (13, 1),
                ..BASE
            },
            KeyInputs {
                nvrtc_version: (12, 9),
                ..BASE
            },
        ];
        let keys: Vec<String> = variants.iter().map(cache_key).collect();
        for (i, a) in keys.iter().enumerate() {
            assert_eq!(a.len(), 64);
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(cache_key(&BASE), keys[0], "the key must be deterministic");
    }

    fn image(bytes: &[u8]) -> CompiledImage {
        CompiledImage {
            kind: ImageKind::Cubin,
            bytes: bytes.to_vec(),
        }
    }

    #[test]
    fn cache_entries_round_trip_and_reject_corruption() {
        let original = image(b"\x7fELF pretend cubin");
        let file = encode(&original);
        assert_eq!(decode(&file), Some(original));
        let mut flipped = file.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(decode(&flipped), None);
        assert_eq!(decode(&file[..file.len() - 1]), None);
        assert_eq!(decode(&file[..10]), None);
        assert_eq!(decode(b""), None);
    }

    #[test]
    fn cache_misses_then_hits_then_recovers_from_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let cache = KernelCache::new(Some(dir.path().join("nested").join("kernels")));
        let compiles = Cell::new(0);
        let compile = || {
            compiles.set(compiles.get() + 1);
            Ok(image(b"cubin bytes"))
        };

        let first = cache.fetch_or_compile("key", compile).unwrap();
        assert!(!first.cache_hit);
        assert_eq!(first.cache_warning, None);
        let entry = first.cache_file.expect("written");

        let second = cache.fetch_or_compile("key", compile).unwrap();
        assert!(second.cache_hit);
        assert_eq!(second.image, image(b"cubin bytes"));
        assert_eq!(second.compile_time, Duration::ZERO);
        assert_eq!(compiles.get(), 1);

        fs::write(&entry, b"garbage").unwrap();
        let third = cache.fetch_or_compile("key", compile).unwrap();
        assert!(!third.cache_hit);
        assert_eq!(compiles.get(), 2);
        assert!(cache.fetch_or_compile("key", compile).unwrap().cache_hit);

        cache.remove("key");
        assert!(!cache.fetch_or_compile("key", compile).unwrap().cache_hit);
        let leftovers: Vec<_> = fs::read_dir(entry.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, [OsString::from("key.bin")], "no temp files left");
    }

    #[test]
    fn unusable_cache_dir_still_compiles_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("not-a-dir");
        fs::write(&blocker, b"a file where the cache dir should be").unwrap();
        let cache = KernelCache::new(Some(blocker.join("kernels")));
        let fetched = cache
            .fetch_or_compile("key", || Ok(image(b"code")))
            .unwrap();
        assert!(!fetched.cache_hit);
        assert_eq!(fetched.cache_file, None);
        assert!(fetched.cache_warning.unwrap().contains("not-a-dir"));

        let uncached = KernelCache::new(None)
            .fetch_or_compile("key", || Ok(image(b"code")))
            .unwrap();
        assert!(uncached.cache_warning.is_some());
    }

    #[test]
    fn compile_errors_pass_through_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let cache = KernelCache::new(Some(dir.path().to_owned()));
        let result = cache.fetch_or_compile("key", || {
            Err(GpuError::InvalidArgument("bad kernel".to_owned()))
        });
        assert!(matches!(result, Err(GpuError::InvalidArgument(_))));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
