#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# siw2 <-> Linux siw connection setup through librdmacm (siw2_cmtest,
# lib-cm.sh), siw2 once as the server and once as the client; servers in pa
# (198.18.12.1, fd00:12::1), clients in pb:
#   part 1: Linux siw client (siw_b) -> siw2 server (s2a)
#   part 2: siw2 client (s2b) -> Linux siw server (siw_a)
# Each part runs the cm_matrix rows: private data of 0, 1, 200 and 251
# octets both ways and one way only (251 is the most Linux siw can send,
# see case 51), rejects carrying 0/1/200/251 octets, IRD/ORD with either
# side larger (DEC-2 relaxed negotiation, MPA2-IRD-1..8), IPv4 and IPv6,
# specific and wildcard listens, who closes (client, server, abortive
# client), 200 connect/disconnect cycles; then 252 octets from siw2 to siw
# (siw receives up to 256 octets of PD_Length), CRC asked for by siw2
# (mpa_crc=1, BASE-MPA-4; siw follows), each side closing right behind 16
# sends that the other must all receive (SIW2-DEC-3), and a leak check on
# the siw2 side:
# debugfs counts 0, "rdma resource show" empty, only TIME-WAIT TCP sockets,
# and at the end both modules unload.  Linux siw has no runtime policy
# knobs (MPA Rev 2, CRC only if asked, no peer-to-peer); peer_to_peer stays
# off: against siw it ends in a kernel BUG in iwcm (see 53-cm-mpa-params.sh).
#
# What each side reports (pairs are initiator_depth/responder_resources as
# librdmacm shows them; rdma_cm copies iw_cm_event.ird to initiator_depth):
#  - Reject status: siw2 as client reports a reject as REJECTED -111
#    (ECONNREFUSED), Linux siw as REJECTED -104 (ECONNRESET); both pass the
#    rejecting side's private data.
#  - Linux siw client, siw2 server (client ird/ord 9/11, server 2/3): the
#    server settles IRD 11 ORD 3 (EST 11/3); siw adopts the server's values
#    (IRD = server ORD 3, ORD = server IRD 11; EST 3/11).  Client 2/3,
#    server 5/7: server IRD 5 ORD 2 (EST 5/2), siw IRD 2 ORD 5 (EST 2/5).
#  - siw2 client, Linux siw server: siw's REQ follows DEC-2 (client 9/11
#    -> REQ 9/11); siw relaxes like siw2 (server 2/3 -> IRD 11 ORD 3, EST
#    11/3); siw2 keeps its own IRD 9 ORD 11 (EST 9/11).
#  - the siw2 server's CONNECT_REQUEST must show the client's IRD/ORD as
#    siw's does (DEC-2: client 9/11 -> REQ 9/11); the "req-dec2-*" checks
#    pin that (siw2 before commit 91815e7 showed REQ 11/9, see case 55).
# timeout: 330
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip ss timeout awk
[[ -x $CM_PROG ]] || fail "siw2_cmtest not built (make progs)"
siw2_load
siw_peer_load
cm_ns_pair pa pb 12
A4=198.18.12.1 A6=fd00:12::1
P=/sys/module/siw2/parameters
param() { echo "$2" >"$P/$1" || fail "set $1=$2"; }
param peer_to_peer 0
param mpa_rev 2
param mpa_crc 0

CM_SRV_NS=pa CM_CLI_NS=pb CM_ADDR4=$A4 CM_ADDR6=$A6
CM_KEEP_GOING=1
CM_PD_SIZES="0 1 200 251"
CM_CYCLES=200

# leak_check IBDEV NS...: the siw2 device and the namespaces are idle.
leak_check() {
	local dev=$1 ns
	shift
	cm_assert_siw2_objects 20 "$dev"
	cm_assert_no_resources 20
	for ns in "$@"; do
		cm_assert_tcp_quiet 20 "$ns" 0
	done
	sed "s/^/  $dev: /" "$SIW2_DEBUGFS/$dev/objects" | tr -s '\n' ' '
	echo
}

# dec2_req ROW CLI_IRD CLI_ORD: the server's REQ line shows the client's IRD
# as initiator_depth and its ORD as responder_resources (DEC-2).
dec2_req() {
	cm_grep "$1" srv "^REQ pd=0 initiator_depth=$2 responder_resources=$3$" ||
		CM_FAILED[-1]="req-dec2-$1: REQ should show initiator_depth=$2 responder_resources=$3 (MPA2-IRD-1, DEC-2), got: $(grep '^REQ' "$CM_OUT/$1.srv")"
}

