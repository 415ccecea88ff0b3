//! The robustness issue's graph cases end to end: each refused in one line naming the file
//! and line, with the documented exit code, and no output file left by a refused run.

use std::path::Path;

use crate::common::{json, stderr, stdout, thicket};

#[test]
fn hostile_graph_files_are_refused_in_one_line_with_their_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("distances.txt");
    std::fs::write(&out, "kept\n").unwrap();
    let cases = [
        (
            "a.gr",
            "p sp 3 9223372036854775807\na 1 2 3\n",
            2,
            "a.gr:1: the 'p' line declares",
        ),
        (
            "b.gr",
            "p sp 4294967294 1\na 1 2 3\n",
            1,
            "b.gr:1: a graph of 4294967294 vertices",
        ),
        (
            "c.el",
            "0 4294967293\n",
            1,
            "c.el:1: a graph of 4294967294 vertices",
        ),
        (
            "d.el",
            "0 4294967294\n",
            2,
            "d.el:1: vertex 4294967294 does not fit 32-bit ids",
        ),
        (
            "e.mtx",
            "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1e300\n",
            2,
            "e.mtx:3: weight 1e300 is past 4294967295",
        ),
    ];
    for (name, text, code, want) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let output = thicket(&[
            "sssp".as_ref(),
            path.as_os_str(),
            "--source".as_ref(),
            "1".as_ref(),
            "--backend".as_ref(),
            "cpu".as_ref(),
            "--output".as_ref(),
            out.as_os_str(),
        ]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(code), "{name}: {message}");
        assert_eq!(message.trim().lines().count(), 1, "{name}: {message}");
        assert!(message.contains(want), "{name}: {message}");
    }
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept\n");
}

#[test]
fn generator_parameters_out_of_reach_are_refused_with_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.el");
    let out = out.to_str().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (
            &["vl", "--vertices", "100", "--degree", "100"],
            "has mean degree 2 to 99",
        ),
        (
            &["vl", "--vertices", "3", "--degree", "5"],
            "has mean degree only 2",
        ),
        (&["uniform", "--degree", "0"], "has no edges"),
    ];
    for (args, want) in cases {
        let mut all = vec!["graph", "gen"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", out]);
        let output = thicket(&all);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
        assert!(message.contains(want), "{args:?}: {message}");
        assert!(!std::path::Path::new(out).exists(), "{args:?}");
    }
    let output = thicket(&[
        "graph",
        "gen",
        "vl",
        "--vertices",
        "100",
        "--degree",
        "99",
        "-o",
        out,
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let info = thicket(&["graph", "info", out, "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(stats["mean_out_degree"], 99.0);
}

/// Runs `thicket` with `args` in the folder `cwd`.
fn thicket_in<S: AsRef<std::ffi::OsStr>>(cwd: &Path, args: &[S]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_thicket"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the thicket binary runs")
}

/// Every file under `dir`, relative to it, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap();
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    found
}

/// Issue 44, class 2: a SNAP file's names go into `--output '{source}'` file names escaped, so
/// that no name (`/../../x`, an absolute path) writes outside the folder the user named.
#[test]
fn a_vertex_name_never_chooses_where_an_answer_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let work = root.join("work");
    std::fs::create_dir_all(work.join("out")).unwrap();
    let victim = root.join("victim");
    for kept in [&victim, &root.join("x.txt")] {
        std::fs::write(kept, "kept\n").unwrap();
    }
    let absolute = victim.to_str().unwrap();
    let graph = root.join("g.txt");
    std::fs::write(&graph, format!("/../../x\t{absolute}\n{absolute}\tbob\n")).unwrap();
    let encoded = absolute.replace('/', "%2F");
    for (template, folder) in [("{source}", "work"), ("out/{source}.txt", "work/out")] {
        let ran = thicket_in(
            &work,
            &[
                "bfs",
                graph.to_str().unwrap(),
                "--source",
                "/../../x",
                "--source",
                absolute,
                "--backend",
                "cpu",
                "--quiet",
                "--output",
                template,
            ],
        );
        assert!(ran.status.success(), "{template}: {}", stderr(&ran));
        let suffix = if template.ends_with(".txt") {
            ".txt"
        } else {
            ""
        };
        let rows = std::fs::read(root.join(folder).join(format!("%2F..%2F..%2Fx{suffix}")));
        assert!(rows.unwrap().starts_with(b"/../../x "), "{template}");
        let rows = std::fs::read(root.join(folder).join(format!("{encoded}{suffix}")));
        assert!(rows.unwrap().starts_with(absolute.as_bytes()), "{template}");
    }
    let mut want = vec![
        "g.txt".to_string(),
        "victim".into(),
        "x.txt".into(),
        format!("work/{encoded}"),
        "work/%2F..%2F..%2Fx".into(),
        format!("work/out/{encoded}.txt"),
        "work/out/%2F..%2F..%2Fx.txt".into(),
    ];
    want.sort();
    assert_eq!(files_under(root), want);
    for kept in [&victim, &root.join("x.txt")] {
        assert_eq!(std::fs::read_to_string(kept).unwrap(), "kept\n");
    }
    // `{source}` in a folder would let an id choose the folder: refused before the search,
    // even where a folder of that name exists.
    std::fs::create_dir(work.join("{source}")).unwrap();
    let ran = thicket_in(
        &work,
        &[
            "bfs",
            graph.to_str().unwrap(),
            "--source",
            "/../../x",
            "--backend",
            "cpu",
            "--output",
            "{source}/d.txt",
        ],
    );
    let message = stderr(&ran);
    assert_eq!(ran.status.code(), Some(2), "{message}");
    assert_eq!(message.trim().lines().count(), 1, "{message}");
    assert!(
        message.contains("{source}/d.txt: {source} may stand only in the file name"),
        "{message}"
    );
    assert_eq!(files_under(root), want);
}

/// Issue 44, class 3: a byte order mark is no part of the first id.
#[test]
fn a_byte_order_mark_before_the_first_line_is_not_an_id() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("bom.txt");
    std::fs::write(&graph, b"\xEF\xBB\xBF0 1\n1 2\n").unwrap();
    let ran = thicket(&[
        "bfs".as_ref(),
        graph.as_os_str(),
        "--source".as_ref(),
        "0".as_ref(),
        "--backend".as_ref(),
        "cpu".as_ref(),
        "--json".as_ref(),
        "--quiet".as_ref(),
    ]);
    let value = json(&ran);
    assert_eq!(
        (value["vertices"].as_u64(), value["reached"].as_u64()),
        (Some(3), Some(3))
    );
}

