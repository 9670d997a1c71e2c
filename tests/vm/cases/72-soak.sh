#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Soak (issue 17): mixed traffic from user space and from the kernel at
# once, every payload checked end to end, with periodic link flaps; then
# nothing corrupt, every work request accounted for, nothing left.
#
# Topology: pa (server, pa-v 198.18.72.1 / fd00:72::1, siw2 s2a) <-> pb
# (client, pb-v .2, siw2 s2b), and the initial namespace (k0 198.18.73.2,
# siw2 s2k) <-> pk (pk-v 198.18.73.1, siw2 s2q).
#  user    tests/progs/siw2_soak: QPS connections (half over IPv6), each a
#          seeded random mix of Send, Send with Immediate Data (4 and 8
#          octets), Write with Immediate Data (4 and 8), Write + Read
#          back, Read (1 SGE and 3 SGEs as Read V2), FetchAdd, CmpSwap,
#          Atomic Write, masked FetchAdd and CmpSwap, RDMA Commit (also
#          with a log update), through ibv_post_send() and the builders;
#          payloads carry checksums the receiver verifies, the server
#          acknowledges every message, Reads and atomics are checked
#          against the memory they must return (see siw2_soak.c).
#  kernel  tests/kmod/siw2_kext.ko (an rdma_cm client in the initial
#          namespace: Write with Immediate, Send with Immediate, Send with
#          Invalidate and Immediate towards it, the atomics including the
#          masked ones and Atomic Write, Reads, Commit and Commit with a log
#          update, every result checked) against "siw2_ext -s" in pk, in a
#          loop for the whole run, each run started only where it should
#          end before the next flap.
#  flaps   every FLAP seconds one end of each veth goes down for DOWN
#          seconds (pa-v/pb-v and k0/pk-v alternately) while siw2's
#          read_v2 flips (so that later connections Read V1 or V2).
#          tcp_retries2=2 in every namespace makes TCP give up within the
#          outage: the connections with data in flight die, their work
#          requests flush, and siw2_soak connects again.
# Proof, beside the soak's first seconds: a 10 s run against a server that
# damages data (-X) must make both sides report corruption and fail.
# Checked: siw2_soak on both sides exits 0 (no corruption, every posted
# work request completed ok or in error, no error but lost connections),
# every opcode completed, the client lost connections only around flaps
# ("SOAK LOST" times), at least one per flap, and every lost connection
# was made again before the end, every kernel iteration that did not
# overlap a flap passed (and at least one did), then no rdma resource,
# no siw2 object on any device, every siw2 count zero, siw2 unloads; the
# harness checks the kernel log.
#
# Knobs (kernel command line, SIW2_VM_APPEND): siw2_soak_secs (traffic
# seconds, default 120; make soak: 1800), siw2_soak_flap (20),
# siw2_soak_down (4), siw2_soak_qps (8), siw2_soak_seed (17). A run longer
# than the default needs SIW2_VM_TIMEOUT_SCALE for the timeout below (make
# soak sets it). Outputs in build/vm-logs/72-soak/.
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip insmod rmmod timeout sysctl awk
R=$SIW2_RESULTS
SOAK=$SIW2_PROGS/siw2_soak
EXT=$SIW2_PROGS/siw2_ext
KX=$SIW2_TOP/tests/kmod/siw2_kext.ko
P=/sys/module/siw2/parameters
[[ -x $SOAK && -x $EXT ]] || fail "siw2_soak or siw2_ext not built (make progs)"
[[ -f $KX ]] || fail "missing $KX (make ktest)"

# soak_knob NAME DEFAULT: siw2_soak_NAME=N from the kernel command line.
soak_knob() {
	local v
	v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^siw2_soak_$1=\([0-9][0-9]*\)\$/\1/p" | tail -n1)
	echo "${v:-$2}"
}
SECS=$(soak_knob secs 120)
FLAP=$(soak_knob flap 20)
DOWN=$(soak_knob down 4)
QPS=$(soak_knob qps 8)
SEED=$(soak_knob seed 17)
(( SECS >= 30 && FLAP >= DOWN + 5 && DOWN >= 4 && QPS >= 1 )) ||
	fail "knobs: secs $SECS (>= 30), flap $FLAP (>= down + 5), down $DOWN (>= 4), qps $QPS"
log "soak: $SECS s, a flap every $FLAP s for $DOWN s, $QPS QPs, seed $SEED"

uptime_s() { local up; read -r up _ </proc/uptime; echo "$up"; }

pids=()
kill_all() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}
trap kill_all EXIT

