#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The user-space RPC-over-RDMA library (tools/rpcrdma) against a server
# nobody here wrote: the kernel's nfsd over siw2 (issue 19, part 3).
# nfsd, rpcbind and rpc.mountd in namespace pa on s2s (pa-v, 198.18.75.2);
# tools/rpcrdma/rr-nfs3 in the initial namespace on s2c (c0, 198.18.75.1).
# rr-nfs3 gets the export's root handle from MOUNT over TCP, then, over
# RDMA, offers Version 2 first (a CONNPROP, RPCRDMA2-VER-2): nfsd speaks
# Version 1 only and answers ERR_VERS, and the library reconnects with
# Version 1 (VER-4, VER-6).  Then NFSv3 NULL inline and as a Position-Zero
# Read chunk (nfsd pulls the Call with RDMA Read), GETATTR of the root
# with a Reply chunk (nfsd writes the Reply), LOOKUP and GETATTR of each
# file, and READ of all of it through Write chunks and of its start
# inline; every byte is compared with the file's copy.  Files: 1 octet,
# 4 KiB, 777,777 octets, 4 MiB + 1.  Again offering Version 1 only (no
# ERR_VERS).  Then siw2-rpcping: 100 NFS NULL calls, Version 1 after
# ERR_VERS, no properties, round-trip percentiles.  No siw2 object left;
# kernel log clean (the harness).
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"
source "$SIW2_TOP/tests/vm/lib-nfs.sh"

need rdma ip exportfs rpc.mountd rpcbind sha256sum timeout
RR=$SIW2_TOP/tools/rpcrdma/rr-nfs3
[[ -x $RR ]] || fail "$RR not built (run make)"
R=$SIW2_RESULTS
CLI=198.18.75.1 SRV=198.18.75.2
EXP=/srv/nfs75 SRC=/tmp/nfs75-src

siw2_load
for m in sunrpc nfsd rpcrdma; do
	modprobe "$m" || fail "modprobe $m"
done
nfs_topology "$CLI" "$SRV"
siw2_link_add pa s2s pa-v || fail "rdma link add s2s"
siw2_link_add - s2c c0 || fail "rdma link add s2c"
wait_port_active s2s || fail "s2s not ACTIVE"
wait_port_active s2c || fail "s2c not ACTIVE"

cleanup() {
	local rc=$?
	(( rc == 0 )) && return
	dmesg >"$R/dmesg.txt"
	nfsd_stop 2>/dev/null
	mountd_stop
	rpcbind_stop
}
trap cleanup EXIT

mkdir -p "$EXP" "$SRC" || fail "mkdir"
mount -t tmpfs -o size=64m nfs75 "$EXP" || fail "tmpfs on $EXP"
chmod 0755 "$EXP"
NAMES=(f1 f4k f777777 f4m)
SIZES=(1 4096 777777 4194305)
for i in "${!NAMES[@]}"; do
	head -c "${SIZES[i]}" /dev/urandom >"$SRC/${NAMES[i]}" || fail "urandom"
	cp "$SRC/${NAMES[i]}" "$EXP/" || fail "cp"
done
rpcbind_start
srv "exportfs -o ro,fsid=75,no_root_squash,insecure,no_subtree_check 198.18.75.0/24:$EXP" || fail "exportfs"
mountd_start
wait_until 10 eval "ip netns exec pa rpcinfo -p 127.0.0.1 2>/dev/null | grep -q mountd" ||
	{ cat "$R/mountd.log" >&2; fail "mountd not registered"; }
nfsd_start "+3 -4"
# The neighbour first (case 64).
timeout 5 bash -c ": 2>/dev/null >/dev/tcp/$SRV/9" 2>/dev/null

FAILED=()
for v in 2 1; do
	for n in "${NAMES[@]}"; do
		o=$R/rr-nfs3-v$v-$n.txt
		if ! timeout $((60 * ${SIW2_TIMEOUT_SCALE:-1})) "$RR" -v "$v" "$SRV" "$EXP" "$n" "$SRC/$n" >"$o" 2>&1; then
			sed 's/^/  /' "$o"
			FAILED+=("offering v$v, $n")
			continue
		fi
		grep -q '^ok$' "$o" || FAILED+=("offering v$v, $n: no final ok")
		ver=$(sed -n 's/^version \([0-9]*\) .*/\1/p' "$o")
		[[ $ver == 1 ]] || FAILED+=("offering v$v, $n: version '$ver', nfsd speaks 1")
		if [[ $v == 2 ]]; then
			grep -q 'ERR_VERS: the server speaks 1-1' "$o" ||
				FAILED+=("offering v2, $n: no ERR_VERS seen")
		fi
		grep -q '^NULL: ok (call read chunk' "$o" || FAILED+=("offering v$v, $n: NULL not sent as a read chunk")
		grep -q '^GETATTR /: type 2 .*reply reply chunk)' "$o" || FAILED+=("offering v$v, $n: no GETATTR through a reply chunk")
		grep -q "^READ $n: .* through Write chunks, equal" "$o" || FAILED+=("offering v$v, $n: READ through write chunks")
	done
	log "offering version $v: $(sed -n 's/^version //p' "$R/rr-nfs3-v$v-f777777.txt")"
done
sed 's/^/  /' "$R/rr-nfs3-v2-f4m.txt"
# siw2-rpcping against nfsd: NFS NULL, negotiated down to Version 1.
o=$R/rpcping-nfsd.txt
if timeout $((60 * ${SIW2_TIMEOUT_SCALE:-1})) "$SIW2_TOP/tools/rpcrdma/siw2-rpcping" -c 100 "$SRV" >"$o" 2>&1; then
	sed 's/^/  /' "$o"
	grep -q 'RPC-over-RDMA version 1 (offered 2; the server speaks 1-1)' "$o" ||
		FAILED+=("siw2-rpcping: not Version 1 after ERR_VERS")
	grep -q 'server properties: none' "$o" || FAILED+=("siw2-rpcping: properties from a Version 1 server")
	grep -Eq '^100 calls of NFS NULL: .*p50 [0-9.]+ p90 [0-9.]+ p99' "$o" ||
		FAILED+=("siw2-rpcping: no percentiles")
else
	cat "$o"
	FAILED+=("siw2-rpcping against nfsd failed")
fi

nfsd_stop
mountd_stop
rpcbind_stop
srv 'exportfs -ua'
cm_assert_siw2_objects 30 s2c
cm_assert_siw2_objects 30 s2s
rdma link delete s2c || fail "rdma link delete s2c"
rdma link delete s2s || fail "rdma link delete s2s"
siw2_assert_zero_counts
siw2_unload
trap - EXIT
if (( ${#FAILED[@]} )); then
	printf 'failed: %s\n' "${FAILED[@]}" >&2
	fail "${#FAILED[@]} checks failed"
fi
log "ok: rr-nfs3 against nfsd over siw2, negotiated down to Version 1, ${#NAMES[@]} files read and compared, offering 2 and 1"
