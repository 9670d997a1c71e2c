#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Allocation failures (issue 17 item 4): failslab and fail_page_alloc
# against siw2 <-> siw2 connections of tests/progs/siw2_fault (the checked
# load of 70-faults.sh), server in pa (198.18.21.1, s2a), client in pb
# (s2b).  Needs a kernel with fault injection and its debugfs files
# (/sys/kernel/debug/failslab): the debug kernel, tools/check-debug.sh;
# Debian's kernel has none and the case skips.
#
# Injection everywhere prints nothing (verbose 0): the harness would take a
# stack dump for a kernel warning.  Both injectors take sleeping
# allocations too (ignore-gfp-wait N), fail_page_alloc order 0 too.
# Scenarios:
#  setup-client  fail-nth over the client's connection setup (rdma_cm ids,
#                address and route resolution, PD, CQ, QP and their rings,
#                MR registration, connect): setup n runs with the n-th
#                allocation of the client's thread failed, n = 1, 2, ...
#                until a setup needs fewer.  Each failed setup must end in
#                an errno or a CM error event, never a hang (every wait is
#                bounded), and tear down cleanly; each setup that absorbs
#                its failure must carry a checked transfer.  The last, with
#                no failure, carries one too.
#  setup-server  the same over the server's side of each connection (PD,
#                CQ, QP, MR, accept): connection k with the k-th allocation
#                of the accepting thread failed, a client retrying until
#                the server has seen a setup with none.
#  transfer      during a 6 s load, 10 % of the non-sleeping slab and page
#                allocations anywhere in the guest fail (task-filter off,
#                at most 400 failures): the network stack's packet buffers,
#                siw2's atomic paths.  The load ends "ok" (TCP retransmits)
#                or "fault" with every work request completed; never bad
#                data, a missing completion or a hang.  The failures
#                injected are counted and must be more than 0.
# After each: siw2's debugfs counts back to 0, "rdma resource show" empty,
# and a fresh checked transfer (the device is usable).  The harness fails
# the case on any KASAN, lockdep, kmemleak or other kernel report.
# Wall time on the debug kernel: not yet measured end to end.  The first
# run's setup-client phase took 141 s in the guest (183 allocations
# covered: 71 setups failed with ENOMEM, ENOBUFS, ENFILE or an ADDR_ERROR
# event, 112 absorbed the failure, every one torn down cleanly); that run
# then failed on warn_alloc's stack dumps, hence the vetting above.
# timeout: 600
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

FS=/sys/kernel/debug/failslab
FP=/sys/kernel/debug/fail_page_alloc
[[ -d $FS && -d $FP ]] ||
	skip "no $FS or $FP: this kernel has no fault injection (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS); run it on the debug kernel: tools/check-debug.sh tests/vm/cases/71-failslab.sh"
[[ -e /proc/self/fail-nth ]] || skip "no /proc/self/fail-nth (CONFIG_FAULT_INJECTION)"
need rdma ip ss timeout
P=$SIW2_PROGS/siw2_fault
[[ -x $P ]] || fail "$P not built (make progs)"
R=$SIW2_RESULTS
SRV=198.18.21.1
T0=${EPOCHREALTIME/./}
FAILED=()
bad() { echo "FAILED: $*" >&2; FAILED+=("$*"); }
since_ms() { echo $(( (${EPOCHREALTIME/./} - $1) / 1000 )); }
step() { log "--- $1 ($(since_ms "$T0") ms)"; }
show() { sed "s/^/  ${1##*/}: /" "$1" | tail -n "${2:-15}"; }

# inject off | fail-nth | global PCT TIMES
inject() {
	local d
	for d in $FS $FP; do
		echo 0 >"$d/probability"
		echo 0 >"$d/verbose"
		echo 0 >"$d/space"
		echo 1 >"$d/interval"
		echo -1 >"$d/times"
		echo N >"$d/task-filter"
	done
	echo 0 >"$FP/min-order"
	case $1 in
	off) ;;
	fail-nth)
		# fail-nth bypasses probability, not the allocation-kind filters.
		echo N >"$FS/ignore-gfp-wait"
		echo N >"$FP/ignore-gfp-wait"
		;;
	global)
		echo Y >"$FS/ignore-gfp-wait"
		echo Y >"$FP/ignore-gfp-wait"
		for d in $FS $FP; do
			echo "$3" >"$d/times"
			echo "$2" >"$d/probability"
		done
		;;
	esac
}

