#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/bench.sh: the "make bench" benchmark.  Boots one QEMU guest
# (tests/vm/vm.sh vm_boot) that runs tests/vm/bench/bench-guest.sh: perftest
# over rdma_cm (ib_{write,read,send}_bw at several sizes, ib_{write,read,send}_lat
# at 64 B) for siw2, Linux siw and rdma_rxe, plus TCP (iperf3, sockperf), on
# veth pairs (Documentation/performance.md says which path each driver uses).
# Then, on the host, tools/bench-report.py writes results.md and gnuplot
# draws bandwidth.png, latency.png, mqp.png and extras.png.  A driver that fails is reported as
# "n/a (failed)"; the bench itself only fails if the guest produced nothing.
#
# Results: build/bench/<timestamp>/ (build/bench/latest points at it):
#   results.md  tables (median, min-max, n) and siw2 ratios
#   runs.tsv    one line per run;  raw/  every program's output
#   info.txt    guest facts;  host.txt  host facts (load, accel, times)
#   bandwidth.png latency.png mqp.png extras.png plots.gp plot/   the plots
#   vm/         guest console, kernel log, script output
#
# Knobs (environment):
#   BENCH_REPEATS   repeats per configuration (3; BENCH_QUICK: 1)
#   BENCH_DURATION  seconds per bandwidth/TCP run, perftest -D (3);
#                   perftest measures the middle DURATION-2 s (-f 1): raise
#                   it for less noise (each +1 s adds ~2.5 min)
#   BENCH_SIZES     bandwidth message sizes ("64 4096 65536 1048576";
#                   quick: "64 65536")
#   BENCH_LAT_ITERS latency iterations per run (1000; quick: 300)
#   BENCH_DRIVERS   what to run, in order ("tcp siw rxe siw2 siw2-syscalls nfs nvme";
#                   nfs: NFSv4.2 over each of BENCH_NFS; nvme: NVMe over
#                   Fabrics over each of BENCH_NVME;
#                   siw2-syscalls: siw2 with user_rings=0; siw2@NAME: siw2
#                   from build/ab/NAME/, see tools/bench-ab.sh)
#   BENCH_TESTS     perftest programs to run (all six: ib_{write,read,send}_bw
#                   and ib_{write,read,send}_lat; "" for none)
#   BENCH_MQP       many-QP configurations TOOL-qN:SIZE (N QPs, perftest -q)
#                   and TOOL-pN:SIZE (N processes at once), their value the
#                   sum; TCP runs iperf3 with as many streams (-P N)
#                   ("ib_write_bw-q4:65536 ib_write_bw-q16:65536
#                   ib_write_bw-p2:65536 ib_write_bw-q4:64 ib_write_bw-q16:64";
#                   quick: "ib_write_bw-q4:65536"; "" for none)
#   BENCH_ATOMIC    atomics beside the 8-octet Read, on siw2 and rxe only
#                   (Linux siw has none): TOOL-fa:8 FETCH_AND_ADD, TOOL-cs:8
#                   CMP_AND_SWAP ("ib_atomic_lat-fa:8 ib_atomic_lat-cs:8
#                   ib_read_lat:8 ib_atomic_bw-fa:8 ib_atomic_bw-cs:8
#                   ib_read_bw:8"; quick: the two FetchAdd ones; "" for none)
#   BENCH_NFS       NFS transports ("tcp siw2 siw")
#   BENCH_NFS_MIB   MiB written and read per NFS repeat (256; quick: 64)
#   BENCH_NVME      NVMe over Fabrics transports ("tcp siw2 siw": nvme-tcp,
#                   nvme-rdma over siw2, over Linux siw)
#   BENCH_NVME_MIB  size of the target's RAM disk in MiB (256; quick: 64)
#   BENCH_MANYQP    connected QPs held at once on siw2 and on siw, for the
#                   kernel memory per QP (1000; quick: 100; 0 for none)
#   BENCH_ROUNDS    rounds (1): each runs every driver's BENCH_REPEATS
#                   repeats, so more than one interleaves the drivers
#   BENCH_MTU       MTU of both veth pairs (1500)
#   BENCH_MAX_FAIL  consecutive failed configurations before a driver's
#                   remaining runs are skipped (3)
#   BENCH_QUICK=1   development mode: the quick values above
#   BENCH_OUT       results directory (build/bench/<timestamp>)
#   BENCH_TIMEOUT   guest time limit in seconds (3600)
#   BENCH_ACCEL     QEMU accelerator (tcg,thread=multi: see below)
#   BENCH_BOOT_TRIES boots to try when the guest dies before the bench
#                   starts (3)
# Needs a built tree (make, tools/build-siw.sh) and the packages of
# "tools/install-deps.sh bench"; "make bench" does both.
set -u

