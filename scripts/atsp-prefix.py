#!/usr/bin/env python3
"""Writes TSPLIB's ftv90..ftv160 (or any prefix instance): the first N+1 cities of an ATSP file.

TSPLIB's ftvN instances for N = 90, 100, ..., 160 are the first N+1 cities of ftv170 (their
optima are in `thicket_atsp::TSPLIB_ATSP_OPTIMA`); the library ships only ftv170, so the
benchmarks make the others with this script:

    python3 scripts/atsp-prefix.py ftv170.atsp OUT_DIR 90 100 110 120 130 140 150 160

writes OUT_DIR/ftv90.atsp ... as EXPLICIT FULL_MATRIX files (the prefix of the name's letters
followed by N). Needs only the Python standard library.
"""

import re
import sys

from tsplib_matrix import read_full_matrix


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    path, out_dir, sizes = sys.argv[1], sys.argv[2], [int(a) for a in sys.argv[3:]]
    name, rows = read_full_matrix(path)
    stem = re.sub(r"\d+$", "", name)
    for size in sizes:
        cities = size + 1
        if cities > len(rows):
            sys.exit(f"{path}: {name} has {len(rows)} cities, fewer than {cities}")
        lines = [
            f"NAME: {stem}{size}",
            "TYPE: ATSP",
            f"COMMENT: the first {cities} cities of {name}",
            f"DIMENSION: {cities}",
            "EDGE_WEIGHT_TYPE: EXPLICIT",
            "EDGE_WEIGHT_FORMAT: FULL_MATRIX",
            "EDGE_WEIGHT_SECTION",
        ]
        lines += [" ".join(str(c) for c in row[:cities]) for row in rows[:cities]]
        lines.append("EOF")
        with open(f"{out_dir}/{stem}{size}.atsp", "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
