//! The front door: [`search`] searches a graph from one or more sources, whatever holds it
//! ([`SearchInput`]: an in-memory [`Graph`], a caller's arrays borrowed where they are, a
//! graph read from a file whose numbering the summaries keep), and returns every source's
//! summary and the answers [`SearchOptions::keep`] asks for; [`bfs`] and [`sssp`] are its
//! two problems on an in-memory graph. Each runs the strategy asked for (or the fastest for
//! the backend) as a [`thicket_core::Kernel`] whose sources go through the solve pipeline
//! ([`crate::sources`]), each answer checked by [`crate::verify`] when asked, and sums it up
//! as GAPBS reports a search.

use std::time::Instant;

use thicket_core::pipeline::Keep;
use thicket_core::{benchmark_kernel, Error, Measured, Result, RunOptions};

use crate::graph::Graph;
use crate::input::SearchInput;
use crate::report::SearchRun;
use crate::search::SearchKernel;
use crate::strategy::{Problem, SearchOptions, Strategy};

/// BFS on `graph` from each of `sources` (0-based ids) as `options` ask: [`search`] for
/// [`Problem::Bfs`].
///
/// ```
/// use thicket_graph::{bfs, Graph, SearchOptions, INFINITE};
///
/// // 0 -> 1 -> 2, and 3 on its own.
/// let graph = Graph::from_edges(4, &[(0, 1), (1, 2)])?;
/// let run = bfs(&graph, &[0, 1], &SearchOptions::default())?;
/// assert_eq!(run.output.paths[0].distances, [0, 1, 2, INFINITE]);
/// assert_eq!(run.output.paths[1].distances, [INFINITE, 0, 1, INFINITE]);
/// assert_eq!(run.output.paths[0].parents[2], 1);
/// assert!(bfs(&graph, &[4], &SearchOptions::default()).is_err());
/// # Ok::<(), thicket_core::Error>(())
/// ```
pub fn bfs(graph: &Graph, sources: &[u32], options: &SearchOptions) -> Result<Measured<SearchRun>> {
    search(graph, Problem::Bfs, sources, options)
}

/// Shortest paths by weight on `graph` (every arc weighs 1 where it has no weights) from each
/// of `sources` (0-based ids) as `options` ask: [`search`] for [`Problem::ShortestPaths`].
///
/// ```
/// use thicket_graph::{sssp, Graph, SearchOptions};
///
/// let graph = Graph::from_weighted_edges(3, &[(0, 1, 5.0), (1, 2, 1.0), (0, 2, 9.0)])?;
/// let run = sssp(&graph, &[0], &SearchOptions::default())?;
/// assert_eq!(run.output.paths[0].distances, [0, 5, 6]);
/// # Ok::<(), thicket_core::Error>(())
/// ```
pub fn sssp(
    graph: &Graph,
    sources: &[u32],
    options: &SearchOptions,
) -> Result<Measured<SearchRun>> {
    search(graph, Problem::ShortestPaths, sources, options)
}

/// Searches `input` for `problem` from each of `sources` (0-based ids) as `options` ask:
/// every source's summary in [`SearchRun::searches`] (numbering vertices as a file read
/// numbers them), the answers [`SearchOptions::keep`] asks for in [`SearchRun::paths`]. A
/// source that is not a vertex, an empty list, shortest paths on a file with a negative
/// weight, or every answer kept where they would not fit this machine's memory are an
/// [`Error::InvalidInput`] or [`Error::TooLarge`] before any search. A caller's arrays are
/// not copied: where the graph is simple (each vertex's heads increasing, no self-loop) the
/// searches read them as they are, else they run on the simplified graph. A run its caller
/// stopped ([`thicket_core::stoppable`]) returns the sources searched by then
/// ([`SearchRun::stopped`]).
///
/// ```
/// use thicket_graph::{search, GraphView, Problem, SearchInput, SearchOptions};
///
/// // 0 -> 1 -> 2, held by the caller.
/// let (offsets, targets) = (vec![0u64, 1, 2, 2], vec![1u32, 2]);
/// let graph = GraphView::from_csr(&offsets, &targets, None)?;
/// let input = SearchInput::from(graph).symmetric(false);
/// let run = search(input, Problem::Bfs, &[0], &SearchOptions::default())?;
/// assert_eq!(run.output.paths[0].distances, [0, 1, 2]);
/// # Ok::<(), thicket_core::Error>(())
/// ```
pub fn search<'a>(
    input: impl Into<SearchInput<'a>>,
    problem: Problem,
    sources: &[u32],
    options: &SearchOptions,
) -> Result<Measured<SearchRun>> {
    let input = input.into();
    check(&input, problem, sources, options.keep)?;
    let run = RunOptions {
        backend: Strategy::backend(problem, options.strategy, options.run.backend)?,
        ..options.run
    };
    // Built once, outside the timed searches (GAPBS's build time), where the graph is not
    // simple already (a bench's graphs are).
    let started = Instant::now();
    let simplified = if input.graph.is_simple() {
        None
    } else {
        Some(thicket_core::Workers::new(options.threads)?.install(|| input.graph.simplified()))
    };
    benchmark_kernel(
        &mut SearchKernel {
            input,
            simplified,
            problem,
            sources,
            options,
            reverse: None,
            likeliest: None,
            bfs_gpu: None,
            sssp_gpu: None,
            build_seconds: started.elapsed().as_secs_f64(),
        },
        &run,
    )
}

/// Refuses, before a search, what no search of `input` from `sources` can answer: no
/// vertex, no source, a source outside, a negative weight for shortest paths, and every
/// answer kept where they would not fit this machine's memory.
fn check(input: &SearchInput<'_>, problem: Problem, sources: &[u32], keep: Keep) -> Result<()> {
    let n = input.graph.vertices();
    if n == 0 {
        return Err(Error::InvalidInput("the graph has no vertices".into()));
    }
    if sources.is_empty() {
        return Err(Error::InvalidInput("no source to search from".into()));
    }
    if let Some(&bad) = sources.iter().find(|&&s| s as usize >= n) {
        let first = u64::from(input.first_id);
        return Err(Error::InvalidInput(format!(
            "source {} is not a vertex ({first}..={})",
            u64::from(bad) + first,
            n as u64 - 1 + first
        )));
    }
    if let (Problem::ShortestPaths, Some(at)) = (problem, input.negative_weight) {
        return Err(Error::InvalidInput(format!(
            "a negative weight at {at}: shortest paths need weights >= 0"
        )));
    }
    if keep == Keep::Every {
        // Per source and vertex: a 64-bit distance and a 32-bit parent.
        let bytes = (sources.len() as u64).checked_mul(n as u64 * 12);
        thicket_core::check_fits(
            &format!("the answers of {} sources on {n} vertices", sources.len()),
            bytes,
        )?;
    }
    Ok(())
}
