//! What a search reads: a graph ([`SearchInput`]) with what is known of it (its vertex
//! numbering in a file, whether it is its own reverse, a negative weight a file had).

use crate::graph::{Graph, GraphView};
use crate::io::{Loaded, VertexIds};

/// A graph to search and what is known of it: from an in-memory [`Graph`], a caller's
/// arrays borrowed where they are ([`GraphView`]), or a graph read from a file ([`Loaded`],
/// whose numbering the summaries and errors keep).
#[derive(Debug, Clone, Copy)]
pub struct SearchInput<'a> {
    pub(crate) graph: GraphView<'a>,
    /// The id vertex 0 has in summaries and errors.
    pub(crate) first_id: u32,
    /// Whether the graph is its own reverse.
    pub(crate) symmetric: bool,
    /// Where the file had a negative weight (read as 0), which shortest paths refuse.
    pub(crate) negative_weight: Option<&'a str>,
    /// The file's own ids, where it had sparse ones.
    pub(crate) ids: Option<&'a VertexIds>,
}

impl<'a> SearchInput<'a> {
    /// `symmetric`: the caller knows every arc's reverse is an arc too, so that a BFS reads
    /// the graph as its own reverse instead of building one.
    pub fn symmetric(self, symmetric: bool) -> SearchInput<'a> {
        SearchInput { symmetric, ..self }
    }

    /// The number summaries give vertex `v`: the file's own where it numbers vertices
    /// sparsely, else `v` counted from the file's first id (a named vertex by its index).
    pub(crate) fn id(&self, v: u32) -> u64 {
        match self.ids {
            Some(VertexIds::Numbers(ids)) => ids[v as usize],
            _ => u64::from(v) + u64::from(self.first_id),
        }
    }
}

impl<'a> From<GraphView<'a>> for SearchInput<'a> {
    fn from(graph: GraphView<'a>) -> SearchInput<'a> {
        SearchInput {
            graph,
            first_id: 0,
            symmetric: false,
            negative_weight: None,
            ids: None,
        }
    }
}

impl<'a> From<&'a Graph> for SearchInput<'a> {
    fn from(graph: &'a Graph) -> SearchInput<'a> {
        SearchInput::from(graph.view())
    }
}

impl<'a> From<&'a Loaded> for SearchInput<'a> {
    fn from(loaded: &'a Loaded) -> SearchInput<'a> {
        SearchInput {
            graph: loaded.graph.view(),
            first_id: loaded.first_id,
            symmetric: loaded.symmetric,
            negative_weight: loaded.negative_weight.as_deref(),
            ids: loaded.ids.as_ref(),
        }
    }
}
