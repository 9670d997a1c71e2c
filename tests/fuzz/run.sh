#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tests/fuzz/run.sh [--runs N | --time SECONDS] [--seed N]
#
# Builds the libFuzzer target of siw2's pure protocol code
# (build/fuzz/siw2-proto-fuzz, see README.md), replays tests/fuzz/regress/
# (inputs that once found a bug), then fuzzes from the seed corpus:
# --runs N inputs (default 100000, a few seconds: what tests/run-all.sh
# runs) or --time SECONDS, from a fixed --seed (default 1). Runs of one
# tree are close but not identical: libFuzzer also learns from compared
# values, some of them addresses (20000 inputs gave cov 520 to 528 in
# three runs; with ASLR off, three runs of 20000 were identical, three of
# 100000 were not). A failure replays exactly from its saved input. The
# corpus it grows goes to
# build/fuzz/work/ (emptied first, never committed); a failing input is
# saved as build/fuzz/crash-* (or leak-*, timeout-*).
#
# One "ok - ..." or "not ok - ..." line per step, then
#     N passed, N failed, N skipped
# Exit 0 only if every step passed. No clang, or a clang without the
# libFuzzer runtime, is a failure, not a skip: tools/install-deps.sh
# installs both.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FUZZ=$TOP/tests/fuzz
OUT=$TOP/build/fuzz
BIN=$OUT/siw2-proto-fuzz
LOG=$OUT/siw2-proto-fuzz.log

limit=(-runs=100000)
seed=1
while [[ $# -gt 0 ]]; do
	case $1 in
	--runs) limit=(-runs="$2"); shift 2 ;;
	--time) limit=(-max_total_time="$2"); shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	*) echo "usage: $0 [--runs N | --time SECONDS] [--seed N]" >&2; exit 2 ;;
	esac
done

passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
notok() { echo "not ok - $*"; failed=$((failed + 1)); }
finish() {
	echo "$passed passed, $failed failed, 0 skipped"
	[[ $failed -eq 0 ]]
	exit
}

mkdir -p "$OUT"
if ! command -v clang >/dev/null; then
	notok "libfuzzer: clang not found (tools/install-deps.sh installs clang and libclang-rt-dev)"
	finish
fi
# The fuzzer runtime is a separate package (libclang-rt-N-dev): without it
# only the link fails, with a message that does not say so.
probe=$OUT/probe.c
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' >"$probe"
if ! clang -fsanitize=fuzzer,address,undefined "$probe" -o "$OUT/probe" >/dev/null 2>&1; then
	notok "libfuzzer: clang $(clang -dumpversion) cannot link -fsanitize=fuzzer (install libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev: tools/install-deps.sh)"
	finish
fi
rm -f "$probe" "$OUT/probe"

if make -s -C "$FUZZ" OUT="$OUT" 2>&1 | sed 's/^/# /'; [[ ${PIPESTATUS[0]} -eq 0 ]]; then
	ok "libfuzzer: build siw2-proto-fuzz (clang $(clang -dumpversion))"
else
	notok "libfuzzer: build siw2-proto-fuzz"
	finish
fi

if python3 "$FUZZ/gen-corpus.py" --check 2>&1 | sed 's/^/# /'; [[ ${PIPESTATUS[0]} -eq 0 ]]; then
	ok "libfuzzer: seed corpus is what gen-corpus.py writes ($(ls "$FUZZ/corpus" | wc -l) seeds)"
else
	notok "libfuzzer: seed corpus differs from gen-corpus.py (run tests/fuzz/gen-corpus.py)"
fi

# Each saved input once, no fuzzing: a bug found once stays fixed.
if [[ -d $FUZZ/regress ]] && [[ -n $(ls -A "$FUZZ/regress") ]]; then
	n=$(ls "$FUZZ/regress" | wc -l)
	if "$BIN" "$FUZZ"/regress/* >"$OUT/regress.log" 2>&1; then
		ok "libfuzzer: $n regression inputs in tests/fuzz/regress"
	else
		grep -E 'property broken|ERROR:|SUMMARY:|Running: ' "$OUT/regress.log" | sed 's/^/# /'
		notok "libfuzzer: regression inputs in tests/fuzz/regress (log: $OUT/regress.log)"
	fi
fi

rm -rf "$OUT/work"
mkdir -p "$OUT/work"
rm -f "$OUT"/crash-* "$OUT"/leak-* "$OUT"/timeout-* "$OUT"/oom-*
start=$(date +%s)
"$BIN" -seed="$seed" "${limit[@]}" -max_len=2048 -timeout=10 \
	-print_final_stats=1 -artifact_prefix="$OUT/" \
	"$OUT/work" "$FUZZ/corpus" >"$LOG" 2>&1
rc=$?
secs=$(($(date +%s) - start))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOG")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$LOG")
# The last status line: "#N DONE cov: C ft: F corp: K/SIZE ..."
last=$(grep -E '^#[0-9]+' "$LOG" | tail -n1)
cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\/[^ ]*\).*/cov \1, ft \2, corpus \3/p' <<<"$last")
# libFuzzer reports 0/s for a run shorter than a second.
[[ ${rate:-0} -gt 0 ]] && rate="$rate/s" || rate="rate not measured"
what="libfuzzer: siw2-proto-fuzz -seed=$seed ${limit[*]}: ${execs:-?} inputs in ${secs} s ($rate), ${cov:-no stats}"
if [[ $rc -eq 0 ]]; then
	ok "$what"
else
	grep -E 'property broken|ERROR:|SUMMARY:|Test unit written|^0x' "$LOG" | head -n 20 | sed 's/^/# /'
	notok "$what; exit $rc (log: $LOG)"
fi
finish
