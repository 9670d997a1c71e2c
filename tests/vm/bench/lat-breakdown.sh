#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A measurement, not a test (issue 18): where the time of a 64 B
# ping-pong message goes, layer by layer, over siw2 and over plain TCP on
# the same veth pair between two namespaces.  For each tool it runs the
# ping-pong once untraced (the tool's own latency) and once with trace
# events on, and tools/lat-breakdown.py turns the trace into a table:
#   siw2: perftest ib_*_lat -R with siw2's siw2_dp_tx_fpdu, siw2_dp_rx_seg
#         and siw2_dp_cqe events, the doorbell system calls (write() or
#         ioctl()), and
#         net_dev_xmit / netif_receive_skb;
#   tcp:  sockperf ping-pong (busy-polling recvfrom, as make bench runs
#         it) with its sendto() and recvfrom() system calls and the same
#         two net events.
# Pure TCP acknowledgements are filtered out by length.  Run it in the
# guest:
#
#   SIW2_VM_ACCEL=tcg,thread=multi tests/vm/run.sh tests/vm/bench/lat-breakdown.sh
#
# Knobs (kernel command line through SIW2_VM_APPEND, e.g.
# SIW2_VM_APPEND="LB_TOOLS=ib_send_lat LB_ITERS=5000"):
#   LB_TOOLS  what to run ("ib_send_lat ib_write_lat ib_read_lat sockperf")
#   LB_ITERS  perftest iterations (3000); sockperf runs LB_SECS (3) s
#   LB_SIZE   message size (64)
#   LB_DRV    1: a kprobe event at siw2_post_send() splits the doorbell
#             into the system call with uverbs' dispatch and siw2's part
#             (one more event per message: its cost lands in both)
# Use thread=multi: with thread=single a busy-polling process holds both
# vCPUs until the next tick.  Traces and tables stay in the results
# directory (TOOL.trace, TOOL.md, TOOL.plain, TOOL.traced).
# timeout: 900
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip timeout ib_send_lat sockperf python3
R=$SIW2_RESULTS
SRV=198.18.15.1
T=/sys/kernel/tracing
N=${LB_ITERS:-3000}
SIZE=${LB_SIZE:-64}
SECS=${LB_SECS:-3}

siw2_load
ns_pair pa pb 15
dp_pair_devices siw2 siw2	# s2a on pa-v, s2b on pb-v, both ACTIVE

# trace_on siw2|tcp: the events of one run, ACKs and idle system calls
# filtered out in the kernel so the buffer holds only the path.
trace_on() {
	echo 0 >"$T/tracing_on"
	echo 0 >"$T/events/enable"
	echo 32768 >"$T/buffer_size_kb"
	: >"$T/trace"
	# An Ethernet frame of a bare ACK is 66 octets (TCP timestamps on);
	# netif_receive_skb sees it from the IP header on (52).
	echo 'len > 80' >"$T/events/net/net_dev_xmit/filter"
	echo 'len > 60' >"$T/events/net/netif_receive_skb/filter"
	echo 1 >"$T/events/net/net_dev_xmit/enable"
	echo 1 >"$T/events/net/netif_receive_skb/enable"
	if [[ $1 == siw2 ]]; then
		echo 'id == 1 || id == 16' >"$T/events/raw_syscalls/sys_enter/filter"
		echo 1 >"$T/events/raw_syscalls/sys_enter/enable"
		for e in siw2_dp_tx_fpdu siw2_dp_rx_seg siw2_dp_cqe; do
			echo 1 >"$T/events/siw2/$e/enable" || fail "enable $e"
		done
		if [[ ${LB_DRV:-0} == 1 ]]; then
			[[ -d $T/events/kprobes/siw2_bell ]] ||
				echo 'p:siw2_bell siw2_post_send' >>"$T/kprobe_events" ||
				fail "kprobe siw2_post_send"
			echo 1 >"$T/events/kprobes/siw2_bell/enable" || fail "enable siw2_bell"
		fi
	else
		echo 'id == 44' >"$T/events/raw_syscalls/sys_enter/filter"
		echo 'id == 45 && ret > 0' >"$T/events/raw_syscalls/sys_exit/filter"
		echo 1 >"$T/events/raw_syscalls/sys_enter/enable"
		echo 1 >"$T/events/raw_syscalls/sys_exit/enable"
	fi
	echo 1 >"$T/tracing_on"
}

trace_off() {
	echo 0 >"$T/tracing_on"
	echo 0 >"$T/events/enable"
	echo 0 >"$T/events/raw_syscalls/sys_enter/filter"
	echo 0 >"$T/events/raw_syscalls/sys_exit/filter"
	cat "$T/trace" >"$1"
	grep -q LOST "$1" && log "  trace events lost in $1"
}

# perftest_run TOOL OUT: one ping-pong; prints t_typical (usec).
perftest_run() {
	ip netns exec pa timeout 120 "$1" -R -s "$SIZE" -n "$N" -d s2a \
		>"$2.s" 2>&1 &
	local spid=$! crc
	# The siw2 listener's TCP socket, not a fixed pause: a client that came
	# first was refused (REJECTED -111).
	wait_tcp_listen "$spid" 18515 20 || log "  $1 server not listening"
	ip netns exec pb timeout 120 "$1" -R -s "$SIZE" -n "$N" -d s2b "$SRV" \
		>"$2" 2>&1
	crc=$?
	wait "$spid"
	(( crc == 0 )) || { log "  $1 client rc $crc"; tail -n 5 "$2"; return 1; }
	# #bytes #iterations t_min t_max t_typical ...
	awk -v s="$SIZE" '$1 == s && NF >= 5 { print $5; exit }' "$2"
}

# sockperf_run OUT PORT: one ping-pong; prints its median (usec, RTT/2).
sockperf_run() {
	local feed=$R/feed.$2 spid v
	echo "T:$SRV:$2" >"$feed"
	ip netns exec pa timeout $((SECS + 60)) sockperf server -f "$feed" \
		-F recvfrom --nonblocked >"$1.s" 2>&1 &
	spid=$!
	wait_until 20 tcp_listening "$spid" "$2" || { log "  sockperf server not listening"; kill "$spid"; return 1; }
	ip netns exec pb timeout $((SECS + 40)) sockperf ping-pong -f "$feed" \
		-F recvfrom --nonblocked -m "$SIZE" -t "$SECS" >"$1" 2>&1
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	v=$(sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p' "$1")
	[[ -n $v ]] || { tail -n 5 "$1"; return 1; }
	echo "$v"
}

port=7700
for tool in ${LB_TOOLS:-ib_send_lat ib_write_lat ib_read_lat sockperf}; do
	if [[ $tool == sockperf ]]; then
		plain=$(sockperf_run "$R/$tool.plain" $((port++)))
		trace_on tcp
		traced=$(sockperf_run "$R/$tool.traced" $((port++)))
	else
		plain=$(perftest_run "$tool" "$R/$tool.plain")
		trace_on siw2
		traced=$(perftest_run "$tool" "$R/$tool.traced")
	fi
	trace_off "$R/$tool.trace"
	log "$tool $SIZE B: untraced ${plain:-failed} us, traced ${traced:-failed} us"
	python3 "$SIW2_TOP/tools/lat-breakdown.py" "$R/$tool.trace" >"$R/$tool.md" ||
		log "  no breakdown for $tool"
	cat "$R/$tool.md"
done