siw2_load
# TCP keepalive (keepalive_s) finds a connection whose peer's socket went
# during a flap while it had nothing to retransmit (73-half-open.sh): that
# loss comes up to 2 x keepalive_s after the flap. A short soak tunes it
# to 5 s so that it can still flap to within 40 s of its end; make soak
# runs the default.
(( SECS < 600 )) && { echo 5 >"$P/keepalive_s" || fail "keepalive_s=5"; }
KA=$(cat "$P/keepalive_s")
log "keepalive_s $KA"

# ---------------------------------------------------------------- topology
cm_ns_pair pa pb 72
ip netns add pk || fail "ip netns add pk"
ip link add k0 type veth peer name pk-v netns pk || fail "veth k0/pk-v"
ip addr add 198.18.73.2/24 dev k0 || fail "addr k0"
ip -n pk addr add 198.18.73.1/24 dev pk-v || fail "addr pk-v"
ip link set k0 up || fail "k0 up"
{ ip -n pk link set lo up && ip -n pk link set pk-v up; } || fail "pk-v up"
wait_until 10 eval "ip link show k0 | grep -q LOWER_UP && ip -n pk link show pk-v | grep -q LOWER_UP" ||
	fail "no carrier on k0/pk-v"
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
siw2_link_add - s2k k0 || fail "rdma link add s2k"
siw2_link_add pk s2q pk-v || fail "rdma link add s2q"
for d in s2a s2b s2k s2q; do
	wait_port_active "$d" || fail "$d port not ACTIVE"
done
# TCP gives up after ~1.4-3 s without an ACK (the default is ~15 min): an
# outage of DOWN seconds ends the connections that had data in flight.
for ns in - pa pb pk; do
	in_ns "$ns" sysctl -qw net.ipv4.tcp_retries2=2 || fail "tcp_retries2 in $ns"
done
# A link going down drops its IPv6 addresses unless told otherwise.
for ns in pa pb; do
	in_ns "$ns" sysctl -qw net.ipv6.conf.all.keep_addr_on_down=1 ||
		fail "keep_addr_on_down in $ns"
done
# ib_core's address resolution can miss the ARP reply on a fresh veth
# (see case 64): resolve the kernel side's neighbour first.
timeout 5 bash -c ": 2>/dev/null >/dev/tcp/198.18.73.1/9" 2>/dev/null

# ---------------------------------------------------------------- proof
# The checks see damage: a server with -X (proof only) flips a bit of a
# message, clears its pattern area and changes the counter (at every 10th
# message: an Atomic Write would repair a single change); both sides
# must report it and fail. It runs beside the soak's first seconds;
# proof.rc gets "CLIENT_RC SERVER_RC".
proof() {
	local ps prc
	ip netns exec pa timeout 150 "$SOAK" -s -X -a 198.18.72.1 -p 7721 >"$R/proof.srv" 2>&1 &
	ps=$!
	if ! wait_until 20 grep -q '^SOAK READY' "$R/proof.srv"; then
		kill "$ps"
		wait "$ps"
		echo "- -" >"$R/proof.rc"
		return
	fi
	# Long enough for its 10th message and more on a slow (debug) kernel.
	ip netns exec pb timeout 120 "$SOAK" -a 198.18.72.1 -p 7721 \
		-D $((10 * SIW2_TIMEOUT_SCALE)) -q 1 >"$R/proof.cli" 2>&1
	prc=$?
	kill -TERM "$ps"
	wait "$ps"
	echo "$prc $?" >"$R/proof.rc"
}

# ----------------------------------------------------------------- user
log "topology ready"
proof &
prf=$!
pids+=("$prf")
T0=$(uptime_s)
END=$(awk -v a="$T0" -v s="$SECS" 'BEGIN { printf "%d", a + s }')
ip netns exec pa timeout $((SECS + 200)) "$SOAK" -s -a 198.18.72.1 -a fd00:72::1 \
	-p 7720 >"$R/server.out" 2>&1 &
srv=$!
pids+=("$srv")
# Up to 60 s (stretched on a slower kernel): on the debug kernel the
# server had not printed READY after 80 s.
wait_until 60 eval "grep -q '^SOAK READY' '$R/server.out' || ! kill -0 $srv 2>/dev/null"
grep -q '^SOAK READY' "$R/server.out" || { cat "$R/server.out"; fail "siw2_soak server not ready"; }
ip netns exec pb timeout $((SECS + 250)) "$SOAK" -a 198.18.72.1 -a fd00:72::1 -p 7720 \
	-D "$SECS" -q "$QPS" -S "$SEED" >"$R/client.out" 2>&1 &
