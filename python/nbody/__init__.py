"""nbody: GPU direct-summation N-body simulations from Python.

The same engine, parameters and checks as the ``nbody`` program:

    import nbody
    sim = nbody.Simulation(ic="plummer", n=4096, seed=1, integrator="leapfrog")
    sim.integrate(10.0)              # to simulation time 10 (a progress bar on terminals)
    print(sim.t, sim.energy(), sim.diagnostics()["energy_error"])
    sim.x[:5]                        # a numpy view of the positions' x (no copy)

    sim = nbody.Simulation(units="solar", dt=1e-3, softening=0, integrator="yoshida4")
    sim.add(m=1.0)                   # the Sun at rest at the origin
    sim.add(m=3.0e-6, x=(1, 0, 0), v=(0, 6.2832, 0))   # the Earth
    sim.add(m=9.5e-4, a=5.2, e=0.05, inc=0.02, M=0.3)   # a Jupiter, by orbital elements
    sim.move_to_com()
    sim.step(1000)
    sim.particles[2].orbit().e

    run = nbody.run(ic="king", n=2048, steps=2000, diag_every=20, out="runs/king")   # a run directory
    for snap in nbody.Run("runs/king"):
        print(snap.time, snap.positions.shape)

Every keyword argument is a parameter of ``nbody run`` (``nbody.parameters()`` lists them; a
flag's dashes are underscores: ``snapshot_every``), checked as the program checks it: a bad value
raises ``ValueError`` (``nbody.InputError``) naming the parameter, and nothing is written.
See docs/python.md.
"""
import operator as _operator
import os as _os

import numpy as _np

from . import _checks, _core
from ._core import DeviceArray, InputError, RunState
from .ensemble import Ensemble, EnsembleResult
from .files import Checkpoint, Run, Snapshot, load
from .image import Image
from .progress import TextProgress

__version__ = _core.__version__
__all__ = [
    "Simulation", "Ensemble", "EnsembleResult", "run", "resume", "load", "Run", "Snapshot", "Checkpoint", "parameters", "to_yt", "Image",
    "DeviceArray", "RunState", "InputError", "TextProgress", "LAGRANGIAN_FRACTIONS", "cuda_available",
]

#: Mass fractions of the Lagrangian radii (``Simulation.lagrangian_radii``, lagrangian_radii.csv).
LAGRANGIAN_FRACTIONS = tuple(_core.lagrangian_fractions())

_FIELDS = ("x", "y", "z", "vx", "vy", "vz", "m", "id")


def parameters():
    """The run parameters, as the schema declares them: a list of dicts with ``key`` (the keyword
    argument), ``flag``, ``section``, ``kind``, ``unit``, ``help``, ``default``, ``min``/``max``,
    ``choices``, ``applies_to`` and ``may_change_on_resume``."""
    return _core.parameters()


def cuda_available():
    """Whether this build has the CUDA backend (a GPU must still be present to use it)."""
    return _core.cuda_available()


def to_yt(snapshot, **kwargs):
    """A snapshot (a path, a Snapshot or a Simulation) as a yt dataset with its units and a
    bounding box around the bodies. See nbody.yt_helper.to_yt."""
    from .yt_helper import to_yt as _to_yt
    return _to_yt(snapshot, **kwargs)


def _log_function(log):
    if log is None or log is False:
        return None
    if log is True:
        return print
    if not callable(log):
        raise TypeError("log: give a callable taking one line, True (print) or None")
    return log


