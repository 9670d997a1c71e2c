#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/check-release.sh RELEASE [run.sh arguments, e.g. -j2 or case files]
#
# The VM cases on the root of another Debian release than the host's:
# make check's vm13 stage is "tools/check-release.sh trixie" on a Debian 12
# host, the core cases with Debian 13's rdma-core 56 (ibv_wr_flush(), which
# Debian 12's rdma-core 44 lacks), gcc 14 and 6.12 kernel.  It runs them the
# way "SIW2_FRESH_RELEASE=trixie make check-fresh" runs the whole suite, in
# a chroot whose QEMU boots that root's kernel with that root as the
# guest's root over 9p, but on a root kept across runs, so a machine pays
# the package installation once:
#
#   1. The root, $CACHE/RELEASE-stage, is made once from check-fresh's
#      pristine $CACHE/RELEASE-base (debootstrapped first if missing) with
#      the release's apt sources, a policy-rc.d and the host's resolv.conf
#      (tools/lib-root.sh, shared with check-fresh), and the tree's own
#      tools/install-deps.sh runs in it: everything make check needs there.
#      A stamp in the root (the hash of tools/install-deps.sh) runs
#      install-deps again when the package list changed (it is idempotent:
#      it installs what is missing) and costs nothing when it did not.
#   2. Every run copies the working tree (without build/ and .git, as
#      tools/check-kernel.sh does) to /root/siw2 in the root, the protocol
#      digest (../shared/specs) to /root/shared/specs when present, and in
#      the chroot removes the host's objects (make clean: they were built
#      against the host's libraries) and builds "make all peer" against the
#      root's newest 6.12 kernel (KDIR=/lib/modules/<release>/build; Linux
#      siw from the root's linux-source-6.12, tools/build-siw.sh).
#   3. tests/vm/run.sh runs in the chroot with the arguments, every guest
#      booting that kernel (SIW2_VM_KVER); SIW2_* variables other than this
#      script's own reach it.
#
# Without case arguments: the core cases (tests/vm/core-cases, as
# tools/check-kernel.sh runs them on 6.1) and RELEASE_CASES below, those
# that need the newer rdma-core; a name with no case file in the tree is
# left out with a "# check-release: no case NAME in this tree" line.
# Output as run.sh's: the last line is "N passed, N failed, N skipped"; a
# setup or build failure is one failure.  The mounts are undone and any
# process left in the root is killed on every exit; a lock keeps two runs
# (two clones on one machine) from sharing the root: the second waits.
#
# Needs root (mount, chroot; re-run through "sudo -n" when that works) and
# about 6 GiB under the cache directory.  Logs:
# build/release-RELEASE/{setup,build}.log, times.txt (seconds of setup,
# build and cases) and vm-logs/ (the cases' logs, copied out of the root).
#
# Environment:
#   SIW2_FRESH_CACHE      the cache directory, check-fresh's (default
#                         ${XDG_CACHE_HOME:-$HOME/.cache}/siw2-fresh)
#   SIW2_FRESH_MIRROR     Debian mirror (default http://deb.debian.org/debian)
#   SIW2_FRESH_SECURITY   security mirror (default http://deb.debian.org/debian-security)
#   SIW2_RELEASE_REBUILD=1  make the root again from the base (new package
#                         versions; otherwise the root keeps the ones of
#                         its first installation)
#   SIW2_RELEASE_LOCK_WAIT  seconds to wait for another run's lock (3600)
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REL=${1:-}
case $REL in
bookworm | trixie) ;;
*) echo "usage: $0 bookworm|trixie [run.sh arguments]" >&2; exit 2 ;;
esac
shift
# Cases that need the release's newer user space (rdma-core 56).
RELEASE_CASES=(68-rdma-commit 82-flush-verbs)

