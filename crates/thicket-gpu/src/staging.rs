//! Large copies between host and device through page-locked host memory.
//!
//! A copy from or to pageable memory goes through the driver's own staging buffer, one piece
//! at a time, and a fresh `Vec` pays a page fault per page on top (issue 33 measured about
//! 1 GB/s returning a max flow's residual capacities). [`download_map`], [`upload_map`] and
//! [`upload_staged`] move a large array in chunks through two page-locked buffers of
//! [`STAGING_BYTES`]: the DMA engine copies one chunk while the host's cores (the caller's
//! rayon pool) convert the chunk before it out of the other buffer, or fill the next one
//! (arrays under [`PAGEABLE_BELOW`] bytes go as they are). [`page_locked`] gives a buffer for
//! a caller that overlaps its own copies (the graph searches' per-source answers).

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{
    CudaEvent, CudaSlice, CudaStream, DeviceRepr, PinnedHostSlice, ValidAsZeroBits,
};
use rayon::prelude::*;

use crate::GpuError;

/// Bytes of each of the two page-locked buffers a staged copy goes through: large enough that
/// a chunk's copy is far longer than its launch (tens of microseconds), small enough that
/// allocating and pinning the pair costs a few milliseconds.
pub const STAGING_BYTES: usize = 32 << 20;

/// Bytes below which a copy goes through ordinary memory: pinning a buffer costs more than
/// the driver's own staging of so few bytes.
pub const PAGEABLE_BELOW: usize = 1 << 20;

/// Values the host's threads copy or convert at once.
const HOST_PIECE: usize = 1 << 16;

/// `len` zeroed values of page-locked host memory in `stream`'s context, cached (not
/// write-combined: the host reads what comes back at memory speed). A copy queued to or from
/// it is complete only once an event recorded after it ([`mark`]) is.
pub fn page_locked<T: DeviceRepr + ValidAsZeroBits>(
    stream: &CudaStream,
    len: usize,
) -> Result<PinnedHostSlice<T>, GpuError> {
    // SAFETY: flags 0 ask for plain page-locked memory; the values are zeroed below before
    // anything reads them, and zero bits are a valid T (ValidAsZeroBits).
    let mut buffer = unsafe { stream.context().alloc_pinned_with_flags::<T>(len.max(1), 0) }
        .map_err(GpuError::driver("cuMemHostAlloc"))?;
    let start = buffer
        .as_mut_ptr()
        .map_err(GpuError::driver("cuEventSynchronize"))?;
    // SAFETY: `start` points at `len.max(1)` values of T that this buffer owns and nothing
    // else uses yet.
    unsafe { std::ptr::write_bytes(start, 0, len.max(1)) };
    Ok(buffer)
}

/// An event recorded on `stream` now: what a host must wait for before it touches a
/// page-locked buffer that a queued copy reads or writes. cudarc records a buffer's own
/// event only in a context with several streams, so every caller of these copies marks them
/// itself.
pub fn mark(stream: &CudaStream) -> Result<CudaEvent, GpuError> {
    stream
        .record_event(None)
        .map_err(GpuError::driver("cuEventRecord"))
}

/// The chunks of `len` values, `chunk` at a time.
fn chunks(len: usize, chunk: usize) -> Vec<Range<usize>> {
    (0..len)
        .step_by(chunk)
        .map(|start| start..(start + chunk).min(len))
        .collect()
}

/// Values of T in one staging buffer, at most `len`.
fn chunk_len<T>(len: usize) -> usize {
    (STAGING_BYTES / std::mem::size_of::<T>().max(1)).clamp(1, len.max(1))
}

/// The first `len` values of `source`, brought to the host through two page-locked buffers
/// and converted by `convert` on the caller's rayon pool, chunk by chunk while the next chunk
/// crosses the bus, in order (the result is the same as converting a plain copy).
pub fn download_map<T, U, F>(
    stream: &Arc<CudaStream>,
    source: &CudaSlice<T>,
    len: usize,
    convert: F,
) -> Result<Vec<U>, GpuError>
where
    T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync,
    U: Send,
    F: Fn(T) -> U + Sync + Send,
{
    assert!(len <= source.len(), "{len} values of {}", source.len());
    let mut out = Vec::with_capacity(len);
    if len == 0 {
        return Ok(out);
    }
    if len * std::mem::size_of::<T>() < PAGEABLE_BELOW {
        let plain = stream
            .clone_dtoh(&source.slice(0..len))
            .map_err(GpuError::driver("cuMemcpyDtoH"))?;
        out.extend(plain.into_iter().map(convert));
        return Ok(out);
    }
    let chunk = chunk_len::<T>(len);
    let ranges = chunks(len, chunk);
    let mut buffers = vec![page_locked::<T>(stream, chunk)?];
    if ranges.len() > 1 {
        buffers.push(page_locked::<T>(stream, chunk)?);
    }
    // cudarc's copy into a host buffer fills the whole buffer, so a last chunk shorter than
    // the others goes into a page-locked buffer of its own length (a copy of a full chunk's
    // bytes from it would read past the end of `source`).
    let short = ranges.last().map_or(0, |r| r.len()) < chunk;
    if short {
        buffers.push(page_locked::<T>(stream, ranges[ranges.len() - 1].len())?);
    }
    let full_buffers = buffers.len() - usize::from(short);
    let slot_of = |k: usize| {
        if short && k + 1 == ranges.len() {
            full_buffers
        } else {
            k % full_buffers
        }
    };
    // The copy into each buffer, marked by an event of our own: cudarc records a page-locked
    // buffer's own event only when its context runs several streams.
    let enqueue = |k: usize, buffers: &mut Vec<PinnedHostSlice<T>>| {
        stream
            .memcpy_dtoh(&source.slice(ranges[k].clone()), &mut buffers[slot_of(k)])
            .map_err(GpuError::driver("cuMemcpyDtoHAsync"))?;
        mark(stream)
    };
    let mut copied = vec![enqueue(0, &mut buffers)?];
    for (k, range) in ranges.iter().enumerate() {
        if k + 1 < ranges.len() {
            copied.push(enqueue(k + 1, &mut buffers)?);
        }
        copied[k]
            .synchronize()
            .map_err(GpuError::driver("cuEventSynchronize"))?;
        let host = buffers[slot_of(k)]
            .as_slice()
            .map_err(GpuError::driver("cuEventSynchronize"))?;
        out.par_extend(
            host[..range.len()]
                .par_iter()
                .with_min_len(HOST_PIECE)
                .map(|&x| convert(x)),
        );
    }
    Ok(out)
}

