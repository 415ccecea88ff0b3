//! BFS on the CPU: a serial queue (the reference), and a multicore direction-optimizing
//! search (Beamer, Asanović and Patterson, SC 2012): top-down levels expand the frontier in
//! parallel chunks, bottom-up levels let every unvisited vertex look for a parent among its
//! in-neighbours, and the search switches between them on the frontier's edges and size.
//!
//! The multicore search keeps one 32-bit slot per vertex (its parent, or its degree until
//! found) and records which vertices each level found (a queue's ranges and bitmaps), from
//! which the levels follow after the search ([`Tree::levels`]).

mod frontier;
mod steps;

use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::graph::GraphView;
use crate::UNREACHED;
use frontier::{Buffer, Queue};
use steps::Slots;

const _: () = assert!(std::mem::align_of::<AtomicU32>() == std::mem::align_of::<u32>());

/// `words` seen as atomics, for the threads of a search that write disjoint parts of it or
/// claim its entries by compare-and-swap.
fn atomic(words: &mut [u32]) -> &[AtomicU32] {
    // SAFETY: AtomicU32 has the size and bit validity of u32 and (asserted above) its
    // alignment; the exclusive borrow keeps every other access away while the view lives.
    unsafe { &*(words as *mut [u32] as *const [AtomicU32]) }
}

/// Beamer's α: bottom-up once the frontier's edges pass the unexplored edges / α.
pub const ALPHA: u64 = 15;
/// Beamer's β: top-down again once the frontier has fewer than n / β vertices and shrinks.
pub const BETA: u64 = 18;

/// A BFS answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// Each vertex's level ([`UNREACHED`] where none).
    pub levels: Vec<u32>,
    /// Each vertex's parent ([`UNREACHED`] for the source and unreached vertices).
    pub parents: Vec<u32>,
    /// Levels searched bottom-up.
    pub bottom_up_levels: u32,
}

/// A serial BFS from `source` with a FIFO queue (on an owned graph or a view: the generators'
/// tests search what they make).
pub fn serial<'g>(graph: impl Into<GraphView<'g>>, source: u32) -> Search {
    let graph = graph.into();
    let n = graph.vertices();
    let mut levels = vec![UNREACHED; n];
    let mut parents = vec![UNREACHED; n];
    let mut queue = std::collections::VecDeque::with_capacity(n);
    levels[source as usize] = 0;
    queue.push_back(source);
    while let Some(u) = queue.pop_front() {
        let next = levels[u as usize] + 1;
        for &v in graph.neighbours(u) {
            if levels[v as usize] == UNREACHED {
                levels[v as usize] = next;
                parents[v as usize] = u;
                queue.push_back(v);
            }
        }
    }
    Search {
        levels,
        parents,
        bottom_up_levels: 0,
    }
}

/// A direction-optimizing BFS from `source` on the current rayon pool; `reverse` is the
/// graph of in-neighbours (the graph itself where it is symmetric), `None`: top-down only.
/// (A caller that searches one graph many times builds the [`InNeighbours`] once and calls
/// [`tree`], as the front door does; this is the tests' shorthand.)
#[cfg(test)]
pub fn direction_optimizing(
    graph: GraphView<'_>,
    reverse: Option<GraphView<'_>>,
    source: u32,
) -> Search {
    let likeliest = reverse.map(likeliest_parents);
    let in_neighbours = reverse
        .zip(likeliest.as_deref())
        .map(|(graph, likeliest)| InNeighbours::new(graph, likeliest));
    tree(graph, in_neighbours.as_ref(), source, Vec::new())
        .into_search_and_room()
        .0
}

/// Each vertex's in-neighbour of the highest in-degree in `reverse` (the graph of
/// in-neighbours; the lowest id among equals), [`UNREACHED`] where it has none: the one most
/// likely to be on a bottom-up level's frontier (the hubs are found early and on the widest
/// levels). Built once per graph, outside the searches, as the graph itself is.
pub fn likeliest_parents(reverse: GraphView<'_>) -> Vec<u32> {
    (0..reverse.vertices() as u32)
        .into_par_iter()
        .with_min_len(1024)
        .map(|v| {
            reverse
                .neighbours(v)
                .iter()
                .copied()
                .max_by_key(|&u| (reverse.degree(u), std::cmp::Reverse(u)))
                .unwrap_or(UNREACHED)
        })
        .collect()
}

