//! The messages between the master and the workers, with their tags. Payloads are JSON bytes
//! (a few per batch, against batches of seconds to minutes), except a batch number.

use serde_json::{json, Value};
use thicket_core::ledger::BatchRecord;
use thicket_core::{Error, Result};

/// Worker to master: ready for a first batch; the payload is the worker's ledger spec.
pub const READY: i32 = 1;
/// Worker to master: a finished batch (and a request for the next).
pub const RESULT: i32 = 2;
/// Worker to master: the worker cannot go on; the payload is the error.
pub const FAILED: i32 = 3;
/// Master to worker: count this batch (one `u64`).
pub const WORK: i32 = 4;
/// Master to worker: no more batches; leave.
pub const STOP: i32 = 5;

/// A finished batch as bytes.
pub fn encode_result(record: &BatchRecord) -> Vec<u8> {
    json!({
        "id": record.id,
        "count": record.count.to_string(),
        "backend": record.backend,
        "device": record.device,
        "seconds": record.seconds,
    })
    .to_string()
    .into_bytes()
}

/// A finished batch from `rank`'s bytes, its check values computed afresh.
pub fn decode_result(rank: i32, bytes: &[u8]) -> Result<BatchRecord> {
    let bad = || Error::Verification(format!("rank {rank} sent a malformed batch result"));
    let value: Value = serde_json::from_slice(bytes).map_err(|_| bad())?;
    let count: u128 = value["count"]
        .as_str()
        .and_then(|c| c.parse().ok())
        .ok_or_else(bad)?;
    Ok(BatchRecord::new(
        value["id"].as_u64().ok_or_else(bad)?,
        count,
        value["backend"].as_str().ok_or_else(bad)?,
        value["device"].as_str().ok_or_else(bad)?,
        value["seconds"].as_f64().ok_or_else(bad)?,
    ))
}

/// An error as bytes: its kind and message.
pub fn encode_error(error: &Error) -> Vec<u8> {
    let (kind, message) = match error {
        Error::InvalidInput(m) => ("invalid", m.clone()),
        Error::Unavailable(m) => ("unavailable", m.clone()),
        Error::Gpu(m) => ("gpu", m.clone()),
        Error::Overflow(m) => ("overflow", m.clone()),
        other => ("other", other.to_string()),
    };
    json!({ "kind": kind, "message": message })
        .to_string()
        .into_bytes()
}

/// The error `rank` sent, its message naming the rank.
pub fn decode_error(rank: i32, bytes: &[u8]) -> Error {
    let value: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let message = format!(
        "rank {rank}: {}",
        value["message"]
            .as_str()
            .unwrap_or("failed without a message")
    );
    match value["kind"].as_str() {
        Some("invalid") => Error::InvalidInput(message),
        Some("unavailable") => Error::Unavailable(message),
        Some("gpu") => Error::Gpu(message),
        Some("overflow") => Error::Overflow(message),
        _ => Error::Verification(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_and_errors_survive_the_wire() {
        let record = BatchRecord::new(7, u128::MAX - 3, "cuda", "rank 1 on a: H200", 2.5);
        assert_eq!(decode_result(1, &encode_result(&record)).unwrap(), record);
        assert!(decode_result(1, b"{}").is_err());
        let error = decode_error(3, &encode_error(&Error::Unavailable("no GPU".into())));
        assert_eq!(error.to_string(), "backend unavailable: rank 3: no GPU");
        assert_eq!(decode_error(2, b"garbage").exit_code(), 1);
    }
}
