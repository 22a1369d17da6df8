#!/usr/bin/env python3
"""A system of your own from numpy arrays: a cold homogeneous sphere (bodies at rest, uniform in
a ball of radius R) collapsing under its own gravity, its half-mass radius followed with a
callback and compared with the free-fall time t_ff = pi/2 sqrt(R^3 / (2 G M)).

    python3 examples/python/custom_arrays.py [--n 2000]

What it shows: the half-mass radius shrinks slowly, then fast, and reaches its minimum close to
t_ff (a little later, because of the softening and the finite N); the state arrays are numpy
views of the engine's memory. About 5 s on two cores; --quick: under a second.
"""
import argparse
import math

import numpy as np

import nbody


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n = 400 if args.quick else args.n

    rng = np.random.default_rng(2024)
    R, M = 1.0, 1.0
    # Uniform in a ball: radius R u^(1/3), direction uniform on the sphere.
    r = R * rng.random(n) ** (1 / 3)
    cos_t = rng.uniform(-1, 1, n)
    phi = rng.uniform(0, 2 * math.pi, n)
    sin_t = np.sqrt(1 - cos_t ** 2)
    x = np.stack([r * sin_t * np.cos(phi), r * sin_t * np.sin(phi), r * cos_t], axis=1)
    m = np.full(n, M / n)
    t_ff = math.pi / 2 * math.sqrt(R ** 3 / (2 * M))  # G = 1 (Henon units)

    sim = nbody.Simulation.from_arrays(m=m, x=x, v=np.zeros_like(x), dt=t_ff / 400, softening=0.02,
                                       precision="fp32", integrator="leapfrog")
    print(f"{sim.n} bodies: {sim!r}; free-fall time {t_ff:.4f}")
    history = []

    def follow(s):
        history.append((s.t, s.lagrangian_radii()[4]))

    sim.integrate(1.3 * t_ff, callback=follow, every=10, progress=None)
    t, rh = np.array(history).T
    k = int(np.argmin(rh))
    print(f"half-mass radius {rh[0]:.3f} at t = {t[0]:.3f}, minimum {rh[k]:.3f} at t = {t[k]:.3f} "
          f"= {t[k] / t_ff:.2f} t_ff")
    # sim.x is a numpy view of the engine's memory on the host, a DeviceArray on a GPU.
    where = f"a DeviceArray on {sim.x.device}" if sim.on_device else f"a {sim.x.dtype} numpy view"
    print(f"positions: {where}; body 0 at {sim.positions[0]}")
    assert 0.8 < t[k] / t_ff < 1.3


if __name__ == "__main__":
    main()