/// What a bottom-up level reads: each vertex's in-neighbours, and apart from them the
/// likeliest parent of each ([`likeliest_parents`]), which it tries first.
#[derive(Debug, Clone, Copy)]
pub struct InNeighbours<'g> {
    graph: GraphView<'g>,
    likeliest: &'g [u32],
}

impl<'g> InNeighbours<'g> {
    /// `graph`'s in-neighbours (`graph` itself where it is symmetric) with their
    /// [`likeliest_parents`].
    ///
    /// # Panics
    /// If `likeliest` does not hold one entry per vertex of `graph`.
    pub fn new(graph: GraphView<'g>, likeliest: &'g [u32]) -> InNeighbours<'g> {
        assert_eq!(
            likeliest.len(),
            graph.vertices(),
            "one likeliest parent per vertex"
        );
        InNeighbours { graph, likeliest }
    }
}

/// A search's answer as the search leaves it, as GAPBS's BFS leaves its parent array: each
/// vertex's slot (its parent, or a tag at or above the vertex count for the source and the
/// vertices not found), and the vertices of the levels that went through the queue, from
/// which [`Tree::into_search_and_room`] makes the parents and the levels.
#[derive(Debug)]
pub struct Tree {
    /// Levels searched bottom-up.
    pub bottom_up_levels: u32,
    slots: Vec<u32>,
    source: u32,
    /// The vertices of the top-down levels, and of the bottom-up ones the search turned
    /// back from, in the order they entered the queue.
    order: Vec<u32>,
    /// What level 1, 2, ... found.
    found: Vec<Found>,
}

/// The vertices one level found.
#[derive(Debug)]
enum Found {
    /// These entries of the queue.
    Queue(Range<usize>),
    /// A bottom-up level's, recorded nowhere: each is a level below its parent.
    BottomUp,
}

impl Tree {
    /// Each vertex's level ([`UNREACHED`] where none), from `parents` (as
    /// [`steps::into_parents`] leaves them): the queue's levels as recorded, each vertex of a
    /// bottom-up level one below its parent.
    fn levels(&self, parents: &[u32]) -> Vec<u32> {
        let levels: Vec<AtomicU32> = (0..parents.len())
            .into_par_iter()
            .map(|_| AtomicU32::new(UNREACHED))
            .collect();
        levels[self.source as usize].store(0, Ordering::Relaxed);
        for (level, found) in (1..).zip(&self.found) {
            if let Found::Queue(range) = found {
                self.order[range.clone()]
                    .par_iter()
                    .for_each(|&v| levels[v as usize].store(level, Ordering::Relaxed));
            }
        }
        if self
            .found
            .iter()
            .any(|found| matches!(found, Found::BottomUp))
        {
            // A parent of a bottom-up level's vertex is of the level above: of the queue's, or
            // a bottom-up level's, whose parent is in turn one level up (a walk of at most as
            // many steps as there were bottom-up levels).
            (0..parents.len()).into_par_iter().for_each(|v| {
                if parents[v] == UNREACHED || levels[v].load(Ordering::Relaxed) != UNREACHED {
                    return;
                }
                let mut up = 1;
                let mut above = parents[v] as usize;
                while levels[above].load(Ordering::Relaxed) == UNREACHED {
                    up += 1;
                    above = parents[above] as usize;
                }
                let level = levels[above].load(Ordering::Relaxed) + up;
                levels[v].store(level, Ordering::Relaxed);
            });
        }
        levels.into_iter().map(AtomicU32::into_inner).collect()
    }

    /// The search (each vertex's parent, [`UNREACHED`] for the source and the vertices not
    /// found, and level), and the room its queue took, for the caller's next [`tree`].
    pub fn into_search_and_room(mut self) -> (Search, Vec<u32>) {
        let mut parents = std::mem::take(&mut self.slots);
        steps::into_parents(&mut parents, self.source);
        let search = Search {
            levels: self.levels(&parents),
            parents,
            bottom_up_levels: self.bottom_up_levels,
        };
        (search, self.order)
    }
}

