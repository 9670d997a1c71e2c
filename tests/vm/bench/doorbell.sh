#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A measurement, not a test (issue 18): what a doorbell's kernel entry
# costs by path (tests/progs/siw2_dbbench: a do-nothing system call, the
# ioctl rdma-core sends, the legacy write()), on a siw2 device and on
# Linux siw's, whose provider rings the same way.  Run it in the guest:
#
#   SIW2_VM_ACCEL=tcg,thread=multi tests/vm/run.sh tests/vm/bench/doorbell.sh
#
# DB_N (kernel command line, through SIW2_VM_APPEND): calls per way
# (100000).  Output in the results directory: DRIVER.txt.
# timeout: 600
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip timeout
R=$SIW2_RESULTS
prog=$SIW2_PROGS/siw2_dbbench
[[ -x $prog ]] || fail "$prog not built"

# db_run DEVICE: siw2_dbbench on it, in namespace pa where lib-peer.sh
# puts the device.
db_run() {
	ip netns exec pa timeout 300 "$prog" -d "$1" -n "${DB_N:-100000}" >"$R/$1.txt" 2>&1 ||
		{ cat "$R/$1.txt"; fail "siw2_dbbench on $1"; }
	log "$1: $(grep -o 'way=[a-z]* .*' "$R/$1.txt" | tr '\n' ' ')"
}

siw2_load
siw_peer_load || fail "Linux siw not loaded"
ns_pair pa pb 15
dp_pair_devices siw2 siw2
db_run "$DP_DEV_A"
# Linux siw's pair replaces siw2's.
dp_pair_devices siw siw
db_run "$DP_DEV_A"
