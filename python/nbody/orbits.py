"""Keplerian orbital elements: a body's position and velocity relative to a primary from its
elements, and its elements from them (the two-body problem with mu = G (m_primary + m)).

The conventions are REBOUND's (angles in radians, the reference plane is x-y, the reference
direction x):

- ``a`` semi-major axis (< 0 for a hyperbolic orbit, whose e > 1); ``e`` eccentricity;
- ``inc`` inclination of the orbit's plane to the x-y plane, in [0, pi] (> pi/2: retrograde);
- ``Omega`` longitude of the ascending node, from the x axis in the x-y plane;
- ``omega`` argument of pericentre, from the ascending node in the orbit's plane, in the
  direction of motion;
- ``f`` true anomaly, from the pericentre in the direction of motion; ``M`` mean anomaly
  (``E - e sin E`` for an ellipse, ``e sinh F - F`` for a hyperbola).

Degenerate orbits, as REBOUND: in the x-y plane (inc = 0 or pi) the node is taken on the x axis
(Omega = 0, omega is then the longitude of pericentre); a circular orbit (e = 0) has its
pericentre at the node (omega = 0, f is then measured from the node). Angles read back are in
[0, 2 pi). Parabolic orbits (e = 1) cannot be given by a semi-major axis and are refused.
"""
import math

import numpy as np

__all__ = ["Orbit", "state_from_elements", "elements_from_state", "eccentric_anomaly", "true_from_mean",
           "mean_from_true"]

_TWO_PI = 2.0 * math.pi
# Below these, an orbit counts as circular / in the reference plane (the angles it lacks are 0).
_TINY_E = 1e-13
_TINY_SIN_INC = 1e-13


def _wrap(angle):
    """An angle in [0, 2 pi)."""
    a = math.fmod(angle, _TWO_PI)
    if a < 0:
        a += _TWO_PI
    return 0.0 if a >= _TWO_PI else a


def eccentric_anomaly(e, M):
    """The eccentric anomaly E of mean anomaly M (Kepler's equation M = E - e sin E, e < 1), or
    for e > 1 the hyperbolic anomaly F (M = e sinh F - F): Newton's method from a start that
    converges for every M, to the last bits."""
    if e < 1.0:
        Mw = math.remainder(M, _TWO_PI)  # in [-pi, pi]
        E = Mw + e * math.sin(Mw) if e < 0.8 else math.copysign(math.pi, Mw) if Mw != 0 else 0.0
        for _ in range(100):
            d = (E - e * math.sin(E) - Mw) / (1.0 - e * math.cos(E))
            E -= d
            if abs(d) <= 4e-16 * max(1.0, abs(E)):
                break
        return E + (M - Mw)
    F = math.asinh(M / e) if abs(M) < 1.0 else math.copysign(math.log(2.0 * abs(M) / e + 1.8), M)
    for _ in range(200):
        d = (e * math.sinh(F) - F - M) / (e * math.cosh(F) - 1.0)
        F -= d
        if abs(d) <= 4e-16 * max(1.0, abs(F)):
            break
    return F


def true_from_mean(e, M):
    """The true anomaly of mean anomaly M."""
    if e < 1.0:
        E = eccentric_anomaly(e, M)
        return math.atan2(math.sqrt(1.0 - e * e) * math.sin(E), math.cos(E) - e)
    F = eccentric_anomaly(e, M)
    return 2.0 * math.atan(math.sqrt((e + 1.0) / (e - 1.0)) * math.tanh(0.5 * F))


def mean_from_true(e, f):
    """The mean anomaly of true anomaly f."""
    if e < 1.0:
        E = math.atan2(math.sqrt(1.0 - e * e) * math.sin(f), e + math.cos(f))
        return E - e * math.sin(E)
    F = 2.0 * math.atanh(math.sqrt((e - 1.0) / (e + 1.0)) * math.tan(0.5 * f))
    return e * math.sinh(F) - F


def _rotation(inc, Omega, omega):
    """The perifocal frame's axes (pericentre, 90 degrees ahead) in the reference frame:
    Rz(Omega) Rx(inc) Rz(omega) applied to x and y."""
    cO, sO = math.cos(Omega), math.sin(Omega)
    ci, si = math.cos(inc), math.sin(inc)
    co, so = math.cos(omega), math.sin(omega)
    p = np.array([cO * co - sO * so * ci, sO * co + cO * so * ci, so * si])
    q = np.array([-cO * so - sO * co * ci, -sO * so + cO * co * ci, co * si])
    return p, q


def state_from_elements(mu, a, e=0.0, inc=0.0, Omega=0.0, omega=0.0, f=None, M=None):
    """Position and velocity (two 3-arrays) relative to the primary of the orbit with these
    elements, mu = G (m_primary + m). Give the true anomaly ``f`` or the mean anomaly ``M``
    (neither: f = 0). Raises ValueError naming the element for a combination no orbit has."""
    for name, value in (("a", a), ("e", e), ("inc", inc), ("Omega", Omega), ("omega", omega), ("f", f), ("M", M)):
        if value is not None and not math.isfinite(value):
            raise ValueError(f"{name}: must be a finite number (got {value!r})")
    if not (mu > 0):
        raise ValueError(f"G (m_primary + m): must be > 0 for orbital elements (got {mu!r})")
    if f is not None and M is not None:
        raise ValueError("M: give the true anomaly f or the mean anomaly M, not both")
    if e < 0:
        raise ValueError(f"e: must be >= 0 (got {e!r})")
    if a == 0:
        raise ValueError("a: must not be 0")
    if e == 1.0:
        raise ValueError("e: a parabolic orbit (e = 1) has no semi-major axis; give e != 1")
    if a > 0 and e > 1.0:
        raise ValueError(f"e: a bound orbit (a > 0) needs e < 1 (got e = {e!r}; a hyperbola has a < 0)")
    if a < 0 and e < 1.0:
        raise ValueError(f"a: an unbound orbit (a < 0) needs e > 1 (got e = {e!r})")
    if M is not None:
        f = true_from_mean(e, M)
    elif f is None:
        f = 0.0
    if e > 1.0 and 1.0 + e * math.cos(f) <= 0.0:
        limit = math.acos(-1.0 / e)
        raise ValueError(f"f: beyond the asymptotes of the hyperbola (|f| must be < {limit!r} for e = {e!r}, "
                         f"got {f!r})")
    p = a * (1.0 - e * e)  # semi-latus rectum, > 0 for both kinds
    r = p / (1.0 + e * math.cos(f))
    P, Q = _rotation(inc, Omega, omega)
    cf, sf = math.cos(f), math.sin(f)
    vscale = math.sqrt(mu / p)
    position = r * (cf * P + sf * Q)
    velocity = vscale * (-sf * P + (e + cf) * Q)
    return position, velocity


