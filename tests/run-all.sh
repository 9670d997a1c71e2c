#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tests/run-all.sh [run.sh options, e.g. -j2]
#
# The whole test suite, in stages:
#   1. host: tools/checkpatch.sh (one test; needs no VM)
#   2. vm:   tests/vm/run.sh (one QEMU guest per case)
# Every stage runs even if an earlier one failed.  The very last line is
#     N passed, N failed, N skipped
# summed over all stages; the exit status is non-zero if anything failed.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
passed=0 failed=0 skipped=0
SUMMARY_RE='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'

echo "# stage host: checkpatch"
if tools/checkpatch.sh 2>&1 | sed 's/^/#   /'; [[ ${PIPESTATUS[0]} -eq 0 ]]; then
	echo "ok - checkpatch"
	passed=$((passed + 1))
else
	echo "not ok - checkpatch"
	failed=$((failed + 1))
fi

echo "# stage vm: tests/vm/run.sh"
vm_counted=0
while IFS= read -r line; do
	if [[ $line =~ $SUMMARY_RE ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
		skipped=$((skipped + BASH_REMATCH[3]))
		vm_counted=1
		echo "# stage vm: $line"
	else
		echo "$line"
	fi
done < <(tests/vm/run.sh "$@" 2>&1)
if [[ $vm_counted -eq 0 ]]; then
	# run.sh died before its summary: count that as a failure.
	echo "not ok - vm stage produced no summary"
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
