#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/demo.sh: boot a QEMU guest that loads siw2, creates two network
# namespaces joined by a veth pair with a siw2 device on each side, and shows
# rdma link show, ibv_devices and ibv_devinfo -v (tests/vm/demo-guest.sh).
# Everything is printed to the terminal; a copy stays in build/vm-logs/demo*.
# Needs a built tree (make) and the packages of tools/install-deps.sh.
set -u

SIW2_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export SIW2_TOP
# shellcheck source=tests/vm/vm.sh
source "$SIW2_TOP/tests/vm/vm.sh"

logdir=$SIW2_TOP/build/vm-logs
res=$logdir/demo
rm -rf "$res"
mkdir -p "$res"
echo "demo: booting guest (kernel $(vm_kernel | cut -d' ' -f1)), output follows"
vm_boot "$res" "${SIW2_DEMO_TIMEOUT:-300}" "$logdir/demo.console" demo \
	"$SIW2_TOP/tests/vm/demo-guest.sh"
qrc=$?
rc=$(cat "$res/rc" 2>/dev/null || echo)
if [[ $qrc -eq 124 ]]; then
	echo "demo: timed out" >&2
	exit 1
elif [[ -z $rc ]]; then
	echo "demo: guest did not finish (QEMU status $qrc); see $logdir/demo.console" >&2
	exit 1
elif [[ $rc -ne 0 ]]; then
	echo "demo: guest script failed with status $rc; kernel log in $res/dmesg" >&2
	exit "$rc"
fi
echo "demo: ok (guest booted in $(cat "$res/boot") s; logs in $res)"
