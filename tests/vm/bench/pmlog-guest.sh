# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Guest side of tools/bench-pmlog.sh: tools/pmlog/siw2-pmlog between two
# machines, so that the server's CPU per record is its machine's alone
# (run by tests/vm/run.sh as a two-guest script, "# guests: 2",
# lib-2vm.sh). This guest is the server: its log on a device-DAX
# namespace of its emulated NVDIMM, registered durable; the peer guest is
# the client. For each record size, in each round, three runs in turn:
#   push          Write + RDMA Commit with the end word's log update,
#                 posted together; the server process sleeps
#   classic       Write + Send posted together; the server process sleeps
#                 on its completion channel, writes back with clwb (or
#                 what the CPU has), stores the end, answers
#   classic-busy  the same with the server busy-polling its CQ
# Each run prints its latency, rate and the server's CPU per record, its
# process's and its machine's (/proc/stat, kernel time included). The
# server machine's idle CPU is measured first, for scale.
# Knobs on the kernel command line (SIW2_VM_APPEND, set by
# bench-pmlog.sh): pmlog_sizes (comma-separated), pmlog_count,
# pmlog_rounds, pmlog_modes (comma-separated).
# Not a test: it records what siw2-pmlog prints in pmlog.txt.
# guests: 2
# pmem: 256M
# timeout: 3000
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-2vm.sh"

SIZES=$(knob pmlog_sizes 64,4096,65536)
COUNT=$(knob pmlog_count 2000)
ROUNDS=$(knob pmlog_rounds 2)
MODES=$(knob pmlog_modes push,classic,classic-busy)
CLIENT=$(knob pmlog_client sleep)
OUT=$SIW2_RESULTS/pmlog.txt
PL=$SIW2_TOP/tools/pmlog/siw2-pmlog
SRV=198.18.90.1
[[ -x $PL ]] || fail "$PL not built (make pmlog)"

two_net
siw2_load
siw2_link_add - s2a eth0 || fail "rdma link add s2a"
wait_port_active s2a || fail "s2a port not ACTIVE"
peer "siw2_load >/dev/null && siw2_link_add pa s2p eth0 && wait_port_active s2p" ||
	fail "peer: siw2 device"
pmem_devdax 4K
log "server CPU: $(grep -m1 -o 'model name.*' /proc/cpuinfo); write-back: $(grep -m1 -ow 'clwb\|clflushopt' /proc/cpuinfo | tr '\n' ' ')"

# stat_busy: this machine's user+nice+system+irq+softirq ticks so far.
stat_busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
b0=$(stat_busy)
sleep 10
b1=$(stat_busy)
idle="pmlog: server machine idle: $(( (b1 - b0) * 1000000 / $(getconf CLK_TCK) / 10 )) us of CPU per second"
log "$idle"
echo "$idle" >"$OUT"

"$PL" serve -a "$SRV" -p 7900 --dev "$PMEM_DAX" --size 128M \
	>"$SIW2_RESULTS/pmlog-server.txt" 2>&1 &
sp=$!
wait_until 20 grep -q '^pmlog: serving' "$SIW2_RESULTS/pmlog-server.txt" || fail "server not serving"
log "$(grep -h 'written back' "$SIW2_RESULTS/pmlog-server.txt")"
for ((r = 1; r <= ROUNDS; r++)); do
	for size in ${SIZES//,/ }; do
		for mode in ${MODES//,/ }; do
			case $mode in
			push) args="--mode push" ;;
			classic) args="--mode classic" ;;
			classic-busy) args="--mode classic --busy-poll" ;;
			*) fail "unknown mode $mode" ;;
			esac
			log "round $r: $mode, $size octets"
			[[ $CLIENT == sleep ]] && args+=" --sleep"
			peer "timeout 600 $PL append -a $SRV -p 7900 $args --record $size --count $COUNT" \
				>>"$OUT" 2>&1 ||
				echo "pmlog: mode $mode, record $size: failed (rc $?)" >>"$OUT"
		done
	done
done
kill "$sp" 2>/dev/null
wait "$sp" 2>/dev/null
peer "siw2_link_del s2p" >/dev/null
peer_exit
log "done"
