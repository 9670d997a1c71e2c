# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# perftest runs between the namespaces pa (server, $SRV) and pb (client)
# of cm_ns_pair, shared by 62-dp-perftest.sh and 67-perftest-defaults.sh.
# Source after lib.sh, lib-peer.sh and lib-cm.sh, set R (results dir) and
# SRV (the server's address), create the namespaces and the devices
# (dp_pair_devices sets DP_DEV_A in pa and DP_DEV_B in pb), then:
#
#   pt_start             start the anchor process in pa (for pa-v's byte
#                        counters) and the summary file $R/summary.txt
#   pt_run PAIR TOOL SIZE [ITERS]
#                        one checked run; with Linux siw at one end repeated
#                        once after a known fault of such pairs (see
#                        pt_run), siw2 <-> siw2 never; on failure it is
#                        listed in FAILED and returns 1
#   pt_try PAIR TOOL SIZE ITERS OUT
#                        one run without repetition; sets WHY, CRES, SRES
#   pt_end               kill_all, print the summary, wait until no rdma
#                        resource is left on DP_DEV_A/DP_DEV_B, delete them
#   kill_all             kill what is still running (also on EXIT)
#   uptime_s             guest uptime in whole seconds
#
# PT_OPTS: extra perftest options of both sides, PT_TAG: the tag they add
# to the run's name.  PT_TMO: the client's time limit (default 45 s).
# Atomic tools (ib_atomic_*) get no -s: their size is 8 octets.
# What a run checks is written at the top of 62-dp-perftest.sh.

FAILED=() NOTRUN=() port=7900 runs=0
PT_OPTS=() PT_TAG=''
srv_pid='' cli_pid='' anchor=''

kill_all() {
	local p
	for p in $cli_pid $srv_pid $anchor; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	cli_pid='' srv_pid='' anchor=''
}

# pt_start: a process in pa, for pa-v's byte counters; the summary header.
pt_start() {
	ip netns exec pa sleep 100000 &
	anchor=$!
	trap kill_all EXIT
	wait_until 10 eval "grep -q pa-v: /proc/$anchor/net/dev" ||
		fail "no pa-v in the anchor's namespace"
	printf '%-18s %-13s %8s %5s  %-34s %-34s %s\n' pair tool size iters \
		client server ms >"$R/summary.txt"
}

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
# or what is wrong and return 1.  Every field must be a finite decimal
# number: "inf" (what the lat tools print when perftest's clock
# calibration failed, "Correlation coefficient r^2: ... < 0.9") or any
# other word fails the run, since it measured nothing.
result() {
	awk -v kind="$2" -v size="$3" -v iters="$4" '
	function num(v) { return v ~ /^[0-9]+(\.[0-9]+)?$/ }
	function pos(v) { return num(v) && v + 0 > 0 }
	/^ *#bytes/ { hdr = 1; next }
	hdr && !found && $1 ~ /^[0-9]+$/ && NF >= 5 {
		found = 1
		# Every figure must be a number, except the standard deviation
		# of a latency run (field 7): perftest takes the square
		# root of a variance that rounding can make negative when
		# every sample is alike or there are few (-nan seen with 5
		# iterations of 1 MiB), which says nothing about the run.
		for (i = 2; i <= NF; i++)
			if (!num($i) && nan == "" &&
			    !(kind == "lat" && i == 7 && $i ~ /^-?nan$/))
				nan = "field " i " is \"" $i "\", not a number"
		if ($1 != size || (iters ~ /^D/ ? $2 + 0 < 1 : $2 != iters))
			bad = "result line for " $1 " B x " $2 ", not " size " x " iters
		else if (nan != "")
			bad = nan
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
		line = $0
	}
	END {
		if (!found) { print "no result line"; exit 1 }
		if (bad != "") { print bad ": " line; exit 1 }
		print res
	}' "$1"
}

