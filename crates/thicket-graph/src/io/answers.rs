//! Answers written as text: one `source vertex distance parent` row per vertex, every id as
//! the file names it, `source vertex unreachable` where the search did not reach the vertex
//! and `-` for the source's parent; the rows of a source formatted on every core in slices.

use std::io::Write;

use rayon::prelude::*;

use super::text_out::push_number;
use super::{Loaded, VertexIds};
use crate::report::SourcePaths;
use crate::INFINITE;
use crate::UNREACHED;

/// Vertices per slice formatted on one thread.
const SLICE: usize = 1 << 18;

impl Loaded {
    /// Appends the file's id of vertex `v` to `out`, its bytes as the file has them.
    pub fn push_label(&self, out: &mut Vec<u8>, v: u32) {
        match &self.ids {
            Some(VertexIds::Numbers(ids)) => push_number(out, ids[v as usize]),
            Some(VertexIds::Names(names)) => out.extend_from_slice(&names[v as usize]),
            None => push_number(out, u64::from(v) + u64::from(self.first_id)),
        }
    }
}

/// Writes the rows of `paths`, a search of `loaded`, to `out`.
pub fn write_paths(
    out: &mut dyn Write,
    loaded: &Loaded,
    paths: &SourcePaths,
) -> std::io::Result<()> {
    let mut source = Vec::new();
    loaded.push_label(&mut source, paths.source);
    source.push(b' ');
    let n = paths.distances.len();
    let batch = rayon::current_num_threads().max(1) * 2;
    let starts: Vec<usize> = (0..n).step_by(SLICE).collect();
    for group in starts.chunks(batch) {
        let texts: Vec<Vec<u8>> = group
            .par_iter()
            .map(|&start| {
                let mut b = Vec::with_capacity(SLICE * 24);
                for v in start..(start + SLICE).min(n) {
                    b.extend_from_slice(&source);
                    loaded.push_label(&mut b, v as u32);
                    match (paths.distances[v], paths.parents.get(v).copied()) {
                        (INFINITE, _) => b.extend_from_slice(b" unreachable"),
                        (d, parent) => {
                            b.push(b' ');
                            push_number(&mut b, d);
                            b.push(b' ');
                            match parent {
                                Some(p) if p != UNREACHED => loaded.push_label(&mut b, p),
                                _ => b.push(b'-'),
                            }
                        }
                    }
                    b.push(b'\n');
                }
                b
            })
            .collect();
        for text in texts {
            out.write_all(&text)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;

    #[test]
    fn rows_name_vertices_as_the_file_does() {
        let g = Graph::from_edges(3, &[(0, 1)]).unwrap();
        let mut loaded = Loaded::numbered(g, 1, false);
        let paths = SourcePaths {
            source: 0,
            distances: vec![0, 1, INFINITE],
            parents: vec![UNREACHED, 0, UNREACHED],
        };
        let mut out = Vec::new();
        write_paths(&mut out, &loaded, &paths).unwrap();
        assert_eq!(out, b"1 1 0 -\n1 2 1 1\n1 3 unreachable\n");
        loaded.ids = Some(VertexIds::Names(vec![
            b"a"[..].into(),
            b"b\xe9"[..].into(),
            b"c"[..].into(),
        ]));
        out.clear();
        write_paths(&mut out, &loaded, &paths).unwrap();
        assert_eq!(out, b"a a 0 -\na b\xe9 1 a\na c unreachable\n");
    }
}
