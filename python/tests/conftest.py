"""Shared fixtures: a seeded random generator, whether a GPU is there, and Python's own Ctrl-C
handler for every test."""

import os
import signal
import threading

import numpy as np
import pytest

import thicket_solve as thicket


@pytest.fixture
def rng():
    return np.random.default_rng(20261127)


def gpu_present():
    return bool(thicket.devices())


needs_gpu = pytest.mark.skipif(not gpu_present(), reason="no usable CUDA device")


@pytest.fixture(autouse=True)
def python_handles_ctrl_c():
    """Python's KeyboardInterrupt handler for SIGINT during each test, as an interactive
    session has it. A process that a non-interactive shell starts in the background inherits
    SIGINT ignored, and Python then installs no handler of its own, so no Ctrl-C test could
    pass there (thicket leaves an ignored SIGINT ignored)."""
    if os.name != "posix" or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)

