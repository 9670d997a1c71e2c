#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/conformance.sh [--check]
#
# Without --check: lists every ID the protocol digest defines
# (../shared/specs/DIGEST.md, or $SIW2_DIGEST).
#
# With --check: verifies Documentation/conformance.md and the citations of
# the whole repository, one line per problem, non-zero exit if any:
#  1. every requirement row has a Rule with a section ("§") and a known
#     status, every DEC/AMB/SIW2-DEC row a statement with its section;
#  2. every test file a row names exists and holds the case names it gives;
#  3. every ID (MPA2-, EXT-, V2-, COMMIT-, RPCRDMA2-, BASE-, DEC-, AMB-,
#     SIW2-DEC-),
#     ID list ("MPA2-IRD-2..4", "EXT-HDR-4/5"), family ("EXT-IMM-*") and
#     digest section ("DIGEST 3.4", "DIGEST §1.4") cited in any file of
#     the repository (build/ and .git left out) resolves in conformance.md;
#  4. every "implemented" row names a test file that names the ID where it
#     asserts it: (i) on or within ASSERT_SPAN lines of an assertion line,
#     (ii) as a lower-case test name (ext_atomic_14), (iii) in the comment
#     right above a KUnit case, or (iv) on a code line quoting one of the
#     row's case names (conformance.md spells the rule out);
#  5. if the digest is there, every ID it defines has a row and it uses no
#     ID prefix unknown here.  Without the digest 1-4 still run.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIGEST=${SIW2_DIGEST:-$TOP/../shared/specs/DIGEST.md}
MATRIX=$TOP/Documentation/conformance.md

exec python3 - "$TOP" "$MATRIX" "$DIGEST" "${1:-}" <<'EOF'
import os
import re
import signal
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)
top, matrix, digest, mode = sys.argv[1:5]
ASSERT_SPAN = 3
PREFIXES = ("MPA2", "EXT", "V2", "COMMIT", "RPCRDMA2", "BASE", "SIW2-DEC", "DEC", "AMB")
STATUSES = ("implemented", "partial", "planned", "n/a")
PFX = "(?:" + "|".join(PREFIXES) + ")"
FPFX = "(?:" + "|".join(PREFIXES[:-3]) + ")"   # prefixes with families
# One ID: PREFIX-FAMILY-<n> (<n> may be T<n>), or DEC-<n>, AMB-<n>,
# SIW2-DEC-<n> (siw2's own decisions, beyond the digest's).
ONE_ID = re.compile(r"^" + PFX + r"(?:-[A-Z][A-Z0-9]*)?-T?[0-9]+$")
# A citation: an ID, optionally followed by /N or ..N parts, or a family.
CITE = re.compile(r"(?<![A-Za-z0-9_-])(" + PFX + r"(?:-[A-Z][A-Z0-9]*)?)"
                  r"-(T?[0-9]+)((?:(?:/|\.\.)T?[0-9]+)*)"
                  r"|(?<![A-Za-z0-9_-])(" + FPFX + r"-[A-Z][A-Z0-9]*)(?:-\*)?"
                  r"(?![A-Za-z0-9_-])"
                  r"|(?<![A-Za-z0-9_-])(" + FPFX + r")-\*")
DIGEST_CITE = re.compile(r"DIGEST(?:\.md)?(?: section| §)? ?([0-9]+(?:\.[0-9]+)*)")
ASSERT = re.compile(
    r"KUNIT_(?:EXPECT|ASSERT|FAIL)"
    r"|(?<![A-Za-z0-9_])(?:[A-Za-z0-9]+_)*"
    r"(?i:fail|die|bad|check|expect|assert|judge|result)[A-Za-z0-9_]*\s*\("
    r"|(?:^|[;&|{]|\bthen|\belse|\bdo)\s*(?:fail|die|bad|check[a-z_]*|expect[a-z_]*)(?:\s|$)"
    r"|--expect|\bbad(?:\[[^]]*\])?\+="
    r"|\bnot ok\b|\bassert\b|\braise\b")
