#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/check-debug.sh [tests/run-all.sh arguments, e.g. case files]
#
# make check-debug (issue 17): the test suite with the VM cases on the
# debug guest kernel (tools/debug-kernel.sh: KASAN, KFENCE, UBSAN, lockdep,
# kmemleak, DEBUG_OBJECTS, DEBUG_LIST, fault injection).  Not part of make
# check: the debug kernel is several times slower under TCG.
#
#   1. The debug kernel is built (once per fragment) and installed beside
#      Debian's.
#   2. HEAD (what CI would test, not the working tree) is exported to
#      build/debug/tree and built there against that kernel
#      (KDIR=/lib/modules/<release>/build), with Linux siw as the peer.
#   3. tests/run-all.sh runs there with SIW2_VM_KVER=<release> (every
#      guest boots the debug kernel) and SIW2_VM_TIMEOUT_SCALE (default 4)
#      stretching each case's time budget.  Any KASAN, UBSAN, lockdep,
#      DEBUG_OBJECTS or list report fails its case (tests/vm/vm.sh
#      KLOG_BAD), and so does a leak kmemleak finds in the scan after each
#      case (tests/vm/guest-init.sh).
# Output as make check's; the wall time and release go to
# build/debug/last.txt.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$TOP/build/debug
TREE=$OUT/tree
t0=$(date +%s)

kver=$("$TOP/tools/debug-kernel.sh" --print-kver) || { echo "not ok - check-debug: no debug kernel"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
rm -rf "$TREE"
mkdir -p "$TREE"
git -C "$TOP" archive HEAD | tar -x -C "$TREE" || exit 1
# The protocol digest beside the tree, as beside any clone.
[[ -d $TOP/../shared && ! -e $OUT/shared ]] && ln -s "$(cd "$TOP/../shared" && pwd)" "$OUT/shared"
kdir=/lib/modules/$kver/build
if ! make -C "$TREE" KDIR="$kdir" all >"$OUT/build.log" 2>&1 ||
   ! SIW2_VM_KVER=$kver "$TREE/tools/build-siw.sh" >>"$OUT/build.log" 2>&1; then
	tail -n 20 "$OUT/build.log"
	echo "not ok - check-debug: build against $kver (build/debug/build.log)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
SIW2_VM_KVER=$kver SIW2_VM_TIMEOUT_SCALE=${SIW2_VM_TIMEOUT_SCALE:-4} \
	"$TREE/tests/run-all.sh" "$@" 2>&1 | tee "$OUT/check.log"
rc=${PIPESTATUS[0]}
{
	echo "release $kver, HEAD $(git -C "$TOP" rev-parse --short HEAD), $(date -u +%F)"
	echo "wall $(( $(date +%s) - t0 )) s: $(tail -n1 "$OUT/check.log")"
} >"$OUT/last.txt"
exit "$rc"
