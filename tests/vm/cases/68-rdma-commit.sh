# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# RDMA Commit (draft-talpey-rdma-commit, issue 16) between two siw2
# devices in namespaces pa (server, 198.18.68.1) and pb (client), with
# tests/progs/siw2_commit:
#  a  mpa_caps=6 on both sides (Commit negotiated, DEC-4), the server's
#     windows ordinary memory: a durable registration of it is refused
#     with EMEDIUMTYPE (COMMIT-ACC-1); a Write and a Commit of it posted
#     together complete in that order, the Commit with success
#     (COMMIT-ORD-1); Commits of odd ranges, of a page boundary and of
#     length 0 succeed (DEC-12); every byte reads back. The client asks
#     for global visibility only (the server says its windows are not
#     durable); a Commit of the ram window that needs durability completes
#     with IBV_WC_REM_ACCESS_ERR and vendor_err 4, and a global one on the
#     same QP then succeeds (SIW2-DEC-2). The trace event siw2_dp_commit
#     shows each Commit of a range answered with Status 4 (visible, not
#     durable), the one of 0 octets with Status 0, and no cache line
#     written back (COMMIT-DUR-4, DEC-14). A Commit past the window's end and
#     one with a wrong STag each end their connection with the Terminate
#     DEC-10 names (0/1/0x01, 0/1/0x00), seen in siw2_dp_term. A
#     record's Write and its Commit with a log update (SIW2-DEC-1) leave
#     the log word holding the value (read back, and in the server's WIN
#     line); a misaligned log word is refused at post time (EINVAL).
#  p  the server's pm window on persistent memory: a device-DAX namespace
#     of the guest's emulated NVDIMM (pmem_devdax), registered durable,
#     its first two pages the device's pages 1 and 0 (--swap-pages: two
#     mappings swapped with MAP_FIXED, so virtually contiguous is not
#     physically contiguous). The same client steps, observed from
#     outside siw2 (tests/progs/commit_observe.py, Documentation/
#     testing.md "Durability observed from outside siw2"): kprobe events,
#     on one global clock, on the kernel's pmem write-back
#     (arch_wb_cache_pmem), on payload copied out of socket buffers
#     (skb_copy_bits) and on octets handed to TCP (sock_sendmsg: the
#     Commit Requests and Responses, decoded), with the window's physical
#     pages from /proc/PID/pagemap. Between one Commit Response and the
#     next, exactly the physical lines of the Request's range are written
#     back, all before the Response is handed to TCP (64 KiB at offset 0:
#     1024; [100, 300): 4; [4088, 4104), across the swapped pages: 2; 0
#     octets: 0; the log step's 512-octet record: 8 and the log word's
#     line after them), each with Status 0 on the wire, and the ram
#     window none, with Status 4 (COMMIT-DUR-1, COMMIT-DUR-4, DEC-14,
#     SIW2-DEC-2); no line of a range is dirty when its Response leaves:
#     the 64 KiB Write's payload is seen landing on all 1024 lines before
#     their write-back (COMMIT-DUR-5, COMMIT-ORD-1); a log update of the
#     durable word after a ram range is refused with Status 5 and the word
#     keeps its value (SIW2-DEC-1). The same events changed as a broken
#     siw2 would leave them (a wrong page step, a lost write-back, a
#     Response before a write-back, a copy after it) must each fail the
#     check. siw2's own trace events are kept for reading only.
#     tools/pmlog/siw2-pmlog appends 200 records of 4 KiB to a log on the
#     same namespace in push mode (Write + Commit) and in classic mode
#     (Write + Send, the server flushes and answers): both finish and
#     report their latency, rate and server CPU time, and the log's end
#     word is right after each (push moves it with a log update).
#  w  the first connection of a, with mpa_crc=1, captured on pa-v: every
#     FPDU's CRC holds, the Commit Requests are on QN 1 in one MSN
#     sequence with the Reads, one segment of 38 octets with RV 2 and
#     Invalidate STag 0, the Responses on QN 3, 26 octets, identifiers in
#     order, Status 4 or 0 (ext_peer.py commit-wire, COMMIT-HDR-1..7,
#     SIW2-DEC-2), and tshark
#     (whose iWARP dissector does not know 0xC/0xD) flags no frame; siw2's
#     own dissector (tools/wireshark/siw2.lua) decodes the Commit Request
#     and Response, no frame malformed, every CRC good.
#  h  a hostile peer (tests/progs/ext_peer.py) against the siw2_commit
#     server with its durable window: a valid Commit answered (QN 3, MSN
#     1, identifier echoed, Status 0: COMMIT-HDR-4/6), one of the ram
#     window answered with Status 4 (SIW2-DEC-2), one of 0 octets naming
#     STag 0 (Status 0,
#     DEC-12), one with octets after its region (Status 2 and the stream
#     goes on, AMB-14), and the Terminates for a Commit without the bit
#     (0/2/0x06, COMMIT-DISC-2), an unknown STag (0/1/0x00), a range past
#     the window (0/1/0x01) and an unsolicited Commit Response (1/2/0x02),
#     each echoing the offending DDP header. Log updates (SIW2-DEC-1,
#     COMMIT-ATOM-2): a good one answered with Status 0 and its value in
#     the server's log word; another type or reserved bits set: Status 2
#     and the word untouched (AMB-14); a misaligned word 0/2/0x07, an
#     unknown log STag 0/1/0x00, a word past the window 0/1/0x01, each
#     leaving the word untouched; the durable word after a ram range:
#     Status 5 and the word untouched. A Commit naming the window's own
#     STag (an ordinary MR) to invalidate: 0/2/0x09 without headers
#     (DEC-20).
#  s  siw2 as Requester against ext_peer.py (serve commit-status), which
#     answers a Commit with Status 1: it completes with IBV_WC_REM_OP_ERR
#     and vendor_err 1, and the next Commit on the same QP succeeds
#     (COMMIT-ERR-3, DEC-13).
#  b  mpa_caps=4 (Commit not negotiated): the Commit fails at
#     post time with EOPNOTSUPP, nothing is sent (no siw2_dp_commit event),
#     and the QP works on (COMMIT-DISC-1, DEC-4).
#  c  a Linux siw server: the same as b.
# Then every link is deleted, siw2's object counts are zero and it
# unloads.
# timeout: 400
# pmem: 64M
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip dumpcap tshark
R=$SIW2_RESULTS
SRV=198.18.68.1
CM=$SIW2_PROGS/siw2_commit
[[ -x $CM ]] || fail "$CM not built (make progs)"
P=/sys/module/siw2/parameters
T=/sys/kernel/tracing

