#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A half-open connection: the Responder's socket goes while nothing can
# reach the Requester, which then waits for Read Responses with nothing
# of its own to retransmit.  The 30-minute soak found it (72-soak.sh,
# 2026-11-26: one of 8 connections kept 12 work requests outstanding for
# 27 minutes after a flap; its peer's TCP had given up during the outage,
# and its RST never came).  siw2 turns TCP keepalive on for connections
# in RDMA mode (module parameter keepalive_s, default 30): a probe draws
# the peer's RST, the QP fails and its work requests complete, flushed.
#
# ib_read_bw -R, one 16 MiB Read at a time (-t 1 -o 1), from a client in
# pb (s2b) to a server in pa (s2a) whose veth sends at 8 Mbit/s (netem):
# a Read Response takes some 16 s, and the Requester, its one Read
# Request acknowledged, sends nothing but ACKs meanwhile.  With 1 MiB of
# the Response in, pa-v goes down (pa's packets are dropped, nothing is
# queued), "ss -K" aborts the server's socket (its RST is dropped too),
# and pa-v comes back up.  (With many Reads in flight the client would
# have Read Requests of its own unacknowledged, and TCP would find the
# peer gone by itself: the first version of this case saw both.)  Then:
#  1. keepalive_s=0 (Linux siw's behaviour): the client still waits after
#     HOLD seconds, its socket ESTABLISHED with nothing unacknowledged:
#     the case shows the hang it prevents; the client is then killed;
#  2. keepalive_s=3 (a tuned, shorter idle time; the default is tested by
#     the soak): the client's QP fails within 3 + 3 x 1 s of silence plus
#     slack, perftest reports a failed completion and exits non-zero by
#     itself, and the siw2_cep_upcall trace shows the close with an error
#     status; its socket is gone.
# Then no siw2 object is left on either device and siw2 unloads.
# Knob: SIW2_HALFOPEN_HOLD (15 s), how long phase 1 waits.
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip ss tc ib_read_bw
R=$SIW2_RESULTS
T=/sys/kernel/tracing
PAR=/sys/module/siw2/parameters
SRV=198.18.73.1
CLI=198.18.73.2
SCALE=${SIW2_TIMEOUT_SCALE:-1}
HOLD=$(knob SIW2_HALFOPEN_HOLD 15)

siw2_load
[[ $(cat "$PAR/keepalive_s") == 30 ]] || fail "keepalive_s default is $(cat "$PAR/keepalive_s"), not 30"
# On a slower (debug) kernel perftest's server registers its 16 MiB and
# accepts later than the MPA step timer (10 s) allows: it stretches too.
(( SCALE > 1 )) && echo $((10000 * SCALE)) >"$PAR/mpa_timeout_ms"
ns_pair pa pb 73
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a not ACTIVE"
wait_port_active s2b || fail "s2b not ACTIVE"
ip netns exec pa tc qdisc add dev pa-v root netem rate 8mbit || fail "netem rate on pa-v"
echo 1 >"$T/events/siw2/siw2_cep_upcall/enable" || fail "enable siw2_cep_upcall"

rx_bytes() { ip netns exec pb cat /sys/class/net/pb-v/statistics/rx_bytes; }
# The client's connection to the server's perftest port, as ss shows it
# with its timer ("timer:(keepalive,...)") and TCP facts ("unacked:N").
cli_sock() { ip netns exec pb ss -Htnio state established "( dport = :$1 )"; }

# cut_off NAME PORT: start a Read load on PORT, cut the server off and abort
# its socket, restore the link; sets spid and cpid.
cut_off() {
	local name=$1 port=$2 b0
	# No timeout(1) in front: kill -9 must reach perftest itself.
	ip netns exec pa ib_read_bw -R -d s2a -p "$port" -s 16777216 -n 5 \
		-t 1 -o 1 >"$R/$name.srv" 2>&1 &
	spid=$!
	wait_tcp_listen "$spid" "$port" $((20 * SCALE)) ||
		{ cat "$R/$name.srv"; fail "$name: server not listening"; }
	ip netns exec pb ib_read_bw -R -d s2b -p "$port" -s 16777216 -n 5 \
		-t 1 -o 1 "$SRV" >"$R/$name.cli" 2>&1 &
	cpid=$!
	b0=$(rx_bytes)
	# The first Read Response under way: 1 MiB has arrived.
	wait_until $((60 * SCALE)) eval '(( $(rx_bytes) - b0 > 1048576 )) || ! kill -0 $cpid 2>/dev/null'
	kill -0 "$cpid" 2>/dev/null || { cat "$R/$name.cli"; fail "$name: client ended before the cut"; }
	(( $(rx_bytes) - b0 > 1048576 )) || { cat "$R/$name.cli"; fail "$name: no Read traffic"; }
	# The client's endpoint, to find its close in the trace.
	ccep=$(awk '$1 == "cep" && / RDMA / { print $2; exit }' /sys/kernel/debug/siw2/s2b/connections)
	[[ -n $ccep ]] || { cat /sys/kernel/debug/siw2/s2b/connections; fail "$name: no client endpoint in RDMA mode"; }
	: >"$T/trace"
	ip -n pa link set pa-v down || fail "pa-v down"
	ip netns exec pa ss -HK -t dst "$CLI" >/dev/null || fail "$name: ss -K"
	[[ -z $(ip netns exec pa ss -Htn state established dst "$CLI") ]] ||
		fail "$name: the server's connection survived ss -K"
	ip -n pa link set pa-v up || fail "pa-v up"
	wait_until 10 eval "ip -n pa link show pa-v | grep -q LOWER_UP" || fail "no carrier on pa-v"
	log "$name: server cut off and its socket aborted at $(( $(rx_bytes) - b0 )) octets"
}

