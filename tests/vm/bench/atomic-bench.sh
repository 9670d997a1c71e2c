#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A measurement, not a test: RFC 7306 atomics over siw2 between two
# namespaces, beside the RDMA Read of 8 octets (the other operation that
# needs a round trip to the Responder's memory), with perftest -R:
# ib_atomic_lat and ib_atomic_bw (FETCH_AND_ADD, CMP_AND_SWAP) and
# ib_read_lat / ib_read_bw -s 8, REPEATS times each, printing perftest's
# result lines and a summary of medians. Linux siw has no atomics; the
# rdma_rxe comparison needs the initial-namespace path of bench-guest.sh
# and is not made here. Run it in the guest:
#
#   SIW2_VM_ACCEL=tcg,thread=multi tests/vm/run.sh tests/vm/bench/atomic-bench.sh
#
# Knob: AB_REPEATS (3) on the kernel command line (SIW2_VM_APPEND).
# timeout: 900
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip timeout stdbuf ib_atomic_bw ib_atomic_lat ib_read_bw ib_read_lat
R=$SIW2_RESULTS
SRV=198.18.15.1
REPS=$(sed -n 's/.*\bAB_REPEATS=\([0-9]*\).*/\1/p' /proc/cmdline)
REPS=${REPS:-3}

siw2_load
ns_pair pa pb 15
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a port not ACTIVE"
wait_port_active s2b || fail "s2b port not ACTIVE"

# one NAME TOOL ARGS...: a run; prints and keeps the result line.
one() {
	local name=$1 sp
	shift
	ip netns exec pa timeout 120 stdbuf -oL "$@" -R -d s2a >"$R/$name.s" 2>&1 &
	sp=$!
	wait_tcp_listen "$sp" 18515 20 || { log "$name: server not listening"; return 1; }
	ip netns exec pb timeout 120 stdbuf -oL "$@" -R -d s2b "$SRV" >"$R/$name.c" 2>&1
	wait "$sp"
	grep -E '^ *8 +[0-9]+ ' "$R/$name.c" | tr -s ' ' | sed "s/^/$name /" | tee -a "$R/results.txt"
}

: >"$R/results.txt"
for rep in $(seq 1 "$REPS"); do
	one "atomic_lat-fadd-$rep" ib_atomic_lat -A FETCH_AND_ADD -n 3000
	one "atomic_lat-cswap-$rep" ib_atomic_lat -A CMP_AND_SWAP -n 3000
	one "read_lat-8-$rep" ib_read_lat -s 8 -n 3000
	one "atomic_bw-fadd-$rep" ib_atomic_bw -A FETCH_AND_ADD -D 3
	one "atomic_bw-cswap-$rep" ib_atomic_bw -A CMP_AND_SWAP -D 3
	one "read_bw-8-$rep" ib_read_bw -s 8 -D 3
done
# Medians: latency t_typical (column 6 of the line with the name in front),
# bandwidth MsgRate (column 6 too).
log "medians over $REPS runs (lat: t_typical usec; bw: Mmsg/s):"
for t in atomic_lat-fadd atomic_lat-cswap read_lat-8 atomic_bw-fadd atomic_bw-cswap read_bw-8; do
	awk -v t="$t" '$1 ~ "^" t "-[0-9]+$" { print $6 }' "$R/results.txt" | sort -g |
		awk -v t="$t" '{ v[++n] = $1 } END { print t, n ? v[int((n + 1) / 2)] : "no result" }'
done | tee "$R/medians.txt"
