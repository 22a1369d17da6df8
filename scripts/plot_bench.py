#!/usr/bin/env python3
"""Plots from `nbody bench --json` results: scaling over N (time per step, speedup, rate),
the ladder, the block-size sweeps (naive bars, split heat map), the kernel tuning sweep and the
PIC blocks' message transfers by size (pic-scaling transfer records: host-staged, GPU to GPU by CUDA IPC,
and device buffers to CUDA-aware MPI where the library reports it), the direct sum over GPUs (multi-gpu:
strong-scaling efficiency by N, weak scaling) and the PIC run over GPUs (pic-scaling: strong and weak
efficiency, the sorting policies' mean step) and the tree over rank-owned bodies (tree-scaling: the
efficiency by ranks, weak and strong, and each record's step split into its phases).

Usage: scripts/plot_bench.py RESULTS.json [OUTDIR]    (needs matplotlib: python3-matplotlib)
"""
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RUNG_ORDER = ["cpu-serial", "cpu", "gpu-naive", "gpu-shared", "gpu-split", "gpu-split-unrolled", "gpu-best"]
STYLE = {"fp32": "-", "fp64": "--", "mixed": ":"}


def save(fig, out, name):
    """Writes the figure as out/name and closes it; returns the path."""
    path = os.path.join(out, name)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def timed(r):
    return r.get("billion_interactions_per_s") is not None and r.get("verified")


def title_suffix(env):
    dev = env.get("device", "?")
    clock = env.get("sm_clock_measured_mhz") or 0
    return f"{dev}" + (f", SM clock {clock:.0f} MHz" if clock else "")


