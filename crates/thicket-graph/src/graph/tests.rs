//! The graph's construction, checks and derived graphs.

use super::*;

#[test]
fn arcs_become_rows_with_parallel_arcs_and_loops_kept_and_counted() {
    let arcs = [(0, 1, 5), (0, 1, 3), (1, 1, 2), (2, 0, 1)];
    let g = Graph::from_arcs(4, &arcs, true).unwrap();
    assert_eq!(g.offsets, [0, 2, 3, 4, 4]);
    assert_eq!(g.neighbours(0), [1, 1]);
    assert_eq!(g.weight(1), 3);
    let stats = g.stats();
    assert_eq!(stats.self_loops, 1);
    assert_eq!(stats.parallel_arcs, 1);
    assert_eq!(stats.isolated, 1);
    assert_eq!(stats.max_out_degree, 2);
    assert!(!stats.symmetric);
    assert_eq!(stats.weight_range, Some((1, 5)));
    let sym = g.symmetrised();
    assert_eq!(sym.arcs(), 7);
    assert!(sym.is_symmetric());
    assert_eq!(g.reversed().neighbours(1), [0, 0, 1]);
    let simple = g.simplified();
    assert!(!g.is_simple() && simple.is_simple());
    assert_eq!(simple.neighbours(0), [1]);
    assert_eq!(simple.weight(0), 3);
    assert!(simple.neighbours(1).is_empty());
}

/// The simple graph as a list: every arc sorted, self-loops and all but the lightest of
/// parallel arcs dropped (the reference [`Graph::simplified`] must match).
fn simplified_by_sorting(g: &Graph) -> Graph {
    let mut arcs = g.arc_list();
    arcs.sort_unstable();
    arcs.dedup_by_key(|a| (a.0, a.1));
    arcs.retain(|a| a.0 != a.1);
    Graph::from_arcs(g.vertices(), &arcs, g.weights.is_some()).unwrap()
}

#[test]
fn simplified_matches_the_sorted_list() {
    let mut rng = thicket_core::SplitMix::new(3);
    for (n, m) in [(1, 3), (5, 40), (300, 5000), (2000, 200_000)] {
        let arcs: Vec<Arc> = (0..m)
            .map(|_| {
                (
                    rng.below(n) as u32,
                    rng.below(n) as u32,
                    rng.below(9) as u32,
                )
            })
            .collect();
        let g = Graph::from_arcs(n as usize, &arcs, true).unwrap();
        let simple = g.simplified();
        assert_eq!(simple, simplified_by_sorting(&g), "{n} {m}");
        assert!(simple.is_simple());
    }
}

#[test]
fn a_vertex_outside_the_graph_is_refused() {
    let err = Graph::from_arcs(2, &[(0, 2, 1)], false).unwrap_err();
    assert!(err.to_string().contains("0..2"), "{err}");
    let err = Graph::from_edges(2, &[(2, 0)]).unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err}");
}

#[test]
fn csr_arrays_are_checked_before_they_become_a_graph() {
    let g = Graph::from_csr(vec![0, 2, 3, 3], vec![1, 2, 0], Some(&[1.0, 4.0, 2.0])).unwrap();
    assert_eq!(g.neighbours(0), [1, 2]);
    assert_eq!(g.weights(), Some(&[1, 4, 2][..]));
    let refused =
        |offsets: Vec<u64>, targets: Vec<u32>, weights: Option<&[f64]>| match Graph::from_csr(
            offsets, targets, weights,
        ) {
            Err(Error::InvalidInput(why)) => why,
            other => panic!("accepted: {other:?}"),
        };
    assert!(refused(vec![], vec![], None).contains("one more"));
    assert!(refused(vec![1, 1], vec![0], None).contains("start at 1"));
    assert!(refused(vec![0, 2, 1], vec![0, 0], None).contains("decrease"));
    assert!(refused(vec![0, 1, 1], vec![0, 0], None).contains("end at 1"));
    assert!(refused(vec![0, 1], vec![1], None).contains("outside 0..1"));
    assert!(refused(vec![0, 1], vec![0], Some(&[])).contains("0 weights"));
    assert!(refused(vec![0, 1], vec![0], Some(&[-1.0])).contains("weights >= 0"));
    assert!(refused(vec![0, 1], vec![0], Some(&[f64::NAN])).contains("NaN"));
    assert!(refused(vec![0, 1], vec![0], Some(&[0.5])).contains("whole numbers"));
}

#[test]
fn a_borrowed_graph_is_checked_as_an_owned_one() {
    let refused =
        |offsets: &[u64], targets: &[u32], weights: Option<&[u32]>| match GraphView::from_csr(
            offsets, targets, weights,
        ) {
            Err(Error::InvalidInput(why)) => why,
            other => panic!("accepted: {other:?}"),
        };
    assert!(refused(&[], &[], None).contains("one more"));
    assert!(refused(&[1, 1], &[0], None).contains("start at 1"));
    assert!(refused(&[0, 2, 1], &[0, 0], None).contains("decrease"));
    assert!(refused(&[0, 1, 1], &[0, 0], None).contains("end at 1"));
    assert!(refused(&[0, 1], &[1], None).contains("arc 0 ends at 1, outside 0..1"));
    assert!(refused(&[0, 1], &[0], Some(&[])).contains("0 weights"));
    let g = Graph::from_csr(vec![0, 2, 3, 3], vec![1, 2, 0], Some(&[1.0, 4.0, 2.0])).unwrap();
    let view = GraphView::from_csr(g.offsets(), g.targets(), g.weights()).unwrap();
    assert_eq!(view, g.view());
    assert_eq!(view.to_graph(), g);
    assert_eq!(whole_weights(&[1.0, 4.0]).unwrap(), [1, 4]);
    assert!(whole_weights(&[1.0, -4.0]).is_err());
}

#[test]
fn weighted_edges_are_checked() {
    let g = Graph::from_weighted_edges(3, &[(0, 1, 2.0), (1, 2, 0.0)]).unwrap();
    assert_eq!(g.weights(), Some(&[2, 0][..]));
    for bad in [-3.0, f64::NAN, f64::INFINITY, 1.5] {
        let err = Graph::from_weighted_edges(2, &[(0, 1, bad)]).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{bad}: {err}");
    }
}