cli=$!
pids+=("$cli")

# --------------------------------------------------------------- kernel
# One siw2_kext run per iteration against a fresh siw2_ext server; the
# line "N START END RC SRV_RC" goes to kernel.iters.
kiter() {
	local i=$1 port=$((7800 + $1 % 100)) sp t1 t2 rc src rv2
	ip netns exec pk timeout 120 "$EXT" -s -a 198.18.73.1 -p "$port" -t 30 \
		>"$R/kext.srv" 2>&1 &
	sp=$!
	if ! wait_until 20 grep -q '^LISTENING' "$R/kext.srv"; then
		kill "$sp" 2>/dev/null
		wait "$sp" 2>/dev/null
		echo "$i $(uptime_s) $(uptime_s) -1 -1" >>"$R/kernel.iters"
		return
	fi
	[[ $(cat "$P/read_v2") == Y ]] && rv2=1 || rv2=0
	# The server's neighbour entry first, by a refused TCP connect: after
	# minutes without traffic it is stale, and ib_core's address
	# resolution can miss the ARP reply and wait out its whole timeout
	# (performance.md, "Where an NFS/RDMA mount's seconds go"); the 30-min
	# soak's iteration 27 failed so, clear of any flap (session 28).
	timeout 5 bash -c ": 2>/dev/null >/dev/tcp/198.18.73.1/9" 2>/dev/null
	# The setup above took seconds after a flap (the neighbour again):
	# whether the run still fits is decided here.
	if ! fits "$KEST"; then
		kill "$sp" 2>/dev/null
		wait "$sp" 2>/dev/null
		return 1
	fi
	t1=$(uptime_s)
	: >"$R/kbusy"
	kmsg_mark "soak-kext-$i"
	timeout 120 insmod "$KX" addr=198.18.73.1 port="$port" rv2=1 commit=1 \
		read_v2="$rv2" timeout_ms=$((5000 * ${SIW2_TIMEOUT_SCALE:-1}))
	rc=$?
	t2=$(uptime_s)
	rm -f "$R/kbusy"
	rmmod siw2_kext 2>/dev/null
	# A client that failed leaves a server waiting for nobody: waiting
	# out its time budget (120 s on the debug kernel) cost the next
	# iteration its window between two flaps.
	(( rc )) && kill "$sp" 2>/dev/null
	if wait_until 15 eval "! kill -0 $sp 2>/dev/null"; then
		wait "$sp"
		src=$?
	else
		kill "$sp" 2>/dev/null
		wait "$sp" 2>/dev/null
		src=124
	fi
	KDUR=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", b - a }')
	echo "$i $t1 $t2 $rc $src" >>"$R/kernel.iters"
	if (( rc || src )); then
		{ echo "== iteration $i: insmod rc $rc, server rc $src"
		  kmsg_since "soak-kext-$i" | grep 'siw2_kext'
		  sed 's/^/  srv| /' "$R/kext.srv"; } >>"$R/kernel.failed"
	fi
}
# The iterations run between flaps: the flap loop keeps the time of the
# next flap in nextflap ("none" after the last) and flapping exists from
# a down to 5 s after the up.  An iteration's insmod starts only if it
# should end before the next flap (its predecessor's duration + 3 s, a
# quarter of a flap period at first, at most half of one): on the debug
# kernel one takes longer than a flap period leaves after fixed-time
# starts, and both of session 30's overlapped a flap.
# A flap that comes due while an insmod runs waits for it (kbusy, up to
# 60 s): on a loaded host no iteration might otherwise fit between two
# flaps (stop 42's fresh-root run, session 37).
# fits SECS: no flap now, and none due within SECS.
fits() {
	[[ -e $R/flapping ]] && return 1
	(( $(awk -v nf="$(cat "$R/nextflap")" -v n="$(uptime_s)" -v est="$1" \
		'BEGIN { print (nf == "none" || n + est < nf) }') ))
}
kloop() {
	local i=0 cap=$((FLAP / 2))
	KDUR=0
	KEST=$((FLAP / 4))
	# The last iteration ends about when the user traffic does.
	while (( $(awk -v e="$END" -v n="$(uptime_s)" 'BEGIN { print (n < e - 12) }') )); do
		if ! fits "$KEST"; then
			sleep 0.5
			continue
		fi
		kiter "$i" || continue
		KEST=$(awk -v d="$KDUR" -v c="$cap" 'BEGIN { e = d + 3; printf "%d", e > c ? c : e }')
		i=$((i + 1))
	done
}
: >"$R/kernel.iters"
rm -f "$R/flapping" "$R/kbusy"
awk -v a="$T0" -v f="$FLAP" 'BEGIN { printf "%.1f\n", a + f }' >"$R/nextflap"
kloop &
kl=$!
pids+=("$kl")

