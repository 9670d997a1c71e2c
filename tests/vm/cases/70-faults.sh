#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Fault scenarios under a checked load (issue 17 item 4), siw2 <-> siw2.
# The load is tests/progs/siw2_fault: the client (pb, 198.18.20.2, device
# s2b on pb-v) keeps 4 iterations in flight, each an RDMA Write of 4 KiB
# into the server's MR and an RDMA Read of it back, every byte checked,
# beside a ping-pong of checked Sends; the server (pa, 198.18.20.1, device
# s2a on bridge br0, ports pa-b to pb and pa-c to pc) keeps 4 receives
# posted.  On a fault each side stops posting, polls until every work
# request it posted has completed, disconnects, destroys its objects and
# prints one END line (result, first error status, flushed count, send and
# receive completed/posted, last CM event, async events); a completion that
# never comes fails it ("UNFLUSHED", exit 1), as does bad data.
#
# Scenarios, each followed by the idle check (siw2 debugfs counts of every
# device back to 0, "rdma resource show" empty, no TCP socket but
# TIME-WAIT in pa and pb).  The devices are usable after each: the next
# scenario starts a fresh load on them that must check 8 iterations
# (RUNNING) before its fault comes; after the last, a short transfer of 16
# checked iterations on the reloaded module.
#  netem        2 % loss, 25 % reorder, 2 % duplication (and 1 ms delay) on
#               both veth ends: both sides end "ok", every byte checked,
#               TCP retransmitted (TcpRetransSegs grew): TCP hides the loss.
#  kill-client  kill -9 of the client mid-transfer: the server ends "fault"
#               with CM DISCONNECTED, its receives flushed (WR_FLUSH_ERR),
#               every work request completed, all before its own
#               disconnect.
#  kill-server  kill -9 of the server mid-transfer: the client likewise,
#               the Writes/Reads in flight flushed or failed: WR_FLUSH_ERR
#               (DISCONNECTED -104) in most runs; REM_ACCESS_ERR with
#               QP_ACCESS_ERR, or REM_OP_ERR with QP_FATAL, when an RDMA
#               Read reached the dying server after its MR was gone (the
#               process's objects go one by one; the Read draws a
#               Terminate).
#  rst          "ss -K" aborts the client's TCP socket mid-transfer (the
#               kernel sends a RST): both sides end "fault" with CM
#               DISCONNECTED carrying an error status (-104 seen), every
#               work request flushed before their own disconnect.
#  link-flap    pb-v down for 2 s mid-transfer, then up: the client sees
#               PORT_ERR and PORT_ACTIVE, TCP recovers, both end "ok".
#  link-gone    pb-v down for good: the load stalls, each side gives up
#               after 4 s without a completion and disconnects: every work
#               request flushed (the close bounded by mpa_timeout_ms, 2 s
#               here), both end "fault", their objects destroyed.
#  link-delete  "rdma link delete s2b" under load (about 1 s): the client
#               gets DEVICE_REMOVAL (and DEVICE_FATAL; a post whose WRs
#               went into the ring but whose wakeup failed succeeds, the
#               WRs complete flushed: post-bad-wr-null in siw2_fault) and
#               ends "removed"
#               (exit 4, its CQ no longer polled), the server ends "fault"
#               (DISCONNECTED -104) with everything flushed; s2b is added
#               again.
#  cq-overflow  a send CQ of 4 entries (as created) and 8 more signaled
#               Writes than that, not polled: IB_EVENT_CQ_ERR, exactly the
#               CQ's depth of completions kept, in order, the rest lost;
#               the load then runs on and ends "ok".  Twice: user rings
#               (user_rings=1) and kernel CQs (user_rings=0).
#  memlock      as user nobody with RLIMIT_MEMLOCK 512 KiB: 64 KiB
#               registrations until ENOMEM, never beyond the limit, the
#               charge given back on deregistration; then the load, "ok".
#  limits       siw2 loaded with max_qp=6 max_cq=8 max_mr=12: under load the
#               client creates CQs, MRs and QPs until ENOMEM; the debugfs
#               counts of s2b equal the limits meanwhile and the load goes
#               on, checked; freed, it ends "ok".
#  netns        "ip netns del pc" under load (client in pc on s2c), then
#               kill -9 of that client, which held the namespace: the
#               namespace and its veth go, s2c is unregistered, the server
#               ends "fault" with everything flushed, s2a stays usable.
#  rmmod        "modprobe -r siw2" under load (about 1 s): both sides get
#               DEVICE_REMOVAL and end "removed", the module unloads;
#               loaded again, a fresh transfer works.
# Covered elsewhere and not repeated: kill -9 of a side holding an idle
# connection, TCP RST to a connect (no listener), SYNs dropped,
# "rdma link delete" and netdev removal with idle connections
# (57-cm-teardown.sh); module removal with an idle QP and DEVICE_FATAL
# (12-rmmod-busy.sh); port events and netdev deletion under an open
# context (40-port-events.sh); each table filled to max_* with ENOMEM and
# the counts (30-ctrl-verbs.sh, --limits).  Allocation failures:
# 71-failslab.sh.  The harness fails the case on any kernel warning.
# Wall time: 134 s (boot 5 s, the scenarios 124 s) on a 2-CPU host with
# other builds running, 179 s at the busiest.
# timeout: 400
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip ss tc nstat setpriv prlimit timeout pgrep
P=$SIW2_PROGS/siw2_fault
[[ -x $P ]] || fail "$P not built (make progs)"
R=$SIW2_RESULTS
SRV=198.18.20.1
PAR=/sys/module/siw2/parameters
T0=${EPOCHREALTIME/./}
MAXQP=6 MAXCQ=8 MAXMR=12
FAILED=()

