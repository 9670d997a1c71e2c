#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The data path with rdma-core's rping, data verified: a server in namespace
# pa (198.18.8.1) and a client in pb, joined by veth (MTU 1500, so every
# message of more than one MSS is cut into several FPDUs).  Each run is
# "rping -s -S SIZE -v -V" against "rping -c -S SIZE -C COUNT -v -V";
# every round the client SENDs its buffer's address, the server RDMA READs
# the client's buffer, SENDs, the client SENDs a second address, the server
# RDMA WRITEs the data back and SENDs, and the client compares (-V).  So the
# server is the Read and Write requester, the client the Read and Write
# responder, and both send and receive.  Runs, for each pair of drivers
# (server:client):
#   - 1000-byte buffers, 20 rounds; 65535-byte buffers, 10 rounds
#     (65535 is rping's maximum: it refuses -S 65536 although its message
#     says "valid range is 23 to 65536");
#   - with siw2 on either side: siw2's mpa_crc=0 (nobody asks for CRC: off)
#     and mpa_crc=1 (siw2 asks, or as Responder insists: on);
#     siw <-> siw only without CRC (siw's mpa_crc_required and
#     mpa_crc_strict are compile-time constants, both false).
# Pairs (knob SIW2_DP_PAIRS, see below): siw2:siw2, siw2:siw (siw2 server,
# Linux siw client), siw:siw2, and siw:siw as the baseline.
#
# What a run must show:
#   - both exit 0 and neither prints an error (rping exits 0 even when the
#     connection or a completion fails, see 50-siw-peer.sh, so only the
#     output counts).  Normal stderr: "client DISCONNECT EVENT...",
#     "server DISCONNECT EVENT..." and the server's
#     "wait for RDMA_READ_ADV state 10" after the last round;
#   - COUNT "ping data" lines from the client (what the server wrote back)
#     and COUNT "server ping data" lines from the server (what it read), each
#     byte for byte equal to what rping's client puts in its buffer in that
#     round ("rdma-ping-N: " then the letters 'A'..'z' cycling from
#     'A' + N; the last byte is the terminating NUL).  The case rebuilds
#     that text itself, so the check does not rest on rping's -V alone;
#   - CRC on or off as intended, on both sides: siw2 reports the outcome of
#     each MPA exchange in the siw2:siw2_cep_conn trace event ("active|passive
#     rdma mode: rev 2 crc 0|1 ..."), siw in its dynamic debug message
#     "IBDEV: QP[n] ...: enter RTS: crc=y|n" (lib-peer.sh siw_dbg_rts).
#
# Where Linux siw is the server, a run that hangs with unread bytes in the
# server's socket hit siw's accept race (lib-peer.sh siw_rx_stalled): it is
# logged and repeated once (the first attempt kept as .try1).
# A failed run is listed and the case goes on with the next pair: the rest
# of that pair's runs are not run (they would most likely hang until their
# time limit too).  The case then fails, listing every failed and every
# skipped run.  Outputs: build/vm-logs/61-dp-rping/<pair>-crc<c>-<size>.{s,c}
# (stdout), .s.err/.c.err (stderr), .crc (trace and debug lines).
#
# Knob: SIW2_DP_PAIRS, comma or blank separated words, each a pair
# SRV:CLI (drivers siw2 or siw) or a preset: siw2 = siw2:siw2, siw2:siw,
# siw:siw2; siw = siw:siw; all = both.  Default "siw,siw2" (the baseline
# first).  The harness does not pass the host's environment into the
# guest; set it through the kernel command line, which the guest's init
# exports:  SIW2_VM_APPEND="SIW2_DP_PAIRS=siw" tests/vm/run.sh \
#   tests/vm/cases/61-dp-rping.sh
# (the case also reads it from /proc/cmdline).
#
# Seen with siw <-> siw (TCG guest, 2 vCPUs): one run takes 1.5-4 s; the
# whole case with every pair about 2 minutes.
# timeout: 420
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip rping timeout dmesg awk

# --- which pairs
pairs_knob=${SIW2_DP_PAIRS:-$(sed -n 's/.*\bSIW2_DP_PAIRS=\([^ ]*\).*/\1/p' /proc/cmdline)}
: "${pairs_knob:=siw,siw2}"
PAIRS=()
for w in ${pairs_knob//,/ }; do
	case $w in
	siw2) PAIRS+=(siw2:siw2 siw2:siw siw:siw2) ;;
	siw) PAIRS+=(siw:siw) ;;
	all) PAIRS+=(siw:siw siw2:siw2 siw2:siw siw:siw2) ;;
	siw2:siw2 | siw2:siw | siw:siw2 | siw:siw) PAIRS+=("$w") ;;
	*) fail "SIW2_DP_PAIRS: unknown word '$w' (siw2, siw, all or SRV:CLI with siw2/siw)" ;;
	esac
