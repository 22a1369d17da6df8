#!/usr/bin/env python3
"""Summarises `ncu --csv` output of `nbody bench --suite profile` (see scripts/device/run, stage
ncu) as a Markdown table: one row per kernel launch with its duration, occupancy, issue-slot
use, pipe and memory throughputs, registers, waves, and instructions per pair interaction.

Usage: scripts/ncu_summary.py NCU.csv N > ncu_summary.md     (N: the bodies profiled)
"""
import csv
import io
import sys

COLUMNS = [
    ("duration us", "gpu__time_duration.sum", lambda v: f"{float(v) / 1e3:.1f}"),
    ("achieved occupancy %", "sm__warps_active.avg.pct_of_peak_sustained_active", None),
    ("theoretical occupancy %", "sm__maximum_warps_per_active_cycle_pct", None),
    ("issue slots busy %", "smsp__issue_active.avg.pct_of_peak_sustained_active", None),
    ("FMA pipe %", "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", None),
    ("MUFU (XU) pipe %", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", None),
    ("shared memory %", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed", None),
    ("L1 %", "l1tex__throughput.avg.pct_of_peak_sustained_active", None),
    ("L2 %", "lts__throughput.avg.pct_of_peak_sustained_elapsed", None),
    ("DRAM %", "dram__throughput.avg.pct_of_peak_sustained_elapsed", None),
    ("registers", "launch__registers_per_thread", None),
    ("grid x block", None, None),
    ("waves per SM", "launch__waves_per_multiprocessor", None),
]


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    text = open(sys.argv[1]).read()
    n = float(sys.argv[2])
    rows = list(csv.reader(io.StringIO(text[text.index('"ID"'):])))
    head = {h: i for i, h in enumerate(rows[0])}
    kernels = {}
    for r in rows[1:]:
        if len(r) < len(head):
            continue
        key = int(r[head["ID"]])
        k = kernels.setdefault(key, {"name": r[head["Kernel Name"]], "metrics": {}})
        k["metrics"][r[head["Metric Name"]]] = r[head["Metric Value"]].replace(",", "")
    print("| launch | kernel | " + " | ".join(c[0] for c in COLUMNS) + " | thread instructions per pair |")
    print("|---" * (len(COLUMNS) + 3) + "|")
    for key in sorted(kernels):
        k = kernels[key]
        m = k["metrics"]
        name = k["name"].split("(")[0].replace("bench::<unnamed>::", "").replace("direct::", "")
        if "spin" in name:
            continue
        cells = []
        for label, metric, fmt in COLUMNS:
            if metric is None:
                cells.append(f"{m.get('launch__grid_size', '?')} x {m.get('launch__block_size', '?')}")
            else:
                v = m.get(metric, "")
                cells.append(fmt(v) if fmt and v else v)
        per_pair = ""
        if "integrate" not in name and m.get("smsp__thread_inst_executed.sum"):
            per_pair = f"{float(m['smsp__thread_inst_executed.sum']) / (n * n):.1f}"
        print(f"| {key} | `{name[:60]}` | " + " | ".join(cells) + f" | {per_pair} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
