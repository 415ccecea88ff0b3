//! Every reader and writer on small files, and the round trips between formats.

use super::*;
use std::path::Path;

fn err(text: &str, format: Format) -> String {
    parse("g", text, format).unwrap_err().to_string()
}

#[test]
fn dimacs_reads_one_based_arcs_and_names_bad_lines() {
    let text = "c x\np sp 3 3\na 1 2 7\na 2 3 1\na 2 3 4\n";
    let loaded = parse("g", text, Format::Dimacs).unwrap();
    assert_eq!(loaded.first_id, 1);
    assert_eq!(loaded.graph.neighbours(1), [2, 2]);
    assert_eq!(loaded.graph.stats().parallel_arcs, 1);
    assert!(err("p sp 3 2\na 1 2 7\n", Format::Dimacs).contains("ends early"));
    assert!(err("p sp 3 1\na 1 4 7\n", Format::Dimacs).contains("g:2: vertex 4 is outside 1..=3"));
    assert!(err("p sp 3 1\na 1 x 7\n", Format::Dimacs).contains("g:2: \"x\" is not an integer"));
    assert!(err("p sp 3 1\na 1 2\n", Format::Dimacs).contains("g:2: expected 'a"));
    assert!(err("a 1 2 3\n", Format::Dimacs).contains("g:1: an arc before"));
    assert!(err("", Format::Dimacs).contains("empty graph"));
    let negative = parse("g", "p sp 2 1\na 1 2 -3\n", Format::Dimacs).unwrap();
    assert_eq!(negative.negative_weight.as_deref(), Some("g:2 (weight -3)"));
}

#[test]
fn edge_lists_and_matrix_market_read_and_write_back() {
    let el = parse("g", "0 1\n1 2\n# note\n2 0\n", Format::EdgeList).unwrap();
    assert_eq!(el.graph.vertices(), 3);
    assert!(err("0 1 5\n", Format::EdgeList).contains("g:1: expected '<tail> <head>'"));
    assert!(err("0 -1\n", Format::EdgeList).contains("outside"));
    let wel = parse("g", "0 1 5\n1 0 5\n", Format::WeightedEdgeList).unwrap();
    assert!(wel.graph.is_symmetric());
    let mtx = "%%MatrixMarket matrix coordinate integer symmetric\n% c\n3 3 2\n1 2 4\n3 3 1\n";
    let loaded = parse("g", mtx, Format::MatrixMarket).unwrap();
    assert_eq!(loaded.graph.arcs(), 3);
    assert!(loaded.graph.is_symmetric());
    assert!(err(
        "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n",
        Format::MatrixMarket
    )
    .contains("ends early"));
    let dir = tempfile::tempdir().unwrap();
    let names = [
        "g.gr", "g.wel", "g.mtx", "g.tgr", "g.wsg", "g.txt", "g.wel.gz", "g.tgr.gz", "g.txt.gz",
    ];
    for name in names {
        let path = dir.path().join(name);
        write(&path, &loaded.graph, 1, false).unwrap();
        assert_eq!(read(&path).unwrap().graph, loaded.graph, "{name}");
    }
    // A format named by the caller wins over the extension; a .gz is found by its bytes.
    let path = dir.path().join("g.data");
    write_as(&path, Format::Dimacs, &loaded).unwrap();
    assert_eq!(read_as(&path, Format::Dimacs).unwrap().graph, loaded.graph);
    assert!(read(&path)
        .unwrap_err()
        .to_string()
        .contains("unknown graph format"));
}

