# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash disable=SC2034 # CM_PORT_USED & co. are for callers
#
# Guest-side helpers for connection-setup cases driven by siw2_cmtest
# (tests/progs/siw2_cmtest.c): one server in one namespace, one client in
# another, both through librdmacm on whatever iWARP devices own the
# addresses.  Source after lib.sh (and lib-peer.sh when Linux siw is used):
#     source "$SIW2_TOP/tests/vm/lib.sh"
#     source "$SIW2_TOP/tests/vm/lib-peer.sh"
#     source "$SIW2_TOP/tests/vm/lib-cm.sh"
#
# The programs inherit the caller's environment (ip netns exec keeps it):
# RDMAV_DRIVERS (the siw2 provider, exported by the harness) included;
# libibverbs still loads rdma-core's providers (libsiw for Linux siw)
# beside it.  CM_SRV_ENV / CM_CLI_ENV add VAR=value words for one side.
#
# Settings (set before calling; defaults in brackets):
#   CM_SRV_NS [pa]  CM_CLI_NS [pb]    namespaces of server and client
#   CM_ADDR4, CM_ADDR6                server addresses for cm_matrix
#                                     [198.18.5.1, fd00:5::1]
#   CM_PORT [7480]                    first TCP port; every cm_pair and
#                                     cm_client call takes the next one
#   CM_TMO [10]                       siw2_cmtest -t (seconds per event)
#   CM_RUN_TMO [CM_TMO * 3 + 60]      limit on each program's whole run
#                                     (timeout(1)); raise it for long loops
#   CM_PROG [$SIW2_PROGS/siw2_cmtest]
#   CM_OUT [$SIW2_RESULTS/cm]         output files NAME.srv / NAME.cli
#   CM_SRV_ENV, CM_CLI_ENV [empty]    extra VAR=value words (env(1))
#   CM_KEEP_GOING [0]                 1: a failing cm_pair/cm_client adds
#                                     to CM_FAILED and returns 1 instead of
#                                     calling fail
#   CM_PD_SIZES ["0 1 200 252"]       cm_matrix private data sizes
#   CM_IRDORD_ROWS                    cm_matrix IRD/ORD rows, see below
#   CM_WILDCARD [1]                   cm_matrix: 0 skips wildcard listens
#   CM_CYCLES [200]                   cm_matrix: connect/disconnect loop
#
# Functions:
#   cm_ns_pair A B [IDX]
#       ns_pair (lib.sh) with one difference: the veths get distinct
#       interface indexes (A-v 1000+2*IDX, B-v 1001+2*IDX) instead of 2 in
#       both namespaces.  Linux siw creates every listening socket of a
#       wildcard rdma_listen in the listener's namespace, one per RDMA
#       device, bound to that device's netdev ifindex; with ns_pair's twin
#       ifindex 2 the second bind fails and rdma_listen(0.0.0.0 or ::)
#       returns EADDRINUSE ("cma_listen_on_dev, error -98" in the log).
#   cm_pair NAME "SRV_ARGS" "CLI_ARGS" [SRV_RC [CLI_RC]]
#       start "siw2_cmtest -s -p PORT SRV_ARGS" in CM_SRV_NS, wait for its
#       LISTENING line, run "siw2_cmtest -p PORT CLI_ARGS" in CM_CLI_NS,
#       wait for the server to exit; both exit codes must match (default 0).
#       On a mismatch both outputs are shown.  SRV_ARGS/CLI_ARGS are split
#       on blanks.  Sets CM_PORT_USED, CM_SRV_RC, CM_CLI_RC.
#   cm_client NAME "CLI_ARGS" [CLI_RC]
#       the client alone (no server: refused/unreachable cases); its
#       "-p PORT" is the next port, which nobody listens on.
#   cm_grep NAME srv|cli REGEX
#       fail (or, with CM_KEEP_GOING, record) unless the output matches
#   cm_matrix
#       the standard rows through cm_pair, each run even after a failure
#       (failed rows are added to CM_FAILED: call cm_summary afterwards):
#       private data of each CM_PD_SIZES size both ways, 200 bytes one way
#       only, rejects carrying each size, the CM_IRDORD_ROWS, IPv6 with
#       private data and a reject, wildcard listens 0.0.0.0 and :: (unless
#       CM_WILDCARD=0), 5 server-side disconnects (IPv4 and IPv6), 5
#       abortive client closes, CM_CYCLES cycles with 32 bytes each way.
#       Linux siw needs CM_PD_SIZES without 252 (see case 51).
#   cm_no_resources [IBDEV...]
#       true if "rdma resource show" counts nothing (cm_id, qp, pd, cq,
#       mr, ctx, srq) on the IBDEVs (default: every device) and
#       "rdma resource show cm_id" lists no id
#   cm_assert_no_resources [SECS [IBDEV...]]
#       wait up to SECS (default 10) for cm_no_resources, else fail
#   cm_summary
#       fail if CM_FAILED is not empty, listing the rows
#   cm_irdord_table
#       log one line per CM_IRDORD_ROWS row that ran: the IRD/ORD each side
#       asked for and the initiator_depth/responder_resources pairs of the
#       server's REQ and ESTABLISHED and of the client's ESTABLISHED
#   cm_server_start NAME "SRV_ARGS"
#       like cm_pair's server, but left running in the background (the next
#       port; output NAME.srv); returns once it printed LISTENING (fails or,
#       with CM_KEEP_GOING, records and returns 1 otherwise).  One at a
#       time.  Sets CM_PORT_USED.
#   cm_server_wait NAME SECS [SRV_RC]
#       wait up to SECS for that server to exit (killed after that: rc 124);
#       its status must be SRV_RC (default 0).  Sets CM_SRV_RC.
#   cm_client_bg NAME "CLI_ARGS"
#       start "siw2_cmtest -p CM_PORT_USED CLI_ARGS" in CM_CLI_NS in the
#       background, without timeout(1): CM_CLI_PID is the program itself
#       (ip netns exec and env exec it), so "kill -9 $CM_CLI_PID" hits it.
#       Bound its life with --hold.  Output NAME.cli.
#   cm_client_wait NAME PID SECS [CLI_RC]
#       wait up to SECS for a background client to exit (killed after that:
#       rc 124); its status must be CLI_RC (default 0).  Sets CM_CLI_RC.
#   cm_wait_line NAME srv|cli REGEX SECS
#       wait up to SECS for a line matching REGEX in the output; return 1
#       (no failure) on timeout
#   cm_kill_bg
#       kill the background server and clients still running (EXIT trap)
#   siw2_objects_ok IBDEV [KIND=N...]
#       true if every count in IBDEV's debugfs objects file is 0, except
#       the KINDs given, which must be N (e.g. ceps=1 for a listener; N "*"
#       accepts any count)
#   cm_assert_siw2_objects SECS IBDEV [KIND=N...]
#       wait up to SECS for siw2_objects_ok, else fail showing the counts
#       and the device's connections
#   cm_tcp_quiet NS [LISTEN_N]
#       true if every TCP socket in namespace NS ("ss -tanH") is in
#       TIME-WAIT, but for exactly LISTEN_N (default 0) LISTEN sockets
#   cm_assert_tcp_quiet SECS NS [LISTEN_N]
#       wait up to SECS for cm_tcp_quiet, else fail showing the sockets
#
# CM_IRDORD_ROWS: one row per line, nine or eleven words:
#   NAME CLI_IRD CLI_ORD SRV_IRD SRV_ORD REQ_IRD REQ_ORD EST_IRD EST_ORD \
#        [SEST_IRD SEST_ORD]
# IRD = conn_param.responder_resources, ORD = initiator_depth; REQ_* are
# what the server must see in CONNECT_REQUEST, EST_* what the client must
# see in ESTABLISHED, SEST_* what the server must see in its own (passive)
# ESTABLISHED ("-" or absent = unchecked).  The default is what Linux siw
# (relaxed IRD/ORD negotiation, MPA v2) does at both ends; see
# tests/vm/cases/51-cm-siw-baseline.sh.
#
# Example:
#   CM_SRV_NS=pa CM_CLI_NS=pb
#   cm_pair pd200 "-a 198.18.5.1 -E 200 -R 200" "-a 198.18.5.1 -P 200 -e 200"
#   cm_pair refused-pd "-a 198.18.5.1 --reject -R 8" \
#       "-a 198.18.5.1 --expect-reject --reject-pd 8"
#   cm_client nolisten "-a 198.18.5.1 --expect-fail REJECTED,ECONNREFUSED"
#   cm_assert_no_resources 10 siw_a siw_b

