#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/sparse.sh: the kernel's sparse checker over every file of the
# module ("make sparse": make C=2 against Debian's 6.12 headers, with the
# module's own W=1).  Exit 0 only if sparse reports nothing; each report
# is printed.  Part of make check's host stage.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
command -v sparse >/dev/null || { echo "sparse: not installed (tools/install-deps.sh)" >&2; exit 1; }
out=$(make -C "$TOP" --no-print-directory sparse 2>&1)
rc=$?
(( rc == 0 )) || { echo "$out" | tail -n 30; echo "sparse: make sparse failed ($rc)"; exit 1; }
# kbuild prints "  CHECK   file" per file; sparse's reports name a file
# and line: "drivers/siw2/x.c:12:3: warning: ...".
reports=$(echo "$out" | grep -E '^[^ ].*:[0-9]+:[0-9]+: (warning|error):')
checked=$(echo "$out" | grep -c '^  CHECK ')
if [[ -n $reports ]]; then
	echo "$reports"
	echo "sparse: $(echo "$reports" | wc -l) report(s) in $checked files checked"
	exit 1
fi
(( checked > 0 )) || { echo "$out" | tail -n 20; echo "sparse: no file was checked"; exit 1; }
echo "sparse: $checked files checked, no report"
