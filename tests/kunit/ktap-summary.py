#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# ktap-summary.py KUNIT_TOOL_DIR TEST_LOG
#
# Reads the kernel log kunit.py saved (build_dir/test.log), parses its KTAP
# with kunit.py's own parser, and prints one TAP-style line per KUnit test
# case ("ok - kunit/<suite>.<case>", "not ok - ...", "ok - ... # SKIP"),
# the failing parameters of a parameterised case as "#" lines, and last
#     N passed, N failed, N skipped
# A log without any result counts as one failure.  Exit status 1 if
# anything failed.
import contextlib
import io
import sys

sys.path.insert(0, sys.argv[1])
import kunit_parser  # noqa: E402
from kunit_parser import TestStatus  # noqa: E402

try:
    with open(sys.argv[2], errors='replace') as f:
        lines = f.readlines()
except OSError as e:
    lines = []
    print(f'# cannot read {sys.argv[2]}: {e}')

# The parser prints kunit.py's own report through kunit_printer.stdout,
# which holds the sys.stdout of import time: silence it there.
kunit_parser.stdout._output = io.StringIO()
kunit_parser.stdout._use_color = False
with contextlib.redirect_stdout(io.StringIO()):
    root = kunit_parser.parse_run_tests(lines)

passed = failed = skipped = 0


def failing_leaves(t, path):
    """Names of failed parameters/subtests below a case."""
    out = []
    for s in t.subtests:
        p = f'{path}/{s.name}'
        if s.subtests:
            out += failing_leaves(s, p)
        elif s.status not in (TestStatus.SUCCESS, TestStatus.SKIPPED):
            out.append(p)
    return out


for suite in root.subtests:
    if not suite.subtests:
        # a suite that reported no cases (e.g. crashed before its plan)
        print(f'not ok - kunit/{suite.name} ({suite.status.name})')
        failed += 1
        continue
    for case in suite.subtests:
        name = f'kunit/{suite.name}.{case.name}'
        n = len(case.subtests)
        extra = f' ({n} params)' if n else ''
        if case.status == TestStatus.SUCCESS:
            print(f'ok - {name}{extra}')
            passed += 1
        elif case.status == TestStatus.SKIPPED:
            print(f'ok - {name} # SKIP')
            skipped += 1
        else:
            print(f'not ok - {name}{extra} ({case.status.name})')
            for leaf in failing_leaves(case, ''):
                print(f'#   failed: {leaf.lstrip("/")}')
            failed += 1

if passed + failed + skipped == 0:
    print('not ok - kunit: no KTAP results in the kernel log')
    failed += 1

print(f'{passed} passed, {failed} failed, {skipped} skipped')
sys.exit(1 if failed else 0)
