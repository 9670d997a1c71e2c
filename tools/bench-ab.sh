#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/bench-ab.sh REV|DIR REV|DIR...: compare siw2 builds in one guest
# (make bench-ab REVS="A B").  Each argument is a git revision of this
# repository (built from a clean "git archive" of it) or a built tree (a
# directory with drivers/siw2/siw2.ko and userspace-provider/build/).
# Module and provider of each go to build/ab/NAME/; tools/bench.sh then
# boots one guest that loads them in turn, round after round, so that the
# builds share the guest, the host's load and its slow phases.  Two
# separate "make bench" runs do not: their 64 B latencies differed by a
# factor of two with the same code (Documentation/performance.md).
#
# Results: as tools/bench.sh, with an "A/B" table (medians and ratios to
# the first build) at the top of results.md.
#
# Knobs: those of tools/bench.sh, with other defaults: BENCH_ROUNDS (5),
# BENCH_REPEATS (1), BENCH_TESTS (ib_write_lat ib_send_lat ib_read_lat),
# BENCH_SIZES (64), BENCH_LAT_ITERS (1000); the many-QP and atomic rows
# (BENCH_MQP, BENCH_ATOMIC) only when given.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AB=$TOP/build/ab

die() { echo "bench-ab: $*" >&2; exit 1; }

(($# >= 2)) || die "usage: tools/bench-ab.sh REV|DIR REV|DIR..."

# stage NAME TREE: the module and provider of a built TREE to $AB/NAME.
stage() {
	local d=$AB/$1 t=$2
	[[ -f $t/drivers/siw2/siw2.ko && -f $t/userspace-provider/build/libsiw2-rdmav34.so ]] ||
		die "$t: no built module and provider"
	mkdir -p "$d" || die "cannot create $d"
	cp "$t/drivers/siw2/siw2.ko" "$t/userspace-provider/build/libsiw2-rdmav34.so" \
		"$t/userspace-provider/build/siw2.driver" "$d/" || die "cannot copy to $d"
}

# build NAME SHA: a clean tree of commit SHA, built (module and provider
# only); a build of the same commit staged before is reused.
build() {
	local src=$AB/$1.src log=$AB/$1.build.log
	if [[ -f $AB/$1/siw2.ko && $(cat "$AB/$1.commit" 2>/dev/null) == "$2" ]]; then
		echo "bench-ab: reusing the build of $2 in $AB/$1"
		return
	fi
	rm -f "$AB/$1.commit"
	rm -rf "$src"
	mkdir -p "$src" || die "cannot create $src"
	git -C "$TOP" archive "$2" | tar -x -C "$src" || die "git archive $2 failed"
	echo "bench-ab: building $2 in $src (log: $log)"
	make -C "$src" module provider >"$log" 2>&1 || die "building $2 failed: $log"
	stage "$1" "$src"
	echo "$2" >"$AB/$1.commit"
}

drivers=
for a in "$@"; do
	if [[ -d $a ]]; then
		name=$(basename "$(cd "$a" && pwd)")
		stage "$name" "$a"
	else
		sha=$(git -C "$TOP" rev-parse --verify -q "$a^{commit}") || die "$a: not a revision or directory"
		name=${sha:0:7}
		[[ $sha == "$a"* ]] || name=$(echo "$a" | tr -c 'A-Za-z0-9_.\n-' _)-$name
		build "$name" "$sha"
	fi
	[[ " $drivers " != *" siw2@$name "* ]] || die "$a: given twice"
	drivers+=${drivers:+ }siw2@$name
done

export BENCH_DRIVERS=$drivers
export BENCH_ROUNDS=${BENCH_ROUNDS:-5} BENCH_REPEATS=${BENCH_REPEATS:-1}
export BENCH_TESTS=${BENCH_TESTS:-ib_write_lat ib_send_lat ib_read_lat}
export BENCH_SIZES=${BENCH_SIZES:-64} BENCH_LAT_ITERS=${BENCH_LAT_ITERS:-1000}
export BENCH_MQP=${BENCH_MQP-} BENCH_ATOMIC=${BENCH_ATOMIC-}
exec "$TOP/tools/bench.sh"
