#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A measurement, not a test (issue 18): where the CPU goes during a 64 B
# ping-pong, by kernel and user symbol, on siw2, on Linux siw and on plain
# TCP (sockperf), on the same veth pair between two namespaces.  perf
# samples every CPU on the software clock (TCG has no PMU) while the
# client runs; the report is one flat table per driver, in percent of all
# samples, so a symbol's share can be compared across drivers.  The
# polling processes' spinning is in the totals, as it is in the CPU time;
# compare kernel symbols between drivers, and run it on an idle host (a
# starved guest's profile is its preemption).  (make bench installs perf.)
#
#   SIW2_VM_ACCEL=tcg,thread=multi tests/vm/run.sh tests/vm/bench/profile.sh
#
# Knobs (kernel command line through SIW2_VM_APPEND):
#   PR_DRIVERS  what to profile ("siw2 siw tcp")
#   PR_TOOL     the perftest tool (ib_send_lat)
#   PR_ITERS    perftest iterations (20000); sockperf runs PR_SECS (5) s
#   PR_SIZE     message size (64)
#   PR_FREQ     samples per second per CPU (1000)
# Results: DRIVER.report (perf report), DRIVER.out (the tool's output).
# timeout: 900
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip timeout perf sockperf "${PR_TOOL:-ib_send_lat}"
R=$SIW2_RESULTS
SRV=198.18.15.1
TOOL=${PR_TOOL:-ib_send_lat}
N=${PR_ITERS:-20000}
SIZE=${PR_SIZE:-64}
SECS=${PR_SECS:-5}
FREQ=${PR_FREQ:-1000}

# Symbols of modules and of the kernel for perf report.
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
siw2_load
for drv in ${PR_DRIVERS:-siw2 siw tcp}; do
	[[ $drv == siw ]] && siw_peer_load
done
# Distinct ifindexes: Linux siw listeners of both ends would collide.
cm_ns_pair pa pb 15

# record OUT CMD...: run CMD (the client) under a system-wide profile.
record() {
	local out=$1
	shift
	perf record -q -a -e cpu-clock -F "$FREQ" -o "$out.data" -- "$@" \
		>"$out.out" 2>&1
}

# report OUT: the flat profile, symbols over 0.3 % of all samples.
report() {
	perf report -i "$1.data" --kallsyms /proc/kallsyms --stdio \
		--no-children --sort dso,sym \
		--percent-limit 0.3 2>/dev/null | grep -v '^$' >"$1.report"
	log "$(basename "$1"): $(grep -c . "$1.report") lines"
	head -n 45 "$1.report"
}

port=7800
for drv in ${PR_DRIVERS:-siw2 siw tcp}; do
	out=$R/$drv
	port=$((port + 1))
	if [[ $drv == tcp ]]; then
		feed=$R/feed
		echo "T:$SRV:$port" >"$feed"
		ip netns exec pa timeout $((SECS + 60)) sockperf server -f "$feed" \
			-F recvfrom --nonblocked >"$out.s" 2>&1 &
		spid=$!
		wait_tcp_listen "$spid" "$port" || fail "sockperf server not listening"
		record "$out" ip netns exec pb timeout $((SECS + 40)) sockperf \
			ping-pong -f "$feed" -F recvfrom --nonblocked -m "$SIZE" -t "$SECS"
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		log "tcp: $(grep -m1 'percentile 50.000' "$out.out")"
	else
		dp_pair_devices "$drv" "$drv"
		ip netns exec pa timeout 300 "$TOOL" -R -s "$SIZE" -n "$N" \
			-p "$port" -d "$DP_DEV_A" >"$out.s" 2>&1 &
		spid=$!
		sleep 2
		record "$out" ip netns exec pb timeout 300 "$TOOL" -R -s "$SIZE" \
			-n "$N" -p "$port" -d "$DP_DEV_B" "$SRV" || { tail -n 5 "$out.out"; fail "$drv: $TOOL"; }
		wait "$spid" || fail "$drv: $TOOL server"
		log "$drv: $(awk -v s="$SIZE" '$1 == s && NF >= 5 { print "t_typical " $5 " us"; exit }' "$out.out")"
	fi
	report "$out"
done
