#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/check-crash.sh: the power-fail test of RDMA Commit (issue 34 item
# 4), as storage engines test themselves. make check-crash runs it; it is
# not part of make check (some 20-40 s a kill: 40 kills take 15-30 min).
#
# Two guests on a link of their own (a QEMU UDP socket pair on the host's
# loopback, which survives one side's QEMU dying): a server guest
# (tests/crash/server-guest.sh) whose emulated NVDIMM is a host file kept
# across boots (SIW2_VM_PMEM_FILE), and a client guest
# (tests/crash/client-guest.sh) that stays up for the whole run. Each round:
#   1. a server guest boots on the file, finds the namespace the first one
#      made, checks the log with "siw2-pmlog recover" and serves it;
#   2. the client appends records of random sizes and payloads (from the
#      round's seed) with "siw2-pmlog append --resume", in push mode
#      (Write + Commit with the end word's log update) and classic mode
#      (Write + Send, the server writes back and answers) in turn, and
#      writes each acknowledged record to acks-K in its results directory,
#      which is a host directory, before it sends the next;
#   3. the host waits for the first acknowledgement, then a delay drawn
#      from the round's seed, and kills the server's QEMU with SIGKILL.
# The next round's server guest (or, after the last kill, a guest that
# only checks) recovers the log, and the host asserts, for that kill:
#   - the log is consistent: "recover" status 0, the end word at the end
#     of a whole record at or below the recovered end, every record below
#     the recovered end whole (CRC-32C over header and payload, and every
#     payload octet the one generated for it), nothing of the epoch past
#     it (a torn record past it is never taken: that is the format's
#     job, which "siw2-pmlog selftest" checks first on the host);
#   - the end word and the recovered end are at or past the last
#     acknowledged end (COMMIT-DUR-1, SIW2-DEC-1), in the same epoch,
#     and the last whole record's sequence number at or past the last
#     acknowledged one;
#   - at most one whole record lies at or past the end word (one append
#     is in flight at a time);
#   - every server guest after the first reused the namespace.
# No kill is repeated and no step is retried: a guest that fails to come
# up ends the run with its evidence. The kernel logs of all guests
# (the killed ones' serial consoles) must stay clean (vm.sh KLOG_BAD).
#
# What a kill proves, and what it cannot: Documentation/testing.md,
# "Power-fail test".
#
# Knobs: CRASH_KILLS (20 per mode), CRASH_MODES ("push classic", taken in
# turn), CRASH_SEED (the run's seed; default random, printed: the same
# seed gives the same kill delays and record sizes, not the same
# timing), CRASH_DELAY ("0.3 4": the kill comes this many seconds after
# the round's first acknowledgement, uniform), CRASH_RECORD (262144: the
# largest record; sizes are 64 to that, log-uniform, so that the time
# goes mostly to placing large ones and a kill may tear one),
# CRASH_RENEW (16M: a server starts a new epoch, a fresh log, once the
# log is past that, so that the run crosses epochs; siw2-pmlog serve
# --renew), CRASH_PMEM (256M).
# Results: build/check-crash/<time>/ (crash.log, the NVDIMM file
# pmem.img, every guest's results, output and console).
set -u

SIW2_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export SIW2_TOP
# shellcheck source=tests/vm/vm.sh
source "$SIW2_TOP/tests/vm/vm.sh"

