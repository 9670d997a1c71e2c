#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""tools/layering.py [OBJDIR]: keep the driver's layering from regressing.

Reads the layer table of Documentation/design.md (between the markers
<!-- layering:begin --> and <!-- layering:end -->): each row gives a layer
number and the files on it; a file may use (call, or read a variable of)
a file on a lower layer only. The "allowed loops" line names the pairs of
files that may also use each other.

Then it takes every siw2_*.o of the built module (OBJDIR, default
drivers/siw2), asks nm which symbols each one defines and which it uses,
and fails on every use that goes sideways or up, on a file of the module
that the table does not place, and on a table file that was not built.
Exit 0 when the code keeps to the table.
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DESIGN = os.path.join(TOP, "Documentation", "design.md")


def read_table(path):
    """Return ({file stem: layer}, {(a, b) allowed both ways})."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"<!-- layering:begin -->(.*?)<!-- layering:end -->", text,
                  re.S)
    if not m:
        sys.exit(f"layering: no layer table in {path}")
    layer, loops = {}, set()
    for line in m.group(1).splitlines():
        row = re.match(r"\|\s*(\d+)\s*\|([^|]*)\|", line)
        if row:
            for name in re.findall(r"siw2_\w+\.c", row.group(2)):
                layer[name[:-2]] = int(row.group(1))
        lm = re.match(r"Allowed loops?:(.*)", line.strip())
        if lm:
            for a, b in re.findall(r"(siw2_\w+)\.c\s*<->\s*(siw2_\w+)\.c",
                                   lm.group(1)):
                loops.add((a, b))
                loops.add((b, a))
    if not layer:
        sys.exit("layering: the layer table names no file")
    return layer, loops


def nm(args, obj):
    out = subprocess.run(["nm"] + args + [obj], check=True,
                         capture_output=True, text=True).stdout
    return [ln.split() for ln in out.splitlines() if ln.strip()]


def main():
    objdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        TOP, "drivers", "siw2")
    layer, loops = read_table(DESIGN)
    objs = sorted(f[:-2] for f in os.listdir(objdir)
                  if re.fullmatch(r"siw2_\w+\.o", f) and f != "siw2.mod.o")
    if not objs:
        sys.exit(f"layering: no siw2_*.o in {objdir} (build the module first)")
    bad = []
    for o in objs:
        if o not in layer:
            bad.append(f"{o}.c: built, but not in the layer table of "
                       "Documentation/design.md")
    for f in layer:
        if f not in objs:
            bad.append(f"{f}.c: in the layer table, but not built")
    owner = {}
    for o in objs:
        for fields in nm(["--defined-only"], os.path.join(objdir, o + ".o")):
            if len(fields) == 3 and fields[1] in "TDBRV":
                owner[fields[2]] = o
    edges = {}
    for o in objs:
        for fields in nm(["-u"], os.path.join(objdir, o + ".o")):
            sym = fields[-1]
            d = owner.get(sym)
            if d and d != o:
                edges.setdefault((o, d), []).append(sym)
    for (a, b), syms in sorted(edges.items()):
        if a not in layer or b not in layer or (a, b) in loops:
            continue
        if layer[a] <= layer[b]:
            bad.append(f"{a}.c (layer {layer[a]}) uses {b}.c (layer "
                       f"{layer[b]}): {', '.join(sorted(set(syms))[:4])}")
    for line in bad:
        print("layering: " + line)
    print(f"layering: {len(objs)} objects, {len(edges)} file-to-file uses, "
          f"{len(bad)} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