done
# Each pair once (their outputs are named after them).
dp_uniq_pairs
log "pairs (server:client): ${PAIRS[*]}"
want_siw2=0 want_siw=0
for p in "${PAIRS[@]}"; do
	[[ $p == *siw2* ]] && want_siw2=1
	[[ $p == siw:* || $p == *:siw ]] && want_siw=1
done

R=$SIW2_RESULTS
T=/sys/kernel/tracing
SRV=198.18.8.1
(( want_siw )) && siw_peer_load
if (( want_siw2 )); then
	siw2_load
	[[ -d $T/events/siw2 ]] || fail "no siw2 trace events in $T"
	echo 1 >"$T/events/siw2/siw2_cep_conn/enable" || fail "enable siw2_cep_conn"
fi
if (( want_siw )); then
	siw_dbg_rts || fail "cannot turn on siw's 'enter RTS' debug message"
fi
# Distinct interface indexes (see lib-cm.sh cm_ns_pair).
cm_ns_pair pa pb 8

# --- one run
srv_pid='' cli_pid=''
kill_all() {
	local p
	for p in $cli_pid $srv_pid; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	cli_pid='' srv_pid=''
}
trap kill_all EXIT

# show FILE...: the files, lines cut to 120 characters (rping's are long).
show() {
	local f
	for f in "$@"; do
		[[ -s $f ]] && cut -c1-120 "$f" | tail -n 30 | sed "s|^|  ${f##*/}: |"
	done
	return 0
}

FAILED=() NOTRUN=() port=7800 runs=0

# crc_check NAME SRVDRV CLIDRV CRC: both sides report CRC on (CRC=1) or
# off (0) for this run's connection.  Prints what is wrong, returns 1.
crc_check() {
	local name=$1 sd=$2 cd=$3 want=$4 yn ok=0 out=$R/$1.crc
	yn=n
	(( want )) && yn=y
	{
		if [[ $sd == siw2 || $cd == siw2 ]]; then
			grep -o '\(active\|passive\) rdma mode: .*' "$T/trace"
		fi
		kmsg_since "$name" | grep -o 'siw_[ab]: QP\[[0-9]*\] [a-z_]*: enter RTS: crc=.*'
	} >"$out"
	# The server is the MPA Responder (passive), the client the Initiator.
	if [[ $sd == siw2 ]]; then
		grep -Eq "^passive rdma mode: rev [12] crc $want " "$out" ||
			{ echo "siw2 server: no 'passive ... crc $want' trace line"; ok=1; }
	else
		grep -q "^siw_a: .*enter RTS: crc=$yn" "$out" ||
			{ echo "siw server: no 'siw_a: ... enter RTS: crc=$yn' line"; ok=1; }
	fi
	if [[ $cd == siw2 ]]; then
		grep -Eq "^active rdma mode: rev [12] crc $want " "$out" ||
			{ echo "siw2 client: no 'active ... crc $want' trace line"; ok=1; }
	else
		grep -q "^siw_b: .*enter RTS: crc=$yn" "$out" ||
			{ echo "siw client: no 'siw_b: ... enter RTS: crc=$yn' line"; ok=1; }
	fi
	(( ok == 0 )) || sed 's/^/    seen: /' "$out"
	return $ok
}

