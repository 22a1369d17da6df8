#!/usr/bin/env python3
"""nbody pic run writes openPMD files that h5py reads: the standard's attributes, meshes with their
unit dimensions and staggering, species records. Exit 77 (skipped) without h5py/numpy.
usage: test_openpmd_h5py.py NBODY WORKDIR"""
import os
import shutil
import subprocess
import sys

try:
    import h5py
    import numpy as np
except ImportError:
    sys.exit(77)

nbody, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
cfg = os.path.join(work, "pic.toml")
with open(cfg, "w") as f:
    f.write("""
[grid]
nx = 40
ny = 4
dx = 0.025
dy = 0.05
boundary_x = "open"
[time]
steps = 30
[laser]
a0 = 1.0
duration = 2.0
[output]
fields_every = 30
[[species]]
name = "electron"
ppc = 2
density = 2.0
x_start = 0.5
boundary_xmin = "reflect"
boundary_xmax = "reflect"
[[species]]
name = "deuteron"
ppc = 2
density = 2.0
x_start = 0.5
boundary_xmin = "reflect"
boundary_xmax = "reflect"
""")
subprocess.run([nbody, "pic", "run", "--config", cfg, "--out", os.path.join(work, "out")], check=True,
               stdout=subprocess.DEVNULL)
path = os.path.join(work, "out", "pic_00000030.h5")
with h5py.File(path, "r") as f:
    assert f.attrs["openPMD"].decode() == "1.1.0"
    assert f.attrs["iterationEncoding"].decode() == "fileBased"
    it = f["data/30"]
    assert abs(it.attrs["timeUnitSI"] - 1e-6 / (2 * np.pi * 299792458.0)) < 1e-25
    E = it["meshes/E"]
    assert list(E.attrs["unitDimension"]) == [1, 1, -3, -1, 0, 0, 0]
    assert [a.decode() for a in E.attrs["axisLabels"]] == ["x", "y"]
    assert E["y"].shape == (41, 5)
    assert list(E["x"].attrs["position"]) == [0.5, 0.0]
    assert np.abs(E["y"][()]).max() > 0.1  # the laser
    rho = it["meshes/rho"]
    assert rho.shape == (41, 5)
    e = it["particles/electron"]
    n = e["position/x"].shape[0]
    assert n > 0 and e["momentum/z"].shape == (n,) and e["weighting"].shape == (n,)
    assert e["charge"].attrs["value"] == -1.0 and int(e["charge"].attrs["shape"][0]) == n
    d = it["particles/deuteron"]
    assert d["mass"].attrs["value"] == 3670.48
print("openPMD file read by h5py:", path)