/// A direction-optimizing BFS from `source` on the current rayon pool, up to its tree (what
/// GAPBS's BFS returns and times); `reverse` as for `direction_optimizing`.
///
/// Top-down levels take the frontier from a queue (each thread appending what it finds in
/// batches) and claim each vertex in its one slot of the parent array, which held its degree
/// until then; bottom-up levels keep the frontier as bitmaps (one bit per vertex, so that the
/// in-neighbour tests stay in cache), each task owning whole words of the next bitmap. The
/// switches are Beamer's: bottom-up once the edges out of the frontier pass the unexplored
/// edges / [`ALPHA`], top-down again once the frontier shrinks below n / [`BETA`].
///
/// The queue lives in `room` where it has one slot per vertex (whatever they hold: a caller
/// that searches again passes back [`Tree::into_search_and_room`]'s), else in a new zeroed
/// vector: zeroing the room of a million vertices again cost a tenth of a 16-thread search at
/// Kronecker scale 20 (docs/benchmarks.md, "Graphs").
pub fn tree(
    graph: GraphView<'_>,
    reverse: Option<&InNeighbours>,
    source: u32,
    room: Vec<u32>,
) -> Tree {
    let n = graph.vertices();
    let mut parents = steps::unvisited(graph, source);
    let slots = Slots::new(&mut parents);
    // New room is zeroed, not filled: the pages past the last vertex queued are never touched.
    let mut order = if room.len() == n { room } else { vec![0u32; n] };
    let mut queue = Queue::new(&mut order);
    Buffer::new(&queue).push(source);
    queue.slide();
    let mut found = Vec::new();
    let mut scout = graph.degree(source);
    let mut unexplored = graph.arcs();
    let mut bottom_up_levels = 0;
    let mut bitmaps = None;
    while queue.len() > 0 {
        match reverse {
            Some(reverse) if scout > unexplored / ALPHA => {
                // Two bitmaps, the front and the next level, in turn (a bottom-up step writes
                // every word of its next level); the front is clear only when new.
                let already_clear = bitmaps.is_none();
                let (front, next) = bitmaps.get_or_insert_with(|| {
                    let front = frontier::bitmap(n);
                    (front, frontier::bitmap(n))
                });
                frontier::window_to_bitmap(&queue, front, already_clear);
                let mut awake = queue.len() as u64;
                queue.slide();
                for step in 0.. {
                    let previous = awake;
                    awake = steps::bottom_up(reverse, &slots, front, next);
                    bottom_up_levels += 1;
                    std::mem::swap(front, next);
                    // The first step's front came from the queue; the others are levels.
                    if step > 0 {
                        found.push(Found::BottomUp);
                    }
                    if awake == 0 || (awake < previous && awake <= n as u64 / BETA) {
                        break;
                    }
                }
                queue.append_bitmap(front);
                found.push(Found::Queue(queue.slide()));
                // The frontier is small now: the next level goes top-down whatever its edges,
                // and counts the edges of what it finds.
                scout = 1;
            }
            _ => {
                unexplored = unexplored.saturating_sub(scout);
                scout = steps::top_down(graph, &queue, &slots);
                found.push(Found::Queue(queue.slide()));
            }
        }
    }
    Tree {
        slots: parents,
        bottom_up_levels,
        source,
        order,
        found,
    }
}

#[cfg(test)]
mod tests {
    use super::steps::{ARCS_PER_TASK, SPLIT_BY_VERTICES};
    use super::*;
    use crate::generate::Generator;
    use crate::graph::Graph;

    #[test]
    fn direction_optimizing_levels_equal_the_serial_ones() {
        for (generator, seed) in [
            (
                Generator::Kronecker {
                    scale: 12,
                    edge_factor: 16,
                },
                1,
            ),
            (Generator::Grid { rows: 40, cols: 50 }, 2),
            (
                Generator::Uniform {
                    vertices: 3000,
                    degree: 3,
                },
                3,
            ),
        ] {
            let g = generator.generate(seed).unwrap();
            let pool = thicket_core::pool(3).unwrap();
            for source in [0, 17, 999] {
                let want = serial(&g, source);
                let got = pool.install(|| direction_optimizing(g.view(), Some(g.view()), source));
                assert_eq!(got.levels, want.levels, "{generator:?} from {source}");
                crate::verify::bfs(g.view(), source, &got.levels, &got.parents).unwrap();
                let top_down_only = direction_optimizing(g.view(), None, source);
                assert_eq!(top_down_only.levels, want.levels);
                assert_eq!(top_down_only.bottom_up_levels, 0);
            }
        }
    }