def scaling(results, env, out):
    rows = [r for r in results if r["suite"] == "scaling" and timed(r)]
    if not rows:
        return []
    files = []
    series = {}
    for r in rows:
        series.setdefault((r["rung"], r["precision"]), []).append(r)
    for key in series:
        series[key].sort(key=lambda r: r["n"])

    def ordered():
        return sorted(series, key=lambda k: (RUNG_ORDER.index(k[0]) if k[0] in RUNG_ORDER else 99, k[1]))

    fig, ax = plt.subplots(figsize=(8, 5.5))
    for rung, prec in ordered():
        s = series[(rung, prec)]
        ax.loglog([r["n"] for r in s], [r["median_step_s"] * 1e3 for r in s], STYLE.get(prec, "-"), marker="o",
                  ms=3, label=f"{rung} {prec}")
    ax.set_xlabel("N (bodies)")
    ax.set_ylabel("time per step (ms, median)")
    ax.set_title("Time per step over N\n" + title_suffix(env), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    files.append(save(fig, out, "scaling_time.png"))

    serial = {r["n"]: r["median_step_s"] for r in series.get(("cpu-serial", "fp32"), [])}
    if serial:
        fig, ax = plt.subplots(figsize=(8, 5.5))
        for rung, prec in ordered():
            if prec != "fp32" or rung == "cpu-serial":
                continue
            pts = [(r["n"], serial[r["n"]] / r["median_step_s"]) for r in series[(rung, prec)] if r["n"] in serial]
            if pts:
                ax.loglog([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=rung)
        ax.set_xlabel("N (bodies)")
        ax.set_ylabel("speedup over cpu-serial (T_cpu / T)")
        ax.set_title("Speedup over the documents' serial program (fp32)\n" + title_suffix(env), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        files.append(save(fig, out, "scaling_speedup.png"))

    fig, ax = plt.subplots(figsize=(8, 5.5))
    for rung, prec in ordered():
        s = series[(rung, prec)]
        ax.semilogx([r["n"] for r in s], [r["billion_interactions_per_s"] for r in s], STYLE.get(prec, "-"),
                    marker="o", ms=3, label=f"{rung} {prec}")
    ceilings = env.get("issue_ceiling_ginteractions", {})
    for prec, value in ceilings.items():
        ax.axhline(value, color="gray", ls=STYLE.get(prec, "-"), lw=0.8)
        ax.text(ax.get_xlim()[0] * 1.1 if ax.get_xlim()[0] > 0 else 1024, value * 1.01,
                f"issue-slot ceiling {prec}: {value:.0f}", fontsize=7, color="gray")
    ax.set_xlabel("N (bodies)")
    ax.set_ylabel("billion interactions / s")
    ax.set_title("Interaction rate over N\n" + title_suffix(env), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    files.append(save(fig, out, "scaling_rate.png"))
    return files


def ladder(results, env, out):
    files = []
    for prec in ("fp32", "fp64", "mixed"):
        rows = [r for r in results if r["suite"] == "ladder" and r["precision"] == prec]
        if not any(timed(r) for r in rows):
            continue
        fig, ax = plt.subplots(figsize=(8, 4.5))
        names = [r["rung"] for r in rows]
        values = [r["billion_interactions_per_s"] if timed(r) else 0 for r in rows]
        bars = ax.bar(names, values, color=["#888" if n.startswith("cpu") else "#2a7" for n in names])
        ax.set_yscale("log")
        for b, r in zip(bars, rows):
            label = f"{r['billion_interactions_per_s']:.3g}" if timed(r) else ("skipped" if r.get("skipped") else "FAILED")
            ax.text(b.get_x() + b.get_width() / 2, max(b.get_height(), 1e-2) * 1.1, label, ha="center", fontsize=8)
        n = rows[0]["n"]
        ax.set_ylabel("billion interactions / s")
        ax.set_title(f"The optimization ladder, N = {n}, {prec}\n" + title_suffix(env), fontsize=10)
        plt.setp(ax.get_xticklabels(), rotation=20, ha="right")
        files.append(save(fig, out, f"ladder_{prec}.png"))
    return files


def blocksize(results, env, out):
    files = []
    naive = [r for r in results if r["suite"] == "blocksize" and r["rung"] == "gpu-naive"]
    if naive:
        fig, ax = plt.subplots(figsize=(9, 4.5))
        labels = [r["launch_shape"].replace("block ", "") for r in naive]
        values = [r["billion_interactions_per_s"] if timed(r) else 0 for r in naive]
        bars = ax.bar(labels, values, color=["#2a7" if timed(r) else "#c33" for r in naive])
        for b, r in zip(bars, naive):
            if not timed(r):
                ax.text(b.get_x() + b.get_width() / 2, 0, "launch\nfailed", ha="center", va="bottom", fontsize=7,
                        color="#c33")
        ax.set_xlabel("threads per block")
        ax.set_ylabel("billion interactions / s")
        ax.set_title("gpu-naive over the block size (N = %d)\n" % naive[0]["n"] + title_suffix(env), fontsize=10)
        files.append(save(fig, out, "blocksize_naive.png"))
    split = [r for r in results if r["suite"] == "blocksize" and r["rung"] == "gpu-split"]
    if split:
        def parse(shape):
            parts = shape.replace("block ", "").split(" x stride ")
            return int(parts[0]), int(parts[1].split(",")[0])
        blocks = sorted({parse(r["launch_shape"])[0] for r in split})
        strides = sorted({parse(r["launch_shape"])[1] for r in split})
        grid = [[math.nan for _ in strides] for _ in blocks]
        for r in split:
            b, s = parse(r["launch_shape"])
            if timed(r):
                grid[blocks.index(b)][strides.index(s)] = r["billion_interactions_per_s"]
        fig, ax = plt.subplots(figsize=(7, 5))
        im = ax.imshow(grid, origin="lower", cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(strides)), [str(s) for s in strides])
        ax.set_yticks(range(len(blocks)), [str(b) for b in blocks])
        ax.set_xlabel("BLOCK_STRIDE (blocks per body)")
        ax.set_ylabel("BLOCK_SIZE (threads per block)")
        for i in range(len(blocks)):
            for j in range(len(strides)):
                v = grid[i][j]
                ax.text(j, i, "-" if math.isnan(v) else f"{v:.0f}", ha="center", va="center", fontsize=7,
                        color="white")
        fig.colorbar(im, label="billion interactions / s")
        ax.set_title("gpu-split over BLOCK_SIZE x BLOCK_STRIDE (N = %d)\n" % split[0]["n"] + title_suffix(env),
                     fontsize=10)
        files.append(save(fig, out, "blocksize_split_heatmap.png"))
    return files


def tune(results, env, out):
    rows = [r for r in results if r["suite"] == "tune" and timed(r)]
    if not rows:
        return []
    fig, ax = plt.subplots(figsize=(8, 5))
    for prec in ("fp32", "mixed", "fp64"):
        by_n = {}
        for r in rows:
            if r["precision"] == prec:
                by_n.setdefault(r["n"], []).append(r)
        if not by_n:
            continue
        ns = sorted(by_n)
        best = [max(x["billion_interactions_per_s"] for x in by_n[n]) for n in ns]
        pol = [next((x["billion_interactions_per_s"] for x in by_n[n] if x.get("policy_choice")), math.nan) for n in ns]
        line, = ax.semilogx(ns, best, STYLE[prec], marker="o", ms=3, label=f"{prec}: best measured shape")
        ax.semilogx(ns, pol, STYLE[prec], marker="x", color=line.get_color(), alpha=0.6, label=f"{prec}: policy's shape")
    ax.set_xlabel("N (bodies)")
    ax.set_ylabel("billion interactions / s (accelerations only)")
    ax.set_title("Production kernel: best launch shape vs the policy's\n" + title_suffix(env), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return [save(fig, out, "tune.png")]


def transfer(results, env, out):
    """pic-scaling transfer records: one-way time and GB/s by message size, each way of moving timed."""
    rows = [r for r in results if r["suite"] == "pic-scaling" and r["rung"].startswith("transfer-") and timed(r)]
    if not rows:
        return []
    fig, (ax_t, ax_r) = plt.subplots(1, 2, figsize=(10, 4))
    for how, label in (("host", "staged through the host"), ("ipc", "GPU to GPU (CUDA IPC)"),
                       ("mpi", "GPU buffers to CUDA-aware MPI")):
        sel = sorted((r for r in rows if r["rung"].startswith(f"transfer-{how}-")), key=lambda r: r["bytes"])
        if not sel:
            continue
        x = [r["bytes"] for r in sel]
        ax_t.loglog(x, [r["median_step_s"] * 1e3 for r in sel], "o-", label=label)
        ax_r.loglog(x, [r["gb_per_s"] for r in sel], "o-", label=label)
    ax_t.set_xlabel("message (bytes)")
    ax_t.set_ylabel("one way, median (ms)")
    ax_r.set_xlabel("message (bytes)")
    ax_r.set_ylabel("GB/s")
    for ax in (ax_t, ax_r):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("PIC block messages between 2 ranks, " + title_suffix(env), fontsize=9)
    return [save(fig, out, "pic_transfer.png")]


def multi_gpu(results, env, out):
    """multi-gpu records: strong-scaling efficiency against N for each GPU count, and weak scaling."""
    rows = [r for r in results if r["suite"] == "multi-gpu" and timed(r)]
    if not rows:
        return []
    fig, (ax_s, ax_w) = plt.subplots(1, 2, figsize=(11, 4.2))
    for prec in ("fp32", "fp64"):
        strong = [r for r in rows if r["precision"] == prec and r["rung"].startswith("strong-") and r["ranks"] > 1]
        for k in sorted({r["ranks"] for r in strong}):
            sel = sorted((r for r in strong if r["ranks"] == k), key=lambda r: r["n"])
            ax_s.semilogx([r["n"] for r in sel], [100 * r["efficiency"] for r in sel], STYLE.get(prec, "-"), marker="o",
                          ms=3, base=2, label=f"{k} GPUs {prec}")
        weak = sorted((r for r in rows if r["precision"] == prec and r["rung"].startswith("weak-")), key=lambda r: r["ranks"])
        if weak:
            ax_w.plot([r["ranks"] for r in weak], [100 * r.get("efficiency", 1.0) for r in weak], STYLE.get(prec, "-"),
                      marker="o", label=prec)
    ax_s.set_xlabel("N (bodies)")
    ax_s.set_ylabel("strong-scaling efficiency (%)")
    ax_w.set_xlabel("GPUs (N grows with them)")
    ax_w.set_ylabel("weak-scaling efficiency (%)")
    for ax in (ax_s, ax_w):
        ax.set_ylim(0, 105)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Direct sum over GPUs (NCCL), " + title_suffix(env), fontsize=9)
    return [save(fig, out, "multi_gpu_efficiency.png")]


def pic_scaling(results, env, out):
    """pic-scaling records: ns per particle per step and efficiency by ranks (strong, balanced,
    weak); the sorting policies' mean step by ranks."""
    rows = [r for r in results if r["suite"] == "pic-scaling" and timed(r) and not r["rung"].startswith("transfer-")]
    files = []
    groups = [("strong", "strong, even slabs"), ("strong-balanced", "strong, load-balanced"), ("weak", "weak")]
    scal = {g: sorted((r for r in rows if r["rung"].rsplit("-", 1)[0] == g), key=lambda r: r["ranks"]) for g, _ in groups}
    if any(scal.values()):
        fig, (ax_t, ax_e) = plt.subplots(1, 2, figsize=(11, 4.2))
        for g, label in groups:
            sel = scal[g]
            if g == "strong-balanced" and scal["strong"]:
                sel = [r for r in scal["strong"] if r["ranks"] == 1] + sel  # (its 1-rank point is the strong one)
            if not sel:
                continue
            ax_t.plot([r["ranks"] for r in sel], [r["ns_per_particle_step"] for r in sel], "o-", label=label)
            ax_e.plot([r["ranks"] for r in sel], [100 * r.get("efficiency", 1.0) for r in sel], "o-", label=label)
        ax_t.set_ylabel("ns per particle per step (median step)")
        ax_e.set_ylabel("efficiency (%)")
        ax_e.set_ylim(0, 105)
        for ax in (ax_t, ax_e):
            ax.set_xlabel("GPUs (ranks)")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle("PIC over GPU slabs, document 004's setup, " + title_suffix(env), fontsize=9)
        files.append(save(fig, out, "pic_scaling.png"))
    sort = [r for r in rows if r["rung"].startswith("sorting-")]
    if sort:
        fig, ax = plt.subplots(figsize=(8, 4.2))
        def policy(r):
            return f"every {r['sort_every']}" if r["sort_every"] > 0 else f"ratio {r['empty_ratio']:g}"
        names = []
        for r in sort:
            if policy(r) not in names:
                names.append(policy(r))
        ks = sorted({r["ranks"] for r in sort})
        width = 0.8 / len(ks)
        for j, k in enumerate(ks):
            by = {policy(r): r for r in sort if r["ranks"] == k}
            xs = [i + j * width for i, n in enumerate(names) if n in by]
            ax.bar(xs, [by[n]["mean_step_s"] * 1e3 for n in names if n in by], width, label=f"{k} GPU{'s' if k > 1 else ''}")
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(names))])
        ax.set_xticklabels(names, rotation=30, fontsize=8)
        ax.set_ylabel("mean step, sorts included (ms)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
        fig.suptitle("Warp deposit: sorting policies (document 004's Fig. 10), " + title_suffix(env), fontsize=9)
        files.append(save(fig, out, "pic_sorting.png"))
    return files


TREE_PHASES = ["decomposition", "top_tree", "tree_move", "exchange", "build", "multipoles", "walk", "integration", "other"]


def tree_scaling(results, env, out):
    """tree-scaling records: the efficiency by ranks (weak, strong) and each record's median step
    split into its phases (stacked bars, the slowest rank's medians)."""
    rows = [r for r in results if r["suite"] == "tree-scaling" and timed(r)]
    if not rows:
        return []
    fig, (ax_e, ax_p) = plt.subplots(1, 2, figsize=(12, 4.4))
    for kind in ("weak", "strong"):
        sel = sorted((r for r in rows if r["rung"].startswith(kind + "-")), key=lambda r: r["ranks"])
        if sel:
            ax_e.plot([r["ranks"] for r in sel], [100 * r.get("efficiency", 1.0) for r in sel], "o-",
                      label=f"{kind} ({sel[0]['n'] if kind == 'strong' else int(sel[0]['bodies_per_rank'])}"
                            f"{' bodies' if kind == 'strong' else ' a rank'})")
    ax_e.set_xlabel("ranks")
    ax_e.set_ylabel("efficiency (%): rate per rank over one rank's")
    ax_e.set_ylim(0, 105)
    ax_e.grid(True, alpha=0.3)
    ax_e.legend(fontsize=8)
    names = [r["rung"] for r in rows]
    bottom = [0.0] * len(rows)
    for phase in TREE_PHASES:
        vals = [max(0.0, r["phase_median_s"].get(phase, 0.0)) * 1e3 for r in rows]
        ax_p.bar(range(len(rows)), vals, 0.7, bottom=bottom, label=phase)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax_p.set_xticks(range(len(rows)))
    ax_p.set_xticklabels(names, rotation=30, fontsize=8)
    ax_p.set_ylabel("median step, by phase (ms)")
    ax_p.grid(True, axis="y", alpha=0.3)
    ax_p.legend(fontsize=7, ncol=2)
    r0 = rows[0]
    fig.suptitle(f"Tree over rank-owned bodies ({r0['model']}, theta {r0['theta']:g}, {r0['device']}, "
                 f"{r0['threads_per_rank']} thread(s) a rank), " + title_suffix(env), fontsize=9)
    return [save(fig, out, "tree_scaling.png")]


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        data = json.load(f)
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(sys.argv[1]))
    os.makedirs(out, exist_ok=True)
    results, env = data["results"], data["environment"]
    files = (scaling(results, env, out) + ladder(results, env, out) + blocksize(results, env, out) + tune(results, env, out)
             + transfer(results, env, out) + multi_gpu(results, env, out) + pic_scaling(results, env, out)
             + tree_scaling(results, env, out))
    for path in files:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
