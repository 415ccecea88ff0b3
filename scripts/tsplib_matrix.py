"""The reader of TSPLIB EXPLICIT FULL_MATRIX files that the ATSP scripts share
(`atsp-ilp.py`, `atsp-prefix.py`). Needs only the Python standard library."""

import sys


def read_full_matrix(path):
    """The name (the path where the file names none) and the full cost matrix, as rows of
    ints, of a TSPLIB EXPLICIT FULL_MATRIX file; exits with one line naming the file where the
    weights are of another format or too few."""
    name, n, numbers, in_weights = None, None, [], False
    with open(path) as f:
        for line in f:
            text = line.strip()
            if in_weights:
                tokens = text.split()
                if tokens and not tokens[0].lstrip("-").isdigit():
                    break
                numbers.extend(int(t) for t in tokens)
                continue
            key, _, value = text.partition(":")
            key = key.strip().upper()
            if key == "NAME":
                name = value.strip()
            elif key == "DIMENSION":
                n = int(value)
            elif key == "EDGE_WEIGHT_FORMAT" and value.strip().upper() != "FULL_MATRIX":
                sys.exit(f"{path}: EDGE_WEIGHT_FORMAT {value.strip()} is not FULL_MATRIX")
            elif key == "EDGE_WEIGHT_SECTION":
                in_weights = True
    if n is None or len(numbers) < n * n:
        sys.exit(f"{path}: expected {n}x{n} weights, found {len(numbers)}")
    return name or path, [numbers[i * n : (i + 1) * n] for i in range(n)]
