#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""tools/layering.py [OBJDIR]: keep the driver's layering from regressing.
tools/layering.py --table FILE [OBJDIR]: the same against FILE's table.
tools/layering.py --selftest [OBJDIR]: show that the check catches a break.

Reads the layer table of Documentation/design.md (between the markers
<!-- layering:begin --> and <!-- layering:end -->): each row gives a layer
number and the files on it; a file may use (call, or read a variable of)
a file on a lower layer only. The "allowed loops" line names the pairs of
files that may also use each other. A file followed by "(SIW2_FUZZ=1)" is
built only then (the fuzz file): its absence is no problem.

Then it takes every siw2_*.o of the built module (OBJDIR, default
drivers/siw2), asks nm which symbols each one defines and which it uses,
and fails on every use that goes sideways or up, on a file of the module
that the table does not place, and on a table file that was not built.
Exit 0 when the code keeps to the table.

--selftest runs the check on the built objects three times: with the
table as it is (must pass), with the transmit engine's row moved above
the QP's (siw2_qp.c starts the engine, so that must fail, naming that
use), and with a built file left out of the table (must fail, naming
it). Exit 0 when all three come out so.
"""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DESIGN = os.path.join(TOP, "Documentation", "design.md")


def read_table(path):
    """Return ({file stem: layer}, {(a, b) allowed both ways}, {stems built
    only with SIW2_FUZZ=1})."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"<!-- layering:begin -->(.*?)<!-- layering:end -->", text,
                  re.S)
    if not m:
        sys.exit(f"layering: no layer table in {path}")
    layer, loops, optional = {}, set(), set()
    for line in m.group(1).splitlines():
        row = re.match(r"\|\s*(\d+)\s*\|([^|]*)\|", line)
        if row:
            for name, opt in re.findall(r"(siw2_\w+)\.c(\s*\(SIW2_FUZZ=1\))?",
                                        row.group(2)):
                layer[name] = int(row.group(1))
                if opt:
                    optional.add(name)
        lm = re.match(r"Allowed loops?:(.*)", line.strip())
        if lm:
            for a, b in re.findall(r"(siw2_\w+)\.c\s*<->\s*(siw2_\w+)\.c",
                                   lm.group(1)):
                loops.add((a, b))
                loops.add((b, a))
    if not layer:
        sys.exit("layering: the layer table names no file")
    return layer, loops, optional


def nm(args, obj):
    out = subprocess.run(["nm"] + args + [obj], check=True,
                         capture_output=True, text=True).stdout
    return [ln.split() for ln in out.splitlines() if ln.strip()]


def check(objdir, design):
    """Print the problems of the objects in objdir against design's table;
    return their number."""
    layer, loops, optional = read_table(design)
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
        if f not in objs and f not in optional:
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
    return len(bad)


def selftest(objdir):
    """The check passes the real table and fails two broken ones."""
    text = open(DESIGN, encoding="utf-8").read()
    tx = re.search(r"^\| 6 \| siw2_tx\.c \|", text, re.M)
    qp = re.search(r"^\| 8 \| siw2_qp\.c, siw2_srq\.c \|", text, re.M)
    if not tx or not qp:
        sys.exit("layering selftest: rows 6 (siw2_tx.c) and 8 (siw2_qp.c) "
                 "not found in the table")
    broken = {
        # The TX engine above the QPs: siw2_qp.c's calls into it go up.
        "tx above qp": (text.replace(tx.group(0), "| 9 | siw2_tx.c |"),
                        "siw2_qp.c (layer 8) uses siw2_tx.c (layer 9)"),
        # A built file the table does not place.
        "file missing": (text.replace("siw2_ring.c", "siw2_gone.c"),
                         "siw2_ring.c: built, but not in the layer table"),
    }
    fails = 0
    print("layering selftest: the table as it is")
    if check(objdir, DESIGN):
        print("layering selftest: FAIL: the real table has problems")
        fails += 1
    for name, (table, want) in broken.items():
        with tempfile.NamedTemporaryFile("w", suffix=".md") as f:
            f.write(table)
            f.flush()
            print(f"layering selftest: broken table ({name})")
            out = subprocess.run([sys.executable, __file__, "--table",
                                  f.name, objdir], capture_output=True,
                                 text=True)
        if out.returncode == 0 or want not in out.stdout:
            print(f"layering selftest: FAIL: {name}: exit "
                  f"{out.returncode}, no line with '{want}':\n{out.stdout}")
            fails += 1
        else:
            print(f"layering selftest: caught: {want}")
    print(f"layering selftest: {'ok' if not fails else f'{fails} failed'}")
    return 1 if fails else 0


def main():
    args = sys.argv[1:]
    design = DESIGN
    if args[:1] == ["--selftest"]:
        objdir = args[1] if len(args) > 1 else os.path.join(TOP, "drivers",
                                                            "siw2")
        return selftest(objdir)
    if args[:1] == ["--table"] and len(args) > 1:
        design = args[1]
        args = args[2:]
    objdir = args[0] if args else os.path.join(TOP, "drivers", "siw2")
    return 1 if check(objdir, design) else 0


if __name__ == "__main__":
    sys.exit(main())
