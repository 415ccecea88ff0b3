//! File names made from a file's vertex ids (`--output 'd-{source}.txt'`): a graph file
//! chooses its ids, so an id must never choose where an answer is written. Only the file name
//! of the template may hold `{source}`, and an id becomes one safe component of it: bytes
//! other than letters, digits and `_+,=@` (and `.` and `-` past the first byte) are
//! percent-encoded (`/` as `%2F`, `%` as `%25`), so that no id makes a `/`, a NUL, a `.` or
//! `..`, a leading `-` or a control character, and two different ids never make the same
//! name; an id that would take more than [`NAME_ID_BYTES`] is cut, with `~` (which no
//! uncut id makes) and a hash of the whole id.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use thicket_core::{Error, Result};

use super::{ids, Loaded};

/// What a `--output` file name holds in place of each source's id.
pub const SOURCE_PLACEHOLDER: &str = "{source}";

/// The most bytes an id takes in a file name, so that the name stays well within the 255
/// bytes file systems allow.
pub const NAME_ID_BYTES: usize = 80;

/// Hex digits of the hash that ends a cut id.
const HASH_DIGITS: usize = 16;

/// `id` (its bytes as the graph file has them) as a file-name component, as the module
/// describes: never empty, never a path separator, never the same for two different ids
/// (a cut id aside, whose hash would have to collide: [`NameTemplate::check_sources`] refuses
/// that).
pub fn file_name_id(id: &[u8]) -> String {
    let mut name = String::with_capacity(id.len());
    for (at, &b) in id.iter().enumerate() {
        let plain = b.is_ascii_alphanumeric()
            || b"_+,=@".contains(&b)
            || (at > 0 && (b == b'.' || b == b'-'));
        if plain {
            name.push(char::from(b));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(name, "%{b:02X}");
        }
    }
    if name.is_empty() {
        // An empty id (no reader makes one) gets a name no other id has.
        return "~".into();
    }
    if name.len() <= NAME_ID_BYTES {
        return name;
    }
    // Cut short of the hash, never inside a `%XX` ('%' only ever starts one).
    let mut cut = NAME_ID_BYTES - 1 - HASH_DIGITS;
    let bytes = name.as_bytes();
    if bytes[cut - 1] == b'%' {
        cut -= 1;
    } else if bytes[cut - 2] == b'%' {
        cut -= 2;
    }
    format!("{}~{:016x}", &name[..cut], fnv1a(id))
}

/// The 64-bit FNV-1a hash of `bytes`: the same on every machine and release, so that a cut
/// id names the same file in every run.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A `--output` path whose file name holds `{source}`: one file per source, each in the
/// template's folder whatever its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameTemplate {
    /// The folder the files go to, as the template names it (empty: the working folder).
    folder: PathBuf,
    /// The template's file name cut at each `{source}`.
    pieces: Vec<String>,
}

impl NameTemplate {
    /// The template `path` holds, `None` where it holds no `{source}`; a `{source}` outside
    /// the file name (in a folder, or before a trailing `/`) or a file name that is not
    /// UTF-8 is refused as bad input naming the path.
    pub fn parse(path: &Path) -> Result<Option<NameTemplate>> {
        let whole = path.as_os_str().as_encoded_bytes();
        if !contains(whole, SOURCE_PLACEHOLDER.as_bytes()) {
            return Ok(None);
        }
        let refused = |why: &str| {
            Error::InvalidInput(format!(
                "{}: {SOURCE_PLACEHOLDER} {why}",
                ids::shown_id(whole, None)
            ))
        };
        let name = path.file_name().unwrap_or_default();
        let folder = path.parent().unwrap_or(Path::new(""));
        let in_name = whole.ends_with(name.as_encoded_bytes())
            && contains(name.as_encoded_bytes(), SOURCE_PLACEHOLDER.as_bytes());
        if !in_name
            || contains(
                folder.as_os_str().as_encoded_bytes(),
                SOURCE_PLACEHOLDER.as_bytes(),
            )
        {
            return Err(refused(
                "may stand only in the file name, so that no vertex id chooses the folder",
            ));
        }
        let name = name
            .to_str()
            .ok_or_else(|| refused("may stand only in a file name that is UTF-8"))?;
        Ok(Some(NameTemplate {
            folder: folder.to_path_buf(),
            pieces: name.split(SOURCE_PLACEHOLDER).map(String::from).collect(),
        }))
    }

    /// The file of the vertex whose id is `id` (its bytes): the template's file name with
    /// [`file_name_id`] of `id` in place of each `{source}`, in the template's folder.
    pub fn path(&self, id: &[u8]) -> PathBuf {
        self.folder.join(self.pieces.join(&file_name_id(id)))
    }

    /// The file of vertex `v` of `loaded` (0-based), named by the file's id of it.
    pub fn file(&self, loaded: &Loaded, v: u32) -> PathBuf {
        self.path(&label(loaded, v))
    }

