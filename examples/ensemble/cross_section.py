#!/usr/bin/env python3
"""Cross-sections of a scattering ensemble (examples/ensemble/scattering.toml).

    python3 examples/ensemble/cross_section.py RUN_DIR
    scripts/python --needs matplotlib examples/ensemble/cross_section.py RUN_DIR --plot cross_section.png

Reads RUN_DIR/results.csv and RUN_DIR/deck.toml; classifies each system by its most bound pair
at the end (the binary kept: 0-1; an exchange: the incoming star 2 in the pair; an ionisation: no
bound pair) and prints sigma = pi (b_max a)^2 f with its Poisson error, f the fraction of systems.
Systems still bound to a triple at t_end (outcome end_time) are a class of their own, and so are
those in which two stars came closer than the deck's stop.collision_radius (outcome collision:
stars whose radii add up to it touched).
"""
import argparse
import csv
import math
import pathlib
import sys
import tomllib


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("--plot", help="write a bar chart of the cross-sections (matplotlib)")
    args = ap.parse_args()
    run = pathlib.Path(args.run)
    deck = tomllib.loads((run / "deck.toml").read_text())
    sc = deck.get("scattering", {})
    b_max = sc.get("b_max", 2.0) * sc.get("a", 1.0)
    classes = {"preservation": 0, "exchange": 0, "ionisation": 0, "resonant at t_end": 0, "collision": 0,
               "other stop": 0}
    total = 0
    with open(run / "results.csv", newline="") as f:
        for row in csv.DictReader(f):
            total += 1
            a, i, j = float(row["a"]), int(row["pair_i"]), int(row["pair_j"])
            if row["outcome"] == "end_time":
                classes["resonant at t_end"] += 1
            elif row["outcome"] == "collision":
                classes["collision"] += 1
            elif row["outcome"] != "escape":
                classes["other stop"] += 1
            elif a < 0:
                classes["ionisation"] += 1
            elif (i, j) == (0, 1):
                classes["preservation"] += 1
            else:
                classes["exchange"] += 1
    area = math.pi * b_max * b_max
    print(f"{total} systems, b_max = {b_max:g}: sigma = pi b_max^2 f")
    sigmas = {}
    for name, n in classes.items():
        sigmas[name] = (area * n / total, area * math.sqrt(n) / total)
        print(f"  {name:18s} {n:6d}  sigma = {sigmas[name][0]:.4g} +- {sigmas[name][1]:.2g}")
    if args.plot:
        try:
            import matplotlib
        except ImportError:
            sys.exit(f"cross_section.py: --plot needs matplotlib, which {sys.executable} lacks: run it with "
                     "scripts/python --needs matplotlib (Debian's python3-matplotlib)")
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        names = list(sigmas)
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.bar(names, [sigmas[k][0] for k in names], yerr=[sigmas[k][1] for k in names], capsize=4)
        ax.set_ylabel("cross-section (a^2)")
        ax.set_title(f"v_inf = {sc.get('v_inf', 0.1):g}, {total} scatterings")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
