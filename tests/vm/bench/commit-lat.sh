# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Another QP's 64-octet round trip while large RDMA Commits run (issue 34
# item 5): two siw2 devices in namespaces pa (198.18.85.1) and pb, a
# device-DAX namespace over the whole of a 1 GiB emulated NVDIMM,
# registered durable by tests/progs/siw2_pmcommit's server. Each round
# runs ib_send_lat -R -s 64 between the same two devices twice: "idle",
# then "commits", with a client posting Commits of the whole window
# (about 1 GiB each, one after the other, each written back a TX budget
# per engine run) from before the run starts until it ends. Results, one
# line per run, in $SIW2_RESULTS/commit-lat.txt: perftest's t_min,
# t_typical, t_avg, 99 %, 99.9 % and t_max (us), and for the commits
# runs how many Commits ran and their median and longest time.
# Knobs (SIW2_VM_APPEND): commit_lat_iters (5000), commit_lat_rounds (3).
# Not a test: run it with
#   SIW2_VM_ACCEL=tcg,thread=multi tests/vm/run.sh tests/vm/bench/commit-lat.sh
# timeout: 3600
# pmem: 1G
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip ib_send_lat stdbuf
R=$SIW2_RESULTS
OUT=$R/commit-lat.txt
SRV=198.18.85.1
PM=$SIW2_PROGS/siw2_pmcommit
[[ -x $PM ]] || fail "$PM not built (make progs)"
N=$(knob commit_lat_iters 5000)
ROUNDS=$(knob commit_lat_rounds 3)

siw2_load
cm_ns_pair pa pb 85
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a port not ACTIVE"
wait_port_active s2b || fail "s2b port not ACTIVE"
pmem_devdax 4K
LEN=$PMEM_SIZE
ip netns exec pa "$PM" serve -a "$SRV" -p 7850 -f "$PMEM_DAX" -l "$LEN" -n "$ROUNDS" \
	-t 600 >"$R/server.out" 2>&1 &
sp=$!
wait_until 300 grep -q '^LISTENING' "$R/server.out" || fail "server not listening"
log "commit-lat: $N round trips per run, $ROUNDS rounds, Commits of $LEN octets; CPU: $(grep -m1 -o 'model name.*' /proc/cpuinfo); $(nproc) CPUs"
printf '%-5s %-8s %9s %9s %9s %9s %9s %10s  %s\n' round run t_min t_typ t_avg p99 p99.9 t_max \
	commits >"$OUT"

port=7860
# lat ROUND RUN [COMMITS]: one ib_send_lat -R run; its line in $OUT.
lat() {
	local round=$1 run=$2 extra=${3:-} lp rc line
	port=$((port + 1))
	ip netns exec pa stdbuf -oL ib_send_lat -R -d s2a -p "$port" -s 64 -n "$N" \
		>"$R/lat-$round-$run.s" 2>&1 &
	lp=$!
	wait_tcp_listen "$lp" "$port" 120 || fail "ib_send_lat server not listening"
	ip netns exec pb timeout 1200 stdbuf -oL ib_send_lat -R -d s2b -p "$port" -s 64 -n "$N" \
		"$SRV" >"$R/lat-$round-$run.c" 2>&1
	rc=$?
	wait "$lp"
	(( rc == 0 )) || fail "ib_send_lat $round $run: rc $rc"
	line=$(awk '/^ *#bytes/ { h = 1; next } h && $1 == 64 { printf "%9s %9s %9s %9s %9s %10s", $3, $5, $6, $8, $9, $4; exit }' \
		"$R/lat-$round-$run.c")
	[[ $line ]] || fail "ib_send_lat $round $run: no result line"
	printf '%-5s %-8s %s  %s\n' "$round" "$run" "$line" "$extra" | tee -a "$OUT"
}

for ((r = 1; r <= ROUNDS; r++)); do
	lat "$r" idle
	rm -f "$R/stop"
	ip netns exec pb timeout 3000 "$PM" commit -a "$SRV" -p 7850 -t 600 --repeat 3000 \
		--stop "$R/stop" "0:$LEN" >"$R/commits-$r.c" 2>&1 &
	cp=$!
	wait_until 300 grep -q '^PMC RUNNING' "$R/commits-$r.c" || fail "Commits not running"
	lat "$r" commits "(see below)"
	touch "$R/stop"
	wait "$cp" || fail "Commit client rc $?: $(tail -n 2 "$R/commits-$r.c")"
	echo "  round $r: $(sed -n 's/^PMC OK side=client //p' "$R/commits-$r.c") (Commits of $LEN octets, all Status 0)" |
		tee -a "$OUT"
done
wait "$sp" || fail "server rc $?"
siw2_link_del s2a
siw2_link_del s2b
siw2_assert_zero_counts
siw2_unload