    /// Refuses, before a search, two different `sources` of `loaded` whose files would have
    /// the same name (only cut ids whose hashes collide can), as bad input naming both.
    pub fn check_sources(&self, loaded: &Loaded, sources: &[u32]) -> Result<()> {
        let mut owners: HashMap<PathBuf, u32> = HashMap::new();
        for &v in sources {
            let path = self.file(loaded, v);
            match owners.get(&path) {
                Some(&other) if other != v => {
                    return Err(Error::InvalidInput(format!(
                        "{}: sources {} and {} would both be written there (rename one in \
                         the graph, or write every source's answer to one file)",
                        path.display(),
                        ids::shown_id(&label(loaded, other), Some(thicket_core::text::TOKEN_CHARS)),
                        ids::shown_id(&label(loaded, v), Some(thicket_core::text::TOKEN_CHARS)),
                    )));
                }
                _ => {
                    owners.insert(path, v);
                }
            }
        }
        Ok(())
    }
}

/// The bytes of the file's id of vertex `v`.
fn label(loaded: &Loaded, v: u32) -> Vec<u8> {
    let mut id = Vec::new();
    loaded.push_label(&mut id, v);
    id
}

/// Whether `bytes` hold `part`.
fn contains(bytes: &[u8], part: &[u8]) -> bool {
    bytes.windows(part.len()).any(|w| w == part)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;
    use crate::io::VertexIds;

    #[test]
    fn an_id_becomes_one_safe_component_and_different_ids_different_ones() {
        let cases: [(&[u8], &str); 10] = [
            (b"17", "17"),
            (b"alice.b-c", "alice.b-c"),
            (b"/../../x", "%2F..%2F..%2Fx"),
            (b"..", "%2E."),
            (b".", "%2E"),
            (b"-rf", "%2Drf"),
            (b"a%2Fb", "a%252Fb"),
            (b"caf\xe9", "caf%E9"),
            (b"a\0b\x1b~", "a%00b%1B%7E"),
            (b"C:\\x", "C%3A%5Cx"),
        ];
        for (id, want) in cases {
            assert_eq!(file_name_id(id), want, "{:?}", ids::shown_id(id, None));
        }
        let long = vec![b'a'; 500];
        let cut = file_name_id(&long);
        assert_eq!(cut.len(), NAME_ID_BYTES);
        assert!(
            cut.starts_with(&"a".repeat(63)) && cut.as_bytes()[63] == b'~',
            "{cut}"
        );
        let mut other = long.clone();
        other[499] = b'b';
        assert_ne!(file_name_id(&other), cut);
        // A cut never splits a %XX.
        let slashes = file_name_id(&[b'/'; 100]);
        assert!(
            slashes.starts_with("%2F") && slashes.contains("%2F~"),
            "{slashes}"
        );
        assert_eq!(slashes.len(), NAME_ID_BYTES);
        let after_a = file_name_id(&[&b"a"[..], &[b'/'; 100]].concat());
        assert_eq!(after_a[..61], format!("a{}", "%2F".repeat(20)));
        assert_eq!((after_a.len(), &after_a[61..62]), (78, "~"));
    }

    #[test]
    fn a_template_keeps_every_file_in_its_folder() {
        let template = NameTemplate::parse(Path::new("out/p-{source}.txt"))
            .unwrap()
            .unwrap();
        assert_eq!(template.path(b"7"), Path::new("out/p-7.txt"));
        assert_eq!(
            template.path(b"/../../x"),
            Path::new("out/p-%2F..%2F..%2Fx.txt")
        );
        assert_eq!(
            template.path(b"/etc/passwd"),
            Path::new("out/p-%2Fetc%2Fpasswd.txt")
        );
        let bare = NameTemplate::parse(Path::new("{source}")).unwrap().unwrap();
        assert_eq!(bare.path(b".."), Path::new("%2E."));
        assert_eq!(NameTemplate::parse(Path::new("d.txt")).unwrap(), None);
        for bad in [
            "{source}/d.txt",
            "a/{source}/",
            "x-{source}/.",
            "{source}/..",
        ] {
            let e = NameTemplate::parse(Path::new(bad)).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad}");
            assert!(
                e.message().contains("may stand only in the file name"),
                "{e}"
            );
        }
    }

    #[test]
    fn sources_sharing_a_file_are_refused_before_the_search() {
        let graph = Graph::from_edges(3, &[(0, 1), (1, 2)]).unwrap();
        let mut loaded = Loaded::numbered(graph, 0, false);
        let template = NameTemplate::parse(Path::new("d-{source}.txt"))
            .unwrap()
            .unwrap();
        assert!(template.check_sources(&loaded, &[0, 1, 2, 0]).is_ok());
        assert_eq!(template.file(&loaded, 2), Path::new("d-2.txt"));
        // Different ids with one name cannot be made by the escaping; a hand-made clash
        // (a template ignoring the id) stands for a hash collision.
        let fixed = NameTemplate {
            folder: PathBuf::new(),
            pieces: vec!["same.txt".into()],
        };
        loaded.ids = Some(VertexIds::Names(vec![
            b"a"[..].into(),
            b"b\xff"[..].into(),
            b"c"[..].into(),
        ]));
        let e = fixed.check_sources(&loaded, &[0, 1]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.message()
                .contains("same.txt: sources a and b\\xff would both"),
            "{e}"
        );
    }
}
