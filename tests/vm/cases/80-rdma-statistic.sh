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
# Then per QP (the core's counter objects, siw2_stats.c), 64-octet Sends
# for 60 s (ib_send_bw -D 60: the binding below takes 35 s of it on a
# loaded 2-core host under TCG, and must end while the QPs still exist):
#  - s2a in auto mode ("rdma statistic qp set ... auto type on"): its QPs
#    are bound to a counter as they reach INIT, which counts received FPDUs;
#  - s2b's RC QPs bound by hand ("rdma statistic qp bind"), each to a new
#    counter, whose tx_fpdus grows, then one unbound while Sends run;
#  - the counters go with their QPs, and the ports, which show the device
#    set plus every counter, still count each FPDU once: s2b's tx equals
#    s2a's rx both ways.
# Terminates and CRC errors counted by cause: case 63 (its siw2 suite).
# timeout: 300
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

(( bad == 0 )) || fail "$bad check(s) failed"
log "counters match the traffic: s2b framed $b_tx_fpdus FPDUs ($b_tx_bytes octets), s2a received them"

# --- Per QP: the core's counter objects ("rdma statistic qp").
# qpstat DEV: "cntn name value" per counter value of DEV's counters, and
# "cntn lqpn N" per bound QP, from rdma -j statistic qp show.
qpstat() {
	rdma -j statistic qp show link "$1/1" 2>&1 | tee -a "$R/qpstat.raw" | python3 -c '
import json, sys
d = sys.stdin.read().strip()
for c in json.loads(d) if d else []:
    n = c.get("cntn")
    for k, v in c.items():
        if k == "lqpn":
            for q in v:
                print(n, "lqpn", q)
        elif isinstance(v, int) and k not in ("cntn", "ifindex", "port", "pid"):
            print(n, k, v)
'
}
# qpval FILE CNTN NAME: a value from qpstat's output.
qpval() { awk -v c="$2" -v n="$3" '$1 == c && $2 == n { print $3 }' "$1"; }

rdma statistic qp set link s2a/1 auto type on || fail "rdma statistic qp set auto type on"
rdma statistic qp mode link s2a/1 | tee "$R/mode" | grep -q auto || { cat "$R/mode"; fail "s2a not in auto mode"; }
snap s2a "$R/s2a.before"
snap s2b "$R/s2b.before"
ip netns exec pa timeout 120 ib_send_bw -R -d s2a -s 64 -D 60 >"$R/srv2" 2>&1 &
sp=$!
wait_tcp_listen "$sp" 18515 20 || { cat "$R/srv2"; fail "ib_send_bw -D server not listening"; }
ip netns exec pb timeout 120 ib_send_bw -R -d s2b -s 64 -D 60 "$SRV" >"$R/cli2" 2>&1 &
cp=$!
# s2a's QPs were bound to a counter as they reached INIT (auto mode).
auto_rx() { qpstat s2a >"$R/a.1" && awk '$2 == "rx_fpdus" && $3 > 0 { f = 1 } END { exit !f }' "$R/a.1"; }
wait_until 40 auto_rx || { cat "$R/qpstat.raw"; fail "no counter of s2a counts received FPDUs"; }
acn=$(awk '$2 == "rx_fpdus" && $3 > 0 { print $1; exit }' "$R/a.1")
grep -q "^$acn lqpn " "$R/a.1" || { cat "$R/a.1"; fail "s2a's counter $acn lists no QP"; }
log "s2a auto counter $acn: QPs $(awk -v c="$acn" '$1 == c && $2 == "lqpn" { printf "%s ", $3 }' "$R/a.1")rx_fpdus $(qpval "$R/a.1" "$acn" rx_fpdus)"
# s2b's RC QPs bound by hand, each to a new counter.
qpns=$(rdma -j resource show qp link s2b/1 | python3 -c '
import json, sys
print(" ".join(str(q["lqpn"]) for q in json.load(sys.stdin) if "RC" in (q.get("type"), q.get("qp-type"))))')
[[ -n $qpns ]] || { rdma resource show qp; fail "no RC QP on s2b"; }
for q in $qpns; do
	rdma statistic qp bind link s2b/1 lqpn "$q" || fail "rdma statistic qp bind lqpn $q"
done
qpstat s2b >"$R/b.1"
sleep 1
qpstat s2b >"$R/b.2"
bcn=$(awk '$2 == "tx_fpdus" { print $3, $1 }' "$R/b.2" | sort -n | tail -n 1 | cut -d' ' -f2)
[[ -n $bcn ]] || { cat "$R/qpstat.raw"; fail "no counter on s2b after binding $qpns"; }
b1=$(qpval "$R/b.1" "$bcn" tx_fpdus) b2=$(qpval "$R/b.2" "$bcn" tx_fpdus)
bq=$(awk -v c="$bcn" '$1 == c && $2 == "lqpn" { print $3 }' "$R/b.2")
log "s2b counter $bcn (QP $bq, bound by hand): tx_fpdus $b1, a second later $b2"
expect "s2b's counter $bcn counts the Sends" "b2 > b1 && b1 >= 0"
# Unbound while the Sends run: it keeps what it counted, the device
# counts the rest.
kill -0 "$cp" 2>/dev/null ||
	fail "ib_send_bw -D 60 ended before the unbind (the steps above were too slow for it), QP $bq is gone"
rdma statistic qp unbind link s2b/1 cntn "$bcn" lqpn "$bq" || fail "rdma statistic qp unbind cntn $bcn lqpn $bq"
wait "$cp" || { cat "$R/cli2"; fail "ib_send_bw -D client failed"; }
wait "$sp" || { cat "$R/srv2"; fail "ib_send_bw -D server failed"; }
wait_until 20 eval '! rdma resource show qp | grep -Eq "link s2[ab]/.*type RC"' ||
	{ rdma resource show qp; fail "QPs left"; }
qpstat s2a >"$R/a.end"
qpstat s2b >"$R/b.end"
[[ ! -s $R/a.end && ! -s $R/b.end ]] ||
	{ cat "$R/a.end" "$R/b.end"; echo "FAILED: counters left after their QPs went"; bad=$((bad + 1)); }
snap s2a "$R/s2a.after"
snap s2b "$R/s2b.after"
for c in tx_fpdus tx_bytes rx_fpdus rx_bytes; do
	printf -v "a_$c" %s "$(delta s2a "$c")"
	printf -v "b_$c" %s "$(delta s2b "$c")"
done
log "with counters bound: s2b framed $b_tx_fpdus FPDUs, s2a received $a_rx_fpdus; s2a framed $a_tx_fpdus, s2b received $b_rx_fpdus"
expect "per QP: s2b framed what s2a received" "b_tx_fpdus == a_rx_fpdus && b_tx_bytes == a_rx_bytes"
expect "per QP: s2a framed what s2b received" "a_tx_fpdus == b_rx_fpdus && a_tx_bytes == b_rx_bytes"
expect "the port counts what the counter counted" "b_tx_fpdus >= b2"
rdma statistic qp set link s2a/1 auto off || fail "rdma statistic qp set auto off"

siw2_link_del s2a || fail "rdma link delete s2a"
siw2_link_del s2b || fail "rdma link delete s2b"
(( bad == 0 )) || fail "$bad check(s) failed"
siw2_assert_zero_counts
siw2_unload
log "per-QP counters: bound automatically and by hand, unbound while running, released with their QPs; the ports still count every FPDU once"
