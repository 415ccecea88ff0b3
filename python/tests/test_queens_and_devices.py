"""N-Queens against OEIS, and device discovery."""

import pytest

import thicket_solve as thicket
from conftest import needs_gpu

# OEIS A000170 (all solutions) and A002562 (distinct under rotations and reflections).
A000170 = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712]
A002562 = [1, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787, 9233]


@pytest.mark.parametrize("n", range(1, 14))
def test_queens_match_oeis(n):
    answer = thicket.queens(n, backend="cpu")
    assert (answer["total"], answer["unique"]) == (A000170[n - 1], A002562[n - 1])
    assert answer["backend"] == "cpu" and answer["seconds"] >= 0


def test_auto_runs_somewhere_and_says_where():
    answer = thicket.queens(8)
    assert answer["total"] == 92
    assert answer["backend"] in ("cpu", "cuda")


def test_bad_sizes_and_backends_are_value_errors():
    with pytest.raises(ValueError, match="invalid input"):
        thicket.queens(0, backend="cpu")
    with pytest.raises(ValueError, match="invalid input"):
        thicket.queens(-3)
    with pytest.raises(ValueError, match='unknown backend "gpu"'):
        thicket.queens(8, backend="gpu")


def test_devices_are_dicts():
    for device in thicket.devices():
        assert {"name", "sms", "memory", "compute_capability"} <= set(device)


def test_cuda_without_a_gpu_is_a_runtime_error():
    if thicket.devices():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="backend unavailable"):
        thicket.queens(8, backend="cuda")


@needs_gpu
def test_queens_on_the_gpu():
    answer = thicket.queens(12, backend="cuda")
    assert (answer["total"], answer["backend"]) == (14200, "cuda")
