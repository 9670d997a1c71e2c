#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# siw2 <-> siw2 connection teardown (servers in pa on s2a: 198.18.13.1,
# fd00:13::1; clients in pb on s2b), driven by siw2_cmtest (lib-cm.sh):
#  - graceful close from either side (RFC 5040 6.2 / BASE teardown via the
#    LLP): both applications get DISCONNECTED with status 0, also when the
#    client holds the connection and the server closes it (--hold), and
#    when the client closes right behind 16 sends: all of them arrive
#    (SIW2-DEC-3, siw2_cmtest --sends);
#  - a connected QP moved to SQE (TERMINATE) takes only the transitions
#    design.md's table gives it, ERR ends the connection;
#  - abortive: "kill -9" of the client holding a connection: the server
#    gets DISCONNECTED (status -104, ECONNRESET: the client's side resets)
#    within 5 s; "kill -9" of the server: the holding client gets
#    DISCONNECTED likewise; every endpoint, QP, PD and CQ goes away;
#  - no listener on the port: REJECTED status -111 (ECONNREFUSED, the TCP
#    RST); SYNs dropped (tc flower on the server's veth) and an on-link
#    address that never answers (static neighbour entry): with
#    mpa_timeout_ms=2000 the connect ends in UNREACHABLE status -110
#    (ETIMEDOUT) after 2 s (the CONNECTING step's timer); a graceful
#    close behind 1 MiB of sends to a server whose traffic is dropped ends
#    abortively after those 2 s, the sends TCP did not take flushed;
#  - "rdma link delete" of the client's device with three live connections:
#    each client gets DEVICE_REMOVAL, cleans up and exits, the delete
#    returns, the server gets DISCONNECTED for each;
#  - a listener whose device is deleted: a specific-address listener gets
#    DEVICE_REMOVAL and exits; a wildcard listener is not told, keeps
#    listening and serves the device once it is added again;
#  - a wildcard listener in the other namespace stays dormant on a device
#    re-added under it: it must not take the port in the device's
#    namespace (which would send that namespace's connections to another
#    namespace's application and make its own wildcard listen on the port
#    fail).  siw2 fails this today: siw2_iw_create_listen compares the
#    device's namespace with that of the task making the call, and when
#    rdma_cm extends an existing wildcard listen to a newly added device
#    (cma_add_one) that task is "rdma link add", running in the device's
#    namespace, so pb's listener gets a socket in pa (rows wild-other-ns,
#    wild-same-port: EADDRINUSE, "cma_listen_on_dev, error -98");
#  - "ip link del" of the client's veth (its peer in pa goes too, so both
#    devices) with two live connections: all applications see
#    DEVICE_REMOVAL or DISCONNECTED and exit, both devices disappear;
# after each step the siw2 debugfs counts are back to 0 (or to the
# listeners still held), "rdma resource show" is empty and only TIME-WAIT
# TCP sockets remain; at the end siw2 unloads.  The harness checks the
# kernel log for warnings.
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip ss timeout awk pgrep
[[ -x $CM_PROG ]] || fail "siw2_cmtest not built (make progs)"
siw2_load
cm_ns_pair pa pb 13
A4=198.18.13.1 A6=fd00:13::1
P=/sys/module/siw2/parameters
CM_SRV_NS=pa CM_CLI_NS=pb CM_ADDR4=$A4 CM_ADDR6=$A6
CM_KEEP_GOING=0

add_s2a() {
	siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
	wait_port_active s2a || fail "s2a port not ACTIVE"
}
add_s2b() {
	siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
	wait_port_active s2b || fail "s2b port not ACTIVE"
}
add_s2a
add_s2b

# idle: nothing left on either device or in either namespace.
idle() {
	cm_assert_siw2_objects 15 s2a
	cm_assert_siw2_objects 15 s2b
	cm_assert_no_resources 15 s2a s2b
	cm_assert_tcp_quiet 15 pa 0
	cm_assert_tcp_quiet 15 pb 0
}

# since_ms T0: milliseconds since ${EPOCHREALTIME/./} was T0.
since_ms() { echo $(( (${EPOCHREALTIME/./} - $1) / 1000 )); }

# srv_prog_pid: the server program under cm_server_start's timeout(1).
srv_prog_pid() { pgrep -P "$_cm_srv_pid" -x siw2_cmtest; }

# --- graceful close, either side: DISCONNECTED status 0 on both
cm_pair close-by-client "-a $A4 -v" "-a $A4 -v"
cm_grep close-by-client srv 'event DISCONNECTED status 0 '
cm_grep close-by-client cli 'event DISCONNECTED status 0 '
cm_pair close-by-server "-a $A6 -v --server-disconnects" \
	"-a $A6 -v --server-disconnects"