COMMENT = re.compile(r"^\s*(?:#|\*|/\*|//)")

problems = []


def problem(msg):
    problems.append("conformance: " + msg)


def expand(m):
    """The IDs and families a CITE match stands for: (ids, families)."""
    if m.group(1):
        fam, first, rest = m.group(1), m.group(2), m.group(3)
        tee = "T" if first.startswith("T") else ""
        ids = [fam + "-" + first]
        prev = int(first.lstrip("T"))
        for sep, num in re.findall(r"(/|\.\.)(T?[0-9]+)", rest):
            n = int(num.lstrip("T"))
            if sep == "..":
                ids += ["%s-%s%d" % (fam, tee, k) for k in range(prev + 1, n + 1)]
            else:
                ids.append("%s-%s%d" % (fam, tee, n))
            prev = n
        return ids, []
    return [], [m.group(4) or m.group(5)]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def digest_ids(path):
    """The digest's text and the IDs it defines (first cells of its table rows)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    firsts = re.findall(r"^\|\s*\**([A-Z][A-Z0-9-]*)\**\s*\|", text, re.M)
    return text, {i for i in firsts if ONE_ID.match(i)}


def natural(i):
    return [int(p) if p.isdigit() else p for p in re.split(r"([0-9]+)", i)]


if mode != "--check":
    if not os.path.isfile(digest):
        sys.exit("conformance: digest not found: " + digest)
    print("\n".join(sorted(digest_ids(digest)[1], key=natural)))
    sys.exit(0)

# --- the matrix -----------------------------------------------------------
rows = {}         # ID -> (line number, cells)
sections = set()  # digest section numbers with a row
with open(matrix, encoding="utf-8") as f:
    mlines = f.read().split("\n")
for no, line in enumerate(mlines, 1):
    if not line.startswith("|"):
        continue
    c = cells(line)
    if re.fullmatch(r"§[0-9]+(\.[0-9]+)*", c[0]):
        sections.add(c[0][1:])
    elif ONE_ID.match(c[0]):
        if c[0] in rows:
            problem("%s: two rows (lines %d and %d)" % (c[0], rows[c[0]][0], no))
        rows[c[0]] = (no, c)
families = {i.rsplit("-", 1)[0] for i in rows} | {i.split("-", 1)[0] for i in rows}

# Requirement rows: | ID | Rule | Status | Test | Note |;
# decision/ambiguity rows: | ID | Statement |.
for rid, (no, c) in sorted(rows.items()):
    if rid.startswith(("DEC-", "AMB-", "SIW2-DEC-")):
        if len(c) < 2 or "§" not in c[1]:
            problem("%s: no statement with its section (line %d)" % (rid, no))
        continue
    if len(c) != 5:
        problem("%s: %d columns, not 5 (line %d)" % (rid, len(c), no))
        continue
    _, rule, status, tcol, _ = c
    if "§" not in rule:
        problem("%s: the Rule has no section (line %d)" % (rid, no))
    if status not in STATUSES:
        problem("%s: unknown status '%s'" % (rid, status))

# --- test files named by the rows --------------------------------------------
_lines = {}


def lines_of(path):
    if path not in _lines:
        with open(os.path.join(top, path), encoding="utf-8", errors="replace") as f:
            _lines[path] = f.read().split("\n")
    return _lines[path]


def cites(line, rid):
    return any(rid in expand(m)[0] for m in CITE.finditer(line))


def asserts_id(path, rid, names):
    """Does test file PATH name RID where it asserts it (see the header)?
    NAMES: the cases the row gives for PATH."""
    text = lines_of(path)
    # (ii) the lower-case ID in a test name
    low = rid.lower().replace("-", "_")
    if any(re.search(r"(?<![a-z0-9])" + low + r"(?![0-9])", l) for l in text):
        return True
    # (i) on, or at most ASSERT_SPAN lines from, an assertion (code) line
    near = set()
    for i, l in enumerate(text):
        if ASSERT.search(l) and not COMMENT.match(l):
            near.update(range(i - ASSERT_SPAN, i + ASSERT_SPAN + 1))
    if any(i in near and cites(l, rid) for i, l in enumerate(text)):
        return True
    # (iii) in the comment right above a KUnit case
    for case in re.findall(r"KUNIT_CASE(?:_PARAM)?\((\w+)", "\n".join(text)):
        for i, l in enumerate(text):
            if not l.startswith("static void " + case + "("):
                continue
            j = i - 1
            if j < 0 or not text[j].rstrip().endswith("*/"):
                continue
            while j >= 0:
                if cites(text[j], rid):
                    return True
                if "/*" in text[j]:
                    break
                j -= 1
    # (iv) on a code line that quotes one of the row's case names
    for l in text:
        if COMMENT.match(l) or not cites(l, rid):
            continue
        if any(re.search(r"[\"']" + re.escape(n) + r"[\"']", l) for n in names):
            return True
    return False


for rid, (no, c) in sorted(rows.items()):
    if len(c) != 5:
        continue
    status, tcol = c[2], re.sub(r"\([^)]*\)", "", c[3]).replace("`", "").strip()
    files = {}
    if tcol and tcol != "-":
        for entry in tcol.split(";"):
            words = entry.replace(",", " ").split()
            path = words[0]
            if not os.path.isfile(os.path.join(top, path)):
                problem("%s: test file does not exist: %s" % (rid, path))
                continue
            files.setdefault(path, []).extend(words[1:])
            text = "\n".join(lines_of(path))
            for name in words[1:]:
                if not re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text):
                    problem("%s: no case %s in %s" % (rid, name, path))
    if status != "implemented":
        continue
    if not files:
        problem("%s: implemented, but no test file named" % rid)
    elif not any(asserts_id(p, rid, n) for p, n in files.items()):
        problem("%s: implemented, but no named test file names it at an assertion (%s)"
                % (rid, ", ".join(files)))

# --- citations anywhere in the repository ------------------------------------
for dirpath, dirnames, filenames in os.walk(top):
    dirnames[:] = sorted(d for d in dirnames if d not in (".git", "build"))
    for fn in sorted(filenames):
        path = os.path.join(dirpath, fn)
        rel = os.path.relpath(path, top)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if b"\0" in data:
            continue
        for no, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
            for m in CITE.finditer(line):
                ids, fams = expand(m)
                for i in ids:
                    if i not in rows:
                        problem("%s:%d: %s does not resolve in Documentation/conformance.md"
                                % (rel, no, i))
                for fam in fams:
                    if fam not in families:
                        problem("%s:%d: %s-* does not resolve in Documentation/conformance.md"
                                % (rel, no, fam))
            for m in DIGEST_CITE.finditer(line):
                if m.group(1) not in sections:
                    problem("%s:%d: DIGEST %s does not resolve in Documentation/conformance.md"
                            % (rel, no, m.group(1)))

# --- the digest, if it is there ----------------------------------------------
if os.path.isfile(digest):
    dtext, did = digest_ids(digest)
    for pfx in re.findall(r"^\s*\|\s*`([A-Z0-9]+)-\*`\s*\|", dtext, re.M):
        if pfx not in PREFIXES:
            problem("the digest defines IDs %s-*, which this script does not know" % pfx)
    for i in sorted(did - set(rows), key=natural):
        problem("%s: defined by the digest, no row in Documentation/conformance.md" % i)
    ndig = "%d IDs of the digest" % len(did)
else:
    ndig = "digest not found (%s): its IDs' coverage not checked" % digest

for p in problems:
    print(p)
if problems:
    print("conformance: %d problem(s)" % len(problems))
    sys.exit(1)
print("conformance: %d rows, %s, every cited ID resolves, every implemented row "
      "is asserted by a named test" % (len(rows), ndig))
EOF
