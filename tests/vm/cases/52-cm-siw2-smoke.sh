#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# siw2 <-> siw2 connection setup through rdma_cm, before the data path:
# ucmatose with no messages (connect, disconnect) and cmtime (50
# connections, every step timed), then the same with Linux siw as the
# server and as the client; the endpoint and QP counts must be back to
# zero and both modules must unload.  In between, an active connection
# whose rdma_cm port a plain TCP socket holds still connects (on another
# wire port, reported to the passive side; the Initiator's ULP keeps its
# rdma_cm port).
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip ucmatose cmtime timeout python3
siw2_load
ns_pair pa pb 6
SRV=198.18.6.1
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a port not ACTIVE"
wait_port_active s2b || fail "s2b port not ACTIVE"

R=$SIW2_RESULTS
srv_pid=
srv_start() {
	local name=$1
	shift
	ip netns exec pa timeout 200 "$@" >"$R/$name" 2>"$R/$name.err" &
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
show() { cat "$R/$1" "$R/$1.err" | cut -c1-120 | sed "s/^/  $1: /"; }

# ucm NAME N PORT: ucmatose, N connections and no messages, the server in
# pa, the client in pb; both must report status 0.
ucm() {
	local name=$1 n=$2 port=$3 rc src
	srv_start ucmatose-s-$name ucmatose -b "$SRV" -p "$port" -c "$n" -C 0
	wait_tcp_listen "$srv_pid" "$port" || { show ucmatose-s-$name; fail "$name: ucmatose server not listening"; }
	ip netns exec pb timeout 120 ucmatose -s "$SRV" -p "$port" -c "$n" -C 0 >"$R/ucmatose-c-$name" 2>"$R/ucmatose-c-$name.err"
	rc=$?
	wait_until 30 eval '! srv_alive' || { show ucmatose-s-$name; show ucmatose-c-$name; cat /sys/kernel/debug/siw2/*/connections; fail "$name: ucmatose server did not exit"; }
	wait "$srv_pid"
	src=$?
	srv_pid=
	(( rc == 0 && src == 0 )) || { show ucmatose-c-$name; show ucmatose-s-$name; fail "$name: ucmatose: client rc $rc, server rc $src"; }
	grep -q '^return status 0$' "$R/ucmatose-c-$name" || fail "$name: ucmatose client did not report status 0"
	grep -q '^return status 0$' "$R/ucmatose-s-$name" || fail "$name: ucmatose server did not report status 0"
}

# pair NAME N: ucmatose (2 connections, no messages) and cmtime (N
# connections) with the server in pa, the client in pb.
pair() {
	local name=$1 n=$2 rc
	log "$name: ucmatose, 2 connections, no messages"
	ucm "$name" 2 7471
	if cmtime_oob; then
		log "$name: this cmtime cannot run over iWARP (lib-peer.sh cmtime_oob): ucmatose, $n connections, instead"
		ucm "$name-$n" "$n" 7472
		return
	fi
	log "$name: cmtime, $n connections"
	srv_start cmtime-s-$name cmtime -b "$SRV" -p 7472
	wait_tcp_listen "$srv_pid" 7472 || { show cmtime-s-$name; fail "$name: cmtime server not listening"; }
	ip netns exec pb timeout 120 cmtime -s "$SRV" -p 7472 -c "$n" >"$R/cmtime-c-$name" 2>"$R/cmtime-c-$name.err"
	rc=$?
	grep -E '^(connect|disconnect) ' "$R/cmtime-c-$name" | sed "s/^/  $name: /"
	srv_stop
	(( rc == 0 )) || { show cmtime-c-$name; show cmtime-s-$name; fail "$name: cmtime client rc $rc"; }
	grep -q '^connect ' "$R/cmtime-c-$name" || fail "$name: cmtime printed no connect step"
}

pair siw2-siw2 50
cat /sys/kernel/debug/siw2/*/connections
wait_until 20 eval '[[ $(siw2_count ceps s2a) == 0 && $(siw2_count ceps s2b) == 0 ]]' ||
	{ cat /sys/kernel/debug/siw2/*/connections; fail "connection endpoints left"; }

# src_port NAME PORT [busy]: one siw2_cmtest connection from rdma_cm port
# PORT; "busy": a TCP socket without SO_REUSEADDR holds PORT in pb first.
T=/sys/kernel/tracing
src_port() {
	local name=$1 port=$2 busy=${3:-} holder= rc cli srv want
	: >"$T/trace"
	if [[ -n $busy ]]; then
		ip netns exec pb python3 -c 'import socket, sys, time
s = socket.socket()
s.bind(("0.0.0.0", int(sys.argv[1])))
print("bound", flush=True)
time.sleep(60)' "$port" >"$R/$name.holder" 2>&1 &
		holder=$!
		wait_until 20 grep -q bound "$R/$name.holder" ||
			{ cat "$R/$name.holder"; fail "$name: port holder did not bind $port"; }
	fi
	srv_start "$name-s" "$SIW2_PROGS/siw2_cmtest" -s -a "$SRV" -p 7473 --print-addr
	wait_tcp_listen "$srv_pid" 7473 || { show "$name-s"; fail "$name: siw2_cmtest server not listening"; }
	ip netns exec pb timeout 60 "$SIW2_PROGS/siw2_cmtest" -a "$SRV" -p 7473 \
		--src-port "$port" --print-addr >"$R/$name-c" 2>"$R/$name-c.err"
	rc=$?
	wait_until 30 eval '! srv_alive' || { show "$name-s"; fail "$name: server did not exit"; }
	wait "$srv_pid"
	srv_pid=
	[[ -n $holder ]] && { kill "$holder"; wait "$holder" 2>/dev/null; }
	cli=$(grep '^ADDR ' "$R/$name-c")
	srv=$(grep '^ADDR ' "$R/$name-s")
	log "$name: client $cli | server $srv"
	(( rc == 0 )) || { show "$name-c"; show "$name-s"; fail "$name: client rc $rc"; }
	# The ULP's view: its own rdma_cm port, whatever the wire used.
	[[ $cli == "ADDR local=198.18.6.2:$port remote=$SRV:7473" ]] ||
		fail "$name: client addresses '$cli'"
	[[ $srv =~ ^ADDR\ local=$SRV:7473\ remote=198\.18\.6\.2:([0-9]+)$ ]] ||
		fail "$name: server addresses '$srv'"
	if [[ -n $busy ]]; then
		(( BASH_REMATCH[1] != port )) || fail "$name: wire port is the busy $port"
		grep -q "siw2_cep_port_busy: cep=[0-9]* rdma_cm port $port held" "$T/trace" ||
			fail "$name: no siw2_cep_port_busy trace for port $port"
	else
		(( BASH_REMATCH[1] == port )) || fail "$name: wire port ${BASH_REMATCH[1]}, not $port"
	fi
}
echo 1 >"$T/events/siw2/siw2_cep_port_busy/enable" || fail "enable siw2_cep_port_busy"
src_port src-port-free 40123
src_port src-port-busy 40124 busy
echo 0 >"$T/events/siw2/siw2_cep_port_busy/enable"

# Linux siw as the server, then as the client.
siw_peer_load
siw2_link_del s2a || fail "link delete s2a"
siw_link_add pa siw_a pa-v || fail "rdma link add siw_a"
wait_port_active siw_a || fail "siw_a port not ACTIVE"
pair siw-server 20
siw_link_del siw_a || fail "link delete siw_a"
siw2_link_del s2b || fail "link delete s2b"
siw_link_add pb siw_b pb-v || fail "rdma link add siw_b"
siw2_link_add pa s2a pa-v || fail "rdma link add s2a again"
wait_port_active s2a || fail "s2a port not ACTIVE"
wait_port_active siw_b || fail "siw_b port not ACTIVE"
pair siw-client 20
siw_link_del siw_b || fail "link delete siw_b"
siw2_link_del s2a || fail "link delete s2a"
siw2_assert_zero_counts
siw2_unload
siw_peer_unload
log "ok"
