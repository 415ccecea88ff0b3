//! End-to-end checks on a real GPU through the public API, as a solver crate uses it.
//!
//! Without a GPU each test prints that it tested nothing (see `cargo test -- --nocapture`);
//! with THICKET_REQUIRE_GPU=1 that absence fails the test instead.

use std::ops::Range;

use thicket_gpu::cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};
use thicket_gpu::{
    download_map, probe, run_work_queue, upload_map, upload_staged, DeviceInfo, Gpu, GpuError,
    ImageKind, KernelSource, STAGING_BYTES,
};

const ADD_ONE: KernelSource = KernelSource {
    name: "add_one.cu",
    source: r#"
extern "C" __global__ void add_one(unsigned long long *data, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1ull;
}
"#,
    headers: &[],
};

fn devices_or_skip(test: &str) -> Option<Vec<DeviceInfo>> {
    match probe() {
        Ok(devices) => Some(devices),
        Err(error) => {
            if std::env::var_os("THICKET_REQUIRE_GPU").is_some_and(|v| v == "1") {
                panic!("THICKET_REQUIRE_GPU=1 but no GPU is usable: {error}");
            }
            println!("NOTE {test}: no usable GPU, so nothing was tested ({error})");
            None
        }
    }
}

/// Adds one to each of `values` on the GPU and returns the results.
fn add_one(gpu: &Gpu, function: &CudaFunction, values: &[u64]) -> Result<Vec<u64>, GpuError> {
    let stream = gpu.stream();
    let mut data = stream
        .clone_htod(values)
        .map_err(GpuError::driver("cuMemcpyHtoD"))?;
    let n = u32::try_from(values.len()).expect("test sizes fit in u32");
    let mut launch = stream.launch_builder(function);
    launch.arg(&mut data).arg(&n);
    // SAFETY: add_one takes (unsigned long long*, unsigned int) and stays within n elements.
    unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }
        .map_err(GpuError::driver("cuLaunchKernel"))?;
    stream
        .clone_dtoh(&data)
        .map_err(GpuError::driver("cuMemcpyDtoH"))
}

#[test]
fn gpu_compiles_caches_loads_and_launches_a_kernel() {
    let Some(devices) = devices_or_skip("gpu_compiles_caches_loads_and_launches_a_kernel") else {
        return;
    };
    println!("devices: {devices:?}");
    let info = &devices[0];
    assert!(info.sm_count > 0 && info.total_memory_bytes > 0 && info.compute_capability.0 >= 7);

    let cache = tempfile::tempdir().unwrap();
    let mut gpu = Gpu::open(0).unwrap();
    assert_eq!(gpu.info(), info);
    gpu.set_kernel_cache_dir(Some(cache.path().to_owned()));

    let (_, first) = gpu.load_module_with_stats(&ADD_ONE, &[]).unwrap();
    println!("first load: {first:?}");
    assert!(!first.cache_hit);
    assert!(first.cache_file.is_some(), "{:?}", first.cache_warning);
    let (cc_major, cc_minor) = info.compute_capability;
    assert_eq!(first.target, format!("sm_{cc_major}{cc_minor}"));
    assert_eq!(first.image_kind, ImageKind::Cubin);

    let (module, second) = gpu.load_module_with_stats(&ADD_ONE, &[]).unwrap();
    println!("second load: {second:?}");
    assert!(second.cache_hit);
    assert_eq!(second.cache_file, first.cache_file);

    let function = gpu.load_function(&module, "add_one").unwrap();
    let values: Vec<u64> = (0..10_000).collect();
    let result = add_one(&gpu, &function, &values).unwrap();
    assert!(result.iter().zip(&values).all(|(r, v)| *r == v + 1));

    assert!(matches!(
        gpu.load_function(&module, "no_such_kernel"),
        Err(GpuError::Driver { .. })
    ));
}

#[test]
fn gpu_work_queue_spreads_chunks_over_every_device() {
    let Some(devices) = devices_or_skip("gpu_work_queue_spreads_chunks_over_every_device") else {
        return;
    };
    let mut workers: Vec<(Gpu, CudaFunction)> = Gpu::open_all()
        .unwrap()
        .into_iter()
        .map(|gpu| {
            let module = gpu.load_module(&ADD_ONE, &[]).unwrap();
            let function = gpu.load_function(&module, "add_one").unwrap();
            (gpu, function)
        })
        .collect();
    assert_eq!(workers.len(), devices.len());

    let total = 1_000_000;
    let outputs = run_work_queue(
        &mut workers,
        total,
        4096,
        |(gpu, function), range: Range<usize>| {
            let values: Vec<u64> = range.map(|i| i as u64).collect();
            Ok::<_, GpuError>(add_one(gpu, function, &values)?.iter().sum::<u64>())
        },
    )
    .map_err(GpuError::from)
    .unwrap();
    let sum: u64 = outputs.iter().map(|o| o.value).sum();
    let n = total as u64;
    assert_eq!(sum, n * (n - 1) / 2 + n);
    for worker in 0..workers.len() {
        let chunks = outputs.iter().filter(|o| o.worker == worker).count();
        println!("device {worker} processed {chunks} chunks");
    }
}

/// The staged copies through page-locked buffers: several chunks and a shorter last one,
/// converted both ways, equal the values and their plain copies; one chunk, one buffer
/// shorter than a chunk, and the small arrays that go as they are too.
#[test]
fn staged_copies_through_page_locked_buffers_bring_back_every_value() {
    if devices_or_skip("staged_copies_through_page_locked_buffers_bring_back_every_value").is_none()
    {
        return;
    }
    let gpu = Gpu::shared(0).unwrap();
    let stream = gpu.stream();
    let per_chunk = STAGING_BYTES / 8;
    for len in [0, 1, 1 << 17, per_chunk, 2 * per_chunk + 12_345] {
        let values: Vec<u64> = (0..len as u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let signed = upload_map(stream, &values, |v| v as i64).unwrap();
        // The driver refuses a copy of no bytes (CUDA_ERROR_INVALID_VALUE): the plain copy
        // back is made only of values there are; the staged copies handle none themselves.
        if len > 0 {
            let plain = stream.clone_dtoh(&signed).unwrap();
            assert!(
                plain.iter().zip(&values).all(|(&s, &v)| s as u64 == v),
                "{len}"
            );
        }
        let back = download_map(stream, &signed, len, |s| s as u64).unwrap();
        assert_eq!(back, values, "{len}");
        let same = upload_staged(stream, &values).unwrap();
        assert_eq!(
            download_map(stream, &same, len, |v| v).unwrap(),
            values,
            "{len}"
        );
    }
}
