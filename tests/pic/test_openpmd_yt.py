#!/usr/bin/env python3
"""yt's openPMD frontend shows the meshes of `nbody pic run` the right way round: a plasma slab
whose charge density depends on x alone (a step at x_start, periodic and uniform along y) varies
along yt's x axis, with the domain's extent along x and y from the grid. h5py sees the same array
(x the first index). Exit 77 (skipped) without yt, h5py or numpy.
usage: test_openpmd_yt.py NBODY WORKDIR"""
import os
import shutil
import subprocess
import sys

try:
    import h5py
    import numpy as np
    import yt
except ImportError:
    sys.exit(77)

nbody, work = sys.argv[1], os.path.abspath(sys.argv[2])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
nx, ny, dx, dy, x_start = 40, 6, 0.025, 0.05, 0.5  # lengths in wavelengths (1 um)
cfg = os.path.join(work, "pic.toml")
with open(cfg, "w") as f:
    f.write(f"""
[grid]
nx = {nx}
ny = {ny}
dx = {dx}
dy = {dy}
boundary_x = "open"
[time]
steps = 1
[output]
fields_every = 1
[[species]]
name = "electron"
ppc_x = 2
ppc_y = 2
regular = true
density = 2.0
x_start = {x_start}
boundary_xmin = "reflect"
boundary_xmax = "reflect"
""")
out = os.path.join(work, "out")
subprocess.run([nbody, "pic", "run", "--config", cfg, "--out", out], check=True, stdout=subprocess.DEVNULL)
path = os.path.join(out, "pic_00000000.h5")
lam = 1e-6

# h5py: rho[i][j], x the first index; the density is uniform along y.
with h5py.File(path, "r") as f:
    rho = f["data/0/meshes/rho"][()]
    assert rho.shape == (nx + 1, ny + 1), rho.shape
    assert np.abs(rho - rho[:, :1]).max() <= 1e-12 * np.abs(rho).max()
    assert np.abs(rho[: int(x_start / dx) - 1, :]).max() == 0  # no plasma before x_start
    assert (rho[int(x_start / dx) + 2 : nx - 2, :] < 0).all()  # electrons from x_start on

yt.set_log_level(40)
ds = yt.load(path)
assert list(ds.domain_dimensions) == [nx + 1, ny + 1, 1], ds.domain_dimensions
width = (ds.domain_right_edge - ds.domain_left_edge).to("m").value
assert np.allclose(width[:2], [(nx + 1) * dx * lam, (ny + 1) * dy * lam], rtol=1e-12), width
cg = ds.covering_grid(level=0, left_edge=ds.domain_left_edge, dims=ds.domain_dimensions)
r = cg["openPMD", "rho"].value[:, :, 0]
x = cg["index", "x"].to("m").value[:, 0, 0]
assert r.shape == (nx + 1, ny + 1), r.shape
assert np.abs(r - r[:, :1]).max() <= 1e-12 * np.abs(r).max(), "rho varies along yt's y"
assert np.ptp(r[:, 0]) > 0.9 * np.abs(r).max() > 0, "rho does not vary along yt's x"
assert np.abs(r[x < (x_start - 2 * dx) * lam]).max() == 0, "plasma where yt's x is before x_start"
assert (r[(x > (x_start + 2 * dx) * lam) & (x < (nx - 2) * dx * lam)] < 0).all(), "no plasma past x_start"
print("yt shows rho(x) along its x axis:", path)
