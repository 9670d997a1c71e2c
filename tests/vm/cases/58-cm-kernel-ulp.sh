#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# siw2's iw_cm verbs used by a kernel ULP: tests/kmod/siw2_cmktest.ko, an
# in-kernel rdma_cm consumer whose ids live in init_net (as NFS, NVMe or
# iSER connect from kworkers of the initial namespace), against user-space
# siw2_cmtest (librdmacm) in namespace pa.  Topology: veth k0 in the initial
# namespace (198.18.40.1, fd00:40::1, siw2 device s2k) <-> pa-v in pa
# (198.18.40.2, fd00:40::2, siw2 device s2p).
#
#  a  kernel client -> "siw2_cmtest -s" in pa: 50 connect/disconnect
#     cycles, 200 bytes of private data each way, checked on both sides;
#     a6 the same over IPv6, 5 cycles, 17 bytes;
#  b  siw2_cmtest client in pa -> kernel server (rdma_listen, rdma_accept
#     outside the handler): 50 cycles, 200 bytes each way, both checked;
#  c  kernel client -> a server that rejects (--reject -R 10): REJECTED
#     (status -ECONNREFUSED) with the 10 bytes, 5 times; c2 the other way:
#     the kernel server rejects with 10 bytes, siw2_cmtest --expect-reject;
#  d  rmmod siw2_cmktest while its client waits for an MPA Reply that never
#     comes (mpa_peer.py server, silence): returns in bounded time (well
#     before the 10 s MPA step timer: destroying the QP aborts the
#     connection); d2 the same in CONNECTING (SYNs go to a MAC nobody
#     has); d3 rmmod while the kernel server listens and a silent TCP peer
#     sits in its AWAIT_REQ; d4 rmmod while the kernel server holds an
#     established connection (mpa_peer.py client --hold);
#  e  rdma link delete s2k while the kernel server listens and holds an
#     established connection (mpa_peer.py client --hold): the module sees
#     RDMA_CM_EVENT_DEVICE_REMOVAL, releases its objects, the delete returns.
# After every row nothing of siw2_cmktest is left on s2k (debugfs counts,
# rdma resource show cm_id); at the end every siw2 count is zero and
# siw2 unloads.  Row outputs and a siw2 trace are in
# build/vm-logs/58-cm-kernel-ulp/.
# timeout: 600
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip python3 timeout insmod rmmod
KT=$SIW2_TOP/tests/kmod/siw2_cmktest.ko
[[ -f $KT ]] || fail "missing $KT (make ktest)"
CMT=$SIW2_PROGS/siw2_cmtest
[[ -x $CMT ]] || fail "siw2_cmtest not built (run make)"
PEER=(python3 "$SIW2_TOP/tests/progs/mpa_peer.py")
R=$SIW2_RESULTS
P=/sys/module/siw2_cmktest/parameters
T=/sys/kernel/tracing
K4=198.18.40.1 U4=198.18.40.2 K6=fd00:40::1 U6=fd00:40::2

siw2_load
# On a slower (debug) kernel the bounds stretch together: the MPA step
# timer that rows d-d4 must beat, the limits they are held to, and the
# kernel module's own waits.
SCALE=${SIW2_TIMEOUT_SCALE:-1}
(( SCALE > 1 )) && echo $((10000 * SCALE)) >/sys/module/siw2/parameters/mpa_timeout_ms
RMMOD_LIMIT=$((8000 * SCALE)) DEL_LIMIT=$((10000 * SCALE)) KT_TMO=$((60000 * SCALE))

# ---------------------------------------------------------------- topology
ip netns add pa || fail "ip netns add pa"
ip link add k0 type veth peer name pa-v netns pa || fail "veth k0/pa-v"
ip addr add "$K4/24" dev k0 || fail "addr k0"
ip -6 addr add "$K6/64" dev k0 nodad || fail "addr6 k0"
ip -n pa addr add "$U4/24" dev pa-v || fail "addr pa-v"
ip -n pa -6 addr add "$U6/64" dev pa-v nodad || fail "addr6 pa-v"
ip link set k0 up || fail "k0 up"
ip -n pa link set lo up || fail "lo up in pa"
ip -n pa link set pa-v up || fail "pa-v up"
wait_until 10 eval "ip link show k0 | grep -q LOWER_UP &&
	ip -n pa link show pa-v | grep -q LOWER_UP" || fail "no carrier on k0/pa-v"
