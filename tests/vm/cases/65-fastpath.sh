#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The user-space fast path (siw2-abi.h rings), siw2 <-> siw2 between two
# namespaces, with siw2_fastpath (tests/progs):
#  1. System calls: 100,000 64 B Sends, window 256, busy-polled CQs; every
#     system call of both sides is counted by the kernel's raw_syscalls
#     trace event (strace would stop each call for the tracer, which on
#     the 2-CPU guest, both CPUs busy polling, costs 10-100 ms a call);
#     the data phase (between the program's two getppid() markers, NR
#     110) may make at most 1 system call per 64 work requests on either
#     side (issue 5).  A busy QP: the receiver grants credits every 128
#     messages and holds 512 receives, so the sender rarely waits for it;
#     a doorbell is due only when the TX engine stopped (it lingers on an
#     empty ring, and a credit coming in ends that).  Measured under TCG:
#     sender about 1 call per 600 Sends, receiver 1 per 160 (its credit
#     Sends).  A short run with user_rings=0 (every post and poll a system
#     call) is counted beside it, and must make more than one call per
#     work request.  So is one with tx_linger_us=0 (the TX engine stops
#     at once on an empty ring), after out-of-range values are refused.
#  2. Hostile rings: a client scribbles on its own rings (siw2_fastpath
#     --hostile: bad opcode, SGE count, inline length, reserved field,
#     an RDMA Commit with log fields but no log flag (COMMIT-ERR-1),
#     producer index, receive entry, CQ consumer index and arm word, and
#     random bytes everywhere) and must see exactly its own QP (or CQ)
#     fail as the kernel documents, while a second client/server pair
#     runs normal traffic at the same time and must pass.
#  3. The extended verbs through the same rings (tests/progs/siw2_exverbs:
#     ibv_qp_ex builders incl. abort and a latched error, ibv_cq_ex
#     polling, Writes and a Read checked byte by byte, siw2dv_query_qp).
#  4. Fork and exit: a client that forks in the middle of its traffic (the
#     child must not inherit the ring mappings, the parent must finish),
#     and a client killed (SIGKILL) with a live QP and mapped rings: every
#     object goes and the module unloads.
# The kernel log must stay clean (run.sh checks it).
# timeout: 480
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip timeout
P=$SIW2_PROGS/siw2_fastpath
[[ -x $P ]] || fail "$P not built (make progs)"
R=$SIW2_RESULTS
SRV=198.18.14.1
# Sends of the counted run: siw2_fastpath_n=N on the kernel command line
# changes it (tools/check-debug.sh: the debug kernel moves about 40 a
# second here, so 100,000 would outlast any budget).
N=100000
for w in $(</proc/cmdline); do
	[[ $w == siw2_fastpath_n=* ]] && N=${w#*=}
done
MAX_WR_PER_CALL=64	# at least this many work requests per system call (issue 5)

siw2_load
ns_pair pa pb 14
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a port not ACTIVE"
wait_port_active s2b || fail "s2b port not ACTIVE"

pids=()
cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT
show() { [[ -f $R/$1 ]] && tail -n 20 "$R/$1" | cut -c1-200 | sed "s/^/  $1: /"; }

# server NAME PORT [--echo]: start a server in pa; sets spid.
server() {
	local name=$1 port=$2
	shift 2
	ip netns exec pa timeout 200 "$P" -s -a "$SRV" -p "$port" "$@" -t 40 >"$R/$name.s" 2>&1 &
	spid=$!
	pids+=("$spid")
	wait_until 20 grep -q '^LISTENING' "$R/$name.s" ||
		{ show "$name.s"; fail "$name: server not listening"; }
}

T=/sys/kernel/tracing
# Count the system calls of this script's descendants (set_event_pid and
# event-fork), from now until syscalls_stop.
syscalls_start() {
	echo 0 >"$T/events/enable"
	# Per CPU. With user_rings=0 a busy-polling server makes ~300,000
	# calls while it waits: 16 MiB overflowed (the oldest events, the
	# phase markers among them, were overwritten).
	echo 65536 >"$T/buffer_size_kb" || fail "trace buffer size"
	: >"$T/trace"
	echo 1 >"$T/options/event-fork" || fail "event-fork"
	echo $$ >"$T/set_event_pid" || fail "set_event_pid"
	echo 1 >"$T/events/raw_syscalls/sys_enter/enable" || fail "raw_syscalls"
}
syscalls_stop() {
	echo 0 >"$T/events/raw_syscalls/sys_enter/enable"
	cp "$T/trace" "$R/$1.syscalls"
	: >"$T/set_event_pid"
	grep -q 'LOST\|lost' "$R/$1.syscalls" && fail "$1: trace events lost"
	# The ring buffer overwrites silently: its header tells.
	awk '/entries-in-buffer\/entries-written:/ { split($3, a, "/"); exit a[1] != a[2] }' \
		"$R/$1.syscalls" || fail "$1: trace events overwritten (buffer too small)"
	return 0
}
# phase_calls TRACE SIDE: system calls of the siw2_fastpath process whose
# output is $R/NAME.SIDE, between its two getppid markers (NR 110).
phase_calls() {
	awk -v side="$2" '
		$1 ~ /^siw2_fastpath-/ && /sys_enter: NR/ {
			pid = $1; nr = $0; sub(/.*sys_enter: NR /, "", nr); sub(/ .*/, "", nr)
			if (nr == 110) { m[pid]++; next }
			if (m[pid] == 1) n[pid]++
		}
		END { for (p in m) if (m[p] == 2) print p, n[p] + 0 }' "$1" >"$1.$2.phase"
}

# --- 1. system calls per work request
# traffic NAME: one counted run; sets calls_c, calls_s and rate.
traffic() {
	local name=$1 port=$2 n=$3 crc src spid_prog cpid_prog
	syscalls_start
	ip netns exec pa timeout 200 "$P" -s -a "$SRV" -p "$port" >"$R/$name.s" 2>&1 &
	spid=$!
	pids+=("$spid")
	wait_until 30 grep -q '^LISTENING' "$R/$name.s" ||
		{ show "$name.s"; fail "$name: server not listening"; }
	ip netns exec pb timeout 200 "$P" -a "$SRV" -p "$port" -n "$n" -w 256 -S 64 -t 60 >"$R/$name.c" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	syscalls_stop "$name"
	grep -h '^FASTPATH' "$R/$name.c" "$R/$name.s" | sed "s/^/  /"
	(( crc == 0 && src == 0 )) ||
		{ show "$name.c"; show "$name.s"; fail "$name: client rc $crc, server rc $src"; }
	# Two processes with two markers each: the server started first.
	phase_calls "$R/$name.syscalls" all
	sort -t- -k2 -n "$R/$name.syscalls.all.phase" >"$R/$name.phase"
	mapfile -t ph <"$R/$name.phase"
	(( ${#ph[@]} == 2 )) || fail "$name: markers of ${#ph[@]} processes in the trace, expected 2"
	calls_s=${ph[0]##* } calls_c=${ph[1]##* }
	rate=$(sed -n 's/^FASTPATH OK side=client .*msgs_per_s=\([0-9.]*\).*/\1/p' "$R/$name.c")
	log "$name: $n Sends: data-phase system calls: client $calls_c ($(awk -v c="$calls_c" -v n="$n" 'BEGIN { printf "%.4f", c / n }')/WR), server $calls_s; $rate msgs/s"
}

traffic rings 7600 "$N"
lim=$((N / MAX_WR_PER_CALL))
(( calls_c <= lim )) || fail "rings: client made $calls_c system calls for $N work requests (limit $lim)"
(( calls_s <= lim )) || fail "rings: server made $calls_s system calls for $N work requests (limit $lim)"
grep -q '^FASTPATH STATS side=client rings=yes' "$R/rings.c" || fail "rings: the client did not use rings"

echo 0 >/sys/module/siw2/parameters/user_rings || fail "user_rings=0"
traffic syscalls 7601 20000
echo 1 >/sys/module/siw2/parameters/user_rings || fail "user_rings=1"
grep -q '^FASTPATH STATS side=client rings=no' "$R/syscalls.c" || fail "user_rings=0: the client still used rings"
(( calls_c > 20000 )) || fail "user_rings=0: only $calls_c system calls for 20000 work requests"

# tx_linger_us (admin-guide.md): a value outside 0..4294967295 is refused
# and the old one kept; at 0 the TX engine stops as soon as a ring runs
# empty, so the posts after each pause ring the doorbell: every message
# still arrives intact (siw2_fastpath checks each).
L=/sys/module/siw2/parameters/tx_linger_us
linger=$(<"$L")
for v in 4294967296 -1 abc; do
	echo "$v" 2>/dev/null >"$L" && fail "tx_linger_us=$v accepted"
done
[[ $(<"$L") == "$linger" ]] || fail "tx_linger_us is $(<"$L") after refused writes, was $linger"
echo 0 >"$L" || fail "tx_linger_us=0"
traffic linger0 7602 20000
echo "$linger" >"$L" || fail "tx_linger_us=$linger"
grep -q '^FASTPATH STATS side=client rings=yes' "$R/linger0.c" || fail "tx_linger_us=0: the client did not use rings"

# --- 2. hostile rings, with a bystander pair
port=7610
hostile() {
	local sc=$1 name=hostile-$1 bport crc src bcrc bsrc bpid hpid
	bport=$((port + 1))
	server "$name" "$port" --echo
	hpid=$spid
	server "$name-by" "$bport"
	bpid=$spid
	ip netns exec pb timeout 100 "$P" -a "$SRV" -p "$bport" -n 20000 -w 32 -t 60 \
		>"$R/$name-by.c" 2>&1 &
	local bcpid=$!
	pids+=("$bcpid")
	ip netns exec pb timeout 100 "$P" -a "$SRV" -p "$port" --hostile "$sc" --seed 7 -t 20 \
		>"$R/$name.c" 2>&1
	crc=$?
	wait "$bcpid"
	bcrc=$?
	wait "$bpid"
	bsrc=$?
	wait "$hpid"
	src=$?
	port=$((port + 2))
	log "$sc: $(grep -h '^HOSTILE' "$R/$name.c" | cut -c1-240)"
	(( crc == 0 )) || { show "$name.c"; fail "$sc: hostile client rc $crc"; }
	grep -q "^HOSTILE OK scenario=$sc" "$R/$name.c" || { show "$name.c"; fail "$sc: no HOSTILE OK"; }
	(( src == 0 )) || { show "$name.s"; fail "$sc: the hostile client's server rc $src"; }
	(( bcrc == 0 && bsrc == 0 )) &&
		grep -q '^FASTPATH OK side=client' "$R/$name-by.c" &&
		grep -q '^FASTPATH OK side=server' "$R/$name-by.s" ||
		{ show "$name-by.c"; show "$name-by.s"; fail "$sc: bystander client rc $bcrc, server rc $bsrc"; }
}
for sc in sq-opcode sq-sge sq-inline sq-rsvd sq-commit sq-prod rq-sge cq-cons cq-notify fuzz; do
	hostile "$sc"
done

# --- 3. extended verbs
# The server sends first (its MR's address and key): a siw2 Responder may
# towards a siw2 client, without peer-to-peer mode (design.md, "MPA fencing").
X=$SIW2_PROGS/siw2_exverbs
ip netns exec pa timeout 100 "$X" -s -a "$SRV" -p 7660 -t 30 >"$R/exverbs.s" 2>&1 &
spid=$!
pids+=("$spid")
wait_until 20 grep -q '^LISTENING' "$R/exverbs.s" || { show exverbs.s; fail "exverbs: server not listening"; }
ip netns exec pb timeout 100 "$X" -a "$SRV" -p 7660 -t 30 >"$R/exverbs.c" 2>&1
crc=$?
wait "$spid"
src=$?
grep -h '^EXVERBS' "$R/exverbs.c" "$R/exverbs.s" | sed 's/^/  /'
(( crc == 0 && src == 0 )) && grep -q '^EXVERBS OK side=client' "$R/exverbs.c" &&
	grep -q '^EXVERBS OK side=server' "$R/exverbs.s" ||
	{ show exverbs.c; show exverbs.s; fail "exverbs: client rc $crc, server rc $src"; }

# --- 4. fork, and killed with live rings
server forked 7649
ip netns exec pb timeout 100 "$P" -a "$SRV" -p 7649 -n 20000 -w 64 -t 60 --fork-at 5000 >"$R/forked.c" 2>&1
crc=$?
wait "$spid"
src=$?
log "forked: $(grep -h '^FORK\|^FASTPATH OK' "$R/forked.c" | tr '\n' ' ')"
(( crc == 0 && src == 0 )) || { show forked.c; show forked.s; fail "forked: client rc $crc, server rc $src"; }
grep -q '^FORK child maps=0$' "$R/forked.c" || fail "forked: the child's maps were not checked"

server killed 7650
ip netns exec pb timeout 100 "$P" -a "$SRV" -p 7650 -n 10000000 -w 64 -t 60 >"$R/killed.c" 2>&1 &
kpid=$!
wait_until 30 eval '[[ $(siw2_count qps s2b) == 1 ]]' || fail "killed: client QP never appeared"
sleep 1
pkill -KILL -f "siw2_fastpath -a $SRV -p 7650" || fail "killed: no client to kill"
wait "$kpid"
wait "$spid"
log "killed: client rc $? (server), counts s2b: qps $(siw2_count qps s2b) cqs $(siw2_count cqs s2b)"
wait_until 20 eval '[[ $(siw2_count qps s2b) == 0 && $(siw2_count cqs s2b) == 0 && $(siw2_count ucontexts s2b) == 0 ]]' ||
	fail "killed: objects left: $(tr '\n' ' ' <"$SIW2_DEBUGFS/s2b/objects")"

siw2_link_del s2a || fail "link delete s2a"
siw2_link_del s2b || fail "link delete s2b"
siw2_assert_zero_counts
siw2_unload
log "ok"
