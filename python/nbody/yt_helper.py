"""nbody snapshots in yt, with their units and a bounding box (yt needs one for an isolated
system: a GADGET header's BoxSize is 0)."""
import os

import numpy as np

__all__ = ["to_yt"]


def _box(positions, margin=0.05):
    """A box around the bodies, each side widened by ``margin`` of its length (at least by a
    tiny amount, so a flat or single-body system still has volume), as [[x0, x1], [y0, y1], [z0, z1]]."""
    pos = np.asarray(positions, dtype=np.float64)
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    pad = np.maximum(margin * (hi - lo), 1e-6 * np.maximum(1.0, np.abs(hi).max()))
    return [[float(a), float(b)] for a, b in zip(lo - pad, hi + pad)]


def _unit_base(units):
    keys = ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s")
    return {k: float(units[k]) for k in keys} if units else None


def to_yt(snapshot, bounding_box=None, margin=0.05):
    """A yt dataset of a snapshot: a path (read with nbody's reader), a :class:`nbody.Snapshot`,
    or a :class:`nbody.Simulation` (its current state).

    The code units are the run's (kpc, Msun, km/s for galactic; au, Msun, au/yr for solar; 1 for
    Henon units) and the bounding box encloses the bodies with ``margin`` to spare unless given.
    An HDF5 snapshot file is opened with yt's GADGET frontend (fields ``("PartType1", ...)``,
    units passed as ``unit_base``, which yt 4 reads instead of the file's /Units); anything else
    is loaded with ``yt.load_particles`` (fields ``("io", "particle_position_x")``, ...)."""
    import yt

    from .files import Snapshot, load

    sim = None
    if isinstance(snapshot, (str, os.PathLike)):
        snap = load(snapshot)
        if not isinstance(snap, Snapshot):
            raise ValueError(f"to_yt: {os.fspath(snapshot)} is not a snapshot file")
    elif isinstance(snapshot, Snapshot):
        snap = snapshot
    else:  # a Simulation
        sim = snapshot
        snap = None

    if snap is not None:
        positions, units, time = snap.positions, snap.units, snap.time
    else:
        from . import _core
        positions, time = sim.positions, sim.t
        u = _core.unit_system(sim.config["units"])
        units = {k: u[k] for k in ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s", "UnitTime_in_s")}
    bbox = bounding_box if bounding_box is not None else _box(positions, margin)

    if snap is not None and snap.format == "hdf5":
        kwargs = {"bounding_box": bbox}
        base = _unit_base(units)
        if base:
            kwargs["unit_base"] = base
        return yt.load(snap.path, **kwargs)

    p = snap if snap is not None else None
    arrays = sim.particles() if sim is not None else {k: getattr(p, k) for k in ("x", "y", "z", "vx", "vy", "vz", "m")}
    u = units or {"UnitLength_in_cm": 1.0, "UnitMass_in_g": 1.0, "UnitVelocity_in_cm_per_s": 1.0}
    length, mass, velocity = float(u["UnitLength_in_cm"]), float(u["UnitMass_in_g"]), float(u["UnitVelocity_in_cm_per_s"])
    data = {
        ("io", "particle_position_x"): np.asarray(arrays["x"]),
        ("io", "particle_position_y"): np.asarray(arrays["y"]),
        ("io", "particle_position_z"): np.asarray(arrays["z"]),
        ("io", "particle_velocity_x"): np.asarray(arrays["vx"]),
        ("io", "particle_velocity_y"): np.asarray(arrays["vy"]),
        ("io", "particle_velocity_z"): np.asarray(arrays["vz"]),
        ("io", "particle_mass"): np.asarray(arrays["m"]),
    }
    return yt.load_particles(data, length_unit=(length, "cm"), mass_unit=(mass, "g"),
                             time_unit=(length / velocity, "s"), velocity_unit=(velocity, "cm/s"),
                             bbox=np.array(bbox), sim_time=time)
