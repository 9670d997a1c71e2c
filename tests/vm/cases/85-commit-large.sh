# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# A large RDMA Commit (issue 34 item 5) between two siw2 devices in
# namespaces pa (server, 198.18.85.1) and pb (client), with
# tests/progs/siw2_pmcommit, on a device-DAX namespace over the whole of
# a 1 GiB emulated NVDIMM (pmem_devdax), registered durable:
#  w  a 1 MiB Write at offset 0, then a Commit of the whole window (about
#     1 GiB, the largest the guest's NVDIMM allows): Status 0, and the
#     trace event siw2_dp_commit shows every cache line of the range
#     written back (COMMIT-DUR-1, DEC-14); a Commit of 512 MiB + 28 octets
#     at offset 100 writes back its exact lines; the Write reads back.
#  s  the write-back is split: while the window's Commit ran, the
#     responder's TX work item ran at least len / 256 KiB times
#     (workqueue_execute_start of siw2_tx_work), a TX budget's worth each,
#     with the worker free for other QPs between runs (DEC-14).
#  l  another QP's 64-octet round trips (ib_send_lat -R between the same
#     two devices) beside back-to-back Commits of the whole window: both
#     finish, every Commit with Status 0. ib_send_lat's figures without
#     and with the Commits are logged, not judged (no timing is a pass or
#     fail here; Documentation/performance.md has measured figures).
# Then every link is deleted, siw2's object counts are zero and it
# unloads; the harness fails the case on any kernel warning.
# timeout: 1500
# pmem: 1G
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip ib_send_lat stdbuf
R=$SIW2_RESULTS
SRV=198.18.85.1
PM=$SIW2_PROGS/siw2_pmcommit
[[ -x $PM ]] || fail "$PM not built (make progs)"
T=/sys/kernel/tracing
BUDGET=$((256 * 1024))	# SIW2_TX_BUDGET (drivers/siw2/siw2_dp.h)
LAT_N=$(knob commit_lat_iters 1000)

bad=()
bad() { bad+=("$*"); log "FAILED: $*"; }
show() {
	local f
	for f in "$@"; do
		[[ -s $R/$f ]] && tail -n 15 "$R/$f" | sed "s|^|  $f: |"
	done
	return 0
}
pids=()
kill_all() {
	local p
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}
trap 'cp "$T/trace" "$R/trace.txt" 2>/dev/null; kill_all' EXIT

siw2_load
echo 1 >"$T/events/siw2/siw2_dp_commit/enable" || fail "enable siw2_dp_commit"
cm_ns_pair pa pb 85
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a port not ACTIVE"
wait_port_active s2b || fail "s2b port not ACTIVE"
pmem_devdax 4K
LEN=$PMEM_SIZE
(( LEN >= 512 * 1024 * 1024 && LEN < 4 * 1024 * 1024 * 1024 )) ||
	fail "the device-DAX namespace holds $LEN octets: a 1 GiB NVDIMM expected (# pmem: 1G)"

# One server for every connection below: the window registered durable
# once per connection (COMMIT-REG-1).
ip netns exec pa timeout 1200 "$PM" serve -a "$SRV" -p 7850 -f "$PMEM_DAX" -l "$LEN" \
	-n 3 -t 300 >"$R/server.out" 2>&1 &
sp=$!
pids+=("$sp")
wait_until 300 grep -q '^LISTENING' "$R/server.out" || { show server.out; fail "server not listening"; }

# lines OFF LEN: the cache lines [OFF, OFF + LEN) touches (64 octets each).
lines() { echo $(( (($1 + $2 + 63) / 64) - ($1 / 64) )); }

# ---------------------------------------------------------------- w, s
echo >"$T/trace"
echo 1 >"$T/events/workqueue/workqueue_execute_start/enable" || fail "enable workqueue_execute_start"
ip netns exec pb timeout 600 "$PM" commit -a "$SRV" -p 7850 -t 300 --write 0:1M \
	"0:$LEN" >"$R/w.c0" 2>&1 || { bad "w: client rc $? (COMMIT-DUR-1)"; show w.c0 server.out; }
echo 0 >"$T/events/workqueue/workqueue_execute_start/enable"
cp "$T/trace" "$R/w-trace.txt"
grep -q "^PMC COMMIT off=0 len=$LEN status=0 " "$R/w.c0" ||
	bad "COMMIT-DUR-1: the Commit of the whole window ($LEN octets) did not end with Status 0"
grep -q '^PMC READBACK ok len=1048576$' "$R/w.c0" || bad "w: the 1 MiB Write did not read back"
log "w: $(grep -h '^PMC COMMIT' "$R/w.c0")"
want=$(lines 0 "$LEN")
grep -q "siw2_dp_commit: .* len $LEN lines $want status 0\$" "$R/w-trace.txt" ||
	bad "COMMIT-DUR-1 DEC-14: the trace shows [$(grep -h 'siw2_dp_commit:' "$R/w-trace.txt" | sed 's/.*commit //')], want len $LEN lines $want status 0"
