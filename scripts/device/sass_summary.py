#!/usr/bin/env python3
"""Counts the SASS instructions of the direct-sum kernels' innermost loops from `cuobjdump
--dump-sass`: for each kernel, the longest basic block (the unrolled pair loop), its instruction
mix, and the instructions per pair interaction it implies."""
import re
import sys
from collections import Counter


def kernels(text):
    name, body = None, []
    for line in text.splitlines():
        m = re.match(r"\s+Function : (\S+)", line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
        elif name:
            body.append(line)
    if name:
        yield name, body


def blocks(lines):
    cur = []
    for line in lines:
        m = re.match(r"\s+/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)", line)
        if re.match(r"\s*\.L_x_\d+:", line) and cur:
            yield cur
            cur = []
        if m:
            cur.append(m.group(2))
            if m.group(2).startswith("BRA") or m.group(2).startswith("EXIT"):
                yield cur
                cur = []
    if cur:
        yield cur


def main():
    text = open(sys.argv[1]).read()
    for name, body in kernels(text):
        if "direct_sum" not in name or "Lb1E" in name:
            continue
        m = re.search(r"direct_sum(_warps)?I(\w)(\w)Li(\d+)ELi(\d+)E", name)
        kind = "warps" if m and m.group(1) else "tiled"
        label = f"{kind} T={m.group(2)} Acc={m.group(3)} {m.group(4)}x{m.group(5)}" if m else name[:60]
        label += " euler" if "EulerUpdate" in name else " store"
        label += " guarded" if "Lb1E" in name else ""
        # The pair loop: the basic block with the most reciprocal square roots.
        loop = max(blocks(body), key=lambda b: (sum(op.startswith("MUFU") for op in b), len(b)))
        mix = Counter(op.split(".")[0] for op in loop)
        mufu = mix.get("MUFU", 0)
        pairs = mufu if mufu else 1
        dp = sum(v for k, v in mix.items() if k.startswith("D"))
        extra = f", {dp / max(pairs, 1):.2f} FP64/pair" if dp else ""
        print(f"{label}: pair loop {len(loop)} instr, {mufu} MUFU -> {len(loop) / max(pairs, 1):.2f} instr/pair{extra}; "
              + ", ".join(f"{k} {v}" for k, v in mix.most_common(9)))


if __name__ == "__main__":
    main()
