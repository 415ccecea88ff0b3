//! `--output 'd-{source}.txt'` file names from any template and any two vertex ids (a SNAP
//! file's names are any bytes): `thicket_graph::io::NameTemplate` refuses a template in one
//! line or puts each id's file in the template's folder, its name one component that is
//! neither `.` nor `..`, made of printable ASCII without a separator; two different ids never
//! share a file, and an id that is not cut decodes back to its bytes.
#![no_main]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use libfuzzer_sys::fuzz_target;
use thicket_graph::io::{file_name_id, NameTemplate, NAME_ID_BYTES};

/// The bytes a file name made by `file_name_id` stands for (`%XX` decoded).
fn decoded(name: &str) -> Vec<u8> {
    let bytes = name.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = std::str::from_utf8(&bytes[at + 1..at + 3]).expect("ASCII");
            out.push(u8::from_str_radix(hex, 16).expect("two hex digits"));
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    out
}

/// Checks one id's name on its own.
fn check_name(id: &[u8]) -> String {
    let name = file_name_id(id);
    assert!(!name.is_empty() && name.len() <= NAME_ID_BYTES, "{name}");
    assert!(name.bytes().all(|b| b.is_ascii_graphic()), "{name}");
    assert!(!name.contains(['/', '\\', ':']), "{name}");
    assert!(!name.starts_with(['.', '-']), "{name}");
    if !name.contains('~') {
        assert_eq!(decoded(&name), id, "{name}");
    }
    name
}

fuzz_target!(|data: &[u8]| {
    let [template_len, split, rest @ ..] = data else {
        return;
    };
    let (template, ids) = rest.split_at(usize::from(*template_len).min(rest.len()));
    let (a, b) = ids.split_at(usize::from(*split).min(ids.len()));
    let (name_a, name_b) = (check_name(a), check_name(b));
    if a != b {
        assert_ne!(name_a, name_b);
    }
    // A command-line argument holds no NUL.
    if template.contains(&0) {
        return;
    }
    let template_path = Path::new(OsStr::from_bytes(template));
    let parsed = match NameTemplate::parse(template_path) {
        Ok(Some(parsed)) => parsed,
        Ok(None) => {
            assert!(!template.windows(8).any(|w| w == b"{source}"));
            return;
        }
        Err(e) => {
            let message = e.to_string();
            assert!(!message.trim_end().contains('\n'), "{message}");
            return;
        }
    };
    let folder = template_path.parent().expect("a template has a file name");
    for id in [a, b] {
        let path = parsed.path(id);
        let parent = path.parent().expect("a file in a folder");
        assert!(parent.components().eq(folder.components()), "{path:?}");
        let name = Path::new(path.file_name().expect("a file name"));
        let mut components = name.components();
        assert!(
            matches!(components.next(), Some(Component::Normal(_))),
            "{path:?}"
        );
        assert!(components.next().is_none(), "{path:?}");
    }
    if a != b {
        assert_ne!(parsed.path(a), parsed.path(b));
    }
});
