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
# t_typical, t_avg, 99 %, 99.9 % and t_max (us), and after the commits
# run how many Commits ran and their shortest, median and longest time.
# Before the runs, one Commit alone with its engine runs traced: how many
# runs its write-back took and how long each held its CPU ("hold").
# Knobs (SIW2_VM_APPEND): commit_lat_iters (5000), commit_lat_rounds (3),
# commit_lat_alt_ko (the path of another siw2.ko, e.g. one whose Commit
# write-back ignores the TX budget: each round then runs both modules in
# turn, the tree's first, each freshly loaded, so that they share the
# guest and the host's load) and commit_lat_alt_name (its name in the
# results, "alt"), commit_lat_events (1: ib_send_lat -e, both sides
# sleeping on completion events instead of polling, so that the pollers
# do not take the CPUs the Commits' work needs; with SIW2_VM_SMP=1 this
# shows what a write-back that holds the one CPU costs the others).
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
PT=(-R -s 64 -n "$N")
[[ $(knob commit_lat_events 0) == 1 ]] && PT+=(-e)
KOS=("tree=$SIW2_KO")
alt=$(knob commit_lat_alt_ko "")
if [[ $alt ]]; then
	[[ -f $alt ]] || fail "commit_lat_alt_ko: no $alt"
	KOS+=("$(knob commit_lat_alt_name alt)=$alt")
fi

cm_ns_pair pa pb 85
pmem_devdax 4K
LEN=$PMEM_SIZE
log "commit-lat: ib_send_lat ${PT[*]}, $ROUNDS rounds, Commits of $LEN octets, modules: ${KOS[*]}; CPU: $(grep -m1 -o 'model name.*' /proc/cpuinfo); $(nproc) CPUs"
printf '%-5s %-8s %-8s %9s %9s %9s %9s %9s %10s\n' round module run t_min t_typ t_avg p99 p99.9 \
	t_max >"$OUT"

T=/sys/kernel/tracing
bg=()
trap 'touch "$R/stop"; for p in "${bg[@]}"; do kill -9 "$p" 2>/dev/null; done' EXIT
port=7860
# lat ROUND MODULE RUN: one ib_send_lat -R run; its line in $OUT. A run
# spoilt by perftest's own connection race is repeated once.
lat() {
	local tag=$1-$2-$3 lp rc line try
	for try in 1 2; do
		port=$((port + 1))
		perftest_trace_mark "$R/lat-$tag"
		ip netns exec pa stdbuf -oL ib_send_lat -d s2a -p "$port" "${PT[@]}" \
			>"$R/lat-$tag.s" 2>&1 &
		lp=$!
		bg+=("$lp")
		wait_tcp_listen "$lp" "$port" 120 || fail "ib_send_lat server not listening"
		ip netns exec pb timeout 1200 stdbuf -oL ib_send_lat -d s2b -p "$port" "${PT[@]}" \
			"$SRV" >"$R/lat-$tag.c" 2>&1
		rc=$?
		perftest_race_retry "$R/lat-$tag" "$rc" "$try" "$port" || break
		kill -9 "$lp" 2>/dev/null
		wait "$lp" 2>/dev/null
	done
	wait "$lp"
	(( rc == 0 )) || fail "ib_send_lat $tag: rc $rc"
	line=$(awk '/^ *#bytes/ { h = 1; next } h && $1 == 64 { printf "%9s %9s %9s %9s %9s %10s", $3, $5, $6, $8, $9, $4; exit }' \
		"$R/lat-$tag.c")
	[[ $line ]] || fail "ib_send_lat $tag: no result line"
	printf '%-5s %-8s %-8s %s\n' "$1" "$2" "$3" "$line" | tee -a "$OUT"
}

# holds ROUND MODULE: one Commit of the window alone, its TX engine runs
# traced (workqueue_execute_start/_end of siw2_tx_work, one clock): how
# many runs its write-back took and how long each held its CPU without a
# scheduling point; a line in $OUT.
holds() {
	local e
	echo global >"$T/trace_clock"
	echo >"$T/trace"
	for e in workqueue_execute_start workqueue_execute_end; do
		echo 1 >"$T/events/workqueue/$e/enable" || fail "enable $e"
	done
	ip netns exec pb timeout 600 "$PM" commit -a "$SRV" -p 7850 -t 600 "0:$LEN" \
		>"$R/hold-$1-$2.c" 2>&1 || fail "hold Commit: $(tail -n 2 "$R/hold-$1-$2.c")"
	for e in workqueue_execute_start workqueue_execute_end; do
		echo 0 >"$T/events/workqueue/$e/enable"
	done
	grep -E 'function siw2_tx_work( |$)' "$T/trace" >"$R/hold-$1-$2.trace"
	# Per task, a start and the end that follows it: one engine run
	# ("WORK us" lines); the responder's work item ran most.
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = substr($i, 1, length($i) - 1); break }
	       w = $0; sub(/.*work struct /, "", w); sub(/:.*/, "", w) }
	     /workqueue_execute_start/ { s[$1] = t; sw[$1] = w; next }
	     /workqueue_execute_end/ && ($1 in s) { printf "%s %.1f\n", sw[$1], (t - s[$1]) * 1e6; delete s[$1] }' \
		"$R/hold-$1-$2.trace" >"$R/hold-$1-$2.runs"
	w=$(cut -d' ' -f1 "$R/hold-$1-$2.runs" | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
	awk -v w="$w" '$1 == w { print $2 }' "$R/hold-$1-$2.runs" | sort -n |
		awk -v round="$1" -v mod="$2" '{ v[++m] = $1; tot += $1 }
			END { p = int(m * 0.99); if (p < 1) p = 1
			      printf "%-5s %-8s hold     runs %d, us per run median %.1f, 99%% %.1f, max %.1f, all runs %.1f ms\n",
				round, mod, m, v[int((m + 1) / 2)], v[p], v[m], tot / 1000 }' | tee -a "$OUT"
}

for ((r = 1; r <= ROUNDS; r++)); do
	for k in "${KOS[@]}"; do
		m=${k%%=*}
		SIW2_KO=${k#*=} siw2_load
		siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
		siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
		wait_port_active s2a || fail "s2a port not ACTIVE"
		wait_port_active s2b || fail "s2b port not ACTIVE"
		ip netns exec pa "$PM" serve -a "$SRV" -p 7850 -f "$PMEM_DAX" -l "$LEN" -n 2 \
			-t 600 >"$R/server-$r-$m.out" 2>&1 &
		sp=$!
		wait_until 300 grep -q '^LISTENING' "$R/server-$r-$m.out" || fail "server not listening"
		holds "$r" "$m"
		lat "$r" "$m" idle
		rm -f "$R/stop"
		ip netns exec pb timeout 3000 "$PM" commit -a "$SRV" -p 7850 -t 600 --repeat 3000 \
			--stop "$R/stop" "0:$LEN" >"$R/commits-$r-$m.c" 2>&1 &
		cp=$!
		bg+=("$cp")
		wait_until 300 grep -q '^PMC RUNNING' "$R/commits-$r-$m.c" || fail "Commits not running"
		lat "$r" "$m" commits
		touch "$R/stop"
		wait "$cp" || fail "Commit client rc $?: $(tail -n 2 "$R/commits-$r-$m.c")"
		wait "$sp" || fail "server rc $?"
		echo "  round $r $m: $(sed -n 's/^PMC OK side=client //p' "$R/commits-$r-$m.c") (Commits of $LEN octets, all Status 0)" |
			tee -a "$OUT"
		siw2_link_del s2a
		siw2_link_del s2b
		siw2_assert_zero_counts
		siw2_unload
	done
done
