"""The examples in examples/python run (in their --quick form) and say what they should."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT

EXAMPLES = os.path.join(ROOT, "examples", "python")


def run_example(name, *args, cwd):
    # The package under test, wherever the example runs from.
    import nbody
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(nbody.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args], cwd=cwd, capture_output=True,
                       text=True, timeout=120, env=env)
    assert r.returncode == 0, f"{name} exited {r.returncode}:\n{r.stdout}\n{r.stderr}"
    return r.stdout


def number_after(text, label):
    line = next(l for l in text.splitlines() if label in l)
    return line.split(label, 1)[1].split()


def test_plummer_cluster(tmp_path):
    # The docstring's equilibrium in the --quick form (256 bodies to t = 0.5): 2K/|W| near 1 at
    # both ends, the half-mass radius level, |dE/E0| of the order it states (1e-4).
    out = run_example("plummer_cluster.py", "--quick", "--out", "runs/p", cwd=tmp_path)
    q0, _, q1 = number_after(out, "virial ratio 2K/|W|:")[:3]
    assert abs(float(q0) - 1) < 0.1 and abs(float(q1) - 1) < 0.1, out
    r0, _, r1 = number_after(out, "half-mass radius:")[:3]
    assert abs(float(r1) / float(r0) - 1) < 0.05, out
    assert float(number_after(out, "|dE/E0| at the end:")[0]) < 1e-3, out
    assert os.path.getsize(tmp_path / "runs/p/diagnostics.png") > 10000


def test_solar_system(tmp_path):
    # The docstring's numbers: the Earth's period within 1e-4 yr of Kepler's, the energy to 1e-10
    # (measured: 4.2e-5 yr and 1e-14).
    out = run_example("solar_system.py", "--quick", cwd=tmp_path)
    assert float(out.split("|dE/E0| = ")[1].split()[0]) < 1e-10, out
    earth = number_after(out, "Earth")
    assert abs(float(earth[earth.index("difference") + 1])) < 1e-4, out
    assert "Mercury" in out


def test_custom_arrays(tmp_path):
    out = run_example("custom_arrays.py", "--quick", cwd=tmp_path)
    assert "minimum" in out and "positions: a" in out


def test_read_run(tmp_path):
    out = run_example("read_run.py", "--out", "runs/k", cwd=tmp_path)
    assert "diagnostics: 11 rows" in out and "half-mass radius" in out
    pytest.importorskip("yt")
    assert "yt:" in out and "total mass" in out


def test_read_run_of_a_henon_run_stays_in_nbody_units(tmp_path):
    # Henon units record no physical scale (cgs factors 1, physical = false): nothing may be
    # converted to Myr or Msun as if the factors were cm and g.
    import nbody
    nbody.run(ic="plummer", n=64, seed=1, steps=20, diag_every=10, snapshot_every=10, out=tmp_path / "h",
              snapshot_format=nbody._core.snapshot_formats()[0], log=None)
    out = run_example("read_run.py", str(tmp_path / "h"), cwd=tmp_path)
    assert "records no physical scale" in out and "(N-body units)" in out
    assert "Myr" not in out and "Msun" not in out


def test_read_run_converts_a_physical_run_through_its_units(tmp_path):
    out = run_example("read_run.py", "--out", "runs/k", cwd=tmp_path)
    # galactic: the time unit kpc/(km/s) is 977.79 Myr; the snapshot at step 50 is at 50 dt
    import nbody
    run = nbody.load(tmp_path / "runs/k")
    myr = run.units["UnitTime_in_s"] / (1e6 * 365.25 * 86400)
    assert myr == pytest.approx(977.79, rel=1e-4)
    assert f"= {myr:.6g} Myr" in out
    assert f"({run[1].time * myr:.4g} Myr)" in out
