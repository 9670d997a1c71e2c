# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Guest-side helpers for cases that use Linux's own software iWARP driver
# (siw) as the interoperability peer of siw2.  Source after lib.sh:
#     source "$SIW2_TOP/tests/vm/lib.sh"
#     source "$SIW2_TOP/tests/vm/lib-peer.sh"
#
# Debian's 6.12 kernel has no siw (CONFIG_RDMA_SIW unset); tools/build-siw.sh
# builds it on the host from linux-source-6.12 into
# ${XDG_CACHE_HOME:-$HOME/.cache}/siw2-peer/<kver>/src/siw.ko, outside the
# repo.  The guest sees that file through the read-only 9p root and insmods
# it from there.  rdma-core's libsiw-rdmav34.so (/etc/libibverbs.d/siw.driver)
# is the user-space provider of siw devices; libibverbs loads it also when
# RDMAV_DRIVERS points at the siw2 provider.
#
#   siw_peer_ko              echo the path of the cached siw.ko for the
#                            running kernel; return 1 if there is none.
#                            Looked up in order: $SIW2_PEER_KO (if the
#                            harness forwards it), ${XDG_CACHE_HOME:-$HOME/
#                            .cache}/siw2-peer/<kver>/src/siw.ko (the guest's
#                            HOME is /root), the same under the home of the
#                            repo's owner (the user who ran make check)
#   siw_peer_load            modprobe ib_core ib_uverbs iw_cm rdma_cm rdma_ucm
#                            libcrc32c, then insmod the cached siw.ko (its
#                            dependencies: ib_core, ib_uverbs, libcrc32c);
#                            fail the case if siw.ko was not built
#   siw_peer_loaded          true if the siw module is loaded
#   siw_peer_unload          rmmod siw; fail if it cannot
#   siw_link_add NS IBDEV NETDEV   rdma link add IBDEV type siw netdev NETDEV,
#                            run in namespace NS ("-" = initial); returns
#                            rdma's status (does not fail)
#   siw_link_del IBDEV       rdma link delete IBDEV; returns its status
#   wait_port_active IBDEV [SECS]  wait up to SECS (default 10) for port 1 of
#                            IBDEV to be ACTIVE; return 1 on timeout
#   cm_listening PORT        true if some RDMA CM id listens on TCP port PORT
#                            (rdma resource show cm_id; the listener is
#                            visible from every namespace)
#   wait_cm_listen PORT [SECS]   wait up to SECS (default 20) for
#                            cm_listening PORT; return 1 on timeout.  Not
#                            a readiness check for a client's connect:
#                            rdma_listen() puts the id in LISTEN before the
#                            iWARP driver's TCP socket listens, and a
#                            connect in between is refused (a debug kernel
#                            made case 52 fail so); use wait_tcp_listen

siw_peer_ko() {
	local kver cand owner home
	kver=$(uname -r)
	local -a c=()
	[[ -n ${SIW2_PEER_KO:-} ]] && c+=("$SIW2_PEER_KO")
	c+=("${XDG_CACHE_HOME:-$HOME/.cache}/siw2-peer/$kver/src/siw.ko")
	owner=$(stat -c %U "$SIW2_TOP" 2>/dev/null)
	home=$(getent passwd "$owner" 2>/dev/null | cut -d: -f6)
	[[ -n $home ]] && c+=("$home/.cache/siw2-peer/$kver/src/siw.ko")
	for cand in "${c[@]}"; do
		[[ -f $cand ]] && { echo "$cand"; return 0; }
	done
	return 1
}

siw_peer_loaded() { [[ -d /sys/module/siw ]]; }

# cmtime_oob: this cmtime (rdma-core 56, Debian 13) brings its two ends in
# step over a TCP connection of its own to the RDMA CM port.  On iWARP
# that port is the RDMA connection's own TCP listener: the server's
# out-of-band bind fails (EADDRINUSE) and it exits, so that cmtime cannot
# run over any iWARP device (Linux siw alike).  Case 52 then sets up as
# many connections with ucmatose (-c N -C 0) instead; case 50, the Linux
# siw baseline, says it does not run the step.
cmtime_oob() { cmtime -h 2>&1 | grep -q -- '\[-S\]'; }

