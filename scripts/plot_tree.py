#!/usr/bin/env python3
"""Plots from `nbody bench --suite tree --json` results (docs/tree.md, "Measuring the tree"):

  tree_error_vs_time.png  the 99th-percentile (solid) and median (dashed) force error against the
                          time of a step, one curve per N through the opening angles, a panel per model
  tree_rate_vs_n.png      particles per second of a whole step against N, at the fastest angle whose
                          p99 is at most 1e-3, beside the direct sum (measured, and extrapolated as N^2)
  tree_phases.png         nanoseconds per particle of each phase at the largest N of each model

Usage: scripts/python scripts/plot_tree.py RESULTS.json [OUTDIR]   (needs python3-matplotlib)
"""
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GOAL_P99 = 1e-3
PHASES = [("keys_s", "keys"), ("sort_s", "sort"), ("build_s", "build"), ("multipoles_s", "multipoles"),
          ("walk_s", "walk"), ("kick_drift_s", "kick/drift")]


def save(fig, out, name):
    path = os.path.join(out, name)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def title_suffix(env):
    dev = env.get("device", "?")
    clock = env.get("sm_clock_measured_mhz") or 0
    return dev + (f", SM clock {clock:.0f} MHz" if clock else "")


def timed(r):
    return r.get("verified") and r.get("step_s") is not None and r.get("median_step_s") is not None


def tree_rows(results):
    return [r for r in results if r.get("suite") == "tree" and r.get("rung", "").startswith("tree-") and timed(r)]


def error_vs_time(results, env, out):
    rows = tree_rows(results)
    if not rows:
        return []
    models = sorted({r["model"] for r in rows})
    cols = min(2, len(models))
    nrows = math.ceil(len(models) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(6.5 * cols, 4.8 * nrows), squeeze=False)
    for ax, model in zip(axes.flat, models):
        series = {}
        for r in rows:
            if r["model"] == model:
                series.setdefault((r["n"], r["precision"]), []).append(r)
        for (n, prec), s in sorted(series.items()):
            s.sort(key=lambda r: r["theta"])
            t = [r["step_s"] * 1e3 for r in s]
            line, = ax.loglog(t, [r["force_error_p99"] for r in s], "-o" if prec == "fp32" else "-s", ms=3,
                              label=f"N={n:,} {prec}")
            ax.loglog(t, [r["force_error_p50"] for r in s], "--", color=line.get_color(), lw=0.8)
            for r, x in zip(s, t):
                ax.annotate(f"{r['theta']:g}", (x, r["force_error_p99"]), fontsize=6, xytext=(2, 2),
                            textcoords="offset points")
        ax.axhline(GOAL_P99, color="grey", lw=0.6, ls=":")
        ax.set_title(model, fontsize=10)
        ax.set_xlabel("time per step (ms, median; keys to walk + kick/drift)")
        ax.set_ylabel("relative force error: p99 (solid), p50 (dashed)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(models):]:
        ax.axis("off")
    fig.suptitle("Tree force error against time, labelled by theta\n" + title_suffix(env), fontsize=10)
    return [save(fig, out, "tree_error_vs_time.png")]


def rate_vs_n(results, env, out):
    rows = tree_rows(results)
    if not rows:
        return []
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for model in sorted({r["model"] for r in rows}):
        best = {}
        for r in rows:
            if r["model"] != model or r["force_error_p99"] > GOAL_P99 or r["precision"] != rows[0]["precision"]:
                continue
            if r["n"] not in best or r["force_pass_s"] < best[r["n"]]["force_pass_s"]:
                best[r["n"]] = r
        if best:
            ns = sorted(best)
            ax.loglog(ns, [best[n]["step_particles_per_s"] for n in ns], "-o", ms=3,
                      label=f"tree {model} (fastest theta with p99 <= 1e-3)")
    direct = [r for r in results if r.get("suite") == "tree" and r.get("rung", "").startswith("direct-")]
    measured = sorted((r["n"], r["n"] / r["force_pass_s"]) for r in direct if timed(r))
    extrapolated = sorted((r["n"], r["n"] / r["extrapolated_step_s"]) for r in direct
                          if (r.get("extrapolated_step_s") or 0) > 0)
    if measured:
        ax.loglog([p[0] for p in measured], [p[1] for p in measured], "-k^", ms=4, label="direct sum (measured)")
    if measured and extrapolated:
        pts = [measured[-1]] + extrapolated
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], "--k", lw=0.8, label="direct sum (extrapolated, N^2)")
    for r in results:
        if r.get("rung") == "crossover" and r.get("crossover_kind") == "interpolated":
            ax.axvline(r["crossover_n"], color="grey", lw=0.5, ls=":")
    ax.set_xlabel("N (bodies)")
    ax.set_ylabel("particles per second (whole step; direct: force pass)")
    ax.set_title("Tree and direct sum over N (dotted: crossovers)\n" + title_suffix(env), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return [save(fig, out, "tree_rate_vs_n.png")]


def phases(results, env, out):
    rows = tree_rows(results)
    if not rows:
        return []
    picked = []
    for model in sorted({r["model"] for r in rows}):
        mine = [r for r in rows if r["model"] == model and r["precision"] == rows[0]["precision"]]
        if not mine:
            continue
        top = max(r["n"] for r in mine)
        at = [r for r in mine if r["n"] == top]
        picked.append(min(at, key=lambda r: abs(r["theta"] - 0.6)))
    fig, ax = plt.subplots(figsize=(8, 5))
    bottom = [0.0] * len(picked)
    for key, label in PHASES:
        v = [r[key] / r["n"] * 1e9 for r in picked]
        ax.bar(range(len(picked)), v, bottom=bottom, label=label)
        bottom = [b + x for b, x in zip(bottom, v)]
    ax.set_xticks(range(len(picked)))
    ax.set_xticklabels([f"{r['model']}\nN={r['n']:,} theta={r['theta']:g}" for r in picked], fontsize=7)
    ax.set_ylabel("ns per particle (median)")
    ax.set_title("Phases of a step\n" + title_suffix(env), fontsize=10)
    ax.legend(fontsize=7)
    return [save(fig, out, "tree_phases.png")]


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        data = json.load(f)
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(sys.argv[1]))
    os.makedirs(out, exist_ok=True)
    env = data.get("environment", {})
    results = data.get("results", [])
    files = error_vs_time(results, env, out) + rate_vs_n(results, env, out) + phases(results, env, out)
    if not files:
        print("plot_tree.py: no timed tree records in " + sys.argv[1], file=sys.stderr)
        return 1
    for p in files:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