class Simulation:
    """A simulation held in memory and stepped from Python.

    ``Simulation(**params)`` takes every parameter of ``nbody run`` as a keyword argument
    (``nbody.parameters()`` lists them): ``ic``, ``n``, ``seed``, ``units``, ``precision``,
    ``integrator``, ``dt``, ``softening``, ``device``, ... Each value is checked as the program
    checks it; a bad one raises ``ValueError`` naming it. dt and softening default to the
    model's own (1/100 of its dynamical time and length unit), as in ``nbody run``.

    Instead of a model, bodies can be given one by one, as arrays or by orbital elements with
    :meth:`add` (then ``ic`` and ``n`` are not used, and dt and softening keep the values given,
    or 0.01 each), at any time: after steps the simulation goes on from its step and time.
    REBOUND's habits: ``sim.particles[i]`` (a body's view: x, ..., m, ``orbit()``),
    :meth:`orbits`, :meth:`move_to_com`, ``sim.G``.

    Particle data: ``sim.x``, ``sim.y``, ``sim.z``, ``sim.vx``, ``sim.vy``, ``sim.vz``,
    ``sim.m``, ``sim.id`` are numpy views of the engine's own memory (no copy; float32 for an
    fp32 run, float64 otherwise). Writing them changes the simulation. Rule: writing positions
    or masses makes the stored accelerations stale, so while any writable view of x, y, z or m
    is alive, each ``integrate``/``step`` call recomputes the accelerations first (one force
    evaluation; the same bits when nothing was written). ``id`` is read-only, and every view is
    read-only with ``integrator="hermite4"`` (its per-body state would go stale). On a GPU these
    attributes are :class:`DeviceArray` objects (``__cuda_array_interface__``, ``__dlpack__``;
    ``.to_numpy()`` copies); ``sim.to_numpy()`` copies every field on any device.

    Files: :meth:`save` (a snapshot: hdf5, tipsy, csv), :meth:`checkpoint` and
    :meth:`Simulation.resume` (bit-exact continuation). For a run directory like the program's
    (config.toml, diagnostics.csv, snapshots, checkpoints that ``nbody run --resume`` continues)
    use :func:`nbody.run`.
    """

    def __init__(self, **params):
        if "out" in params:
            raise InputError("out: a Simulation steps in memory; nbody.run(out=...) writes a run directory")
        self._params = dict(params)
        # Checked now, so that a bad value fails where it is given.
        self._lines, self._given = _core.make_config(self._params, True)
        self._bodies = None  # dict of lists of arrays, once add() is called
        self._engine = None
        self._implicit_model = False  # the engine holds the default model, drawn without ic given

    # ---- construction ------------------------------------------------------------------
    def add(self, m, x=None, v=None, id=None, primary=None, a=None, e=None, inc=None, Omega=None, omega=None,
            f=None, M=None):
        """Adds bodies; returns self. At any time: before the first step, or after steps (the
        simulation goes on from its step and time with the bodies added; the integrator starts
        afresh from the new state, its forces computed again, and energy drifts are measured
        from it). Views taken before (``sim.x``, ...) show the state before the addition.

        By position and velocity: one body (``m`` a number, ``x`` and ``v`` 3-sequences, each
        zero when not given) or many (``m`` of shape (k,), ``x`` and ``v`` of shape (k, 3)).

        By orbital elements (one body; REBOUND's conventions, angles in radians): ``a``
        semi-major axis (< 0 with e > 1 for a hyperbola), ``e`` eccentricity (0), ``inc``
        inclination to the x-y plane (0), ``Omega`` longitude of the ascending node measured
        from the x axis (0), ``omega`` argument of pericentre measured from the ascending node
        (0), and the true anomaly ``f`` (angle from the pericentre) or the mean anomaly ``M``
        (Kepler's equation is solved), f = 0 when neither is given. ``primary``: a Particle
        (``sim.particles[0]``), a body's index, or None: the centre of mass of all the bodies
        already added (REBOUND's Jacobi default). The orbit is that of the two-body problem
        with mu = G (m_primary + m) and the simulation's G; the body's state is the primary's
        plus the relative one. See nbody.orbits.

        Ids are 0, 1, 2, ... (the body's index at its addition) unless given: whole numbers in
        [0, 2^64), unique. Each argument is checked (finite values, m > 0); an error names it."""
        if "ic" in self._params:
            raise InputError(f"add: the bodies come from ic={self._params['ic']!r}; leave ic out to add bodies")
        if self._engine is not None and self._engine.running:
            raise InputError("add: not while the simulation is being advanced (in a callback)")
        if self._implicit_model and self._engine.step == 0:
            # The default model was drawn when the simulation was looked at; bodies replace it.
            self._engine, self._implicit_model = None, False
        elements = {"a": a, "e": e, "inc": inc, "Omega": Omega, "omega": omega, "f": f, "M": M}
        given = [k for k, val in elements.items() if val is not None]
        if given or primary is not None:
            for name, val in (("x", x), ("v", v)):
                if val is not None:
                    raise InputError(f"{name}: give a position and velocity or orbital elements "
                                     f"({', '.join(given) or 'primary'}), not both")
            if a is None:
                raise InputError("a: orbital elements need the semi-major axis a")
            m = _checks.positive("m", m)
            el = {k: _checks.number(k, val) for k, val in elements.items() if val is not None}
            pm, pr, pv = self._primary(primary, None, "primary")
            from .orbits import state_from_elements
            try:
                r, u = state_from_elements(self.G * (pm + m), **el)
            except ValueError as err:
                raise InputError(str(err)) from None
            m, x, v = _np.array([m]), (pr + r)[None, :], (pv + u)[None, :]
        else:
            m = _np.atleast_1d(_checks.float_array("m", m))
            if m.ndim != 1:
                raise InputError(f"m: must be a number or a one-dimensional array, got shape {m.shape}")
            k = m.shape[0]
            x = _np.zeros(3) if x is None else _checks.float_array("x", x)
            v = _np.zeros(3) if v is None else _checks.float_array("v", v)
            if x.shape == (3,):
                x = _np.broadcast_to(x, (k, 3))
            if v.shape == (3,):
                v = _np.broadcast_to(v, (k, 3))
            for name, arr in (("x", x), ("v", v)):
                if arr.shape != (k, 3):
                    raise InputError(f"add: {name} must have shape (3,) or ({k}, 3), got {arr.shape}")
            _checks.masses(m)
            _checks.finite_array("x", x)
            _checks.finite_array("v", v)
        k = m.shape[0]
        state = self._state()
        start = 0 if state is None else len(state["m"])
        ids = _checks.ids(id, start, k)
        if state is not None and id is not None:
            taken = {int(i): j for j, i in enumerate(state["id"])}
            for i in ids:
                if int(i) in taken:
                    raise InputError(f"id: {int(i)} is already the id of body {taken[int(i)]}")
        if self._engine is not None:
            p = state
            new = {"m": m, "x": x[:, 0], "y": x[:, 1], "z": x[:, 2], "vx": v[:, 0], "vy": v[:, 1], "vz": v[:, 2],
                   "id": ids}
            arrays = {name: _np.concatenate([p[name], new[name]]) for name in _FIELDS}
            self._engine = self._engine.with_particles(arrays, "particles")
            return self
        if self._bodies is None:
            self._bodies = {"m": [], "x": [], "v": [], "id": []}
        self._bodies["m"].append(m)
        self._bodies["x"].append(_np.array(x))
        self._bodies["v"].append(_np.array(v))
        self._bodies["id"].append(ids)
        return self

    def _state(self):
        """float64 copies of the bodies {m, x, ..., id}, or None before any is given."""
        if self._engine is None:
            if self._bodies is not None:
                b = self._bodies
                x = _np.concatenate(b["x"])
                v = _np.concatenate(b["v"])
                return {"m": _np.concatenate(b["m"]), "x": x[:, 0], "y": x[:, 1], "z": x[:, 2],
                        "vx": v[:, 0], "vy": v[:, 1], "vz": v[:, 2], "id": _np.concatenate(b["id"])}
            if "ic" not in self._params:
                return None  # bodies still to come from add (or the default model when first used)
        return self.engine.particles()

    def _primary(self, primary, upto, what, state=None):
        """(mass, position, velocity) of a primary: a Particle, a body's index, or None: the
        centre of mass of the bodies before index ``upto`` (all of them when upto is None)."""
        from .particles import Particle
        if isinstance(primary, Particle):
            return primary.m, primary.position, primary.velocity
        s = self._state() if state is None else state
        n = 0 if s is None else len(s["m"])
        if primary is None:
            upto = n if upto is None else upto
            if upto == 0:
                if n == 0:
                    raise InputError(f"{what}: orbital elements need a primary, and the simulation has no bodies yet "
                                     "(add the central body first)")
                raise InputError(f"{what}: body 0 has no bodies before it (the default, Jacobi primary); "
                                 "give primary=")
            m = s["m"][:upto]
            mass = float(m.sum())
            r = _np.array([_np.dot(m, s[c][:upto]) for c in ("x", "y", "z")]) / mass
            u = _np.array([_np.dot(m, s[c][:upto]) for c in ("vx", "vy", "vz")]) / mass
            return mass, r, u
        if isinstance(primary, (bool, _np.bool_)):
            raise TypeError(f"{what}: expected a Particle, a body's index or None, got a bool")
        try:
            i = _operator.index(primary)
        except TypeError:
            raise TypeError(f"{what}: expected a Particle, a body's index or None, got "
                            f"{type(primary).__name__}") from None
        if not -n <= i < n:
            raise InputError(f"{what}: no body {i} (the simulation has {n})")
        i %= n
        return (float(s["m"][i]), _np.array([s["x"][i], s["y"][i], s["z"][i]]),
                _np.array([s["vx"][i], s["vy"][i], s["vz"][i]]))

    def move_to_com(self):
        """Shifts every position and velocity by the same amount so that the centre of mass is
        at rest at the origin (REBOUND's ``move_to_com``). After steps the simulation goes on
        from the shifted state as after :meth:`add` (integrator restarted, drifts measured from
        it). Returns self."""
        s = self._state()
        if s is None:
            raise InputError("move_to_com: the simulation has no bodies")
        if self._engine is not None and self._engine.running:
            raise InputError("move_to_com: not while the simulation is being advanced (in a callback)")
        m = s["m"]
        mass = m.sum()
        for c in ("x", "y", "z", "vx", "vy", "vz"):
            s[c] = s[c] - _np.dot(m, s[c]) / mass
        if self._engine is not None:
            self._engine = self._engine.with_particles(s, "particles")
        else:
            self._bodies = {"m": [s["m"]], "x": [_np.stack([s["x"], s["y"], s["z"]], 1)],
                            "v": [_np.stack([s["vx"], s["vy"], s["vz"]], 1)], "id": [s["id"]]}
        return self

    @property
    def particles(self):
        """The bodies one by one (REBOUND's ``sim.particles``): ``sim.particles[i]`` is a
        :class:`nbody.particles.Particle` whose ``x, y, z, vx, vy, vz, m`` read and write the
        simulation's state and whose ``orbit()`` gives its orbital elements; ``len()``,
        negative indices, iteration. Called, ``sim.particles()`` returns float64 copies of every
        field: {x, y, z, vx, vy, vz, m, id}."""
        from .particles import Particles
        return Particles(self)

    def orbits(self, primary=None):
        """The osculating orbits (:class:`nbody.orbits.Orbit`) of bodies 1, 2, ..., n - 1, each
        about ``primary`` (a Particle or an index; that body itself is left out) or, by default,
        about the centre of mass of the bodies before it (Jacobi elements, REBOUND's default)."""
        from .orbits import elements_from_state
        s = self._state()
        n = 0 if s is None else len(s["m"])
        skip = None
        if primary is not None and not hasattr(primary, "orbit"):
            self._primary(primary, None, "primary", s)  # checks it
            skip = _operator.index(primary) % n
        out = []
        G = self.G
        for i in range(1, n):
            if i == skip:
                continue
            pm, pr, pv = self._primary(primary, i, "primary", s)
            r = _np.array([s["x"][i], s["y"][i], s["z"][i]]) - pr
            u = _np.array([s["vx"][i], s["vy"][i], s["vz"][i]]) - pv
            try:
                out.append(elements_from_state(G * (pm + s["m"][i]), r, u))
            except ValueError as err:
                raise InputError(f"body {i}: {err}") from None
        return out

    def _host_field(self, name):
        """Field ``name`` for reading: a read-only view on the host, a copy from a GPU."""
        engine = self.engine
        if engine.on_device:
            return engine.field(name).to_numpy()
        return engine.view(name, False)

    def _set_field(self, name, index, value):
        """Writes one body's value of a field, through to the simulation's state."""
        value = _checks.positive(name, value) if name == "m" else _checks.number(name, value)
        engine = self.engine
        if engine.running:
            raise InputError(f"{name}: a body is written between steps, not in a callback (the forces of the "
                             "running steps would go stale)")
        if _core.config_dict(engine.config)["integrator"] == "hermite4":
            raise InputError(f"{name}: the bodies of a hermite4 simulation are read-only (its per-body state "
                             "would go stale); add or move_to_com restart it")
        if engine.on_device:
            p = engine.particles()
            p[name][index] = value
            self._engine = engine.with_particles(p, "particles")
        else:
            engine.view(name)[index] = value

    @classmethod
    def from_arrays(cls, m, x, v, id=None, **params):
        """A simulation of the bodies in arrays: ``m`` (n,), ``x`` and ``v`` (n, 3)."""
        return cls(**params).add(m, x, v, id)

    @classmethod
    def resume(cls, path):
        """A simulation continued from a checkpoint file (:meth:`checkpoint`) or from a run
        directory's newest checkpoint: the exact state, step and time, the integrator's state.
        Advancing it gives the same bits as the run that wrote the checkpoint would have (same
        build and backend)."""
        sim = cls.__new__(cls)
        sim._engine = _core.Engine.from_checkpoint(_os.fspath(path))
        sim._lines = sim._engine.config
        sim._params, sim._given, sim._bodies = {}, [], None
        sim._implicit_model = False
        return sim

    @property
    def engine(self):
        """The engine's simulation (``nbody._core.Engine``), built when first needed."""
        if self._engine is None:
            if self._bodies is not None:
                lines, _ = _core.make_config(self._params, False)
                self._engine = _core.Engine.from_particles(lines, self._state())
            else:
                self._engine = _core.Engine.create(self._lines)
                self._implicit_model = "ic" not in self._params
            self._lines = self._engine.config
        return self._engine

    # ---- stepping ----------------------------------------------------------------------
    def integrate(self, t, progress=None, callback=None, every=1, log=None, chunk_seconds=0.25):
        """Advances to simulation time ``t``: to the first step at or past it (steps of dt; time
        is start time + step * dt). Returns the run's summary (a dict).

        progress: None (a text bar on a terminal or in a notebook), True, False, or an object
        with started/advanced/ended (see nbody.progress). callback: called as ``callback(sim)``
        after every ``every``-th step (steps that are multiples of it); returning False stops
        the run there. Ctrl-C stops cleanly between chunks of steps (about ``chunk_seconds``
        each) and raises KeyboardInterrupt; the simulation is then at a whole step and can go on.

        Each argument is checked before anything is done (t a finite number, every a whole
        number >= 1, chunk_seconds > 0): an error names it. Values written through the views
        are checked before the first step (finite, masses > 0): an error names the body and
        the field, and no step is taken.
        """
        t = _checks.number("t", t)
        args = self._advance_args(progress, callback, every, log, chunk_seconds)
        engine = self.engine
        try:
            last = engine.step_at_time(t)  # the program's rule for --t-end, whose message names it
        except InputError:
            last = 2**63
        if last > 2**62:
            raise InputError(f"t: {t!r} is too many steps of dt ({self.dt!r}) away from the start time")
        return self._advance(last, *args)

    def step(self, k=1, progress=False, callback=None, every=1, log=None, chunk_seconds=0.25):
        """Advances ``k`` steps of dt, a whole number >= 0 (see :meth:`integrate` for the other
        arguments)."""
        k = _checks.whole("k", k, 0)
        args = self._advance_args(progress, callback, every, log, chunk_seconds)
        return self._advance(self.engine.step + k, *args)

    @staticmethod
    def _advance_args(progress, callback, every, log, chunk_seconds):
        from .progress import make_progress
        if callback is not None and not callable(callback):
            raise TypeError(f"callback: not callable (got {type(callback).__name__})")
        every = _checks.whole("every", every, 1)
        chunk_seconds = _checks.positive("chunk_seconds", chunk_seconds)
        return make_progress(progress), callback, every, _log_function(log), chunk_seconds

    def _advance(self, last_step, progress, callback, every, log, chunk_seconds):
        engine = self.engine
        if last_step <= engine.step:
            return None
        return engine.advance(last_step, log, progress, callback, every, self, chunk_seconds)

    # ---- state -------------------------------------------------------------------------
    @property
    def t(self):
        """Simulation time (start time + steps * dt)."""
        return self.engine.time

    @property
    def step_count(self):
        """Steps taken since step 0 (a resumed simulation counts its earlier steps)."""
        return self.engine.step

    @property
    def n(self):
        """Number of bodies."""
        return self.engine.n

    @property
    def config(self):
        """The resolved configuration: {parameter: value} (G resolved, device resolved)."""
        return _core.config_dict(self._lines if self._engine is None else self._engine.config)

    @property
    def dt(self):
        return self.config["dt"]

    @property
    def G(self):
        """The gravitational constant in use: the one given (gravitational_constant), else the
        unit system's (1 for henon, 4 pi^2 for solar, ...); the same before the first step as
        after."""
        c = self.config
        G = c["gravitational_constant"]
        return G if G > 0 else _core.unit_system(c["units"])["G"]

    @property
    def backend(self):
        """"cpu", "cuda" or "cpu-reference", and the device's description."""
        return f"{self.engine.backend} ({self.engine.device})"

    @property
    def on_device(self):
        """True when the particles live in a GPU's memory."""
        return self.engine.on_device

    def energy(self):
        """Total energy K + W (float64, computed where the particles live)."""
        return self.engine.diagnostics()["total"]

    def diagnostics(self):
        """Energies, momenta, centre of mass, virial ratio 2K/|W| of the current state, and the
        drifts from step 0 (energy_error = |E - E0|/|E0|, momentum_drift, angular_momentum_drift):
        the columns of the program's diagnostics.csv, as a dict."""
        return self.engine.diagnostics()

    def lagrangian_radii(self):
        """Radii about the centre of mass holding the mass fractions nbody.LAGRANGIAN_FRACTIONS
        (1, 5, 10, 20, 50, 75, 90 %), as a numpy array."""
        return _np.array(self.engine.lagrangian_radii())

    def render(self, width=1920, height=1080, camera="orthographic", centre=None, direction=(0, 0, -1),
               up=(0, 1, 0), extent=None, fov=60.0, distance=None, colormap="magma", decades=4.0,
               components=None):
        """The projected surface density of the bodies as an RGB image (an ``nbody.Image``: a
        (height, width, 3) uint8 numpy array that Jupyter shows), on a log scale over ``decades``
        decades below the densest pixel, as the frames of ``nbody run --render-every``
        (docs/pictures.md). The projection runs where the bodies live (a GPU kernel on a GPU run).

        camera: "orthographic" (a view ``extent`` wide in length units; None: 2.5 times the radius
        holding 90% of the mass) or "perspective" (the eye ``distance`` behind the centre, a
        horizontal field of view of ``fov`` degrees). centre: the point looked at (None: the centre
        of mass); direction: the line of sight; up: the image's up. components: None, or one
        integer 0..255 per body: each component gets a hue of a fixed palette, a pixel the
        mass-weighted mix with the log brightness."""
        rgb = self.engine.render(int(width), int(height), camera, None if centre is None else tuple(centre),
                                 tuple(direction), tuple(up), extent, float(fov), distance, colormap,
                                 float(decades), None if components is None else _np.asarray(components))
        return Image(rgb)

    def to_numpy(self):
        """Copies of every field in the run's precision, on the host: {x, ..., m, id}."""
        return {name: self.engine.field(name).to_numpy() for name in _FIELDS}

    @property
    def positions(self):
        """An (n, 3) copy of the positions."""
        c = self.to_numpy()
        return _np.stack([c["x"], c["y"], c["z"]], axis=1)

    @property
    def velocities(self):
        """An (n, 3) copy of the velocities."""
        c = self.to_numpy()
        return _np.stack([c["vx"], c["vy"], c["vz"]], axis=1)

    def device_array(self, name):
        """Field ``name`` (x, y, z, vx, vy, vz, m, id) as a DeviceArray where it lives: a GPU's
        memory (``__cuda_array_interface__``, DLPack: ``cupy.asarray(a)``,
        ``torch.from_dlpack(a)``) or the host's (DLPack). No copy; it keeps the simulation alive.
        Writes through it count as writes through the views (checked at the next step)."""
        return self.engine.field(name, True)

    def _field(self, name):
        engine = self.engine
        if engine.on_device:
            return engine.field(name, True)
        return engine.view(name)

    x = property(lambda self: self._field("x"), doc="Positions' x: a numpy view (a DeviceArray on a GPU).")
    y = property(lambda self: self._field("y"), doc="Positions' y: a numpy view (a DeviceArray on a GPU).")
    z = property(lambda self: self._field("z"), doc="Positions' z: a numpy view (a DeviceArray on a GPU).")
    vx = property(lambda self: self._field("vx"), doc="Velocities' x: a numpy view (a DeviceArray on a GPU).")
    vy = property(lambda self: self._field("vy"), doc="Velocities' y: a numpy view (a DeviceArray on a GPU).")
    vz = property(lambda self: self._field("vz"), doc="Velocities' z: a numpy view (a DeviceArray on a GPU).")
    m = property(lambda self: self._field("m"), doc="Masses: a numpy view (a DeviceArray on a GPU).")
    id = property(lambda self: self._field("id"), doc="Ids (uint64, read-only view).")
    component = property(lambda self: self._field("component"),
                         doc="Each body's component (uint8, read-only view): an index into component_names.")

    @property
    def component_names(self):
        """The names of the bodies' components by index (the model's parts: ``["disk", "bulge",
        "halo"]``, ``["star", "planet", "dwarf-planet"]``); empty for one unnamed component."""
        return list(self.engine.component_names)

    # ---- files -------------------------------------------------------------------------
    def save(self, path, format=None):
        """Writes a snapshot of the current state: format from the extension (.hdf5/.h5,
        .tipsy, .csv) or given (hdf5 only in builds with HDF5), in the run's precision, with the
        time, the units and the configuration, as the program's snapshots. Returns the path."""
        path = _os.fspath(path)
        if format is None:
            format = _core.format_of(path)
            if format is None:
                raise InputError(f"format: cannot tell the format of '{path}' from its extension; give format=")
        self.engine.save(path, format)
        return path

    def checkpoint(self, path):
        """Writes a checkpoint file (the program's format: exact state, step, time, integrator
        state, configuration). :meth:`Simulation.resume` continues it with the same bits;
        ``nbody run --from PATH --out DIR`` starts a new run from it. Returns the path."""
        path = _os.fspath(path)
        self.engine.checkpoint(path)
        return path

    def __repr__(self):
        if self._engine is None:
            return f"<nbody.Simulation (not built yet) {self._params}>"
        c = self.config
        return (f"<nbody.Simulation n={self.n} t={self.t:.6g} step={self.step_count} {c['precision']} "
                f"{c['integrator']} dt={c['dt']:.6g} on {self.engine.backend}>")


