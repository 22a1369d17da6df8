#!/usr/bin/env python3
"""Fingerprints of every CUDA kernel a build compiles, without a GPU: each .cu object's compile
command (from the build's compile_commands.json) is run again to emit an sm_90 cubin, and for each
kernel the bytes of its code section (the SASS, free of addresses: relocations and line tables live
in other sections) are hashed, with its register and spill counts from ptxas.

    scripts/sass_fingerprint.py BUILD_DIR [--only REGEX] > kernels.json
    scripts/sass_fingerprint.py --compare BEFORE.json AFTER.json

Two builds whose kernels have the same hashes have the same SASS, kernel by kernel, whichever
files the kernels moved to. --compare prints the kernels that differ or exist in one build only
and exits 1 if any does."""
import argparse
import hashlib
import json
import os
import re
import shlex
import struct
import subprocess
import sys
import tempfile


def elf_sections(data):
    """(name, bytes) of each section of a 64-bit little-endian ELF file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)]
    strtab = heads[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    out = []
    for h in heads:
        name = names[h[0]:names.index(b"\0", h[0])].decode()
        size = 0 if h[1] == 8 else h[5]  # SHT_NOBITS holds nothing
        out.append((name, data[h[4]:h[4] + size]))
    return out


def ptxas_usage(stderr):
    """kernel -> {registers, spill_stores, spill_loads} from ptxas -v."""
    usage, current = {}, None
    for line in stderr.splitlines():
        m = re.search(r"Compiling entry function '(\S+)'", line) or re.search(r"Function properties for (\S+)", line)
        if m:
            current = m.group(1)
            usage.setdefault(current, {})
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current:
            usage[current].update(spill_stores=int(m.group(1)), spill_loads=int(m.group(2)))
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            usage[current]["registers"] = int(m.group(1))
    return usage


def cubin_command(entry, out):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    fixed, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT"):
            skip = True
            continue
        if a in ("-c", "-MD") or a.startswith("--generate-code") or a.startswith("-gencode"):
            continue
        fixed.append(a)
    return fixed + ["-arch=sm_90", "-cubin", "-Xptxas", "-v", "-o", out]


def fingerprint(build, only):
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = [e for e in json.load(f) if e["file"].endswith(".cu")]
    if only:
        entries = [e for e in entries if re.search(only, e["file"])]
    kernels = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k, e in enumerate(entries):
            out = os.path.join(tmp, f"{k}.cubin")
            r = subprocess.run(cubin_command(e, out), cwd=e["directory"], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"sass_fingerprint: compiling {e['file']} failed:\n{r.stderr}")
            usage = ptxas_usage(r.stderr)
            src = os.path.relpath(e["file"], os.path.dirname(os.path.abspath(build.rstrip("/"))))
            for name, body in elf_sections(open(out, "rb").read()):
                if not name.startswith(".text."):
                    continue
                fn = name[len(".text."):]
                rec = {"sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body), "file": src}
                rec.update(usage.get(fn, {}))
                kernels.setdefault(fn, []).append(rec)
    return kernels


def without_file_names(name):
    """The mangled name with each anonymous namespace's file-derived part dropped
    (`43_GLOBAL__N__58065481_10_pic_gpu_cu_000ab6a3` -> `_GLOBAL__N_`), so a kernel keeps its name
    when it moves to another file."""
    out, k = [], 0
    for m in re.finditer(r"(\d+)_GLOBAL__N_", name):
        if m.start() < k:
            continue
        n = int(m.group(1))
        out.append(name[k:m.start()] + "_GLOBAL__N_")
        k = m.start() + len(m.group(1)) + n
    return "".join(out) + name[k:]


def load(path):
    merged = {}
    for name, recs in json.load(open(path)).items():
        merged.setdefault(without_file_names(name), []).extend(recs)
    return merged


def compare(before, after):
    a, b = load(before), load(after)
    bad = 0
    for name in sorted(set(a) | set(b)):
        ha = {r["sha256"] for r in a.get(name, [])}
        hb = {r["sha256"] for r in b.get(name, [])}
        if not ha or not hb:
            print(f"only in {'after' if not ha else 'before'}: {name}")
            bad += 1
        elif ha != hb:
            print(f"differs: {name}")
            bad += 1
    print(f"{len(set(a) & set(b))} kernels in both, {bad} differ or exist in one build only")
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build", nargs="?")
    p.add_argument("--only", help="only the .cu files whose paths match this regular expression")
    p.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    o = p.parse_args()
    if o.compare:
        sys.exit(compare(*o.compare))
    if not o.build:
        p.error("a build directory (with compile_commands.json) or --compare")
    json.dump(fingerprint(o.build, o.only), sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