: "${CM_SRV_NS:=pa}" "${CM_CLI_NS:=pb}"
: "${CM_ADDR4:=198.18.5.1}" "${CM_ADDR6:=fd00:5::1}"
: "${CM_PORT:=7480}" "${CM_TMO:=10}"
: "${CM_PROG:=$SIW2_PROGS/siw2_cmtest}"
: "${CM_OUT:=$SIW2_RESULTS/cm}"
: "${CM_SRV_ENV:=}" "${CM_CLI_ENV:=}"
: "${CM_KEEP_GOING:=0}"
: "${CM_PD_SIZES:=0 1 200 252}"
: "${CM_WILDCARD:=1}" "${CM_CYCLES:=200}"
: "${CM_IRDORD_ROWS:="irdord-cli-larger 9 11 2 3 11 9 11 3
irdord-srv-larger 2 3 5 7 3 2 5 2
irdord-equal 4 4 4 4 4 4 4 4
irdord-zero 0 0 0 0 0 0 0 0"}"
CM_FAILED=()
# Results of the last cm_pair/cm_client, for the caller.
CM_PORT_USED='' CM_SRV_RC='' CM_CLI_RC=''
_cm_srv_pid=

cm_ns_pair() {
	local a=$1 b=$2 idx=${3:-0} ns
	ip netns add "$a" || fail "ip netns add $a"
	ip netns add "$b" || fail "ip netns add $b"
	ip link add "$a-v" index $((1000 + 2 * idx)) netns "$a" type veth \
		peer name "$b-v" index $((1001 + 2 * idx)) netns "$b" ||
		fail "veth $a-v/$b-v"
	ip -n "$a" addr add "198.18.$idx.1/24" dev "$a-v" || fail "addr $a-v"
	ip -n "$b" addr add "198.18.$idx.2/24" dev "$b-v" || fail "addr $b-v"
	ip -n "$a" -6 addr add "fd00:$idx::1/64" dev "$a-v" nodad || fail "addr6 $a-v"
	ip -n "$b" -6 addr add "fd00:$idx::2/64" dev "$b-v" nodad || fail "addr6 $b-v"
	for ns in "$a" "$b"; do
		ip -n "$ns" link set lo up || fail "lo up in $ns"
		ip -n "$ns" link set "$ns-v" up || fail "$ns-v up"
	done
	wait_until 10 eval "ip -n '$a' link show '$a-v' | grep -q LOWER_UP &&
		ip -n '$b' link show '$b-v' | grep -q LOWER_UP" ||
		fail "no carrier on $a-v/$b-v"
}