class Orbit:
    """The osculating orbit of a body about a primary: ``a, e, inc, Omega, omega, f, M`` (see
    nbody.orbits for their conventions), ``E`` (eccentric anomaly; hyperbolic anomaly F when e >
    1), ``P`` (period; nan when unbound), ``n`` (mean motion, 2 pi / P; for a hyperbola
    sqrt(mu / -a^3)), ``pomega = Omega + omega``, ``l = pomega + M`` (mean longitude), ``theta =
    Omega + omega + f`` (true longitude), ``d`` (distance), ``v`` (speed), ``h`` (specific
    angular momentum), ``mu`` (G (m_primary + m))."""

    _NAMES = ("a", "e", "inc", "Omega", "omega", "f", "M", "E", "P", "n", "pomega", "l", "theta", "d", "v", "h", "mu")

    def __init__(self, **values):
        for k in self._NAMES:
            setattr(self, k, values[k])

    def as_dict(self):
        return {k: getattr(self, k) for k in self._NAMES}

    def __repr__(self):
        return (f"<nbody.Orbit a={self.a:.10g} e={self.e:.10g} inc={self.inc:.10g} Omega={self.Omega:.10g} "
                f"omega={self.omega:.10g} f={self.f:.10g}>")


def elements_from_state(mu, r, v):
    """The :class:`Orbit` of relative position r and velocity v (3-sequences), mu = G (m_primary
    + m). Raises ValueError for a body at the primary's position or on a radial or parabolic
    path, which no elements describe."""
    r = np.asarray(r, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if not (mu > 0):
        raise ValueError(f"G (m_primary + m): must be > 0 for orbital elements (got {mu!r})")
    d = float(np.linalg.norm(r))
    speed = float(np.linalg.norm(v))
    if d == 0.0:
        raise ValueError("orbit: the body is at its primary's position")
    hvec = np.cross(r, v)
    h = float(np.linalg.norm(hvec))
    if h == 0.0:
        raise ValueError("orbit: a radial path (position and velocity parallel) has no orbital plane")
    inv_a = 2.0 / d - speed * speed / mu
    if inv_a == 0.0:
        raise ValueError("orbit: a parabolic path has no semi-major axis")
    a = 1.0 / inv_a
    evec = ((speed * speed - mu / d) * r - float(np.dot(r, v)) * v) / mu
    e = float(np.linalg.norm(evec))
    hhat = hvec / h
    inc = math.atan2(math.hypot(hhat[0], hhat[1]), hhat[2])
    # The ascending node's direction z x h; in the reference plane, the x axis (REBOUND's choice).
    node = np.array([-hhat[1], hhat[0], 0.0])
    sin_inc = float(np.linalg.norm(node))
    if sin_inc < _TINY_SIN_INC:
        node = np.array([1.0, 0.0, 0.0])
        Omega = 0.0
    else:
        node /= sin_inc
        Omega = math.atan2(node[1], node[0])
    # In-plane axes: the node and 90 degrees ahead of it in the direction of motion.
    ahead = np.cross(hhat, node)
    if e < _TINY_E:
        omega = 0.0
        f = math.atan2(float(np.dot(r, ahead)), float(np.dot(r, node)))
    else:
        omega = math.atan2(float(np.dot(evec, ahead)), float(np.dot(evec, node)))
        ehat = evec / e
        f = math.atan2(float(np.dot(r, np.cross(hhat, ehat))), float(np.dot(r, ehat)))
    if e < 1.0:
        E = math.atan2(math.sqrt(1.0 - e * e) * math.sin(f), e + math.cos(f))
        M = E - e * math.sin(E)
        n = math.sqrt(mu / a**3)
        P = _TWO_PI / n
        E, M = _wrap(E), _wrap(M)
    else:
        E = 2.0 * math.atanh(math.sqrt((e - 1.0) / (e + 1.0)) * math.tan(0.5 * f))
        M = e * math.sinh(E) - E
        n = math.sqrt(mu / -a**3)
        P = math.nan
    Omega, omega = _wrap(Omega), _wrap(omega)
    f_out = _wrap(f) if e < 1.0 else f  # a hyperbola's f stays in (-pi, pi), signed as M
    return Orbit(a=a, e=e, inc=inc, Omega=Omega, omega=omega, f=f_out, M=M, E=E, P=P, n=n,
                 pomega=_wrap(Omega + omega), l=_wrap(Omega + omega + M) if e < 1.0 else Omega + omega + M,
                 theta=_wrap(Omega + omega + f), d=d, v=speed, h=h, mu=mu)