MIRROR=${SIW2_FRESH_MIRROR:-http://deb.debian.org/debian}
SECURITY=${SIW2_FRESH_SECURITY:-http://deb.debian.org/debian-security}
CACHE=${SIW2_FRESH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/siw2-fresh}
BASE=$CACHE/$REL-base
STAGE=$CACHE/$REL-stage
STAMP=$STAGE/var/lib/siw2-stage.stamp
OUT=$TOP/build/release-$REL
SUMMARY_RE='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'

die() {
	echo "not ok - check-release $REL: $*"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}
say() { echo "# check-release: $*"; }

if (( EUID != 0 )); then
	if sudo -n true 2>/dev/null; then
		mapfile -t keep < <(env | grep -E '^SIW2_[A-Z0-9_]*=')
		exec sudo -n env "${keep[@]}" "$0" "$REL" "$@"
	fi
	die "needs root (mount, chroot): run it as root or with sudo"
fi

# The run.sh arguments, case files as the root sees them (checked before
# the long set-up).
args=()
jobs=1
files=0
for a in "$@"; do
	if [[ $a == -* || $a =~ ^[0-9]+$ ]]; then
		args+=("$a")
		[[ $a == -j ]] && jobs=$(nproc)
		[[ $a =~ ^-j([0-9]+)$ || $a =~ ^([0-9]+)$ ]] && jobs=${BASH_REMATCH[1]}
		continue
	fi
	files=1
	abs=$(realpath -m -- "$a")
	[[ $abs == "$TOP"/* && -f $abs ]] || die "case $a: no such file in $TOP"
	args+=("/root/siw2/${abs#"$TOP"/}")
done
(( jobs >= 1 )) || jobs=1
if (( !files )); then
	mapfile -t cases < <(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$TOP/tests/vm/core-cases")
	for c in "${cases[@]}" "${RELEASE_CASES[@]}"; do
		if [[ -f $TOP/tests/vm/cases/$c.sh ]]; then
			args+=("/root/siw2/tests/vm/cases/$c.sh")
		else
			say "no case $c in this tree"
		fi
	done
fi

mkdir -p "$OUT" "$CACHE" || die "cannot create $OUT and $CACHE"
exec 8>"$STAGE.lock" || die "cannot open $STAGE.lock"
if ! flock -n 8; then
	say "waiting for another run's lock $STAGE.lock"
	flock -w "${SIW2_RELEASE_LOCK_WAIT:-3600}" 8 || die "another run holds $STAGE.lock"
fi

# shellcheck source=tools/lib-root.sh
source "$TOP/tools/lib-root.sh"
# in_root CMD...: CMD in the root, without our lock's descriptors.
in_root() { root_run "$STAGE" "$@" 7>&- 8>&-; }
cleanup() {
	{
		echo "cleanup: $(date -u +%FT%TZ)"
		root_kill "$STAGE"
		root_unmount "$STAGE"
	} >>"$OUT/setup.log" 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1. the root: made once, packages refreshed when the list changed ----
setup() {
	local want
	if [[ ! -x $BASE/bin/bash ]]; then
		# check-fresh makes the same base under its lock: take it too.
		exec 7>"$CACHE/.lock"
		flock -w "${SIW2_RELEASE_LOCK_WAIT:-3600}" 7 || { echo "check-fresh holds $CACHE/.lock"; return 1; }
		if [[ ! -x $BASE/bin/bash ]]; then
			echo "debootstrap of $REL into $BASE"
			root_make_base "$REL" "$MIRROR" "$BASE" || return 1
		fi
		exec 7>&-
	fi
	# What a run killed without its cleanup left.
	root_kill "$STAGE"
	root_unmount "$STAGE"
	if [[ ${SIW2_RELEASE_REBUILD:-0} == 1 ]]; then
		echo "SIW2_RELEASE_REBUILD=1: $STAGE made again"
		rm -rf --one-file-system "$STAGE"
	fi
	if [[ ! -x $STAGE/bin/bash ]]; then
		echo "copying $BASE to $STAGE"
		rm -rf --one-file-system "$STAGE" "$STAGE.tmp"
		cp -a "$BASE" "$STAGE.tmp" && mv "$STAGE.tmp" "$STAGE" || return 1
	fi
	root_configure "$STAGE" "$REL" "$MIRROR" "$SECURITY" || return 1
	rm -rf --one-file-system "$STAGE/root/siw2"
	mkdir -p "$STAGE/root/siw2"
	# A file that changes or goes while it is read (an object of a build
	# running in the tree) is tar's status 1: not fatal.
	tar -C "$TOP" --exclude=./build --exclude=./.git --warning=no-file-changed \
		--warning=no-file-removed -cf - . | tar -x -C "$STAGE/root/siw2"
	local st=("${PIPESTATUS[@]}")
	(( st[0] <= 1 && st[1] == 0 )) || return 1
	root_digest "$STAGE" "$TOP" || return 1
	root_mount "$STAGE" || return 1
	want="install-deps.sh $(sha256sum <"$TOP/tools/install-deps.sh" | cut -d' ' -f1)"
	if [[ $(cat "$STAMP" 2>/dev/null) == "$want" ]]; then
		echo "packages: tools/install-deps.sh unchanged since its last run in the root"
		return 0
	fi
	echo "packages: tools/install-deps.sh in the root ($want)"
	rm -f "$STAMP"
	in_root /root/siw2/tools/install-deps.sh || return 1
	echo "$want" >"$STAMP"
}

: >"$OUT/times.txt"
t0=$SECONDS
say "$REL root $STAGE (setup log: ${OUT#"$TOP"/}/setup.log)"
{ echo "setup: $(date -u +%FT%TZ)"; setup; } >"$OUT/setup.log" 2>&1
rc=$?
t_setup=$((SECONDS - t0))
echo "setup $t_setup" >>"$OUT/times.txt"
if (( rc != 0 )); then
	tail -n 20 "$OUT/setup.log" | sed 's/^/#   /'
	die "setting up the $REL root (${OUT#"$TOP"/}/setup.log)"
fi
say "setup ${t_setup} s"

# ---- 2. the build, in the root, against its kernel ----
t0=$SECONDS
img=$(ls -1 "$STAGE"/boot/vmlinuz-6.12*-amd64 2>/dev/null | sort -V | tail -n1)
[[ -n $img ]] || die "no /boot/vmlinuz-6.12*-amd64 in $STAGE"
kver=${img##*/vmlinuz-}
kdir=/lib/modules/$kver/build
in_root test -f "$kdir/Makefile" || die "no headers at $kdir in $STAGE"
say "$REL: kernel $kver, rdma-core $(in_root dpkg-query -W -f '${Version}' libibverbs1 2>/dev/null)"
build() {
	in_root make -C /root/siw2 KDIR="$kdir" clean >/dev/null 2>&1
	in_root env SIW2_VM_KVER="$kver" make -C /root/siw2 -j"$jobs" KDIR="$kdir" all peer || return 1
	# 79-debs installs the Debian packages: built from the copy, as make
	# check's debs stage builds them from the tree.
	local a
	for a in "${args[@]}"; do
		[[ $(basename -- "$a") == 79-debs.sh ]] || continue
		in_root /root/siw2/tools/build-debs.sh || return 1
	done
}
build >"$OUT/build.log" 2>&1
rc=$?
t_build=$((SECONDS - t0))
echo "build $t_build" >>"$OUT/times.txt"
if (( rc != 0 )); then
	tail -n 20 "$OUT/build.log" | sed 's/^/#   /'
	die "build against $kver in the $REL root (${OUT#"$TOP"/}/build.log)"
fi
say "build ${t_build} s: siw2.ko $(in_root modinfo -F vermagic /root/siw2/drivers/siw2/siw2.ko)"

# ---- 3. the cases ----
# SIW2_* knobs reach run.sh, except this script's own and SIW2_TOP.
pass=()
while IFS= read -r v; do
	case $v in
	SIW2_FRESH_* | SIW2_RELEASE_* | SIW2_TOP | SIW2_VM_KVER) ;;
	SIW2_*) pass+=("$v=${!v}") ;;
	esac
done < <(compgen -e)
t0=$SECONDS
summary=
while IFS= read -r line; do
	if [[ $line =~ $SUMMARY_RE ]]; then
		summary=$line
	else
		printf '%s\n' "$line"
	fi
done < <(in_root env "${pass[@]}" SIW2_VM_KVER="$kver" /root/siw2/tests/vm/run.sh "${args[@]}" 2>&1)
t_cases=$((SECONDS - t0))
echo "cases $t_cases" >>"$OUT/times.txt"
left=$(root_kill "$STAGE")
[[ -z $left ]] || { say "processes left in the root, killed:"; printf '%s\n' "$left" | sed 's/^/#   /'; }
rm -rf "$OUT/vm-logs"
cp -a "$STAGE/root/siw2/build/vm-logs" "$OUT/" 2>/dev/null
say "case logs: ${OUT#"$TOP"/}/vm-logs (/root/siw2/build/vm-logs in $STAGE)"
say "wall time: setup $t_setup s, build $t_build s, cases $t_cases s"
if [[ -z $summary ]]; then
	echo "not ok - check-release $REL: run.sh ended without a summary"
	summary="0 passed, 1 failed, 0 skipped"
fi
echo "$summary"
[[ $summary =~ $SUMMARY_RE ]] && (( BASH_REMATCH[2] == 0 ))