SIW2_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export SIW2_TOP
# shellcheck source=tests/vm/vm.sh
source "$SIW2_TOP/tests/vm/vm.sh"

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	: "${BENCH_REPEATS:=1}" "${BENCH_DURATION:=3}" "${BENCH_SIZES:=64 65536}" "${BENCH_LAT_ITERS:=300}"
	: "${BENCH_MQP=ib_write_bw-q4:65536}" "${BENCH_ATOMIC=ib_atomic_lat-fa:8 ib_atomic_bw-fa:8}"
	: "${BENCH_NFS_MIB:=64}" "${BENCH_MANYQP:=100}" "${BENCH_NVME_MIB:=64}"
fi
: "${BENCH_ATOMIC=ib_atomic_lat-fa:8 ib_atomic_lat-cs:8 ib_read_lat:8 ib_atomic_bw-fa:8 ib_atomic_bw-cs:8 ib_read_bw:8}"
: "${BENCH_MQP=ib_write_bw-q4:65536 ib_write_bw-q16:65536 ib_write_bw-p2:65536 ib_write_bw-q4:64 ib_write_bw-q16:64}"
: "${BENCH_REPEATS:=3}" "${BENCH_DURATION:=3}" "${BENCH_SIZES:=64 4096 65536 1048576}"
: "${BENCH_LAT_ITERS:=1000}" "${BENCH_DRIVERS:=tcp siw rxe siw2 siw2-syscalls nfs nvme}" "${BENCH_MTU:=1500}"
: "${BENCH_NFS:=tcp siw2 siw}" "${BENCH_NFS_MIB:=256}" "${BENCH_MANYQP:=1000}"
: "${BENCH_NVME:=tcp siw2 siw}" "${BENCH_NVME_MIB:=256}"
: "${BENCH_MAX_FAIL:=3}" "${BENCH_TIMEOUT:=3600}" "${BENCH_BOOT_TRIES:=3}" "${BENCH_ROUNDS:=1}"
: "${BENCH_TESTS=ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat ib_send_lat}"
# One host thread per vCPU.  With thread=single both vCPUs share one host
# thread, and a vCPU busy-polling a completion queue (every perftest and
# sockperf process does) keeps the other vCPU from running until the next
# timer tick: every latency came out as a multiple of 4 ms (HZ=250), for
# siw and rxe alike.  vm.sh defaults to thread=single because thread=multi
# sometimes oopses in early boot; a boot that dies before the bench starts
# is retried (BENCH_BOOT_TRIES).
: "${BENCH_ACCEL:=${SIW2_VM_ACCEL:-tcg,thread=multi}}"
(( BENCH_DURATION >= 3 )) || { echo "bench: BENCH_DURATION must be >= 3 (perftest -f 1 margins)" >&2; exit 2; }

die() { echo "bench: $*" >&2; exit 1; }