siw2_link_add - s2k k0 || fail "rdma link add s2k"
siw2_link_add pa s2p pa-v || fail "rdma link add s2p"
wait_port_active s2k || fail "s2k port not ACTIVE"
wait_port_active s2p || fail "s2p port not ACTIVE"

if [[ -d $T/events/siw2 ]]; then
	echo 8192 >"$T/buffer_size_kb"
	echo 1 >"$T/events/siw2/enable"
	: >"$T/trace"
fi

# ----------------------------------------------------------------- helpers
FAILED=()
CUR=
bad() {
	echo "FAILED $CUR: $*" >&2
	FAILED+=("$CUR: $*")
}
show() { [[ -f $R/$1 ]] && sed "s/^/  $1| /" "$R/$1" | tail -n 30 | cut -c1-200; }
ms_since() { echo $(( (${EPOCHREALTIME/./} - $1) / 1000 )); }

bg_pid=
bg_start() {	# bg_start NAME CMD...: CMD in pa, output in $R/NAME
	local name=$1
	shift
	ip netns exec pa timeout 300 "$@" >"$R/$name" 2>&1 &
	bg_pid=$!
}
bg_alive() { [[ -n $bg_pid ]] && kill -0 "$bg_pid" 2>/dev/null; }
# bg_wait SECS: the background program's exit status (124: killed).
bg_wait() {
	local rc
	if ! wait_until "$1" eval '! bg_alive'; then
		kill "$bg_pid" 2>/dev/null
		wait "$bg_pid" 2>/dev/null
		bg_pid=
		return 124
	fi
	wait "$bg_pid"
	rc=$?
	bg_pid=
	return "$rc"
}
bg_kill() {
	[[ -n $bg_pid ]] || return 0
	kill "$bg_pid" 2>/dev/null
	wait "$bg_pid" 2>/dev/null
	bg_pid=
}

kt_loaded() { [[ -d /sys/module/siw2_cmktest ]]; }
kt() { cat "$P/$1" 2>/dev/null; }
kt_load() {	# kt_load PARAM=VALUE...
	echo "58-cm-kernel-ulp: row $CUR" >/dev/kmsg
	echo "insmod siw2_cmktest $*" >"$R/$CUR.kt"
	insmod "$KT" "$@" 2>>"$R/$CUR.kt" || { bad "insmod siw2_cmktest $*"; return 1; }
}
# kt_log: the module's kernel log lines since the current row began.
kt_log() {
	dmesg | awk -v m="58-cm-kernel-ulp: row $CUR\$" '$0 ~ m { n = NR; delete l }
		n && /siw2_cmktest/ { l[NR] = $0 } END { for (i = n; i <= NR; i++) if (i in l) print l[i] }'
}
kt_phase_is() { [[ $(kt phase) == "$1" ]]; }
# kt_finish SECS: wait for the worker to end, keep its result in KT_RES
# (and $R/$CUR.kt with the module's last log lines), unload.
KT_RES=
kt_finish() {
	wait_until "$1" kt_phase_is "done" ||
		bad "kernel side still '$(kt phase)' after $1 s (done $(kt "done"))"
	KT_RES=$(kt result)
	{ echo "result: $KT_RES"; echo "done: $(kt "done")"; kt_log; } >>"$R/$CUR.kt"
	kt_unload
}
kt_unload() {
	kt_loaded || return 0
	timeout 120 rmmod siw2_cmktest || bad "rmmod siw2_cmktest failed or hung (rc $?)"
}

