#!/usr/bin/env python3
"""Reading a run directory back: its configuration, diagnostics table and snapshots with their
time and units, one snapshot in yt (when yt is installed).

Times and masses are given in the run's own units and, when its unit system is physical
(galactic, solar), also in Myr and Msun, through the cgs factors the run records (model.toml
[units], as the snapshots' headers). A run in Henon (N-body) units records no physical scale
(G = M = 1, its factors are 1 and mean "dimensionless"): its values stay in N-body units.

    python3 examples/python/read_run.py [RUN_DIR]

Without RUN_DIR it first makes a small one (a King cluster in galactic units, in runs/king_py)
with nbody.run, as `nbody run --ic king ...` would.
"""
import argparse

import numpy as np

import nbody

MYR_S = 1e6 * 365.25 * 86400.0  # a megayear of Julian years, in seconds


def physical_scale(units):
    """(Myr per time unit, Msun per mass unit) of a run's [units], or None when it records no
    physical scale (Henon units, or a run of an older version without the table)."""
    if not units or not units.get("physical"):
        return None
    msun_g = nbody._core.unit_system("galactic")["UnitMass_in_g"]  # the galactic mass unit is the Msun
    return units["UnitTime_in_s"] / MYR_S, units["UnitMass_in_g"] / msun_g


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir", nargs="?")
    ap.add_argument("--out", default="runs/king_py", help="where to make the run when no RUN_DIR is given")
    ap.add_argument("--units", default="galactic", choices=["galactic", "henon"],
                    help="the unit system of the run made when no RUN_DIR is given")
    args = ap.parse_args()
    path = args.run_dir
    if path is None:
        scales = {"mass_scale": 1e5, "length_scale": 0.01} if args.units == "galactic" else {}
        nbody.run(ic="king", n=512, seed=3, units=args.units, steps=200, diag_every=20, snapshot_every=50,
                  snapshot_format=nbody._core.snapshot_formats()[0], out=args.out, overwrite=True, log=None,
                  **scales)
        path = args.out

    run = nbody.load(path)
    c = run.config
    u = run.units or {"system": c.get("units", "henon"), "time": "1", "length": "1", "mass": "1"}
    scale = physical_scale(run.units)
    print(f"{run.path}: {c['ic']}, N = {c['n']}, {c['integrator']}, dt = {c['dt']:.4g} {u['time']}")
    if scale is None:
        print(f"units: {u['system']}: N-body units (G = 1); the run records no physical scale, so times and "
              "masses are given in N-body units")
    else:
        print(f"units: {u['system']} (length {u['length']}, mass {u['mass']}, time {u['time']} = "
              f"{scale[0]:.6g} Myr)")
    d = run.diagnostics
    print(f"diagnostics: {len(d)} rows; |dE/E0| at the end {d['rel_energy_error'][-1]:.2e}; "
          f"2K/|W| {d['virial_ratio'][0]:.3f} -> {d['virial_ratio'][-1]:.3f}")
    for snap in run:
        com = np.average(snap.positions, axis=0, weights=snap.m)
        r = np.linalg.norm(snap.positions - com, axis=1)
        order = np.argsort(r)
        half = r[order][np.searchsorted(np.cumsum(snap.m[order]), 0.5 * snap.m.sum())]
        when = f"{snap.time:10.4g}" + (f" ({snap.time * scale[0]:.4g} Myr)" if scale else " (N-body units)")
        print(f"  t = {when}: {snap.n} bodies, half-mass radius {half:.4g} {u['length']}")

    try:
        import yt
    except ImportError:
        print("yt is not installed: skipped nbody.to_yt")
        return
    yt.set_log_level(40)
    ds = nbody.to_yt(run[-1])
    ad = ds.all_data()
    kind = "PartType1" if run[-1].format == "hdf5" else "io"
    mass = ad[kind, "particle_mass" if kind == "io" else "Masses"].sum()
    if scale is None:
        # yt's code units are 1 cm, 1 g here only as placeholders: no conversion means anything.
        print(f"yt: {ds} (t = {float(ds.current_time.to('code_time')):.4g}, total mass "
              f"{float(mass.to('code_mass')):.4g}, N-body units)")
    else:
        print(f"yt: {ds} (t = {ds.current_time.to('Myr'):.4g}), total mass {mass.to('Msun'):.4g}")


if __name__ == "__main__":
    main()
