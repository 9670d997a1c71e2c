#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# What an MPA exchange settles, under every local policy (module
# parameters mpa_rev, mpa_crc, peer_to_peer, rtr_forms, mpa_caps), seen in
# the siw2:siw2_cep_conn trace event each side emits on entering RDMA mode:
#   - siw2 <-> siw2: Rev 1 and 2, CRC on and off, peer-to-peer with the
#     Write and the Read RTR (MPA2-P2P-13/15, DEC-3), DEC-4 capability bits
#     exchanged and intersected;
#   - siw2 client -> Linux siw server and siw client -> siw2 server: Rev 2
#     by default, Rev 1, CRC asked by siw2 (siw's own policies are
#     compile-time constants: Rev 2, CRC only when asked, no peer-to-peer);
#     siw echoes the Request's Res bits, which must not count as DEC-4
#     capabilities (no ACK bit, so caps 0x0).
# Connections are made with ucmatose (1 connection, no messages).
# timeout: 420
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip ucmatose timeout
siw2_load
siw_peer_load
ns_pair pa pb 7
SRV=198.18.7.1
R=$SIW2_RESULTS
T=/sys/kernel/tracing
[[ -d $T/events/siw2 ]] || fail "no siw2 trace events in $T"
echo 1 >"$T/events/siw2/siw2_cep_conn/enable" || fail "enable trace event"

param() { echo "$2" >"/sys/module/siw2/parameters/$1" || fail "set $1=$2"; }
defaults() {
	param mpa_rev 2
	param mpa_crc 0
	param peer_to_peer 0
	param rtr_forms 6
	param mpa_caps 6
}

# connect NAME: one ucmatose connection, server in pa, client in pb; the
# siw2 "rdma mode" trace lines are left in $R/NAME.trace.
connect() {
	local name=$1 rc src pid
	: >"$T/trace"
	ip netns exec pa timeout 60 ucmatose -b "$SRV" -p 7471 -c 1 -C 0 >"$R/$name-s" 2>&1 &
	pid=$!
	wait_tcp_listen "$pid" 7471 || { cat "$R/$name-s"; fail "$name: server not listening"; }
	ip netns exec pb timeout 60 ucmatose -s "$SRV" -p 7471 -c 1 -C 0 >"$R/$name-c" 2>&1
	rc=$?
	wait "$pid"
	src=$?
	grep -o '\(active\|passive\) rdma mode: .*' "$T/trace" >"$R/$name.trace"
	if (( rc != 0 || src != 0 )); then
		sed "s/^/  client: /" "$R/$name-c"
		sed "s/^/  server: /" "$R/$name-s"
		fail "$name: ucmatose client rc $rc, server rc $src"
	fi
	sed "s/^/  $name: /" "$R/$name.trace"
}

# expect NAME ROLE REGEX [IDS]: the ROLE side's trace line matches REGEX;
# IDS, the requirement IDs the line asserts, lead the failure message.
expect() {
	grep -Eq "^$2 rdma mode: $3" "$R/$1.trace" ||
		fail "${4:+$4: }$1: no '$2 rdma mode: $3' line"
}
# expect_none NAME ROLE: that side is not siw2 (no trace line).
expect_none() {
	! grep -q "^$2 " "$R/$1.trace" || fail "$1: unexpected $2 siw2 line"
}

# --- siw2 <-> siw2
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a not ACTIVE"
wait_port_active s2b || fail "s2b not ACTIVE"

defaults
connect s2-default
expect s2-default active 'rev 2 crc 0 p2p 0 rtr 0x0 .* caps 0x6'
expect s2-default passive 'rev 2 crc 0 p2p 0 rtr 0x0 .* caps 0x6'

param mpa_rev 1
connect s2-rev1
# MPA2-HDR-4, MPA2-IOP-1: wanting no enhanced feature, the Initiator keeps Rev 1.
expect s2-rev1 active 'rev 1 crc 0 p2p 0 rtr 0x0 .* caps 0x0' 'MPA2-HDR-4, MPA2-IOP-1'
# MPA2-HDR-5, MPA2-IOP-2: the Responder accepts the Rev 1 Request.
expect s2-rev1 passive 'rev 1 crc 0 p2p 0 rtr 0x0 .* caps 0x0' 'MPA2-HDR-5, MPA2-IOP-2'

