#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# RPC-over-RDMA Version 2 in user space (tools/rpcrdma, issue 19 parts
# 2-4), both ends this library, over siw2: rr-echo-srv in namespace pa on
# s2a (198.18.76.1), the clients in pb on s2b.
#  1. rr-echo-test offering Version 2 to a server of Versions 1-2: the
#     CONNPROP exchange (RBSIZ 4096, BRS none), ECHO with the payload
#     inline, the Call as a Position-Zero Read chunk, the argument as a
#     Read chunk at its XDR position, the result in a Write chunk, the
#     Reply in a Reply chunk (1 octet to 200,000), every byte compared;
#     the same through memory windows, each Reply a Send with Invalidate
#     of the window the Call named (rdma_inv_handle, RPCRDMA2-INV-*);
#     ECHO_VIA_CB: the server has the client echo the argument by a
#     reverse-direction Call first (RPCRDMA2-BIDIR-1, BRS inline);
#     then each RDMA2_ERROR a requester can draw: ERR_VERS (rdma_vers 3),
#     ERR_INVAL_HTYPE, ERR_BAD_XDR, ERR_READ_CHUNKS, ERR_WRITE_CHUNKS,
#     ERR_SEGMENTS, ERR_SYSTEM, ERR_WRITE_RESOURCE and ERR_REPLY_RESOURCE
#     (each followed by the retry under the same XID with room), the
#     connection serving a call after each;
#  2. the same offering Version 1 (every error but ERR_VERS is ERR_CHUNK);
#  3. offering Version 2 to a Version 1 only server (rr-echo-srv -V 1):
#     ERR_VERS, and the library reconnects with Version 1; and to one that
#     closes the connection instead (-D): the same (RPCRDMA2-VER-5);
#     against a server taking no Read or Write chunk (-r 0 -w 0): the
#     requester's retries (a Reply chunk instead of the refused Write
#     chunk; the Call as a Position-Zero Read chunk, refused again, the
#     RPC failing: RPCRDMA2-ERR-5, -6);
#  4. siw2-rpcping: 200 NFS NULL calls and 50 ECHOs of 64 KiB against the
#     Version 2 server: the version, the properties and the percentiles.
# The server's per-connection account must show what the client did
# (versions, CONNPROPs, chunks, errors).  No siw2 object left.
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

RRD=$SIW2_TOP/tools/rpcrdma
for p in rr-echo-srv rr-echo-test siw2-rpcping; do
	[[ -x $RRD/$p ]] || fail "$RRD/$p not built (run make)"
done
R=$SIW2_RESULTS
SRV=198.18.76.1

siw2_load
cm_ns_pair pa pb 76
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a not ACTIVE"
wait_port_active s2b || fail "s2b not ACTIVE"

ip netns exec pa timeout 600 "$RRD/rr-echo-srv" -p 20050 >"$R/srv-v2.log" 2>&1 &
s2=$!
ip netns exec pa timeout 600 "$RRD/rr-echo-srv" -p 20051 -V 1 >"$R/srv-v1.log" 2>&1 &
s1=$!
ip netns exec pa timeout 600 "$RRD/rr-echo-srv" -p 20052 -V 1 -D >"$R/srv-drop.log" 2>&1 &
sd=$!
ip netns exec pa timeout 600 "$RRD/rr-echo-srv" -p 20053 -r 0 -w 0 >"$R/srv-nochunk.log" 2>&1 &
sn=$!
wait_until 20 eval "grep -q listening '$R/srv-v2.log' && grep -q listening '$R/srv-v1.log' &&
	grep -q listening '$R/srv-drop.log' && grep -q listening '$R/srv-nochunk.log'" ||
	{ cat "$R"/srv-*.log; fail "rr-echo-srv not listening"; }

FAILED=()
# run NAME CMD...: a client in pb; its output kept, failures recorded.
run() {
	local name=$1
	shift
	if ! ip netns exec pb timeout $((120 * ${SIW2_TIMEOUT_SCALE:-1})) "$@" >"$R/$name.txt" 2>&1; then
		sed 's/^/  /' "$R/$name.txt"
		FAILED+=("$name")
		return 1
	fi
	grep -E '^(#|[0-9]+ passed)|round trip|properties|version' "$R/$name.txt" | sed "s/^/  $name: /"
}

