#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Data path protection: a hostile iWARP peer (tests/progs/dp_peer.py, plain
# TCP, MPA Initiator) against an rdma_cm target (tests/progs/
# siw2_prot_target.c) that registers MRs with every combination of rights
# (rw, read-only, write-only, none, another PD, deregistered, a 1 MiB
# read-only source) between
# 64 KiB guard areas.  Per scenario the peer sends crafted FPDUs: RDMA
# Writes to bad, foreign, deregistered or read-only STags and out of
# bounds (below, past the end, far, TO wrap, a second segment crossing the
# end), Read Requests with the same faults on the source, one Read Request
# more than the IRD the target granted (3 Reads of 1 MiB in one burst, IRD
# 2: the Terminate follows the Response FPDU in progress), Sends without or
# into too small a receive, bad QN/MSN/MO, DDP and RDMAP versions,
# reserved, unnegotiated and 5-bit opcodes, a tagged Send, a bad CRC; two
# positive controls place data (Writes in 2 segments and one FPDU larger
# than a TCP segment, a Send) and read it back byte for byte with three
# Read Requests.  The expected table (dp_peer.py "table", saved as
# expected-table.md) gives the Terminate Layer/EType/Code per DIGEST 3.4,
# the headers it must include (DIGEST 3.3, BASE-RDMAP-8) and the QP event
# (DEC-11); every scenario also requires the Terminate's own header (QN 2,
# MSN 1, MO 0, L=1, CRC if negotiated), the TCP close, the QP in ERR, every
# posted receive completed, and every byte of the target's mapping
# unchanged except what a valid operation wrote.
#
# Pairs (namespaces da/db 198.18.11.x for siw, ea/eb 198.18.12.x for siw2;
# the target in the first, the peer in the second, which has no RDMA
# device):
#   siw   Linux siw as the target: a baseline proving peer and target, and
#         recording what siw answers.  Deviations from the table listed in
#         dp_peer.py SIW_KNOWN pass (and are listed); others fail.
#   siw2  siw2 as the target: must match the table exactly.
# Default "siw siw2"; only the baseline: SIW2_DP_PAIRS=siw in the guest's
# environment, or from the host:
#   SIW2_VM_APPEND=siw2_dp_pairs=siw tests/vm/run.sh tests/vm/cases/63-dp-protection.sh
# (SIW2_DP_ONLY / siw2_dp_only=A,B runs only those scenarios.)
# Outputs in build/vm-logs/63-dp-protection/: suite-<driver>.out (results
# and the summary table), <driver>-<scenario>.peer / .target per scenario,
# expected-table.md.
#
# What Linux siw (6.12.117, rdma-core 44 libsiw) answers where it differs
# from the table (SIW_KNOWN in tests/progs/dp_peer.py; seen in every run):
#  - the Terminate control word is nibble-swapped (Layer low, EType high,
#    M/D/R in 0x01/0x02/0x04 of octet 2); its DDP Segment Length counts
#    the payload only (siw2: the whole ULPDU; DIGEST 3.3 leaves it open);
#  - no QP async event for a Write to a missing, mis-keyed or deregistered
#    STag, for version/opcode errors, Send without a receive, a Read
#    Request MSN or a bad CRC; QP_FATAL (not QP_REQ_ERR) for Send too long;
#  - Write to a region without REMOTE_WRITE: 1/1/0x00, not 0/1/0x02;
#  - Write with TO + length wrapping: no wrap check, placement fails
#    ("bogus addr"): 1/0/0x00 Local Catastrophic instead of 1/1/0x03;
#  - Read Request source errors (bad, deregistered, other PD, bounds): the
#    right code, but the echoed request carries the read size as MSN, the
#    QP stays RTS with its receives unflushed until the consumer
#    disconnects, and the event is QP_REQ_ERR; a wrapping source TO gets
#    no Terminate at all (FIN only);
#  - Read Requests on a region without REMOTE_READ (write-only, none) are
#    answered with the region's bytes: siw never checks the right;
#  - Read Request MO and QN are not checked (answered);
#  - Send larger than the receive: 1/2/0x02, not 1/2/0x05;
#  - opcode 0x13 with RV 1 is taken as a Send (4-bit opcode): placed into
#    the receive, completed SUCCESS;
#  - a Send with T=1 is parsed as untagged: 1/2/0x01;
#  - IRD + 1 Read Requests (the Reply said IRD 4) are all answered: no
#    Terminate, the QP stays RTS;
#  - a Read Response whose source a Write rewrites while the Response waits
#    for the window leaves with the CRC of the old octets: every such FPDU
#    fails its CRC at the peer (siw takes the CRC when it frames the FPDU
#    and hands the source pages to TCP later; siw2 copies first);
#  - a Write whose region is deregistered while its FPDU is still arriving
#    (write-dereg-mid): siw looks the STag up again for the rest and sends
#    1/1/0x00 (siw2 checks it once, at the header, and places the FPDU).
# Runtime (TCG, 2 vCPUs): the siw suite 110-180 s, the siw2 suite 80-100 s
# (busy host), about 6.5 min for the case.
# timeout: 900
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip python3 timeout
TARGET=$SIW2_PROGS/siw2_prot_target
[[ -x $TARGET ]] || fail "siw2_prot_target not built (run make)"

