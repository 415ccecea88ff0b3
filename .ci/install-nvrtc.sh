#!/usr/bin/env bash
# Installs CUDA 13's NVRTC (libnvrtc.so.13 and libnvrtc-builtins.so.13.0) from PyPI into
# .ci/.nvrtc, so that thicket-gpu's NVRTC tests can compile kernels on machines with no CUDA
# toolkit and no GPU. Needs python3 with pip.
#
# Prints exactly one line on stdout, the shell command that lets cudarc's dynamic loading find
# the library; all progress goes to stderr. Use it as:
#
#     nvrtc_env="$(bash .ci/install-nvrtc.sh)" || exit 1
#     eval "$nvrtc_env"
#
# (Not `eval "$(bash .ci/install-nvrtc.sh)"`: that hides the script's failure.)
# Re-running is cheap: an existing install of the same version is reused.
set -euo pipefail

series='13.0'
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="$repo_root/.ci/.nvrtc"
stamp="$target/.installed-nvidia-cuda-nvrtc-$series"

if [[ ! -e "$stamp" ]]; then
    echo "install-nvrtc: installing nvidia-cuda-nvrtc==$series.* into $target" >&2
    rm -rf "$target"
    python3 -m pip install --quiet --disable-pip-version-check --no-input --no-deps --root-user-action=ignore \
        --only-binary=:all: --target "$target" "nvidia-cuda-nvrtc==$series.*" >&2
    touch "$stamp"
fi

# The wheel's layout has moved between releases (nvidia/cuda_nvrtc/lib for CUDA 12,
# nvidia/cu13/lib for 13.0), so look for the library rather than assume a path.
lib="$(find "$target" -name 'libnvrtc.so.13' -print -quit)"
if [[ -z "$lib" ]]; then
    echo "install-nvrtc: libnvrtc.so.13 not found under $target" >&2
    rm -f "$stamp"
    exit 1
fi
lib_dir="$(dirname "$lib")"
# libnvrtc dlopens its builtins library by name at compile time; without it every compile fails.
if ! compgen -G "$lib_dir/libnvrtc-builtins.so.13*" >/dev/null; then
    echo "install-nvrtc: libnvrtc-builtins.so.13.* missing beside $lib" >&2
    rm -f "$stamp"
    exit 1
fi
# cudarc (feature cuda-13000) tries libnvrtc.so, then libnvrtc.so.13, among other names; the
# wheel ships libnvrtc.so.13, so no symlink is needed.
echo "install-nvrtc: NVRTC ready in $lib_dir" >&2
printf 'export LD_LIBRARY_PATH=%q\n' "$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