run test-v2 "$RRD/rr-echo-test" -v 2 -p 20050 "$SRV"
grep -q '^# version 2 (offered 2; peer RBSIZ 4096 BRS 0)' "$R/test-v2.txt" ||
	FAILED+=("test-v2: not Version 2 with the server's properties")
run test-v1 "$RRD/rr-echo-test" -v 1 -p 20050 "$SRV"
run test-down "$RRD/rr-echo-test" -v 2 -e 1 -p 20051 "$SRV"
grep -q '^# version 1 (offered 2; ERR_VERS 1-1)' "$R/test-down.txt" ||
	FAILED+=("test-down: no ERR_VERS 1-1 before Version 1")
run test-drop "$RRD/rr-echo-test" -v 2 -e 1 -p 20052 "$SRV"
grep -q '^# version 1 (offered 2; first message unanswered)' "$R/test-drop.txt" ||
	FAILED+=("test-drop: no fallback after the lost first message")
run test-retry "$RRD/rr-echo-test" -v 2 -R -p 20053 "$SRV"
run ping-null "$RRD/siw2-rpcping" -c 200 -p 20050 "$SRV"
run ping-echo "$RRD/siw2-rpcping" -c 50 -s 65536 -p 20050 "$SRV"
for f in ping-null ping-echo; do
	grep -q 'RPC-over-RDMA version 2 (offered 2)' "$R/$f.txt" || FAILED+=("$f: not Version 2")
	grep -q 'server properties: RBSIZ 4096, BRS none' "$R/$f.txt" || FAILED+=("$f: properties")
	grep -Eq '^[0-9]+ calls of .*p50 [0-9.]+ p90 [0-9.]+ p99' "$R/$f.txt" || FAILED+=("$f: no percentiles")
done

kill "$s2" "$s1" "$sd" "$sn" 2>/dev/null
wait "$s2" "$s1" "$sd" "$sn" 2>/dev/null
sed 's/^/  server v1-2: /' "$R/srv-v2.log"
sed 's/^/  server v1: /' "$R/srv-v1.log"
# The server's account of the first connection (rr-echo-test -v 2): one
# CONNPROP, Read, Write and Reply chunks, and the errors it answered.
acct=$(grep -m1 '^connection: version 2' "$R/srv-v2.log")
[[ $acct =~ 1\ connprops,\ ([0-9]+)\ read\ chunks,\ ([0-9]+)\ write\ chunks,\ ([0-9]+)\ reply\ chunks ]] &&
	(( BASH_REMATCH[1] >= 3 && BASH_REMATCH[2] >= 2 && BASH_REMATCH[3] >= 2 )) ||
	FAILED+=("server account of the Version 2 connection: '$acct'")
[[ $acct =~ ,\ ([0-9]+)\ callbacks ]] && (( BASH_REMATCH[1] == 1 )) ||
	FAILED+=("server account: not 1 reverse-direction Call answered: '$acct'")
[[ $acct =~ ,\ ([0-9]+)\ invalidations ]] && (( BASH_REMATCH[1] == 3 )) ||
	FAILED+=("server account: not 3 Replies by Send with Invalidate: '$acct'")
[[ $acct =~ ,\ ([0-9]+)\ errors ]] && (( BASH_REMATCH[1] >= 10 )) ||
	FAILED+=("server answered fewer than 10 errors: '$acct'")
grep -q '^connection: version 1' "$R/srv-v1.log" || FAILED+=("the Version 1 server saw no Version 1 connection")

cm_assert_siw2_objects 30 s2a
cm_assert_siw2_objects 30 s2b
siw2_link_del s2a
siw2_link_del s2b
siw2_assert_zero_counts
siw2_unload
if (( ${#FAILED[@]} )); then
	printf 'failed: %s\n' "${FAILED[@]}" >&2
	fail "${#FAILED[@]} checks failed"
fi
log "ok: RPC-over-RDMA Version 2 between this library's ends, Version 1, negotiation down, every error path, siw2-rpcping"
