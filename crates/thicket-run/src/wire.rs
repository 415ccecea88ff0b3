//! The messages between the master and the workers, with their tags. Payloads are JSON bytes
//! (a few per batch, against batches of seconds to minutes).

use serde_json::{json, Value};
use thicket_core::{Error, Result};

use crate::ledger::BatchRecord;

/// Worker to master: ready for a first batch; the payload is the worker's plan spec.
pub const READY: i32 = 1;
/// Worker to master: a finished batch (and a request for the next).
pub const RESULT: i32 = 2;
/// Worker to master: the worker cannot go on; the payload is the error.
pub const FAILED: i32 = 3;
/// Master to worker: run this batch from this context.
pub const WORK: i32 = 4;
/// Master to worker: no more batches; leave.
pub const STOP: i32 = 5;

/// A batch to run and the context it starts from, as bytes.
pub fn encode_work(id: u64, context: &Value) -> Vec<u8> {
    json!({ "id": id, "context": context })
        .to_string()
        .into_bytes()
}

/// The batch and context of a work message.
pub fn decode_work(bytes: &[u8]) -> Result<(u64, Value)> {
    let bad = || Error::Verification("the master sent a malformed work message".into());
    let mut value: Value = serde_json::from_slice(bytes).map_err(|_| bad())?;
    let id = value["id"].as_u64().ok_or_else(bad)?;
    Ok((id, value["context"].take()))
}

/// A finished batch as bytes.
pub fn encode_result(record: &BatchRecord) -> Vec<u8> {
    json!({
        "id": record.id,
        "count": record.count.to_string(),
        "backend": record.backend,
        "device": record.device,
        "seconds": record.seconds,
        "detail": record.detail,
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
    let detail = match &value["detail"] {
        Value::Null => None,
        Value::String(detail) => Some(detail.clone()),
        _ => return Err(bad()),
    };
    Ok(BatchRecord::new(
        value["id"].as_u64().ok_or_else(bad)?,
        count,
        value["backend"].as_str().ok_or_else(bad)?,
        value["device"].as_str().ok_or_else(bad)?,
        value["seconds"].as_f64().ok_or_else(bad)?,
    )
    .with_detail(detail))
}

/// An error as bytes: its kind and message.
pub fn encode_error(error: &Error) -> Vec<u8> {
    json!({ "kind": error.kind(), "message": error.message() })
        .to_string()
        .into_bytes()
}

/// The error `rank` sent, of the kind it had there, its message naming the rank.
pub fn decode_error(rank: i32, bytes: &[u8]) -> Error {
    let value: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let message = format!(
        "rank {rank}: {}",
        value["message"]
            .as_str()
            .unwrap_or("failed without a message")
    );
    Error::from_kind(value["kind"].as_str().unwrap_or("verification"), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_work_and_errors_survive_the_wire() {
        let record = BatchRecord::new(7, u128::MAX - 3, "cuda", "rank 1 on a: H200", 2.5)
            .with_detail(Some("{\"cost\":5}".into()));
        assert_eq!(decode_result(1, &encode_result(&record)).unwrap(), record);
        assert!(decode_result(1, b"{}").is_err());
        let context = json!({"cost": 12, "tour": [0, 2, 1]});
        assert_eq!(
            decode_work(&encode_work(9, &context)).unwrap(),
            (9, context)
        );
        let error = decode_error(3, &encode_error(&Error::Unavailable("no GPU".into())));
        assert_eq!(error.to_string(), "backend unavailable: rank 3: no GPU");
        for error in [
            Error::InvalidInput("n".into()),
            Error::Gpu("launch".into()),
            Error::Overflow("sum".into()),
            Error::Verification("tour".into()),
            Error::Ledger("locked".into()),
            Error::Io(std::io::Error::other("disk")),
        ] {
            let decoded = decode_error(2, &encode_error(&error));
            assert_eq!(decoded.kind(), error.kind(), "{error}");
            assert_eq!(decoded.exit_code(), error.exit_code());
        }
        assert_eq!(decode_error(2, b"garbage").exit_code(), 1);
    }
}
