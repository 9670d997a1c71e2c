#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Baseline for the interoperability peer: Linux siw (built on the host by
# tools/build-siw.sh, loaded by lib-peer.sh) on both ends of a veth pair
# between two namespaces, driven by rdma-core's librdmacm examples through
# rdma-core's own siw provider (libsiw-rdmav34.so).  Servers run in pa
# (198.18.5.1), clients in pb.  Proves the peer works before siw2 talks to it:
#   - rping: 20 rounds of 1000-byte SEND + RDMA READ + RDMA WRITE ping-pong,
#     data checked by rping itself (-V) and every round's line counted (-v);
#   - ucmatose: 2 connections, 10 sends each way, clean disconnect;
#   - cmtime: 50 connections set up and torn down, every step reported;
# then both devices are deleted and siw unloads; the harness checks the
# kernel log.
#
# Facts found while writing this (rdma-core 44, siw of 6.12.117, TCG guest):
#  - rping's exit status says nothing: it exits 0 when the connection fails
#    or a completion fails.  Its output has to be checked.  Seen with the
#    client's -S 1000 but the server's default 64-byte buffer:
#      server: "cq completion failed status 4"  (IBV_WC_LOC_PROT_ERR)
#      client: "wait for RDMA_WRITE_ADV state 10", no "ping data" line
#      dmesg:  "siw: got TERMINATE. layer 1, type 1, code 1"
#              (DDP, tagged buffer, base/bounds violation: the server's
#              RDMA READ sink is smaller than what the client advertised)
#    both rc=0.  rping -S must be the same on both sides.  A good run
#    still prints "client DISCONNECT EVENT..." and the server's
#    "wait for RDMA_READ_ADV state 10" on stderr at the end.
#  - cmtime (rdma-core 44) has no server-side connection count: the server
#    (cmtime -b ADDR) never exits and must be killed.  The client
#    (cmtime -s ADDR -c N) prints one timing line per step and exits 0.
#  - "rdma link delete" of a siw device blocks while a user process still
#    holds an rdma_cm id on it and does not destroy it on
#    RDMA_CM_EVENT_DEVICE_REMOVAL (the kernel waits for the user): with a
#    cmtime or ucmatose listener it stayed blocked (once 113 s, until the
#    listener's "timeout 120" fired; in a separate run still blocked after
#    10 s) and returned 0.3 s after the listener was killed.  An idle
#    "rping -s" handles the event ("cma detected device removal!!!!"),
#    exits, and the delete returned in 0.37 s.  Servers are therefore
#    killed, and the resource counts checked to be 0, before the delete.
#    Killing a backgrounded shell function (in_ns ... &) leaves the program
#    running: start servers with "ip netns exec" directly so that $! is the
#    timeout(1) process, which passes SIGTERM on.
#  - "iwpm_register_pid: Unable to send a nlmsg (client = 2)" appears in the
#    kernel log on the first rdma_cm use: no iwpmd runs; harmless (siw
#    needs no port mapper).
#  - A server is ready when its TCP socket listens (lib-peer.sh
#    wait_tcp_listen), not when "rdma resource show cm_id" shows its id in
#    LISTEN: rdma_listen() sets that state before the driver listens.
# timeout: 400
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip rping ucmatose cmtime timeout
siw_peer_load
log "siw loaded from $(siw_peer_ko)"
ns_pair pa pb 5
SRV=198.18.5.1
siw_link_add pa siw_a pa-v || fail "rdma link add siw_a"
siw_link_add pb siw_b pb-v || fail "rdma link add siw_b"
wait_port_active siw_a || fail "siw_a port not ACTIVE"
wait_port_active siw_b || fail "siw_b port not ACTIVE"
rdma link show
# Through libsiw, also with RDMAV_DRIVERS pointing at the siw2 provider.
ibv_devices | tee "$SIW2_RESULTS/ibv_devices"
for d in siw_a siw_b; do
	grep -qw "$d" "$SIW2_RESULTS/ibv_devices" || fail "ibv_devices does not list $d"
done