cm_grep close-by-server srv 'event DISCONNECTED status 0 '
cm_grep close-by-server cli 'event DISCONNECTED status 0 '
cm_pair close-by-server-held "-a $A4 --server-disconnects" "-a $A4 --hold 20"
cm_grep close-by-server-held cli '^HOLD DISCONNECTED status=0 '
# A graceful close sends what was posted before it, then the FIN
# (SIW2-DEC-3): 16 sends of 4 KiB, rdma_disconnect() right behind them,
# 20 times; every send completes successfully, every message arrives
# intact (siw2_cmtest --sends fails the run otherwise).
cm_pair close-behind-sends "-a $A4 -c 20 --sends 16" "-a $A4 -c 20 --sends 16"
cm_grep close-behind-sends srv '^SENDS receive 16 ok$'
cm_grep close-behind-sends cli '^SENDS send 16 ok$'
# The client's hold runs out, then it closes as usual.
cm_pair hold-expires "-a $A4 -t 20" "-a $A4 --hold 2"
cm_grep hold-expires cli '^HOLD expired after=(19|2[0-9])[0-9][0-9]$'
# The QP state table's TERMINATE row (Documentation/design.md): the
# client moves its connected QP to SQE, every other transition is tried,
# ERR last ends the connection; the server sees it close.
cm_pair terminate-state "-a $A4" "-a $A4 --terminate-state"
cm_grep terminate-state cli '^TERM-STATE ok$'
for r in close-by-client close-by-server close-by-server-held close-behind-sends hold-expires; do
	! grep -q '^DISC' "$CM_OUT/$r.srv" "$CM_OUT/$r.cli" ||
		fail "$r: a graceful close gave a non-zero DISCONNECTED status"
done
idle

# --- kill -9 of the client holding a connection
cm_server_start kill-client "-a $A4 -v -t 60"
cm_client_bg kill-client "-a $A4 --hold 60"
cm_wait_line kill-client cli '^HOLDING$' 20 || fail "kill-client: client never held a connection"
cm_wait_line kill-client srv '^EST ' 10 || fail "kill-client: server not established"
# Each process also holds librdmacm's own PD per device it uses.
cm_assert_siw2_objects 5 s2a ceps=2 qps=1 pds=2 cqs=1 ucontexts=1
cm_assert_siw2_objects 5 s2b ceps=1 qps=1 pds=2 cqs=1 ucontexts=1
cat "$SIW2_DEBUGFS"/s2?/connections
t0=${EPOCHREALTIME/./}
kill -9 "$CM_CLI_PID"
cm_wait_line kill-client srv 'event DISCONNECTED ' 5 || {
	cat "$SIW2_DEBUGFS"/s2?/connections
	fail "kill-client: no DISCONNECTED at the server within 5 s of kill -9"
}
log "kill -9 client: server DISCONNECTED after $(since_ms "$t0") ms: $(grep -m1 'event DISCONNECTED' "$CM_OUT/kill-client.srv")"
cm_client_wait kill-client "$CM_CLI_PID" 5 137
cm_server_wait kill-client 10
cm_grep kill-client srv '^DISC status=-104$'
idle

# --- kill -9 of the server while the client holds the connection
cm_server_start kill-server "-a $A6 -t 60"
cm_client_bg kill-server "-a $A6 --hold 60"
cm_wait_line kill-server cli '^HOLDING$' 20 || fail "kill-server: client never held a connection"
cm_wait_line kill-server srv '^EST ' 10 || fail "kill-server: server not established"
pid=$(srv_prog_pid) || fail "kill-server: no server process"
t0=${EPOCHREALTIME/./}
kill -9 "$pid"
cm_wait_line kill-server cli '^HOLD DISCONNECTED ' 5 ||
	fail "kill-server: no DISCONNECTED at the client within 5 s of kill -9"
log "kill -9 server: client DISCONNECTED after $(since_ms "$t0") ms: $(grep '^HOLD DISC' "$CM_OUT/kill-server.cli")"
cm_client_wait kill-server "$CM_CLI_PID" 10
cm_grep kill-server cli '^HOLD DISCONNECTED status=-104 '
cm_server_wait kill-server 5 137
idle

# --- nobody listens: the TCP RST is a reject
cm_client no-listener "-a $A4 --expect-fail REJECTED" &&
	cm_grep no-listener cli '^FAILED event=REJECTED status=-111 pd=0$'
cm_client no-listener6 "-a $A6 --expect-fail REJECTED" &&
	cm_grep no-listener6 cli '^FAILED event=REJECTED status=-111 pd=0$'
idle

