#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Throwaway check of the fake MPA peer (tests/progs/mpa_peer.py) against
# Linux siw, to make sure its framing is right before siw2 is tested with it.
# siw on both ends of a veth pair (pa 198.18.9.1 siw_a, pb 198.18.9.2 siw_b).
#   - fake Initiator: mpa_peer.py client in pb against "rping -s -P" on siw_a;
#   - fake Responder: mpa_peer.py server in pa bound to 198.18.9.1, with
#     "rping -c" on siw_b connecting to it.
# Every scenario asserts what siw was seen to do (below); all outputs are in
# build/vm-logs/59-mpa-peer-siw/.
#
# The assertions below are what siw (6.12.117 built from linux-source, rdma-core
# 44 rping, TCG guest) was seen to do in three runs; SOFT=1 (below) turns
# mismatches into "MISMATCH:" lines instead of failures, for exploring.  Close
# timings are measured from our last send.
#
# siw as Responder (listener "rping -s -P", which accepts with IRD/ORD 1/1):
#  - valid Rev 2 S=1 IRD/ORD 16/16: Reply
#      4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 10 02 00 04 00 10 00 10
#    (Rev 2, S=1, IRD 16 ORD 16: rping's 1/1 raised to ours).  Without p2p siw
#    reports ESTABLISHED right after sending the Reply.
#  - siw builds the Reply from the Request header: the flags octet is echoed,
#    reserved bits included.  A Request with Res = 0x6 got a Reply with
#    caps=0x6 although siw knows nothing about them: a Reply's Res bits from
#    siw are NOT capability grants.  C is echoed too (CRC then on both ways).
#  - Rev 1 (S=0, no PD): Reply rev=1 S=0 pd_len=0.
#  - p2p offering write,read: Reply p2p=1 rtr=write (ORD word 0x8010); offering
#    only read: rtr=read (0x4010).  The zero-length Write RTR
#      00 0e c1 40 00 00 00 01 00*8 + CRC (0 or eb d3 4c 5f with CRC)
#    was accepted (dmesg: ESTABLISHED upcall after the 20-byte FPDU).  The
#    Read RTR (sink STag 0x5a5a0001, TO 0x1000) got the zero-length Read Response
#      00 0e c1 42 5a 5a 00 01 00 00 00 00 00 00 10 00 00 00 00 00
#    (CRC field 0 without CRC; a correct CRC with CRC negotiated).
#  - markers (M=1): reject Reply, flags 0x30 (R=1 S=1, M cleared), PD = 4
#    enhanced bytes all zero (IRD 0 ORD 0), then FIN.
#  - wrong key, Rev 3: FIN after 2-5 ms, not a byte sent (no Reply, no TERM).
#  - 64 random bytes, PD_Length 513, and PD_Length 300 (legal up to 512, but
#    siw's limit is 256): RST after 1-7 ms, nothing sent (siw closes with our
#    bytes unread).
#  - 10 bytes then FIN: FIN after ~5 ms.
#  - silence, 10 bytes and wait, PD_Length 100 with 50 bytes: FIN after
#    5.04-5.24 s, nothing sent (siw_cm.c arms MPAREP_TIMEOUT, 5 s, for a new
#    passive endpoint and MPAREQ_TIMEOUT, 10 s, for an active one).
#
# siw as Initiator ("rping -c", IRD/ORD 1/1; siw's peer_to_peer is a
# compile-time false in 6.12, so siw never offers p2p and never sends an RTR):
#  - Request: 4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 10 02 00 04 00 01 00 01
#    (Rev 2, S=1, C=0, M=0, Res 0, A=0, IRD 1, ORD 1, no ULP data).
#  - after a valid Reply the first FPDU is rping's Send: 40 bytes, ctrl
#    0x4143, QN 0 MSN 1 MO 0, 16 payload bytes, CRC field 0.
#  - wrong-key Reply: Terminate, then FIN ~30-50 ms later:
#      00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 02 04 00 00 00 00 00 00
#    The control octets are 02 04 00 00, not 20 04 00 00: siw declares the
#    Terminate control as a C bitfield, which x86 lays out with Layer in the
#    LOW nibble and EType in the high one (M/D/R would land in bits 0..2 of
#    octet 2).  Read as RFC 5040 (and Wireshark, mask 0xF0 = Layer) that is
#    Layer 0 (RDMAP) EType 2 Code 4; siw meant LLP/MPA-error/Invalid Req/Rep
#    2/0/4.  Hence --term-order siw below.  CRC field 0 (no CRC negotiated),
#    no Terminated headers.  rping: RDMA_CM_EVENT_CONNECT_ERROR, error -22.
#  - ORD 0x3000 in the Reply (above siw's max IRD 128): the same Terminate with
#    02 06 00 00 (2/0/6 Insufficient IRD, nibble-swapped), FIN; rping -22.
#  - Rev 3 Reply: FIN, no Terminate; rping CONNECT_ERROR -22.
#  - reject Reply: FIN; rping REJECTED -104.  M=1 Reply: FIN, no Terminate;
#    REJECTED -111.  S=0 Reply to the S=1 Request: FIN, no Terminate; REJECTED
#    -104.  Connection closed after the Request: REJECTED -104.
#  - A=1 with only B in the Reply (siw did not ask for p2p): siw ignores it and
#    goes on (rping's Send arrives).
#  - no Reply: FIN after 10.05-10.16 s, nothing sent; rping UNREACHABLE -110.
# timeout: 300
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
# siw's CM debug messages (reject reasons) into the kernel log, if possible.
echo 'module siw +p' >/sys/kernel/debug/dynamic_debug/control 2>/dev/null ||
	log "no dynamic debug for siw"

