#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/demo.sh: boot a QEMU guest that loads siw2, creates two network
# namespaces joined by a veth pair with a siw2 device on each side, shows
# what rdma, ibv_devices and ibv_devinfo see, and moves data between them
# (rping with verification, ib_write_bw, ib_send_lat, and iperf3 over the
# same veth for comparison; tests/vm/demo-guest.sh).  Everything is printed
# to the terminal, the results last, one line each; a copy stays in
# build/vm-logs/demo*.  Fails if any step fails or the guest's kernel log
# shows a warning (KLOG_BAD, tests/vm/vm.sh).
# Needs a built tree (make) and the packages of tools/install-deps.sh.
set -u

SIW2_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export SIW2_TOP
# shellcheck source=tests/vm/vm.sh
# Two host threads for the two vCPUs: with one, a process that busy-polls
# a CQ holds the only one until the next tick, and latencies read 4 ms.
export SIW2_VM_ACCEL=${SIW2_VM_ACCEL:-tcg,thread=multi}
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
bad=$(grep -Ev "$KLOG_USER" "$res/dmesg" 2>/dev/null | grep -E -m1 "$KLOG_BAD")
if [[ -n $bad ]]; then
	echo "demo: the guest kernel log shows: $bad (see $res/dmesg)" >&2
	exit 1
fi
t=$(awk -v b="$(cat "$res/boot")" '{ printf "%.1f", $1 - b }' "$res/end" 2>/dev/null)
echo "demo: ok (guest booted in $(cat "$res/boot") s, demo ran $t s of guest time; logs in $res)"
echo
cat "$res/results/summary"
