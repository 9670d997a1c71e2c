#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/check-kernel.sh SERIES [run.sh arguments, e.g. -j2 or case files]
#
# The VM cases on another Debian kernel series than the suite's 6.12, e.g.
# 6.1 (Debian 12's default kernel, linux-image-amd64):
#
#   1. The newest installed /boot/vmlinuz-SERIES.*-amd64 is the guest
#      kernel; its headers are /lib/modules/<release>/build
#      (tools/install-deps.sh installs both for 6.1).
#   2. The working tree (without build/ and .git) is copied to
#      build/kernel-<release>/tree and built there against that kernel
#      (make all KDIR=...), with Linux siw from linux-source-SERIES as the
#      peer (tools/build-siw.sh).  The tree's own objects are not touched.
#   3. tests/vm/run.sh runs there with SIW2_VM_KVER=<release>: every guest
#      boots that kernel and loads what was built for it (with 79-debs
#      among the cases, the Debian packages are built there first).
#
# Without case arguments, the cases make check runs on 6.1 (the core
# cases, tests/vm/core-cases: link lifecycle, device attributes, connection
# set-up with siw2 and Linux siw, data integrity, rping) and KERNEL_CASES
# below; "tools/check-kernel.sh 6.1 tests/vm/cases/*.sh" is the whole
# suite there.  Output as run.sh's:
# the last line is "N passed, N failed, N skipped"; a missing kernel or a
# failed build is one failure.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
series=${1:-}
[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || { echo "usage: $0 SERIES [run.sh arguments]" >&2; exit 2; }
shift
mapfile -t CORE_CASES < <(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$TOP/tests/vm/core-cases")
# Cases that differ by kernel beyond the core: RDMA Commit, whose Flush
# rights travel as driver data before Linux 6.2 (uapi.md).
KERNEL_CASES=(68-rdma-commit)

die() {
	echo "not ok - check-kernel $series: $*"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}

img=$(ls -1 /boot/vmlinuz-"$series".*-amd64 2>/dev/null | sort -V | tail -n1)
[[ -n $img ]] || die "no /boot/vmlinuz-$series.*-amd64 (tools/install-deps.sh installs it)"
kver=${img#/boot/vmlinuz-}
kdir=/lib/modules/$kver/build
[[ -f $kdir/Makefile ]] || die "no headers at $kdir (linux-headers-$kver)"

OUT=$TOP/build/kernel-$kver
TREE=$OUT/tree
rm -rf "$TREE"
mkdir -p "$TREE"
tar -C "$TOP" --exclude=./build --exclude=./.git -cf - . | tar -x -C "$TREE" || die "copy the tree"
# The protocol digest beside the tree, as beside any clone.
[[ -d $TOP/../shared && ! -e $OUT/shared ]] && ln -s "$(cd "$TOP/../shared" && pwd)" "$OUT/shared"
echo "# check-kernel: $kver, tree built in ${OUT#"$TOP"/}"
if ! make -j"$(nproc)" -C "$TREE" KDIR="$kdir" all >"$OUT/build.log" 2>&1 ||
   ! SIW2_VM_KVER=$kver "$TREE/tools/build-siw.sh" >>"$OUT/build.log" 2>&1; then
	tail -n 20 "$OUT/build.log" | sed 's/^/#   /'
	die "build against $kver (${OUT#"$TOP"/}/build.log)"
fi
echo "# check-kernel: siw2.ko $(modinfo -F vermagic "$TREE/drivers/siw2/siw2.ko")"

args=("$@")
files=0
for a in "${args[@]}"; do
	[[ $a == -* || $a =~ ^[0-9]+$ ]] || files=1
done
if (( !files )); then
	for c in "${CORE_CASES[@]}" "${KERNEL_CASES[@]}"; do
		args+=("$TREE/tests/vm/cases/$c.sh")
	done
fi
# 79-debs installs the Debian packages: built from the copy, as make
# check's debs stage builds them from the tree.
for a in "${args[@]}"; do
	[[ $(basename -- "$a") == 79-debs.sh ]] || continue
	"$TREE/tools/build-debs.sh" >>"$OUT/build.log" 2>&1 ||
		die "the Debian packages (${OUT#"$TOP"/}/build.log)"
	echo "# check-kernel: $(cd "$TREE/build/debs" && echo *.deb)"
done
export SIW2_VM_KVER=$kver
exec "$TREE/tests/vm/run.sh" "${args[@]}"