# The kernel dumps the stack of every failed allocation made without
# __GFP_NOWARN (warn_alloc: "vmalloc error: ...", "page allocation
# failure: ..."; siw2's rings are vmalloc_user() memory), and the harness
# fails a case on any "Call Trace".  So while failures are injected the
# console stays quiet (console loglevel 1) and the case vets the kernel
# log itself: it is read and cleared in one step (dmesg -c: nothing
# printed in between is lost) into $R/klog-PHASE.txt; each warn_alloc
# report's header and the one "Call Trace" of its block (up to "</TASK>")
# are expected, and every other line, inside such a block too (another
# CPU's report may interleave), fails the case if the harness's pattern
# (KLOG_BAD, tests/vm/vm.sh) matches it.  The harness sees only what
# follows (its "siw2-vm: running" marker is written again after it).
eval "$(grep -m1 '^KLOG_BAD=' "$SIW2_TOP/tests/vm/vm.sh")"
[[ -n ${KLOG_BAD:-} ]] || fail "no KLOG_BAD in tests/vm/vm.sh"
read -r CONSOLE_LVL _ </proc/sys/kernel/printk
quiet() { dmesg -n 1; }
# klog_beyond_warn_alloc: the kernel log on stdin without what warn_alloc
# reports are expected to print: each report's header line and the first
# "Call Trace" line of its block; a second one in a block is another
# report's and stays.
klog_beyond_warn_alloc() {
	awk '/vmalloc error:|page allocation failure:/ { inb = 1; ct = 0; next }
		inb && /Call Trace/ && !ct++ { next }
		inb && /<\/TASK>/ { inb = 0 }
		{ print }'
}
vet_klog() {
	local phase=$1 f=$R/klog-$1.txt n other
	dmesg -c >"$f"
	# The harness's marker again: on the debug kernel it judges the log
	# from the marker on (tests/vm/run.sh klog_part).
	echo "siw2-vm: running $0 (kernel log up to here vetted by the case: $f)" >/dev/kmsg
	dmesg -n "$CONSOLE_LVL"
	n=$(grep -cE 'vmalloc error:|page allocation failure:' "$f")
	other=$(klog_beyond_warn_alloc <"$f" | grep -E "$KLOG_BAD")
	log "  $phase: $n allocation failure report(s) (warn_alloc) in the kernel log, expected"
	if [[ -n $other ]]; then
		echo "$other" | head -n 20 >&2
		bad "$phase: kernel log reports beyond warn_alloc (see $f)"
	fi
}

spid= cpid=
cleanup() {
	inject off
	[[ -n $cpid ]] && kill -9 "$cpid" 2>/dev/null
	[[ -n $spid ]] && kill -9 "$spid" 2>/dev/null
	return 0
}
trap cleanup EXIT
# stuck PID: where a program that outlived its time is, in the kernel and
# in siw2's endpoints (reap's last word before it kills the program).
stuck() {
	local t
	echo "pid $1: $(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)"
	for t in /proc/"$1"/task/*; do
		echo "  task ${t##*/}: $(cat "$t/wchan" 2>/dev/null)"
		sed 's/^/    /' "$t/stack" 2>/dev/null
	done
	cat "$SIW2_DEBUGFS"/*/connections 2>/dev/null | sed 's/^/  /'
}
port=7800
srv() {
	local name=$1
	shift
	port=$((port + 1))
	ip netns exec pa "$P" -s $SRV -p $port -t 20 "$@" >"$R/$name.srv" 2>&1 &
	spid=$!
	wait_until 30 grep -q '^LISTENING' "$R/$name.srv" ||
		{ cat "$R/$name.srv"; fail "$name: server not listening"; }
}
idle() {
	local d
	for d in s2a s2b; do
		wait_until 20 siw2_objects_ok "$d" || {
			sed 's/^/  /' "$SIW2_DEBUGFS/$d/objects" >&2
			bad "$1: objects left on $d"
		}
	done
	wait_until 20 cm_no_resources || { rdma resource show >&2; bad "$1: rdma resources left"; }
}
usable() {
	srv "usable-$1"
	ip netns exec pb timeout 120 "$P" -c $SRV -p $port -t 20 -n 16 >"$R/usable-$1.cli" 2>&1
	crc=$?
	reap RC "$spid" 30; spid=
	if [[ $crc != 0 || $RC != 0 ]] || ! grep -q '^END .* verified=16 ' "$R/usable-$1.cli"; then
		show "$R/usable-$1.srv"; show "$R/usable-$1.cli"
		bad "usable after $1: client $crc server $RC"
	fi
	idle "usable-$1"
}

siw2_load
cm_ns_pair pa pb 21
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a not ACTIVE"
wait_port_active s2b || fail "s2b not ACTIVE"
# Stale half-open connections of failed setups go quickly.
echo 2000 >/sys/module/siw2/parameters/mpa_timeout_ms
quiet
inject fail-nth

# --- the client's setup, allocation by allocation
step setup-client
srv setup-client -N 100000 --tolerate-setup
ip netns exec pb timeout 900 "$P" -c $SRV -p $port -t 20 --failnth >"$R/setup-client.cli" 2>&1
crc=$?
cov=$(sed -n 's/^FAILNTH covered=\([0-9]*\) .*/\1/p' "$R/setup-client.cli")
log "  client setup: $(grep -c '^FAILNTH n=.* errno=' "$R/setup-client.cli") failed setups, $(grep -c '^FAILNTH n=.* absorbed' "$R/setup-client.cli") absorbed, $cov allocations covered"
grep '^FAILNTH n=' "$R/setup-client.cli" | sed 's/^FAILNTH n=[0-9]* //' | sort | uniq -c | sed 's/^/    /'
[[ $crc == 0 ]] || { show "$R/setup-client.cli"; bad "setup-client: client exit $crc"; }
[[ -n $cov ]] && (( cov > 10 )) || bad "setup-client: only '$cov' allocations covered"
grep -q '^END side=client result=ok' "$R/setup-client.cli" || bad "setup-client: the final connection did not end ok"
# The server served every connection that got through; stop it.
kill "$spid" 2>/dev/null
reap RC "$spid" 10; spid=
grep -q '^FAIL' "$R/setup-client.srv" && { show "$R/setup-client.srv"; bad "setup-client: the server failed"; }
vet_klog setup-client
idle setup-client
usable setup-client
quiet

