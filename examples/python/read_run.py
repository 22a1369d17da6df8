#!/usr/bin/env python3
"""Reading a run directory back: its configuration, diagnostics table and snapshots with their
time and units, one snapshot in yt (when yt is installed).

    python3 examples/python/read_run.py [RUN_DIR]

Without RUN_DIR it first makes a small one (a King cluster in galactic units, in runs/king_py)
with nbody.run, as `nbody run --ic king ...` would.
"""
import argparse

import numpy as np

import nbody


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir", nargs="?")
    ap.add_argument("--out", default="runs/king_py", help="where to make the run when no RUN_DIR is given")
    args = ap.parse_args()
    path = args.run_dir
    if path is None:
        nbody.run(ic="king", n=512, seed=3, units="galactic", mass_scale=1e5, length_scale=0.01, steps=200,
                  diag_every=20, snapshot_every=50, snapshot_format=nbody._core.snapshot_formats()[0],
                  out=args.out, overwrite=True, log=None)
        path = args.out

    run = nbody.load(path)
    c = run.config
    print(f"{run.path}: {c['ic']}, N = {c['n']}, {c['integrator']}, dt = {c['dt']:.4g} {run.units['time']}")
    print(f"units: {run.units['system']} (length {run.units['length']}, mass {run.units['mass']})")
    d = run.diagnostics
    print(f"diagnostics: {len(d)} rows; |dE/E0| at the end {d['rel_energy_error'][-1]:.2e}; "
          f"2K/|W| {d['virial_ratio'][0]:.3f} -> {d['virial_ratio'][-1]:.3f}")
    for snap in run:
        com = np.average(snap.positions, axis=0, weights=snap.m)
        r = np.linalg.norm(snap.positions - com, axis=1)
        order = np.argsort(r)
        half = r[order][np.searchsorted(np.cumsum(snap.m[order]), 0.5 * snap.m.sum())]
        print(f"  t = {snap.time:10.4g}: {snap.n} bodies, half-mass radius {half:.4g}")

    try:
        import yt
    except ImportError:
        print("yt is not installed: skipped nbody.to_yt")
        return
    yt.set_log_level(40)
    ds = nbody.to_yt(run[-1])
    ad = ds.all_data()
    kind = "PartType1" if run[-1].format == "hdf5" else "io"
    mass = ad[kind, "particle_mass" if kind == "io" else "Masses"].sum().to("Msun")
    print(f"yt: {ds} (t = {ds.current_time.to('Myr'):.4g}), total mass {mass:.4g}")


if __name__ == "__main__":
    main()