/// A device copy of `values`, sent through two page-locked buffers that the caller's rayon
/// pool fills, one chunk while the chunk before crosses the bus.
pub fn upload_staged<T>(stream: &Arc<CudaStream>, values: &[T]) -> Result<CudaSlice<T>, GpuError>
where
    T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync,
{
    upload_map(stream, values, |x| x)
}

/// A device copy of `values` converted by `convert`, sent as [`upload_staged`] sends: the
/// caller's rayon pool converts each chunk into a page-locked buffer while the chunk before
/// crosses the bus (the last, shorter chunk goes from an ordinary vector).
pub fn upload_map<T, U, F>(
    stream: &Arc<CudaStream>,
    values: &[T],
    convert: F,
) -> Result<CudaSlice<U>, GpuError>
where
    T: Copy + Sync,
    U: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync,
    F: Fn(T) -> U + Sync + Send,
{
    if values.len() * std::mem::size_of::<U>() < PAGEABLE_BELOW {
        let plain: Vec<U> = values.iter().map(|&x| convert(x)).collect();
        return stream
            .clone_htod(&plain)
            .map_err(GpuError::driver("cuMemcpyHtoD"));
    }
    // SAFETY: every value is written by the copies below before anything reads it.
    let mut device =
        unsafe { stream.alloc::<U>(values.len()) }.map_err(GpuError::driver("cuMemAlloc"))?;
    let chunk = chunk_len::<U>(values.len());
    let ranges = chunks(values.len(), chunk);
    let full = ranges.iter().filter(|r| r.len() == chunk).count();
    let mut buffers = Vec::new();
    for _ in 0..full.min(2) {
        buffers.push(page_locked::<U>(stream, chunk)?);
    }
    // Each buffer's last copy out, marked by an event of our own (as in `download_map`).
    let mut sent: Vec<Option<CudaEvent>> = (0..buffers.len()).map(|_| None).collect();
    for (k, range) in ranges.into_iter().enumerate() {
        let mut target = device.slice_mut(range.clone());
        let from = &values[range];
        if from.len() < chunk || buffers.is_empty() {
            let mut part = Vec::with_capacity(from.len());
            part.par_extend(
                from.par_iter()
                    .with_min_len(HOST_PIECE)
                    .map(|&x| convert(x)),
            );
            stream
                .memcpy_htod(&part, &mut target)
                .map_err(GpuError::driver("cuMemcpyHtoD"))?;
            continue;
        }
        let slot = k % buffers.len();
        // Waits for this buffer's previous chunk to have left.
        if let Some(event) = &sent[slot] {
            event
                .synchronize()
                .map_err(GpuError::driver("cuEventSynchronize"))?;
        }
        let host = buffers[slot]
            .as_mut_slice()
            .map_err(GpuError::driver("cuEventSynchronize"))?;
        host.par_iter_mut()
            .zip(from.par_iter())
            .with_min_len(HOST_PIECE)
            .for_each(|(to, &x)| *to = convert(x));
        stream
            .memcpy_htod(&buffers[slot], &mut target)
            .map_err(GpuError::driver("cuMemcpyHtoDAsync"))?;
        sent[slot] = Some(mark(stream)?);
    }
    // The buffers are freed on return: every copy out of them must have happened.
    for event in sent.iter().flatten() {
        event
            .synchronize()
            .map_err(GpuError::driver("cuEventSynchronize"))?;
    }
    Ok(device)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chunks_cover_every_value_once_in_order() {
        for (len, chunk) in [(0, 4), (1, 4), (4, 4), (9, 4), (8, 1)] {
            let ranges = chunks(len, chunk);
            let flat: Vec<usize> = ranges.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(flat, (0..len).collect::<Vec<_>>(), "{len} by {chunk}");
            assert!(ranges.iter().all(|r| !r.is_empty() && r.len() <= chunk));
        }
        assert_eq!(chunk_len::<u64>(10), 10);
        assert_eq!(chunk_len::<u64>(usize::MAX), STAGING_BYTES / 8);
        assert_eq!(chunk_len::<u32>(0), 1);
    }
}
