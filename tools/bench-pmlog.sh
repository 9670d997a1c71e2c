#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/bench-pmlog.sh: RDMA Commit's push mode against the classic Write +
# Send on a remote log on (emulated) persistent memory, with
# tools/pmlog/siw2-pmlog in one QEMU guest (tests/vm/bench/pmlog-guest.sh).
# Benchmark output, never pass/fail. Results: build/bench-pmlog/<time>/
# pmlog.txt (every run's summary) and summary.md (a table).
#
# Knobs: PMLOG_SIZES ("64 4096 65536"), PMLOG_COUNT (2000 records per run),
# PMLOG_ROUNDS (2; modes and sizes alternate within a round).
set -u

SIW2_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export SIW2_TOP
# shellcheck source=tests/vm/vm.sh
source "$SIW2_TOP/tests/vm/vm.sh"

OUT=$SIW2_TOP/build/bench-pmlog/$(date +%Y%m%d-%H%M%S)
VMD=$OUT/vm
mkdir -p "$VMD/results" || exit 1
cat >"$VMD/results/pmlog.conf" <<C
SIZES="${PMLOG_SIZES:-64 4096 65536}"
COUNT=${PMLOG_COUNT:-2000}
ROUNDS=${PMLOG_ROUNDS:-2}
C
[[ -x $SIW2_TOP/tools/pmlog/siw2-pmlog ]] || { echo "bench-pmlog: run make first" >&2; exit 1; }
kinfo=$(vm_kernel) || exit 1
vm_initramfs "${kinfo%% *}" >/dev/null || exit 1
SIW2_VM_ACCEL=${BENCH_ACCEL:-tcg,thread=multi} vm_boot "$VMD" 3000 "$VMD/console" run \
	"$SIW2_TOP/tests/vm/bench/pmlog-guest.sh"
[[ -s $VMD/results/pmlog.txt ]] || { echo "bench-pmlog: no results (see $VMD/out)" >&2; exit 1; }
cp "$VMD/results/pmlog.txt" "$OUT/"
# One row per run: mode, record size, p50, p99, p99.9, records/s, server
# CPU us per record.
awk '/^pmlog: mode/ { split($3, m, ","); mode = m[1]; size = $7 }
     /latency us/ { p50 = $5; p99 = $7; p999 = $9 }
     /^pmlog: rate/ { rate = $3 }
     /server process CPU/ { printf "| %s | %s | %s | %s | %s | %s | %s |\n", mode, size, p50, p99, p999, rate, $5 }' \
	"$OUT/pmlog.txt" | sort -t'|' -k3,3n -k2,2 >"$OUT/rows.txt"
{
	echo "| Mode | Record octets | p50 us | p99 us | p99.9 us | records/s | server CPU us/record |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	cat "$OUT/rows.txt"
} >"$OUT/summary.md"
cat "$OUT/summary.md"
echo "bench-pmlog: $OUT"