# ===== part 1: Linux siw client (pb) -> siw2 server (pa)
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw_link_add pb siw_b pb-v || fail "rdma link add siw_b"
wait_port_active s2a || fail "s2a port not ACTIVE"
wait_port_active siw_b || fail "siw_b port not ACTIVE"
rdma link show
CM_OUT=$SIW2_RESULTS/siw-to-siw2
# NAME CLI_IRD CLI_ORD SRV_IRD SRV_ORD REQ_IRD REQ_ORD EST_IRD EST_ORD
#      SEST_IRD SEST_ORD  (IRD = responder_resources, ORD = initiator_depth)
CM_IRDORD_ROWS="irdord-cli-larger 9 11 2 3 - - 11 3 3 11
irdord-srv-larger 2 3 5 7 - - 5 2 2 5
irdord-equal 4 4 4 4 4 4 4 4 4 4
irdord-zero 0 0 0 0 0 0 0 0 0 0"
log "part 1: Linux siw client -> siw2 server"
cm_matrix
for n in $CM_PD_SIZES; do
	cm_grep "reject-pd-$n" cli "^REJ status=-104 pd=$n$"
done
cm_grep ipv6-reject cli '^REJ status=-104 pd=17$'
cm_irdord_table
dec2_req irdord-cli-larger 9 11
dec2_req irdord-srv-larger 2 3
# siw2 accepts with 252 octets: siw takes a 256-octet PD_Length.
cm_pair s2-accept-pd-252 "-a $A4 -E 0 -R 252" "-a $A4 -P 0 -e 252"
cm_pair s2-reject-pd-252 "-a $A6 --reject -R 252" \
	"-a $A6 --expect-reject --reject-pd 252"
# CRC asked for by siw2 (as Responder it sets C in the Reply; siw follows).
param mpa_crc 1
cm_pair crc-pd-251 "-a $A4 -E 251 -R 251" "-a $A4 -P 251 -e 251"
cm_pair crc-cycles "-a $A4 -q -c 20" "-a $A4 -q -c 20"
param mpa_crc 0
# siw closes right behind 16 sends: siw2 receives them all (SIW2-DEC-3 on
# the receiving side; siw's user sends leave within ibv_post_send()).
cm_pair siw-close-behind-sends "-a $A4 -c 10 --sends 16" "-a $A4 -c 10 --sends 16"
cm_grep siw-close-behind-sends srv '^SENDS receive 16 ok$'
grep -h 'cmtest: client 200 ' "$CM_OUT/cycles-200.cli"
leak_check s2a pa pb
siw_link_del siw_b || fail "rdma link delete siw_b"
siw2_link_del s2a || fail "rdma link delete s2a"

# ===== part 2: siw2 client (pb) -> Linux siw server (pa)
siw_link_add pa siw_a pa-v || fail "rdma link add siw_a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active siw_a || fail "siw_a port not ACTIVE"
wait_port_active s2b || fail "s2b port not ACTIVE"
rdma link show
CM_OUT=$SIW2_RESULTS/siw2-to-siw
CM_IRDORD_ROWS="irdord-cli-larger 9 11 2 3 11 9 11 9 3 11
irdord-srv-larger 2 3 5 7 3 2 3 2 2 5
irdord-equal 4 4 4 4 4 4 4 4 4 4
irdord-zero 0 0 0 0 0 0 0 0 0 0"
log "part 2: siw2 client -> Linux siw server"
cm_matrix
for n in $CM_PD_SIZES; do
	cm_grep "reject-pd-$n" cli "^REJ status=-111 pd=$n$"
done
cm_grep ipv6-reject cli '^REJ status=-111 pd=17$'
cm_irdord_table
# siw2 sends 252 octets (PD_Length 256): siw passes them on.
cm_pair s2-connect-pd-252 "-a $A4 -E 252 -R 0" "-a $A4 -P 252 -e 0"
cm_pair s2-connect-pd-252-6 "-a $A6 -E 252 --reject -R 3" \
	"-a $A6 -P 252 --expect-reject --reject-pd 3"
# CRC asked for by siw2 as Initiator.
param mpa_crc 1
cm_pair crc-pd-251 "-a $A4 -E 251 -R 251" "-a $A4 -P 251 -e 251"
cm_pair crc-cycles "-a $A6 -q -c 20" "-a $A6 -q -c 20"
param mpa_crc 0
# siw2 closes right behind 16 sends (SIW2-DEC-3): siw gets all of them
# before the FIN.
cm_pair close-behind-sends "-a $A4 -c 10 --sends 16" "-a $A4 -c 10 --sends 16"
cm_grep close-behind-sends srv '^SENDS receive 16 ok$'
grep -h 'cmtest: client 200 ' "$CM_OUT/cycles-200.cli"
leak_check s2b pa pb
siw_link_del siw_a || fail "rdma link delete siw_a"
siw2_link_del s2b || fail "rdma link delete s2b"

wait_until 10 eval '! ls /sys/class/infiniband/ 2>/dev/null | grep -q .' ||
	fail "RDMA devices left: $(ls /sys/class/infiniband/)"
siw2_assert_zero_counts
siw2_unload
siw_peer_unload
cm_summary
log "siw2<->siw connection matrix ok"