bad=()
bad() { bad+=("$*"); log "FAILED: $*"; }
show() {
	local f
	for f in "$@"; do
		[[ -s $R/$f ]] && tail -n 15 "$R/$f" | sed "s|^|  $f: |"
	done
	return 0
}
pids=()
kill_all() {
	local p
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}

siw2_load
for e in siw2_dp_commit siw2_dp_commit_log siw2_dp_term; do
	echo 1 >"$T/events/siw2/$e/enable" || fail "enable $e"
done
trap 'cp "$T/trace" "$R/trace.txt"; kill_all' EXIT
cm_ns_pair pa pb 68
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a port not ACTIVE"
wait_port_active s2b || fail "s2b port not ACTIVE"

# commit_run NAME SRVNS SRVADDR PORT CLINS CONNS [-- CLIENT-ARGS...]...:
# a server for CONNS connections (with the arguments in the array SARGS),
# then one client per "--" and the arguments after it; every program must
# exit 0.
SARGS=()
commit_run() {
	local name=$1 sns=$2 addr=$3 port=$4 cns=$5 conns=$6 sp rc src i=0
	local -a args=()
	shift 6
	ip netns exec "$sns" timeout 200 "$CM" -s -a "$addr" -p "$port" -n "$conns" \
		-t 60 "${SARGS[@]}" >"$R/$name.s" 2>&1 &
	sp=$!
	pids+=("$sp")
	if ! wait_until 20 grep -q '^LISTENING' "$R/$name.s"; then
		bad "$name: server not listening"
		show "$name.s"
		return 1
	fi
	[[ -z ${ON_LISTEN:-} ]] || "$ON_LISTEN" "$R/$name.s"
	while (( $# )); do
		shift	# the "--"
		args=()
		while (( $# )) && [[ $1 != -- ]]; do args+=("$1"); shift; done
		ip netns exec "$cns" timeout 60 "$CM" -a "$addr" -p "$port" -t 30 "${args[@]}" \
			>"$R/$name.c$i" 2>&1
		rc=$?
		(( rc == 0 )) || { bad "$name: client ${args[*]} rc $rc"; show "$name.c$i"; }
		log "$name client ${args[*]:-(plain)}: $(sed -n 's/^COMMIT PASS //p' "$R/$name.c$i" | tr '\n' ' ')"
		i=$((i + 1))
	done
	wait "$sp"
	src=$?
	(( src == 0 )) || { bad "$name: server rc $src"; show "$name.s"; }
}

# trace_take EVENT FILE: the trace lines of EVENT so far to FILE, then
# the trace is cleared.
trace_take() {
	grep -h "$1" "$T/trace" >"$R/$2" 2>/dev/null
	echo >"$T/trace"
}

# ---------------------------------------------------------------- a
echo 6 >"$P/mpa_caps" || fail "mpa_caps=6"
echo 1 >"$P/mpa_crc" || fail "mpa_crc=1"
echo >"$T/trace"
ip netns exec pa dumpcap -q -B 16 -i pa-v -f 'tcp port 7801' -w "$R/commit.pcapng" 2>"$R/dumpcap.err" &
cap=$!
pids+=("$cap")
wait_until 20 test -s "$R/commit.pcapng" || fail "dumpcap did not start: $(head -c 300 "$R/dumpcap.err")"
commit_run ram pa "$SRV" 7801 pb 3 -- -- --bad-bounds -- --bad-stag
sleep 0.5
kill -INT "$cap"
wait "$cap"
echo 0 >"$P/mpa_crc"
tshark -r "$R/commit.pcapng" -q -z follow,tcp,raw,0 >"$R/commit.follow" 2>"$R/tshark.err" ||
	bad "tshark (follow) exited with $?: $(tail -c 300 "$R/tshark.err")"
# COMMIT-HDR-1..7 and the CRCs of the plain client's connection.
# Windows of ordinary memory: Status 4 for a range, 0 for 0 octets (SIW2-DEC-2).
python3 -S "$SIW2_TOP/tests/progs/ext_peer.py" commit-wire "$R/commit.follow" 0,4 >"$R/commit-wire.out" 2>&1 ||
	{ bad "commit-wire (COMMIT-HDR-1..7, COMMIT-QUEUE-1, SIW2-DEC-1, SIW2-DEC-2)"; show commit-wire.out; }
log "$(grep -h '^EXTPEER RESULT' "$R/commit-wire.out")"
tshark --disable-protocol rpcordma -r "$R/commit.pcapng" \
	-Y '_ws.malformed || (_ws.expert && (iwarp_mpa || iwarp_ddp_rdmap))' \
	>"$R/tshark-bad.txt" 2>>"$R/tshark.err" || bad "tshark (malformed filter) exited with $?"
[[ -s $R/tshark-bad.txt ]] && { bad "tshark: malformed or flagged frames"; head -n 5 "$R/tshark-bad.txt"; }
log "tshark: $(tshark -r "$R/commit.pcapng" -Y iwarp_ddp 2>/dev/null | wc -l) DDP frames, $(wc -l <"$R/tshark-bad.txt") flagged"
# siw2's own dissector (tools/wireshark/siw2.lua, check.py) knows 0xC and
# 0xD: no malformed frame, every CRC good, Commit Request and Response.
python3 "$SIW2_TOP/tools/wireshark/check.py" "$R/commit.pcapng" >"$R/wireshark-lua.out" 2>&1 ||
	{ bad "siw2.lua on commit.pcapng"; show wireshark-lua.out; }
log "siw2.lua: $(tail -n 1 "$R/wireshark-lua.out")"
read -r nf nc ops < <(sed -n 's/.*: \([0-9]*\) FPDUs, \([0-9]*\) CRCs good, opcodes \(.*\)/\1 \2 \3/p' "$R/wireshark-lua.out")
[[ " $ops " == *" 0xc "* && " $ops " == *" 0xd "* ]] || bad "siw2.lua: no Commit Request and Response decoded (opcodes ${ops:-none})"
(( ${nf:-0} > 0 && ${nc:-0} == ${nf:-0} )) || bad "siw2.lua: ${nc:-?} of ${nf:-?} FPDUs with a good CRC"
grep -q '^COMMIT OK side=client steps=5$' "$R/ram.c0" || bad "ram: client steps (COMMIT-ORD-1, DEC-12, SIW2-DEC-1)"
grep -q '^COMMIT PASS ram-not-durable$' "$R/ram.s" || bad "ram: ordinary memory registered durable (COMMIT-ACC-1)"
# Every client ran the log step: the word holds its value (SIW2-DEC-1).
n=$(grep -c '^COMMIT WIN conn=[0-9] pm=ok ram=ok log=0x0000000000080200$' "$R/ram.s")
(( n == 3 )) || bad "ram: server windows and log word ok in $n of 3 connections"
grep -q '^COMMIT BAD ' "$R/ram.c1" || bad "ram: Commit past the end completed (COMMIT-ACC-1, DEC-10)"
grep -q '^COMMIT BAD ' "$R/ram.c2" || bad "ram: Commit with a wrong STag completed (COMMIT-ACC-1, DEC-10)"
cp "$T/trace" "$R/trace-a.txt"
grep -h 'siw2_dp_commit_log:' "$R/trace-a.txt" >"$R/ram-log.trace"
trace_take 'siw2_dp_commit:' ram-commit.trace
# Each connection answers write-commit, 3 ranges, ram twice and log: 21
# Commits, none out of bounds; those of a range Status 4 (visible, not
# durable), the 0 octets Status 0 (SIW2-DEC-2, DEC-12), no line written
# back (COMMIT-DUR-4); and one log update each, stored, not written back.
n=$(grep -c ' status 4$' "$R/ram-commit.trace")
m=$(grep -c ' len 0 lines 0 status 0$' "$R/ram-commit.trace")
(( n == 18 && m == 3 )) || bad "ram: $n Commits answered with Status 4 and $m of 0 octets with Status 0, want 18 and 3 (SIW2-DEC-2)"
n=$(grep -c ' lines 0 status 0$' "$R/ram-log.trace")
(( n == 3 && $(wc -l <"$R/ram-log.trace") == 3 )) || bad "ram: $n log updates of ordinary memory traced, want 3 stored with no line written back (SIW2-DEC-1)"
if grep -Ev ' lines 0 status [04]$' "$R/ram-commit.trace" | grep -q .; then
	bad "ram: a Commit of ordinary memory wrote back cache lines or failed (COMMIT-DUR-4, DEC-14, SIW2-DEC-2): $(grep -Ev ' lines 0 status [04]$' "$R/ram-commit.trace" | head -n 2)"
fi
# DEC-10, COMMIT-ACC-1: past the end 0/1/0x1, wrong STag 0/1/0x0, each
# sent by the server's device and received by the client's.
for c in 0x1 0x0; do
	n=$(grep -c "send terminate layer 0 etype 1 code $c\$" "$R/trace-a.txt")
	m=$(grep -c "rcvd terminate layer 0 etype 1 code $c\$" "$R/trace-a.txt")
	(( n == 1 && m == 1 )) || bad "ram: Terminate 0/1/$c sent $n, received $m times, want 1 and 1 (COMMIT-ACC-1, DEC-10)"
done

# ---------------------------------------------------------------- p
# Durability observed from outside siw2 (tests/progs/commit_observe.py):
# kprobe events on the kernel's pmem write-back, on payload copied out of
# socket buffers and on octets handed to TCP, and the server window's
# physical pages from /proc/PID/pagemap.
OBS=(python3 -S "$SIW2_TOP/tests/progs/commit_observe.py")
OBS_PROBES=(
	'p:siw2obs/obs_wb arch_wb_cache_pmem addr=%di:x64 size=%si:u64 pob=@page_offset_base:x64'
	'r:siw2obs/obs_wb_ret arch_wb_cache_pmem'
	'p:siw2obs/obs_st skb_copy_bits to=%dx:x64 len=%cx:s32 pob=@page_offset_base:x64'
	'r:siw2obs/obs_st_ret skb_copy_bits'
	'p:siw2obs/obs_tx sock_sendmsg fpdu=+0(+0(msg->msg_iter.kvec)):x8[64] off=msg->msg_iter.iov_offset:u64'
)
obs_start() {
	local i e
	for i in "${!OBS_PROBES[@]}"; do
		e=${OBS_PROBES[i]}
		if [[ $e == *'msg->'* ]] && ! echo "$e" >>"$T/kprobe_events" 2>/dev/null; then
			# No BTF probe arguments (Linux 6.1): its struct msghdr and
			# iov_iter (msg_iter at 16; in it iov_offset at 8, kvec at 24).
			e='p:siw2obs/obs_tx sock_sendmsg fpdu=+0(+0(+40(%si))):x8[64] off=+24(%si):u64'
			OBS_PROBES[i]=$e
			log "no BTF probe arguments: obs_tx reads Linux 6.1's struct layout"
		elif [[ $e == *'msg->'* ]]; then
			continue
		fi
		echo "$e" >>"$T/kprobe_events" ||
			fail "COMMIT-DUR-1: kprobe event refused: '$e': $(tail -n 2 "$T/error_log" | tr '\n' ' ')"
	done
	echo 8192 >"$T/buffer_size_kb" || fail "trace buffer size"
	echo 1 >"$T/events/siw2obs/enable" || fail "enable the siw2obs kprobe events"
}
# obs_stop FILE: the trace to FILE, every event kept (none lost, every
# return probe fired), the probes removed.
obs_stop() {
	local e n
	echo 0 >"$T/events/siw2obs/enable"
	cp "$T/trace" "$1"
	n=$(sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\) .*/\1 \2/p' "$1")
	[[ $n =~ ^([0-9]+)\ ([0-9]+)$ && ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]] ||
		bad "COMMIT-DUR-1: the observation lost trace events (entries in buffer/written: ${n:-?})"
	awk '$1 ~ /^obs_/ && $3 != 0 { print }' "$T/kprobe_profile" >"$R/obs-missed.txt"
	[[ -s $R/obs-missed.txt ]] &&
		bad "COMMIT-DUR-1: kprobes missed: $(tr '\n' ';' <"$R/obs-missed.txt")"
	for e in "${OBS_PROBES[@]}"; do
		e=${e#*:}
		echo "-:${e%% *}" >>"$T/kprobe_events" || bad "cannot remove kprobe event ${e%% *}"
	done
}
# The server's window pages, read when it listens (ON_LISTEN of commit_run).
obs_pagemap() {
	local l
	l=$(grep -m1 '^COMMIT MAP ' "$1")
	if [[ $l =~ pid=([0-9]+)\ pm=(0x[0-9a-f]+)\ len=([0-9]+) ]]; then
		"${OBS[@]}" pagemap "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}" \
			>"$R/pm.pagemap" 2>&1 || { bad "COMMIT-DUR-1: pagemap of the server's window"; show pm.pagemap; }
	else
		bad "COMMIT-DUR-1: no COMMIT MAP line from the server"
	fi
}

pmem_devdax 4K
log "pmem: $PMEM_DAX at $PMEM_START, $PMEM_SIZE octets, align $PMEM_ALIGN"
# One clock for all CPUs: RX and TX may run on different ones.
echo global >"$T/trace_clock" || fail "trace_clock global"
obs_start
echo >"$T/trace"
# The window's pages 0 and 1 are the device's pages 1 and 0: virtually
# contiguous, physically not.
SARGS=(--pmem "$PMEM_DAX" --swap-pages)
ON_LISTEN=obs_pagemap
commit_run pm pa "$SRV" 7805 pb 1 --
ON_LISTEN=
SARGS=()
obs_stop "$R/pm-all.trace"
grep -q '^COMMIT MR pm durable=1 ' "$R/pm.s" || bad "pm: the device-DAX window is not registered durable (COMMIT-REG-1)"
grep -q '^COMMIT OK side=client steps=6$' "$R/pm.c0" || bad "pm: client steps (SIW2-DEC-1 log-refused, SIW2-DEC-2)"
grep -q '^COMMIT WIN conn=0 pm=ok ram=ok log=0x0000000000080200$' "$R/pm.s" ||
	bad "pm: server windows or log word (SIW2-DEC-1)"
# siw2's own account, kept for reading only: the observation below is
# the evidence.
# (Removing the kprobe events emptied the trace buffer.)
grep -h 'siw2_dp_commit_log:' "$R/pm-all.trace" >"$R/pm-log.trace"
grep -h 'siw2_dp_commit:' "$R/pm-all.trace" >"$R/pm-commit.trace"
# The swap is in place: window pages 0, 1, 2 on the device's 1, 0, 2.
p0=$(( PMEM_START / 4096 ))
mapfile -t pf < <(awk '$1 == "PAGE" && $2 < 3 { print $3 }' "$R/pm.pagemap")
(( ${#pf[@]} == 3 && pf[0] == p0 + 1 && pf[1] == p0 && pf[2] == p0 + 2 )) ||
	bad "COMMIT-DUR-1: pm: window pages 0-2 on PFNs [${pf[*]}], want the device's pages 1, 0, 2 ($(printf '0x%x 0x%x 0x%x' $((p0 + 1)) "$p0" $((p0 + 2)))): --swap-pages not in place"
# The same events, changed as a broken siw2 would leave them (every
# range written back as if physically contiguous, a write-back lost, a
# Response before a write-back, a copy after one), must each be caught:
# the observation can fail.
clsz=$(awk '/^clflush size/ { print $4; exit }' /proc/cpuinfo)
"${OBS[@]}" check --trace "$R/pm-all.trace" --pagemap "$R/pm.pagemap" --server "$R/pm.s" \
	--pmem-start "$PMEM_START" --pmem-size "$PMEM_SIZE" --line "${clsz:-64}" --faults \
	>"$R/pm-observe.out" 2>&1
rc=$?
while IFS= read -r l; do bad "pm observed: $l"; done < <(sed -n 's/^OBSERVE BAD //p' "$R/pm-observe.out")
n=$(grep -c '^OBSERVE FAULT [a-z-]* caught: ' "$R/pm-observe.out")
(( n == 4 )) || bad "COMMIT-DUR-1: $n of 4 changed traces caught by the observation: $(grep '^OBSERVE FAULT .* MISSED' "$R/pm-observe.out" | tr '\n' ';')"
(( rc == 0 )) || grep -q '^OBSERVE BAD \|^OBSERVE FAULT .* MISSED' "$R/pm-observe.out" ||
	{ bad "COMMIT-DUR-1: commit_observe.py check rc $rc"; show pm-observe.out; }
# The observed Commits, in the order their Responses were handed to TCP:
# len, distinct lines written back since the Response before, Status
# on the wire, lines of the range payload was seen copied into before
# the Response. The range's lines exactly, and the log word's, on pm
# with Status 0 (COMMIT-DUR-1, COMMIT-DUR-5, DEC-14; the 64 KiB Write's
# 1024 lines stored first: COMMIT-ORD-1); the ram window none, Status 4
# (needing durability, then global: COMMIT-DUR-4, SIW2-DEC-2) and 5 (the
# log-refused step: SIW2-DEC-1).
want=("65536 1024 0 1024" "200 4 0 4" "16 2 0 2" "0 0 0 0" "4096 0 4 0" "4096 0 4 0" "512 9 0 8" "4096 0 5 0")
mapfile -t got < <(sed -n 's/^OBSERVE COMMIT .* len=\([0-9]*\) lines=\([0-9]*\) status=\([0-9]*\) stored=\([0-9]*\)$/\1 \2 \3 \4/p' "$R/pm-observe.out")
if [[ "${got[*]}" != "${want[*]}" ]]; then
	bad "COMMIT-DUR-1 COMMIT-ORD-1 SIW2-DEC-2: pm: Commits observed as (len lines status stored) [$(printf '%s, ' "${got[@]}")], want [$(printf '%s, ' "${want[@]}")]"
fi
log "pm observed: $(grep -c '^OBSERVE COMMIT ' "$R/pm-observe.out") Commit Responses, $(grep -c ' obs_wb:' "$R/pm-all.trace") write-backs, $(grep '^OBSERVE RESULT' "$R/pm-observe.out"), $n of 4 faults caught"

PL=$SIW2_TOP/tools/pmlog/siw2-pmlog
[[ -x $PL ]] || fail "$PL not built (make pmlog)"
ip netns exec pa timeout 200 "$PL" serve -a "$SRV" -p 7806 --dev "$PMEM_DAX" --size 16M \
	--clients 2 >"$R/pmlog.s" 2>&1 &
sp=$!
pids+=("$sp")
wait_until 20 grep -q '^pmlog: serving' "$R/pmlog.s" || { bad "pmlog: server not serving"; show pmlog.s; }
grep -q 'serving a 16777216-octet log on /dev/dax.* (durable)' "$R/pmlog.s" ||
	bad "pmlog: the log is not durable (COMMIT-REG-1)"
for mode in push classic; do
	ip netns exec pb timeout 100 "$PL" append -a "$SRV" -p 7806 --mode "$mode" --count 200 \
		--warmup 20 >"$R/pmlog-$mode.c" 2>&1 || { bad "pmlog $mode: rc $?"; show "pmlog-$mode.c"; }
	grep -q "^pmlog: mode $mode, 200 records of 4096 octets, log durable" "$R/pmlog-$mode.c" ||
		bad "pmlog $mode: no summary"
	log "pmlog $mode: $(grep -h 'latency\|rate\|CPU' "$R/pmlog-$mode.c" | sed 's/^pmlog: //' | tr '\n' ';')"
done
wait "$sp" || { bad "pmlog: server rc $?"; show pmlog.s; }
# Each client's 220 records of 4096 from offset 64: the end word after
# the last (push: its Commit's log update, SIW2-DEC-1; classic: the server).
for c in 0 1; do
	grep -q "^pmlog: client $c done, the log ends at 901184$" "$R/pmlog.s" ||
		bad "pmlog: client $c: the log's end word is not 901184: $(grep "client $c done" "$R/pmlog.s")"
done

# ---------------------------------------------------------------- h
PEER=(python3 -S "$SIW2_TOP/tests/progs/ext_peer.py")
scen=(commit-ok commit-not-durable commit-zero commit-tail commit-no-caps commit-bad-stag
	commit-bounds commit-resp-no-req commit-log commit-log-type commit-log-rsvd
	commit-log-misaligned commit-log-bad-stag commit-log-bounds commit-log-refused
	commit-inval-mr)
ip netns exec pa timeout 200 "$CM" -s -a "$SRV" -p 7804 -n ${#scen[@]} -t 30 \
	--pmem "$PMEM_DAX" >"$R/peer.s" 2>&1 &
sp=$!
pids+=("$sp")
wait_until 20 grep -q '^LISTENING' "$R/peer.s" || bad "peer: server not listening"
i=0
for sc in "${scen[@]}"; do
	ip netns exec pb timeout 30 "${PEER[@]}" run "$sc" "$SRV" 7804 >"$R/peer-$sc.out" 2>&1 ||
		{ bad "peer $sc"; show "peer-$sc.out"; }
	log "$(grep -h '^EXTPEER RESULT' "$R/peer-$sc.out")"
	# The server takes the next connection once this one has ended.
	wait_until 20 grep -q "^COMMIT WIN conn=$i " "$R/peer.s" ||
		{ bad "peer $sc: the server did not see the end of the connection"; show peer.s; }
	# A log scenario names the word's value the server must show: stored
	# only by a good log update after a good commit (SIW2-DEC-1).
	w=$(sed -n 's/^EXTPEER LOG //p' "$R/peer-$sc.out")
	if [[ $w ]] && ! grep -q "^COMMIT WIN conn=$i .* log=$w\$" "$R/peer.s"; then
		bad "peer $sc: the server's log word is not $w: $(grep "^COMMIT WIN conn=$i " "$R/peer.s")"
	fi
	i=$((i + 1))
done
wait "$sp" || { bad "peer: server rc $?"; show peer.s; }

# ---------------------------------------------------------------- s
ip netns exec pa timeout 60 "${PEER[@]}" serve commit-status 7807 >"$R/peer-status.out" 2>&1 &
sp=$!
pids+=("$sp")
wait_until 20 grep -q 'LISTENING' "$R/peer-status.out" || bad "peer commit-status: not listening"
ip netns exec pb timeout 60 "$CM" -a "$SRV" -p 7807 -t 30 --status-peer >"$R/status.c" 2>&1 ||
	{ bad "status: client rc $? (COMMIT-ERR-3, DEC-13)"; show status.c; }
wait "$sp" || { bad "peer commit-status (COMMIT-ERR-3)"; show peer-status.out; }
log "status: $(sed -n 's/^COMMIT PASS //p' "$R/status.c"); $(grep -h '^EXTPEER RESULT' "$R/peer-status.out")"

# ---------------------------------------------------------------- b
echo 4 >"$P/mpa_caps"
echo >"$T/trace"
commit_run nocaps pa "$SRV" 7802 pb 1 -- --no-commit
grep -q '^COMMIT PASS no-commit$' "$R/nocaps.c0" || bad "nocaps: Commit not refused at post time (DEC-4, COMMIT-DISC-1)"
grep -q siw2_dp_commit "$T/trace" && bad "nocaps: a Commit reached the peer"

# ---------------------------------------------------------------- c
siw_peer_load
cm_ns_pair pc pd 69
siw_link_add pc siw_c pc-v || fail "rdma link add siw_c"
siw2_link_add pd s2d pd-v || fail "rdma link add s2d"
wait_port_active siw_c || fail "siw_c port not ACTIVE"
wait_port_active s2d || fail "s2d port not ACTIVE"
echo 6 >"$P/mpa_caps"
commit_run siw pc 198.18.69.1 7803 pd 1 -- --no-commit
grep -q '^COMMIT PASS no-commit$' "$R/siw.c0" || bad "siw: Commit towards Linux siw not refused at post time (COMMIT-DISC-1)"
echo 6 >"$P/mpa_caps"

kill_all
if (( ${#bad[@]} )); then
	printf '  failed: %s\n' "${bad[@]}"
	fail "${#bad[@]} check(s) failed"
fi
for l in s2a s2b s2d; do
	siw2_link_del "$l" || fail "link delete $l"
done
siw_link_del siw_c || fail "link delete siw_c"
siw_peer_unload
siw2_assert_zero_counts
siw2_unload
log "all checks passed"
