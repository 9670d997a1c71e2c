#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tests/run-all.sh [run.sh options, e.g. -j2, or case files]
# tests/run-all.sh --host       the host stage alone (make check-host)
#
# The whole test suite, in stages:
#   1. host: checkpatch, the conformance matrix (tools/conformance.sh),
#      the layering of the module's files (tools/layering.py, on the
#      built objects), the provider's device matching on a fake sysfs,
#      ext_peer.py's wire-check self-test and a fixed-seed slice of the
#      libFuzzer target of the pure protocol code (no VM needed)
#   2. kunit: tests/kunit/run.sh (KUnit suites in a UML kernel built from
#      linux-source-6.12; one counted test per KUnit test case, a build
#      failure counts as one failure)
#   3. vm:   tests/vm/run.sh (one QEMU guest per case)
#   4. vm61: the core VM cases on Linux 6.1 (tools/check-kernel.sh 6.1;
#      skipped on Debian 13, which has no 6.1 kernel)
#   5. vm13: the core VM cases and those that need rdma-core 56 on a
#      cached Debian 13 root (tools/check-release.sh trixie: chroot, that
#      root's QEMU, kernel and libraries; skipped on Debian 13, where the
#      vm stage already runs there)
# Every stage runs even if an earlier one failed.  The very last line is
#     N passed, N failed, N skipped
# summed over all stages; the exit status is non-zero if anything failed.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
passed=0 failed=0 skipped=0
host_only=0
if [[ ${1:-} == --host ]]; then
	host_only=1
	shift
fi
SUMMARY_RE='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'
# What passed in this run, "STAGE NAME" a line (host tests, KUnit cases as
# SUITE.CASE, VM cases): tools/conformance.sh --ran checks against it that
# every implemented conformance row's test ran.
RAN=$TOP/build/ran.txt
mkdir -p "$TOP/build"
: >"$RAN"

# skip_allowed STAGE NAME: tests/expected-counts lets NAME be skipped.
skip_allowed() {
	awk -v s="$1" -v n="$2" '$1 == "skip" && $2 == s && $3 == n { f = 1 } END { exit !f }' \
		"$TOP/tests/expected-counts"
}

# unexpected_skip STAGE NAME: a skip tests/expected-counts does not list
# is a failure.
unexpected_skip() {
	echo "not ok - $2: skipped in stage $1, and tests/expected-counts lists no such skip"
	failed=$((failed + 1))
}

# host_test NAME CMD...: one host-side test; exit 77 means skipped.
host_test() {
	local name=$1 rc
	shift
	"$@" 2>&1 | sed 's/^/#   /'
	rc=${PIPESTATUS[0]}
	if [[ $rc -eq 0 ]]; then
		echo "ok - $name"
		echo "host $name" >>"$RAN"
		passed=$((passed + 1))
	elif [[ $rc -eq 77 ]]; then
		echo "ok - $name # SKIP"
		skipped=$((skipped + 1))
		skip_allowed host "$name" || unexpected_skip host "$name"
	else
		echo "not ok - $name"
		failed=$((failed + 1))
	fi
}

conformance() {
	# Without the digest beside the repo (CI clones shared/ there) the
	# script still checks the matrix, the tests it names and every ID
	# cited in the repo; only the digest's coverage goes, and it says so.
	tools/conformance.sh --check
}

