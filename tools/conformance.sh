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
#  4. every "implemented" row names a test file whose failure message for
#     the check that asserts it names the ID: (i) the ID in a string literal
#     of an assertion statement (fail "... COMMIT-ORD-1 ...",
#     KUNIT_EXPECT_*_MSG(..., "COMMIT-ORD-1"), a peer's verdict call), (ii)
#     the lower-case ID in a name the KUnit runner prints: a KUNIT_CASE's,
#     or a parameter description's (a string literal in tests/kunit/), or
#     (iii) the ID in the string literal of a table entry's "req" field
#     (.req = "...", req="...") in a file whose assertions print that field
#     (conformance.md spells the rule out).  A comment never counts;
#  5. if the digest is there, every ID it defines has a row and it uses no
#     ID prefix unknown here.  Without the digest 1-4 still run.
#
# tools/conformance.sh --ran RECORD LOGDIR...: after a make check, every
# "implemented" row names a test that ran and passed in it.  RECORD is
# tests/run-all.sh's record (build/ran.txt: "STAGE NAME" per passed
# result); a VM case counts when its name is there, a KUnit file when one
# of the row's cases for it is, any other file (a program, a peer) when a
# recorded VM case or host test runs it (names it) and, for the row's
# step names, that case's output (LOGDIR/CASE.out) holds each of them.
#
# tools/conformance.sh --selftest: runs the check on made-up repositories:
# the rows asserted only by a comment ("# EXT-ATOMIC-15" then "exit 0",
# "# COMMIT-ORD-1" then "true || fail never") must be reported, the same
# rows asserted in failure messages must pass; then --ran with a record
# that lacks one of the two cases must report that row, and pass with
# both.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIGEST=${SIW2_DIGEST:-$TOP/../shared/specs/DIGEST.md}
MATRIX=$TOP/Documentation/conformance.md

# selftest_repo DIR HOW: a made-up repository with one implemented row,
# COMMIT-ORD-1, and EXT-ATOMIC-15 as a partial one, whose test asserts them
# as HOW says: "comment" (IDs in comments only, the two counterexamples of
# issue 36) or "message" (IDs in the failure messages).
selftest_repo() {
	local d=$1
	mkdir -p "$d/Documentation" "$d/tests/vm/cases"
	cat >"$d/Documentation/conformance.md" <<-'ROWS'
	| ID | Rule | Status | Test | Note |
	|---|---|---|---|---|
	| COMMIT-ORD-1 | ordered (§1) | implemented | `tests/vm/cases/90-t.sh` | |
	| EXT-ATOMIC-15 | atomic (§2) | implemented | `tests/vm/cases/91-u.sh` | |
	ROWS
	if [[ $2 == comment ]]; then
		printf '#!/bin/sh\n# COMMIT-ORD-1\ntrue || fail never\n' >"$d/tests/vm/cases/90-t.sh"
		printf '#!/bin/sh\n# ext_atomic_15\n# EXT-ATOMIC-15\nexit 0\n' >"$d/tests/vm/cases/91-u.sh"
	else
		printf '#!/bin/sh\n[ "$a" = "$b" ] || fail "COMMIT-ORD-1: out of order"\n' >"$d/tests/vm/cases/90-t.sh"
		printf '#!/bin/sh\n[ "$v" = 1 ] ||\n\tfail "EXT-ATOMIC-15: $v"\n' >"$d/tests/vm/cases/91-u.sh"
	fi
}

