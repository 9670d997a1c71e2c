# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# RDMA Flush through the standard verb, ibv_wr_flush() (rdma-core 45 and
# later: Debian 13; tools/check-release.sh runs this case there, the vm
# stage on Debian 12 skips it), with tests/progs/verbs_flush, a program
# written only against <infiniband/verbs.h> and librdmacm. The server's
# "pm" window is a device-DAX namespace of the guest's emulated NVDIMM
# (pmem_devdax), registered with IBV_ACCESS_FLUSH_PERSISTENT; its "ram"
# window ordinary memory with IBV_ACCESS_FLUSH_GLOBAL.
#  s  siw2 to siw2 (namespaces pa and pb, default module parameters):
#     the client's QP is created with IBV_QP_EX_WITH_FLUSH; the device
#     reports both Flush placement types; a Write and a persistent range
#     Flush of it, then a Write and a global one of ram, complete in order
#     as IBV_WC_FLUSH; both read back; a Flush of a whole MR fails
#     ibv_wr_complete() with EOPNOTSUPP (DEC-18); a persistent Flush of
#     ram completes with IBV_WC_REM_ACCESS_ERR and the QP goes on: a global
#     one then succeeds (SIW2-DEC-2). The server finds both windows as
#     written. siw2_dp_commit shows the persistent Flush of pm answered
#     Status 0 and the three of ram Status 4.
#  r  the same binary against rdma_rxe (one device on a dummy netdev in the
#     initial namespace, where rxe works): the same checks, but rxe
#     flushes a whole MR (--mr-level ok) and moves the QP to the error
#     state after the access error (--after-error error).
# Then the links go, siw2's object counts are zero and both modules unload.
# timeout: 300
# pmem: 64M
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip
R=$SIW2_RESULTS
FV=$SIW2_PROGS/verbs_flush
T=/sys/kernel/tracing
if [[ ! -x $FV ]]; then
	grep -q IBV_QP_EX_WITH_FLUSH /usr/include/infiniband/verbs.h 2>/dev/null &&
		fail "$FV not built although this rdma-core has ibv_wr_flush() (make progs)"
	skip "rdma-core $(dpkg-query -W -f '${Version}' libibverbs1 2>/dev/null) has no ibv_wr_flush() (rdma-core 45 or later; the vm13 stage runs this case on Debian 13)"
fi

bad=()
bad() { bad+=("$*"); log "FAILED: $*"; }
show() {
	local f
	for f in "$@"; do
		[[ -s $R/$f ]] && tail -n 15 "$R/$f" | sed "s|^|  $f: |"
	done
	return 0
}

# flush_run NAME SRVNS ADDR PORT CLINS CLIENT-ARGS...: one server, one
# client; both must exit 0 and the server must find both windows written.
flush_run() {
	local name=$1 sns=$2 addr=$3 port=$4 cns=$5 sp rc
	shift 5
	in_ns "$sns" timeout 120 "$FV" -s -a "$addr" -p "$port" --dax "$PMEM_DAX" \
		>"$R/$name.s" 2>&1 &
	sp=$!
	if ! wait_until 20 grep -q '^LISTENING' "$R/$name.s"; then
		bad "$name: server not listening"
		show "$name.s"
		kill "$sp" 2>/dev/null
		wait "$sp"
		return 1
	fi
	in_ns "$cns" timeout 60 "$FV" -a "$addr" -p "$port" "$@" >"$R/$name.c" 2>&1
	rc=$?
	(( rc == 0 )) || { bad "$name: client rc $rc"; show "$name.c"; }
	wait "$sp" || { bad "$name: server rc $?"; show "$name.s"; }
	grep -q '^FLUSHV OK side=client steps=7$' "$R/$name.c" ||
		bad "$name: the client did not pass its 7 steps (SIW2-DEC-2, DEC-18)"
	grep -q '^FLUSHV WIN pm=ok ram=ok$' "$R/$name.s" ||
		bad "$name: the server's windows do not hold what was written and flushed (COMMIT-DUR-1)"
	log "$name: $(sed -n 's/^FLUSHV PASS //p' "$R/$name.c" | tr '\n' ' ')"
}

pmem_devdax 4K
log "pmem: $PMEM_DAX at $PMEM_START, $PMEM_SIZE octets"

# ---------------------------------------------------------------- s
siw2_load
echo 1 >"$T/events/siw2/siw2_dp_commit/enable" || fail "enable siw2_dp_commit"
echo >"$T/trace"
cm_ns_pair pa pb 82
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a port not ACTIVE"
wait_port_active s2b || fail "s2b port not ACTIVE"
flush_run siw2 pa 198.18.82.1 7820 pb --mr-level refused --after-error rts
grep -h 'siw2_dp_commit:' "$T/trace" >"$R/siw2-commit.trace"
echo 0 >"$T/events/siw2/siw2_dp_commit/enable"
# In order: pm 64 KiB persistent (Status 0), ram global (4), ram
# persistent (4, the access error), ram global again (4); the whole-MR
# Flush never left the client (DEC-18).
mapfile -t st < <(sed -n 's/.* len \([0-9]*\) lines [0-9]* status \([0-9]*\)$/\1:\2/p' "$R/siw2-commit.trace")
[[ "${st[*]}" == "65536:0 4096:4 4096:4 4096:4" ]] ||
	bad "SIW2-DEC-2: siw2 answered the Flushes as [${st[*]}] (len:Status), want [65536:0 4096:4 4096:4 4096:4]"

# ---------------------------------------------------------------- r
modprobe rdma_rxe || fail "modprobe rdma_rxe"
ns_dummy - rxd 198.18.83.1/24
rdma link add rxe_d type rxe netdev rxd || fail "rdma link add rxe_d"
wait_port_active rxe_d || fail "rxe_d port not ACTIVE"
flush_run rxe - 198.18.83.1 7821 - --mr-level ok --after-error error

rdma link delete rxe_d || fail "link delete rxe_d"
modprobe -r rdma_rxe || fail "modprobe -r rdma_rxe"
if (( ${#bad[@]} )); then
	printf '  failed: %s\n' "${bad[@]}"
	fail "${#bad[@]} check(s) failed"
fi
siw2_link_del s2a || fail "link delete s2a"
siw2_link_del s2b || fail "link delete s2b"
siw2_assert_zero_counts
siw2_unload
log "all checks passed"
