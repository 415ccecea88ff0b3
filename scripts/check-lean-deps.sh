#!/usr/bin/env bash
# The solver libraries a program embeds to price, search graphs, find flows or schedule pull in
# no command-line, terminal, storage or chart crates: fails naming any that `cargo tree` shows.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
status=0
for crate in thicket-core thicket-gpu thicket-lattice thicket-graph thicket-flow thicket-schedule; do
    heavy="$(cargo tree --locked -e normal -p "$crate" --prefix none |
        grep -oE '^(clap|clap_builder|indicatif|rusqlite|plotters|thicket-run) ' | sort -u | tr '\n' ' ' || true)"
    if [[ -n "$heavy" ]]; then
        echo "check-lean-deps: $crate depends on $heavy" >&2
        status=1
    fi
done
exit "$status"
