#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Memory windows (type 2A) from user space over siw2 (issue 19: the
# handles a peer may invalidate remotely, RPCRDMA2-INV-3).
# tests/progs/siw2_mw: the owner in namespace pa (s2a) binds a window onto
# its MR with IBV_WR_BIND_MW, the peer in pb (s2b) reaches memory through
# it: Write and Read inside it; the MR cannot be deregistered while the
# window is bound (EBUSY); the peer's Send with Invalidate of the window's
# rkey arrives as IBV_WC_WITH_INV with that rkey and the window is closed
# after it; a read-only window refuses a Write; the previous key fails
# after Local Invalidate and a rebind; a Write across the window's end
# fails; a window's rkey is no local key; binds beyond the MR or onto an
# MR without MW_BIND complete IBV_WC_MW_BIND_ERR; type 1 windows and
# ibv_bind_mw() are refused.  Each forbidden access fails the peer's
# connection and leaves the owner's memory as it was.  Then no object is
# left on either device.
# timeout: 240
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

MW=$SIW2_PROGS/siw2_mw
[[ -x $MW ]] || fail "$MW not built (run make)"
R=$SIW2_RESULTS

siw2_load
cm_ns_pair pa pb 77
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a not ACTIVE"
wait_port_active s2b || fail "s2b not ACTIVE"

ip netns exec pa timeout $((120 * ${SIW2_TIMEOUT_SCALE:-1})) "$MW" server 198.18.77.1 7077 >"$R/owner.txt" 2>&1 &
spid=$!
wait_until 20 eval "grep -q listening '$R/owner.txt' || ! kill -0 $spid 2>/dev/null" ||
	fail "owner not listening"
ip netns exec pb timeout $((120 * ${SIW2_TIMEOUT_SCALE:-1})) "$MW" client 198.18.77.1 7077 >"$R/peer.txt" 2>&1
prc=$?
reap src "$spid" 60
sed 's/^/  owner: /' "$R/owner.txt"
sed 's/^/  peer: /' "$R/peer.txt"
(( prc == 0 )) || fail "the peer failed (exit $prc)"
(( src == 0 )) || fail "the owner failed (exit $src)"
grep -q '^owner: [0-9]* passed' "$R/owner.txt" || fail "the owner did not finish"
grep -q 'IBV_WC_WITH_INV, its rkey' "$R/owner.txt" || fail "no remote invalidation seen"

cm_assert_siw2_objects 30 s2a
cm_assert_siw2_objects 30 s2b
siw2_link_del s2a
siw2_link_del s2b
siw2_assert_zero_counts
siw2_unload
log "ok: memory windows: bind, remote access inside only, remote and local invalidation, rebind with new keys, refused binds"
