#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/check-params.py [--ko FILE] [--src FILE] [--doc FILE]
#
# Check the module parameters' documentation against their one list, the
# SIW2_PARAM_* rows of drivers/siw2/siw2_params.c:
#   - every row's default is one of the values its kind accepts;
#   - the "## Module parameters" section of Documentation/admin-guide.md
#     documents every parameter exactly once, in a table with "parameter",
#     "default" and "values" columns, with the row's default and values
#     (the values text is the one modinfo shows), and no parameter that
#     has no row;
#   - with --ko, modinfo of the built module lists exactly the rows, each
#     with the row's type and description + " (default: D; values: V)"
#     (so the C macros and this script render a row alike).  A module older
#     than siw2_params.c is an error: build it first (make module).
# Prints one line per disagreement; exit 0 when there is none, 1 otherwise.
# Only the Python standard library (and kmod's modinfo for --ko).
import argparse
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = {  # kind: argument names between the name and perm, desc
    "ONOFF": ["def"],
    "RANGE": ["def", "min", "max"],
    "CLAMP": ["def", "min", "max"],
    "BITS": ["def", "min", "mask"],
}
UINT_MAX = 2**32 - 1


def rel(path):
    """A path as messages show it: from the top of the tree if inside it."""
    r = os.path.relpath(path, TOP)
    return path if r.startswith("..") else r


def call_end(text, i):
    """Index of the ')' that closes the call whose arguments start at i."""
    depth = 1
    while depth:
        c = text[i]
        if c == '"':
            i += 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return i - 1


def split_args(text):
    """Split a macro call's arguments at top-level commas (not in strings)."""
    args, cur, depth, i = [], "", 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur += text[i:j + 1]
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    args.append(cur.strip())
    return args