R=$SIW2_RESULTS
srv_pid=
# srv_start NAME CMD...: CMD in namespace pa, stdout in $R/NAME, stderr in
# $R/NAME.err (kept apart: rping's unbuffered stderr lands in the middle of
# its block-buffered stdout lines otherwise); $! is the timeout(1) process
# (ip netns exec execs it), which forwards SIGTERM.
srv_start() {
	local name=$1
	shift
	ip netns exec pa timeout 300 "$@" >"$R/$name" 2>"$R/$name.err" &
	srv_pid=$!
}
srv_alive() { kill -0 "$srv_pid" 2>/dev/null; }
srv_stop() {
	[[ -n $srv_pid ]] || return 0
	kill "$srv_pid" 2>/dev/null
	wait "$srv_pid" 2>/dev/null
	srv_pid=
}
trap srv_stop EXIT

# show NAME: the program's output, shortened (rping lines are 1000 bytes).
show() { cat "$R/$1" "$R/$1.err" | cut -c1-100 | sed "s/^/  $1: /"; }
# errors NAME PATTERN: true if the program's stdout or stderr matches.
errors() { grep -Eq "$2" "$R/$1" "$R/$1.err"; }

# --- rping: -v prints each round's data, -V makes rping compare it.
log "rping"
# rping_try PORT: one client/server run; sets rc and src.
rping_try() {
	srv_start rping-s rping -s -a "$SRV" -p "$1" -S 1000 -v -V
	wait_tcp_listen "$srv_pid" "$1" || { show rping-s; fail "rping server not listening"; }
	ip netns exec pb timeout 60 rping -c -a "$SRV" -p "$1" -S 1000 -C 20 -v -V >"$R/rping-c" 2>"$R/rping-c.err"
	rc=$?
	if ! wait_until 30 eval '! srv_alive'; then
		show rping-s
		srv_stop
		src=124
		return
	fi
	wait "$srv_pid"
	src=$?
	srv_pid=
}
rping_try 7174
if (( rc != 0 || src != 0 )); then
	# Seen once in a clean-clone CI run: siw<->siw, the server's first
	# RDMA Read never completed, the client timed out with no output and
	# the server hung in "wait for RDMA_READ_COMPLETE". This case checks
	# the peer, not siw2: one retry, logged, then the strict checks.
	log "RETRY: rping (siw<->siw) attempt 1 failed (client rc $rc, server rc $src); once more"
	show rping-c
	rping_try 7175
fi
show rping-c | head -n 3
(( rc == 0 && src == 0 )) || { show rping-c; show rping-s; fail "rping: client rc $rc, server rc $src"; }
# rping exits 0 on failures too (see above): the output decides.
# The server's "wait for RDMA_READ_ADV state 10" after the client's last
# round is normal (it waits for the next round and sees the disconnect).
errors rping-c 'mismatch|fail|error|wait for' && { show rping-c; fail "rping client reported errors"; }
errors rping-s 'mismatch|fail|error' && { show rping-s; fail "rping server reported errors"; }
n=$(grep -c '^ping data: rdma-ping-' "$R/rping-c")
(( n == 20 )) || { show rping-c; fail "rping client: $n of 20 rounds"; }
n=$(grep -c '^server ping data: rdma-ping-' "$R/rping-s")
(( n == 20 )) || { show rping-s; fail "rping server: $n of 20 rounds"; }
# Round i carries the pattern starting at 'A'+i: the data went both ways.
grep -q '^ping data: rdma-ping-19: TUVWXYZ' "$R/rping-c" || fail "rping round 19 data wrong"
log "rping ok: 20 rounds of 1000 bytes verified"

