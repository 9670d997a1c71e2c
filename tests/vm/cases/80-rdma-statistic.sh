#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# siw2's device counters (siw2_stats.c: "rdma statistic show", the port's
# hw_counters in sysfs) against the traffic that made them: 2,000 64-octet
# Sends of ib_send_bw -R (iteration mode) from s2b (namespace pb) to s2a
# (pa), the two devices used by nothing else.  After both ends exit:
#  - what one end framed the other received: s2b's tx_fpdus and tx_bytes
#    equal s2a's rx_fpdus and rx_bytes, and the other way round;
#  - s2b framed at least the 2,000 Sends, each 2 + 18 + 64 + 4 octets at
#    least (MPA length, untagged DDP/RDMAP header, payload, CRC), took them
#    from its ring (sq_ring_posts >= 2,000) and rang at least once;
#  - no Terminate, CRC error or empty receive queue on either;
#  - "rdma statistic show link" prints the sysfs values.
# Terminates and CRC errors counted by cause: case 63 (its siw2 suite).
# timeout: 240
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip ib_send_bw timeout
R=$SIW2_RESULTS
N=2000
siw2_load
ns_pair pa pb 80
SRV=198.18.80.1
dp_pair_devices siw2 siw2	# s2a on pa-v, s2b on pb-v, ports ACTIVE
ip netns exec pb timeout 5 bash -c ": 2>/dev/null >/dev/tcp/$SRV/9" 2>/dev/null

# snap DEV OUT: every counter of DEV, "name value" per line.
snap() {
	local f
	for f in /sys/class/infiniband/"$1"/ports/1/hw_counters/*; do
		echo "$(basename "$f") $(cat "$f")"
	done >"$2"
}
# delta DEV NAME: NAME's growth over the run.
delta() {
	local a b
	a=$(awk -v n="$2" '$1 == n { print $2 }' "$R/$1.before")
	b=$(awk -v n="$2" '$1 == n { print $2 }' "$R/$1.after")
	[[ -n $a && -n $b ]] || fail "$1 has no counter $2"
	echo $((b - a))
}

snap s2a "$R/s2a.before"
snap s2b "$R/s2b.before"
grep -q '^tx_fpdus ' "$R/s2a.before" || { cat "$R/s2a.before"; fail "no tx_fpdus counter"; }

ip netns exec pa timeout 120 ib_send_bw -R -d s2a -s 64 -n "$N" >"$R/srv" 2>&1 &
sp=$!
wait_tcp_listen "$sp" 18515 20 || { cat "$R/srv"; fail "ib_send_bw server not listening"; }
ip netns exec pb timeout 120 ib_send_bw -R -d s2b -s 64 -n "$N" "$SRV" >"$R/cli" 2>&1 ||
	{ cat "$R/cli"; fail "ib_send_bw client failed"; }
wait "$sp" || { cat "$R/srv"; fail "ib_send_bw server failed"; }
# Both QPs gone: nothing is in flight any more.
wait_until 20 eval '! rdma resource show qp | grep -Eq "link s2[ab]/.*type RC"' ||
	{ rdma resource show qp; fail "QPs left"; }
snap s2a "$R/s2a.after"
snap s2b "$R/s2b.after"

bad=0
expect() {	# expect WHAT TEST-EXPRESSION
	(( $2 )) && return 0
	echo "FAILED: $1 ($2)"
	bad=$((bad + 1))
}
for c in tx_fpdus tx_bytes rx_fpdus rx_bytes rx_crc_errors rx_rq_empty \
	 tx_terminate_rdmap tx_terminate_ddp tx_terminate_mpa \
	 rx_terminate_rdmap rx_terminate_ddp rx_terminate_mpa sq_doorbells sq_ring_posts; do
	printf -v "a_$c" %s "$(delta s2a "$c")"
	printf -v "b_$c" %s "$(delta s2b "$c")"
	v_a=a_$c v_b=b_$c
	log "$(printf '%-20s s2a %10s  s2b %10s' "$c" "${!v_a}" "${!v_b}")"
done
expect "s2b framed what s2a received" "b_tx_fpdus == a_rx_fpdus && b_tx_bytes == a_rx_bytes"
expect "s2a framed what s2b received" "a_tx_fpdus == b_rx_fpdus && a_tx_bytes == b_rx_bytes"
expect "s2b framed the Sends" "b_tx_fpdus >= N && b_tx_bytes >= N * (2 + 18 + 64 + 4)"
expect "s2b took them from its ring" "b_sq_ring_posts >= N && b_sq_doorbells >= 1"
for c in rx_crc_errors rx_rq_empty tx_terminate_rdmap tx_terminate_ddp tx_terminate_mpa \
	 rx_terminate_rdmap rx_terminate_ddp rx_terminate_mpa; do
	expect "no $c" "a_$c == 0 && b_$c == 0"
done

# The rdma tool reads the same counters through netlink.
rdma statistic show link s2b/1 >"$R/rdma-statistic" 2>&1 || { cat "$R/rdma-statistic"; fail "rdma statistic show"; }
v=$(awk '$1 == "tx_fpdus" { print $2 }' "$R/s2b.after")
grep -Eq "(^| )tx_fpdus $v( |$)" "$R/rdma-statistic" ||
	{ cat "$R/rdma-statistic"; echo "FAILED: rdma statistic shows no tx_fpdus $v"; bad=$((bad + 1)); }

siw2_link_del s2a || fail "rdma link delete s2a"
siw2_link_del s2b || fail "rdma link delete s2b"
(( bad == 0 )) || fail "$bad check(s) failed"
log "counters match the traffic: s2b framed $b_tx_fpdus FPDUs ($b_tx_bytes octets), s2a received them"
