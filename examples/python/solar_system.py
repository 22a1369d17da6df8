#!/usr/bin/env python3
"""A Solar System built body by body with Simulation.add: the Sun and the eight planets on
circular, coplanar orbits (semi-major axes and masses from the IAU/JPL tables, rounded), in solar
units (au, Msun, yr: G = 4 pi^2), stepped with the 4th-order Yoshida integrator.

    python3 examples/python/solar_system.py [--years 12]

What it shows: each planet's measured period (the time between its crossings of the +x axis)
against Kepler's third law P = sqrt(a^3 / (1 + m)) years; the Earth's within 1e-4 of a year (measured 4.2e-5), the
total energy to 1e-10 (measured 2e-14 over 12 years); tests/python/test_examples.py checks both.
A few seconds; --quick: one Earth year.
"""
import argparse
import math

import numpy as np

import nbody

# name, semi-major axis [au], mass [Msun]
PLANETS = [
    ("Mercury", 0.387098, 1.6601e-7), ("Venus", 0.723332, 2.4478e-6), ("Earth", 1.000001, 3.0035e-6),
    ("Mars", 1.523679, 3.2272e-7), ("Jupiter", 5.2044, 9.5479e-4), ("Saturn", 9.5826, 2.8589e-4),
    ("Uranus", 19.2184, 4.3662e-5), ("Neptune", 30.11, 5.1514e-5),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--years", type=float, default=12.0)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    years = 1.2 if args.quick else args.years

    sim = nbody.Simulation(units="solar", integrator="yoshida4", dt=1e-3, softening=0.0, precision="fp64",
                           device="cpu")
    sim.add(m=1.0)  # the Sun, at rest at the origin
    G = 4 * math.pi ** 2
    for k, (name, a, m) in enumerate(PLANETS):
        phase = 0.0  # every planet starts on the +x axis
        v = math.sqrt(G * (1 + m) / a)
        sim.add(m=m, x=(a * math.cos(phase), a * math.sin(phase), 0), v=(-v * math.sin(phase), v * math.cos(phase), 0))

    # Period: when y goes from < 0 to >= 0 (a crossing of the +x axis), interpolated.
    crossings = {name: [] for name, _, _ in PLANETS}
    last_y = np.array(sim.y[1:])
    last_t = sim.t
    e0 = sim.energy()

    def watch(s):
        nonlocal last_y, last_t
        y = s.y[1:]
        for k, (name, _, _) in enumerate(PLANETS):
            if last_y[k] < 0 <= y[k]:
                f = -last_y[k] / (y[k] - last_y[k])
                crossings[name].append(last_t + f * (s.t - last_t))
        last_y, last_t = np.array(y), s.t

    sim.integrate(years, callback=watch, every=1, progress=False)
    print(f"{sim.n} bodies, {sim.step_count} steps to t = {sim.t:.4g} yr; |dE/E0| = {abs(sim.energy() / e0 - 1):.2e}")
    for name, a, m in PLANETS:
        if crossings[name]:
            kepler = math.sqrt(a ** 3 / (1 + m))
            measured = crossings[name][0]
            print(f"{name:8s} period {measured:9.5f} yr, Kepler {kepler:9.5f} yr, difference {measured - kepler:+.2e}")
    earth = crossings["Earth"][0]
    assert abs(earth - 1.0) < 1e-3, earth


if __name__ == "__main__":
    main()
