#!/usr/bin/env python3
"""The folder-level include graph of src/ and its cycles.

    scripts/include_graph.py [--src DIR] [--allow A->B ...]

A folder is src/'s first level (core, gravity, io, ...), but for src/pic, whose subfolders
(pic/physics, pic/cpu, pic/cuda, ...) are folders of their own. An edge A -> B says that a file
of A includes a file of B with #include "...", resolved as the compiler does: beside the
including file first, then from src/. Includes that land outside src/ (include/nbody, the
benchmark, generated headers, the system's) draw no edge.

A folder loop means that no folder can be built, read or tested without the ones above it, so
every cycle is printed with the includes that close it, and the script exits 1 while there is
one. --allow A->B leaves one known edge out of the check (it is still printed, marked allowed);
an --allow for an edge that no longer exists is reported, so the exception is dropped once the
edge is gone."""
import argparse
import os
import re
import sys

SOURCE_SUFFIXES = (".hpp", ".h", ".cpp", ".cc", ".cu", ".cuh", ".inl")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def folder_of(rel):
    """The folder a path relative to src/ belongs to: its first directory, or pic/<sub>."""
    parts = rel.split("/")
    if len(parts) == 1:
        return "."
    if parts[0] == "pic" and len(parts) > 2:
        return "pic/" + parts[1]
    return parts[0]


def source_files(src):
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.relpath(os.path.join(root, name), src).replace(os.sep, "/")


def resolve(src, including, target):
    """The path (relative to src/) that '#include "target"' in `including` names, or None when
    it lies outside src/."""
    for base in (os.path.dirname(including), ""):
        rel = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
        if not rel.startswith("../") and os.path.isfile(os.path.join(src, rel)):
            return rel
    return None


def include_edges(src):
    """{(from folder, to folder): [(including file, included file), ...]} between folders."""
    edges = {}
    for rel in source_files(src):
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(src, rel, m.group(1))
                if target is None:
                    continue
                a, b = folder_of(rel), folder_of(target)
                if a != b:
                    edges.setdefault((a, b), []).append((rel, target))
    return edges


def strongly_connected(nodes, succ):
    """Tarjan's components of more than one node, each sorted, in a stable order."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in succ.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out)


def shortest_cycle_through(start, succ, members):
    """A shortest loop start -> ... -> start inside one component (breadth first; a component of
    more than one folder has one through each of its folders)."""
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(succ.get(v, ())):
                if w not in members:
                    continue
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return None


def parse_edge(text):
    a, sep, b = text.partition("->")
    if not sep or not a.strip() or not b.strip():
        raise argparse.ArgumentTypeError(f"expected A->B, got {text!r}")
    return a.strip(), b.strip()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=os.path.join(here, "..", "src"), help="the source tree (default: src/ of this repository)")
    ap.add_argument("--allow", action="append", type=parse_edge, default=[], metavar="A->B",
                    help="an edge left out of the cycle check (repeatable)")
    args = ap.parse_args()

    edges = include_edges(os.path.normpath(args.src))
    allowed = set(args.allow)
    folders = sorted({f for e in edges for f in e})
    checked = {}
    for (a, b) in edges:
        if (a, b) not in allowed:
            checked.setdefault(a, set()).add(b)

    print("Folder include graph of src/ (folder -> folders it includes):")
    for a in folders:
        targets = sorted(b for (x, b) in edges if x == a)
        if targets:
            shown = [b + (" (allowed)" if (a, b) in allowed else "") for b in targets]
            print(f"  {a} -> {', '.join(shown)}")
    for a, b in sorted(allowed):
        if (a, b) not in edges:
            print(f"note: --allow {a}->{b}: there is no such edge any more; drop the exception")

    components = strongly_connected(folders, checked)
    if not components:
        print("No folder cycles.")
        return 0
    print(f"\n{len(components)} group(s) of folders that include each other:")
    for comp in components:
        members = set(comp)
        print(f"  {{{', '.join(comp)}}}")
        loops = set()
        for v in comp:
            loop = shortest_cycle_through(v, checked, members)[:-1]
            k = loop.index(min(loop))  # each loop once, told from its least folder
            loops.add(tuple(loop[k:] + loop[:k] + [loop[k]]))
        for loop in sorted(loops):
            print(f"    cycle: {' -> '.join(loop)}")
        for a in comp:
            for b in sorted(checked.get(a, ())):
                if b in members:
                    files = edges[(a, b)]
                    more = f" (+{len(files) - 3} more)" if len(files) > 3 else ""
                    print(f"    {a} -> {b}: " + "; ".join(f"{x} includes {y}" for x, y in files[:3]) + more)
    return 1


if __name__ == "__main__":
    sys.exit(main())
