"""Reading what nbody writes: snapshots (HDF5, Tipsy, CSV), checkpoints and run directories.

Every file is read by the engine's own readers (the checks and messages of ``nbody run --ic
file:PATH``); a bad file raises ``ValueError`` naming it.
"""
import os
import re

import numpy as np

from . import _core

try:
    import tomllib as _toml
except ImportError:  # Python < 3.11
    _toml = None

__all__ = ["Snapshot", "Checkpoint", "Run", "load"]

_FIELDS = ("x", "y", "z", "vx", "vy", "vz", "m", "id")


class _Bodies:
    """Particle arrays (float64; id uint64) with positions/velocities as (n, 3), and the bodies'
    components: ``component`` (uint8, an index into ``component_names``, the model's parts by
    index; no names: one unnamed component, every body 0)."""

    def _set(self, arrays):
        for name in _FIELDS:
            setattr(self, name, arrays[name])
        self.component = arrays["component"]
        self.component_names = list(arrays["component_names"])

    @property
    def n(self):
        return len(self.m)

    def __len__(self):
        return self.n

    @property
    def positions(self):
        """An (n, 3) array of the positions."""
        return np.stack([self.x, self.y, self.z], axis=1)

    @property
    def velocities(self):
        """An (n, 3) array of the velocities."""
        return np.stack([self.vx, self.vy, self.vz], axis=1)


class Snapshot(_Bodies):
    """A particle file read whole: ``x, y, z, vx, vy, vz, m`` (float64, exact for float32 files)
    and ``id`` (uint64) arrays, ``positions``/``velocities`` (n, 3), ``time``, ``format``,
    ``precision`` (as stored; None for CSV), ``units`` (the cgs factors the file records, a dict
    with UnitLength_in_cm, UnitMass_in_g, UnitVelocity_in_cm_per_s, UnitTime_in_s, physical; None
    when it records none), and ``config`` (the run's parameters when the file is in a run
    directory, else None)."""

    def __init__(self, path, units=None, config=None):
        self.path = os.fspath(path)
        data = _core.read_particle_file(self.path)
        self._set(data)
        self.time = data["time"]
        self.format = data["format"]
        self.precision = data["precision"]
        self.units = data["units"] if data["units"] is not None else units
        self.config = config

    def __repr__(self):
        return f"<nbody.Snapshot {self.path}: n={self.n} t={self.time:.6g} {self.format}>"


class Checkpoint(_Bodies):
    """A checkpoint file (or a run directory's newest): ``step``, ``time``, ``config`` (dict),
    ``integrator``, ``run_id``, ``file`` and the state as float64 arrays (exact)."""

    def __init__(self, path):
        data = _core.read_checkpoint(os.fspath(path))
        self.file = data["file"]
        self.step = data["step"]
        self.time = data["time"]
        self.config = _core.config_dict(data["config"])
        self.integrator = data["integrator"]
        self.run_id = data["run_id"]
        self._set(data["particles"])

    def __repr__(self):
        return f"<nbody.Checkpoint {self.file}: n={self.n} step={self.step} t={self.time:.6g}>"


def _read_toml(path):
    if _toml is None:
        raise RuntimeError("reading TOML needs Python 3.11 (tomllib)")
    with open(path, "rb") as f:
        return _toml.load(f)


def _read_csv(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    # deletechars="": keep the column names as written ("r_0.5").
    return np.atleast_1d(np.genfromtxt(path, delimiter=",", names=True, comments=None, dtype=None, deletechars=""))


class Run:
    """A run directory of ``nbody run --out DIR`` (or of :func:`nbody.run`).

    ``config`` (the parameters, from config.toml, flattened: {key: value}), ``model`` (model.toml:
    the initial conditions and the unit system), ``units`` (the [units] table: names, G, cgs
    factors), ``diagnostics`` and ``lagrangian_radii`` (numpy structured arrays of the CSV files,
    columns by name: ``run.diagnostics["time"]``, ``run.lagrangian_radii["r_0.5"]``),
    ``snapshot_files``. Iterating gives the snapshots in order as :class:`Snapshot` objects with
    their time and the run's units; ``run[k]`` is the k-th; ``run.checkpoint()`` the newest
    checkpoint."""

    _SNAPSHOT = re.compile(r"^snapshot_(\d+)\.(hdf5|h5|tipsy|csv)$")

    def __init__(self, path):
        self.path = os.fspath(path)
        if not os.path.isdir(self.path):
            raise _core.InputError(f"{self.path}: not a directory")
        cfg_file = os.path.join(self.path, "config.toml")
        if not os.path.isfile(cfg_file):
            raise _core.InputError(f"{self.path}: not a run directory (no config.toml)")
        self.result = None
        toml = _read_toml(cfg_file)
        self.config = {}
        for section in toml.values():
            if isinstance(section, dict):
                self.config.update(section)
        model_file = os.path.join(self.path, "model.toml")
        self.model = _read_toml(model_file) if os.path.isfile(model_file) else {}
        self.units = self.model.get("units")

    @property
    def snapshot_files(self):
        """Paths of the snapshots, in order."""
        found = []
        for name in os.listdir(self.path):
            match = self._SNAPSHOT.match(name)
            if match:
                found.append((int(match.group(1)), os.path.join(self.path, name)))
        return [p for _, p in sorted(found)]

    def _units_cgs(self):
        if not self.units:
            return None
        keys = ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s", "UnitTime_in_s", "physical")
        return {k: self.units[k] for k in keys if k in self.units}

    def __len__(self):
        return len(self.snapshot_files)

    def __getitem__(self, k):
        return Snapshot(self.snapshot_files[k], units=self._units_cgs(), config=self.config)

    def __iter__(self):
        for path in self.snapshot_files:
            yield Snapshot(path, units=self._units_cgs(), config=self.config)

    @property
    def diagnostics(self):
        """diagnostics.csv as a structured array (None when empty)."""
        return _read_csv(os.path.join(self.path, "diagnostics.csv"))

    @property
    def lagrangian_radii(self):
        """lagrangian_radii.csv as a structured array (None when empty)."""
        return _read_csv(os.path.join(self.path, "lagrangian_radii.csv"))

    def checkpoint(self):
        """The newest checkpoint that reads back whole (a :class:`Checkpoint`)."""
        return Checkpoint(self.path)

    def __repr__(self):
        return f"<nbody.Run {self.path}: {self.config.get('ic')} n={self.config.get('n')} {len(self)} snapshots>"


def load(path):
    """Opens what nbody writes: a run directory (:class:`Run`), a checkpoint file (``.ckpt``:
    :class:`Checkpoint`) or a particle file (:class:`Snapshot`; HDF5, Tipsy or CSV). A snapshot
    inside a run directory carries the run's configuration and units."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return Run(path)
    if path.endswith(".ckpt"):
        return Checkpoint(path)
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.isfile(os.path.join(parent, "config.toml")):
        try:
            run = Run(parent)
            return Snapshot(path, units=run._units_cgs(), config=run.config)
        except (OSError, ValueError):
            pass
    return Snapshot(path)
