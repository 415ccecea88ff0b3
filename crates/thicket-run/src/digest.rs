//! Row digests: every batch a ledger records carries a SHA-256 digest of its row (count, check
//! values, backend, device, seconds and the problem's detail), bound to the ledger's identity
//! (its problem, plan, shard and stored input) and to the batch's number. Whatever reads a
//! ledger (a resumed run, `status`, `verify`, `merge`) recomputes it, so a row edited outside
//! thicket (a price of a book, an ATSP tour, a count whose check values were fixed up too), a
//! detail deleted, or a row copied in from another ledger is refused as altered.
//!
//! The digest is no signature: it has no secret, so whoever recomputes it can forge a row. It
//! makes every edit that does not know about it, and every corruption, fail the way a wrong
//! answer does.

use sha2::{Digest, Sha256};

use crate::ledger::{BatchRecord, LedgerSpec};

/// What a ledger's row digests are bound to: a digest of its identity, computed once when the
/// ledger is opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seal {
    identity: [u8; 32],
}

impl Seal {
    /// The seal of the ledger `spec` (the stored one, input included: a run may not change it).
    pub(crate) fn of(spec: &LedgerSpec) -> Seal {
        let mut fields = Fields::new(b"thicket ledger identity v1");
        fields.bytes(spec.problem.as_bytes());
        fields.bytes(&spec.batches.to_le_bytes());
        fields.bytes(&spec.shard.0.to_le_bytes());
        fields.bytes(&spec.shard.1.to_le_bytes());
        fields.optional(spec.input.as_deref());
        Seal {
            identity: fields.finish(),
        }
    }

    /// The digest of `record` in this ledger, as lowercase hex.
    pub(crate) fn digest(&self, record: &BatchRecord) -> String {
        let mut fields = Fields::new(b"thicket ledger batch v1");
        fields.bytes(&self.identity);
        fields.bytes(&record.id.to_le_bytes());
        fields.bytes(&record.count.to_le_bytes());
        fields.bytes(&[record.mod13, record.mod15]);
        fields.bytes(record.backend.as_bytes());
        fields.bytes(record.device.as_bytes());
        // SQLite stores -0.0 as 0: adding 0.0 makes both the same bits (no batch takes
        // negative time; the sum only guards against the sign of a zero).
        fields.bytes(&(record.seconds + 0.0).to_bits().to_le_bytes());
        fields.optional(record.detail.as_deref());
        fields.finish().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// SHA-256 over fields, each preceded by its length, so that no two different rows give the
/// same bytes (a detail `"ab"` with a device `"c"` against `"a"` and `"bc"`).
struct Fields(Sha256);

impl Fields {
    fn new(domain: &[u8]) -> Fields {
        let mut fields = Fields(Sha256::new());
        fields.bytes(domain);
        fields
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }

    /// A field that may be absent: absent and empty differ.
    fn optional(&mut self, text: Option<&str>) {
        match text {
            None => self.bytes(&[0]),
            Some(text) => {
                self.bytes(&[1]);
                self.bytes(text.as_bytes());
            }
        }
    }

    fn finish(self) -> [u8; 32] {
        self.0.finalize().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(input: Option<&str>) -> LedgerSpec {
        LedgerSpec {
            problem: "queens n=9".into(),
            batches: 10,
            shard: (0, 1),
            input: input.map(str::to_string),
        }
    }

    #[test]
    fn every_field_and_the_identity_change_the_digest() {
        let seal = Seal::of(&spec(None));
        let record = BatchRecord::new(3, 1234, "cpu", "2 CPU threads", 0.5)
            .with_detail(Some("1.5,0.25".into()));
        let digest = seal.digest(&record);
        assert_eq!(digest.len(), 64);
        assert_eq!(seal.digest(&record.clone()), digest);
        let edits: [fn(&mut BatchRecord); 8] = [
            |r| r.id = 4,
            |r| r.count = 1235,
            |r| r.mod13 = 0,
            |r| r.backend = "cuda".into(),
            |r| r.device = "2 CPU threads ".into(),
            |r| r.seconds = 0.6,
            |r| r.detail = Some("1.5,0.26".into()),
            |r| r.detail = None,
        ];
        for (k, edit) in edits.iter().enumerate() {
            let mut edited = record.clone();
            edit(&mut edited);
            assert_ne!(seal.digest(&edited), digest, "edit {k}");
        }
        for other in [spec(Some("")), spec(Some("x"))] {
            assert_ne!(Seal::of(&other).digest(&record), digest);
        }
        let mut zero = record.clone();
        zero.seconds = 0.0;
        let mut negative_zero = record;
        negative_zero.seconds = -0.0;
        assert_eq!(seal.digest(&zero), seal.digest(&negative_zero));
    }
}
