#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/bench-pmlog.sh: RDMA Commit's push mode against the classic Write +
# Send on a remote log on (emulated) persistent memory, with
# tools/pmlog/siw2-pmlog between two QEMU guests joined by a link of their
# own (tests/vm/bench/pmlog-guest.sh, run by tests/vm/run.sh): the server
# guest holds the log on its NVDIMM, the other guest appends. Two machines,
# so that the server's CPU per record is its machine's alone, kernel time
# included (push's receive copy and cache write-back run in the server's
# kernel, not in its process). Three modes: push, classic with the server
# sleeping on its completion channel, classic with it busy-polling.
# Benchmark output, never pass/fail. Results: build/bench-pmlog/<time>/
# pmlog.txt (every run's summary) and summary.md (a table).
#
# Knobs: PMLOG_SIZES ("64 4096 65536"), PMLOG_COUNT (2000 records per run),
# PMLOG_ROUNDS (2; sizes and modes alternate within a round), PMLOG_MODES
# ("push classic classic-busy"), BENCH_ACCEL (QEMU's accelerator for both
# guests; default run.sh's, tcg,thread=single: one host core each).
set -u

SIW2_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$SIW2_TOP/build/bench-pmlog/$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT" || exit 1
[[ -x $SIW2_TOP/tools/pmlog/siw2-pmlog ]] || { echo "bench-pmlog: run make first" >&2; exit 1; }
sizes=${PMLOG_SIZES:-64 4096 65536}
modes=${PMLOG_MODES:-push classic classic-busy}
knobs="pmlog_sizes=${sizes// /,} pmlog_count=${PMLOG_COUNT:-2000} pmlog_rounds=${PMLOG_ROUNDS:-2} pmlog_modes=${modes// /,} pmlog_client=${PMLOG_CLIENT:-sleep}"
t0=$SECONDS
# The host's load while it runs, every 10 s: other QEMUs on this 2-core
# host stretch every figure (the benchmark's own are two).
( while :; do echo "$(date +%T) load $(cut -d' ' -f1 /proc/loadavg) qemus $(pgrep -c qemu-system)"; sleep 10; done ) \
	>"$OUT/host-load.txt" 2>&1 &
sampler=$!
env SIW2_VM_APPEND="${SIW2_VM_APPEND:-} $knobs" ${BENCH_ACCEL:+SIW2_VM_ACCEL=$BENCH_ACCEL} \
	"$SIW2_TOP/tests/vm/run.sh" "$SIW2_TOP/tests/vm/bench/pmlog-guest.sh" | tee "$OUT/run.tap"
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
LOGS=$SIW2_TOP/build/vm-logs
cp -r "$LOGS/pmlog-guest" "$OUT/vm" 2>/dev/null
cp "$LOGS"/pmlog-guest.{out,peer.out} "$OUT/" 2>/dev/null
[[ -s $OUT/vm/pmlog.txt ]] || { echo "bench-pmlog: no results (see $OUT/pmlog-guest.out)" >&2; exit 1; }
cp "$OUT/vm/pmlog.txt" "$OUT/"
# One row per run: mode, record size, p50, p99, p99.9, records/s, the
# server process's and machine's CPU us per record (the machine's kernel
# part in brackets).
awk '/^pmlog: mode/ { split($3, m, ","); mode = m[1]; size = $7
		      if (mode == "classic" && /server busy-polls/) mode = "classic-busy" }
     /latency us/ { p50 = $5; p99 = $7; p999 = $9 }
     /^pmlog: rate/ { rate = $3 }
     /server process CPU/ { proc = $5 }
     /server machine CPU/ { k = $12; sub(/;$/, "", k)
	printf "| %s | %s | %s | %s | %s | %s | %s | %s (%s) |\n", mode, size, p50, p99, p999, rate, proc, $5, k }' \
	"$OUT/pmlog.txt" | sort -t'|' -k3,3n -k2,2 >"$OUT/rows.txt"
{
	grep -h 'server machine idle' "$OUT/pmlog.txt"
	awk '{ n++; if ($5 > 2) busy++; if ($3 > max) max = $3 }
	     END { printf "host: %d of %d samples (every 10 s) with another QEMU running, load average up to %s\n", busy, n, max }' \
		"$OUT/host-load.txt"
	echo
	echo "| Mode | Record octets | p50 us | p99 us | p99.9 us | records/s | server process CPU us/record | server machine CPU us/record (kernel) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	cat "$OUT/rows.txt"
} >"$OUT/summary.md"
cat "$OUT/summary.md"
echo "bench-pmlog: $OUT ($(( SECONDS - t0 )) s)"
