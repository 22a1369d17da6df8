"""``sim.particles``: the bodies of a simulation one by one, as REBOUND's ``sim.particles`` gives
them. A :class:`Particle` reads and writes the simulation's own state (through the same views as
``sim.x``, ...), so it always shows the current values."""
import operator

import numpy as np

from .orbits import elements_from_state

__all__ = ["Particle", "Particles"]

_FIELDS = ("x", "y", "z", "vx", "vy", "vz", "m", "id")


def _float_field(name):
    def get(self):
        return float(self._sim._host_field(name)[self.index])

    def set(self, value):
        self._sim._set_field(name, self.index, value)

    return property(get, set, doc=f"The body's {name} (reads and writes the simulation's state).")


class Particle:
    """Body ``index`` of a simulation: ``x, y, z, vx, vy, vz, m`` (read and written through to
    the simulation), ``id`` (read-only), ``position``/``velocity`` (3-arrays, copies), and
    :meth:`orbit`. Writing follows the views' rule: the next step recomputes the forces and
    checks the state first. With hermite4 the values are read-only (as the views)."""

    __slots__ = ("_sim", "index")

    def __init__(self, sim, index):
        self._sim = sim
        self.index = index

    x = _float_field("x")
    y = _float_field("y")
    z = _float_field("z")
    vx = _float_field("vx")
    vy = _float_field("vy")
    vz = _float_field("vz")
    m = _float_field("m")

    @property
    def id(self):
        """The body's id (read-only)."""
        return int(self._sim._host_field("id")[self.index])

    @property
    def component(self):
        """The name of the body's component (``"disk"``, ``"planet"``), or None for a simulation
        of one unnamed component (read-only)."""
        names = self._sim.component_names
        tag = int(self._sim._host_field("component")[self.index])
        return names[tag] if names else None

    @property
    def position(self):
        return np.array([self.x, self.y, self.z])

    @property
    def velocity(self):
        return np.array([self.vx, self.vy, self.vz])

    def orbit(self, primary=None):
        """The osculating :class:`nbody.orbits.Orbit` of this body about ``primary``: a
        :class:`Particle`, a body's index, or None (REBOUND's Jacobi default: the centre of mass
        of the bodies before this one), with mu = G (m_primary + m) and the simulation's G."""
        sim = self._sim
        pm, pr, pv = sim._primary(primary, upto=self.index, what="primary")
        mu = sim.G * (pm + self.m)
        return elements_from_state(mu, self.position - pr, self.velocity - pv)

    def __repr__(self):
        return (f"<nbody.Particle {self.index} id={self.id} m={self.m:.10g} x=({self.x:.10g}, {self.y:.10g}, "
                f"{self.z:.10g}) v=({self.vx:.10g}, {self.vy:.10g}, {self.vz:.10g})>")


class Particles:
    """The bodies of a simulation as a sequence of :class:`Particle`: ``len()``, ``[i]``
    (negative indices from the end, IndexError out of range), slices (a list) and iteration.
    Called, float64 copies of every field (a dict of arrays)."""

    __slots__ = ("_sim",)

    def __init__(self, sim):
        self._sim = sim

    def __call__(self):
        """float64 copies of every field: {x, y, z, vx, vy, vz, m, id} (``sim.particles()``)."""
        return self._sim.engine.particles()

    def __len__(self):
        return self._sim.n

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):
            return [Particle(self._sim, k) for k in range(*i.indices(n))]
        try:
            k = operator.index(i)
        except TypeError:
            raise TypeError(f"particles: index must be an integer or a slice, not {type(i).__name__}") from None
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError(f"particles: index {i} out of range ({n} bodies)")
        return Particle(self._sim, k)

    def __iter__(self):
        for k in range(len(self)):
            yield Particle(self._sim, k)

    def __repr__(self):
        return f"<nbody.Particles of {len(self)} bodies>"