R=$SIW2_RESULTS
PEER=(python3 "$SIW2_TOP/tests/progs/mpa_peer.py")
"${PEER[@]}" selftest --no-net >"$R/selftest.out" 2>&1 || { cat "$R/selftest.out"; fail "selftest"; }

SOFT=0
soft() { if [[ $SOFT == 1 ]]; then echo "MISMATCH: $*"; else fail "$*"; fi; }
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
	local f=$1 s
	shift
	for s in "$@"; do
		grep -qF -- "$s" "$f" || soft "$(basename "$f"): no '$s'"
	done
}

# ---------------------------------------------------------------- client role
CPORT=7180
ip netns exec pa timeout 280 rping -s -P -a "$A" -p "$CPORT" >"$R/rping-s.out" 2>&1 &
bg_pid=$!
wait_cm_listen "$CPORT" || fail "rping -s not listening"

# cli NAME WANT_RC ARGS...: fake Initiator in pb; output in $R/c-NAME.out
cli() {
	local name=$1 want=$2 rc
	shift 2
	kill -0 "$bg_pid" 2>/dev/null || { cat "$R/rping-s.out"; fail "rping -s died before $name"; }
	ip netns exec pb timeout 60 "${PEER[@]}" client "$A" "$CPORT" --timestamps "$@" \
		>"$R/c-$name.out" 2>&1
	rc=$?
	sed "s/^/  c-$name| /" "$R/c-$name.out" | cut -c1-160
	(( rc == want )) || soft "client $name: rc $rc, want $want"
}

log "client scenarios against siw (rping -s -P)"
cli valid 0 --expect accept --hold 1
has "$R/c-valid.out" "reply rev=2 M=0 C=0 R=0 S=1 caps=0x0 p2p=0 rtr=none ird=16 ord=16 pd_len=4 key=rep" \
	"rx reply 24 bytes: 4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 10 02 00 04 00 10 00 10"
cli p2p-write 0 --p2p --expect accept --hold 1
has "$R/c-p2p-write.out" "reply rev=2 M=0 C=0 R=0 S=1 caps=0x0 p2p=1 rtr=write ird=16 ord=16 pd_len=4" \
	"sent write-rtr 20 bytes: 00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00"
cli p2p-read 0 --p2p --rtr read --sink-stag 0x5a5a0001 --sink-to 0x1000 --expect accept --hold 1
has "$R/c-p2p-read.out" "p2p=1 rtr=read ird=16 ord=16" \
	"rx fpdu 20 bytes: 00 0e c1 42 5a 5a 00 01 00 00 00 00 00 00 10 00 00 00 00 00" \
	"read-resp ok stag=0x5a5a0001 to=0x1000"
cli p2p-crc 0 --p2p --crc --expect accept --hold 1
has "$R/c-p2p-crc.out" "reply rev=2 M=0 C=1 R=0 S=1 caps=0x0 p2p=1 rtr=write" "negotiated crc=1" \
	"sent write-rtr 20 bytes: 00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 eb d3 4c 5f"
cli p2p-crc-read 0 --p2p --crc --rtr read --sink-stag 0x77 --expect accept --hold 1
has "$R/c-p2p-crc-read.out" "op=0x2(read-resp) stag=0x00000077 to=0x0 payload=0 crc=ok" \
	"read-resp ok stag=0x00000077"
cli rev1 0 --rev 1 --expect accept --hold 1
has "$R/c-rev1.out" "reply rev=1 M=0 C=0 R=0 S=0 caps=0x0 p2p=- rtr=- ird=- ord=- pd_len=0"
cli caps 0 --caps 0x6 --expect accept --hold 1
has "$R/c-caps.out" "reply rev=2 M=0 C=0 R=0 S=1 caps=0x6"
cli pd-300 0 --pd-len 296 --expect closed
has "$R/c-pd-300.out" "closed rst" "(rx 0 bytes)"
cli markers 0 --scenario markers --expect reject
has "$R/c-markers.out" "rx reply 24 bytes: 4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 30 02 00 04 00 00 00 00" \
	"closed fin"