# _cm_bad NAME MSG: fail, or record and return 1 with CM_KEEP_GOING=1.
_cm_bad() {
	echo "cm: $1: FAILED: $2" >&2
	if [[ $CM_KEEP_GOING == 1 ]]; then
		CM_FAILED+=("$1: $2")
		return 1
	fi
	fail "$1: $2"
}

_cm_show() {
	local f
	for f in "$@"; do
		[[ -f $f ]] || continue
		# 1000-cycle runs: keep the head and the tail.
		if (( $(wc -l <"$f") > 40 )); then
			head -n 20 "$f" | sed "s|^|  ${f##*/}: |"
			echo "  ${f##*/}: ..."
			tail -n 15 "$f" | sed "s|^|  ${f##*/}: |"
		else
			sed "s|^|  ${f##*/}: |" "$f"
		fi
	done
}

_cm_srv_alive() { [[ -n $_cm_srv_pid ]] && kill -0 "$_cm_srv_pid" 2>/dev/null; }
_cm_cli_pids=()

# Killing a backgrounded function would leave the program running (see
# 50-siw-peer.sh): $! is timeout(1), exec'd by ip netns exec, which passes
# SIGTERM on.
_cm_srv_kill() {
	[[ -n $_cm_srv_pid ]] || return 0
	kill "$_cm_srv_pid" 2>/dev/null
	wait "$_cm_srv_pid" 2>/dev/null
	_cm_srv_pid=
}
trap cm_kill_bg EXIT

