//! What makes bytes text for every text reader: lines of a bounded length, so that an endless
//! line (`/dev/zero`, `yes | tr -d '\n'`, a binary file read as text) is refused after a
//! stated number of bytes instead of filling the machine's memory, and a leading UTF-8 byte
//! order mark that is no part of the first line.

use crate::{Error, Result};

/// The longest line a text input may have: 64 MiB. No text format thicket reads has lines
/// anywhere near it, so a longer one is a binary file or an endless stream.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// The UTF-8 byte order mark some editors put before a text's first line.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading UTF-8 byte order mark (only one: a second is part of the text).
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// A check, as a text's bytes arrive, that none of its lines is longer than a bound: each
/// call sees the bytes read so far (the earlier ones as a prefix) and looks only past the
/// last line it found, so checking a whole file costs a few bytes per bound's worth of text.
#[derive(Debug, Clone)]
pub struct LineCheck {
    /// The longest line allowed, in bytes, without its line end.
    limit: usize,
    /// Where the line that is not yet known to be short starts.
    start: usize,
}

impl Default for LineCheck {
    fn default() -> LineCheck {
        LineCheck::with_limit(MAX_LINE_BYTES)
    }
}

impl LineCheck {
    /// A check of lines of at most [`MAX_LINE_BYTES`].
    pub fn new() -> LineCheck {
        LineCheck::default()
    }

    /// A check of lines of at most `limit` bytes.
    pub fn with_limit(limit: usize) -> LineCheck {
        LineCheck { limit, start: 0 }
    }

    /// Checks `bytes`, the text read so far (what an earlier call saw must be its prefix);
    /// `name` names the input in the error, which is bad input naming the line.
    pub fn check(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        // Every window of limit + 1 bytes from a line's start holds that line's end; the
        // last line end in it starts the next window, usually a few bytes from its end.
        while let Some(window) = bytes.get(self.start..self.start.saturating_add(self.limit + 1)) {
            match window.iter().rposition(|&b| b == b'\n') {
                Some(at) => self.start += at + 1,
                None => return Err(self.too_long(name, bytes)),
            }
        }
        Ok(())
    }

    /// The error for the line at `start`, numbered by the line ends before it.
    fn too_long(&self, name: &str, bytes: &[u8]) -> Error {
        let line = 1 + bytes[..self.start].iter().filter(|&&b| b == b'\n').count();
        let limit = match self.limit % (1 << 20) {
            0 => format!("{} MiB", self.limit >> 20),
            _ => format!("{} bytes", self.limit),
        };
        Error::InvalidInput(format!(
            "{name}:{line}: line {line} is longer than {limit} (a text input's lines are short; \
             is this a binary file?)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_past_the_limit_is_refused_naming_it_as_the_bytes_arrive() {
        let mut check = LineCheck::with_limit(4);
        assert!(check.check("t", b"ab\nabcd").is_ok());
        assert!(check.check("t", b"ab\nabcd\nxy").is_ok());
        let e = check.check("t", b"ab\nabcd\nxyzzy").unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.message(),
            "t:3: line 3 is longer than 4 bytes (a text input's lines are short; is this a \
             binary file?)"
        );
        let e = LineCheck::new()
            .check("<stdin>", &vec![0; MAX_LINE_BYTES + 1])
            .unwrap_err();
        assert!(
            e.message()
                .starts_with("<stdin>:1: line 1 is longer than 64 MiB"),
            "{e}"
        );
        assert!(LineCheck::new()
            .check("f", &vec![b'x'; MAX_LINE_BYTES])
            .is_ok());
    }

    #[test]
    fn one_byte_order_mark_is_dropped() {
        assert_eq!(without_bom(b"\xEF\xBB\xBF0 1\n"), b"0 1\n");
        assert_eq!(without_bom(b"\xEF\xBB\xBF\xEF\xBB\xBFx"), b"\xEF\xBB\xBFx");
        assert_eq!(without_bom(b"0 1\n"), b"0 1\n");
    }
}
