#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A check of the TOOL, not of siw2: the fake MPA peer
# (tests/progs/mpa_peer.py, used against siw2 by 54-cm-hostile.sh) against
# an independent implementation, Linux siw, on both ends of a veth pair
# (pa 198.18.9.1 siw_a, pb 198.18.9.2 siw_b).  It proves that the tool's
# MPA Request/Reply framing (BASE-MPA-1..3, MPA2-HDR-*, RFC 6581 enhanced
# data), its RTR and Read Response FPDUs with CRC32c (BASE-MPA-8/9,
# MPA2-P2P-13/15) and its Terminate decoding (DIGEST 3.4) match what a
# real iWARP stack sends and accepts:
#   - fake Initiator (mpa_peer.py client in pb) against "rping -s -P" on
#     siw_a: a valid Rev 2 Request gets siw's exact Reply; a p2p Read RTR
#     with CRC gets siw's zero-length Read Response with a correct CRC; M=1
#     gets siw's reject Reply; a wrong key is closed without a byte;
#   - fake Responder (mpa_peer.py server in pa) with "rping -c" on siw_b:
#     siw's Request bytes, its first Send FPDU decoded, and the Terminate
#     siw sends for a wrong-key Reply, read with --term-order siw.
# Outputs: build/vm-logs/59-mpa-peer-siw/.
#
# What siw (6.12.117 from linux-source, rdma-core 44 rping, TCG guest) was
# seen to do, in full runs of the earlier, longer version of this case
# (three runs; the rows asserted below are marked *):
# siw as Responder ("rping -s -P", which accepts with IRD/ORD 1/1):
#  * valid Rev 2 S=1 IRD/ORD 16/16: Reply
#      4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 10 02 00 04 00 10 00 10
#    (Rev 2, S=1, IRD 16 ORD 16: rping's 1/1 raised to ours).
#  - siw builds the Reply from the Request header: the flags octet is echoed,
#    reserved bits included (Res = 0x6 in, caps=0x6 out): a Reply's Res bits
#    from siw are NOT capability grants.  C is echoed too.
#  - Rev 1 (S=0, no PD): Reply rev=1 S=0 pd_len=0.
#  - p2p offering write,read: Reply rtr=write (ORD word 0x8010); offering
#    only read: rtr=read (0x4010).  The zero-length Write RTR
#      00 0e c1 40 00 00 00 01 00*8 + CRC (0 or eb d3 4c 5f with CRC)
#    was accepted.
#  * the Read RTR (sink STag 0x5a5a0001, TO 0x1000) gets the zero-length
#    Read Response
#      00 0e c1 42 5a 5a 00 01 00 00 00 00 00 00 10 00 + CRC
#    (CRC field 0 without CRC; the correct CRC with CRC negotiated).
#  * markers (M=1): reject Reply, flags 0x30 (R=1 S=1, M cleared), PD = 4
#    enhanced bytes all zero (IRD 0 ORD 0), then FIN.
#  * wrong key (and Rev 3): FIN after 2-5 ms, not a byte sent.
#  - 64 random bytes, PD_Length 513, and PD_Length 300 (legal up to 512, but
#    siw's limit is 256): RST after 1-7 ms, nothing sent.
#  - 10 bytes then FIN: FIN after ~5 ms.  Silence, 10 bytes and wait, PD_Length
#    100 with 50 bytes: FIN after 5.04-5.24 s, nothing sent (siw's
#    MPAREP_TIMEOUT for a new passive endpoint).
# siw as Initiator ("rping -c", IRD/ORD 1/1; siw's peer_to_peer is a
# compile-time false in 6.12: it never offers p2p nor sends an RTR):
#  * Request: 4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 10 02 00 04 00 01 00 01
#    (Rev 2, S=1, C=0, M=0, Res 0, A=0, IRD 1, ORD 1, no ULP data).
#  * after a valid Reply the first FPDU is rping's Send: 40 bytes, ctrl
#    0x4143, QN 0 MSN 1 MO 0, 16 payload bytes, CRC field 0.
#  * wrong-key Reply: Terminate, then FIN ~30-50 ms later:
#      00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 02 04 00 00 00 00 00 00
#    The control octets are 02 04 00 00, not 20 04 00 00: siw declares the
#    Terminate control as a C bitfield, which x86 lays out with Layer in the
#    LOW nibble and EType in the high one.  Read as RFC 5040 (and Wireshark)
#    that is Layer 0 EType 2 Code 4; siw meant 2/0/4.  Hence --term-order
#    siw.  rping: RDMA_CM_EVENT_CONNECT_ERROR, error -22.
#  - ORD 0x3000 in the Reply: the same Terminate with 02 06 00 00; rping -22.
#  - Rev 3 Reply: FIN, no Terminate; -22.  Reject Reply: FIN; REJECTED -104.
#    M=1 Reply: FIN, no Terminate; REJECTED -111.  S=0 Reply to the S=1
#    Request: FIN; REJECTED -104.  Closed after the Request: REJECTED -104.
#  - A=1 with only B in the Reply (siw did not ask for p2p): ignored.
#  - no Reply: FIN after 10.05-10.16 s; rping UNREACHABLE -110.
# timeout: 180
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip rping python3 timeout
siw_peer_load
ns_pair pa pb 9
A=198.18.9.1
siw_link_add pa siw_a pa-v || fail "rdma link add siw_a"
siw_link_add pb siw_b pb-v || fail "rdma link add siw_b"
wait_port_active siw_a || fail "siw_a port not ACTIVE"
wait_port_active siw_b || fail "siw_b port not ACTIVE"