siw_peer_load() {
	local m ko
	# make check builds it (tools/build-siw.sh): missing means the run
	# lost part of its coverage, which must not read as a skip.
	ko=$(siw_peer_ko) ||
		fail "Linux siw.ko not built for $(uname -r): run tools/build-siw.sh (make peer) on the host"
	for m in ib_core ib_uverbs iw_cm rdma_cm rdma_ucm libcrc32c; do
		modprobe "$m" || fail "modprobe $m"
	done
	siw_peer_loaded && return 0
	insmod "$ko" || fail "insmod $ko"
	siw_peer_loaded || fail "siw not loaded after insmod $ko"
}

siw_peer_unload() {
	rmmod siw || fail "rmmod siw failed (refcnt $(cat /sys/module/siw/refcnt 2>/dev/null))"
	! siw_peer_loaded || fail "siw still loaded after rmmod"
}

siw_link_add() {
	local ns=$1 ibdev=$2 netdev=$3
	in_ns "$ns" rdma link add "$ibdev" type siw netdev "$netdev"
}

siw_link_del() { rdma link delete "$1"; }

_port_active() {
	grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null
}

wait_port_active() {
	wait_until "${2:-10}" _port_active "$1"
}

cm_listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -E "state LISTEN" | grep -Eq "src-addr [^ ]*:$1( |$)"
}

wait_cm_listen() {
	wait_until "${2:-20}" cm_listening "$1"
}

# --- Helpers for the data path cases (tests/vm/cases/6x-dp-*.sh)
#
#   tcp_listening PID PORT   true if the network namespace of process PID has
#                            a TCP socket listening on PORT.  Reads
#                            /proc/PID/net/tcp and tcp6 with bash builtins:
#                            polling starts no process, so it does not slow
#                            down the server it waits for (under TCG one
#                            "rdma resource show" costs ~0.3 s of guest
#                            CPU).  An iWARP rdma_listen() puts the rdma_cm
#                            id in LISTEN before the driver's TCP socket
#                            listens, so the socket means the id is ready
#   wait_tcp_listen PID PORT [SECS]   wait up to SECS (default 20) for
#                            tcp_listening; return 1 on timeout or when PID
#                            exits
#   poll_until SECS CMD...   wait_until (lib.sh) with nap 0.05 between tries
#   reap VAR PID SECS [CMD...]   wait up to SECS for PID to exit; VAR = its
#                            status, or 124 if it had to be killed (-9);
#                            CMD, if given, runs just before that kill
#                            while the peers are still stuck, its output
#                            in REAP_NOTE (empty otherwise)
#   siw_rx_stalled NS PORT   print the established TCP connections on local
#                            port PORT in NS that hold unread bytes; false
#                            if none.  Linux siw reads its socket from
#                            data_ready at once, so bytes left there while
#                            a run hangs are its accept race (siw_accept()
#                            sends the MPA Reply before it hands data_ready
#                            to the QP; a first FPDU arriving in between
#                            is not read until more data comes): see
#                            60-dp-integrity.sh
#   dp_uniq_pairs            drop repeated entries of the array PAIRS (a
#                            case's pair list), keeping the first of each
#   kmsg_mark TAG            write "siw2-test: mark TAG" into the kernel log
#   kmsg_since TAG           print the kernel log from that mark on
#   siw_dbg_rts              turn on siw's own "enter RTS: crc=y|n" debug
#                            message (dynamic debug; printed as
#                            "IBDEV: QP[n] ...: enter RTS: crc=y, ord=.."
#                            for every siw QP that enters RTS): the only
#                            place siw says whether a QP uses MPA CRC.
#                            Return 1 if it cannot be turned on
#   dp_pair_devices SRV CLI  the RDMA devices of a two-namespace data path
#                            test: namespace pa (netdev pa-v) gets one
#                            device of driver SRV (siw2 or siw), pb (pb-v)
#                            one of CLI; siw2 devices are named s2a/s2b,
#                            siw devices siw_a/siw_b.  A device of the other
#                            driver is deleted first (after waiting up to
#                            20 s for its rdma resources to go: a delete
#                            blocks while a process holds an rdma_cm id).
#                            Sets DP_DEV_A and DP_DEV_B.  The caller loads
#                            the modules; fails on error

tcp_listening() {
	local pid=$1 hex f laddr st
	printf -v hex ':%04X' "$2"
	for f in "/proc/$pid/net/tcp" "/proc/$pid/net/tcp6"; do
		[[ -r $f ]] || continue
		while read -r _ laddr _ st _; do
			[[ $st == 0A && $laddr == *"$hex" ]] && return 0
		done <"$f"
	done 2>/dev/null
	return 1
}

wait_tcp_listen() {
	local pid=$1 port=$2
	poll_until "${3:-20}" eval "tcp_listening $pid $port || ! kill -0 $pid 2>/dev/null" &&
		tcp_listening "$pid" "$port"
}