stop() {
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# ---- 1: no keepalive: the client waits, half-open
echo 0 >"$PAR/keepalive_s" || fail "keepalive_s=0"
cut_off no-keepalive 18600
sleep "$HOLD"
kill -0 "$cpid" 2>/dev/null || { cat "$R/no-keepalive.cli"; fail "no-keepalive: the client ended: no half-open connection to test"; }
s=$(cli_sock 18600)
log "no-keepalive: after $HOLD s the client still waits: $(echo "$s" | head -n 1 | cut -c1-100)"
[[ -n $s ]] || fail "no-keepalive: the client's connection is not ESTABLISHED"
[[ $s != *unacked:* ]] || fail "no-keepalive: the client has unacknowledged data (TCP would find the peer gone)"
[[ $s != *keepalive* ]] || fail "no-keepalive: a keepalive timer runs with keepalive_s=0"
stop "$cpid"
stop "$spid"
wait_until $((20 * SCALE)) eval '[[ $(siw2_count qps s2a) == 0 && $(siw2_count qps s2b) == 0 ]]' ||
	fail "no-keepalive: QPs left: $(cat /sys/kernel/debug/siw2/*/objects | tr '\n' ' ')"

# ---- 2: keepalive: the client's QP fails by itself
echo 3 >"$PAR/keepalive_s" || fail "keepalive_s=3"
cut_off keepalive 18601
rc=0
t0=${EPOCHREALTIME/./}
# 3 s idle, 3 probes 1 s apart: the first probe draws the RST.
reap rc "$cpid" $((30 * SCALE))
ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
log "keepalive: the client ended after $ms ms, exit $rc"
grep -E 'status|error|Error' "$R/keepalive.cli" | head -n 3 | sed 's/^/  client: /'
(( rc != 124 )) || { cat "$R/keepalive.cli"; fail "keepalive: the client still waited after $((30 * SCALE)) s"; }
(( rc != 0 )) || { cat "$R/keepalive.cli"; fail "keepalive: the client reported success"; }
grep -qi 'completion with error\|failed status' "$R/keepalive.cli" ||
	{ cat "$R/keepalive.cli"; fail "keepalive: perftest reported no failed completion"; }
# IW_CM_EVENT_CLOSE (5) with an error status: the RST a probe drew (or,
# with every probe lost while the link was down, ETIMEDOUT).
grep -E "siw2_cep_upcall: cep=$ccep iw_cm event 5 status -(104|110)\$" "$T/trace" >"$R/keepalive.upcall" ||
	{ grep siw2_cep_upcall "$T/trace" | tail -n 5; fail "keepalive: no close with ECONNRESET/ETIMEDOUT in the trace"; }
log "keepalive: $(head -n 1 "$R/keepalive.upcall" | sed 's/.*siw2_cep_upcall: //')"
[[ -z $(cli_sock 18601) ]] || fail "keepalive: the client's socket is still ESTABLISHED"
stop "$spid"
echo 30 >"$PAR/keepalive_s"

wait_until $((20 * SCALE)) eval '[[ $(siw2_count qps s2a) == 0 && $(siw2_count qps s2b) == 0 &&
	$(siw2_count ceps s2a) == 0 && $(siw2_count ceps s2b) == 0 ]]' ||
	fail "objects left: $(cat /sys/kernel/debug/siw2/*/objects | tr '\n' ' ')"
siw2_link_del s2a
siw2_link_del s2b
siw2_assert_zero_counts
siw2_unload
log "half-open: detected with keepalive, waiting forever without"