# --- SYNs dropped: UNREACHABLE once mpa_timeout_ms (2 s) has passed
echo 2000 >"$P/mpa_timeout_ms" || fail "mpa_timeout_ms=2000"
# reach_check NAME: UNREACHABLE -110, about 2 s after the connect.
reach_check() {
	local s
	cm_grep "$1" cli '^FAILED event=UNREACHABLE status=-110 pd=0$'
	s=$(sed -n 's/.*as expected, \([0-9.]*\) s).*/\1/p' "$CM_OUT/$1.cli")
	awk -v s="$s" 'BEGIN { exit !(s >= 1.9 && s < 6) }' ||
		fail "$1: UNREACHABLE after $s s, expected about 2 s"
	log "$1: UNREACHABLE after $s s (mpa_timeout_ms 2000)"
}
if in_ns pa tc qdisc add dev pa-v clsact 2>/dev/null &&
   in_ns pa tc filter add dev pa-v ingress protocol ip flower ip_proto tcp \
	dst_port "$CM_PORT" tcp_flags 0x02/0x12 action drop; then
	cm_client syn-drop "-a $A4 --expect-fail UNREACHABLE"
	reach_check syn-drop
	in_ns pa tc -s filter show dev pa-v ingress | grep -E 'Sent|dropped' | head -2
	in_ns pa tc qdisc del dev pa-v clsact
else
	fail "syn-drop: tc flower not available (the guest kernel has cls_flower)"
fi
# An on-link address with a neighbour entry nobody answers to.
in_ns pb ip neigh replace 198.18.13.77 lladdr 02:00:00:00:13:77 dev pb-v nud permanent ||
	fail "static neighbour"
cm_client silent-host "-a 198.18.13.77 --expect-fail UNREACHABLE"
reach_check silent-host
# A graceful close the peer takes nothing of (its traffic dropped once the
# client is connected): 16 sends of 64 KiB, more than TCP holds, then
# rdma_disconnect(); after mpa_timeout_ms (2 s) the close ends abortively
# and what TCP did not take is flushed (SIW2-DEC-3; siw2_cmtest checks).
# The server has its receives posted (what arrives before the drop must
# not be refused); the client sends only once the drop is in place.
go=$CM_OUT/stuck-close.go
rm -f "$go"
cm_server_start stuck-close "-a $A4 -t 30 --sends 16 --send-len 65536"
cm_client_bg stuck-close "-a $A4 --sends 16 --send-len 65536 --sends-stuck $go"
cm_wait_line stuck-close cli '^SENDS-WAIT$' 20 || fail "stuck-close: the client did not connect"
in_ns pa tc qdisc add dev pa-v clsact && in_ns pa tc filter add dev pa-v ingress protocol ip \
	flower ip_proto tcp dst_port "$CM_PORT_USED" action drop || fail "stuck-close: tc drop"
t0=${EPOCHREALTIME/./}
touch "$go"
cm_client_wait stuck-close "$CM_CLI_PID" 30
ms=$(since_ms "$t0")
in_ns pa tc qdisc del dev pa-v clsact
cm_kill_bg
cm_grep stuck-close cli '^SENDS send [0-9]+ ok, [1-9][0-9]* flushed$'
(( ms < 10000 )) || fail "stuck-close: the close took $ms ms, mpa_timeout_ms is 2000 (SIW2-DEC-3)"
log "stuck-close: $(grep '^SENDS send' "$CM_OUT/stuck-close.cli"); DISCONNECTED $ms ms after the sends began"
echo 10000 >"$P/mpa_timeout_ms"
idle

# --- rdma link delete of the client's device, three live connections
cm_server_start del-client-dev "-a $A4 -c 3 -t 60 --removal-ok"
pids=()
for i in 1 2 3; do
	cm_client_bg "del-client-dev-$i" "-a $A4 --hold 60 --removal-ok"
	pids+=("$CM_CLI_PID")
	cm_wait_line "del-client-dev-$i" cli '^HOLDING$' 20 ||
		fail "del-client-dev: client $i never held a connection"
done
cm_assert_siw2_objects 5 s2a ceps=4 qps=3 pds=4 cqs=3 ucontexts=1
cm_assert_siw2_objects 5 s2b ceps=3 qps=3 pds=6 cqs=3 ucontexts=3
t0=${EPOCHREALTIME/./}
timeout 60 rdma link delete s2b || fail "rdma link delete s2b with live connections: rc $?"
log "rdma link delete s2b with 3 connections: $(since_ms "$t0") ms"
for i in 1 2 3; do
	cm_client_wait "del-client-dev-$i" "${pids[i - 1]}" 10
	cm_grep "del-client-dev-$i" cli '^REMOVED established '