_cm_listening() { grep -q '^LISTENING$' "$1" || ! _cm_srv_alive; }

_cm_ms() { echo $(( (${EPOCHREALTIME/./} - $1) / 1000 )); }

cm_pair() {
	local name=$1 sargs=$2 cargs=$3 want_s=${4:-0} want_c=${5:-0}
	local so=$CM_OUT/$name.srv co=$CM_OUT/$name.cli t0 port
	local -a sa ca
	read -ra sa <<<"$sargs"
	read -ra ca <<<"$cargs"
	mkdir -p "$CM_OUT"
	port=$CM_PORT
	CM_PORT=$((CM_PORT + 1))
	CM_PORT_USED=$port
	t0=${EPOCHREALTIME/./}
	# shellcheck disable=SC2086 # CM_*_ENV: VAR=value words
	ip netns exec "$CM_SRV_NS" timeout "${CM_RUN_TMO:-$((CM_TMO * 3 + 60))}" \
		env $CM_SRV_ENV "$CM_PROG" -s -p "$port" -t "$CM_TMO" "${sa[@]}" \
		>"$so" 2>&1 &
	_cm_srv_pid=$!
	wait_until 20 _cm_listening "$so"
	if ! grep -q '^LISTENING$' "$so"; then
		_cm_srv_kill
		CM_SRV_RC=-1 CM_CLI_RC=-1
		_cm_show "$so"
		_cm_bad "$name" "server did not print LISTENING (siw2_cmtest -s $sargs)"
		return
	fi
	# shellcheck disable=SC2086
	ip netns exec "$CM_CLI_NS" timeout "${CM_RUN_TMO:-$((CM_TMO * 3 + 60))}" \
		env $CM_CLI_ENV "$CM_PROG" -p "$port" -t "$CM_TMO" "${ca[@]}" \
		>"$co" 2>&1
	CM_CLI_RC=$?
	# The server ends on its own: after its last connection, or after its
	# -t timeout when the client never came.
	if ! wait_until $((CM_TMO + 10)) eval '! _cm_srv_alive'; then
		echo "cm: $name: server still running $((CM_TMO + 10)) s after the client, killing it" >&2
	fi
	_cm_srv_kill_or_reap
	if [[ $CM_SRV_RC != "$want_s" || $CM_CLI_RC != "$want_c" ]]; then
		_cm_show "$so" "$co"
		_cm_bad "$name" "server rc $CM_SRV_RC (want $want_s), client rc $CM_CLI_RC (want $want_c); server: siw2_cmtest -s $sargs; client: siw2_cmtest $cargs"
		return
	fi
	log "ok $name ($(_cm_ms "$t0") ms): $(tail -n 1 "$co")"
}

# Reap the server: its status if it exited, 124 (as timeout(1)) if it had
# to be killed.
_cm_srv_kill_or_reap() {
	if _cm_srv_alive; then
		_cm_srv_kill
		CM_SRV_RC=124
		return
	fi
	wait "$_cm_srv_pid" 2>/dev/null
	CM_SRV_RC=$?
	_cm_srv_pid=
}