poll_until() { _until "nap 0.05" "$@"; }

REAP_NOTE=
reap() {
	local -n _rc=$1
	local pid=$2 secs=$3
	shift 3
	REAP_NOTE=
	if ! poll_until "$secs" eval "! kill -0 $pid 2>/dev/null"; then
		(( $# )) && REAP_NOTE=$("$@" 2>&1)
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		_rc=124
		return
	fi
	wait "$pid" 2>/dev/null
	_rc=$?
}

# perftest's connection race: its -R data connection (or, without -R, its
# TCP exchange) comes before its server listens again.  The client then
# shows REJECTED -111 (or Connection refused), the server no error, and
# perftest 4.5's own retry fails, at times crashing inside librdmacm (rc
# 139) while the server waits for a client that never comes.  siw2 also
# reports -ECONNREFUSED for an MPA Reject and for a refusal inside the
# server's kernel, which no server program sees: so a run counts as the
# race only with a witness in the trace that the connection met a TCP
# reset from a port without a listener, and no MPA reject (lib-peer.sh
# perftest_no_listener).  Each run marks the trace where it starts.
PT_TRACE=/sys/kernel/tracing

# perftest_trace_mark OUT: enable the witnesses (siw2's endpoint states
# and upcalls, the kernel's TCP resets where it has that event) and mark
# the trace where the run with outputs OUT.c and OUT.s starts.
perftest_trace_mark() {
	local e
	for e in siw2/siw2_cep_state siw2/siw2_cep_upcall tcp/tcp_send_reset; do
		[[ -w $PT_TRACE/events/$e/enable ]] && echo 1 >"$PT_TRACE/events/$e/enable"
	done
	echo "siw2-test: perftest run ${1##*/}" >"$PT_TRACE/trace_marker"
}

# perftest_no_listener OUT PORT: print the trace line, since the last
# perftest_trace_mark OUT, that shows a connection refused by a TCP reset
# because nothing listened: the kernel's reset with reason NO_SOCKET from
# PORT (where the server runs in this kernel, Linux 6.10 and later), or a
# siw2 client endpoint whose TCP handshake ended in a reset
# (CONNECTING -reset-> CLOSED) with its connect upcall's status -111.
# False if there is none, or if a siw2 endpoint saw an MPA reject there.
perftest_no_listener() {
	awk -v mark="siw2-test: perftest run ${1##*/}" -v port="$2" '
		index($0, mark) { on = 1; rej = 0; rst = ""; delete ref; delete conn; next }
		!on { next }
		/siw2_cep_state: .*-(rep_reject|ulp_reject)->/ { rej = 1 }
		/tcp_send_reset: / && / reason=NO_SOCKET/ && $0 ~ ("src=[^ ]*:" port " ") { rst = $0 }
		/siw2_cep_state: .* CONNECTING -reset-> CLOSED/ {
			match($0, /cep=[0-9]+/); conn[substr($0, RSTART, RLENGTH)] = $0 }
		/siw2_cep_upcall: .* status -111/ {
			match($0, /cep=[0-9]+/); ref[substr($0, RSTART, RLENGTH)] = 1 }
		END {
			if (rej) exit 1
			if (rst != "") { print rst; exit 0 }
			for (c in conn) if (c in ref) { print conn[c]; exit 0 }
			exit 1
		}' "$PT_TRACE/trace" | sed -E 's/^ *//; s/ +/ /g'
	return "${PIPESTATUS[0]}"
}

# perftest_cm_race C S: the outputs' side of that race: the client's
# output C shows the refusal and the server's S no error.
perftest_cm_race() {
	grep -Eq 'RDMA_CM_EVENT_REJECTED; error: -111|ERRNO: Connection refused' "$1" &&
		! grep -Eiq "error|fail" "$2"
}

# perftest_calibration_only C S: perftest's clock calibration failed on a
# side ("Correlation coefficient r^2 < 0.9": at start it times the CPU's
# cycle counter against gettimeofday, which a busy TCG host spoils), and
# the outputs C and S hold no error but what that brings: the side's exit
# 1 ("Can't produce a report") and what its peer then sees (its
# completions flushed, status 5, and the socket closed).  Not a siw2
# fault: perftest has no time base, its figures would mean nothing.
perftest_calibration_only() {
	grep -q "Correlation coefficient r^2" "$1" "$2" &&
		! grep -Eih "error|fail|unable|couldn'?t|can'?t|invalid|not supported" "$1" "$2" |
			grep -Ev "Correlation coefficient|Can't produce a report|Bad wc status -- 5 -- 5|Unable to read (from|to) socket/rdma_cm|Failed to close connection between server and client|Failed to exchange data between server and clients" |
			grep -q .
}

# perftest_race_retry OUT RC TRY PORT: true when try TRY 1 of a perftest
# run on PORT, client output OUT.c and server output OUT.s, failed (RC)
# by perftest's own fault: its connection race (perftest_cm_race with
# perftest_no_listener's witness; the run began with perftest_trace_mark
# OUT) or its clock calibration (perftest_calibration_only).  It is
# logged as a RETRY line with the evidence, and the outputs kept as
# OUT.c.try1 and OUT.s.try1.  The caller then stops its server and runs
# once more.
perftest_race_retry() {
	local why wit
	(( $2 && $3 == 1 )) || return 1
	if perftest_cm_race "$1.c" "$1.s"; then
		wit=$(perftest_no_listener "$1" "$4") || {
			log "${1##*/}: the client was refused ($(grep -Em1 'REJECTED|refused' "$1.c")), but the trace shows no TCP reset from a port without a listener: not repeated"
			return 1
		}
		why="perftest's data connection came before its server listened again ($(grep -Em1 'REJECTED|refused' "$1.c"); trace: $wit)"
	elif perftest_calibration_only "$1.c" "$1.s"; then
		why="perftest's clock calibration failed ($(grep -hm1 'Correlation coefficient' "$1.c" "$1.s" | head -n 1)), no other error"
	else
		return 1
	fi
	log "RETRY: ${1##*/}: client rc $2: $why; once more"
	mv "$1.c" "$1.c.try1"
	mv "$1.s" "$1.s.try1"
}

siw_rx_stalled() {
	ip netns exec "$1" ss -Htn state established "( sport = :$2 )" |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { if ($i > 0) { print "Recv-Q " $0; f = 1 } break } }
		     END { exit !f }'
}

dp_uniq_pairs() {
	local -A seen=()
	local -a uniq=()
	local p
	for p in "${PAIRS[@]}"; do
		[[ -n ${seen[$p]:-} ]] || uniq+=("$p")
		seen[$p]=1
	done
	PAIRS=("${uniq[@]}")
}

kmsg_mark() { echo "siw2-test: mark $1" >/dev/kmsg; }

kmsg_since() {
	dmesg | awk -v m="siw2-test: mark $1" 'index($0, m) { buf = ""; on = 1; next } on { buf = buf $0 "\n" } END { printf "%s", buf }'
}

siw_dbg_rts() {
	local ctl=/sys/kernel/debug/dynamic_debug/control
	[[ -w $ctl ]] || return 1
	echo 'module siw format "enter RTS" +p' >"$ctl" 2>/dev/null || return 1
	grep -q '\[siw\].*=p.*enter RTS' "$ctl"
}

# siw_dbg_errors: Linux siw's debug messages on its error paths only (RX
# error, failed WQE or Read Response, immediate close): silent unless one
# happens.  Returns 1 without dynamic debug.
siw_dbg_errors() {
	local ctl=/sys/kernel/debug/dynamic_debug/control f
	[[ -w $ctl ]] || return 1
	for f in 'rx error' 'processing failed' 'proc. read.response failed' \
		 'SQ task failed' 'immediate close'; do
		echo "module siw format \"$f\" +p" >"$ctl" 2>/dev/null || return 1
	done
}

DP_DEV_A='' DP_DEV_B=''

# _dp_dev NS NETDEV CUR DRV SUFFIX: echo the device name for DRV, replacing
# CUR if it is of the other driver.
_dp_dev() {
	local ns=$1 netdev=$2 cur=$3 drv=$4 sfx=$5 want
	case $drv in
	siw2) want=s2$sfx ;;
	siw) want=siw_$sfx ;;
	*) fail "dp_pair_devices: unknown driver '$drv'" ;;
	esac
	if [[ -n $cur && $cur != "$want" ]]; then
		# A process still holding an rdma_cm id would block the delete.
		wait_until 20 dp_no_resources_on "$cur" ||
			{ rdma resource show >&2; fail "rdma resources left on $cur"; }
		timeout 60 rdma link delete "$cur" || fail "rdma link delete $cur"
		cur=
	fi
	if [[ -z $cur ]]; then
		if [[ $drv == siw2 ]]; then
			siw2_link_add "$ns" "$want" "$netdev" >&2 || fail "rdma link add $want"
		else
			siw_link_add "$ns" "$want" "$netdev" >&2 || fail "rdma link add $want"
		fi
		wait_port_active "$want" || fail "$want port not ACTIVE"
	fi
	echo "$want"
}

