#!/usr/bin/env python3
"""The openPMD files of `nbody pic run` against the openPMD standard 1.1.0, checked as its
validator (openPMD-validator's check_h5.py) would: every attribute the standard requires (an error
when missing or of the wrong type) and every one it recommends (a warning) for what the files
hold, plus the standard's rules on values (a weighting record with unitSI 1, positions of mesh
components in [0, 1), particle patches covering their particles). Then the content: each record's
timeOffset (J and the momenta half a step behind), the particles' ids (uint64, unique, those of
the load, fewer once some were absorbed), author and date from the environment and never from
the clock (two runs give the same bytes). Exit 77 (skipped) without h5py/numpy.
usage: test_openpmd_standard.py NBODY WORKDIR"""
import csv
import os
import re
import shutil
import subprocess
import sys
import time

try:
    import h5py
    import numpy as np
except ImportError:
    sys.exit(77)

nbody, work = sys.argv[1], os.path.abspath(sys.argv[2])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

FLOATS = (np.float32, np.float64, np.longdouble)
WORD = re.compile(r"^\w+$", re.ASCII)


class Report:
    def __init__(self):
        self.errors, self.warnings = [], []

    def attr(self, obj, name, scope, types=None, array_of=None, form=None):
        """The attribute `name` of obj: an error (required) or a warning (recommended) when missing;
        an error when not of `types` (a scalar's type), not an array of `array_of`, or a string
        not matching the regular expression `form`."""
        if name not in obj.attrs:
            if scope == "required":
                self.errors.append(f"{obj.name}: no attribute {name}")
            elif scope == "recommended":
                self.warnings.append(f"{obj.name}: no attribute {name} (recommended)")
            return None
        v = obj.attrs[name]
        if array_of is not None:
            if not isinstance(v, np.ndarray) or not issubclass(v.dtype.type, array_of):
                self.errors.append(f"{obj.name}: {name} is not an array of {array_of}: {v!r}")
        elif types is not None and not isinstance(v, types):
            self.errors.append(f"{obj.name}: {name} is a {type(v).__name__}, not {types}")
        elif form is not None and not re.match(form, v.decode()):
            self.errors.append(f"{obj.name}: {name} = {v.decode()!r} does not match {form}")
        return v


def is_constant(obj):
    return isinstance(obj, h5py.Group) and "value" in obj.attrs


def components(record):
    """A record's components: itself for a scalar (a dataset or a constant group), else its members."""
    if isinstance(record, h5py.Dataset) or is_constant(record):
        return [record]
    return [record[k] for k in record]


def check_component(r, c, n=None):
    """unitSI on every component; a constant one has value and shape (uint64); returns its length."""
    r.attr(c, "unitSI", "required", np.float64)
    if is_constant(c):
        r.attr(c, "value", "required")
        shape = r.attr(c, "shape", "required", array_of=np.uint64)
        return tuple(int(k) for k in shape) if shape is not None else None
    return c.shape


def check_file(path):
    r = Report()
    f = h5py.File(path, "r")
    # The root group.
    r.attr(f, "openPMD", "required", np.bytes_, form=r"^[0-9]+\.[0-9]+\.[0-9]+$")
    r.attr(f, "openPMDextension", "required", np.uint32)
    r.attr(f, "basePath", "required", np.bytes_, form=r"^/data/%T/$")
    r.attr(f, "iterationEncoding", "required", np.bytes_, form=r"^(groupBased|fileBased)$")
    fmt = r.attr(f, "iterationFormat", "required", np.bytes_)
    meshes_path = r.attr(f, "meshesPath", "optional", np.bytes_, form=r"^.*/$")
    particles_path = r.attr(f, "particlesPath", "optional", np.bytes_, form=r"^.*/$")
    r.attr(f, "author", "recommended", np.bytes_)
    r.attr(f, "software", "recommended", np.bytes_)
    r.attr(f, "softwareVersion", "recommended", np.bytes_)
    r.attr(f, "date", "recommended", np.bytes_, form=r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}$")
    for name in ("softwareDependencies", "machine", "comment"):
        r.attr(f, name, "optional", np.bytes_)
    if fmt is not None and f.attrs.get("iterationEncoding") == b"fileBased":
        pattern = "^" + re.escape(fmt.decode()).replace("%T", "[0-9]+") + "$"
        if not re.match(pattern, os.path.basename(path)):
            r.errors.append(f"iterationFormat {fmt.decode()!r} does not name {os.path.basename(path)}")
    iterations = list(f["data"].keys())
    assert iterations and all(k.isdigit() for k in iterations), iterations
    for it in iterations:
        base = f["data"][it]
        r.attr(base, "time", "required", FLOATS)
        r.attr(base, "dt", "required", FLOATS)
        r.attr(base, "timeUnitSI", "required", np.float64)
        if meshes_path is not None:
            if meshes_path.decode().rstrip("/") not in base:
                r.errors.append(f"{base.name}: meshesPath set but no group")
            else:
                check_meshes(r, base[meshes_path.decode()])
        if particles_path is not None:
            if particles_path.decode().rstrip("/") not in base:
                r.errors.append(f"{base.name}: particlesPath set but no group")
            else:
                for species in base[particles_path.decode()].values():
                    check_species(r, species)
    f.close()
    return r