counts_zero() {	# counts_zero IBDEV KIND...
	local d=$1 k c
	shift
	for k in "$@"; do
		c=$(siw2_count "$k" "$d") || return 1
		[[ $c == 0 ]] || return 1
	done
}
kt_cm_ids() { rdma resource show cm_id 2>/dev/null | grep -E 'link s2k/|siw2_cmktest'; }
# clean: nothing of the last row is left (connection endpoints may need a
# moment to close).
clean() {
	wait_until 20 counts_zero s2k pds cqs qps ceps ||
		{ cat /sys/kernel/debug/siw2/s2k/objects /sys/kernel/debug/siw2/s2k/connections; bad "objects left on s2k"; }
	wait_until 20 counts_zero s2p pds cqs qps ceps ||
		{ cat /sys/kernel/debug/siw2/s2p/objects /sys/kernel/debug/siw2/s2p/connections; bad "objects left on s2p"; }
	if kt_cm_ids >/dev/null; then
		kt_cm_ids
		bad "cm_ids left on s2k"
	fi
}

cleanup() {
	bg_kill
	[[ -d $T/events/siw2 ]] && { echo 0 >"$T/events/siw2/enable"; cp "$T/trace" "$R/trace.txt"; }
	cat /sys/kernel/debug/siw2/*/connections >"$R/connections.txt" 2>/dev/null
}
trap cleanup EXIT

# row_kclient NAME PORT "KERNEL PARAMS" "SERVER ARGS" COUNT: kernel client
# against siw2_cmtest -s in pa.
row_kclient() {
	local name=$1 port=$2 kp=$3 sargs=$4 n=$5 res t0 rc
	local -a sa
	CUR=$name
	read -ra sa <<<"$sargs"
	bg_start "$name.srv" "$CMT" -s -p "$port" -t 60 -c "$n" "${sa[@]}"
	wait_until 20 eval "grep -q '^LISTENING$' '$R/$name.srv' || ! bg_alive"
	grep -q '^LISTENING$' "$R/$name.srv" || { show "$name.srv"; bad "siw2_cmtest server not listening"; bg_kill; return; }
	t0=${EPOCHREALTIME/./}
	# shellcheck disable=SC2086 # kp: PARAM=VALUE words
	kt_load mode=client port="$port" count="$n" $kp || { bg_kill; return; }
	kt_finish 300
	res=$KT_RES
	bg_wait 30
	rc=$?
	[[ $res == "pass $n" ]] || { show "$name.kt"; bad "kernel client: '$res', want 'pass $n'"; }
	(( rc == 0 )) || { show "$name.srv"; bad "siw2_cmtest server rc $rc"; }
	grep -q "^cmtest: server $n connections ok" "$R/$name.srv" ||
		bad "siw2_cmtest server did not report $n connections"
	clean
	log "$name ($(ms_since "$t0") ms): kernel '$res'; user $(tail -n 1 "$R/$name.srv")"
}

# row_kserver NAME PORT "KERNEL PARAMS" "CLIENT ARGS" COUNT: siw2_cmtest
# client in pa against the kernel server.
row_kserver() {
	local name=$1 port=$2 kp=$3 cargs=$4 n=$5 res t0 rc
	local -a ca
	CUR=$name
	read -ra ca <<<"$cargs"
	# shellcheck disable=SC2086
	kt_load mode=server port="$port" count="$n" timeout_ms="$KT_TMO" $kp || return
	wait_until 20 eval 'kt_phase_is listening || kt_phase_is "done"'
	kt_phase_is listening || { bad "kernel server not listening: $(kt result)"; kt_unload; return; }
	t0=${EPOCHREALTIME/./}
	ip netns exec pa timeout 300 "$CMT" -p "$port" -t 30 -c "$n" "${ca[@]}" >"$R/$name.cli" 2>&1
	rc=$?
	kt_finish 60
	res=$KT_RES
	[[ $res == "pass $n" ]] || { show "$name.kt"; bad "kernel server: '$res', want 'pass $n'"; }
	(( rc == 0 )) || { show "$name.cli"; bad "siw2_cmtest client rc $rc"; }
	grep -q "^cmtest: client $n connections ok" "$R/$name.cli" ||
		bad "siw2_cmtest client did not report $n connections"
	clean
	log "$name ($(ms_since "$t0") ms): kernel '$res'; user $(tail -n 1 "$R/$name.cli")"
}

# ------------------------------------------------------------------- rows
row_kclient a 7601 "addr=$U4 pd_len=200 expect_pd=200" "-a $U4 -q -E 200 -R 200" 50
row_kclient a6 7602 "addr=$U6 pd_len=17 expect_pd=17" "-a $U6 -E 17 -R 17" 5
row_kserver b 7603 "addr=$K4 pd_len=200 expect_pd=200" "-a $K4 -q -P 200 -e 200" 50
row_kclient c 7604 "addr=$U4 reject=1 pd_len=7 expect_pd=10" "-a $U4 --reject -E 7 -R 10" 5
row_kserver c2 7605 "addr=$K4 reject=1 pd_len=10 expect_pd=7" \
	"-a $K4 -P 7 --expect-reject --reject-pd 10" 5

# rmmod_timed LIMIT_MS: unload, fail if it takes LIMIT_MS or more.
rmmod_timed() {
	local t0 ms rc
	t0=${EPOCHREALTIME/./}
	timeout 120 rmmod siw2_cmktest
	rc=$?
	ms=$(ms_since "$t0")
	echo "rmmod rc $rc after $ms ms" >>"$R/$CUR.kt"
	(( rc == 0 )) || bad "rmmod siw2_cmktest rc $rc after $ms ms"
	(( ms < $1 )) || bad "rmmod took $ms ms (limit $1)"
	! kt_loaded || bad "siw2_cmktest still loaded"
	kt_log >>"$R/$CUR.kt"
	RMMOD_MS=$ms
}

# d: the client waits in AWAIT_REP; mpa_peer.py reads the Request and says
# nothing.  siw2's MPA step timer (mpa_timeout_ms, 10 s) has not fired.
CUR=d
bg_start d.peer "${PEER[@]}" server 7606 --bind "$U4" --scenario silence --timeout 60
wait_until 20 eval "grep -q '^listening' '$R/d.peer' || ! bg_alive"
if kt_load mode=client addr="$U4" port=7606 timeout_ms="$KT_TMO"; then
	if wait_until 20 eval "grep -q 'not replying' '$R/d.peer' && kt_phase_is connecting"; then
		grep -E 'AWAIT_REP|await' /sys/kernel/debug/siw2/s2k/connections >>"$R/d.kt"
		rmmod_timed "$RMMOD_LIMIT"
		log "d: rmmod in AWAIT_REP took $RMMOD_MS ms"
	else
		show d.peer
		bad "client not waiting for the Reply (phase '$(kt phase)', result '$(kt result)')"
		kt_unload
	fi
fi
bg_kill
clean

# d2: the client waits in CONNECTING: its SYNs go to a MAC nobody has.
CUR=d2
ip neigh replace 198.18.40.9 lladdr 02:00:00:00:40:09 dev k0 nud permanent || bad "static neighbour"
if kt_load mode=client addr=198.18.40.9 port=7607 timeout_ms="$KT_TMO"; then
	if wait_until 20 kt_phase_is connecting; then
		sleep 1
		cat /sys/kernel/debug/siw2/s2k/connections >>"$R/d2.kt"
		rmmod_timed "$RMMOD_LIMIT"
		log "d2: rmmod in CONNECTING took $RMMOD_MS ms"
	else
		bad "client not connecting (phase '$(kt phase)', result '$(kt result)')"
		kt_unload
	fi
fi
ip neigh del 198.18.40.9 dev k0
clean

# d3: the kernel server listens; a TCP peer connected and sent nothing.
CUR=d3
if kt_load mode=server addr="$K4" port=7608 timeout_ms="$KT_TMO"; then
	wait_until 20 eval 'kt_phase_is listening || kt_phase_is "done"'
	bg_start d3.peer "${PEER[@]}" client "$K4" 7608 --scenario silence --timeout 60
	if wait_until 20 eval "grep -q '^connected' '$R/d3.peer' && kt_phase_is listening"; then
		sleep 1
		cat /sys/kernel/debug/siw2/s2k/connections >>"$R/d3.kt"
		rmmod_timed "$RMMOD_LIMIT"
		log "d3: rmmod with a peer in AWAIT_REQ took $RMMOD_MS ms"
	else
		show d3.peer
		bad "no silent peer on the kernel server (phase '$(kt phase)', result '$(kt result)')"
		kt_unload
	fi
	bg_kill
fi
clean

# d4: the kernel server holds an established connection (mpa_peer.py
# client, --hold): rmmod aborts it.
CUR=d4
if kt_load mode=server addr="$K4" port=7610 count=2 timeout_ms="$KT_TMO"; then
	wait_until 20 eval 'kt_phase_is listening || kt_phase_is "done"'
	bg_start d4.peer "${PEER[@]}" client "$K4" 7610 --ird 1 --ord 1 --hold 60 --timeout 60
	if wait_until 20 eval "grep -q 'holding' '$R/d4.peer' && grep -q ' RDMA ' /sys/kernel/debug/siw2/s2k/connections"; then
		cat /sys/kernel/debug/siw2/s2k/connections >>"$R/d4.kt"
		rmmod_timed "$RMMOD_LIMIT"
		log "d4: rmmod with an established connection took $RMMOD_MS ms"
	else
		show d4.peer
		bad "no established connection on the kernel server (phase '$(kt phase)', result '$(kt result)')"
		kt_unload
	fi
	bg_kill
fi
clean

# e: device removal under a listening kernel server holding a connection.
CUR=e
if kt_load mode=server addr="$K4" port=7609 count=2 timeout_ms="$KT_TMO"; then
	wait_until 20 eval 'kt_phase_is listening || kt_phase_is "done"'
	bg_start e.peer "${PEER[@]}" client "$K4" 7609 --ird 1 --ord 1 --hold 60 --timeout 60
	if wait_until 20 eval "grep -q 'holding' '$R/e.peer' && grep -q ' RDMA ' /sys/kernel/debug/siw2/s2k/connections"; then
		cat /sys/kernel/debug/siw2/s2k/connections >>"$R/e.kt"
		t0=${EPOCHREALTIME/./}
		timeout 120 rdma link delete s2k
		rc=$?
		ms=$(ms_since "$t0")
		echo "rdma link delete rc $rc after $ms ms" >>"$R/e.kt"
		(( rc == 0 )) || bad "rdma link delete s2k rc $rc after $ms ms"
		(( ms < DEL_LIMIT )) || bad "rdma link delete s2k took $ms ms (limit $DEL_LIMIT)"
		kt_finish 30
		res=$KT_RES
		[[ $res == "fail: DEVICE_REMOVAL of s2k"* ]] ||
			{ show e.kt; bad "kernel server: '$res', want 'fail: DEVICE_REMOVAL of s2k ...'"; }
		log "e: rdma link delete took $ms ms; kernel '$res'"
	else
		show e.peer
		cat /sys/kernel/debug/siw2/s2k/connections
		bad "no established connection on the kernel server (phase '$(kt phase)', result '$(kt result)')"
		kt_unload
	fi
	bg_kill
fi
siw2_dev_exists s2k && { siw2_link_del s2k || bad "rdma link delete s2k"; }
wait_until 20 counts_zero s2p pds cqs qps ceps || bad "objects left on s2p"
kt_cm_ids && bad "cm_ids left"

# ---------------------------------------------------------------- teardown
CUR=teardown
cleanup
trap - EXIT
if (( ${#FAILED[@]} )); then
	printf 'failed: %s\n' "${FAILED[@]}" >&2
	fail "${#FAILED[@]} check(s) failed"
fi
siw2_link_del s2p || fail "rdma link delete s2p"
siw2_assert_zero_counts
siw2_unload
log "ok"
