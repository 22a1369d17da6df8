#!/usr/bin/env bash
# The documented install: `pip install --no-build-isolation .` from the checkout into a virtual
# environment made with --system-site-packages (Debian's numpy, setuptools, wheel, pybind11 seen
# from it), with NBODY_BUILD_DIR pointing at this build tree so the module already built is taken
# rather than built again; then the package imports from the environment, outside the checkout,
# and runs a simulation.
#   install_check.sh PYTHON SOURCE_DIR BUILD_DIR WORK_DIR      (exit 77: skipped)
set -euo pipefail
py="$1" src="$2" build="$3" work="$4"
rm -rf "$work" && mkdir -p "$work"
if ! "$py" -m venv --system-site-packages "$work/venv" >"$work/venv.log" 2>&1; then
  echo "SKIP: $py cannot make a virtual environment (Debian: python3-venv)"; exit 77
fi
if ! "$work/venv/bin/python" -c "import numpy, setuptools, wheel, pip" 2>/dev/null; then
  echo "SKIP: numpy, setuptools, wheel or pip not visible in a --system-site-packages environment of $py"; exit 77
fi
cd "$src"
NBODY_BUILD_DIR="$build" "$work/venv/bin/python" -m pip install -q --no-build-isolation --no-index --no-cache-dir .
cd "$work"
"$work/venv/bin/python" - "$work" <<'PY'
import os, sys
import nbody
where = os.path.realpath(nbody.__file__)
assert where.startswith(os.path.realpath(sys.argv[1])), f"imported from {where}, not the environment"
sim = nbody.Simulation(n=256, device="cpu", precision="fp64")
sim.step(5)
assert sim.step_count == 5 and sim.diagnostics()["energy_error"] < 1e-2
print(f"installed into {sys.prefix}: {where}; {sim!r}")
PY