if [[ ${1:-} == --selftest ]]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	selftest_repo "$tmp/comment" comment
	selftest_repo "$tmp/message" message
	out=$(SIW2_DIGEST=/nonexistent "$0" --check-top "$tmp/comment" 2>&1) &&
		{ echo "$out"; echo "conformance selftest: IDs only in comments passed the check"; exit 1; }
	for id in COMMIT-ORD-1 EXT-ATOMIC-15; do
		grep -q "^conformance: $id: implemented, but" <<<"$out" ||
			{ echo "$out"; echo "conformance selftest: $id (comment only) not reported"; exit 1; }
	done
	out=$(SIW2_DIGEST=/nonexistent "$0" --check-top "$tmp/message" 2>&1) ||
		{ echo "$out"; echo "conformance selftest: IDs in failure messages did not pass"; exit 1; }
	printf 'host checkpatch\nvm 90-t\n' >"$tmp/ran"
	out=$("$0" --ran-top "$tmp/message" "$tmp/ran" 2>&1) &&
		{ echo "$out"; echo "conformance selftest: a row whose case did not run passed --ran"; exit 1; }
	grep -q "^conformance: EXT-ATOMIC-15: .*ran" <<<"$out" ||
		{ echo "$out"; echo "conformance selftest: EXT-ATOMIC-15 (91-u not run) not reported"; exit 1; }
	echo "vm 91-u" >>"$tmp/ran"
	out=$("$0" --ran-top "$tmp/message" "$tmp/ran" 2>&1) ||
		{ echo "$out"; echo "conformance selftest: --ran failed a record with both cases"; exit 1; }
	echo "conformance selftest: IDs only in comments reported (COMMIT-ORD-1, EXT-ATOMIC-15), IDs in failure messages pass; a row whose case did not run reported by --ran"
	exit 0
fi
if [[ ${1:-} == --check-top ]]; then
	TOP=$2
	MATRIX=$TOP/Documentation/conformance.md
	set -- --check
elif [[ ${1:-} == --ran-top ]]; then
	TOP=$2
	MATRIX=$TOP/Documentation/conformance.md
	shift 2
	set -- --ran "$@"
fi

exec python3 - "$TOP" "$MATRIX" "$DIGEST" "$@" <<'EOF'
import os
import re
import signal
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)
top, matrix, digest = sys.argv[1:4]
mode = sys.argv[4] if len(sys.argv) > 4 else ""
ran_args = sys.argv[5:]
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


if mode not in ("--check", "--ran"):
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


STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
# A line that continues a statement onto the next one.
CONTINUES = re.compile(r"(?:[,(\\+]|&&|\|\||\bthen|\belse|\bdo)\s*$")
REQ_FIELD = re.compile(r"(?:\.req\s*=|\breq\s*=)\s*(\"[^\"]*\"|'[^']*')")


def in_strings(line, pred):
    return any(pred(m.group(0)) for m in STRING.finditer(line))


def asserts_id(path, rid, names):
    """Does test file PATH name RID in the failure message of the check
    that asserts it (see the header)?  NAMES: the row's cases for PATH."""
    text = lines_of(path)
    code = [l if not COMMENT.match(l) else "" for l in text]
    low = rid.lower().replace("-", "_")
    lowre = re.compile(r"(?<![a-z0-9])" + low + r"(?![0-9])")
    # (ii) a KUnit case name, or a KUnit parameter description
    for case in re.findall(r"KUNIT_CASE(?:_PARAM)?\((\w+)", "\n".join(code)):
        if lowre.search(case):
            return True
    if path.startswith("tests/kunit/") and \
            any(in_strings(l, lowre.search) for l in code):
        return True
    # (i) in a string literal of an assertion statement: the assertion's
    # line and the lines it continues onto
    for i, l in enumerate(code):
        if not ASSERT.search(l):
            continue
        j = i
        while j < len(code):
            if in_strings(code[j], lambda s: cites(s, rid)):
                return True
            if not CONTINUES.search(code[j]) or j - i >= ASSERT_SPAN:
                break
            j += 1
    # (iii) a table entry's req field, printed by the file's assertions
    if any(ASSERT.search(l) and re.search(r"(?:->|\.|\[')req\b", l) for l in code):
        for l in code:
            m = REQ_FIELD.search(l)
            if m and cites(m.group(1), rid):
                return True
    return False


def finish(summary):
    """Print the problems found and exit 1, or print SUMMARY and exit 0."""
    for p in problems:
        print(p)
    if problems:
        print("conformance: %d problem(s)" % len(problems))
        sys.exit(1)
    print("conformance: " + summary)
    sys.exit(0)


def row_tests(c):
    """A requirement row's Test column: {path: [case names]}."""
    tcol = re.sub(r"\([^)]*\)", "", c[3]).replace("`", "").strip()
    files = {}
    if tcol and tcol != "-":
        for entry in tcol.split(";"):
            words = entry.replace(",", " ").split()
            if words:
                files.setdefault(words[0], []).extend(words[1:])
    return files