# --- ucmatose
log "ucmatose"
# ucmatose_try PORT: one server/client run; sets rc and src.
ucmatose_try() {
	srv_start ucmatose-s ucmatose -b "$SRV" -p "$1" -c 2 -C 10
	wait_tcp_listen "$srv_pid" "$1" || { show ucmatose-s; fail "ucmatose server not listening"; }
	ip netns exec pb timeout 60 ucmatose -s "$SRV" -p "$1" -c 2 -C 10 >"$R/ucmatose-c" 2>"$R/ucmatose-c.err"
	rc=$?
	wait_until 30 eval '! srv_alive' || { show ucmatose-s; fail "ucmatose server did not exit"; }
	wait "$srv_pid"
	src=$?
	srv_pid=
}
ucmatose_try 7471
if (( rc != 0 || src != 0 )); then
	# Two siw<->siw failures seen in clean-clone CI runs, both on the
	# peer's side:
	#  - client CONNECT_ERROR -22: ucmatose's server sends as soon as it
	#    is ESTABLISHED; Linux siw's client fails the connection when that
	#    first FPDU arrives together with the MPA Reply ("peer sent extra
	#    data", -EINVAL; see 60-dp-integrity.sh);
	#  - client rc 124 with server rc 0 (stop 25, VM suite at -j2): the
	#    server finished its transfers and exited, the client never did.
	# This case checks the peer, not siw2: one retry, logged, then the
	# strict checks.
	log "RETRY: ucmatose (siw<->siw) attempt 1 failed (client rc $rc, server rc $src); once more"
	show ucmatose-c
	show ucmatose-s
	ucmatose_try 7473
fi
show ucmatose-c
show ucmatose-s
(( rc == 0 && src == 0 )) || fail "ucmatose: client rc $rc, server rc $src"
grep -q '^return status 0$' "$R/ucmatose-c" || fail "ucmatose client did not report status 0"
grep -q '^return status 0$' "$R/ucmatose-s" || fail "ucmatose server did not report status 0"
errors ucmatose-c 'fail|error' || errors ucmatose-s 'fail|error' && fail "ucmatose reported errors"
log "ucmatose ok"

# --- cmtime: the server never exits by itself (see above).  Where this
# cmtime cannot run over iWARP (lib-peer.sh cmtime_oob) the step is not
# run, and said so: ucmatose with 50 connections, which case 52 uses then
# for siw2, fails against Linux siw there on the client's CQ ("unable to
# create CQ", -ENOMEM; Debian 13, rdma-core 56), and this case checks the
# peer, not siw2.
if cmtime_oob; then
	log "cmtime: not run, this cmtime cannot run over iWARP (lib-peer.sh cmtime_oob)"
else
	log "cmtime"
	srv_start cmtime-s cmtime -b "$SRV" -p 7472
	wait_tcp_listen "$srv_pid" 7472 || { show cmtime-s; fail "cmtime server not listening"; }
	ip netns exec pb timeout 120 cmtime -s "$SRV" -p 7472 -c 50 >"$R/cmtime-c" 2>"$R/cmtime-c.err"
	rc=$?
	show cmtime-c
	srv_alive || { show cmtime-s; fail "cmtime server died"; }
	srv_stop
	show cmtime-s
	(( rc == 0 )) || fail "cmtime client rc $rc"
	errors cmtime-c 'fail|error|event:' || errors cmtime-s 'fail|error|event:' && fail "cmtime reported errors"
	for step in 'create id' 'resolve addr' 'resolve route' 'create qp' connect disconnect destroy; do
		grep -Eq "^$step *:" "$R/cmtime-c" || fail "cmtime: no '$step' timing"
	done
	log "cmtime ok: 50 connections"
fi

# --- teardown: nothing may hold the devices, or the delete would block.
no_objects() {
	rdma resource show | awk '/siw_[ab]:/ {
		for (i = 3; i < NF; i += 2) if ($(i + 1) != 0) bad = 1
	} END { exit bad }'
}
wait_until 20 no_objects || { rdma resource show; fail "rdma resources left on siw_a/siw_b"; }
timeout 60 rdma link delete siw_a || fail "rdma link delete siw_a"
timeout 60 rdma link delete siw_b || fail "rdma link delete siw_b"
wait_until 10 eval '! [[ -e /sys/class/infiniband/siw_a || -e /sys/class/infiniband/siw_b ]]' ||
	fail "siw devices still present"
siw_peer_unload
log "siw peer ok"
