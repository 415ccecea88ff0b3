#!/usr/bin/env bash
# Builds what a release ships, into DIST (default target/dist), and checks each:
#   wheel  the Python package as an abi3 manylinux wheel (CPython 3.9 and later, one file),
#          with both licences inside; `pip install thicket_solve-*.whl` then takes seconds.
#          For x86-64 by default; `--target aarch64-unknown-linux-gnu` cross-builds the ARM
#          wheel (zig links it too; the Rust target is added with rustup where missing). Not
#          run by CI (its time budget); docs/python.md says whether a release ships it.
#   cli    the `thicket` binary (it links only the C library; CUDA is loaded at run time) with
#          the licences and the README, as thicket-VERSION-ARCH-linux.tar.gz, and `thicket
#          --version` run from the unpacked tarball
#   sdist  the Python source distribution, with both licences
# CI runs `wheel` and `cli` as a dry run (.ci/run): the tests then run against the wheel.
# Usage: scripts/release.sh wheel|cli|sdist [DIST] [--target TRIPLE]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
usage="usage: scripts/release.sh wheel|cli|sdist [DIST] [--target TRIPLE]"
what=${1:?$usage}
shift
dist=target/dist
target=
while [ $# -gt 0 ]; do
    case $1 in
    --target) target=${2:?$usage}; shift 2 ;;
    -*) echo "$usage" >&2; exit 2 ;;
    *) dist=$1; shift ;;
    esac
done
if [ -n "$target" ] && [ "$what" != wheel ]; then
    echo "release: --target is for wheels only" >&2
    exit 2
fi
dist=$(realpath -m "$dist")
mkdir -p "$dist"
python=${PYTHON:-python3}
# A relative path to the Python (a virtual environment's) made absolute: the wheel is built
# from python/.
case $python in */*) python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")" ;; esac

# Fails unless the archive $1 lists both licence files.
has_licences() {
    "$python" - "$1" <<'PY'
import sys, tarfile, zipfile
path = sys.argv[1]
names = zipfile.ZipFile(path).namelist() if path.endswith(".whl") else tarfile.open(path).getnames()
missing = [l for l in ("LICENSE-MIT", "LICENSE-APACHE") if not any(n.endswith(l) for n in names)]
if missing:
    sys.exit(f"{path}: no {', '.join(missing)} inside")
PY
}

case $what in
wheel)
    rm -f "$dist"/thicket_solve-*.whl
    target_flags=()
    if [ -n "$target" ]; then
        if ! rustup target list --installed | grep -qx "$target"; then
            rustup target add "$target"
        fi
        target_flags=(--target "$target")
    fi
    # Linked by zig against glibc 2.17's symbols, so that the wheel is manylinux2014 whatever
    # the build machine's glibc (maturin checks the symbols; a plain build here needs 2.34).
    "$python" -m pip install --quiet "maturin>=1.9,<2" ziglang
    # maturin finds zig through `python3 -m ziglang` on the PATH: this Python's first.
    python_bin=$(dirname "$(realpath "$(command -v "$python")")")
    venv_bin=$(dirname "$(command -v "$python")")
    # No --release: it would override the `python` profile pyproject.toml names (release,
    # with panics unwinding into Python).
    (cd python && PATH="$venv_bin:$python_bin:$PATH" "$python" -m maturin build --zig \
        --compatibility manylinux2014 --interpreter "$python" --out "$dist" --quiet \
        "${target_flags[@]}")
    wheel=$(ls "$dist"/thicket_solve-*.whl)
    case $wheel in *-abi3-*manylinux*) ;; *) echo "release: $wheel is not an abi3 manylinux wheel" >&2; exit 1;; esac
    case $target in
    aarch64-*) case $wheel in *_aarch64.whl) ;; *) echo "release: $wheel is not for aarch64" >&2; exit 1;; esac ;;
    esac
    has_licences "$wheel"
    echo "$wheel"
    ;;
cli)
    version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
    arch=$(uname -m)
    cargo build --release --locked -p thicket-cli --bin thicket
    staging=$(mktemp -d)
    name="thicket-$version-$arch-linux"
    mkdir "$staging/$name"
    cp target/release/thicket LICENSE-MIT LICENSE-APACHE README.md "$staging/$name/"
    tarball="$dist/$name.tar.gz"
    tar -czf "$tarball" -C "$staging" "$name"
    has_licences "$tarball"
    # What the binary needs from the system: the C library and the loader, nothing of CUDA.
    if ldd "$staging/$name/thicket" | grep -Ev 'linux-vdso|libc\.so|libm\.so|libgcc_s|ld-linux|libpthread|libdl|librt' | grep -q '=>'; then
        echo "release: the binary links more than the C library:" >&2
        ldd "$staging/$name/thicket" >&2
        exit 1
    fi
    unpacked=$(mktemp -d)
    tar -xzf "$tarball" -C "$unpacked"
    "$unpacked/$name/thicket" --version
    rm -rf "$staging" "$unpacked"
    echo "$tarball"
    ;;
sdist)
    rm -f "$dist"/thicket_solve-*.tar.gz
    "$python" -m pip install --quiet maturin
    (cd python && "$python" -m maturin sdist --out "$dist")
    has_licences "$(ls "$dist"/thicket_solve-*.tar.gz)"
    ;;
*)
    echo "$usage" >&2
    exit 2
    ;;
esac
