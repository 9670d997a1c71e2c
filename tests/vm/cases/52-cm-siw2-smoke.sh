#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# siw2 <-> siw2 connection setup through rdma_cm, before the data path:
# ucmatose with no messages (connect, disconnect) and cmtime (50
# connections, every step timed), both ways of tearing down, then the
# endpoint and QP counts must be back to zero and the module must unload.
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip ucmatose cmtime timeout
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

log "ucmatose, 2 connections, no messages"
srv_start ucmatose-s ucmatose -b "$SRV" -p 7471 -c 2 -C 0
wait_cm_listen 7471 || { show ucmatose-s; fail "ucmatose server not listening"; }
ip netns exec pb timeout 60 ucmatose -s "$SRV" -p 7471 -c 2 -C 0 >"$R/ucmatose-c" 2>"$R/ucmatose-c.err"
rc=$?
wait_until 30 eval '! srv_alive' || { show ucmatose-s; show ucmatose-c; cat /sys/kernel/debug/siw2/*/connections; fail "ucmatose server did not exit"; }
wait "$srv_pid"
src=$?
srv_pid=
show ucmatose-c
show ucmatose-s
(( rc == 0 && src == 0 )) || fail "ucmatose: client rc $rc, server rc $src"
grep -q '^return status 0$' "$R/ucmatose-c" || fail "ucmatose client did not report status 0"
grep -q '^return status 0$' "$R/ucmatose-s" || fail "ucmatose server did not report status 0"

log "cmtime, 50 connections"
srv_start cmtime-s cmtime -b "$SRV" -p 7472
wait_cm_listen 7472 || { show cmtime-s; fail "cmtime server not listening"; }
ip netns exec pb timeout 120 cmtime -s "$SRV" -p 7472 -c 50 >"$R/cmtime-c" 2>"$R/cmtime-c.err"
rc=$?
show cmtime-c
srv_stop
(( rc == 0 )) || { show cmtime-s; fail "cmtime client rc $rc"; }
grep -q 'connect' "$R/cmtime-c" || fail "cmtime printed no connect step"

cat /sys/kernel/debug/siw2/*/connections
wait_until 20 eval '[[ $(siw2_count ceps s2a) == 0 && $(siw2_count ceps s2b) == 0 ]]' ||
	{ cat /sys/kernel/debug/siw2/*/connections; fail "connection endpoints left"; }
siw2_link_del s2a || fail "link delete s2a"
siw2_link_del s2b || fail "link delete s2b"
siw2_assert_zero_counts
siw2_unload
log "ok"