done
cm_server_wait del-client-dev 20
[[ $(grep -c 'DISC status=-104' "$CM_OUT/del-client-dev.srv") == 3 ]] || {
	cat "$CM_OUT/del-client-dev.srv"
	fail "del-client-dev: the server did not get 3 DISCONNECTED status -104"
}
! siw2_dev_exists s2b || fail "s2b still registered"
cm_assert_siw2_objects 15 s2a
cm_assert_no_resources 15
add_s2b
idle

# --- the listener's device is deleted
cm_server_start del-listener-dev "-a $A4 -t 60 --removal-ok"
cm_assert_siw2_objects 5 s2a ceps=1 ucontexts=1 pds=1
timeout 60 rdma link delete s2a || fail "rdma link delete s2a under a listener: rc $?"
cm_server_wait del-listener-dev 10
cm_grep del-listener-dev srv '^REMOVED listener '
add_s2a
idle

# A wildcard listener is not told (rdma_cm drops its per-device listen
# quietly), stays, and listens on the device when it comes back.
cm_server_start wild-readd "-a 0.0.0.0 -t 60"
cm_assert_siw2_objects 5 s2a ceps=1
cm_assert_siw2_objects 5 s2b ceps=1	# dormant: s2b is in pb
timeout 60 rdma link delete s2a || fail "rdma link delete s2a under a wildcard listener: rc $?"
sleep 1
_cm_srv_alive || { cat "$CM_OUT/wild-readd.srv"; fail "wild-readd: the wildcard listener died with one of its devices"; }
add_s2a
cm_assert_siw2_objects 5 s2a ceps=1
cm_assert_tcp_quiet 5 pa 1
ip netns exec "$CM_CLI_NS" timeout 60 "$CM_PROG" -p "$CM_PORT_USED" -a "$A4" \
	-P 5 >"$CM_OUT/wild-readd.cli" 2>&1 || {
	cat "$CM_OUT/wild-readd.cli"
	fail "wild-readd: no connection through the re-added device"
}
cm_server_wait wild-readd 10
idle

# A wildcard listener in pb: dormant on s2a (in pa) even when s2a is added
# again under it; pa's own wildcard listener on that port still works.
# Recorded (cm_summary at the end) so that the rows after it still run.
CM_KEEP_GOING=1
CM_SRV_NS=pb
cm_server_start wild-other-ns "-a 0.0.0.0 -t 60"
CM_SRV_NS=pa
port=$CM_PORT_USED
timeout 60 rdma link delete s2a || fail "rdma link delete s2a: rc $?"
add_s2a
cm_assert_siw2_objects 5 s2a ceps=1
if ! cm_tcp_quiet pa 0; then
	in_ns pa ss -tanH
	cat "$SIW2_DEBUGFS/s2a/connections"
	_cm_bad wild-other-ns "pb's wildcard listener took port $port in pa after s2a was re-added"
fi
other_pid=$_cm_srv_pid _cm_srv_pid=
CM_PORT=$port
cm_pair wild-same-port "-a 0.0.0.0" "-a $A4"
_cm_srv_pid=$other_pid
cm_kill_bg
CM_KEEP_GOING=0
idle

# --- ip link del of the client's veth: both devices go, two connections
cm_server_start del-veth "-a $A4 -c 2 -t 60 --removal-ok"
pids=()
for i in 1 2; do
	cm_client_bg "del-veth-$i" "-a $A4 --hold 60 --removal-ok"
	pids+=("$CM_CLI_PID")
	cm_wait_line "del-veth-$i" cli '^HOLDING$' 20 ||
		fail "del-veth: client $i never held a connection"
done
t0=${EPOCHREALTIME/./}
ip -n pb link del pb-v || fail "ip link del pb-v"
for i in 1 2; do
	cm_client_wait "del-veth-$i" "${pids[i - 1]}" 30
	cm_grep "del-veth-$i" cli '^(REMOVED|HOLD DISCONNECTED) '
done
cm_server_wait del-veth 30
log "ip link del pb-v with 2 connections: applications done after $(since_ms "$t0") ms"
sed 's/^/  del-veth.srv: /' "$CM_OUT/del-veth.srv"
grep -h '^\(REMOVED\|HOLD\)' "$CM_OUT"/del-veth-?.cli | sed 's/^/  del-veth.cli: /'
wait_until 30 eval '! siw2_dev_exists s2a && ! siw2_dev_exists s2b' ||
	fail "devices still registered after the veth went away"
cm_assert_no_resources 15
# shellcheck disable=SC2016 # evaluated by wait_until
wait_until 15 eval '[[ $(siw2_count devices) == 0 ]]' ||
	fail "siw2 devices not released: $(tr '\n' ' ' <"$SIW2_DEBUGFS/objects")"
siw2_assert_zero_counts
cm_assert_tcp_quiet 15 pa 0
cm_assert_tcp_quiet 15 pb 0
siw2_unload
cm_summary
log "connection teardown ok"