# --- the server's side of the setup
step setup-server
srv setup-server --failnth
ip netns exec pb "$P" -c $SRV -p $port -t 20 --loop 5000 \
	--release-file "$R/setup-server.done" >"$R/setup-server.cli" 2>&1 &
cpid=$!
# Each connection's waits are bounded (-t 20); the whole side within its
# budget, so that a server stuck in a call shows where (stuck) before the
# case's own time runs out.
reap RC "$spid" 240 stuck "$spid"; srcv=$RC; spid=
[[ $srcv == 124 ]] && { log "setup-server: the server outlived 240 s (scaled):"; sed 's/^/  stuck| /' <<<"$REAP_NOTE"; }
touch "$R/setup-server.done"
reap RC "$cpid" 60; crc=$RC; cpid=
cov=$(sed -n 's/^FAILNTH covered=\([0-9]*\)$/\1/p' "$R/setup-server.srv")
log "  server setup: $(grep -c '^FAILNTH n=' "$R/setup-server.srv") connections with a failure, $cov allocations covered; client: $(grep '^LOOP' "$R/setup-server.cli")"
grep '^SETUP FAIL' "$R/setup-server.srv" | sed 's/^SETUP FAIL side=server //' | sort | uniq -c | sed 's/^/    /'
[[ $srcv == 0 ]] || { show "$R/setup-server.srv"; bad "setup-server: server exit $srcv"; }
[[ $crc == 0 ]] || { show "$R/setup-server.cli"; bad "setup-server: client exit $crc"; }
[[ -n $cov ]] && (( cov > 10 )) || bad "setup-server: only '$cov' allocations covered"
grep -q '^UNFLUSHED' "$R/setup-server.srv" "$R/setup-server.cli" && bad "setup-server: work requests never completed"
inject off
vet_klog setup-server
idle setup-server
usable setup-server

# --- during a transfer, anywhere in the guest
step transfer
inject off
srv transfer
ip netns exec pb "$P" -c $SRV -p $port -t 20 -T 6 -r 4 >"$R/transfer.cli" 2>&1 &
cpid=$!
wait_until 60 grep -q '^RUNNING' "$R/transfer.cli" || { show "$R/transfer.cli"; bad "transfer: load not running"; }
quiet
inject global 10 400
reap RC "$cpid" 120; crc=$RC; cpid=
reap RC "$spid" 60; srcv=$RC; spid=
left_s=$(cat "$FS/times") left_p=$(cat "$FP/times")
inject off
vet_klog transfer
n=$(( (400 - left_s) + (400 - left_p) ))
log "  transfer: $n allocations failed (slab $((400 - left_s)), pages $((400 - left_p))); client rc $crc, server rc $srcv"
grep -h '^END' "$R/transfer.cli" "$R/transfer.srv" | sed 's/^/    /'
(( n > 0 )) || bad "transfer: no allocation failed"
for x in "cli $crc" "srv $srcv"; do
	set -- $x
	[[ $2 == 0 || $2 == 3 ]] || { show "$R/transfer.$1"; bad "transfer: $1 exit $2 (want 0 ok or 3 fault, flushed)"; }
done
idle transfer
usable transfer

timeout 60 rdma link delete s2a || fail "rdma link delete s2a"
timeout 60 rdma link delete s2b || fail "rdma link delete s2b"
siw2_assert_zero_counts
siw2_unload
if (( ${#FAILED[@]} )); then
	printf 'failed: %s\n' "${FAILED[@]}" >&2
	fail "${#FAILED[@]} assertion(s) failed"
fi
log "allocation failures ok ($(since_ms "$T0") ms)"
