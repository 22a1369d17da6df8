"""REBOUND's habits in the Python API: bodies added by orbital elements, their elements read
back, sim.particles[i], move_to_com, and bodies added after steps."""
import itertools
import math

import numpy as np
import pytest

import nbody
from nbody.orbits import eccentric_anomaly, elements_from_state, mean_from_true, state_from_elements, true_from_mean


def angle_diff(a, b):
    return abs(math.remainder(a - b, 2 * math.pi))


# ---- elements <-> state ------------------------------------------------------------------

ECCENTRICITIES = [0.01, 0.1, 0.5, 0.9, 0.99, 1.5, 4.0]
INCLINATIONS = [0.05, 0.7, math.pi / 2, 2.5, math.pi - 0.05]
ANGLES = [0.3, 2.0, 4.1, 5.9]


@pytest.mark.parametrize("e", ECCENTRICITIES)
@pytest.mark.parametrize("inc", INCLINATIONS)
def test_elements_round_trip_to_1e12(e, inc):
    mu = 1.7
    a = 2.3 if e < 1 else -2.3
    anomalies = [0.2, 1.9, -2.0, 3.0] if e < 1 else [0.2, 0.9, -1.0, 1.2]  # a hyperbola's within its asymptotes
    for Omega, omega, f in itertools.product(ANGLES, ANGLES, anomalies):
        r, v = state_from_elements(mu, a, e, inc, Omega, omega, f=f)
        o = elements_from_state(mu, r, v)
        assert o.a == pytest.approx(a, rel=1e-12)
        assert o.e == pytest.approx(e, rel=1e-12, abs=1e-13)
        assert abs(o.inc - inc) < 1e-12
        assert angle_diff(o.Omega, Omega) < 1e-12
        assert angle_diff(o.omega, omega) < 1e-12, (e, inc, Omega, omega, f, o)
        assert angle_diff(o.f, f) < 1e-12
        # ... and back to the same state
        r2, v2 = state_from_elements(mu, o.a, o.e, o.inc, o.Omega, o.omega, M=o.M)
        np.testing.assert_allclose(r2, r, rtol=0, atol=1e-12 * np.linalg.norm(r))
        np.testing.assert_allclose(v2, v, rtol=0, atol=1e-12 * np.linalg.norm(v))


@pytest.mark.parametrize("e", [0.0, 0.01, 0.3, 0.7, 0.95, 0.999, 1.01, 2.0, 30.0])
def test_kepler_equation_solved_to_the_last_bits(e):
    for M in np.linspace(-12.0, 12.0, 97):
        E = eccentric_anomaly(e, M)
        residual = (E - e * math.sin(E) - M) if e < 1 else (e * math.sinh(E) - E - M)
        assert abs(residual) < 1e-12 * max(1.0, abs(M))
        f = true_from_mean(e, M)
        assert angle_diff(mean_from_true(e, f), M) < 1e-11 * max(1.0, abs(M))