# The responder's TX work item: the one that ran most (the client's QP
# posted one Request).
runs=$(grep -E 'function siw2_tx_work( |$)' "$R/w-trace.txt" |
	sed -n 's/.*work struct \([0-9a-fx]*\): .*/\1/p' | sort | uniq -c | sort -rn |
	awk 'NR == 1 { print $1 }')
log "s: the responder's TX work ran ${runs:-0} times during the Commit of $LEN octets (at least $((LEN / BUDGET)) wanted)"
(( ${runs:-0} >= LEN / BUDGET )) ||
	bad "DEC-14: the write-back of $LEN octets took ${runs:-0} TX engine runs, want at least $((LEN / BUDGET)) (one budget of $BUDGET octets each)"

echo >"$T/trace"
half=$((512 * 1024 * 1024 + 28))
ip netns exec pb timeout 600 "$PM" commit -a "$SRV" -p 7850 -t 300 \
	"100:$half" >"$R/w.c1" 2>&1 || { bad "w: odd range: client rc $?"; show w.c1 server.out; }
want=$(lines 100 "$half")
grep -q "siw2_dp_commit: .* len $half lines $want status 0\$" "$T/trace" ||
	bad "COMMIT-DUR-1 DEC-14: [100, +$half) traced as [$(grep -h 'siw2_dp_commit:' "$T/trace" | sed 's/.*commit //')], want lines $want status 0"

# ---------------------------------------------------------------- l
# lat TAG PORT: one ib_send_lat -R run of LAT_N 64-octet round trips
# between s2a and s2b; its result line goes to $R/lat-TAG.line.
lat() {
	local tag=$1 port=$2 lp rc try
	for try in 1 2; do
		perftest_trace_mark "$R/lat-$tag"
		ip netns exec pa stdbuf -oL ib_send_lat -R -d s2a -p "$port" -s 64 -n "$LAT_N" \
			>"$R/lat-$tag.s" 2>&1 &
		lp=$!
		wait_tcp_listen "$lp" "$port" 120 || { bad "lat $tag: server not listening"; show "lat-$tag.s"; return 1; }
		ip netns exec pb timeout 600 stdbuf -oL ib_send_lat -R -d s2b -p "$port" -s 64 \
			-n "$LAT_N" "$SRV" >"$R/lat-$tag.c" 2>&1
		rc=$?
		if perftest_race_retry "$R/lat-$tag" "$rc" "$try" "$port"; then
			kill -9 "$lp" 2>/dev/null
			wait "$lp" 2>/dev/null
			port=$((port + 1))
			continue
		fi
		wait "$lp" || { bad "lat $tag: server rc $?"; show "lat-$tag.s"; }
		break
	done
	(( rc == 0 )) || { bad "lat $tag: client rc $rc"; show "lat-$tag.c"; return 1; }
	awk '/^ *#bytes/ { h = 1; next } h && $1 == 64 { print; exit }' "$R/lat-$tag.c" >"$R/lat-$tag.line"
	[[ -s $R/lat-$tag.line ]] || { bad "lat $tag: no result line"; show "lat-$tag.c"; }
}

lat idle 7860
rm -f "$R/stop"
ip netns exec pb timeout 1000 "$PM" commit -a "$SRV" -p 7850 -t 300 --repeat 900 \
	--stop "$R/stop" "0:$LEN" >"$R/l.c" 2>&1 &
cp=$!
pids+=("$cp")
wait_until 300 grep -q '^PMC RUNNING' "$R/l.c" || { bad "l: Commits not running"; show l.c; }
lat commits 7870
touch "$R/stop"
wait "$cp" || { bad "l: Commit client rc $? (COMMIT-DUR-1)"; show l.c; }
n=$(grep -c "^PMC COMMIT off=0 len=$LEN status=0 " "$R/l.c")
grep -q "^PMC OK side=client commits=$n " "$R/l.c" && (( n > 0 )) ||
	bad "COMMIT-DUR-1: Commits beside ib_send_lat: $n with Status 0 of [$(sed -n 's/^PMC OK side=client //p' "$R/l.c")]"
# bytes iterations t_min t_max t_typical t_avg t_stdev 99% 99.9% (us)
for t in idle commits; do
	[[ -s $R/lat-$t.line ]] &&
		log "l: ib_send_lat 64 B ($t): $(awk '{ printf "min %s max %s typical %s avg %s 99%% %s 99.9%% %s us", $3, $4, $5, $6, $8, $9 }' "$R/lat-$t.line")"
done
log "l: $n Commits of $LEN octets beside it: $(sed -n 's/^PMC OK side=client commits=[0-9]* //p' "$R/l.c")"

wait "$sp" || { bad "server rc $?"; show server.out; }
grep -q '^PMC OK side=server conns=3$' "$R/server.out" || bad "server: $(tail -n 1 "$R/server.out")"

kill_all
if (( ${#bad[@]} )); then
	printf '  failed: %s\n' "${bad[@]}"
	fail "${#bad[@]} check(s) failed"
fi
siw2_link_del s2a || fail "link delete s2a"
siw2_link_del s2b || fail "link delete s2b"
siw2_assert_zero_counts
siw2_unload
log "all checks passed"
