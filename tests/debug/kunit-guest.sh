# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# siw2's KUnit suites on the debug kernel (tools/check-debug.sh; not a case
# of make check: Debian's kernel has no KUnit).  check-debug builds them as
# one module, build/kunit-mod/siw2_kunit.ko of the tree under test; loading
# it runs every suite, under KASAN, UBSAN and the rest, and prints their
# KTAP to the kernel log.  That log, from this case's start (the boot's
# own empty KTAP block left out), is summarised as tests/kunit/run.sh
# does (ktap-summary.py with kunit.py's parser from the kernel's source);
# the case fails if any KUnit case failed or none reported.
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"

KO=$SIW2_TOP/build/kunit-mod/siw2_kunit.ko
TOOL=/lib/modules/$(uname -r)/build/source/tools/testing/kunit
[[ -f $KO ]] || fail "$KO not built (tools/check-debug.sh builds it)"
[[ -f $TOOL/kunit_parser.py ]] || fail "no kunit.py parser under $TOOL"
# The module's one dependency outside the kernel image (siw2_fpdu.c).
modprobe libcrc32c || fail "modprobe libcrc32c"
insmod "$KO" || fail "insmod $KO"
R=$SIW2_RESULTS
dmesg | sed -n '/siw2-vm: running/,$p' >"$R/ktap"
rmmod siw2_kunit || fail "rmmod siw2_kunit"
python3 "$SIW2_TOP/tests/kunit/ktap-summary.py" "$TOOL" "$R/ktap" | tee "$R/kunit.txt"
rc=${PIPESTATUS[0]}
(( rc == 0 )) || fail "KUnit on $(uname -r): $(tail -n1 "$R/kunit.txt")"
log "KUnit on $(uname -r): $(tail -n1 "$R/kunit.txt")"