def run(progress=None, callback=None, every=1, log=True, overwrite=False, **params):
    """Runs a simulation as ``nbody run`` does, through the same library: every keyword is a
    parameter of ``nbody run`` (steps or t_end, out, snapshot_every, diag_every, ...), with the
    program's defaults (model dt and softening, a checkpoint every 30 minutes of wall time).

    With ``out=DIR`` the run writes its run directory (config.toml, model.toml, run.log,
    diagnostics.csv, lagrangian_radii.csv, snapshots, checkpoints), which ``nbody run --resume
    DIR`` and :func:`resume` continue with the same bits; returns ``Run(DIR)`` (its ``result``
    attribute holds the summary). Without ``out`` nothing is written and the summary (a dict) is
    returned.

    log: True (print the program's lines), None, or a callable taking a line. callback: called
    as ``callback(state)`` every ``every`` steps with a RunState (step, t, diagnostics(),
    particles()); returning False stops the run (with a checkpoint). Ctrl-C stops the run
    between chunks of steps, writes a checkpoint and raises KeyboardInterrupt.
    overwrite: reuse a non-empty ``out`` directory (``--overwrite``).
    """
    from .progress import make_progress
    lines, _ = _core.make_config(params, True, True)
    result = _core.run(lines, bool(overwrite), _log_function(log), make_progress(progress), callback, int(every))
    if result["directory"]:
        r = Run(result["directory"])
        r.result = result
        return r
    return result


def resume(directory, progress=None, callback=None, every=1, log=True, **changes):
    """Continues the run in ``directory`` from its newest checkpoint, as ``nbody run --resume
    DIR`` does (same bits as a run that never stopped). ``changes`` may set only what a resumed
    run may change: steps or t_end, and the output and checkpoint cadence. Returns Run(directory)
    with the summary in ``result``."""
    from .progress import make_progress
    result = _core.resume(_os.fspath(directory), changes, _log_function(log), make_progress(progress), callback,
                          int(every))
    r = Run(result["directory"] or directory)
    r.result = result
    return r