echo "# stage host"
t0=$SECONDS
host_test checkpatch tools/checkpatch.sh
host_test sparse tools/sparse.sh
host_test coccicheck tools/coccicheck.sh
host_test conformance-matrix conformance
# It fails rows whose IDs sit only in comments (tools/conformance.sh --selftest).
host_test conformance-selftest tools/conformance.sh --selftest
host_test provider-match tests/progs/match-selftest.sh
host_test module-params tools/check-params.py --ko drivers/siw2/siw2.ko
host_test layering tools/layering.py
# It fails a table the code breaks (tools/layering.py --selftest).
host_test layering-selftest tools/layering.py --selftest
# The wire checks of ext_peer.py (cases 66, 68) catch what they must.
host_test ext-peer-selftest python3 -S tests/progs/ext_peer.py selftest
# The pure protocol code under libFuzzer, ASan and UBSan: 100000 inputs,
# a few seconds (make fuzz-lib runs longer), from a new seed each run so
# that runs explore; SIW2_FUZZ_SEED=N repeats one exactly.
fuzz_seed=${SIW2_FUZZ_SEED:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
echo "# libfuzzer seed $fuzz_seed (SIW2_FUZZ_SEED=$fuzz_seed repeats it)"

host_test libfuzzer-slice tests/fuzz/run.sh --runs 100000 --seed "$fuzz_seed"
# The RPC-over-RDMA transport header codec under ASan and UBSan.
host_test rpcrdma-xdr make -s -C tools/rpcrdma check
# The module from the source DKMS builds, for Linux 6.1 and 6.12, W=1,
# not one warning (siw2_compat.h).
host_test build-compat tools/build-compat.sh
# The module with the fuzz injection file (SIW2_FUZZ=1), which case 69's
# fpdu-inject phase loads: W=1 and sparse clean, layered as the table says.
host_test fuzz-module tools/build-fuzz-module.sh
# The Debian packages build from the tree and hold what they must.
host_test debs tools/build-debs.sh
# The Wireshark dissector decodes every opcode, CRCs checked, and finds a
# flipped CRC.
host_test wireshark-lua python3 tools/wireshark/check.py

# Expected number of results per stage (tests/expected-counts): a case
# file or KUnit suite that goes missing must fail the run, not only lower
# the pass count.  Update that file with the tests you add.
expected() { awk -v s="$1" '$1 == s { print $2 }' "$TOP/tests/expected-counts"; }

# Anything that narrows the run is said: SIW2_* knobs and case arguments.
knobs=$(env | grep -E '^SIW2_' | grep -Ev '^SIW2_(TOP|VM_ACCEL|VM_MEM|VM_SMP)=' | tr '\n' ' ')
[[ -n $knobs ]] && echo "# knobs that may narrow this run: $knobs"
vm_subset=0
for a in "$@"; do
	[[ $a == -* || $a =~ ^[0-9]+$ ]] || vm_subset=1
done
(( vm_subset )) && echo "# vm stage narrowed by arguments: $*"

# counted_stage NAME CMD...: a stage whose last line is the summary line;
# its counts are added to ours.  No summary counts as one failure, and so
# does a count other than tests/expected-counts says (unless narrowed).
counted_stage() {
	local name=$1 line counted=0 want ran=0 t0=$SECONDS
	shift
	echo "# stage $name: $*"
	while IFS= read -r line; do
		if [[ $line =~ ^ok\ [0-9]+\ -\ ([^ ]+)\ \#\ SKIP ]]; then
			echo "$line"
			skip_allowed "$name" "${BASH_REMATCH[1]}" ||
				unexpected_skip "$name" "${BASH_REMATCH[1]}"
		elif [[ $line =~ ^ok\ [0-9]+\ -\ ([^ ]+)$ ]]; then
			echo "$line"
			echo "$name ${BASH_REMATCH[1]}" >>"$RAN"
		elif [[ $line =~ ^ok\ -\ kunit/([^ ]+) ]]; then
			echo "$line"
			echo "$name ${BASH_REMATCH[1]}" >>"$RAN"
		elif [[ $line =~ $SUMMARY_RE ]]; then
			passed=$((passed + BASH_REMATCH[1]))
			failed=$((failed + BASH_REMATCH[2]))
			skipped=$((skipped + BASH_REMATCH[3]))
			ran=$((BASH_REMATCH[1] + BASH_REMATCH[2] + BASH_REMATCH[3]))
			counted=1
			echo "# stage $name: $line"
		else
			echo "$line"
		fi
	done < <("$@" 2>&1)
	echo "# stage $name: wall $((SECONDS - t0)) s"
	if [[ $counted -eq 0 ]]; then
		# the stage died before its summary: count that as a failure.
		echo "not ok - $name stage produced no summary"
		failed=$((failed + 1))
		return
	fi
	want=$(expected "$name")
	if [[ $name == vm ]] && (( vm_subset )); then
		return		# run.sh got case files: a chosen subset
	fi
	if [[ -z $want ]]; then
		echo "not ok - $name stage: no expected count in tests/expected-counts"
		failed=$((failed + 1))
	elif (( ran != want )); then
		echo "not ok - $name stage ran $ran tests, tests/expected-counts says $want"
		failed=$((failed + 1))
	fi
}

echo "# stage host: wall $((SECONDS - t0)) s"
if (( host_only )); then
	echo "$passed passed, $failed failed, $skipped skipped"
	[[ $failed -eq 0 ]]
	exit
fi
counted_stage kunit tests/kunit/run.sh
# The wire fuzzer (case 69) takes the libFuzzer slice's seed: one number
# repeats both.
SIW2_VM_APPEND="${SIW2_VM_APPEND:-} siw2_fuzz_seed=$fuzz_seed" counted_stage vm tests/vm/run.sh "$@"

# The core cases again on Debian 12's default kernel, 6.1: the module and
# Linux siw built for it, every guest booting it (tools/check-kernel.sh;
# the whole suite there is "tools/check-kernel.sh 6.1 tests/vm/cases/*.sh").
jobs=()
for a in "$@"; do
	[[ $a == -j* ]] && jobs+=("$a")
done
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
if (( vm_subset )); then
	echo "# stage vm61: not run, the vm stage was narrowed to chosen cases"
elif [[ $codename == trixie ]]; then
	echo "ok - vm61 # SKIP Debian 13 has no 6.1 kernel"
	skipped=$((skipped + 1))
else
	counted_stage vm61 tools/check-kernel.sh 6.1 "${jobs[@]}"
fi

# The core cases and those that need rdma-core 56 (ibv_wr_flush()) on a
# Debian 13 root kept in check-fresh's cache: its QEMU boots its 6.12
# kernel with it as the guest's root (tools/check-release.sh; root
# needed; the first run on a machine installs its packages).
if (( vm_subset )); then
	echo "# stage vm13: not run, the vm stage was narrowed to chosen cases"
elif [[ $codename == trixie ]]; then
	echo "ok - vm13 # SKIP the vm stage already runs on Debian 13"
	skipped=$((skipped + 1))
else
	counted_stage vm13 tools/check-release.sh trixie "${jobs[@]}"
fi

# Every implemented conformance row's test ran and passed in this run
# (not in a run narrowed to chosen cases, which leaves rows untested).
if (( vm_subset )); then
	echo "# conformance-ran: not checked, the vm stage was narrowed to chosen cases"
else
	echo "# stage ran"
	host_test conformance-ran tools/conformance.sh --ran "$RAN" \
		"$TOP/build/vm-logs" "$TOP/build/release-trixie/vm-logs"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