KILLS=${CRASH_KILLS:-20}
read -r -a MODES <<<"${CRASH_MODES:-push classic}"
SEED=${CRASH_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
read -r DMIN DMAX <<<"${CRASH_DELAY:-0.3 4}"
RECORD=${CRASH_RECORD:-262144}
RENEW=${CRASH_RENEW:-16M}
PMEM=${CRASH_PMEM:-256M}
PL=$SIW2_TOP/tools/pmlog/siw2-pmlog
OUT=$SIW2_TOP/build/check-crash/$(date +%Y%m%d-%H%M%S)
CR=$OUT/client/results
N=$(( KILLS * ${#MODES[@]} ))
T0=$EPOCHREALTIME

mkdir -p "$OUT" || exit 1
exec > >(tee "$OUT/crash.log") 2>&1

say() { printf '[%7.1f] %s\n' "$(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" "$*"; }
die() { say "check-crash: ABORT: $*"; cleanup; exit 1; }

for f in "$PL" "$SIW2_TOP/drivers/siw2/siw2.ko" "$SIW2_TOP/userspace-provider/build/libsiw2-rdmav34.so"; do
	[[ -e $f ]] || { echo "check-crash: $f not built (make all)" >&2; exit 1; }
done
[[ $KILLS =~ ^[1-9][0-9]*$ ]] || { echo "check-crash: CRASH_KILLS '$KILLS'" >&2; exit 1; }

client_job= srv_job= srv_pid=
cleanup() {
	[[ -n $srv_pid ]] && kill -9 "$srv_pid" 2>/dev/null
	[[ -n $client_job ]] && { : >"$CR/stop"; }
	local i
	for ((i = 0; i < 300; i++)); do
		[[ -n $client_job ]] && kill -0 "$client_job" 2>/dev/null || break
		sleep 0.2
	done
	[[ -n $client_job ]] && kill -0 "$client_job" 2>/dev/null &&
		[[ -s $OUT/client.pid ]] && kill "$(cat "$OUT/client.pid")" 2>/dev/null
	# Not a bare "wait": it would wait for the tee of this script's output.
	[[ -n $srv_job ]] && wait "$srv_job" 2>/dev/null
	[[ -n $client_job ]] && wait "$client_job" 2>/dev/null
}
trap 'say "interrupted"; cleanup; exit 130' INT TERM

# wait_for SECS CMD...: until CMD succeeds (0) or SECS pass (1).
wait_for() {
	local end=$(( ${EPOCHREALTIME/./} + $1 * 1000000 ))
	shift
	until "$@"; do
		(( ${EPOCHREALTIME/./} >= end )) && return 1
		sleep 0.2
	done
}

# The run's kills: round seed and delay, reproducible from SEED.
mapfile -t PLAN < <(python3 - "$SEED" "$N" "$DMIN" "$DMAX" <<'P'
import random, sys
seed, n, lo, hi = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
r = random.Random(seed)
for k in range(n):
    s = r.getrandbits(32)
    print(s, "%.2f" % (lo + random.Random(s).random() * (hi - lo)))
P
)
(( ${#PLAN[@]} == N )) || die "no kill plan (python3?)"

say "check-crash: seed $SEED, $KILLS kills per mode (${MODES[*]}), $N in all, kill ${DMIN}-${DMAX} s after a round's first ack, records of 64-$RECORD octets, a new epoch past $RENEW, NVDIMM $PMEM; $OUT"
[[ $(git -C "$SIW2_TOP" rev-parse --show-toplevel 2>/dev/null) == "$SIW2_TOP" ]] &&
	say "tree: $(git -C "$SIW2_TOP" describe --always --dirty)"
"$PL" selftest || die "siw2-pmlog selftest failed: the record format itself"

read -r kinfo < <(vm_kernel) || die "no guest kernel"
vm_initramfs "${kinfo%% *}" >/dev/null || die "no initramfs"
vm_modindex "${kinfo%% *}" "$SIW2_TOP/drivers/siw2/siw2.ko" >/dev/null || die "no module index"

# Two UDP ports on the loopback: each guest's NIC sends to the other's.
read -r PS PC < <(python3 -c '
import socket
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
NIC_S="socket,udp=127.0.0.1:$PC,localaddr=127.0.0.1:$PS,model=virtio-net-pci,mac=52:54:00:91:00:01"
NIC_C="socket,udp=127.0.0.1:$PS,localaddr=127.0.0.1:$PC,model=virtio-net-pci,mac=52:54:00:91:00:02"
PMEMFILE=$OUT/pmem.img

mkdir -p "$CR"
# Each boot's own messages (and the shell's note of a killed QEMU) go to
# its .boot file.
SIW2_VM_PIDFILE=$OUT/client.pid SIW2_VM_NIC=$NIC_C SIW2_VM_PMEM= \
	vm_boot "$OUT/client" $(( 90 * N + 600 )) "$OUT/client.console" run \
	"$SIW2_TOP/tests/crash/client-guest.sh" 2>"$OUT/client.boot" &
client_job=$!

# srv_boot K ROLE: boot round K's server guest in the background.
srv_boot() {
	local k=$1 role=$2
	rm -f "$OUT/srv-$k.pid"
	SIW2_VM_PMEM=$PMEM SIW2_VM_PMEM_FILE=$PMEMFILE SIW2_VM_PIDFILE=$OUT/srv-$k.pid \
	SIW2_VM_NIC=$NIC_S SIW2_VM_APPEND="${SIW2_VM_APPEND:-} crash_role=$role crash_port=7900 crash_renew=$RENEW" \
		vm_boot "$OUT/srv-$k" 600 "$OUT/srv-$k.console" run "$SIW2_TOP/tests/crash/server-guest.sh" \
		2>"$OUT/srv-$k.boot" &
	srv_job=$!
	wait_for 30 test -s "$OUT/srv-$k.pid" || die "round $k: QEMU wrote no pid file"
	srv_pid=$(cat "$OUT/srv-$k.pid")
}

# show FILE...: the last lines of each, indented (evidence for an abort).
show() {
	local f
	for f in "$@"; do
		[[ -s $f ]] && { echo "  $f:"; tail -n 12 "$f" | sed 's/^/    /'; }
	done
	return 0
}

fails=0
bad() { fails=$((fails + 1)); say "FAIL: $*"; }
declare -A outcome=()
ack_epoch= ack_seq= ack_end= ack_n= kmode= kseed= kdelay=

# check_recovery K: round K's guest recovered the log the kill of round
# K-1 left (or, for K = 1, the fresh file).
check_recovery() {
	local k=$1 res=$OUT/srv-$k/results line rc v
	local -A r=()
	rc=$(cat "$res/recover.rc" 2>/dev/null)
	line=$(grep -h '^RECOVER ' "$res/recover.txt" 2>/dev/null)
	for v in $line; do
		[[ $v == *=* ]] && r[${v%%=*}]=${v#*=}
	done
	if (( k == 1 )); then
		[[ $rc == 0 && ${r[fresh]:-} == 1 ]] || bad "round 1: the new file's log is not fresh: $line"
		return
	fi
	grep -q 'pmem: reusing the devdax namespace' "$OUT/srv-$k/out" ||
		bad "round $k: the guest did not reuse the namespace on the kept file"
	local why=()
	[[ $rc == 0 && ${r[ok]:-} == 1 ]] || why+=("recover status ${rc:-none}: $(grep -h BROKEN "$res/recover.txt" | tr '\n' ' ')")
	[[ ${r[fresh]:-} == 0 ]] || why+=("no log head")
	[[ ${r[epoch]:-} == "$ack_epoch" ]] || why+=("epoch ${r[epoch]:-?}, the acks' $ack_epoch")
	(( ${r[word]:-0} >= ack_end )) || why+=("end word ${r[word]:-?} below the acknowledged end $ack_end")
	(( ${r[end]:-0} >= ack_end )) || why+=("recovered end ${r[end]:-?} below the acknowledged end $ack_end")
	(( ${r[lastseq]:-0} >= ack_seq )) || why+=("last whole record seq ${r[lastseq]:-?} below the acknowledged seq $ack_seq")
	(( ${r[beyond]:-9} <= 1 )) || why+=("${r[beyond]} whole records at or past the end word")
	(( ${r[islands]:-9} == 0 )) || why+=("${r[islands]} whole records past the recovered end")
	local kk=$((k - 1)) past=$(( ${r[end]:-0} - ${r[word]:-0} ))
	outcome[$kmode ${r[next]:-?} ${r[beyond]:-?}]=$(( ${outcome[$kmode ${r[next]:-?} ${r[beyond]:-?}]:-0} + 1 ))
	say "kill $kk/$N ($kmode, seed $kseed, ${kdelay} s): acked $ack_n, the last seq $ack_seq ending at $ack_end (epoch $ack_epoch); recovered: end word ${r[word]:-?}, ${r[records]:-?} whole records to ${r[end]:-?} (${past} octets, ${r[beyond]:-?} record(s) past the end word), then ${r[next]:-?}: $( ((${#why[@]})) && echo FAIL || echo ok)"
	(( ${#why[@]} )) && bad "kill $kk: $(IFS=';'; echo "${why[*]}")"
}

wait_for 300 test -e "$CR/ready" || { show "$OUT/client.boot" "$OUT/client/out" "$OUT/client.console"; die "the client guest did not come up"; }
say "client guest up"
for ((k = 1; k <= N + 1; k++)); do
	role=serve
	(( k > N )) && role=verify
	srv_boot "$k" "$role"
	res=$OUT/srv-$k/results
	wait_for 300 test -s "$res/recover.rc" ||
		{ show "$OUT/srv-$k.boot" "$OUT/srv-$k/out" "$OUT/srv-$k.console"; die "round $k: the server guest did not recover within 300 s"; }
	check_recovery "$k"
	if [[ $role == verify ]]; then
		wait "$srv_job"
		srv_pid=
		break
	fi
	wait_for 60 grep -qs '^pmlog: serving' "$res/serve.txt" ||
		{ show "$OUT/srv-$k/out" "$res/serve.txt"; die "round $k: the server does not serve"; }
	read -r kseed kdelay <<<"${PLAN[k-1]}"
	kmode=${MODES[(k - 1) % ${#MODES[@]}]}
	printf 'MODE=%s\nSEED=%s\nRECORD=%s\nPORT=7900\n' "$kmode" "$kseed" "$RECORD" >"$CR/.round-$k"
	mv "$CR/.round-$k" "$CR/round-$k"
	wait_for 60 test -s "$CR/acks-$k" ||
		{ show "$CR/append-$k.txt" "$res/serve.txt" "$OUT/client/out"; die "round $k: no acknowledgement within 60 s"; }
	sleep "$kdelay"
	[[ -e $CR/done-$k ]] &&
		{ show "$CR/append-$k.txt" "$res/serve.txt"; die "round $k: the client stopped before the kill"; }
	kill -9 "$srv_pid" || die "round $k: kill -9 $srv_pid failed"
	say "round $k: killed the server's QEMU (pid $srv_pid) $kdelay s after the first ack ($kmode, seed $kseed; the round appended from $(sed -n 's/^pmlog: client 0 appends at //p' "$res/serve.txt")); acks so far: $(wc -l <"$CR/acks-$k")"
	wait "$srv_job"
	srv_pid=
	# The client notices (no completion within 5 s) and stops; what it
	# acknowledged before the kill is all in acks-K by then.
	wait_for 60 test -s "$CR/done-$k" ||
		{ show "$CR/append-$k.txt" "$OUT/client/out"; die "round $k: the client did not stop within 60 s of the kill"; }
	read -r _ ack_epoch ack_seq ack_end < <(tail -n 1 "$CR/acks-$k")
	ack_n=$(wc -l <"$CR/acks-$k")
	[[ $ack_end =~ ^[0-9]+$ ]] || die "round $k: bad last ack line: $(tail -n 1 "$CR/acks-$k")"
	grep -q 'no completion within\|completion wr_id' "$CR/append-$k.txt" ||
		bad "round $k: the client ended otherwise than by losing its server: $(tail -n 2 "$CR/append-$k.txt" | tr '\n' ' ')"
done
: >"$CR/stop"
wait_for 120 eval '! kill -0 "$client_job" 2>/dev/null' || say "the client guest did not power off within 120 s"
wait "$client_job" 2>/dev/null
client_job=
[[ $(cat "$OUT/client/rc" 2>/dev/null) == 0 ]] || bad "client guest: status $(cat "$OUT/client/rc" 2>/dev/null || echo none): $(tail -n 3 "$OUT/client/out" | tr '\n' ' ')"
[[ $(cat "$OUT/srv-$((N + 1))/rc" 2>/dev/null) == 0 ]] || bad "the last (verifying) guest: status $(cat "$OUT/srv-$((N + 1))/rc" 2>/dev/null || echo none)"

# Every guest's kernel log: the killed ones only have their console.
klog=$(cat "$OUT"/*.console "$OUT"/client/dmesg "$OUT"/srv-*/dmesg 2>/dev/null |
	grep -Ev "$KLOG_USER" | grep -E -m3 "$KLOG_BAD")
[[ -z $klog ]] || bad "kernel log: $klog"

say "outcomes (mode, what lay at the recovered end, whole records past the end word: kills):"
for o in "${!outcome[@]}"; do
	echo "  $o: ${outcome[$o]}"
done | sort
wall=$(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
say "check-crash: $N kills ($KILLS per mode: ${MODES[*]}), $fails failure(s); seed $SEED; wall $wall s; $OUT"
(( fails == 0 ))