param mpa_crc 1
connect s2-rev1-crc
expect s2-rev1-crc active 'rev 1 crc 1 '
expect s2-rev1-crc passive 'rev 1 crc 1 '

param mpa_rev 2
param mpa_caps 4
connect s2-crc-caps4
expect s2-crc-caps4 active 'rev 2 crc 1 p2p 0 rtr 0x0 .* caps 0x4'
expect s2-crc-caps4 passive 'rev 2 crc 1 p2p 0 rtr 0x0 .* caps 0x4'

defaults
param peer_to_peer 1
connect s2-p2p-write
expect s2-p2p-write active 'rev 2 crc 0 p2p 1 rtr 0x2 '
# MPA2-P2P-2: with peer_to_peer the Request has A=1 (else no p2p at the Responder).
expect s2-p2p-write passive 'rev 2 crc 0 p2p 1 rtr 0x2 ' 'MPA2-P2P-2'

param rtr_forms 4
param mpa_crc 1
connect s2-p2p-read-crc
expect s2-p2p-read-crc active 'rev 2 crc 1 p2p 1 rtr 0x4 '
expect s2-p2p-read-crc passive 'rev 2 crc 1 p2p 1 rtr 0x4 '

param mpa_crc 2
param rtr_forms 2
connect s2-p2p-write-nocrc
expect s2-p2p-write-nocrc active 'rev 2 crc 0 p2p 1 rtr 0x2 '

# --- siw2 client -> Linux siw server
siw2_link_del s2a || fail "link delete s2a"
siw_link_add pa siw_a pa-v || fail "rdma link add siw_a"
wait_port_active siw_a || fail "siw_a not ACTIVE"

defaults
connect siw-srv-default
expect siw-srv-default active 'rev 2 crc 0 p2p 0 rtr 0x0 .* caps 0x0'
expect_none siw-srv-default passive
param mpa_rev 1
connect siw-srv-rev1
# MPA2-HDR-4, MPA2-IOP-1: Rev 1 on the wire (siw's Reply echoes the Request's Rev).
expect siw-srv-rev1 active 'rev 1 crc 0 p2p 0 ' 'MPA2-HDR-4, MPA2-IOP-1'
param mpa_rev 2
param mpa_crc 1
connect siw-srv-crc
expect siw-srv-crc active 'rev 2 crc 1 p2p 0 '
# No peer-to-peer against siw: as Responder, siw sends its Reply before it
# routes the socket to its RTR handler, and an RTR arriving in between is
# dropped (siw_cm_llp_data_ready ignores data in RDMA_MODE). siw2 then
# times out and resets; siw reports CLOSE to an IWCM id still in CONN_RECV
# and hits the BUG() in cm_close_handler (seen with the Read RTR, 6.12.117).
# siw2's RTR bytes are checked against the fake peer (54-cm-hostile.sh).

# --- Linux siw client -> siw2 server
siw_link_del siw_a || fail "link delete siw_a"
siw2_link_del s2b || fail "link delete s2b"
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw_link_add pb siw_b pb-v || fail "rdma link add siw_b"
wait_port_active s2a || fail "s2a not ACTIVE"
wait_port_active siw_b || fail "siw_b not ACTIVE"

defaults
connect siw-cli-default
expect siw-cli-default passive 'rev 2 crc 0 p2p 0 rtr 0x0 .* caps 0x0'
expect_none siw-cli-default active
param mpa_crc 1
connect siw-cli-crc
expect siw-cli-crc passive 'rev 2 crc 1 p2p 0 '

siw_link_del siw_b || fail "link delete siw_b"
siw2_link_del s2a || fail "link delete s2a"
echo 0 >"$T/events/siw2/siw2_cep_conn/enable"
siw2_assert_zero_counts
siw2_unload
siw_peer_unload
log "ok"
