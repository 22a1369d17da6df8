"""pytest configuration of the Python API's tests (tests/python/test_api_*.py and friends).

ctest runs them (test `python.api`) with PYTHONPATH at the build's package (<build>/python) and
NBODY_EXE at the build's program; by hand:
    PYTHONPATH=build-cpu/python NBODY_EXE=build-cpu/src/nbody /usr/bin/python3 -m pytest tests/python
Tests marked `gpu` need a CUDA device and are skipped without one; `slow` ones are left out unless
NBODY_SLOW=1.
"""
import os
import shutil
import subprocess

import pytest

# The CPU work of every test on one thread: tests run beside each other, and results do not
# depend on the thread count.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped without one)")
    config.addinivalue_line("markers", "slow: long; run with NBODY_SLOW=1")


_gpu = None


def gpu_usable():
    """Whether a simulation can run on a CUDA device here (a CUDA build and a device)."""
    global _gpu
    if _gpu is None:
        import nbody
        _gpu = False
        if nbody.cuda_available():
            try:
                nbody.Simulation(n=4, device="cuda").engine
                _gpu = True
            except ValueError:
                pass
    return _gpu


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "gpu" in item.keywords and not gpu_usable():
            item.add_marker(pytest.mark.skip(reason="no usable CUDA device (or a build without CUDA)"))
        if "slow" in item.keywords and os.environ.get("NBODY_SLOW") != "1":
            item.add_marker(pytest.mark.skip(reason="slow: run with NBODY_SLOW=1"))


@pytest.fixture(scope="session")
def nbody_exe():
    """The build's nbody program (NBODY_EXE), for the tests that cross between it and Python."""
    exe = os.environ.get("NBODY_EXE") or shutil.which("nbody")
    if not exe or not os.path.exists(exe):
        pytest.skip("NBODY_EXE is not set to the nbody program of this build")
    return exe


@pytest.fixture
def cli(nbody_exe):
    """Runs the program; returns the CompletedProcess (output captured)."""
    def run(*args, check=True):
        r = subprocess.run([nbody_exe, *map(str, args)], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"nbody {' '.join(map(str, args))} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
        return r
    return run


@pytest.fixture(scope="session")
def root():
    return ROOT
