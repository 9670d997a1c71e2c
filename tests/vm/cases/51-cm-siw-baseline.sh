#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Connection setup baseline between two Linux siw devices (the peer of
# 50-siw-peer.sh), driven by siw2_cmtest through librdmacm and lib-cm.sh:
# the cm_matrix rows (private data both ways and in rejects, IRD/ORD with
# either side larger, IPv4 and IPv6, wildcard and specific listens, who
# disconnects, abortive close, 200 connect/disconnect cycles), then rows
# pinning down what siw does at its limits.  Afterwards no cm_id, QP or
# other resource may be left on either device.  Servers run in pa
# (198.18.5.1, fd00:5::1), clients in pb.  It is the reference the siw2
# connection manager's cases are written against.
#
# Linux siw behaviour seen here (siw of 6.12.117, rdma-core 44, TCG guest):
#  - Private data: CONNECT_REQUEST, ESTABLISHED and REJECTED report exactly
#    the bytes the peer passed to rdma_connect/rdma_accept/rdma_reject,
#    unpadded (0, 1, 200, 251 checked byte by byte); the rdma_cm adds no
#    header on iWARP and siw strips its 4-byte MPA v2 IRD/ORD block.
#  - 252 to 255 bytes fail: siw_send_mpareqrep() adds the 4-byte MPA v2
#    block to a u8 length, which wraps (252 + 4 = 0 in the MPA header while
#    256 bytes follow).  A 252-byte request: the server never sees a
#    CONNECT_REQUEST (the frame is a protocol error there), the client gets
#    REJECTED status -104 (ECONNRESET).  A reject with 252 bytes: the server's
#    rdma_reject() succeeds; the client gets REJECTED -104 with 0 bytes or
#    CONNECT_ERROR -22 (EINVAL), varying from run to run; 253/255 bytes gave
#    CONNECT_ERROR -22.  So 251 is the largest private data siw<->siw moves.
#  - A reject is REJECTED with status -104 (ECONNRESET) on the client, over
#    IPv4 and IPv6, carrying the rejecting side's private data.
#  - IRD/ORD (IRD = conn_param.responder_resources, ORD = initiator_depth):
#    the server's CONNECT_REQUEST shows them from its own side:
#    responder_resources = client's ORD, initiator_depth = client's IRD
#    (client --ird 2 --ord 3 -> REQ initiator_depth=2 responder_resources=3).
#    siw negotiates "relaxed" (siw_accept): the server's IRD is raised to
#    the client's ORD, its ORD lowered to the client's IRD.  The client's
#    ESTABLISHED then shows responder_resources = server's final IRD and
#    initiator_depth = server's final ORD; the server's own ESTABLISHED
#    (siw2_cmtest -v) shows initiator_depth = its IRD, responder_resources =
#    its ORD (the kernel rdma_cm labels IRD "initiator_depth" there):
#      client 2/3, server 5/7 -> REQ 2/3, server EST 5/2, client EST 2/5
#      client 9/11, server 2/3 -> REQ 9/11, server EST 11/3, client EST 3/11
#    (pairs are initiator_depth/responder_resources).  0/0 stays 0/0.
#    The device maximum is 128 each way; librdmacm refuses larger values
#    (rdma_connect/rdma_accept fail with EINVAL before the kernel sees
#    them), and 255 means "device maximum" on connect (REQ 128/128) and
#    "what the request asked for, capped" on accept.
#  - Wildcard listens (0.0.0.0, ::) need distinct netdev ifindexes on the
#    two devices (cm_ns_pair): the rdma_cm listens on every device and siw
#    creates each listening socket in the listener's namespace bound to the
#    device's ifindex; with ns_pair's veths (ifindex 2 in both namespaces)
#    rdma_listen fails with EADDRINUSE ("cma_listen_on_dev, error -98").
#  - IPv6 works like IPv4 (specific and wildcard listens, rejects,
#    server-side disconnect).  An IPv4 client to a "::" listener is not
#    served: the TCP connection is accepted (the socket is not v6-only) but
#    the server never gets a CONNECT_REQUEST and the client gets REJECTED
#    -104.  An IPv6 client to a 0.0.0.0 listener is refused.
#  - No listener: rdma_connect() itself fails with ECONNREFUSED (siw
#    connects the TCP socket inside the call); there is no event.  An
#    on-link address nobody answers: ADDR_ERROR status -110 (ETIMEDOUT)
#    after the rdma_resolve_addr timeout; an address without a route:
#    rdma_resolve_addr() fails at once with ENETUNREACH.
#  - The first connection to a peer whose neighbour (ARP/ND) entry is not
#    cached waits for the whole rdma_resolve_addr timeout: ADDR_RESOLVED
#    arrives when the timeout runs out, not when the neighbour resolves
#    (timeouts 300, 500, 2000, 5000 ms gave ADDR_RESOLVED after 0.42, 0.70,
#    2.1, 5.2 s; rdma_cm core, not siw).  With a cached neighbour a whole
#    connection takes 20-60 ms.
#  - Disconnects: whichever side calls rdma_disconnect, both get
#    DISCONNECTED with status 0.  An abortive close (client destroys QP and
#    id without rdma_disconnect) gives the server DISCONNECTED status 0 too.
#  - 200 cycles take about 1.5 s (1000 about 12 s, measured separately);
#    starting each program costs about 1 s under TCG, so a row costs 1.5 to
#    4 s whatever it does.
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip timeout
[[ -x $CM_PROG ]] || fail "siw2_cmtest not built (make progs)"
siw_peer_load
log "siw loaded from $(siw_peer_ko)"
cm_ns_pair pa pb 5
A4=198.18.5.1 A6=fd00:5::1
siw_link_add pa siw_a pa-v || fail "rdma link add siw_a"
siw_link_add pb siw_b pb-v || fail "rdma link add siw_b"
wait_port_active siw_a || fail "siw_a port not ACTIVE"
wait_port_active siw_b || fail "siw_b port not ACTIVE"
rdma link show

