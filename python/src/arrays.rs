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
    /// The elements as `u32`, borrowed if they are; any outside `0..=limit` is a `ValueError`
    /// naming `what`, its index and its value.
    pub fn as_u32(&self, what: &str, limit: u64) -> PyResult<Cow<'_, [u32]>> {
        match self {
            Ints::U32(a) => {
                let values = slice(a, what)?;
                if let Some(i) = values.iter().position(|&v| u64::from(v) > limit) {
                    return Err(out_of_range(what, i, values[i], limit));
                }
                Ok(Cow::Borrowed(values))
            }
            // No u32 outside 0..=u32::MAX: the bound keeps the cast exact.
            _ => Ok(Cow::Owned(self.converted(
                what,
                limit.min(u64::from(u32::MAX)),
                |w| w as u32,
            )?)),
        }
    }

    /// The elements as an owned `Vec<u32>` (a graph's arcs, which the library takes by value),
    /// copied or narrowed on every core: a scale-20 graph's 33.6 M arcs are 134 MB.
    pub fn to_u32(&self, what: &str, limit: u64) -> PyResult<Vec<u32>> {
        Ok(match self.as_u32(what, limit)? {
            Cow::Borrowed(values) => {
                let mut owned = Vec::with_capacity(values.len());
                owned.par_extend(values.par_iter().copied());
                owned
            }
            Cow::Owned(values) => values,
        })
    }

    /// The elements as `u64`, each in `0..=limit` (a `ValueError` naming the first that is
    /// not).
    pub fn to_u64(&self, what: &str, limit: u64) -> PyResult<Vec<u64>> {
        self.converted(what, limit, |w| w)
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
            if let Some(i) = values
                .par_iter()
                .position_first(|&v| widen(v).is_none_or(|w| w > limit))
            {
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

/// `ValueError: invalid input: tails[3] is -1, outside 0..=9`.
fn out_of_range(what: &str, index: usize, value: impl std::fmt::Display, limit: u64) -> PyErr {
    invalid(format!("{what}[{index}] is {value}, outside 0..={limit}"))
}
