//! The ids a file gave its vertices where thicket renumbered them `0..n`: sparse numbers (a
//! SNAP crawl's ids) or names. Kept beside the graph so that sources are named, and answers
//! written, as the file names its vertices. Names are bytes, compared and written back as
//! the file has them (a file's encoding is its own business); messages show them escaped.

use std::borrow::Cow;
use std::fmt::Write;

/// A file's own id of every vertex, indexed by thicket's 0-based vertex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VertexIds {
    /// Whole numbers, increasing with the vertex (the file's order of ids kept).
    Numbers(Vec<u64>),
    /// Names, their bytes as the file has them, in the order the file first mentions them.
    Names(Vec<Box<[u8]>>),
}

impl VertexIds {
    /// How many vertices have an id.
    pub fn len(&self) -> usize {
        match self {
            VertexIds::Numbers(ids) => ids.len(),
            VertexIds::Names(names) => names.len(),
        }
    }

    /// Whether no vertex has an id.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file's id of vertex `v` (0-based, below [`VertexIds::len`]), its bytes as written
    /// ([`shown_id`] makes it text for a message).
    pub fn label(&self, v: u32) -> Cow<'_, [u8]> {
        match self {
            VertexIds::Numbers(ids) => Cow::Owned(ids[v as usize].to_string().into_bytes()),
            VertexIds::Names(names) => Cow::Borrowed(&names[v as usize]),
        }
    }

    /// The vertex the file calls `id` (its bytes), if any: a binary search among numbers, a
    /// scan among names (done for a few sources, not per arc).
    pub fn find(&self, id: &[u8]) -> Option<u32> {
        match self {
            VertexIds::Numbers(ids) => {
                let number: u64 = std::str::from_utf8(id).ok()?.parse().ok()?;
                ids.binary_search(&number).ok().map(|v| v as u32)
            }
            VertexIds::Names(names) => names.iter().position(|n| **n == *id).map(|v| v as u32),
        }
    }
}

/// The id `id` as a message shows it: its UTF-8 text as it is, with `\` doubled, control
/// characters escaped (`\u{1b}`) and each byte that is not UTF-8 as `\xNN` (`caf\xe9`, a
/// Latin-1 name); at most `units` characters and bytes of it (`...` marks a cut), or all.
pub fn shown_id(id: &[u8], units: Option<usize>) -> String {
    let mut text = String::with_capacity(id.len());
    let mut left = units.unwrap_or(usize::MAX);
    for chunk in id.utf8_chunks() {
        let chars = chunk.valid().chars().map(Ok);
        for unit in chars.chain(chunk.invalid().iter().map(|&b| Err(b))) {
            if left == 0 {
                text.push_str("...");
                return text;
            }
            left -= 1;
            match unit {
                Ok('\\') => text.push_str("\\\\"),
                Ok(c) if c.is_ascii_graphic() || c == ' ' => text.push(c),
                Ok(c) => text.extend(c.escape_debug()),
                Err(b) => {
                    // Writing to a String cannot fail.
                    let _ = write!(text, "\\x{b:02x}");
                }
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_found_and_labelled_both_ways() {
        let numbers = VertexIds::Numbers(vec![3, 17, 900]);
        assert_eq!(numbers.find(b"17"), Some(1));
        assert_eq!(numbers.find(b"18"), None);
        assert_eq!(numbers.find(b"x"), None);
        assert_eq!(numbers.find(b"1\xff"), None);
        assert_eq!(&*numbers.label(2), b"900");
        let names = VertexIds::Names(vec![b"alice"[..].into(), b"caf\xe9"[..].into()]);
        assert_eq!(names.find(b"caf\xe9"), Some(1));
        assert_eq!(names.find(b"caf\xe8"), None);
        assert_eq!(&*names.label(0), b"alice");
        assert_eq!((names.len(), names.is_empty()), (2, false));
    }

    #[test]
    fn names_are_shown_escaped_and_cut() {
        assert_eq!(shown_id(b"caf\xe9", None), "caf\\xe9");
        assert_eq!(shown_id("café".as_bytes(), None), "café");
        assert_eq!(shown_id(b"a\\b\x1b\"", None), "a\\\\b\\u{1b}\"");
        assert_eq!(shown_id(b"abcdef", Some(4)), "abcd...");
        assert_eq!(shown_id(b"abcd", Some(4)), "abcd");
        assert_eq!(shown_id(b"ab\xff\xfe\xfd", Some(3)), "ab\\xff...");
    }
}