def check_meshes(r, meshes):
    for name, mesh in meshes.items():
        if not WORD.match(name):
            r.errors.append(f"mesh record name {name!r}")
        r.attr(mesh, "unitDimension", "required", array_of=np.float64)
        if len(mesh.attrs.get("unitDimension", [])) != 7:
            r.errors.append(f"{mesh.name}: unitDimension has not 7 values")
        r.attr(mesh, "timeOffset", "required", FLOATS)
        geometry = r.attr(mesh, "geometry", "required", np.bytes_, form=r"^(cartesian|thetaMode|cylindrical|spherical|other)$")
        r.attr(mesh, "geometryParameters", "required" if geometry == b"thetaMode" else "optional", np.bytes_)
        r.attr(mesh, "dataOrder", "required", np.bytes_, form=r"^[CF]$")
        labels = r.attr(mesh, "axisLabels", "required", array_of=np.bytes_)
        spacing = r.attr(mesh, "gridSpacing", "required", array_of=np.floating)
        offset = r.attr(mesh, "gridGlobalOffset", "required", array_of=np.float64)
        r.attr(mesh, "gridUnitSI", "required", np.float64)
        for c in components(mesh):
            if not WORD.match(c.name.split("/")[-1]):
                r.errors.append(f"component name {c.name!r}")
            shape = check_component(r, c)
            position = r.attr(c, "position", "required", array_of=np.floating)
            ndim = len(shape) if shape is not None else None
            for what, v in (("axisLabels", labels), ("gridSpacing", spacing), ("gridGlobalOffset", offset),
                            ("position", position)):
                if v is not None and ndim is not None and len(v) != ndim:
                    r.errors.append(f"{c.name}: {what} has {len(v)} values for {ndim} dimensions")
            if position is not None and not ((position >= 0) & (position < 1)).all():
                r.errors.append(f"{c.name}: position {position} not in [0, 1)")


def check_species(r, species):
    for key in ("position", "positionOffset"):
        if key not in species:
            r.errors.append(f"{species.name}: no {key} record")
    if "position" in species and "positionOffset" in species and \
            sorted(species["position"].keys()) != sorted(species["positionOffset"].keys()):
        r.errors.append(f"{species.name}: position and positionOffset have other components")
    lengths = set()
    for name, record in species.items():
        if not WORD.match(name):
            r.errors.append(f"record name {name!r}")
        if name == "particlePatches":
            continue
        r.attr(record, "unitDimension", "required", array_of=np.float64)
        r.attr(record, "timeOffset", "required", FLOATS)
        for c in components(record):
            lengths.add(check_component(r, c))
        if name == "weighting":
            if record.attrs.get("unitSI") != 1.0 or record.attrs.get("weightingPower") != 1.0 or \
                    record.attrs.get("macroWeighted") != 1 or list(record.attrs.get("unitDimension", [])) != [0] * 7:
                r.errors.append(f"{record.name}: weighting needs unitSI 1, weightingPower 1, macroWeighted 1, no dimension")
        if name == "id" and (not isinstance(record, h5py.Dataset) or record.dtype != np.uint64):
            r.errors.append(f"{record.name}: not a uint64 dataset")
    if len(lengths) != 1:
        r.errors.append(f"{species.name}: records of different lengths {lengths}")
    if "particlePatches" not in species:
        r.warnings.append(f"{species.name}: no particlePatches (recommended)")
        return
    patches = species["particlePatches"]
    for key in ("numParticles", "numParticlesOffset", "offset", "extent"):
        if key not in patches:
            r.errors.append(f"{patches.name}: no {key}")
            return
    n = next(iter(lengths))[0]
    if int(patches["numParticles"][()].sum()) != n:
        r.errors.append(f"{patches.name}: numParticles does not add up to {n}")
    for axis in species["position"]:
        for key in ("offset", "extent"):
            if axis not in patches[key]:
                r.errors.append(f"{patches.name}/{key}: no component {axis}")
            else:
                check_component(r, patches[key][axis])
        pos = species["position"][axis][()]
        for p, (start, count) in enumerate(zip(patches["numParticlesOffset"][()], patches["numParticles"][()])):
            lo, ext = patches["offset"][axis][p], patches["extent"][axis][p]
            part = pos[int(start):int(start) + int(count)]
            if part.size and not ((part >= lo) & (part < lo + ext)).all():
                r.errors.append(f"{patches.name}: patch {p} does not hold its particles along {axis}")


