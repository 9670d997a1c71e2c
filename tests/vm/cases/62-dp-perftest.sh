#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The data path under perftest (4.5+0.17, over rdma_cm: -R): ib_send_bw,
# ib_write_bw, ib_read_bw, ib_send_lat, ib_write_lat and ib_read_lat at
# 1 B, 64 B, 4 KiB, 64 KiB and 1 MiB, one QP, the server in namespace pa
# (198.18.10.1), the client in pb, joined by veth (MTU 1500: a message
# longer than one MSS becomes several FPDUs).  20 iterations (-n), 5 at
# 1 MiB.  Where siw2 is the Read Responder, ib_read_bw also runs for 4 s
# at 64 KiB (-D 4), which keeps the IRD full (128 Reads in flight), and
# ib_send_bw --use-srq at 64 B and 64 KiB (the receiver's SRQ).
# Pairs (server:client:tools; knob SIW2_DP_PAIRS, see below):
#   - siw2:siw2:all  every tool at every size;
#   - siw2:siw:bw    Linux siw client, siw2 server, the three bw tools: the
#                    client is the requester, so siw2 is the Send receiver,
#                    the Write target and the Read Responder;
#   - siw:siw2:lat   siw2 client, Linux siw server, the three lat tools:
#                    Send and Write ping-pong (siw2 sends and receives) and
#                    siw2 as the Read requester.
# With siw at one end each operation thus runs with siw2 in both roles;
# each tool runs in one direction (the runtime would double otherwise).
# siw2:siw2 runs in peer-to-peer mode (peer_to_peer=1, an RTR first):
# ib_write_lat's server writes first, which a client-server Responder may
# not do (MPA fencing, BASE-MPA-11: it waits for the client, which waits
# for it).  The other pairs run client-server, as Linux siw must.
#
# What perftest checks, and what this case adds: perftest 4.5 verifies no
# data for any of these tests (there is no validation option; the
# receiver of ib_send_bw does not look at the bytes; ib_write_lat waits
# until the last byte of each message holds the iteration number, so a
# lost Write, or its last byte, makes it hang).  So a run passes when
#   - both sides exit 0 within their time limit, and neither prints an
#     error ("error|fail|unable|couldn't|can't|invalid|not supported"; a
#     failing rdma_disconnect() counts too: "Failed to disconnect RDMA CM
#     connection. ERRNO: ...");
#   - the client prints its result line with the size and iteration count
#     asked for and a nonzero result: MsgRate (and, from 4 KiB on, the
#     average bandwidth: below that it rounds to 0.00 MB/sec under TCG) for
#     bw, t_typical and t_avg for lat.  The server's result line is checked
#     the same way, except for ib_read_lat, whose server prints none;
#   - the bytes moved on the veth (pa-v's counters, read from
#     /proc/PID/net/dev of a process in pa) cover the payload at least
#     once in the direction of the data: client to server for Send and
#     Write bw, server to client for Read, both ways for the Send and
#     Write ping-pong.  This catches completions without data; the content
#     itself is checked by 61-dp-rping.sh (and the provider's own tests).
# Sizes: every tool accepts 1 B to 1 MiB on siw and siw2 (ib_read_* and
# the lat tests at 1 B too).  perftest disables inline data for both
# ("Device not recognized to implement inline feature"): not tested here.
#
# A failure is listed and the case goes on; the larger sizes of the same
# tool in the same pair are not run (a hang costs the client's 45 s), nor
# is anything started after SIW2_DP_BUDGET seconds of guest uptime
# (default 480; the case's timeout is 600).  The case then fails, listing
# every failed and skipped run.  Outputs: build/vm-logs/62-dp-perftest/
# <pair>/<tool>-<size>.{s,c} (server and client, stdout and stderr) and
# summary.txt (one line per run: pair, tool, size, iterations, client and
# server results, time).
#
# Knobs (the harness does not pass the host's environment into the guest:
# put them on the kernel command line, which the guest's init exports,
# e.g. SIW2_VM_APPEND="SIW2_DP_PAIRS=siw SIW2_DP_SIZES=1,4096"; the case
# also reads them from /proc/cmdline):
#   SIW2_DP_PAIRS  comma or blank separated: SRV:CLI[:all|bw|lat] with
#                  drivers siw2/siw, or a preset: siw2 (the three pairs
#                  above, the default), siw (siw:siw:all, the baseline), all
#   SIW2_DP_SIZES  sizes in bytes, comma separated (default
#                  1,64,4096,65536,1048576)
#   SIW2_DP_CRC    siw2's mpa_crc during the case (default 0: CRC off with
#                  these peers; 1: CRC on everywhere siw2 is)
#   SIW2_DP_BUDGET guest uptime in seconds after which no run starts
#
# Facts (rdma-core 44, perftest 4.5+0.17, siw of 6.12.117, TCG guest):
#  - -R is needed on iWARP; the server listens on the wildcard address, so
#    Linux siw needs distinct veth ifindexes (lib-cm.sh cm_ns_pair);
#  - "-d DEV" on both sides: without it perftest opens the first device of
#    the list, which may be the other namespace's;
#  - readiness: the server's TCP listening socket (lib-peer.sh
#    wait_tcp_listen), polled without starting processes, not perftest's
#    "Waiting for client" banners (the first comes before any set-up);
#  - perftest calibrates its cycle counter against gettimeofday() at start
#    (200 samples, ~0.2 s of busy loop) and gives up below r^2 = 0.9
#    ("Correlation coefficient r^2: 0.88 < 0.9"), which happens under TCG
#    when the host is busy: the lat tools then print "inf" for every time,
#    the bw tools print "Can't produce a report" and exit 1 (their peer
#    then sees a flushed completion, status 5).  Such a failed run is
#    repeated once (the first attempt is kept as .try1);
#  - after the handshake on its first connection, the perftest client
#    connects the data QP at once, possibly before the server listens
#    again: REJECTED -111 (nothing listens).  perftest 4.5-0.17 then
#    retries with the cm ids it has just destroyed and crashes in
#    librdmacm (general protection fault; fixed upstream by 3d9d8d0,
#    "Fix crashes and logical flaws in RDMA CM connection retry", in
#    26.04).  A Linux siw client fails in rdma_connect itself instead
#    ("ERRNO: Connection refused").  Seen in CI with both: repeated once;
#  - Linux siw's accept race (lib-peer.sh siw_rx_stalled): where siw is
#    the server, a run that hangs with unread bytes in the server's socket
#    is repeated once the same way;
#  - siw <-> siw on this veth: about 4 ms per message round trip (one
#    jiffy at HZ=250) whatever the size up to 64 KiB, and 1 MiB Writes at
#    about 3 MB/s: TCG, not siw's speed; a run takes 3-6 s, mostly process
#    start and perftest's set-up.
# timeout: 600
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

