#!/usr/bin/env bash
# Builds examples/embed (a program outside the workspace that prices an option, runs BFS on an
# in-memory graph and a max flow on an in-memory network through thicket's libraries) and
# checks what the issue "Libraries people can embed" promises: it compiles no clap, indicatif,
# rusqlite or plotters, and the libraries print nothing (its stdout and stderr stay empty).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
example="$root/examples/embed"
# The workspace's lock file, so that the example builds the same versions (and reuses them).
cp "$root/Cargo.lock" "$example/Cargo.lock"
trap 'rm -f "$example/Cargo.lock"' EXIT
heavy="$(cargo tree --manifest-path "$example/Cargo.toml" -e normal --prefix none |
    grep -oE '^(clap|clap_builder|indicatif|rusqlite|plotters) ' | sort -u | tr '\n' ' ' || true)"
if [[ -n "$heavy" ]]; then
    echo "check-embedding: the example compiles $heavy" >&2
    exit 1
fi
CARGO_TARGET_DIR="$root/target" cargo build --quiet --manifest-path "$example/Cargo.toml"
out="$(mktemp -d)"
trap 'rm -f "$example/Cargo.lock"; rm -rf "$out"' EXIT
"$root/target/debug/thicket-embed-example" "$out/answer.txt" >"$out/stdout" 2>"$out/stderr"
if [[ -s "$out/stdout" || -s "$out/stderr" ]]; then
    echo "check-embedding: the libraries printed:" >&2
    cat "$out/stdout" "$out/stderr" >&2
    exit 1
fi
grep -q "^price 5.4702 .*flow 4$" "$out/answer.txt" || {
    echo "check-embedding: unexpected answers: $(cat "$out/answer.txt")" >&2
    exit 1
}
echo "check-embedding: $(cat "$out/answer.txt")"