# dp_no_resources_on IBDEV: no rdma resource (cm_id, qp, pd, cq, mr, ctx,
# srq) counted on IBDEV.
dp_no_resources_on() {
	rdma resource show 2>/dev/null | awk -v d="$1:" '
		$2 == d { for (i = 3; i < NF; i += 2) if ($(i + 1) != 0) bad = 1 }
		END { exit bad }'
}

dp_pair_devices() {
	DP_DEV_A=$(_dp_dev pa pa-v "$DP_DEV_A" "$1" a) || exit 1
	DP_DEV_B=$(_dp_dev pb pb-v "$DP_DEV_B" "$2" b) || exit 1
}

# rping_check_data FILE PREFIX SIZE COUNT: rping -v output FILE has exactly
# COUNT lines starting with PREFIX ("ping data: " from the client: what
# the server wrote back; "server ping data: " from the server: what it
# read), the N-th (from 0) being PREFIX + what rping's client puts in its
# SIZE-octet buffer in round N.  Prints what is wrong, returns 1.
rping_check_data() {
	awk -v pre="$2" -v size="$3" -v count="$4" '
	BEGIN {
		# rping: snprintf(buf, size, "rdma-ping-%d: ", N), then the
		# letters 65..122 from 65 + N % 58 on, cycling; buf[size-1] = 0.
		cyc = ""
		for (c = 65; c <= 122; c++) cyc = cyc sprintf("%c", c)
		long = cyc
		while (length(long) < size + 116) long = long long
		n = 0; bad = ""
	}
	index($0, pre) == 1 {
		hdr = sprintf("rdma-ping-%d: ", n)
		want = pre hdr substr(long, n % 58 + 1, size - 1 - length(hdr))
		if ($0 != want && bad == "")
			bad = sprintf("round %d differs (length %d, want %d)", n, length($0), length(want))
		n++
	}
	END {
		if (n != count) { print "got " n " of " count " rounds"; exit 1 }
		if (bad != "") { print bad; exit 1 }
	}' "$1"
}