def test_reference_conventions():
    # REBOUND's conventions: Omega from the x axis to the ascending node in the x-y plane, omega
    # from the node to the pericentre, f from the pericentre; all in the direction of motion.
    mu = 1.0
    r, v = state_from_elements(mu, 1.0, 0.0, 0.0, 0.0, 0.0, f=0.0)  # circular, in the plane
    np.testing.assert_allclose(r, [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(v, [0, 1, 0], atol=1e-15)  # prograde: counter-clockwise seen from +z
    r, v = state_from_elements(mu, 1.0, 0.5, 0.0, 0.0, 0.0, f=0.0)
    np.testing.assert_allclose(r, [0.5, 0, 0], atol=1e-15)  # pericentre a (1 - e) on +x
    r, _ = state_from_elements(mu, 1.0, 0.0, math.pi / 2, math.pi / 2, 0.0, f=0.0)
    np.testing.assert_allclose(r, [0, 1, 0], atol=1e-15)  # the ascending node at Omega = 90 deg
    r, v = state_from_elements(mu, 1.0, 0.0, math.pi / 2, 0.0, math.pi / 2, f=0.0)
    np.testing.assert_allclose(r, [0, 0, 1], atol=1e-15)  # omega = 90 deg past the node, above the plane
    r, _ = state_from_elements(mu, 2.0, 0.0, 0.0, 1.0, 0.5, f=0.25)
    np.testing.assert_allclose(r, [2 * math.cos(1.75), 2 * math.sin(1.75), 0], atol=1e-15)
    # M = pi: the apocentre
    r, _ = state_from_elements(mu, 1.0, 0.5, 0.0, 0.0, 0.0, M=math.pi)
    np.testing.assert_allclose(r, [-1.5, 0, 0], atol=1e-15)
    # Degenerate orbits: no node in the plane (Omega = 0), no pericentre on a circle (omega = 0).
    o = elements_from_state(mu, *state_from_elements(mu, 1.0, 0.2, 0.0, 1.0, 0.5, f=0.25))
    assert o.Omega == 0 and o.omega == pytest.approx(1.5) and o.f == pytest.approx(0.25)
    o = elements_from_state(mu, *state_from_elements(mu, 1.0, 0.0, 0.3, 1.0, 0.5, f=0.25))
    assert o.omega == 0 and o.Omega == pytest.approx(1.0) and o.f == pytest.approx(0.75)


# ---- add by elements ------------------------------------------------------------------------

def kepler_sim(**kw):
    params = dict(units="solar", dt=1e-4, softening=0.0, precision="fp64", device="cpu", integrator="yoshida4")
    params.update(kw)
    return nbody.Simulation(**params)


def test_a_kepler_orbit_added_by_elements_returns_after_one_period():
    sim = kepler_sim()
    sim.add(m=1.0)
    sim.add(m=1e-3, a=1.3, e=0.4, inc=0.3, Omega=1.1, omega=2.2, M=0.7)
    sim.move_to_com()
    start = sim.particles()
    o = sim.particles[1].orbit()
    P = 2 * math.pi * math.sqrt(1.3**3 / (4 * math.pi**2 * 1.001))
    assert o.P == pytest.approx(P, rel=1e-12)
    assert (o.a, o.e, o.inc, o.Omega, o.omega, o.M) == pytest.approx((1.3, 0.4, 0.3, 1.1, 2.2, 0.7), rel=1e-12)
    steps = round(P / sim.dt)
    sim = kepler_sim(dt=P / steps)
    sim.add(m=1.0).add(m=1e-3, a=1.3, e=0.4, inc=0.3, Omega=1.1, omega=2.2, M=0.7).move_to_com()
    sim.step(steps)
    end = sim.particles()
    for c in ("x", "y", "z", "vx", "vy", "vz"):
        np.testing.assert_allclose(end[c], start[c], rtol=0, atol=1e-7)
    assert sim.particles[1].orbit().M == pytest.approx(0.7, abs=1e-7)


def test_elements_read_back_from_the_simulation():
    sim = kepler_sim()
    sim.add(m=1.0, x=(0.1, -0.2, 0.05), v=(0.3, 0.1, -0.2))  # a moving primary
    for e, inc, Omega, omega, f in [(0.1, 0.2, 0.3, 0.4, 0.5), (0.6, 2.0, 4.0, 5.5, 3.0), (0.05, 1.0, 3.0, 1.0, 6.0)]:
        sim.add(m=1e-4, a=1.0 + 0.5 * len(sim.particles), e=e, inc=inc, Omega=Omega, omega=omega, f=f)
        o = sim.particles[-1].orbit()  # Jacobi: about the centre of mass of the bodies before it
        assert o.a == pytest.approx(0.5 + 0.5 * len(sim.particles), rel=1e-12)
        assert (o.e, o.inc) == pytest.approx((e, inc), rel=1e-12)
        for got, want in ((o.Omega, Omega), (o.omega, omega), (o.f, f)):
            assert angle_diff(got, want) < 1e-12
    orbits = sim.orbits()
    assert len(orbits) == 3 and orbits[2].e == pytest.approx(0.05, rel=1e-12)
    # About a given primary (a body, by index or Particle): heliocentric elements.
    sim.add(m=1e-6, primary=sim.particles[0], a=0.5, e=0.2)
    assert sim.particles[4].orbit(primary=0).a == pytest.approx(0.5, rel=1e-12)
    assert sim.particles[4].orbit(primary=sim.particles[0]).e == pytest.approx(0.2, rel=1e-12)
    assert len(sim.orbits(primary=0)) == 4


def test_a_hyperbolic_body_and_the_simulation_G():
    sim = kepler_sim(gravitational_constant=2.0)
    sim.add(m=3.0).add(m=1.0, a=-2.0, e=1.5, f=-0.5)
    o = sim.particles[1].orbit()
    assert o.mu == pytest.approx(2.0 * 4.0)
    assert (o.a, o.e, o.f) == pytest.approx((-2.0, 1.5, -0.5), rel=1e-12)
    assert math.isnan(o.P)


@pytest.mark.parametrize("kwargs, message", [
    (dict(a=1.0, e=1.2), "e: a bound orbit (a > 0) needs e < 1 (got e = 1.2"),
    (dict(a=-1.0, e=0.5), "a: an unbound orbit (a < 0) needs e > 1 (got e = 0.5)"),
    (dict(a=1.0, e=1.0), "e: a parabolic orbit (e = 1) has no semi-major axis"),
    (dict(a=1.0, e=-0.1), "e: must be >= 0 (got -0.1)"),
    (dict(a=0.0), "a: must not be 0"),
    (dict(a=1.0, f=0.1, M=0.2), "M: give the true anomaly f or the mean anomaly M, not both"),
    (dict(a=-1.0, e=2.0, f=2.5), "f: beyond the asymptotes of the hyperbola"),
    (dict(e=0.1), "a: orbital elements need the semi-major axis a"),
    (dict(a=1.0, x=(1, 0, 0)), "x: give a position and velocity or orbital elements (a), not both"),
    (dict(a=math.nan), "a: must be a finite number (got nan)"),
    (dict(a=1.0, inc=math.inf), "inc: must be a finite number (got inf)"),
    (dict(a=1.0, primary=7), "primary: no body 7 (the simulation has 1)"),
    (dict(a=1.0, primary="sun"), "primary: expected a Particle, a body's index or None, got str"),
    (dict(a=1.0, m=-1.0), "m: must be > 0 (got -1.0)"),
    (dict(a=1.0, m=[1.0, 2.0]), "m: expected a number, got list"),
])
def test_bad_element_combinations(kwargs, message):
    sim = kepler_sim().add(m=1.0)
    kwargs = dict(kwargs)
    m = kwargs.pop("m", 1e-3)
    with pytest.raises((ValueError, TypeError)) as e:
        sim.add(m=m, **kwargs)
    assert message in str(e.value)
    assert len(sim.particles) == 1


def test_elements_without_any_body():
    with pytest.raises(ValueError, match="primary: orbital elements need a primary, and the simulation has no bodies"):
        kepler_sim().add(m=1.0, a=1.0)


# ---- sim.particles --------------------------------------------------------------------------

def test_particle_views_read_and_write_through():
    sim = kepler_sim().add(m=[1.0, 2.0, 3.0], x=[[0, 0, 0], [1, 0, 0], [0, 2, 0]], v=np.zeros((3, 3)), id=[7, 8, 9])
    ps = sim.particles
    assert len(ps) == 3
    assert [p.id for p in ps] == [7, 8, 9]
    assert ps[-1].y == 2.0 and ps[-3].m == 1.0
    with pytest.raises(IndexError, match=r"particles: index 3 out of range \(3 bodies\)"):
        ps[3]
    with pytest.raises(IndexError):
        ps[-4]
    with pytest.raises(TypeError):
        ps["a"]
    p = ps[1]
    p.x, p.vz, p.m = 1.5, -0.25, 2.5
    c = sim.particles()  # called: the float64 copies, as before
    assert (c["x"][1], c["vz"][1], c["m"][1]) == (1.5, -0.25, 2.5)
    assert sim.x[1] == 1.5
    np.testing.assert_array_equal(p.position, [1.5, 0, 0])
    with pytest.raises(AttributeError):
        p.id = 3
    with pytest.raises(ValueError, match=r"m: must be > 0 \(got -1.0\)"):
        p.m = -1.0
    with pytest.raises(ValueError, match=r"vx: must be a finite number \(got nan\)"):
        p.vx = math.nan
    assert [q.index for q in ps[1:]] == [1, 2]


def test_particle_writes_recompute_the_forces():
    a = kepler_sim(integrator="leapfrog").add(m=[1.0, 1e-3], x=[[0, 0, 0], [1, 0, 0]], v=[[0, 0, 0], [0, 6, 0]])
    a.step(5)
    a.particles[1].x += 0.1
    a.step(5)
    b = kepler_sim(integrator="leapfrog").add(m=[1.0, 1e-3], x=[[0, 0, 0], [1, 0, 0]], v=[[0, 0, 0], [0, 6, 0]])
    b.step(5)
    s = b.particles()
    s["x"][1] += 0.1
    c = kepler_sim(integrator="leapfrog").add(m=s["m"], x=np.stack([s["x"], s["y"], s["z"]], 1),
                                             v=np.stack([s["vx"], s["vy"], s["vz"]], 1))
    c.step(5)
    np.testing.assert_array_equal(a.positions, c.positions)


def test_hermite_particles_are_read_only():
    sim = kepler_sim(integrator="hermite4").add(m=[1.0, 1e-3], x=[[0, 0, 0], [1, 0, 0]], v=[[0, 0, 0], [0, 6, 0]])
    assert sim.particles[1].x == 1.0
    with pytest.raises(ValueError, match="x: the bodies of a hermite4 simulation are read-only"):
        sim.particles[1].x = 2.0


# ---- move_to_com ----------------------------------------------------------------------------

@pytest.mark.parametrize("after_steps", [0, 3])
def test_move_to_com(after_steps):
    sim = kepler_sim().add(m=[1.0, 2.0], x=[[1, 2, 3], [2, 2, 1]], v=[[0.5, 0, 0], [0, 1, -1]])
    sim.step(after_steps)
    before = sim.particles()
    sim.move_to_com()
    d = sim.diagnostics()
    assert np.allclose(d["com"], 0, atol=1e-15) and np.allclose(d["momentum"], 0, atol=1e-15)
    p = sim.particles()
    # one shift for every body: separations and relative velocities unchanged
    assert p["x"][1] - p["x"][0] == pytest.approx(before["x"][1] - before["x"][0], abs=1e-15)
    assert p["vz"][1] - p["vz"][0] == pytest.approx(before["vz"][1] - before["vz"][0], abs=1e-15)
    assert sim.step_count == after_steps and d["energy_error"] == 0
    with pytest.raises(ValueError, match="move_to_com: the simulation has no bodies"):
        kepler_sim().move_to_com()


# ---- bodies added after steps --------------------------------------------------------------

@pytest.mark.parametrize("integrator", ["leapfrog", "yoshida4", "hermite4", "euler"])
@pytest.mark.parametrize("precision", ["fp64", "fp32"])
def test_bodies_added_after_steps_go_on_as_if_there_from_the_start(integrator, precision):
    # A: two bodies, 20 steps, a third added, 30 more. B: a simulation of A's state with the
    # third body at that time from its start (start_time), 30 steps. Same bits.
    params = dict(units="solar", dt=1e-3, softening=0.0, precision=precision, device="cpu", integrator=integrator)
    a = nbody.Simulation(**params).add(m=[1.0, 1e-3], x=[[0, 0, 0], [1, 0, 0]], v=[[0, 0, 0], [0, 6.28, 0]])
    a.step(20)
    t = a.t
    a.add(m=1e-4, x=(0, 2, 0.1), v=(-4.4, 0, 0))
    assert a.step_count == 20 and a.t == t and len(a.particles) == 3
    assert a.id.tolist() == [0, 1, 2]
    state = a.particles()
    a.step(30)
    b = nbody.Simulation(start_time=t, **params).add(
        m=state["m"], x=np.stack([state["x"], state["y"], state["z"]], 1),
        v=np.stack([state["vx"], state["vy"], state["vz"]], 1))
    b.step(30)
    np.testing.assert_array_equal(a.positions, b.positions)
    np.testing.assert_array_equal(a.velocities, b.velocities)
    assert a.step_count == 50 and a.t == pytest.approx(t + 30 * 1e-3)
    assert a.diagnostics()["energy_error"] == b.diagnostics()["energy_error"]


def test_add_by_elements_after_steps_and_views_taken_before():
    sim = kepler_sim().add(m=1.0)
    sim.step(10)
    old = sim.x
    sim.add(m=1e-3, a=1.0, e=0.1)
    assert len(old) == 1 and len(sim.x) == 2  # a view shows the state it was taken of
    assert sim.particles[1].orbit().a == pytest.approx(1.0, rel=1e-12)
    sim.step(10)
    assert sim.step_count == 20


def test_add_inside_a_callback_is_refused():
    sim = kepler_sim().add(m=[1.0, 1e-3], x=[[0, 0, 0], [1, 0, 0]], v=[[0, 0, 0], [0, 6, 0]])

    def cb(s):
        s.add(m=1e-6, x=(3, 0, 0))

    with pytest.raises(ValueError, match="add: not while the simulation is being advanced"):
        sim.step(4, callback=cb)
    assert len(sim.particles) == 2