/// Issue 44, class 3: names are bytes: two Latin-1 names stay two vertices, `--source` matches
/// the bytes, messages show them escaped, and answers and conversions write them as read.
#[cfg(unix)]
#[test]
fn latin1_names_stay_apart_and_are_written_back_as_read() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("l.txt");
    std::fs::write(&graph, b"caf\xe9 caf\xe8\ncaf\xe8 na\xefve\n").unwrap();
    let info = json(&thicket(&[
        "graph".as_ref(),
        "info".as_ref(),
        graph.as_os_str(),
        "--json".as_ref(),
    ]));
    assert_eq!(info["vertices"], 3);
    let out = dir.path().join("d.txt");
    let ran = thicket(&[
        "bfs".as_ref(),
        graph.as_os_str(),
        "--source".as_ref(),
        OsStr::from_bytes(b"caf\xe9"),
        "--backend".as_ref(),
        "cpu".as_ref(),
        "--output".as_ref(),
        out.as_os_str(),
    ]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    assert!(
        stdout(&ran).contains("source    caf\\xe9: reached 3"),
        "{}",
        stdout(&ran)
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        b"caf\xe9 caf\xe9 0 -\ncaf\xe9 caf\xe8 1 caf\xe9\ncaf\xe9 na\xefve 2 caf\xe8\n"
    );
    let to_stdout = thicket(&[
        "bfs".as_ref(),
        graph.as_os_str(),
        "--source".as_ref(),
        OsStr::from_bytes(b"caf\xe8"),
        "--backend".as_ref(),
        "cpu".as_ref(),
        "--quiet".as_ref(),
        "--output".as_ref(),
        "-".as_ref(),
    ]);
    assert!(to_stdout.status.success(), "{}", stderr(&to_stdout));
    assert!(to_stdout.stdout.ends_with(b"caf\xe8 na\xefve 1 caf\xe8\n"));
    let missing = thicket(&[
        "bfs".as_ref(),
        graph.as_os_str(),
        "--source".as_ref(),
        OsStr::from_bytes(b"caf\xea"),
    ]);
    assert_eq!(missing.status.code(), Some(2));
    let message = stderr(&missing);
    assert!(
        message.contains("source \"caf\\xea\" is not in the graph"),
        "{message}"
    );
    let back = dir.path().join("back.txt");
    let converted = thicket(&[
        "graph".as_ref(),
        "convert".as_ref(),
        graph.as_os_str(),
        back.as_os_str(),
    ]);
    assert!(converted.status.success(), "{}", stderr(&converted));
    let written = std::fs::read(&back).unwrap();
    assert!(
        written.ends_with(b"caf\xe9\tcaf\xe8\ncaf\xe8\tna\xefve\n"),
        "{written:?}"
    );
}

/// Issue 44, class 6: an endless stream is refused at the line bound, quickly, in one line,
/// whether it comes from a device, a pipe or a device named as the file.
#[cfg(unix)]
#[test]
fn an_endless_text_stream_is_refused_at_the_line_bound() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let check = |output: std::process::Output, name: &str, started: std::time::Instant| {
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{name}: {message}");
        assert_eq!(message.trim().lines().count(), 1, "{name}: {message}");
        let want = format!("{name}:1: line 1 is longer than 64 MiB");
        assert!(message.contains(&want), "{message}");
        assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
    };
    let started = std::time::Instant::now();
    let zeros = std::fs::File::open("/dev/zero").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_thicket"))
        .args(["graph", "info", "-", "--format", "el"])
        .stdin(Stdio::from(zeros))
        .output()
        .unwrap();
    check(output, "<stdin>", started);
    let started = std::time::Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_thicket"))
        .args(["graph", "info", "-", "--format", "txt"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // `yes | tr -d '\n'`: writes until thicket closes the pipe.
    let writer = std::thread::spawn(move || {
        let ys = vec![b'y'; 1 << 16];
        while stdin.write_all(&ys).is_ok() {}
    });
    check(child.wait_with_output().unwrap(), "<stdin>", started);
    writer.join().unwrap();
    let started = std::time::Instant::now();
    check(
        thicket(&["graph", "info", "/dev/zero", "--format", "gr"]),
        "/dev/zero",
        started,
    );
}