# Knobs from the environment or the kernel command line (SIW2_VM_APPEND).
pairs=${SIW2_DP_PAIRS:-}
only=${SIW2_DP_ONLY:-}
for w in $(</proc/cmdline); do
	case $w in
	siw2_dp_pairs=* | SIW2_DP_PAIRS=*) [[ -n $pairs ]] || pairs=${w#*=} ;;
	siw2_dp_only=* | SIW2_DP_ONLY=*) [[ -n $only ]] || only=${w#*=} ;;
	esac
done
pairs=${pairs:-siw siw2}
pairs=${pairs//,/ }
log "pairs: $pairs${only:+, scenarios: $only}"

R=$SIW2_RESULTS
# python3 -S: no site module (process starts count under TCG).
PEER=(python3 -S "$SIW2_TOP/tests/progs/dp_peer.py")
"${PEER[@]}" selftest >"$R/selftest.out" 2>&1 ||
	{ cat "$R/selftest.out"; fail "dp_peer.py selftest"; }
"${PEER[@]}" table >"$R/expected-table.md" || fail "dp_peer.py table"

FAILED=()

# suite_counters DEV OUT: DEV's counters (siw2_stats.c) against the suite's
# results in OUT: a Terminate sent per scenario that saw one, by its Layer
# (term=L/E/C), an empty receive queue per DDP "no buffer" (1/2/0x02), a
# CRC error per MPA CRC Terminate (2/0/0x02).
suite_counters() {
	local dev=$1 out=$2 name want got
	local -A term=([tx_terminate_rdmap]='0/' [tx_terminate_ddp]='1/' [tx_terminate_mpa]='2/'
		       [rx_rq_empty]='1/2/0x02 ' [rx_crc_errors]='2/0/0x02 ')
	for name in "${!term[@]}"; do
		want=$(grep -c "^RESULT .* term=${term[$name]}" "$out")
		got=$(cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$name") ||
			{ FAILED+=("siw2: no counter $name"); continue; }
		log "counter $name: $got, scenarios $want"
		(( got == want )) || FAILED+=("siw2: counter $name is $got, the suite saw $want")
	done
}

# suite DRIVER TNS PNS ADDR PORT_BASE: every scenario, target in TNS, peer
# in PNS; the suite's output in $R/suite-DRIVER.out.
suite() {
	local drv=$1 tns=$2 pns=$3 addr=$4 port=$5 rc t0=${EPOCHREALTIME/./}
	ip netns exec "$pns" timeout 420 "${PEER[@]}" suite --driver "$drv" \
		--host "$addr" --port-base "$port" --results "$R" ${only:+--only "$only"} \
		-- ip netns exec "$tns" "$TARGET" >"$R/suite-$drv.out" 2>&1
	rc=$?
	grep -E '^(RESULT|  |\||SUITE)' "$R/suite-$drv.out" | cut -c1-320 | sed "s/^/  $drv| /"
	log "$drv: suite rc $rc after $(( (${EPOCHREALTIME/./} - t0) / 1000 )) ms"
	grep -q "^SUITE $drv " "$R/suite-$drv.out" || { tail -20 "$R/suite-$drv.out"; }
	(( rc == 0 )) || FAILED+=("$drv: $(grep "^SUITE" "$R/suite-$drv.out" || echo "suite rc $rc")")
}

no_target_left() { ! pgrep -f siw2_prot_target >/dev/null; }

for p in $pairs; do
	case $p in
	siw)
		log "--- Linux siw as the target"
		siw_peer_load
		cm_ns_pair da db 11
		siw_link_add da siw_t da-v || fail "rdma link add siw_t"
		wait_port_active siw_t || fail "siw_t port not ACTIVE"
		suite siw da db 198.18.11.1 7700
		wait_until 10 no_target_left || fail "a siw2_prot_target is still running"
		wait_until 20 cm_no_resources siw_t ||
			{ rdma resource show; fail "rdma resources left on siw_t"; }
		timeout 60 rdma link delete siw_t || fail "rdma link delete siw_t"
		siw_peer_unload
		;;
	siw2)
		log "--- siw2 as the target"
		siw2_load
		cm_ns_pair ea eb 12
		siw2_link_add ea s2t ea-v || fail "rdma link add s2t"
		wait_port_active s2t || fail "s2t port not ACTIVE"
		suite siw2 ea eb 198.18.12.1 7800
		wait_until 10 no_target_left || fail "a siw2_prot_target is still running"
		suite_counters s2t "$R/suite-siw2.out"
		wait_until 20 cm_no_resources s2t ||
			{ rdma resource show; fail "rdma resources left on s2t"; }
		siw2_link_del s2t || fail "link delete s2t"
		siw2_assert_zero_counts
		siw2_unload
		;;
	*)
		fail "unknown pair '$p' (siw, siw2)"
		;;
	esac
done

(( ${#FAILED[@]} )) && fail "$(printf '%s; ' "${FAILED[@]}")"
log "ok"
