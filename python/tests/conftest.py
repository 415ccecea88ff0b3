"""Shared fixtures: a seeded random generator, and whether a GPU is there."""

import numpy as np
import pytest

import thicket


@pytest.fixture
def rng():
    return np.random.default_rng(20261127)


def gpu_present():
    return bool(thicket.devices())


needs_gpu = pytest.mark.skipif(not gpu_present(), reason="no usable CUDA device")