def c_string(arg):
    """The value of adjacent C string literals (no escapes are used)."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', arg)
    if not parts or re.sub(r'"(?:[^"\\]|\\.)*"', "", arg).strip():
        raise ValueError(f"not a string literal: {arg}")
    return "".join(parts)


def c_int(arg):
    if not re.fullmatch(r"0[xX][0-9a-fA-F]+|[0-9]+", arg):
        raise ValueError(f"not an integer literal: {arg}")
    return int(arg, 0)


class Param:
    def __init__(self, kind, args, line):
        want = 1 + len(KINDS[kind]) + 2
        if len(args) != want:
            raise ValueError(f"{kind} row with {len(args)} arguments, not {want}")
        self.kind, self.line = kind, line
        self.name = args[0]
        fields = dict(zip(KINDS[kind], args[1:]))
        self.perm = args[-2]
        self.desc = c_string(args[-1])
        self.type = "bool" if kind == "ONOFF" else "uint"
        if kind == "ONOFF":
            if fields["def"] not in ("true", "false"):
                raise ValueError(f"bool default {fields['def']}")
            self.default = "on" if fields["def"] == "true" else "off"
            self.values = "on, off"
            return
        self.default = fields["def"]
        d = c_int(fields["def"])
        lo = c_int(fields["min"])
        if kind == "BITS":
            mask = c_int(fields["mask"])
            if lo not in (0, 1):
                raise ValueError("BITS minimum must be 0 or 1")
            self.values = f"bits of {fields['mask']}" + (", not 0" if lo else "")
            ok = d >= lo and not d & ~mask
        else:
            hi = c_int(fields["max"])
            if not lo <= hi <= UINT_MAX:
                raise ValueError(f"range {lo}..{hi}")
            self.values = f"{fields['min']}..{fields['max']}"
            if kind == "CLAMP":
                self.values += ", others clamped"
            ok = lo <= d <= hi
        if not ok:
            raise ValueError(f"default {fields['def']} is not among {self.values}")

    def same_default(self, text):
        if self.type == "bool":
            return text == self.default
        try:
            return c_int(text) == c_int(self.default)
        except ValueError:
            return False

    def modinfo(self):
        return f"{self.desc} (default: {self.default}; values: {self.values}) ({self.type})"


def read_rows(path):
    """The SIW2_PARAM_<KIND>(...); rows of siw2_params.c, in order."""
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    rows, errors = [], []
    for m in re.finditer(r"^SIW2_PARAM_([A-Z]+)\(", text, re.M):
        line = text.count("\n", 0, m.start()) + 1
        kind = m.group(1)
        where = f"{rel(path)}:{line}"
        if kind not in KINDS:
            errors.append(f"{where}: unknown row kind SIW2_PARAM_{kind}")
            continue
        try:
            end = call_end(text, m.end())
            rows.append(Param(kind, split_args(text[m.end():end]), where))
        except (ValueError, IndexError) as e:
            errors.append(f"{where}: {e}")
    if not rows and not errors:
        errors.append(f"{rel(path)}: no SIW2_PARAM_* rows found")
    names = [p.name for p in rows]
    for n in sorted({n for n in names if names.count(n) > 1}):
        errors.append(f"{rel(path)}: {n} has more than one row")
    return rows, errors


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def read_doc(path):
    """{name: (line, default, values)} from the Module parameters tables."""
    lines = open(path).read().split("\n")
    where = rel(path)
    try:
        start = lines.index("## Module parameters")
    except ValueError:
        return {}, [f"{where}: no '## Module parameters' section"]
    doc, errors, header = {}, [], None
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            header = None
            continue
        row = cells(line)
        if header is None:
            header = [c.lower() for c in row]
            if "parameter" in header and not {"default", "values"} <= set(header):
                errors.append(f"{where}:{i + 1}: parameter table without 'default' and 'values' columns")
            continue
        if set(line) <= set("|-: "):
            continue
        if "parameter" not in header or not {"default", "values"} <= set(header):
            continue
        m = re.fullmatch(r"`(\w+)`", row[header.index("parameter")])
        if len(row) != len(header) or not m:
            errors.append(f"{where}:{i + 1}: not a row of {len(header)} cells naming a `parameter`")
            continue
        name = m.group(1)
        if name in doc:
            errors.append(f"{where}:{i + 1}: {name} documented twice (also line {doc[name][0]})")
        doc[name] = (i + 1,) + tuple(row[header.index(c)].replace("`", "").strip()
                                     for c in ("default", "values"))
    return doc, errors


def check_ko(ko, src, rows):
    errors = []
    if not os.path.exists(ko):
        return [f"{ko}: missing: build the module first (make module)"]
    if os.path.getmtime(ko) < os.path.getmtime(src):
        return [f"{ko}: older than {rel(src)}: rebuild it (make module)"]
    out = subprocess.run(["modinfo", "-F", "parm", ko], check=True,
                         capture_output=True, text=True).stdout
    seen = {}
    for line in out.splitlines():
        name, _, rest = line.partition(":")
        seen[name] = rest
    byname = {p.name: p for p in rows}
    for p in rows:
        if p.name not in seen:
            errors.append(f"{ko}: {p.name} ({p.line}) missing from modinfo")
        elif seen[p.name] != p.modinfo():
            errors.append(f"{ko}: {p.name}: modinfo says '{seen[p.name]}', "
                          f"{p.line} makes '{p.modinfo()}'")
    for name in seen:
        if name not in byname:
            errors.append(f"{ko}: {name} in modinfo has no row in {rel(src)}")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--src", default=os.path.join(TOP, "drivers/siw2/siw2_params.c"))
    ap.add_argument("--doc", default=os.path.join(TOP, "Documentation/admin-guide.md"))
    ap.add_argument("--ko", help="also check modinfo of this built siw2.ko")
    a = ap.parse_args()

    rows, errors = read_rows(a.src)
    doc, doc_errors = read_doc(a.doc)
    errors += doc_errors
    doc_name = rel(a.doc)
    for p in rows:
        if p.name not in doc:
            errors.append(f"{doc_name}: {p.name} ({p.line}) is not documented")
            continue
        line, default, values = doc[p.name]
        if not p.same_default(default):
            errors.append(f"{doc_name}:{line}: {p.name}: default '{default}', {p.line} says '{p.default}'")
        if values != p.values:
            errors.append(f"{doc_name}:{line}: {p.name}: values '{values}', {p.line} says '{p.values}'")
    for name, (line, _, _) in doc.items():
        if name not in {p.name for p in rows}:
            errors.append(f"{doc_name}:{line}: {name} is documented but has no row in {rel(a.src)}")
    if a.ko:
        errors += check_ko(a.ko, a.src, rows)

    for e in errors:
        print(e)
    what = "the admin guide" + (" and modinfo" if a.ko else "")
    if errors:
        print(f"check-params: {len(errors)} disagreement(s) between {len(rows)} parameters and {what}")
        return 1
    print(f"check-params: {len(rows)} parameters agree with {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
