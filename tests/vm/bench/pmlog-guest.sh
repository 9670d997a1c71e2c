# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Guest side of tools/bench-pmlog.sh: tools/pmlog/siw2-pmlog between two
# siw2 devices in namespaces pa (server, its log on a device-DAX namespace
# of the guest's emulated NVDIMM) and pb (client), push mode (Write +
# RDMA Commit) against classic (Write + Send, server flush, reply Send),
# for each record size in $SIW2_RESULTS/pmlog.conf, modes alternating.
# Not a test: it records what siw2-pmlog prints in pmlog.txt.
# pmem: 256M
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

SIZES="64 4096 65536" COUNT=2000 ROUNDS=2
# shellcheck source=/dev/null
[[ -f $SIW2_RESULTS/pmlog.conf ]] && source "$SIW2_RESULTS/pmlog.conf"
OUT=$SIW2_RESULTS/pmlog.txt
PL=$SIW2_TOP/tools/pmlog/siw2-pmlog
[[ -x $PL ]] || fail "$PL not built (make pmlog)"

siw2_load
cm_ns_pair pa pb 70
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a && wait_port_active s2b || fail "ports not ACTIVE"
pmem_devdax 4K
ip netns exec pa "$PL" serve -a 198.18.70.1 -p 7900 --dev "$PMEM_DAX" --size 128M \
	>"$SIW2_RESULTS/pmlog-server.txt" 2>&1 &
sp=$!
wait_until 20 grep -q '^pmlog: serving' "$SIW2_RESULTS/pmlog-server.txt" || fail "server not serving"
: >"$OUT"
for ((r = 1; r <= ROUNDS; r++)); do
	for size in $SIZES; do
		for mode in push classic; do
			log "round $r: $mode, $size octets"
			ip netns exec pb timeout 600 "$PL" append -a 198.18.70.1 -p 7900 --mode "$mode" \
				--record "$size" --count "$COUNT" >>"$OUT" 2>&1 ||
				echo "pmlog: mode $mode, record $size: failed (rc $?)" >>"$OUT"
		done
	done
done
kill "$sp" 2>/dev/null
wait "$sp" 2>/dev/null
log "done"