# A run with two species, a laser, particles drifting into the absorbing right boundary.
cfg = os.path.join(work, "pic.toml")
with open(cfg, "w") as f:
    f.write("""
[grid]
nx = 48
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
fields_every = 15
[[species]]
name = "electron"
ppc = 2
density = 2.0
x_start = 0.5
drift_ux = 1.0
boundary_xmin = "reflect"
boundary_xmax = "absorb"
[[species]]
name = "deuteron"
ppc = 2
density = 2.0
x_start = 0.5
boundary_xmin = "reflect"
boundary_xmax = "absorb"
""")


def run(out, env_extra):
    env = {k: v for k, v in os.environ.items() if k not in ("NBODY_AUTHOR", "SOURCE_DATE_EPOCH")}
    env.update(env_extra)
    subprocess.run([nbody, "pic", "run", "--config", cfg, "--out", out], check=True, stdout=subprocess.DEVNULL, env=env)
    return sorted(os.path.join(out, n) for n in os.listdir(out) if n.endswith(".h5"))


origin = {"NBODY_AUTHOR": "A. Tester <a.tester@example.org>", "SOURCE_DATE_EPOCH": "1700000000"}
files = run(os.path.join(work, "a"), origin)
assert [os.path.basename(p) for p in files] == ["pic_00000000.h5", "pic_00000015.h5", "pic_00000030.h5"], files
for path in files:
    rep = check_file(path)
    assert not rep.errors and not rep.warnings, (path, rep.errors, rep.warnings)

with h5py.File(files[-1], "r") as f:
    assert f.attrs["author"] == b"A. Tester <a.tester@example.org>"
    assert f.attrs["date"] == b"2023-11-14 22:13:20 +0000"
    it = f["data/30"]
    dt = it.attrs["dt"]
    half = -0.5 * dt
    for rec in ("meshes/E", "meshes/B", "meshes/rho", "particles/electron/position", "particles/electron/weighting",
                "particles/electron/id", "particles/deuteron/charge"):
        assert it[rec].attrs["timeOffset"] == 0.0, rec
    for rec in ("meshes/J", "particles/electron/momentum", "particles/deuteron/momentum"):
        assert it[rec].attrs["timeOffset"] == half, (rec, it[rec].attrs["timeOffset"], half)
    # The ids: the load's indices, unique, in the order the slabs would gather them (ascending),
    # fewer than loaded once particles were absorbed at the right.
    with open(os.path.join(work, "a", "diagnostics.csv")) as d:
        rows = list(csv.DictReader(d))
    loaded = int(rows[0]["count_electron"])
    ids = it["particles/electron/id"][()]
    assert ids.dtype == np.uint64
    assert len(ids) == int(rows[-1]["count_electron"]) == it["particles/electron/position/x"].shape[0]
    assert len(ids) < loaded, "the test needs absorbed electrons"
    assert (np.diff(ids.astype(np.int64)) > 0).all() and int(ids[-1]) < loaded
    assert set(it["particles/deuteron/id"][()].tolist()) <= set(range(int(rows[0]["count_deuteron"])))
    # The weighting: real particles per macroparticle over 1 m of z, w n_c (c/omega0)^2 x 1 m.
    w = it["particles/deuteron/weighting"][()]
    lam = 1e-6
    n_c = 8.8541878128e-12 * 9.1093837015e-31 * (2 * np.pi * 299792458.0 / lam) ** 2 / 1.602176634e-19 ** 2
    k0 = 2 * np.pi / lam
    dx, dy, ppc = 0.025 * 2 * np.pi, 0.05 * 2 * np.pi, 2  # in c/omega0
    assert np.allclose(w, 2.0 * dx * dy / ppc * n_c / k0 ** 2, rtol=1e-6), (w[:3], 2.0 * dx * dy / ppc * n_c / k0 ** 2)
with h5py.File(files[0], "r") as f:
    assert (f["data/0/particles/electron/id"][()] == np.arange(loaded, dtype=np.uint64)).all()

# The same run again a second later: the same bytes (no modification times, no clock).
time.sleep(1.1)
again = run(os.path.join(work, "b"), origin)
for p, q in zip(files, again):
    with open(p, "rb") as x, open(q, "rb") as y:
        assert x.read() == y.read(), f"{q} differs from {p}"

# Without NBODY_AUTHOR and SOURCE_DATE_EPOCH the files have no author and no date (the two
# recommended attributes the validator then warns about) rather than the clock's.
plain = run(os.path.join(work, "c"), {})
rep = check_file(plain[-1])
assert not rep.errors, rep.errors
assert sorted(rep.warnings) == ["/: no attribute author (recommended)", "/: no attribute date (recommended)"], rep.warnings
print("openPMD files pass the standard's checks:", files)