# bad MSG: record a failed assertion, go on with the next scenario.
bad() { echo "FAILED: $*" >&2; FAILED+=("$*"); }
since_ms() { echo $(( (${EPOCHREALTIME/./} - $1) / 1000 )); }

# --- topology: pa (bridge br0, server), pb and pc (clients)
topology() {
	ip netns add pa || fail "netns pa"
	ip -n pa link set lo up
	ip -n pa link add br0 type bridge forward_delay 0 stp_state 0 || fail "bridge"
	ip -n pa addr add $SRV/24 dev br0
	ip -n pa link set br0 up
	add_client pb 2
}
# add_client NS N: namespace NS with NS-v (198.18.20.N) bridged into pa.
add_client() {
	local ns=$1 n=$2 port=pa-${1#p}
	ip netns add "$ns" || fail "netns $ns"
	ip -n "$ns" link set lo up
	ip link add "$port" netns pa type veth peer name "$ns-v" netns "$ns" || fail "veth $ns"
	ip -n pa link set "$port" master br0 || fail "$port into br0"
	ip -n pa link set "$port" up
	ip -n "$ns" addr add "198.18.20.$n/24" dev "$ns-v"
	ip -n "$ns" link set "$ns-v" up
	wait_until 10 eval "ip -n $ns link show $ns-v | grep -q LOWER_UP" || fail "no carrier on $ns-v"
	# Bridge port state 3: forwarding.
	wait_until 10 eval "[[ \$(ip netns exec pa cat /sys/class/net/$port/brport/state) == 3 ]]" ||
		fail "$port not forwarding"
	resolve "$ns"
}
# link_up: pb-v up again, forwarding, s2b ACTIVE, the neighbour resolved.
link_up() {
	in_ns pb ip link set pb-v up
	wait_until 10 eval "[[ \$(ip netns exec pa cat /sys/class/net/pa-b/brport/state) == 3 ]]" ||
		bad "pa-b not forwarding again"
	wait_port_active s2b || bad "s2b not ACTIVE again"
	resolve pb
}
# resolve NS: NS's neighbour entry for the server, by a refused TCP connect.
# The first rdma_resolve_addr over an unresolved neighbour took its whole
# 5 s timeout now and then (the reply came before the request was queued
# in the RDMA core's address resolver, which then waits for the timeout).
resolve() { in_ns "$1" timeout 5 bash -c "exec 3<>/dev/tcp/$SRV/9" 2>/dev/null; return 0; }
add_dev() {
	siw2_link_add "$1" "$2" "$3" || fail "rdma link add $2"
	wait_port_active "$2" || fail "$2 port not ACTIVE"
}

# --- the programs
port=7700
spid= cpid=
# srv NAME [ARGS]: the server in pa, in the background; waits for LISTENING.
srv() {
	local name=$1
	shift
	port=$((port + 1))
	ip netns exec pa "$P" -s $SRV -p $port -t 10 "$@" >"$R/$name.srv" 2>&1 &
	spid=$!
	wait_until 20 grep -q '^LISTENING' "$R/$name.srv" ||
		{ cat "$R/$name.srv"; fail "$name: server not listening"; }
}
# cli NAME NS [ARGS]: the client in NS, in the background ($cpid is the
# program: ip netns exec execs it).
cli() {
	local name=$1 ns=$2
	shift 2
	ip netns exec "$ns" "$P" -c $SRV -p $port -t 10 "$@" >"$R/$name.cli" 2>&1 &
	cpid=$!
}
# reap2 SECS: crc and src, client's and server's.
reap2() {
	reap RC "$cpid" "$1"; crc=$RC; cpid=
	reap RC "$spid" 20; src=$RC; spid=
}
running() { wait_until 20 grep -q '^RUNNING' "$R/$1.cli"; }
# field FILE KEY: KEY's value in FILE's END line.
field() {
	local l
	while IFS= read -r l; do
		[[ $l == "END "* && $l =~ \ $2=([^ ]*) ]] && { echo "${BASH_REMATCH[1]}"; return; }
	done <"$1"
}
show() { sed "s/^/  ${1##*/}: /" "$1" | tail -n "${2:-12}"; }
# ended FILE RESULT: the END line says RESULT and every posted work
# request completed (send=N/N recv=N/N).
ended() {
	local f=$1 want=$2 s r
	[[ $(field "$f" result) == "$want" ]] || { show "$f"; bad "${f##*/}: result '$(field "$f" result)', want $want"; return 1; }
	s=$(field "$f" send) r=$(field "$f" recv)
	if [[ $want != removed ]]; then
		[[ ${s%/*} == "${s#*/}" && ${r%/*} == "${r#*/}" ]] ||
			{ show "$f"; bad "${f##*/}: not every work request completed: send $s recv $r"; return 1; }
	fi
	log "  ${f##*/}: $(grep '^END' "$f" | cut -c5-)"
	return 0
}
# rc_is NAME WHAT GOT WANT
rc_is() { [[ $3 == "$4" ]] || bad "$1: $2 exit $3, want $4"; }

# idle [DEV...]: nothing left but the listeners' nothing.
idle() {
	local d devs=("$@")
	(( ${#devs[@]} )) || devs=(s2a s2b)
	for d in "${devs[@]}"; do
		wait_until 15 siw2_objects_ok "$d" || {
			sed 's/^/  /' "$SIW2_DEBUGFS/$d/objects" >&2
			bad "objects left on $d"
		}
	done
	wait_until 15 cm_no_resources || { rdma resource show >&2; bad "rdma resources left"; }
	for d in pa pb; do
		wait_until 15 cm_tcp_quiet $d 0 || { in_ns $d ss -tanH >&2; bad "TCP sockets left in $d"; }
	done
}
# usable TAG [NS]: a fresh short transfer, checked, both sides "ok".
usable() {
	local tag=$1 ns=${2:-pb} src crc
	srv "usable-$tag"
	ip netns exec "$ns" timeout 60 "$P" -c $SRV -p $port -t 10 -n 16 >"$R/usable-$tag.cli" 2>&1
	crc=$?
	reap RC "$spid" 15; src=$RC; spid=
	if [[ $crc != 0 || $src != 0 || $(field "$R/usable-$tag.cli" verified) != 16 ]]; then
		show "$R/usable-$tag.srv"; show "$R/usable-$tag.cli"
		bad "usable after $tag: client $crc server $src"
		return
	fi
	idle
}
step() { log "--- $1 ($(since_ms "$T0") ms)"; }

cleanup() {
	[[ -n $cpid ]] && kill -9 "$cpid" 2>/dev/null
	[[ -n $spid ]] && kill -9 "$spid" 2>/dev/null
	in_ns pb tc qdisc del dev pb-v root 2>/dev/null
	in_ns pa tc qdisc del dev pa-b root 2>/dev/null
	return 0
}
trap cleanup EXIT

siw2_load max_qp=$MAXQP max_cq=$MAXCQ max_mr=$MAXMR
echo 2000 >"$PAR/mpa_timeout_ms" || fail "mpa_timeout_ms"
topology
add_dev pa s2a br0
add_dev pb s2b pb-v

# --- netem: TCP hides loss, reordering and duplicates
step netem
r0=$(in_ns pb nstat -az TcpRetransSegs | awk '/TcpRetransSegs/ { print $2 }')
q0=$(in_ns pa nstat -az TcpRetransSegs | awk '/TcpRetransSegs/ { print $2 }')
for d in "pb pb-v" "pa pa-b"; do
	set -- $d
	in_ns "$1" tc qdisc add dev "$2" root netem delay 1ms loss 2% \
		duplicate 2% reorder 25% 50% || fail "netem on $2"
done
srv netem
cli netem pb -n 200
reap2 60
rc_is netem client "$crc" 0
rc_is netem server "$src" 0
ended "$R/netem.cli" ok && ended "$R/netem.srv" ok
[[ $(field "$R/netem.cli" verified) == 200 ]] || bad "netem: $(field "$R/netem.cli" verified) of 200 iterations checked"
r1=$(in_ns pb nstat -az TcpRetransSegs | awk '/TcpRetransSegs/ { print $2 }')
q1=$(in_ns pa nstat -az TcpRetransSegs | awk '/TcpRetransSegs/ { print $2 }')
log "  netem: TCP retransmissions pb $((r1 - r0)), pa $((q1 - q0)); $(in_ns pb tc -s qdisc show dev pb-v | grep -m1 Sent)"
(( r1 + q1 > r0 + q0 )) || bad "netem: no TCP retransmission: the faults did not hit"
in_ns pb tc qdisc del dev pb-v root
in_ns pa tc qdisc del dev pa-b root
idle

# --- kill -9 of the client mid-transfer
step kill-client
srv kill-client
cli kill-client pb -T 30
running kill-client || { show "$R/kill-client.cli"; fail "kill-client: load not running"; }
kill -9 "$cpid"
reap2 5
rc_is kill-client client "$crc" 137
rc_is kill-client server "$src" 3
if ended "$R/kill-client.srv" fault; then
	[[ $(field "$R/kill-client.srv" cm) == *DISCONNECTED:* ]] || bad "kill-client: server's CM event $(field "$R/kill-client.srv" cm), want DISCONNECTED"
	(( $(field "$R/kill-client.srv" flushed) >= 4 )) || bad "kill-client: server flushed $(field "$R/kill-client.srv" flushed), want its 4 receives at least"
	[[ $(field "$R/kill-client.srv" self_flushed) == yes ]] || bad "kill-client: the server's work requests were not flushed before its own disconnect"
fi
idle

# --- kill -9 of the server mid-transfer
step kill-server
srv kill-server
cli kill-server pb -T 30
running kill-server || { show "$R/kill-server.cli"; fail "kill-server: load not running"; }
kill -9 "$spid"
reap RC "$spid" 5; src=$RC; spid=; reap RC "$cpid" 20; crc=$RC; cpid=
rc_is kill-server server "$src" 137
rc_is kill-server client "$crc" 3
if ended "$R/kill-server.cli" fault; then
	[[ " WR_FLUSH_ERR REM_ACCESS_ERR REM_OP_ERR FATAL_ERR " == *" $(field "$R/kill-server.cli" first | cut -d/ -f1) "* ]] ||
		bad "kill-server: client's first error $(field "$R/kill-server.cli" first)"
	(( $(field "$R/kill-server.cli" flushed) + $(field "$R/kill-server.cli" wc_err) >= 4 )) ||
		bad "kill-server: client flushed/failed fewer than its 4 receives"
	[[ $(field "$R/kill-server.cli" self_flushed) == yes ]] || bad "kill-server: the client's work requests were not flushed before its own disconnect"
fi
idle

# --- TCP RST: the client's socket aborted
step rst
srv rst
cli rst pb -T 30
running rst || { show "$R/rst.cli"; fail "rst: load not running"; }
killed=$(in_ns pb ss -K -tnH dst $SRV dport = :$port 2>&1)
log "  ss -K: $killed"
[[ $killed == *ESTAB* ]] || bad "rst: ss -K killed no established socket"
reap2 20
rc_is rst client "$crc" 3
rc_is rst server "$src" 3
for f in rst.cli rst.srv; do
	ended "$R/$f" fault || continue
	[[ $(field "$R/$f" self_flushed) == yes ]] || bad "rst: $f: work requests not flushed before its own disconnect"
	[[ $(field "$R/$f" cm) =~ DISCONNECTED:-[0-9]+$ ]] || bad "rst: $f: CM $(field "$R/$f" cm), want DISCONNECTED with an error status"
done
idle

# --- netdev down 2 s mid-transfer, then up
step link-flap
srv link-flap
# The transfer outlasts the link's down and up: on the debug kernel
# taking a veth down alone took 7-10 s, after a 5 s transfer had ended.
cli link-flap pb -T $((5 * ${SIW2_TIMEOUT_SCALE:-1})) -t 20
running link-flap || { show "$R/link-flap.cli"; fail "link-flap: load not running"; }
in_ns pb ip link set pb-v down
sleep 2
link_up
reap2 40
rc_is link-flap client "$crc" 0
rc_is link-flap server "$src" 0
ended "$R/link-flap.cli" ok && ended "$R/link-flap.srv" ok
grep -q '^ASYNC PORT_ERR' "$R/link-flap.cli" || bad "link-flap: no PORT_ERR at the client"
grep -q '^ASYNC PORT_ACTIVE' "$R/link-flap.cli" || bad "link-flap: no PORT_ACTIVE at the client"
idle

# --- netdev down for good: both sides give up
step link-gone
srv link-gone -t 3 --stall-ok
cli link-gone pb -T 30 -t 3 --stall-ok
running link-gone || { show "$R/link-gone.cli"; fail "link-gone: load not running"; }
in_ns pb ip link set pb-v down
t=${EPOCHREALTIME/./}
reap2 30
log "  both done $(since_ms "$t") ms after the link went down"
rc_is link-gone client "$crc" 3
rc_is link-gone server "$src" 3
ended "$R/link-gone.cli" fault && ended "$R/link-gone.srv" fault
grep -q '^FAULT .*stalled' "$R/link-gone.cli" || bad "link-gone: the client did not stall"
link_up
idle

# --- rdma link delete of the client's device under load
step link-delete
srv link-delete
cli link-delete pb -T 30
running link-delete || { show "$R/link-delete.cli"; fail "link-delete: load not running"; }
t=${EPOCHREALTIME/./}
timeout 60 rdma link delete s2b || bad "link-delete: rdma link delete s2b: rc $?"
log "  rdma link delete s2b under load: $(since_ms "$t") ms"
reap2 20
rc_is link-delete client "$crc" 4
rc_is link-delete server "$src" 3
ended "$R/link-delete.cli" removed
grep -q '^CM RDMA_CM_EVENT_DEVICE_REMOVAL' "$R/link-delete.cli" || bad "link-delete: no DEVICE_REMOVAL at the client"
ended "$R/link-delete.srv" fault
! siw2_dev_exists s2b || bad "link-delete: s2b still registered"
idle s2a
add_dev pb s2b pb-v

# --- CQ overflow, user rings and kernel CQs
for rings in 1 0; do
	step "cq-overflow user_rings=$rings"
	echo "$rings" >"$PAR/user_rings" || fail "user_rings=$rings"
	srv "cq-overflow-$rings"
	cli "cq-overflow-$rings" pb -n 40 --cq-overflow
	reap2 40
	f=$R/cq-overflow-$rings.cli
	rc_is "cq-overflow-$rings" client "$crc" 0
	rc_is "cq-overflow-$rings" server "$src" 0
	ended "$f" ok
	line=$(grep '^CQ_OVERFLOW' "$f")
	log "  $line"
	if [[ $line =~ cqe=([0-9]+)\ posted=([0-9]+)\ polled=([0-9]+)\ lost=([0-9]+)\ async=(.*) ]]; then
		(( BASH_REMATCH[3] == BASH_REMATCH[1] && BASH_REMATCH[4] == 8 )) ||
			bad "cq-overflow-$rings: polled ${BASH_REMATCH[3]} of a ${BASH_REMATCH[1]}-entry CQ, lost ${BASH_REMATCH[4]} (want the depth, 8)"
		[[ ${BASH_REMATCH[5]} == *CQ_ERR* ]] || bad "cq-overflow-$rings: no IB_EVENT_CQ_ERR (async: ${BASH_REMATCH[5]})"
	else
		show "$f"; bad "cq-overflow-$rings: no CQ_OVERFLOW line"
	fi
	idle
done
echo 1 >"$PAR/user_rings"

# --- RLIMIT_MEMLOCK, an unprivileged user
step memlock
srv memlock
# The program and the provider, where nobody can read them: a tree in a
# private home (0700, as check-fresh's /root) is out of its reach.
MD=$(mktemp -d /tmp/siw2-memlock.XXXXXX) && chmod 755 "$MD" &&
	cp "$P" "$RDMAV_DRIVERS-rdmav34.so" "$MD/" && chmod 755 "$MD"/* ||
	fail "memlock: copy of the program and the provider"
ip netns exec pb env RDMAV_DRIVERS="$MD/libsiw2" prlimit --memlock=524288:524288 \
	setpriv --reuid=65534 --regid=65534 \
	--clear-groups --inh-caps=-all --bounding-set=-all \
	"$MD/${P##*/}" -c $SRV -p $port -t 10 -n 40 --memlock >"$R/memlock.cli" 2>&1
crc=$?; reap RC "$spid" 20; src=$RC; spid=
rc_is memlock client "$crc" 0
rc_is memlock server "$src" 0
ended "$R/memlock.cli" ok
line=$(grep '^MEMLOCK limit' "$R/memlock.cli")
log "  $line"
[[ $line == *"limit=524288 "*"errno=ENOMEM"* ]] || { show "$R/memlock.cli"; bad "memlock: not refused with ENOMEM at 512 KiB"; }
grep -q '^MEMLOCK ok' "$R/memlock.cli" || bad "memlock: the charge did not come back"
idle

# --- object tables full under load
step limits
srv limits
cli limits pb -T 6 --fill-limits --limits-hold 30 --release-file "$R/limits.release"
wait_until 20 grep -q '^LIMITS FULL' "$R/limits.cli" || { show "$R/limits.cli"; bad "limits: tables never full"; }
# One read: a consistent snapshot.
snap=$(cat "$SIW2_DEBUGFS/s2b/objects")
touch "$R/limits.release"
got=$(awk '$1 == "qps" { q = $2 } $1 == "cqs" { c = $2 } $1 == "mrs" { m = $2 } END { print q, c, m }' <<<"$snap")
log "  s2b while full: qps cqs mrs = $got (max $MAXQP $MAXCQ $MAXMR)"
[[ $got == "$MAXQP $MAXCQ $MAXMR" ]] || bad "limits: s2b counts $got, want $MAXQP $MAXCQ $MAXMR"
reap2 40
rc_is limits client "$crc" 0
rc_is limits server "$src" 0
ended "$R/limits.cli" ok
line=$(grep '^LIMITS max' "$R/limits.cli")
log "  $line"
[[ $line == *"errno_cq=ENOMEM"*"errno_mr=ENOMEM"*"errno_qp=ENOMEM"* ]] || bad "limits: not ENOMEM at each limit: $line"
grep -q '^LIMITS RELEASED' "$R/limits.cli" || bad "limits: not released"
idle

# --- a network namespace deleted under load
step netns
add_client pc 3
add_dev pc s2c pc-v
srv netns
cli netns pc -T 30
running netns || { show "$R/netns.cli"; fail "netns: load not running"; }
ip netns del pc || bad "netns: ip netns del pc"
v0=$(field "$R/netns.cli" verified)
sleep 0.5
grep -q '^END' "$R/netns.cli" && bad "netns: the client ended when the name went"
kill -9 "$cpid"
t=${EPOCHREALTIME/./}
reap2 5
rc_is netns client "$crc" 137
rc_is netns server "$src" 3
ended "$R/netns.srv" fault
wait_until 30 eval '! siw2_dev_exists s2c' || bad "netns: s2c still registered after its namespace went"
log "  namespace gone, s2c unregistered after $(since_ms "$t") ms"
ip -n pa link show pa-c >/dev/null 2>&1 && bad "netns: pa-c (peer of pc-v) still there"
idle s2a s2b

# --- module removal under load
step rmmod
srv rmmod
cli rmmod pb -T 30
running rmmod || { show "$R/rmmod.cli"; fail "rmmod: load not running"; }
t=${EPOCHREALTIME/./}
timeout 60 modprobe -r siw2 || bad "rmmod: modprobe -r siw2 under load: rc $?"
log "  modprobe -r siw2 under load: $(since_ms "$t") ms"
reap2 20
rc_is rmmod client "$crc" 4
rc_is rmmod server "$src" 4
ended "$R/rmmod.cli" removed
ended "$R/rmmod.srv" removed
! siw2_loaded || bad "rmmod: siw2 still loaded"
wait_until 15 cm_no_resources || bad "rmmod: rdma resources left"
siw2_load
add_dev pa s2a br0
add_dev pb s2b pb-v
usable rmmod

timeout 60 rdma link delete s2a || fail "rdma link delete s2a"
timeout 60 rdma link delete s2b || fail "rdma link delete s2b"
siw2_assert_zero_counts
siw2_unload
if (( ${#FAILED[@]} )); then
	printf 'failed: %s\n' "${FAILED[@]}" >&2
	fail "${#FAILED[@]} assertion(s) failed"
fi
log "fault scenarios ok ($(since_ms "$T0") ms)"