# ---------------------------------------------------------------- flaps
# Alternately the server's and the client's end (and k0 / pk-v); read_v2
# flips while the links are down.
: >"$R/flaps"
k=0
while :; do
	at=$(awk -v a="$T0" -v k="$((k + 1))" -v f="$FLAP" 'BEGIN { printf "%.1f", a + k * f }')
	# No flap in the last DOWN + 25 s (the downs and ups themselves take
	# seconds under TCG) + 2 x KA (a half-open connection's detection):
	# every slot is back before the clean close.
	(( $(awk -v at="$at" -v d="$DOWN" -v e="$END" -v ka="$KA" 'BEGIN { print (at + d + 25 + 2 * ka <= e) }') )) ||
		{ echo none >"$R/nextflap"; break; }
	echo "$at" >"$R/nextflap"
	while (( $(awk -v at="$at" -v n="$(uptime_s)" 'BEGIN { print (n < at) }') )); do
		sleep 0.2
	done
	kill -0 "$cli" 2>/dev/null || break
	if [[ -e $R/kbusy ]]; then
		wait_until $((60 * ${SIW2_TIMEOUT_SCALE:-1})) eval '[[ ! -e $R/kbusy ]]'
		log "flap $((k + 1)) waited for a kernel iteration until $(uptime_s)"
		# Still clear of the end (the condition above, from now)?
		(( $(awk -v at="$(uptime_s)" -v d="$DOWN" -v e="$END" -v ka="$KA" 'BEGIN { print (at + d + 25 + 2 * ka <= e) }') )) ||
			{ echo none >"$R/nextflap"; break; }
	fi
	if (( k % 2 )); then u=(pb pb-v) kn=(pk pk-v); else u=(pa pa-v) kn=(- k0); fi
	: >"$R/flapping"
	t1=$(uptime_s)
	ip -n "${u[0]}" link set "${u[1]}" down || fail "${u[1]} down"
	in_ns "${kn[0]}" ip link set "${kn[1]}" down || fail "${kn[1]} down"
	[[ $(cat "$P/read_v2") == Y ]] && echo 0 >"$P/read_v2" || echo 1 >"$P/read_v2"
	td=$(uptime_s)
	sleep "$DOWN"
	ip -n "${u[0]}" link set "${u[1]}" up || fail "${u[1]} up"
	in_ns "${kn[0]}" ip link set "${kn[1]}" up || fail "${kn[1]} up"
	t2=$(uptime_s)
	echo "$t1 $t2" >>"$R/flaps"
	(sleep 5; rm -f "$R/flapping") &
	log "flap $((k + 1)): ${u[1]} and ${kn[1]} down $t1 .. $t2 (the downs took $(awk -v a="$t1" -v b="$td" 'BEGIN { printf "%.1f", b - a }') s), read_v2 now $(cat "$P/read_v2")"
	k=$((k + 1))
done
NFLAPS=$k

# ------------------------------------------------------------ verdicts
bad=()
wait "$cli"
crc=$?
log "client done (rc $crc)"
wait "$kl"
kill -TERM "$srv" 2>/dev/null
wait "$srv"
src=$?
wait "$prf"
pids=()
read -r prc psrc <"$R/proof.rc"
for re in 'the server found it damaged' 'Read data differs' 'atomic returned another'; do
	grep -q "^SOAK CORRUPT side=client .*$re" "$R/proof.cli" ||
		bad+=("proof: the client did not report '$re'")
done
grep -q '^SOAK CORRUPT side=server ' "$R/proof.srv" ||
	bad+=("proof: the server reported no corruption")