TOOLS_BW="ib_send_bw ib_write_bw ib_read_bw"
TOOLS_LAT="ib_send_lat ib_write_lat ib_read_lat"
# shellcheck disable=SC2086
need rdma ip stdbuf awk $TOOLS_BW $TOOLS_LAT

# knob NAME DEFAULT: the environment's value, else the kernel command
# line's, else DEFAULT.
knob() {
	local v=${!1:-}
	[[ -n $v ]] || v=$(sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" /proc/cmdline)
	echo "${v:-$2}"
}
pairs_knob=$(knob SIW2_DP_PAIRS siw2)
SIZES=$(knob SIW2_DP_SIZES 1,64,4096,65536,1048576)
SIZES=${SIZES//,/ }
CRC=$(knob SIW2_DP_CRC 0)
BUDGET=$(knob SIW2_DP_BUDGET 480)

PAIRS=()
for w in ${pairs_knob//,/ }; do
	case $w in
	siw2) PAIRS+=(siw2:siw2:all siw2:siw:bw siw:siw2:lat) ;;
	siw) PAIRS+=(siw:siw:all) ;;
	all) PAIRS+=(siw:siw:all siw2:siw2:all siw2:siw:bw siw:siw2:lat) ;;
	siw2:siw2 | siw2:siw | siw:siw2 | siw:siw) PAIRS+=("$w:all") ;;
	siw2:siw2:* | siw2:siw:* | siw:siw2:* | siw:siw:*)
		[[ ${w##*:} =~ ^(all|bw|lat)$ ]] || fail "SIW2_DP_PAIRS: bad tool set in '$w'"
		PAIRS+=("$w") ;;
	*) fail "SIW2_DP_PAIRS: unknown word '$w' (siw2, siw, all or SRV:CLI[:all|bw|lat])" ;;
	esac
done
# Each pair once (their outputs are named after them).
dp_uniq_pairs
log "pairs (server:client:tools): ${PAIRS[*]}"
want_siw2=0 want_siw=0
for p in "${PAIRS[@]}"; do
	p=${p%:*}
	[[ $p == *siw2* ]] && want_siw2=1
	[[ $p == siw:* || $p == *:siw ]] && want_siw=1
done

R=$SIW2_RESULTS
SRV=198.18.10.1
(( want_siw )) && siw_peer_load
if (( want_siw2 )); then
	siw2_load
	echo "$CRC" >/sys/module/siw2/parameters/mpa_crc || fail "mpa_crc=$CRC"
fi
cm_ns_pair pa pb 10

# A process in pa, for pa-v's byte counters.
ip netns exec pa sleep 100000 &
anchor=$!
srv_pid='' cli_pid=''
kill_all() {
	local p
	for p in $cli_pid $srv_pid $anchor; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	cli_pid='' srv_pid='' anchor=''
}
trap kill_all EXIT
wait_until 10 eval "grep -q pa-v: /proc/$anchor/net/dev" || fail "no pa-v in the anchor's namespace"

# pa_bytes: "RX TX" byte counters of pa-v.
pa_bytes() {
	local name rx tx rest
	while read -r name rx _ _ _ _ _ _ _ tx rest; do
		[[ $name == pa-v: ]] && { echo "$rx $tx"; return 0; }
	done <"/proc/$anchor/net/dev"
	return 1
}

show() {
	local f
	for f in "$@"; do
		[[ -s $f ]] && tail -n 25 "$f" | sed "s|^|  ${f#"$R"/}: |"
	done
	return 0
}

# result FILE bw|lat SIZE ITERS: check the result line (the first line
# after the "#bytes" header that starts with a number); print its numbers,
# or what is wrong and return 1.  "inf" is accepted only after perftest's
# own "Correlation coefficient r^2: ... < 0.9" warning: its CPU clock
# calibration failed (seen under TCG on a loaded host), so it has no
# time base, but the run itself completed.
result() {
	awk -v kind="$2" -v size="$3" -v iters="$4" '
	function pos(v) { return v == "inf" ? calib : v + 0 > 0 }
	/Correlation coefficient/ { calib = 1 }
	/^ *#bytes/ { hdr = 1; next }
	hdr && !found && $1 ~ /^[0-9]+$/ && NF >= 5 {
		found = 1
		if ($1 != size || (iters ~ /^D/ ? $2 + 0 < 1 : $2 != iters))
			bad = "result line for " $1 " B x " $2 ", not " size " x " iters
		else if (kind == "bw" && !pos($4) && !pos($5))
			bad = "BW average and MsgRate 0"
		else if (kind == "bw" && size >= 4096 && !pos($4))
			bad = "BW average 0"
		else if (kind == "lat" && !(pos($5) && pos($6)))
			bad = "latency 0"
		if (kind == "bw")
			res = sprintf("%s MB/s %s Mpps", $4, $5)
		else
			res = sprintf("t_typical %s us t_avg %s us", $5, $6)
		if (calib)
			res = res " (no clock)"
		line = $0
	}
	END {
		if (!found) { print "no result line"; exit 1 }
		if (bad != "") { print bad ": " line; exit 1 }
		print res
	}' "$1"
}

FAILED=() NOTRUN=() port=7900 runs=0
printf '%-18s %-13s %8s %5s  %-34s %-34s %s\n' pair tool size iters client server ms >"$R/summary.txt"

# pt_try PAIR TOOL SIZE ITERS OUT: one server/client run, outputs OUT.s
# and OUT.c; sets WHY (what went wrong, empty if nothing), CRES, SRES.
pt_try() {
	local pair=$1 tool=$2 size=$3 iters=$4 o=$5 kind=bw rc src m b0 b1 drx dtx
	local -a count=(-n "$iters")
	[[ $tool == *_lat ]] && kind=lat
	# D<secs>: perftest's duration mode instead of an iteration count.
	[[ $iters == D* ]] && count=(-D "${iters#D}")
	WHY=() CRES=- SRES=- STALL=
	port=$((port + 1))
	b0=$(pa_bytes)
	ip netns exec pa stdbuf -oL "$tool" -R -d "$DP_DEV_A" -p "$port" \
		-s "$size" "${count[@]}" "${PT_OPTS[@]}" >"$o.s" 2>&1 &
	srv_pid=$!
	if ! wait_tcp_listen "$srv_pid" "$port" 20; then
		kill_srv
		WHY=("server not listening on port $port after 20 s")
		return 1
	fi
	ip netns exec pb stdbuf -oL "$tool" -R -d "$DP_DEV_B" -p "$port" \
		-s "$size" "${count[@]}" "${PT_OPTS[@]}" "$SRV" >"$o.c" 2>&1 &
	cli_pid=$!
	local probe=()
	[[ $pair == siw:* ]] && probe=(siw_rx_stalled pa "$port")
	reap rc "$cli_pid" 45 "${probe[@]}"
	STALL=$REAP_NOTE
	cli_pid=''
	reap src "$srv_pid" 15
	srv_pid=''
	b1=$(pa_bytes)
	drx=$(( ${b1% *} - ${b0% *} )) dtx=$(( ${b1#* } - ${b0#* } ))

	case $rc in
	0) ;;
	124) WHY+=("client still running after 45 s, killed") ;;
	*) WHY+=("client rc $rc") ;;
	esac
	case $src in
	0) ;;
	124) WHY+=("server still running 15 s after the client, killed") ;;
	*) WHY+=("server rc $src") ;;
	esac
	grep -Eiq "error|fail|unable|couldn'?t|can'?t|invalid|not supported" "$o.c" &&
		WHY+=("client reported errors")
	grep -Eiq "error|fail|unable|couldn'?t|can'?t|invalid|not supported" "$o.s" &&
		WHY+=("server reported errors")
	CRES=$(result "$o.c" "$kind" "$size" "$iters") || WHY+=("client: $CRES")
	if [[ $tool != ib_read_lat ]]; then
		SRES=$(result "$o.s" "$kind" "$size" "$iters") || WHY+=("server: $SRES")
	fi
	# Payload on the wire, in the direction(s) of the data.
	if [[ $iters == D* ]]; then
		m=$(awk '/^ *#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print $1 * $2; exit }' "$o.c")
		m=${m:-1}
	else
		m=$((size * iters))
	fi
	case $tool in
	ib_send_bw | ib_write_bw) (( drx >= m )) || WHY+=("pa-v received $drx bytes, payload $m") ;;
	ib_read_bw | ib_read_lat) (( dtx >= m )) || WHY+=("pa-v sent $dtx bytes, payload $m") ;;
	*) (( drx >= m && dtx >= m )) || WHY+=("pa-v received $drx and sent $dtx bytes, payload $m each way") ;;
	esac
	(( ${#WHY[@]} == 0 ))
}

# Extra perftest options of both sides (PT_OPTS) and the tag they add to
# the run's name (PT_TAG).
PT_OPTS=() PT_TAG=''

# pt_run PAIR TOOL SIZE: pt_try, once more if the failed attempt shows
# one of the known faults of the tools or of Linux siw (see the top):
# perftest's clock calibration failure (its bw tools then exit 1 with
# "Can't produce a report", and the other side sees its QP flushed), the
# data connection refused before the server listened, or siw's accept
# race; returns 1 (and records it in FAILED) on any failure.
pt_run() {
	local pair=$1 tool=$2 size=$3 iters=${4:-20} name o t0 m f again
	[[ -z ${4:-} ]] && (( size >= 1048576 )) && iters=5
	name=$pair/$tool-$size${4:+-$4}${PT_TAG:+-$PT_TAG}
	o=$R/${pair//:/-}/$tool-$size${4:+-$4}${PT_TAG:+-$PT_TAG}
	mkdir -p "${o%/*}"
	runs=$((runs + 1))
	t0=${EPOCHREALTIME/./}
	if ! pt_try "$pair" "$tool" "$size" "$iters" "$o"; then
		again=''
		if [[ -n $STALL ]]; then
			again="hung with unread bytes in the siw server's socket (${STALL//$'\n'/; }): Linux siw's accept race (lib-peer.sh siw_rx_stalled)"
		elif grep -Eq 'RDMA_CM_EVENT_REJECTED; error: -111|ERRNO: Connection refused' "$o.c"; then
			again="the client's data connection came before the server listened (REJECTED -111; perftest's retry then fails, see the top)"
		elif grep -q 'Correlation coefficient' "$o.c" "$o.s"; then
			printf -v m '%s; ' "${WHY[@]}"
			again="perftest's clock calibration failed (${m%; })"
		fi
		if [[ -n $again ]]; then
			log "$name: $again; once more"
			for f in "$o.c" "$o.s"; do
				mv "$f" "$f.try1"
			done
			pt_try "$pair" "$tool" "$size" "$iters" "$o"
		fi
	fi
	t0=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
	printf '%-18s %-13s %8s %5s  %-34s %-34s %s\n' "$pair" "$tool" "$size" "$iters" \
		"${CRES//$'\n'/ }" "${SRES//$'\n'/ }" "$t0" >>"$R/summary.txt"
	if (( ${#WHY[@]} )); then
		show "$o.c" "$o.s"
		printf '%s\n' "${WHY[@]/#/$name: FAILED: }" >&2
		printf -v m '%s; ' "${WHY[@]}"
		FAILED+=("$name: ${m%; }")
		return 1
	fi
	log "ok $name x $iters: $CRES ($t0 ms)"
}

kill_srv() {
	[[ -n $srv_pid ]] || return 0
	kill -9 "$srv_pid" 2>/dev/null
	wait "$srv_pid" 2>/dev/null
	srv_pid=''
}

uptime_s() {
	local up
	read -r up _ </proc/uptime
	echo "${up%.*}"
}

for pair in "${PAIRS[@]}"; do
	set=${pair##*:} drv=${pair%:*}
	sd=${drv%:*} cd=${drv#*:}
	case $set in
	all) tools="$TOOLS_BW $TOOLS_LAT" ;;
	bw) tools=$TOOLS_BW ;;
	lat) tools=$TOOLS_LAT ;;
	esac
	# ib_write_lat's server sends first: siw2's client-server Responder
	# may not (MPA fencing, BASE-MPA-11), so siw2 clients of siw2 ask for
	# peer-to-peer mode and open with an RTR.  Never towards Linux siw,
	# which drops the RTR (see 53-cm-mpa-params.sh).
	if [[ $sd == siw2 && $cd == siw2 ]]; then
		echo 1 >/sys/module/siw2/parameters/peer_to_peer
	elif (( want_siw2 )); then
		echo 0 >/sys/module/siw2/parameters/peer_to_peer
	fi
	dp_pair_devices "$sd" "$cd"
	log "pair $pair: server $DP_DEV_A (pa), client $DP_DEV_B (pb), sizes $SIZES"
	# Reads kept in flight for seconds fill siw2's IRD (perftest keeps
	# 128 outstanding): the IRD slot of a Response must be free by the
	# time the Requester can send its next Read (a race on veth).
	if [[ $sd == siw2 && $set != lat ]]; then
		if (( $(uptime_s) >= BUDGET )); then
			NOTRUN+=("$pair/ib_read_bw-65536-D4 (time budget)")
		else
			pt_run "$pair" ib_read_bw 65536 D4
		fi
	fi
	# The server's receives from a shared receive queue (ib_send_bw's
	# server only receives; the client's SRQ is idle).
	if [[ $sd == siw2 && $set != lat ]]; then
		PT_OPTS=(--use-srq) PT_TAG=srq
		for size in 64 65536; do
			if (( $(uptime_s) >= BUDGET )); then
				NOTRUN+=("$pair/ib_send_bw-$size-srq (time budget)")
			else
				pt_run "$pair" ib_send_bw "$size"
			fi
		done
		PT_OPTS=() PT_TAG=''
	fi
	for tool in $tools; do
		broken=''
		for size in $SIZES; do
			if [[ -n $broken ]]; then
				NOTRUN+=("$pair/$tool-$size (after $broken)")
			elif (( $(uptime_s) >= BUDGET )); then
				NOTRUN+=("$pair/$tool-$size (time budget: ${BUDGET} s of uptime)")
			else
				pt_run "$pair" "$tool" "$size" || broken="$tool-$size failed"
			fi
		done
	done
done
kill_all
cat "$R/summary.txt"

# --- teardown: devices, modules, leaks
for d in $DP_DEV_A $DP_DEV_B; do
	wait_until 20 dp_no_resources_on "$d" || { rdma resource show; fail "rdma resources left on $d"; }
	timeout 60 rdma link delete "$d" || fail "rdma link delete $d"
done
if (( want_siw2 )); then
	echo 0 >/sys/module/siw2/parameters/mpa_crc
	echo 0 >/sys/module/siw2/parameters/peer_to_peer
	siw2_assert_zero_counts
	siw2_unload
fi
(( want_siw )) && siw_peer_unload

if (( ${#FAILED[@]} || ${#NOTRUN[@]} )); then
	printf 'failed: %s\n' "${FAILED[@]}" >&2
	(( ${#NOTRUN[@]} )) && printf 'not run: %s\n' "${NOTRUN[@]}" >&2
	fail "${#FAILED[@]} of $runs perftest runs failed, ${#NOTRUN[@]} not run"
fi
log "ok: $runs perftest runs"