# rping_run NAME SRVDRV CLIDRV CRC SIZE COUNT: one server/client run;
# returns 1 (and records NAME in FAILED) on any failure.
rping_run() {
	local name=$1 sd=$2 cd=$3 crc=$4 size=$5 count=$6 o=$R/$1 rc src t0 why=()
	port=$((port + 1))
	runs=$((runs + 1))
	t0=${EPOCHREALTIME/./}
	kmsg_mark "$name"
	[[ -w $T/trace ]] && : >"$T/trace"
	ip netns exec pa rping -s -a "$SRV" -p "$port" -S "$size" -v -V \
		>"$o.s" 2>"$o.s.err" &
	srv_pid=$!
	if ! wait_tcp_listen "$srv_pid" "$port" 20; then
		kill_all
		show "$o.s" "$o.s.err"
		echo "$name: FAILED: server not listening on port $port after 20 s" >&2
		FAILED+=("$name: server not listening")
		return 1
	fi
	ip netns exec pb rping -c -a "$SRV" -p "$port" -S "$size" -C "$count" -v -V \
		>"$o.c" 2>"$o.c.err" &
	cli_pid=$!
	# siw <-> siw: 1.5-4 s per run.
	local probe=()
	[[ $sd == siw ]] && probe=(siw_rx_stalled pa "$port")
	reap rc "$cli_pid" 30 "${probe[@]}"
	local stall=$REAP_NOTE
	cli_pid=''
	reap src "$srv_pid" 15
	srv_pid=''

	case $rc in
	0) ;;
	124) why+=("client still running after 30 s, killed") ;;
	*) why+=("client rc $rc") ;;
	esac
	case $src in
	0) ;;
	124) why+=("server still running 15 s after the client, killed") ;;
	*) why+=("server rc $src") ;;
	esac
	grep -Eiq 'mismatch|fail|error|bogus|wait for' "$o.c" "$o.c.err" &&
		why+=("client reported errors")
	grep -Eiq 'mismatch|fail|error|bogus' "$o.s" "$o.s.err" &&
		why+=("server reported errors")
	local m
	m=$(rping_check_data "$o.c" 'ping data: ' "$size" "$count") ||
		why+=("client data (written by the server): $m")
	m=$(rping_check_data "$o.s" 'server ping data: ' "$size" "$count") ||
		why+=("server data (read from the client): $m")
	m=$(crc_check "$name" "$sd" "$cd" "$crc") || why+=("CRC: $m")
	if (( ${#why[@]} )) && [[ -n $stall && -z ${RP_RETRY:-} ]]; then
		log "RETRY: $name: hung with unread bytes in the siw server's socket (${stall//$'\n'/; }): Linux siw's accept race (lib-peer.sh siw_rx_stalled); once more"
		for m in "$o.c" "$o.c.err" "$o.s" "$o.s.err"; do
			mv "$m" "$m.try1"
		done
		runs=$((runs - 1))
		RP_RETRY=1 rping_run "$@"
		return
	fi
	if (( ${#why[@]} )); then
		show "$o.c" "$o.c.err" "$o.s" "$o.s.err"
		printf '%s\n' "${why[@]/#/$name: FAILED: }" >&2
		printf -v m '%s; ' "${why[@]}"
		FAILED+=("$name: ${m%; }")
		return 1
	fi
	log "ok $name: $count rounds of $size bytes, CRC $( ((crc)) && echo on || echo off) ($(( (${EPOCHREALTIME/./} - t0) / 1000 )) ms)"
}

RUNS=(1000:20 65535:10)
for pair in "${PAIRS[@]}"; do
	sd=${pair%:*} cd=${pair#*:}
	dp_pair_devices "$sd" "$cd"
	log "pair $pair: server $DP_DEV_A (pa), client $DP_DEV_B (pb)"
	crcs=0
	[[ $sd == siw2 || $cd == siw2 ]] && crcs='0 1'
	broken=''
	for crc in $crcs; do
		(( want_siw2 )) && { echo "$crc" >/sys/module/siw2/parameters/mpa_crc || fail "mpa_crc=$crc"; }
		for r in "${RUNS[@]}"; do
			name=${sd}-${cd}-crc$crc-${r%:*}
			if [[ -n $broken ]]; then
				NOTRUN+=("$name (after $broken failed)")
				continue
			fi
			rping_run "$name" "$sd" "$cd" "$crc" "${r%:*}" "${r#*:}" || broken=$name
		done
	done
done
(( want_siw2 )) && echo 0 >/sys/module/siw2/parameters/mpa_crc

# --- teardown: devices, modules, leaks
for d in $DP_DEV_A $DP_DEV_B; do
	wait_until 20 dp_no_resources_on "$d" || { rdma resource show; fail "rdma resources left on $d"; }
	timeout 60 rdma link delete "$d" || fail "rdma link delete $d"
done
if (( want_siw2 )); then
	echo 0 >"$T/events/siw2/siw2_cep_conn/enable"
	siw2_assert_zero_counts
	siw2_unload
fi
(( want_siw )) && siw_peer_unload

if (( ${#FAILED[@]} || ${#NOTRUN[@]} )); then
	printf 'failed: %s\n' "${FAILED[@]}" >&2
	(( ${#NOTRUN[@]} )) && printf 'not run: %s\n' "${NOTRUN[@]}" >&2
	fail "${#FAILED[@]} of $runs rping runs failed, ${#NOTRUN[@]} not run"
fi
log "ok: $runs rping runs"