def make_rule(cmd):
    """For a host test "make ... -C DIR TARGET": TARGET's rule in
    DIR/Makefile (its line and recipe), which says what the test runs."""
    m = re.match(r"make\b.*-C\s+(\S+)\s+(\S+)\s*$", cmd)
    mk = m and os.path.join(top, m.group(1), "Makefile")
    if not mk or not os.path.isfile(mk):
        return ""
    out, on = [], False
    with open(mk, encoding="utf-8") as f:
        for line in f:
            if on and not line.startswith("\t"):
                break
            if on or line.startswith(m.group(2) + ":"):
                on = True
                out.append(line)
    return "\n" + "".join(out)


def ran_check(record, logdirs):
    """--ran: every implemented row names a test that ran and passed in the
    make check whose record is RECORD (see the header)."""
    done = set()
    with open(record, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) >= 2:
                done.add((w[0], w[1]))
    cases = {n for st, n in done if st in ("vm", "vm61", "vm13")}
    kunit = {n.split(".", 1)[-1] for st, n in done if st == "kunit"}
    hosts = {n for st, n in done if st == "host"}
    # Who runs what: the text of each VM case and of each host test line.
    cdir = os.path.join(top, "tests/vm/cases")
    ctext = {}
    for fn in sorted(os.listdir(cdir)) if os.path.isdir(cdir) else []:
        if fn.endswith(".sh"):
            ctext[fn[:-3]] = "\n".join(lines_of("tests/vm/cases/" + fn))
    htext = {}
    runall = os.path.join(top, "tests/run-all.sh")
    if os.path.isfile(runall):
        for l in lines_of("tests/run-all.sh"):
            m = re.match(r"\s*host_test\s+(\S+)\s+(.*)", l)
            if m:
                htext[m.group(1)] = m.group(2) + make_rule(m.group(2))
    logs = {}

    def logs_of(case):
        """The case's outputs, one per LOGDIR that has one (the vm stage's,
        the vm13 stage's)."""
        if case not in logs:
            logs[case] = []
            for d in logdirs:
                p = os.path.join(d, case + ".out")
                if os.path.isfile(p):
                    with open(p, encoding="utf-8", errors="replace") as f:
                        logs[case].append(f.read())
        return logs[case]

    def file_ran(path, names):
        if path.startswith("tests/vm/cases/"):
            return os.path.basename(path)[:-3] in cases
        if path.startswith("tests/kunit/"):
            return any(n in kunit for n in names) if names else bool(kunit)
        stem = os.path.splitext(os.path.basename(path))[0]
        pat = re.compile(r"(?<![\w-])(?:%s|%s)(?![\w-])"
                         % (re.escape(stem), re.escape(stem.replace("_", "-"))))
        for case in sorted(cases):
            if case in ctext and pat.search(ctext[case]):
                if not names:
                    return True
                for text in logs_of(case):
                    if all(re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", text)
                           for n in names):
                        return True
        return not names and any(h in hosts and pat.search(t) for h, t in htext.items())

    for rid, (no, c) in sorted(rows.items()):
        if len(c) != 5 or c[2] != "implemented":
            continue
        files = row_tests(c)
        if not any(file_ran(p, n) for p, n in files.items()
                   if os.path.isfile(os.path.join(top, p))):
            problem("%s: none of its tests ran and passed in the last make check (%s)"
                    % (rid, "; ".join(" ".join([p] + n) for p, n in files.items())))
    finish("every implemented row's test ran and passed (%d results in %s)"
           % (len(done), record))


if mode == "--ran":
    if not ran_args:
        sys.exit("conformance: --ran RECORD [LOGDIR...]")
    ran_check(ran_args[0], ran_args[1:])

for rid, (no, c) in sorted(rows.items()):
    if len(c) != 5:
        continue
    status, files = c[2], {}
    for path, names in row_tests(c).items():
        if not os.path.isfile(os.path.join(top, path)):
            problem("%s: test file does not exist: %s" % (rid, path))
            continue
        files[path] = names
        text = "\n".join(lines_of(path))
        for name in names:
            if not re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text):
                problem("%s: no case %s in %s" % (rid, name, path))
    if status != "implemented":
        continue
    if not files:
        problem("%s: implemented, but no test file named" % rid)
    elif not any(asserts_id(p, rid, n) for p, n in files.items()):
        problem("%s: implemented, but no named test file names it in a failure message (%s)"
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

finish("%d rows, %s, every cited ID resolves, every implemented row "
       "is named in a failure message of a named test" % (len(rows), ndig))
EOF