# srv_cli NAME SNS CNS PORT SERVER... -- CLIENT...: the server command in
# namespace SNS (- the initial one) until it listens on TCP PORT, then the
# client command in CNS (CLI_TMO s at most, default 60), then the server's
# end (20 s at most).  Outputs $R/NAME.s and $R/NAME.c (stdout), .s.err
# and .c.err (stderr: a tool's unbuffered stderr would land inside its
# buffered stdout's lines).  A process that outlives its time is killed
# after hung_report.  Returns 0 when both exited 0; else prints both
# outputs and what went wrong, and returns 1.
srv_cli() {
	local name=$1 sns=$2 cns=$3 port=$4 pid rc src
	local -a s=() c=()
	shift 4
	while (( $# )) && [[ $1 != -- ]]; do s+=("$1"); shift; done
	shift
	c=("$@")
	# A simple command, not in_ns: $! must be the server itself (or ip
	# after its setns), whose /proc/PID/net is the server's namespace.
	[[ $sns == - ]] || s=(ip netns exec "$sns" "${s[@]}")
	"${s[@]}" >"$R/$name.s" 2>"$R/$name.s.err" &
	pid=$!
	if ! wait_tcp_listen "$pid" "$port" 20; then
		# Where it waits, if it still runs: the kernel stack.
		cat "/proc/$pid/stack" 2>/dev/null | sed 's/^/  stack: /'
		rdma resource show cm_id 2>&1 | sed 's/^/  /'
		kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
		cat "$R/$name.s" "$R/$name.s.err"
		echo "$name: server not listening on port $port after 20 s"
		return 1
	fi
	[[ $cns == - ]] || c=(ip netns exec "$cns" "${c[@]}")
	"${c[@]}" >"$R/$name.c" 2>"$R/$name.c.err" &
	local cpid=$!
	# A client that does not end: where it waits (kernel stack), then kill.
	reap rc "$cpid" "${CLI_TMO:-60}" eval "echo '$name: client still running after ${CLI_TMO:-60} s'; hung_report $cpid"
	[[ -n $REAP_NOTE ]] && echo "$REAP_NOTE" | tee -a "$R/$name.c.err"
	reap src "$pid" 20 eval "echo '$name: server still running 20 s after its client'; hung_report $pid"
	[[ -n $REAP_NOTE ]] && echo "$REAP_NOTE" | tee -a "$R/$name.s.err"
	(( rc == 0 && src == 0 )) && return 0
	echo "--- $name server (rc $src):"; cat "$R/$name.s" "$R/$name.s.err"
	echo "--- $name client (rc $rc):"; cat "$R/$name.c" "$R/$name.c.err"
	return 1
}

# hung_report PID: where a process that should have ended waits: each
# thread's state and kernel function (a thread busy in user space, such
# as perftest polling its CQ, has no kernel stack), the kernel stacks
# (counted), when gdb is there the user-space backtraces, and the QPs and
# rdma_cm IDs with the drivers' details and siw2's connections.
hung_report() {
	local t
	[[ -d /proc/$1 ]] || { echo "hung_report: process $1 is gone"; return 0; }
	for t in /proc/"$1"/task/*; do
		echo "thread ${t##*/}: $(awk '{ print $3 }' "$t/stat" 2>/dev/null) in $(cat "$t/wchan" 2>/dev/null)"
	done | sort | uniq -c | head -n 10
	grep -h . /proc/"$1"/task/*/stack 2>/dev/null | sort | uniq -c | sort -rn | head -n 20
	rdma -dd resource show qp 2>&1 | head -n 20
	rdma resource show cm_id 2>&1 | head -n 10
	grep -h . /sys/kernel/debug/siw2/*/connections 2>/dev/null | head -n 10
	command -v gdb >/dev/null || return 0
	timeout 60 gdb -p "$1" -batch -nx -ex 'thread apply all bt 12' 2>/dev/null |
		grep -E '^(Thread|#)' | head -n 60
}

# perftest_pair NAME SNS CNS SDEV CDEV ADDR PORT TOOL OPTS...: one perftest
# -R run with srv_cli, repeated once after perftest's own connection race
# (perftest_race_retry); its result line must be there (a *_lat TOOL's
# latency line, else a bandwidth line).
perftest_pair() {
	local name=$1 sns=$2 cns=$3 sdev=$4 cdev=$5 addr=$6 port=$7 tool=$8 try rc
	shift 8
	for try in 1 2; do
		perftest_trace_mark "$R/$name"
		srv_cli "$name" "$sns" "$cns" "$port" stdbuf -oL "$tool" -R -d "$sdev" -p "$port" "$@" -- \
			stdbuf -oL "$tool" -R -d "$cdev" -p "$port" "$@" "$addr"
		rc=$?
		cat "$R/$name.c.err" >>"$R/$name.c"
		cat "$R/$name.s.err" >>"$R/$name.s"
		perftest_race_retry "$R/$name" "$rc" "$try" "$port" || break
		port=$((port + 100))
	done
	(( rc == 0 )) || return 1
	[[ -n $(perftest_result "$name" "$([[ $tool == *_lat ]] && echo lat || echo bw)") ]] ||
		{ cat "$R/$name.c"; echo "$name: no result line"; return 1; }
}

# first_error FILE: the first line of a tool's output that reads as an
# error, so that a failure message carries its cause.
first_error() {
	grep -Eim1 'error|fail|refused|unreachable|timed? ?out|still running' "$1" || echo "no error line"
}

# perftest_why NAME: why perftest_pair NAME failed, in one line: the first
# error line of the client's output and of the server's.
perftest_why() {
	echo "client: $(first_error "$R/$1.c"); server: $(first_error "$R/$1.s")"
}

# perftest_result NAME bw|lat: the first result line of perftest_pair
# NAME's client in words: "SIZE octets, BW MB/s" (bw: the BW average) or
# "SIZE octets, T us typical" (lat: t_typical); nothing if there is none.
perftest_result() {
	awk -v kind="$2" '/^ *#bytes/ { h = 1; next }
		h && $1 ~ /^[0-9]+$/ {
			if (kind == "lat") print $1 " octets, " $5 " us typical"
			else print $1 " octets, " $4 " MB/s"
			exit
		}' "$R/$1.c"
}

# dp_devices_gone DEV...: once no process holds them (20 s at most),
# delete the devices and check that they are gone.
dp_devices_gone() {
	local d
	for d in "$@"; do
		wait_until 20 dp_no_resources_on "$d" || { rdma resource show; fail "rdma resources left on $d"; }
		siw2_link_del "$d" || fail "rdma link delete $d"
		siw2_dev_exists "$d" && fail "$d still exists after delete"
	done
	return 0
}
