#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A diagnosis, not a test: the first rdma_cm connections between two fresh
# siw2 devices, with siw2's trace events and the kernel's rdma_cma and
# TCP events recorded, to see where a connection refused with -111
# (RDMA_CM_EVENT_REJECTED) ends.  Seen on the debug kernel (2026-11-26,
# cases 57, 65, 73): the server printed LISTENING and never saw a
# CONNECT_REQUEST.  Run it on the debug kernel:
#
#   SIW2_VM_KVER=6.12.117-siw2dbg SIW2_VM_TIMEOUT_SCALE=8 \
#       tests/vm/run.sh tests/debug/conn-probe.sh
#
# Knob: PROBE_N connections (4), each with a fresh pair of devices.
# The trace goes to the results directory (trace.txt).
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip timeout
R=$SIW2_RESULTS
T=/sys/kernel/tracing
N=${PROBE_N:-4}

siw2_load
cm_ns_pair pa pb 13
echo 0 >"$T/tracing_on"
echo 65536 >"$T/buffer_size_kb"
: >"$T/trace"
echo 1 >"$T/events/siw2/enable" || fail "siw2 trace events"
for e in rdma_cma tcp/tcp_send_reset tcp/tcp_receive_reset sock/inet_sock_set_state; do
	[[ -d $T/events/$e ]] && echo 1 >"$T/events/$e/enable"
done
echo 1 >"$T/tracing_on"

refused=0
for i in $(seq 1 "$N"); do
	siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
	siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
	wait_port_active s2a && wait_port_active s2b || fail "ports not ACTIVE"
	echo "probe $i" >"$T/trace_marker"
	port=$((7700 + i))
	ip netns exec pa timeout 120 "$CM_PROG" -s -a 198.18.13.1 -p "$port" -t 60 -v \
		>"$R/srv.$i" 2>&1 &
	spid=$!
	wait_until 20 grep -q '^LISTENING' "$R/srv.$i" || fail "server $i not listening"
	ip netns exec pb timeout 120 "$CM_PROG" -a 198.18.13.1 -p "$port" -t 60 -v \
		>"$R/cli.$i" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	log "probe $i: client rc $crc, server rc $src"
	if (( crc || src )); then
		refused=$((refused + 1))
		sed 's/^/  cli: /' "$R/cli.$i" | tail -n 5
		sed 's/^/  srv: /' "$R/srv.$i" | tail -n 3
	fi
	timeout 60 rdma link delete s2b
	timeout 60 rdma link delete s2a
done
echo 0 >"$T/tracing_on"
cp "$T/trace" "$R/trace.txt"
log "$refused of $N connections failed; trace in results/trace.txt"