# pt_try PAIR TOOL SIZE ITERS OUT: one server/client run, outputs OUT.s
# and OUT.c; sets WHY (what went wrong, empty if nothing), CRES, SRES.
pt_try() {
	local pair=$1 tool=$2 size=$3 iters=$4 o=$5 kind=bw rc src m b0 b1 drx dtx
	local -a count=(-n "$iters")
	[[ $tool == *_lat ]] && kind=lat
	# D<secs>: perftest's duration mode instead of an iteration count; a
	# slower (debug) kernel stretches it so that the measured part still
	# holds completions.
	[[ $iters == D* ]] && count=(-D "$(( ${iters#D} * ${SIW2_TIMEOUT_SCALE:-1} ))")
	local -a sz=(-s "$size")
	[[ $tool == ib_atomic_* ]] && sz=()
	WHY=() CRES=- SRES=- STALL=
	port=$((port + 1))
	b0=$(pa_bytes)
	perftest_trace_mark "$o"
	ip netns exec pa stdbuf -oL "$tool" -R -d "$DP_DEV_A" -p "$port" \
		"${sz[@]}" "${count[@]}" "${PT_OPTS[@]}" >"$o.s" 2>&1 &
	srv_pid=$!
	if ! wait_tcp_listen "$srv_pid" "$port" 20; then
		kill_srv
		WHY=("server not listening on port $port after 20 s")
		return 1
	fi
	ip netns exec pb stdbuf -oL "$tool" -R -d "$DP_DEV_B" -p "$port" \
		"${sz[@]}" "${count[@]}" "${PT_OPTS[@]}" "$SRV" >"$o.c" 2>&1 &
	cli_pid=$!
	local probe=()
	[[ $pair == siw:* ]] && probe=(siw_rx_stalled pa "$port")
	# A hung client: where it waits, and the connections' state.
	pt_hang_info "$cli_pid" "$srv_pid" >"$o.hang" 2>&1 &
	local hpid=$!
	reap rc "$cli_pid" "${PT_TMO:-45}" "${probe[@]}"
	STALL=$REAP_NOTE
	kill "$hpid" 2>/dev/null
	wait "$hpid" 2>/dev/null
	[[ -s $o.hang ]] || rm -f "$o.hang"
	cli_pid=''
	reap src "$srv_pid" 15
	srv_pid=''
	b1=$(pa_bytes)
	drx=$(( ${b1% *} - ${b0% *} )) dtx=$(( ${b1#* } - ${b0#* } ))

	case $rc in
	0) ;;
	124) WHY+=("client still running after ${PT_TMO:-45} s, killed")
	     [[ -s $o.hang ]] && show "$o.hang" ;;
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
	grep -q 'Correlation coefficient' "$o.c" "$o.s" &&
		WHY+=("perftest's clock calibration failed (r^2 < 0.9): no time base")
	CRES=$(result "$o.c" "$kind" "$size" "$iters") || WHY+=("client: $CRES")
	# The passive server of a Read or Atomic ping-pong prints no result.
	if [[ $tool != ib_read_lat && $tool != ib_atomic_lat ]]; then
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

# pt_run PAIR TOOL SIZE: pt_try; returns 1 (and records it in FAILED) on
# any failure.  A failure is repeated once (logged; the first attempt kept
# as .try1) only when it is one of two faults outside siw2:
#  - a Linux siw server's accept race (lib-peer.sh siw_rx_stalled): the
#    run hangs with unread bytes in the siw server's socket;
#  - perftest's data connection refused because the server was not
#    listening again yet.  With -R perftest connects twice: first for its
#    own parameter exchange, then for the data QP, for which the server
#    listens anew after the first; a client that comes before that gets a
#    TCP reset (REJECTED -111 with a siw2 client, "Connection refused" in
#    a Linux siw client's rdma_connect), and perftest 4.5-0.17's own retry
#    then crashes in librdmacm.  Seen first with Linux siw servers (see
#    the top of 62-dp-perftest.sh), then with a siw2 server on a busy
#    host (ib_read_lat, 888 octets of the first connection on the wire).
#    Repeated only when the client says exactly that, the server
#    reported no error of its own, and the trace holds the witness that
#    nothing listened (lib-peer.sh perftest_no_listener: the kernel's TCP
#    reset with reason NO_SOCKET from the port, or a siw2 client's
#    handshake ended by a reset, status -111), with no MPA reject;
#  - perftest's clock calibration failed ("Correlation coefficient r^2 <
#    0.9": it times the CPU against the clock at start, which a busy TCG
#    host can spoil): no time base, so the figures mean nothing (they may
#    be "inf"). Seen once in a siw2 <-> siw2 ib_send_lat at 1 MiB, and in
#    an ib_send_bw server at 4 KiB, which then exits 1 and flushes its
#    client's completions (2026-11-26, host building a kernel).
# Any other failure of a siw2 <-> siw2 run fails the case at once, and a
# repeat must pass on its own.
# pt_calibration_only OUT: WHY holds perftest's calibration failure and
# nothing else but the figures it spoiled and the exit codes, no side
# hung, and OUT.c and OUT.s hold no other error (lib-peer.sh
# perftest_calibration_only).
pt_calibration_only() {
	local w cal=0
	for w in "${WHY[@]}"; do
		case $w in
		"perftest's clock calibration"*) cal=1 ;;
		"client: "* | "server: "*) ;;
		"client rc 1" | "server rc 1" | "client reported errors" | "server reported errors") ;;
		*) return 1 ;;
		esac
	done
	(( cal )) && perftest_calibration_only "$1.c" "$1.s"
}