cli wrong-key 0 --scenario wrong-key --expect closed
has "$R/c-wrong-key.out" "closed fin" "(rx 0 bytes)"
cli bad-rev 0 --scenario bad-rev --expect closed
has "$R/c-bad-rev.out" "closed fin" "(rx 0 bytes)"
cli garbage 0 --scenario garbage --seed 7 --expect closed
has "$R/c-garbage.out" "closed rst" "(rx 0 bytes)"
cli pd-too-long 0 --scenario pd-too-long --expect closed
has "$R/c-pd-too-long.out" "closed rst" "(rx 0 bytes)"
cli half 0 --scenario half --expect closed
has "$R/c-half.out" "closed fin" "(rx 0 bytes)"
cli silence 0 --scenario silence --expect silent-close-after:5
has "$R/c-silence.out" "closed fin"
cli half-wait 0 --scenario half-wait --expect silent-close-after:5
has "$R/c-half-wait.out" "closed fin"
cli truncated 0 --scenario truncated --expect silent-close-after:5
has "$R/c-truncated.out" "closed fin"
bg_stop

# ---------------------------------------------------------------- server role
SPORT=7190
# srv NAME WANT_RC ARGS...: fake Responder in pa on $A:$SPORT, "rping -c"
# from pb; output in $R/s-NAME.out and $R/s-NAME.rping
srv() {
	local name=$1 want=$2 rc
	shift 2
	SPORT=$((SPORT + 1))
	ip netns exec pa timeout 60 "${PEER[@]}" server "$SPORT" --bind "$A" --timestamps "$@" \
		>"$R/s-$name.out" 2>&1 &
	bg_pid=$!
	wait_until 10 grep -q listening "$R/s-$name.out" || { cat "$R/s-$name.out"; fail "fake server $name not listening"; }
	ip netns exec pb timeout 40 rping -c -a "$A" -p "$SPORT" -C 1 -v >"$R/s-$name.rping" 2>&1
	echo "rping rc $?" >>"$R/s-$name.rping"
	wait "$bg_pid"
	rc=$?
	bg_pid=
	sed "s/^/  s-$name| /" "$R/s-$name.out" | cut -c1-160
	sed "s/^/  s-$name rping| /" "$R/s-$name.rping" | cut -c1-160
	(( rc == want )) || soft "server $name: rc $rc, want $want"
}

log "server scenarios with a siw Initiator (rping -c)"
srv valid 0 --hold 1
has "$R/s-valid.out" \
	"rx request 24 bytes: 4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 10 02 00 04 00 01 00 01" \
	"op=0x3(send) qn=0 msn=1 mo=0 payload=16 crc=zero"
srv wrong-key 0 --scenario wrong-key --expect term:2/0/4 --term-order siw
has "$R/s-wrong-key.out" "rx fpdu 28 bytes: 00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 02 04 00 00 00 00 00 00"
srv bad-rev 0 --scenario bad-rev --expect closed
has "$R/s-bad-rev.out" "closed fin" "(rx 24 bytes)"
srv reject 0 --scenario reject --pd-len 8 --expect closed
has "$R/s-reject.out" "closed fin" "(rx 24 bytes)"
has "$R/s-reject.rping" "RDMA_CM_EVENT_REJECTED, error -104"
srv markers 0 --scenario markers --expect closed
has "$R/s-markers.out" "closed fin" "(rx 24 bytes)"
has "$R/s-markers.rping" "RDMA_CM_EVENT_REJECTED, error -111"
srv s-mismatch 0 --scenario s-mismatch --expect closed
has "$R/s-s-mismatch.out" "closed fin" "(rx 24 bytes)"
srv p2p-fpdu-only 0 --scenario p2p-fpdu-only --hold 1
has "$R/s-p2p-fpdu-only.out" "op=0x3(send) qn=0 msn=1 mo=0 payload=16"
srv ord-too-big 0 --scenario ord-too-big --expect term:2/0/6 --term-order siw
has "$R/s-ord-too-big.out" "rx fpdu 28 bytes: 00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 02 06 00 00 00 00 00 00"
srv close 0 --scenario close
has "$R/s-close.rping" "RDMA_CM_EVENT_REJECTED, error -104"
srv silence 0 --scenario silence --timeout 5 --expect silent-close-after:10
has "$R/s-silence.out" "closed fin"
has "$R/s-silence.rping" "RDMA_CM_EVENT_UNREACHABLE, error -110"

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