    #[test]
    fn a_search_in_the_room_of_the_last_one_equals_the_serial_one() {
        let g = Generator::Kronecker {
            scale: 11,
            edge_factor: 8,
        }
        .generate(5)
        .unwrap();
        let likeliest = likeliest_parents(g.view());
        let in_neighbours = InNeighbours::new(g.view(), &likeliest);
        let mut room = Vec::new();
        for source in [3, 0, 1000, 3] {
            let (got, spare) =
                tree(g.view(), Some(&in_neighbours), source, room).into_search_and_room();
            assert_eq!(spare.len(), g.vertices());
            room = spare;
            assert_eq!(got.levels, serial(&g, source).levels, "from {source}");
            crate::verify::bfs(g.view(), source, &got.levels, &got.parents).unwrap();
        }
    }

    #[test]
    fn the_likeliest_parent_is_the_in_neighbour_of_the_highest_in_degree() {
        // In-degrees 0, 2, 2, 3. Vertex 3's in-neighbours are 0, 1 and 2: 1, the lower of the
        // two tied; 1's and 2's include 3, the highest; 0 has none.
        let arcs = [
            (0, 3, 1),
            (1, 3, 1),
            (2, 3, 1),
            (3, 1, 1),
            (3, 2, 1),
            (2, 1, 1),
            (1, 2, 1),
        ];
        let g = Graph::from_arcs(4, &arcs, false).unwrap();
        let reverse = g.reversed();
        assert_eq!(likeliest_parents(reverse.view()), [UNREACHED, 3, 3, 1]);
        let got = direction_optimizing(g.view(), Some(reverse.view()), 0);
        assert_eq!(got.levels, serial(&g, 0).levels);
        crate::verify::bfs(g.view(), 0, &got.levels, &got.parents).unwrap();
    }

    #[test]
    fn top_down_levels_split_by_vertices_equal_the_serial_ones() {
        let g = Generator::Uniform {
            vertices: 30_000,
            degree: 3,
        }
        .generate(4)
        .unwrap();
        let got = tree(g.view(), None, 0, Vec::new());
        let largest = got.found.iter().map(|found| match found {
            Found::Queue(range) => range.len(),
            Found::BottomUp => 0,
        });
        assert!(largest.max().unwrap() >= SPLIT_BY_VERTICES);
        let got = got.into_search_and_room().0;
        assert_eq!(got.levels, serial(&g, 0).levels);
        crate::verify::bfs(g.view(), 0, &got.levels, &got.parents).unwrap();
    }

    #[test]
    fn a_hub_split_over_many_tasks_finds_every_leaf_once() {
        // Two hubs, 0 and 1, with 3 × ARCS_PER_TASK + 5 leaves, every second leaf shared;
        // hub 0's arcs to every third leaf have no way back, so frontiers hold vertices of
        // no out-degree between the others.
        let leaves = 3 * ARCS_PER_TASK as u32 + 5;
        let mut arcs = vec![(0, 2, 1), (2, 0, 1), (0, 1, 1), (1, 0, 1)];
        for leaf in 3..3 + leaves {
            for hub in [0, 1] {
                if hub == 0 || leaf % 2 == 0 {
                    arcs.push((hub, leaf, 1));
                    if hub == 1 || leaf % 3 != 0 {
                        arcs.push((leaf, hub, 1));
                    }
                }
            }
        }
        let g = Graph::from_arcs(3 + leaves as usize + 1, &arcs, false).unwrap();
        for source in [0, 2, 7] {
            let want = serial(&g, source);
            let got = direction_optimizing(g.view(), None, source);
            assert_eq!(got.levels, want.levels, "from {source}");
            crate::verify::bfs(g.view(), source, &got.levels, &got.parents).unwrap();
        }
    }
}
