#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A measurement, not a test: perftest over siw2 between two namespaces,
# with every system call of both perftest processes counted by the
# raw_syscalls trace event (set_event_pid + event-fork: strace would stop
# each call for the tracer). For each tool and configuration it prints
# perftest's result line and "<process>-<pid> <system calls>" per process
# (the lower pid is the server, started first). Run it in the guest:
#
#   SIW2_VM_ACCEL=tcg,thread=multi tests/vm/run.sh tests/vm/bench/perftest-syscalls.sh
#
# Knobs (kernel command line through SIW2_VM_APPEND, e.g.
# SIW2_VM_APPEND="PS_TOOLS=ib_write_bw PS_CFGS=50,1"):
#   PS_TOOLS  perftest tools ("ib_send_bw ib_write_bw ib_send_lat")
#   PS_CFGS   configurations "LINGER,RINGS" ("50,1 0,1 0,0"): module
#             parameters tx_linger_us and user_rings
#   PS_ITERS  iterations of the bandwidth tools (100000; latency: 3000)
# Use thread=multi: with the default thread=single a busy-polling process
# holds both vCPUs until the next tick and latencies come out in ms.
# The outputs stay in the results directory (tool.side.config).
# timeout: 900
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip timeout ib_write_bw
R=$SIW2_RESULTS
SRV=198.18.14.1
T=/sys/kernel/tracing
P=/sys/module/siw2/parameters

siw2_load
ns_pair pa pb 14
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a port not ACTIVE"
wait_port_active s2b || fail "s2b port not ACTIVE"

for tool in ${PS_TOOLS:-ib_send_bw ib_write_bw ib_send_lat}; do
	for cfg in ${PS_CFGS:-50,1 0,1 0,0}; do
		IFS=, read -r linger rings <<<"$cfg"
		echo "$linger" >$P/tx_linger_us || fail "tx_linger_us=$linger"
		echo "$rings" >$P/user_rings || fail "user_rings=$rings"
		n=${PS_ITERS:-100000}
		[[ $tool == *_lat ]] && n=3000
		echo 0 >"$T/events/enable"
		echo 16384 >"$T/buffer_size_kb"
		: >"$T/trace"
		echo 1 >"$T/options/event-fork"
		echo $$ >"$T/set_event_pid"
		echo 1 >"$T/events/raw_syscalls/sys_enter/enable"
		ip netns exec pa timeout 100 "$tool" -R -s 64 -n "$n" -d s2a \
			>"$R/$tool.s.$cfg" 2>&1 &
		spid=$!
		sleep 2
		ip netns exec pb timeout 100 "$tool" -R -s 64 -n "$n" -d s2b "$SRV" \
			>"$R/$tool.c.$cfg" 2>&1
		crc=$?
		wait "$spid"
		src=$?
		echo 0 >"$T/events/raw_syscalls/sys_enter/enable"
		log "$tool tx_linger_us=$linger user_rings=$rings: client rc $crc, server rc $src"
		grep -h "^ *64 " "$R/$tool.c.$cfg"
		grep -q LOST "$T/trace" && log "  trace events lost: counts too low"
		awk '$1 ~ /^ib_/ && /sys_enter/ { n[$1]++ } END { for (p in n) print "  " p, n[p] }' \
			"$T/trace" | sort -t- -k2 -n
		: >"$T/set_event_pid"
	done
done
