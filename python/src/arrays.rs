//! Integer arrays from numpy in the dtypes people have (int32 and int64 from scipy and
//! numpy, uint32 and uint64), borrowed, and narrowed to what a library takes only where the
//! dtype differs: an array already of the library's dtype is used in place.

use std::borrow::Cow;

use numpy::{Element, PyReadonlyArray1};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::errors::invalid;

/// A C-contiguous 1-D integer array borrowed from numpy.
#[derive(FromPyObject)]
pub enum Ints<'py> {
    /// int64 (numpy's default).
    I64(PyReadonlyArray1<'py, i64>),
    /// int32 (scipy's sparse indices).
    I32(PyReadonlyArray1<'py, i32>),
    /// uint32 (thicket's vertex ids).
    U32(PyReadonlyArray1<'py, u32>),
    /// uint64 (thicket's CSR offsets).
    U64(PyReadonlyArray1<'py, u64>),
}

/// The elements of `array`, borrowed (the package hands only C-contiguous arrays).
pub fn slice<'a, T: Element>(array: &'a PyReadonlyArray1<'_, T>, what: &str) -> PyResult<&'a [T]> {
    array
        .as_slice()
        .map_err(|_| invalid(format!("{what} is not a contiguous array")))
}

impl Ints<'_> {
    /// The elements as `u32`, each in `0..=limit` (a `ValueError` naming `what`, the index and
    /// the value of the first that is not): borrowed where the array is uint32, or int32
    /// (checked, then read as the same bits), narrowed into a new vector otherwise.
    pub fn as_u32(&self, what: &str, limit: u64) -> PyResult<Cow<'_, [u32]>> {
        let limit = limit.min(u64::from(u32::MAX));
        match self {
            Ints::U32(a) => Ok(Cow::Borrowed(at_most(slice(a, what)?, what, limit)?)),
            Ints::I32(a) => Ok(Cow::Borrowed(unsigned(slice(a, what)?, what, limit)?)),
            // No u32 outside 0..=u32::MAX: the bound keeps the cast exact.
            _ => Ok(Cow::Owned(self.converted(what, limit, |w| w as u32)?)),
        }
    }

    /// The elements as `u64`, each in `0..=limit`, as [`Ints::as_u32`]: borrowed where the
    /// array is uint64 or int64, widened into a new vector otherwise.
    pub fn as_u64(&self, what: &str, limit: u64) -> PyResult<Cow<'_, [u64]>> {
        match self {
            Ints::U64(a) => Ok(Cow::Borrowed(at_most(slice(a, what)?, what, limit)?)),
            Ints::I64(a) => Ok(Cow::Borrowed(unsigned(slice(a, what)?, what, limit)?)),
            _ => Ok(Cow::Owned(self.converted(what, limit, |w| w)?)),
        }
    }

    /// The elements checked against `0..=limit` and converted by `narrow` from `u64`, on every
    /// core (a graph's arcs are tens of millions): a `ValueError` naming the first outside.
    fn converted<U: Send>(
        &self,
        what: &str,
        limit: u64,
        narrow: impl Fn(u64) -> U + Sync,
    ) -> PyResult<Vec<U>> {
        fn checked<T, U: Send>(
            values: &[T],
            what: &str,
            limit: u64,
            widen: impl Fn(T) -> Option<u64> + Sync,
            narrow: impl Fn(u64) -> U + Sync,
        ) -> PyResult<Vec<U>>
        where
            T: Copy + Send + Sync + std::fmt::Display,
        {
            if let Some(i) = first_where(values, |&v| widen(v).is_none_or(|w| w > limit)) {
                return Err(out_of_range(what, i, values[i], limit));
            }
            Ok(values
                .par_iter()
                .map(|&v| narrow(widen(v).unwrap_or(0)))
                .collect())
        }
        match self {
            Ints::I64(a) => checked(
                slice(a, what)?,
                what,
                limit,
                |v| u64::try_from(v).ok(),
                narrow,
            ),
            Ints::I32(a) => checked(
                slice(a, what)?,
                what,
                limit,
                |v| u64::try_from(v).ok(),
                narrow,
            ),
            Ints::U32(a) => checked(slice(a, what)?, what, limit, |v| Some(u64::from(v)), narrow),
            Ints::U64(a) => checked(slice(a, what)?, what, limit, Some, narrow),
        }
    }
}

/// `values`, each checked to be at most `limit` on every core where a value could be larger
/// (no pass where `limit` is the type's largest).
fn at_most<'a, U>(values: &'a [U], what: &str, limit: u64) -> PyResult<&'a [U]>
where
    U: Copy + Send + Sync + Into<u64> + std::fmt::Display,
{
    let bits = std::mem::size_of::<U>() * 8;
    let largest = if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    if limit >= largest {
        return Ok(values);
    }
    match first_where(values, |&v| v.into() > limit) {
        Some(i) => Err(out_of_range(what, i, values[i], limit)),
        None => Ok(values),
    }
}

/// A signed integer type whose non-negative values are read as its unsigned twin's.
trait Signed: Copy + Send + Sync + std::fmt::Display {
    /// The unsigned type of the same width.
    type Unsigned;
    /// The value as `u64`, `None` where it is negative.
    fn widened(self) -> Option<u64>;
}

impl Signed for i32 {
    type Unsigned = u32;
    fn widened(self) -> Option<u64> {
        u64::try_from(self).ok()
    }
}

impl Signed for i64 {
    type Unsigned = u64;
    fn widened(self) -> Option<u64> {
        u64::try_from(self).ok()
    }
}

/// `values`, each checked to be in `0..=limit` on every core, then borrowed as the unsigned
/// type of the same width: a non-negative value has the same bits in both, so nothing is
/// copied (a scale-20 graph's int32 indices are 134 MB).
fn unsigned<'a, S: Signed>(values: &'a [S], what: &str, limit: u64) -> PyResult<&'a [S::Unsigned]> {
    if let Some(i) = first_where(values, |&v| v.widened().is_none_or(|w| w > limit)) {
        return Err(out_of_range(what, i, values[i], limit));
    }
    const { assert!(std::mem::size_of::<S>() == std::mem::size_of::<S::Unsigned>()) };
    // SAFETY: `S::Unsigned` is u32 for i32 and u64 for i64, of the same size and alignment,
    // every bit pattern a valid value; the slice covers the same memory for the same lifetime,
    // read only.
    Ok(unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), values.len()) })
}

/// The index of the first of `values` that is `bad`, found on every core: slices of 256 Ki
/// values each tested whole, without a branch per value (rayon's `position_first` per value
/// took 1.1 s for a scale-20 graph's 31 M arcs here, a plain loop 30 ms).
fn first_where<T: Sync>(values: &[T], bad: impl Fn(&T) -> bool + Sync) -> Option<usize> {
    const SLICE: usize = 1 << 18;
    let slice = values
        .par_chunks(SLICE)
        .position_first(|slice| slice.iter().fold(false, |any, v| any | bad(v)))?;
    let start = slice * SLICE;
    values[start..].iter().position(&bad).map(|at| start + at)
}

/// `ValueError: invalid input: tails[3] is -1, outside 0..=9`.
fn out_of_range(what: &str, index: usize, value: impl std::fmt::Display, limit: u64) -> PyErr {
    invalid(format!("{what}[{index}] is {value}, outside 0..={limit}"))
}