#[test]
fn gapbs_serialized_graphs_read_as_gapbs_built_them() {
    let data = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(name)
    };
    // GAPBS builds a graph as thicket searches it: duplicates and self-loops merged.
    let built = read(&data("gapbs-4.gr")).unwrap().graph.simplified();
    let directed = read(&data("gapbs-4.sg")).unwrap();
    assert!(!directed.symmetric);
    assert_eq!(directed.graph.offsets(), built.offsets());
    assert_eq!(directed.graph.targets(), built.targets());
    let weighted = read(&data("gapbs-4.wsg")).unwrap();
    assert_eq!(weighted.graph.targets(), built.targets());
    assert!(weighted.graph.weights().is_some());
    // A directed file whose in-arcs are its out-arcs is read as symmetric.
    let dir = tempfile::tempdir().unwrap();
    let both_ways = dir.path().join("both.wsg");
    let symmetric = Graph::from_arcs(3, &[(0, 1, 4), (1, 0, 4), (2, 2, 1)], true).unwrap();
    write(&both_ways, &symmetric, 0, false).unwrap();
    assert_eq!(
        std::fs::read(&both_ways).unwrap()[0],
        1,
        "written as directed"
    );
    let read_back = read(&both_ways).unwrap();
    assert!(read_back.symmetric);
    assert_eq!(read_back.graph, symmetric);
    let undirected = read(&data("gapbs-4-sym.sg")).unwrap();
    assert!(undirected.symmetric && undirected.graph.is_symmetric());
    let both_ways = built.symmetrised().simplified();
    assert_eq!(undirected.graph.offsets(), both_ways.offsets());
    assert_eq!(undirected.graph.targets(), both_ways.targets());
    // Written back, the bytes are GAPBS's own.
    for (name, loaded) in [
        ("gapbs-4.sg", &directed),
        ("gapbs-4.wsg", &weighted),
        ("gapbs-4-sym.sg", &undirected),
    ] {
        let path = dir.path().join(name);
        write_as(&path, Format::of(&path).unwrap(), loaded).unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(data(name)).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn snap_files_keep_their_ids_through_a_conversion() {
    let text = "# Directed graph\n# FromNodeId\tToNodeId\n10\t20\n20\t7\n";
    let loaded = parse("s.txt", text, Format::Snap).unwrap();
    assert_eq!(loaded.label(0), "7");
    assert_eq!(loaded.vertex(b"20").unwrap(), 2);
    assert!(loaded
        .vertex(b"8")
        .unwrap_err()
        .to_string()
        .contains("\"8\" is not in the graph"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.txt.gz");
    write_as(&path, Format::Snap, &loaded).unwrap();
    assert_eq!(read(&path).unwrap(), loaded);
}

#[test]
fn names_are_bytes_from_the_file_to_the_answers_and_back() {
    // Latin-1 names, one file's bytes: two vertices, shown escaped, written back as read.
    let text = b"# Latin-1\ncaf\xe9\tcaf\xe8\ncaf\xe8\tna\xefve\n";
    let loaded = parse_bytes("l.txt", text, Format::Snap).unwrap();
    assert_eq!(loaded.graph.vertices(), 3);
    assert_eq!(loaded.label(0), "caf\\xe9");
    assert_eq!(loaded.vertex(b"caf\xe8").unwrap(), 1);
    let e = loaded.vertex(b"caf\xea").unwrap_err().to_string();
    assert!(e.contains("vertex \"caf\\xea\" is not in the graph"), "{e}");
    let mut id = Vec::new();
    loaded.push_label(&mut id, 2);
    assert_eq!(id, b"na\xefve");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.txt");
    write_as(&path, Format::Snap, &loaded).unwrap();
    let written = std::fs::read(&path).unwrap();
    assert!(written.ends_with(b"caf\xe9\tcaf\xe8\ncaf\xe8\tna\xefve\n"));
    assert_eq!(read(&path).unwrap(), loaded);
}

#[test]
fn a_byte_order_mark_is_no_part_of_the_first_id() {
    for (name, format) in [
        ("b.txt", Format::Snap),
        ("b.el", Format::EdgeList),
        ("b.mtx", Format::MatrixMarket),
    ] {
        let text: &[u8] = match format {
            Format::MatrixMarket => {
                b"\xEF\xBB\xBF%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n"
            }
            _ => b"\xEF\xBB\xBF0 1\n1 0\n",
        };
        let loaded = parse_bytes(name, text, format).unwrap();
        assert_eq!((loaded.graph.vertices(), &loaded.ids), (2, &None), "{name}");
    }
    let text = "\u{feff}p sp 2 1\na 1 2 3\n";
    assert_eq!(
        parse("b.gr", text, Format::Dimacs)
            .unwrap()
            .graph
            .vertices(),
        2
    );
    let snap = parse_bytes("b.txt", b"\xEF\xBB\xBF0 1\n", Format::Snap).unwrap();
    assert_eq!(snap.vertex(b"0").unwrap(), 0);
}

#[test]
fn a_text_graph_of_an_endless_line_is_refused_naming_it() {
    let mut text = b"0 1\n".to_vec();
    text.resize(text.len() + thicket_core::MAX_LINE_BYTES + 1, b'7');
    let e = parse_bytes("long.el", &text, Format::EdgeList).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(
        e.to_string()
            .contains("long.el:2: line 2 is longer than 64 MiB"),
        "{e}"
    );
}

#[test]
fn a_corrupt_binary_graph_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.tgr");
    let g = Graph::from_arcs(3, &[(0, 1, 1), (1, 2, 1)], false).unwrap();
    write(&path, &g, 0, false).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    assert_eq!(read(&path).unwrap().graph, g);
    bytes.pop();
    std::fs::write(&path, &bytes).unwrap();
    assert!(read(&path)
        .unwrap_err()
        .to_string()
        .contains("not a thicket .tgr graph"));
    let last = bytes.len() - 1;
    bytes.push(0);
    bytes[last] = 9;
    std::fs::write(&path, &bytes).unwrap();
    assert!(read(&path)
        .unwrap_err()
        .to_string()
        .contains("out of range"));
}

#[test]
fn a_binary_graph_keeps_whether_it_is_symmetric() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.tgr");
    let g = Graph::from_arcs(2, &[(0, 1, 3), (1, 0, 3)], true).unwrap();
    for symmetric in [false, true] {
        write(&path, &g, 0, symmetric).unwrap();
        let loaded = read(&path).unwrap();
        assert_eq!((loaded.graph, loaded.symmetric), (g.clone(), symmetric));
    }
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[24] = 4;
    std::fs::write(&path, &bytes).unwrap();
    assert!(read(&path)
        .unwrap_err()
        .to_string()
        .contains("unknown flags"));
}
