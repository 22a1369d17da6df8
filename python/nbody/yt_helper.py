"""nbody snapshots in yt, with their units and a bounding box (yt needs one for an isolated
system: a GADGET header's BoxSize is 0)."""
import os

import numpy as np

__all__ = ["to_yt"]


def _centre_of_mass(positions, masses):
    pos = np.asarray(positions, dtype=np.float64)
    m = np.asarray(masses, dtype=np.float64)
    return (m[:, None] * pos).sum(axis=0) / m.sum()


def _box(positions, masses, margin=0.05):
    """A box centred on the centre of mass that holds every body, each half-side the farthest
    body's distance along that axis widened by ``margin`` of it (at least by a tiny amount, so a
    flat or single-body system still has volume), as [[x0, x1], [y0, y1], [z0, z1]]."""
    pos = np.asarray(positions, dtype=np.float64)
    com = _centre_of_mass(pos, masses)
    half = np.abs(pos - com).max(axis=0)
    half = half + np.maximum(margin * half, 1e-6 * max(1.0, float(np.abs(pos).max())))
    return [[float(c - h), float(c + h)] for c, h in zip(com, half)]


def _unit_base(units):
    keys = ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s")
    return {k: float(units[k]) for k in keys} if units else None


def _component_filter(ds, name, index):
    """A yt particle type `name`: the bodies of component `index` among ("all", ...) (each
    PartTypeN group of the file carries its bodies' Component)."""
    import yt

    def select(pfilter, data):
        return data[(pfilter.filtered_type, "Component")] == index

    yt.add_particle_filter(name, function=select, filtered_type="all", requires=["Component"])
    ds.add_particle_filter(name)


def to_yt(snapshot, bounding_box=None, margin=0.05):
    """A yt dataset of a snapshot: a path (read with nbody's reader), a :class:`nbody.Snapshot`,
    or a :class:`nbody.Simulation` (its current state).

    The code units are the run's (kpc, Msun, km/s for galactic; au, Msun, au/yr for solar; 1 for
    Henon units) and the bounding box, centred on the centre of mass, encloses the bodies with
    ``margin`` to spare unless given (``ds.domain_center`` is the centre of mass).

    Components: each component name is a particle type (``("halo", "particle_mass")``,
    ``("galaxy1.disk", ...)``), beside the union types "all" and "nbody". An HDF5 snapshot file is
    opened with yt's GADGET frontend (its own types ``("PartType1", ...)``, ``PartType2`` ...; the
    components as particle filters on their Component field; units passed as ``unit_base``, which
    yt 4 reads instead of the file's /Units); anything else is loaded with ``yt.load_particles``
    (one particle type per component; "io" for a set of one component, as before components)."""
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
        arrays = {k: getattr(snap, k) for k in ("x", "y", "z", "vx", "vy", "vz", "m", "component")}
        names, units, time = snap.component_names, snap.units, snap.time
    else:
        from . import _core
        arrays = sim.engine.particles()
        names, time = list(arrays["component_names"]), sim.t
        u = _core.unit_system(sim.config["units"])
        units = {k: u[k] for k in ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s", "UnitTime_in_s")}
    positions = np.stack([arrays["x"], arrays["y"], arrays["z"]], axis=1)
    bbox = bounding_box if bounding_box is not None else _box(positions, arrays["m"], margin)

    if snap is not None and snap.format == "hdf5":
        kwargs = {"bounding_box": bbox}
        base = _unit_base(units)
        if base:
            kwargs["unit_base"] = base
        ds = yt.load(snap.path, **kwargs)
        for index, name in enumerate(names):
            _component_filter(ds, name, index)
        return ds

    u = units or {"UnitLength_in_cm": 1.0, "UnitMass_in_g": 1.0, "UnitVelocity_in_cm_per_s": 1.0}
    length, mass, velocity = float(u["UnitLength_in_cm"]), float(u["UnitMass_in_g"]), float(u["UnitVelocity_in_cm_per_s"])
    component = np.asarray(arrays["component"])
    data = {}
    for index, ptype in enumerate(names if len(names) > 1 else ["io"]):
        take = component == index
        for field, key in (("particle_position_x", "x"), ("particle_position_y", "y"), ("particle_position_z", "z"),
                           ("particle_velocity_x", "vx"), ("particle_velocity_y", "vy"),
                           ("particle_velocity_z", "vz"), ("particle_mass", "m")):
            data[(ptype, field)] = np.asarray(arrays[key])[take]
    return yt.load_particles(data, length_unit=(length, "cm"), mass_unit=(mass, "g"),
                             time_unit=(length / velocity, "s"), velocity_unit=(velocity, "cm/s"),
                             bbox=np.array(bbox), sim_time=time)