[[ $prc == 1 && $psrc == 1 ]] || bad+=("proof: client rc $prc, server rc $psrc (want 1 and 1)")
log "proof: $(grep -c '^SOAK CORRUPT' "$R/proof.cli") client and $(grep -c '^SOAK CORRUPT' "$R/proof.srv") server corruption lines, rc $prc and $psrc"
grep -E '^SOAK (OPS|STATUS|SUMMARY)' "$R/client.out" | sed 's/^/client: /'
grep -E '^SOAK (OPS|STATUS|SUMMARY)' "$R/server.out" | sed 's/^/server: /'
(( crc == 0 )) || bad+=("siw2_soak client rc $crc")
(( src == 0 )) || bad+=("siw2_soak server rc $src")
grep -E '^SOAK (FAIL|BAD|CORRUPT)' "$R/client.out" "$R/server.out" | head -n 20
csum=$(grep '^SOAK SUMMARY side=client' "$R/client.out")
ssum=$(grep '^SOAK SUMMARY side=server' "$R/server.out")
[[ -n $csum ]] || bad+=("no client summary")
[[ -n $ssum ]] || bad+=("no server summary")
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2"; }
for f in corrupt unaccounted bad; do
	[[ $(field "$f" "$csum") == 0 ]] || bad+=("client $f=$(field "$f" "$csum")")
	[[ $(field "$f" "$ssum") == 0 ]] || bad+=("server $f=$(field "$f" "$ssum")")
done
(( $(field verified_bytes "$csum") > 0 && $(field msgs_acked "$csum") > 0 )) ||
	bad+=("the client verified nothing")
# Every opcode ran and completed at least once.
for op in send send_imm send_imm64 write_imm write_imm64 write read_back read \
	fetch_add cmp_swap atomic_write masked_fetch_add masked_cmp_swap commit \
	commit_log log_read; do
	grep -Eq "^SOAK OPS.* $op=[0-9]+/[1-9][0-9]*/" "$R/client.out" ||
		bad+=("no $op completed ok")
done
grep -Eq "^SOAK OPS.* read_v2=[0-9]+/[1-9][0-9]*/" "$R/client.out" ||
	bad+=("no Read V2 completed ok")
(( NFLAPS >= 1 )) || bad+=("no flap ran")
# Each flap ends connections; each connection lost came back (there is no
# flap near the end).
rec=$(field reconnects "$csum") lost=$(field losses "$csum")
(( ${lost:-0} >= NFLAPS )) || bad+=("$lost connections lost in $NFLAPS flaps")
[[ $rec == "$lost" ]] || bad+=("$lost connections lost, $rec reconnected")
# Connections are lost only around flaps: from the link going down to
# 15 s after it came back, or 2 x KA s for a half-open one that keepalive
# found.
late=$(awk -v ka="$KA" 'NR == FNR { d[NR] = $1; u[NR] = $2; n = NR; next }
	/^SOAK LOST / { t = $5; sub("t=", "", t); t += 0; ok = 0
		for (i = 1; i <= n; i++) if (t >= d[i] && t <= u[i] + 15 + 2 * ka) ok = 1
		if (!ok) print }' "$R/flaps" "$R/client.out")
[[ -z $late ]] || bad+=("connections lost outside the flaps: $late")

# Kernel iterations: each one clear of every flap (DOWN .. UP + 5) passes.
kres=$(awk 'NR == FNR { d[NR] = $1; u[NR] = $2; n = NR; next }
	{ over = 0
	  for (i = 1; i <= n; i++) if ($2 <= u[i] + 5 && $3 >= d[i]) over = 1
	  pass = $4 == 0 && $5 == 0
	  if (pass) p++; else if (over) x++; else { f++; fl = fl " " $1 } }
	END { printf "%d %d %d%s\n", p, x, f, fl }' "$R/flaps" "$R/kernel.iters")
read -r kpass kexc kfail kfl <<<"$kres"
log "kernel: $kpass iterations passed, $kexc overlapped a flap and failed, $kfail failed clear of the flaps${kfl:+ (iterations $kfl)}"
(( kpass >= 1 )) || bad+=("no kernel iteration passed")
(( kfail == 0 )) || { [[ -f $R/kernel.failed ]] && tail -n 40 "$R/kernel.failed"; bad+=("$kfail kernel iterations failed clear of the flaps"); }
echo 0 >"$P/read_v2"

# ------------------------------------------------------------- leftovers
cm_assert_no_resources 30
for d in s2a s2b s2k s2q; do
	cm_assert_siw2_objects 30 "$d"
done
if (( ${#bad[@]} )); then
	printf 'failed: %s\n' "${bad[@]}" >&2
	fail "${#bad[@]} check(s) failed"
fi
for d in s2a s2b s2k s2q; do
	siw2_link_del "$d" || fail "rdma link delete $d"
done
siw2_assert_zero_counts
siw2_unload
log "soak ok: $NFLAPS flaps, $lost connections lost and $rec reconnected, $(field verified_bytes "$csum") + $(field verified_bytes "$ssum") bytes verified, kernel $kpass/$((kpass + kexc + kfail)) iterations passed"