R=$SIW2_RESULTS
# python3 -S: no site module (every process start counts under TCG).
PEER=(python3 -S "$SIW2_TOP/tests/progs/mpa_peer.py")
"${PEER[@]}" selftest --no-net >"$R/selftest.out" 2>&1 || { cat "$R/selftest.out"; fail "selftest"; }

bg_pid=
bg_stop() {
	[[ -n $bg_pid ]] || return 0
	kill "$bg_pid" 2>/dev/null
	wait "$bg_pid" 2>/dev/null
	bg_pid=
}
trap bg_stop EXIT

# has FILE STRING...: every STRING occurs in FILE (fixed strings).
has() {
	local f=$1 s out=
	shift
	read -rd '' out <"$f"
	for s in "$@"; do
		[[ $out == *"$s"* ]] || fail "$(basename "$f"): no '$s'"
	done
}

# ---------------------------------------------------------------- client role
CPORT=7180
ip netns exec pa timeout 170 rping -s -P -a "$A" -p "$CPORT" >"$R/rping-s.out" 2>&1 &
bg_pid=$!
wait_tcp_listen "$bg_pid" "$CPORT" || fail "rping -s not listening"

# cli NAME ARGS...: fake Initiator in pb, must succeed; output in $R/c-NAME.out
cli() {
	local name=$1 rc
	shift
	kill -0 "$bg_pid" 2>/dev/null || { cat "$R/rping-s.out"; fail "rping -s died before $name"; }
	ip netns exec pb timeout 60 "${PEER[@]}" client "$A" "$CPORT" --timestamps "$@" \
		>"$R/c-$name.out" 2>&1
	rc=$?
	sed "s/^/  c-$name| /" "$R/c-$name.out" | cut -c1-160
	(( rc == 0 )) || fail "client $name: rc $rc"
}

log "client scenarios against siw (rping -s -P)"
cli valid --expect accept --hold 0.3
has "$R/c-valid.out" "reply rev=2 M=0 C=0 R=0 S=1 caps=0x0 p2p=0 rtr=none ird=16 ord=16 pd_len=4 key=rep" \
	"rx reply 24 bytes: 4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 10 02 00 04 00 10 00 10"
cli p2p-crc-read --p2p --crc --rtr read --sink-stag 0x5a5a0001 --sink-to 0x1000 --expect accept --hold 0.3
has "$R/c-p2p-crc-read.out" "reply rev=2 M=0 C=1 R=0 S=1 caps=0x0 p2p=1 rtr=read ird=16 ord=16" \
	"rx fpdu 20 bytes: 00 0e c1 42 5a 5a 00 01 00 00 00 00 00 00 10 00" \
	"op=0x2(read-resp) stag=0x5a5a0001 to=0x1000 payload=0 crc=ok" \
	"read-resp ok stag=0x5a5a0001 to=0x1000"
cli markers --scenario markers --expect reject --timeout 5
has "$R/c-markers.out" "rx reply 24 bytes: 4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 30 02 00 04 00 00 00 00" \
	"closed fin"
cli wrong-key --scenario wrong-key --expect closed --timeout 5
has "$R/c-wrong-key.out" "closed fin" "(rx 0 bytes)"
bg_stop

# ---------------------------------------------------------------- server role
SPORT=7190
# srv NAME ARGS...: fake Responder in pa on $A:$SPORT, "rping -c" from pb,
# must succeed; output in $R/s-NAME.out and $R/s-NAME.rping
srv() {
	local name=$1 rc
	shift
	SPORT=$((SPORT + 1))
	# rping's start takes its time on a slow (debug) kernel: the wait for
	# its connection is stretched as the case's budgets are.
	ip netns exec pa timeout 60 "${PEER[@]}" server "$SPORT" --bind "$A" --timestamps \
		--accept-timeout $((30 * ${SIW2_TIMEOUT_SCALE:-1})) "$@" >"$R/s-$name.out" 2>&1 &
	bg_pid=$!
	wait_until 20 grep -q listening "$R/s-$name.out" || { cat "$R/s-$name.out"; fail "fake server $name not listening"; }
	ip netns exec pb timeout 40 rping -c -a "$A" -p "$SPORT" -C 1 -v >"$R/s-$name.rping" 2>&1
	echo "rping rc $?" >>"$R/s-$name.rping"
	wait "$bg_pid"
	rc=$?
	bg_pid=
	sed "s/^/  s-$name| /" "$R/s-$name.out" | cut -c1-160
	sed "s/^/  s-$name rping| /" "$R/s-$name.rping" | cut -c1-160
	(( rc == 0 )) || fail "server $name: rc $rc"
}

log "server scenarios with a siw Initiator (rping -c)"
srv valid --hold 1
has "$R/s-valid.out" \
	"rx request 24 bytes: 4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 10 02 00 04 00 01 00 01" \
	"op=0x3(send) qn=0 msn=1 mo=0 payload=16 crc=zero"
srv wrong-key --scenario wrong-key --expect term:2/0/4 --term-order siw --timeout 5
has "$R/s-wrong-key.out" "rx fpdu 28 bytes: 00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 02 04 00 00 00 00 00 00"

# ---------------------------------------------------------------- teardown
no_objects() {
	rdma resource show | awk '/siw_[ab]:/ {
		for (i = 3; i < NF; i += 2) if ($(i + 1) != 0) bad = 1
	} END { exit bad }'
}
wait_until 20 no_objects || { rdma resource show; fail "rdma resources left on siw_a/siw_b"; }
timeout 60 rdma link delete siw_a || fail "rdma link delete siw_a"
timeout 60 rdma link delete siw_b || fail "rdma link delete siw_b"
siw_peer_unload
log "mpa_peer.py agrees with siw"