CM_SRV_NS=pa CM_CLI_NS=pb CM_ADDR4=$A4 CM_ADDR6=$A6
CM_PD_SIZES="0 1 200 251"	# 252..255 hit siw's u8 wrap, see above
CM_CYCLES=200
CM_KEEP_GOING=1
cm_matrix

# --- siw at its limits (each row documents a behaviour listed above)
# The server's 3 s wait as siw2_cmtest reports it (stretched on a slow
# kernel: 24 s on the debug lane).
T3=$((3 * ${SIW2_TIMEOUT_SCALE:-1}))
# 252 bytes: the server never sees the request, the client is reset.
cm_pair siw-pd-252 "-a $A4 -t 3 -E 252" "-a $A4 -P 252 --expect-fail REJECTED" 1 0 &&
	cm_grep siw-pd-252 srv "timeout \\(${T3} s\\) waiting for CONNECT_REQUEST" &&
	cm_grep siw-pd-252 cli '^FAILED event=REJECTED status=-104 '
# A reject with 252 bytes: REJECTED or CONNECT_ERROR, varying.
cm_pair siw-reject-pd-252 "-a $A4 --reject -R 252" \
	"-a $A4 --expect-fail REJECTED,CONNECT_ERROR"
# Reject status and private data over IPv6 (cm_matrix checked the data).
cm_grep ipv6-reject cli '^REJ status=-104 pd=17$'
cm_grep reject-pd-200 cli '^REJ status=-104 pd=200$'
# How the IRD/ORD values arrive (cm_matrix checked the same numbers).
cm_grep irdord-srv-larger srv '^REQ pd=0 initiator_depth=2 responder_resources=3$'
cm_grep irdord-srv-larger cli '^EST pd=0 initiator_depth=2 responder_resources=5$'
# 255 = the device maximum, 128.
cm_pair irdord-max "-a $A4 --ird 255 --ord 255 --expect-req-ird 128 --expect-req-ord 128" \
	"-a $A4 --ird 255 --ord 255 --expect-est-ird 128 --expect-est-ord 128"
# Over the device maximum: librdmacm refuses it.
cm_client irdord-over-max "-a $A4 --ird 129 --expect-fail EINVAL"
# An IPv4 client to an IPv6 wildcard listener.
cm_pair wild6-v4-client "-a :: -t 3" "-a $A4 --expect-fail REJECTED" 1 0 &&
	cm_grep wild6-v4-client srv "timeout \\(${T3} s\\) waiting for CONNECT_REQUEST" &&
	cm_grep wild6-v4-client cli '^FAILED event=REJECTED status=-104 '
# No listener: a synchronous ECONNREFUSED from rdma_connect.
cm_client no-listener "-a $A4 --expect-fail REJECTED,ECONNREFUSED" &&
	cm_grep no-listener cli '^FAILED call=rdma_connect errno=ECONNREFUSED$'
cm_client no-listener6 "-a $A6 --expect-fail REJECTED,ECONNREFUSED"
# Nobody owns the address: ADDR_ERROR -110 after the resolve timeout.
cm_client no-host "-a 198.18.5.77 --resolve-ms 500 --expect-fail ADDR_ERROR" &&
	cm_grep no-host cli '^FAILED event=ADDR_ERROR status=-110 '
# More aborts and server-side disconnects than cm_matrix's five.
cm_pair client-aborts-50 "-a $A4 -q -c 50" "-a $A4 -q -c 50 --abort"
cm_pair server-disconnects-50 "-a $A6 -q -c 50 --server-disconnects" \
	"-a $A6 -q -c 50 --server-disconnects"

cm_summary

# --- nothing left behind, then the devices and siw go away cleanly.
cm_assert_no_resources 20 siw_a siw_b
rdma resource show
timeout 60 rdma link delete siw_a || fail "rdma link delete siw_a"
timeout 60 rdma link delete siw_b || fail "rdma link delete siw_b"
wait_until 10 eval '! [[ -e /sys/class/infiniband/siw_a || -e /sys/class/infiniband/siw_b ]]' ||
	fail "siw devices still present"
siw_peer_unload
log "siw<->siw connection baseline ok"