cm_client() {
	local name=$1 cargs=$2 want_c=${3:-0} co=$CM_OUT/$1.cli t0 port
	local -a ca
	read -ra ca <<<"$cargs"
	mkdir -p "$CM_OUT"
	port=$CM_PORT
	CM_PORT=$((CM_PORT + 1))
	CM_PORT_USED=$port
	t0=${EPOCHREALTIME/./}
	# shellcheck disable=SC2086
	ip netns exec "$CM_CLI_NS" timeout "${CM_RUN_TMO:-$((CM_TMO * 3 + 60))}" \
		env $CM_CLI_ENV "$CM_PROG" -p "$port" -t "$CM_TMO" "${ca[@]}" \
		>"$co" 2>&1
	CM_CLI_RC=$?
	if [[ $CM_CLI_RC != "$want_c" ]]; then
		_cm_show "$co"
		_cm_bad "$name" "client rc $CM_CLI_RC (want $want_c): siw2_cmtest $cargs"
		return
	fi
	log "ok $name ($(_cm_ms "$t0") ms): $(tail -n 1 "$co")"
}

cm_grep() {
	local name=$1 side=$2 re=$3 f=$CM_OUT/$1.$2
	grep -Eq -- "$re" "$f" && return 0
	_cm_show "$f"
	_cm_bad "$name" "$side output does not match /$re/"
}

