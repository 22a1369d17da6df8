"""The physics a user relies on, through the Python API: a Kepler orbit returns after one
period, leapfrog's error falls as dt^2, a Plummer sphere is in virial equilibrium."""
import math

import numpy as np
import pytest

import nbody

# Two bodies of mass 1/2 (G = M = 1) on an orbit of semi-major axis 1 and eccentricity 0.5,
# starting at apocentre: period 2 pi.
E_CC, PERIOD = 0.5, 2 * math.pi


def kepler(integrator, steps_per_period):
    r = 1 + E_CC                                  # apocentre distance a (1 + e)
    v = math.sqrt((1 - E_CC) / (1 + E_CC))        # relative speed there, sqrt(GM (1 - e) / (a (1 + e)))
    sim = nbody.Simulation(integrator=integrator, dt=PERIOD / steps_per_period, softening=0.0,
                           precision="fp64", device="cpu")
    sim.add(m=[0.5, 0.5], x=[[-r / 2, 0, 0], [r / 2, 0, 0]], v=[[0, -v / 2, 0], [0, v / 2, 0]])
    return sim


def return_error(integrator, steps_per_period):
    sim = kepler(integrator, steps_per_period)
    start = sim.positions
    e0 = sim.energy()
    sim.integrate(PERIOD)
    assert sim.step_count == steps_per_period
    return np.abs(sim.positions - start).max(), abs(sim.energy() - e0) / abs(e0)


def test_two_body_orbit_returns_after_one_period():
    err, de = return_error("yoshida4", 2000)
    print(f"[ measured ] yoshida4, 2000 steps: position error {err:.3e}, |dE/E| {de:.3e}")
    assert err < 1e-6 and de < 1e-9
    # The analytic energy: -G m1 m2 / (2 a)
    assert kepler("leapfrog", 100).energy() == pytest.approx(-0.125, rel=1e-12)


def test_leapfrog_is_second_order():
    e1, _ = return_error("leapfrog", 400)
    e2, _ = return_error("leapfrog", 800)
    print(f"[ measured ] leapfrog return error {e1:.3e} -> {e2:.3e}: ratio {e1 / e2:.3f}")
    assert 3.6 < e1 / e2 < 4.4


def test_yoshida4_is_fourth_order():
    e1, _ = return_error("yoshida4", 200)
    e2, _ = return_error("yoshida4", 400)
    print(f"[ measured ] yoshida4 return error {e1:.3e} -> {e2:.3e}: ratio {e1 / e2:.3f}")
    assert 13 < e1 / e2 < 19


def test_plummer_sphere_is_in_virial_equilibrium():
    sim = nbody.Simulation(ic="plummer", n=1024, seed=7, device="cpu", precision="fp64")
    d0 = sim.diagnostics()
    r0 = sim.lagrangian_radii()
    sim.integrate(1.0, progress=False)
    d1 = sim.diagnostics()
    r1 = sim.lagrangian_radii()
    print(f"[ measured ] Plummer N=1024: 2K/|W| {d0['virial_ratio']:.4f} -> {d1['virial_ratio']:.4f}, "
          f"r_half {r0[4]:.4f} -> {r1[4]:.4f}, |dE/E0| {d1['energy_error']:.2e}")
    # 2K/|W| = 1 in equilibrium (sampling scatter ~ 0.03 at this N); the half-mass radius of a
    # Plummer sphere in Henon units is (3 pi / 16) / sqrt(2^(2/3) - 1) = 0.769 (scatter ~ 0.03).
    for d in (d0, d1):
        assert abs(d["virial_ratio"] - 1) < 0.1
    for r in (r0, r1):
        assert r[4] == pytest.approx(3 * math.pi / 16 / math.sqrt(2 ** (2 / 3) - 1), abs=0.08)
    assert d1["energy_error"] < 1e-3
    assert d0["total"] == pytest.approx(-0.25, abs=0.02)
