#!/usr/bin/env python3
"""A before/after table of `nbody bench --json` results measured in one session.

Usage: scripts/compare_bench.py BEFORE.json[,BEFORE2.json...] AFTER.json[,AFTER2.json...] [--rung gpu-best]

Pairs the records of the two sides by (suite, rung, precision, N). With several files on a side
(repeated runs, interleaved with the other side's), each record's rate is the median over them,
and the spread (max/min - 1) over the runs is shown, so a difference can be read against the noise.
Prints a Markdown table: before, after (billion interactions/s), after/before, spreads. Standard
library only: runs with any python3.
"""
import json
import statistics
import sys


def load(paths, rung):
    runs = {}
    for path in paths.split(","):
        with open(path) as f:
            for r in json.load(f)["results"]:
                if rung and r.get("rung") != rung:
                    continue
                rate = r.get("billion_interactions_per_s")
                if not rate or not r.get("verified"):
                    continue
                runs.setdefault((r["suite"], r["rung"], r["precision"], r["n"]), []).append(rate)
    return runs


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rung = argv[argv.index("--rung") + 1] if "--rung" in argv else "gpu-best"
    before, after = load(argv[1], rung), load(argv[2], rung)
    print("| suite | precision | N | before | after | after/before | spread before | spread after |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    order = {"fp32": 0, "fp64": 1, "mixed": 2}
    for key in sorted(set(before) & set(after), key=lambda k: (k[0], order.get(k[2], 9), k[3])):
        b, a = before[key], after[key]
        mb, ma = statistics.median(b), statistics.median(a)
        spread = lambda v: f"{(max(v) / min(v) - 1) * 100:.1f}%" if len(v) > 1 else "-"
        print(f"| {key[0]} | {key[2]} | {key[3]} | {mb:.1f} | {ma:.1f} | {ma / mb:.3f} | {spread(b)} | {spread(a)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