cm_summary() {
	(( ${#CM_FAILED[@]} == 0 )) && return 0
	printf 'failed: %s\n' "${CM_FAILED[@]}" >&2
	fail "${#CM_FAILED[@]} connection test(s) failed, see above"
}

_cm_pair_of() {
	sed -n "s/^$1 pd=[0-9]* initiator_depth=\([0-9]*\) responder_resources=\([0-9]*\)\$/\1\/\2/p" "$2"
}

cm_irdord_table() {
	local name cird cord sird sord rest
	while read -r name cird cord sird sord rest; do
		[[ -n $name && -f $CM_OUT/$name.srv ]] || continue
		log "$(printf '%-18s client %3s/%-3s server %3s/%-3s (ird/ord) -> REQ %s, server EST %s, client EST %s (initiator_depth/responder_resources)' \
			"$name" "$cird" "$cord" "$sird" "$sord" \
			"$(_cm_pair_of REQ "$CM_OUT/$name.srv")" \
			"$(_cm_pair_of EST "$CM_OUT/$name.srv")" \
			"$(_cm_pair_of EST "$CM_OUT/$name.cli")")"
	done <<<"$CM_IRDORD_ROWS"
}

cm_no_resources() {
	local devs="$*"
	rdma resource show 2>/dev/null | awk -v devs=" $devs " '
		{ d = $2; sub(":$", "", d) }
		devs != "  " && index(devs, " " d " ") == 0 { next }
		{ for (i = 3; i < NF; i += 2) if ($(i + 1) != 0) bad = 1 }
		END { exit bad }' || return 1
	if [[ -n $devs ]]; then
		! rdma resource show cm_id 2>/dev/null | grep -Eq "link (${devs// /|})/"
	else
		! rdma resource show cm_id 2>/dev/null | grep -q .
	fi
}

cm_assert_no_resources() {
	local secs=${1:-10}
	shift
	wait_until "$secs" cm_no_resources "$@" && return 0
	rdma resource show
	rdma resource show cm_id
	rdma resource show qp
	fail "rdma resources left after the connection tests${*:+ on $*}"
}

# _cm_row NAME SRV_ARGS CLI_ARGS: one cm_matrix row, never fatal.
_cm_row() {
	local keep=$CM_KEEP_GOING
	CM_KEEP_GOING=1
	cm_pair "$@"
	CM_KEEP_GOING=$keep
	return 0
}

cm_matrix() {
	local a4=$CM_ADDR4 a6=$CM_ADDR6 n
	local name cird cord sird sord rird rord eird eord seird seord sx cx

	# Private data both ways: the client sends n bytes, the server checks
	# them and accepts with n bytes, which the client checks.
	for n in $CM_PD_SIZES; do
		_cm_row "pd-$n" "-a $a4 -E $n -R $n" "-a $a4 -P $n -e $n"
	done
	# One direction only, the other empty.
	_cm_row pd-req-only "-a $a4 -E 200 -R 0" "-a $a4 -P 200 -e 0"
	_cm_row pd-rep-only "-a $a4 -E 0 -R 200" "-a $a4 -P 0 -e 200"

	# Reject carrying n bytes of private data (and the request n bytes).
	for n in $CM_PD_SIZES; do
		_cm_row "reject-pd-$n" "-a $a4 --reject -E $n -R $n" \
			"-a $a4 -P $n --expect-reject --reject-pd $n"
	done

	# IRD/ORD: what the request and the ESTABLISHED event carry.
	while read -r name cird cord sird sord rird rord eird eord seird seord; do
		[[ -n $name ]] || continue
		sx='' cx=''
		[[ $rird != - ]] && sx+=" --expect-req-ird $rird"
		[[ $rord != - ]] && sx+=" --expect-req-ord $rord"
		[[ -n $seird && $seird != - ]] && sx+=" --expect-est-ird $seird"
		[[ -n $seord && $seord != - ]] && sx+=" --expect-est-ord $seord"
		[[ $eird != - ]] && cx+=" --expect-est-ird $eird"
		[[ $eord != - ]] && cx+=" --expect-est-ord $eord"
		_cm_row "$name" "-a $a4 --ird $sird --ord $sord$sx" \
			"-a $a4 --ird $cird --ord $cord$cx"
	done <<<"$CM_IRDORD_ROWS"

	# IPv6 with a specific listen address.
	_cm_row ipv6-pd-200 "-a $a6 -E 200 -R 200" "-a $a6 -P 200 -e 200"
	_cm_row ipv6-reject "-a $a6 --reject -R 17" \
		"-a $a6 --expect-reject --reject-pd 17"

	# Wildcard listens.
	if [[ $CM_WILDCARD == 1 ]]; then
		_cm_row wild4 "-a 0.0.0.0 -E 9 -R 9" "-a $a4 -P 9 -e 9"
		_cm_row wild6 "-a :: -E 9 -R 9" "-a $a6 -P 9 -e 9"
	fi

	# Who closes, and how.
	_cm_row server-disconnects "-a $a4 -c 5 --server-disconnects" \
		"-a $a4 -c 5 --server-disconnects"
	_cm_row client-aborts "-a $a4 -c 5" "-a $a4 -c 5 --abort"
	_cm_row server-disconnects6 "-a $a6 -c 5 --server-disconnects" \
		"-a $a6 -c 5 --server-disconnects"

	# The loop.
	if (( CM_CYCLES > 0 )); then
		_cm_row "cycles-$CM_CYCLES" "-a $a4 -q -c $CM_CYCLES -E 32 -R 32" \
			"-a $a4 -q -c $CM_CYCLES -P 32 -e 32"
	fi
}

# --- background programs (teardown cases)

cm_kill_bg() {
	local p
	for p in "${_cm_cli_pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	_cm_cli_pids=()
	_cm_srv_kill
}

cm_server_start() {
	local name=$1 sargs=$2 so=$CM_OUT/$1.srv port
	local -a sa
	read -ra sa <<<"$sargs"
	mkdir -p "$CM_OUT"
	_cm_srv_kill
	port=$CM_PORT
	CM_PORT=$((CM_PORT + 1))
	CM_PORT_USED=$port
	# shellcheck disable=SC2086
	ip netns exec "$CM_SRV_NS" timeout 600 \
		env $CM_SRV_ENV "$CM_PROG" -s -p "$port" -t "$CM_TMO" "${sa[@]}" \
		>"$so" 2>&1 &
	_cm_srv_pid=$!
	wait_until 20 _cm_listening "$so"
	if ! grep -q '^LISTENING$' "$so"; then
		_cm_srv_kill
		_cm_show "$so"
		_cm_bad "$name" "server did not print LISTENING (siw2_cmtest -s $sargs)"
		return
	fi
	return 0
}

cm_server_wait() {
	local name=$1 secs=$2 want=${3:-0}
	wait_until "$secs" eval '! _cm_srv_alive' ||
		echo "cm: $name: server still running after $secs s, killing it" >&2
	_cm_srv_kill_or_reap
	if [[ $CM_SRV_RC != "$want" ]]; then
		_cm_show "$CM_OUT/$name.srv"
		_cm_bad "$name" "server rc $CM_SRV_RC (want $want)"
		return
	fi
	return 0
}

cm_client_bg() {
	local name=$1 cargs=$2
	local -a ca
	read -ra ca <<<"$cargs"
	mkdir -p "$CM_OUT"
	# shellcheck disable=SC2086
	ip netns exec "$CM_CLI_NS" env $CM_CLI_ENV "$CM_PROG" \
		-p "$CM_PORT_USED" -t "$CM_TMO" "${ca[@]}" >"$CM_OUT/$name.cli" 2>&1 &
	CM_CLI_PID=$!
	_cm_cli_pids+=("$CM_CLI_PID")
}

cm_client_wait() {
	local name=$1 pid=$2 secs=$3 want=${4:-0} p killed=0
	local -a rest=()
	wait_until "$secs" eval "! kill -0 $pid 2>/dev/null" || {
		echo "cm: $name: client still running after $secs s, killing it" >&2
		kill -9 "$pid" 2>/dev/null
		killed=1
	}
	wait "$pid" 2>/dev/null	# no "Killed" notice
	CM_CLI_RC=$?
	(( killed )) && CM_CLI_RC=124
	for p in "${_cm_cli_pids[@]}"; do
		[[ $p == "$pid" ]] || rest+=("$p")
	done
	_cm_cli_pids=("${rest[@]}")
	if [[ $CM_CLI_RC != "$want" ]]; then
		_cm_show "$CM_OUT/$name.cli"
		_cm_bad "$name" "client rc $CM_CLI_RC (want $want)"
		return
	fi
	return 0
}

cm_wait_line() {
	local f=$CM_OUT/$1.$2 re=$3 secs=$4
	wait_until "$secs" grep -Eq -- "$re" "$f"
}

# --- leak checks

siw2_objects_ok() {
	local dev=$1 file=$SIW2_DEBUGFS/$1/objects
	shift
	[[ -r $file ]] || return 1
	awk -v allow=" $* " '
		{ want = 0
		  if (index(allow, " " $1 "=* ")) next
		  if (match(allow, " " $1 "=[0-9]+ ")) {
			w = substr(allow, RSTART + 1, RLENGTH - 2)
			sub(/^[^=]*=/, "", w); want = w + 0 }
		  if ($2 + 0 != want) bad = 1 }
		END { exit bad }' "$file"
}

cm_assert_siw2_objects() {
	local secs=$1 dev=$2
	shift 2
	wait_until "$secs" siw2_objects_ok "$dev" "$@" && return 0
	echo "siw2 objects of $dev (want 0${*:+ except $*}):" >&2
	sed 's/^/  /' "$SIW2_DEBUGFS/$dev/objects" >&2
	echo "connections of $dev:" >&2
	sed 's/^/  /' "$SIW2_DEBUGFS/$dev/connections" >&2
	fail "siw2 objects left on $dev"
}

cm_tcp_quiet() {
	local ns=$1 listen=${2:-0}
	in_ns "$ns" ss -tanH | awk -v want="$listen" '
		$1 == "LISTEN" { l++; next }
		$1 != "TIME-WAIT" { bad = 1 }
		END { exit bad || l + 0 != want }'
}

cm_assert_tcp_quiet() {
	local secs=$1 ns=$2 listen=${3:-0}
	wait_until "$secs" cm_tcp_quiet "$ns" "$listen" && return 0
	in_ns "$ns" ss -tanH | sed "s/^/  $ns: /" >&2
	fail "TCP sockets left in namespace $ns (want only TIME-WAIT and $listen LISTEN)"
}