# pt_again PAIR OUT: after a failed pt_try, echo why it may be repeated
# once (one of the faults outside siw2 listed above); nothing otherwise.
pt_again() {
	local pair=$1 o=$2 wit
	if [[ -n $STALL && ( $pair == siw:* || $pair == *:siw ) ]]; then
		echo "hung with unread bytes in the siw server's socket (${STALL//$'\n'/; }): Linux siw's accept race (lib-peer.sh siw_rx_stalled)"
	elif perftest_cm_race "$o.c" "$o.s" && wit=$(perftest_no_listener "$o" "$port"); then
		echo "perftest's data connection came before its ${pair%%:*} server listened again (REJECTED -111 / Connection refused; perftest's own retry then fails; trace: $wit)"
	elif pt_calibration_only "$o"; then
		echo "perftest's clock calibration failed, the run's only fault besides the figures it spoiled"
	fi
}

# pt_try_again PAIR TOOL SIZE ITERS OUT: pt_try, repeated once (logged,
# the first attempt kept as OUT.c.try1 and OUT.s.try1) when pt_again
# names a reason.
pt_try_again() {
	local o=$5 again f
	pt_try "$@" && return 0
	again=$(pt_again "$1" "$o")
	[[ -n $again ]] || return 1
	log "RETRY: $1/$2-$3: $again; once more"
	for f in "$o.c" "$o.s"; do
		mv "$f" "$f.try1"
	done
	pt_try "$@"
}

pt_run() {
	local pair=$1 tool=$2 size=$3 iters=${4:-20} name o t0 m
	[[ -z ${4:-} ]] && (( size >= 1048576 )) && iters=5
	name=$pair/$tool-$size${4:+-$4}${PT_TAG:+-$PT_TAG}
	o=$R/${pair//:/-}/$tool-$size${4:+-$4}${PT_TAG:+-$PT_TAG}
	mkdir -p "${o%/*}"
	runs=$((runs + 1))
	t0=${EPOCHREALTIME/./}
	pt_try_again "$pair" "$tool" "$size" "$iters" "$o"
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

# pt_end: stop what runs, print the summary, then wait until the devices
# hold no rdma resource (a process holding an rdma_cm id blocks the
# delete) and delete them.
pt_end() {
	local d
	kill_all
	cat "$R/summary.txt"
	for d in $DP_DEV_A $DP_DEV_B; do
		wait_until 20 dp_no_resources_on "$d" ||
			{ rdma resource show; fail "rdma resources left on $d"; }
		timeout 60 rdma link delete "$d" || fail "rdma link delete $d"
	done
}

# pt_hang_info CLIENT SERVER: shortly before the client's time is up,
# record what it and the server wait on (task state, kernel stacks) and
# the endpoints siw2 and TCP still hold; prints nothing if it ended.
pt_hang_info() {
	local c=$1 s=$2 p t
	sleep $(( ${PT_TMO:-45} - 3 ))
	kill -0 "$c" 2>/dev/null || return 0
	for p in "$c" "$s"; do
		[[ -n $p && -d /proc/$p ]] || continue
		echo "== $p $(tr '\0' ' ' </proc/"$p"/cmdline)"
		grep State /proc/"$p"/status
		for t in /proc/"$p"/task/*; do
			echo "-- task ${t##*/} $(cat "$t"/comm) wchan $(cat "$t"/wchan)"
			cat "$t"/stack
		done
	done
	cat "$SIW2_DEBUGFS"/*/conns 2>/dev/null
	ip netns exec pb ss -tni 2>/dev/null
	ip netns exec pa ss -tni 2>/dev/null
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
