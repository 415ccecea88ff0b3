//! The ids a file gave its vertices where thicket renumbered them `0..n`: sparse numbers (a
//! SNAP crawl's ids) or names. Kept beside the graph so that sources are named, and answers
//! written, as the file names its vertices.

use std::borrow::Cow;

/// A file's own id of every vertex, indexed by thicket's 0-based vertex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VertexIds {
    /// Whole numbers, increasing with the vertex (the file's order of ids kept).
    Numbers(Vec<u64>),
    /// Names, in the order the file first mentions them.
    Names(Vec<String>),
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

    /// The file's id of vertex `v` (0-based, below [`VertexIds::len`]).
    pub fn label(&self, v: u32) -> Cow<'_, str> {
        match self {
            VertexIds::Numbers(ids) => Cow::Owned(ids[v as usize].to_string()),
            VertexIds::Names(names) => Cow::Borrowed(&names[v as usize]),
        }
    }

    /// The vertex the file calls `id`, if any: a binary search among numbers, a scan among
    /// names (done for a few sources, not per arc).
    pub fn find(&self, id: &str) -> Option<u32> {
        match self {
            VertexIds::Numbers(ids) => {
                let number: u64 = id.parse().ok()?;
                ids.binary_search(&number).ok().map(|v| v as u32)
            }
            VertexIds::Names(names) => names.iter().position(|n| n == id).map(|v| v as u32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_found_and_labelled_both_ways() {
        let numbers = VertexIds::Numbers(vec![3, 17, 900]);
        assert_eq!(numbers.find("17"), Some(1));
        assert_eq!(numbers.find("18"), None);
        assert_eq!(numbers.find("x"), None);
        assert_eq!(numbers.label(2), "900");
        let names = VertexIds::Names(vec!["alice".into(), "bob".into()]);
        assert_eq!(names.find("bob"), Some(1));
        assert_eq!(names.label(0), "alice");
        assert_eq!((names.len(), names.is_empty()), (2, false));
    }
}
