#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/coverage.sh --tree TREE --out DIR [--html] RESULTS...
#
# Line, branch and function coverage of drivers/siw2 from the gcov counters
# the guests saved: siw2 built in TREE with SIW2_GCOV=1 against a kernel
# with CONFIG_GCOV_KERNEL (the debug kernel, tools/debug-kernel.sh), and
# each guest's counters copied to its results' gcov/ when its case ended
# (tests/vm/guest-init.sh).  RESULTS are directories searched for those
# gcov/ trees: build/vm-logs of a tools/check-debug.sh run, a
# build/fuzz-long/<date> directory, or any of their parts.
#
#   - Each gcov/ tree is read with lcov against TREE's .gcno files, the
#     KUnit module's (build/kunit-mod, the driver files it links) counted
#     as the driver files they are; the runs are added up with lcov -a.
#   - Only drivers/siw2's files count, siw2_trace.h's TRACE_EVENT()
#     expansions left out.
#   - DIR gets siw2.info (lcov's trace file), summary.txt (lcov --list:
#     per file lines, functions, branches, and the totals) and
#     unreached.txt (FILE FUNCTION for every function no run entered);
#     with --html, DIR/html (genhtml), or later:
#         genhtml --branch-coverage -o DIR/html DIR/siw2.info
#
# Needs lcov (tools/install-deps.sh debug).
set -euo pipefail

tree= out= html=0 results=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--tree) tree=$(cd "$2" && pwd); shift ;;
	--out) out=$2; shift ;;
	--html) html=1 ;;
	-h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "coverage: unknown option '$1'" >&2; exit 2 ;;
	*) results+=("$1") ;;
	esac
	shift
done
[[ -n $tree && -n $out && ${#results[@]} -gt 0 ]] ||
	{ echo "usage: tools/coverage.sh --tree TREE --out DIR [--html] RESULTS..." >&2; exit 2; }
command -v lcov >/dev/null || { echo "coverage: no lcov (tools/install-deps.sh debug)" >&2; exit 1; }
drv=$tree/drivers/siw2
km=$tree/build/kunit-mod
ls "$drv"/*.gcno >/dev/null 2>&1 ||
	{ echo "coverage: no .gcno in $drv: build with SIW2_GCOV=1 against a gcov kernel" >&2; exit 1; }

mkdir -p "$out"
work=$(mktemp -d "$out/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
LCOV=(lcov --quiet --rc lcov_branch_coverage=1)

# capture OBJDIR GCDA_DIR INFO: one run's counters of one object directory.
capture() {
	local dir=$work/obj.$RANDOM$RANDOM f
	mkdir -p "$dir"
	for f in "$2"/*.gcda; do
		[[ -f $1/$(basename "${f%.gcda}").gcno ]] || continue
		cp "$f" "$dir/"
		ln -s "$1/$(basename "${f%.gcda}").gcno" "$dir/"
	done
	ls "$dir"/*.gcda >/dev/null 2>&1 || return 1
	"${LCOV[@]}" --capture --directory "$dir" --base-directory "$1" \
		--output-file "$3" 2>>"$work/lcov.err"
}

infos=() n=0
while IFS= read -r g; do
	n=$((n + 1))
	# Inside gcov/ the counters sit under the build's absolute path.
	d=$g${drv}
	[[ -d $d ]] && capture "$drv" "$d" "$work/$n.drv.info" && infos+=("$work/$n.drv.info")
	d=$g${km}
	if [[ -d $d ]] && capture "$km" "$d" "$work/$n.km.all"; then
		# The KUnit module's driver files are the driver's, linked in;
		# its test files are not the driver.
		"${LCOV[@]}" --remove "$work/$n.km.all" "*_kunit.c" -o "$work/$n.km.info"
		sed -i "s|^SF:$km/|SF:$drv/|" "$work/$n.km.info"
		infos+=("$work/$n.km.info")
	fi
done < <(find "${results[@]}" -type d -name gcov -prune | sort)
(( ${#infos[@]} )) || { echo "coverage: no counters of $drv under ${results[*]}" >&2; exit 1; }

args=()
for i in "${infos[@]}"; do args+=(-a "$i"); done
"${LCOV[@]}" "${args[@]}" -o "$work/all.info"
# The driver's files only (not the kernel headers its inlines come from),
# and not siw2_trace.h: its functions are TRACE_EVENT()'s expansions (one
# set per event, run only while that event is enabled), not siw2's logic.
"${LCOV[@]}" --extract "$work/all.info" "$drv/*" -o "$work/drv.info"
"${LCOV[@]}" --remove "$work/drv.info" "*/siw2_trace.h" -o "$out/siw2.info"
{
	echo "# coverage of $drv from $n runs ($(date -u +%F), ${results[*]})"
	lcov --rc lcov_branch_coverage=1 --list "$out/siw2.info"
} >"$out/summary.txt"
# A function is entered when gcov counted its entry or any line of its
# body (up to the next function): a function inlined into its callers
# can show an entry count of 0 while its lines ran thousands of times.
awk -F'[:,]' '
	/^SF:/ { file = $2; sub(".*/", "", file); delete entered; delete start; delete hit; k = 0 }
	/^FN:/ { start[++k] = $2 + 0; name[k] = $3 }
	/^FNDA:/ { if ($2 > 0) entered[$3] = 1 }
	/^DA:/ { if ($3 > 0) hit[$2 + 0] = 1 }
	/^end_of_record/ {
		for (i = 1; i <= k; i++) {
			if (name[i] in entered)
				continue
			# the body ends where the next function (by line) starts
			end = 1e9
			for (j = 1; j <= k; j++)
				if (start[j] > start[i] && start[j] < end)
					end = start[j]
			ran = 0
			for (l in hit)
				if (l + 0 >= start[i] && l + 0 < end)
					ran = 1
			if (!ran)
				print file, name[i]
		}
	}
' "$out/siw2.info" >"$out/unreached.txt"
if (( html )); then
	genhtml --quiet --branch-coverage --legend -o "$out/html" "$out/siw2.info"
fi
tail -n 1 "$out/summary.txt" | sed 's/^/coverage: /'
echo "coverage: $(wc -l <"$out/unreached.txt") functions never entered ($out/unreached.txt)"
