#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Module removal with devices present: two siw2 devices (one per namespace,
# on a veth pair), a user process holding a PD/CQ/MR/QP on one of them.
# "modprobe -r siw2" must unregister both, the process must see
# IBV_EVENT_DEVICE_FATAL and close cleanly, and every count must be 0.
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"
need rdma ip
[[ -x $SIW2_PROGS/siw2_async ]] || fail "siw2_async not built (make progs)"

OUT=$SIW2_RESULTS/async.txt
apid=
trap '[[ -n $apid ]] && kill "$apid" 2>/dev/null' EXIT

siw2_load
ns_pair rm_a rm_b
siw2_link_add rm_a siw2_ra rm_a-v || fail "rdma link add siw2_ra"
siw2_link_add rm_b siw2_rb rm_b-v || fail "rdma link add siw2_rb"
[[ $(siw2_count devices) == 2 ]] || fail "devices $(siw2_count devices), want 2"

"$SIW2_PROGS/siw2_async" -d siw2_ra --hold --timeout 200 >"$OUT" 2>&1 &
apid=$!
wait_until 30 grep -q '^ready$' "$OUT" || { cat "$OUT"; fail "siw2_async not ready"; }
[[ $(siw2_count qps siw2_ra) == 1 ]] || fail "held QP not counted"

siw2_unload
siw2_loaded && fail "siw2 still loaded"
wait "$apid"; rc=$?
apid=
cat "$OUT"
[[ $rc -eq 0 ]] || fail "siw2_async exit $rc"
grep -q '^event DEVICE_FATAL' "$OUT" || fail "no DEVICE_FATAL seen"
[[ -e /sys/class/infiniband/siw2_ra || -e /sys/class/infiniband/siw2_rb ]] &&
	fail "devices left after module removal"
log "module removal with a busy device ok"