ts=$(date +%Y%m%d-%H%M%S)
OUT=${BENCH_OUT:-$SIW2_TOP/build/bench/$ts}
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
case $OUT in
/tmp/*) die "results directory under /tmp: the guest mounts its own /tmp and would not see it" ;;
*[,[:space:]]*) die "results directory must not contain commas or white space (QEMU -virtfs): $OUT" ;;
esac
VMD=$OUT/vm

[[ -f $SIW2_TOP/drivers/siw2/siw2.ko ]] || echo "bench: drivers/siw2/siw2.ko not built: siw2 will fail (run make)" >&2
tools=(iperf3 sockperf ib_write_bw)
for t in "${tools[@]}"; do
	command -v "$t" >/dev/null || die "$t missing: run tools/install-deps.sh bench"
done
command -v gnuplot >/dev/null || echo "bench: gnuplot missing (tools/install-deps.sh bench): no plots" >&2

host_facts() {
	echo "host $1: $(date -Is) load $(cut -d' ' -f1-3 /proc/loadavg), QEMU processes running: $(pgrep -c -f '^qemu-system' || true)"
}

{
	echo "date: $(date -Is)"
	echo "commit: $(git -C "$SIW2_TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "host: $(nproc) CPUs, $(uname -r), $(qemu-system-x86_64 --version | head -n1)"
	echo "accel: $BENCH_ACCEL  vCPUs: ${SIW2_VM_SMP:-2}  mem: ${SIW2_VM_MEM:-2G}"
	host_facts before
} >"$OUT/host.txt"

mkdir -p "$VMD/results"
cat >"$VMD/results/bench.conf" <<EOF
BENCH_REPEATS=$(printf %q "$BENCH_REPEATS")
BENCH_DURATION=$(printf %q "$BENCH_DURATION")
BENCH_SIZES=$(printf %q "$BENCH_SIZES")
BENCH_LAT_SIZE=64
BENCH_LAT_ITERS=$(printf %q "$BENCH_LAT_ITERS")
BENCH_DRIVERS=$(printf %q "$BENCH_DRIVERS")
BENCH_MTU=$(printf %q "$BENCH_MTU")
BENCH_MAX_FAIL=$(printf %q "$BENCH_MAX_FAIL")
BENCH_TESTS=$(printf %q "$BENCH_TESTS")
BENCH_ROUNDS=$(printf %q "$BENCH_ROUNDS")
BENCH_MQP=$(printf %q "$BENCH_MQP")
BENCH_ATOMIC=$(printf %q "$BENCH_ATOMIC")
BENCH_NFS=$(printf %q "$BENCH_NFS")
BENCH_NFS_MIB=$(printf %q "$BENCH_NFS_MIB")
BENCH_MANYQP=$(printf %q "$BENCH_MANYQP")
BENCH_NVME=$(printf %q "$BENCH_NVME")
BENCH_NVME_MIB=$(printf %q "$BENCH_NVME_MIB")
EOF

kinfo=$(vm_kernel) || die "no guest kernel"
vm_initramfs "${kinfo%% *}" >/dev/null || die "cannot build the initramfs"

echo "bench: results in $OUT"
echo "bench: $BENCH_DRIVERS; $BENCH_ROUNDS round(s) of $BENCH_REPEATS repeat(s), ${BENCH_DURATION} s per bandwidth run, sizes $BENCH_SIZES; accel $BENCH_ACCEL"
t0=$EPOCHREALTIME
tries=0 qrc=1
while (( tries < BENCH_BOOT_TRIES )); do
	tries=$((tries + 1))
	rm -f "$VMD/results/runs.tsv" "$VMD/results/info.txt"
	rm -rf "$VMD/results/raw"
	: >"$VMD/out"
	# Show the guest's progress lines while it runs.
	tail -n +1 -F "$VMD/out" 2>/dev/null | sed -u 's/^/  guest: /' &
	tail_pid=$!
	SIW2_VM_ACCEL=$BENCH_ACCEL vm_boot "$VMD" "$BENCH_TIMEOUT" "$VMD/console" run \
		"$SIW2_TOP/tests/vm/bench/bench-guest.sh"
	qrc=$?
	sleep 0.5
	kill "$tail_pid" 2>/dev/null
	wait "$tail_pid" 2>/dev/null
	# The guest writes "boot" when the script starts: a guest that died
	# before (thread=multi's early-boot oops) is booted again.
	[[ -f $VMD/boot ]] && break
	echo "bench: guest died before the bench started (QEMU status $qrc, attempt $tries); console: $VMD/console" >&2
done
wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
{
	host_facts after
	echo "guest: $tries boot(s), QEMU status $qrc, $wall s wall, script status $(cat "$VMD/rc" 2>/dev/null || echo none)"
} >>"$OUT/host.txt"
(( qrc == 124 )) && echo "bench: guest timed out after $BENCH_TIMEOUT s; partial results" >&2

res=$VMD/results
[[ -s $res/runs.tsv ]] || die "the guest produced no results (see $VMD/out, $VMD/console)"
mv "$res/runs.tsv" "$res/info.txt" "$OUT/" 2>/dev/null
rm -rf "$OUT/raw"
[[ -d $res/raw ]] && mv "$res/raw" "$OUT/raw"
python3 "$SIW2_TOP/tools/bench-report.py" "$OUT" || die "report failed"
if [[ ! -f $OUT/plots.gp ]]; then
	:	# nothing to plot (tools/bench-ab.sh)
elif command -v gnuplot >/dev/null; then
	(cd "$OUT" && gnuplot plots.gp) || echo "bench: gnuplot failed (plots.gp)" >&2
fi
mkdir -p "$SIW2_TOP/build/bench" && ln -sfn "$OUT" "$SIW2_TOP/build/bench/latest"
echo "bench: done in $wall s: $OUT/results.md"
if grep -q '^## A/B' "$OUT/results.md"; then
	sed -n '/^## A\/B/,/^## Bandwidth/p' "$OUT/results.md" | sed '$d'
else
	sed -n '/^## Bandwidth/,/^## Paths/p' "$OUT/results.md" | sed '$d'
fi
