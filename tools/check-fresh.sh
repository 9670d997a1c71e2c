#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/check-fresh.sh: prove the README's two commands on a clean Debian 12
# machine (make check-fresh).  Needs root (debootstrap, mount, chroot) and
# about 15 GiB of disk under the cache directory.
#
#   1. A minimal Debian root ("debootstrap --variant=minbase"), made once
#      and kept pristine under $CACHE/<release>-base (outside the repo).
#   2. Every run copies it to $CACHE/<release>-run, so each run starts from
#      a machine that has none of the project's packages, and adds what a
#      person reading the README has: make (the only prerequisite the
#      README names), the apt sources of the release (main, updates and
#      security: Linux 6.12 comes from the security suite) and a
#      policy-rc.d that keeps package scripts from starting daemons
#      (nfs-kernel-server, rpcbind) in the chroot, where nothing would stop
#      them.
#   3. A clean "git archive" of HEAD goes to /root/siw2 in that root, and
#      ../shared/specs (the protocol digest, as CI has it beside the clone)
#      to /root/shared/specs when it exists.
#   4. With the root bound onto itself (a mount point, as on a machine) and
#      /proc, /sys and /dev bind-mounted, "make demo" and then
#      "make check" each run exactly once in the chroot, as root, with an
#      empty environment (HOME=/root: every cache is cold).
#
#   5. Then DKMS, as a user of it would: "make dkms-install" with dkms
#      installed, and the module must be built for the running release's
#      6.12 kernel; then Debian 12's default kernel's headers
#      (linux-headers-amd64, 6.1; make check installed them, so they are
#      purged before dkms-install) are installed and DKMS must have built
#      siw2 for that kernel by itself (its header_postinst hook), both
#      modules with siw2's version and their kernel's vermagic.  Debian
#      13 has no 6.1: there siw2 is unbuilt for 6.12, the 6.12 headers
#      are installed again, and DKMS must have rebuilt it by itself.
#
# Making the base, the apt sources, the mounts and the chroot are
# tools/lib-root.sh's, shared with tools/check-release.sh (make check's
# vm13 stage, which keeps a root of its own, <release>-stage, beside the
# base).
#
# Logs: build/check-fresh/<release>/{setup,demo,check,dkms}.log and times.txt
# (seconds of each step).  The last line is the result of "make check"
# ("N passed, N failed, N skipped"); the exit status is non-zero if
# debootstrap, the demo, the suite or the DKMS step failed.
#
# Environment:
#   SIW2_FRESH_CACHE     cache directory (default ${XDG_CACHE_HOME:-$HOME/.cache}/siw2-fresh)
#   SIW2_FRESH_MIRROR    Debian mirror (default http://deb.debian.org/debian)
#   SIW2_FRESH_SECURITY  security mirror (default http://deb.debian.org/debian-security)
#   SIW2_FRESH_RELEASE   Debian release: bookworm (Debian 12, the default) or
#                        trixie (Debian 13)
#   SIW2_FRESH_KEEP=1    keep the run's root afterwards (it is replaced by
#                        the next run anyway)
#   SIW2_FRESH_VM_JOBS   guests at once in make check (default make check's,
#                        2): 1 lets two check-fresh runs share two cores
#   SIW2_FRESH_STEPS     the steps after setup (default "demo check dkms";
#                        a subset runs only those, without a suite result)
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REL=${SIW2_FRESH_RELEASE:-bookworm}
MIRROR=${SIW2_FRESH_MIRROR:-http://deb.debian.org/debian}
SECURITY=${SIW2_FRESH_SECURITY:-http://deb.debian.org/debian-security}
CACHE=${SIW2_FRESH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/siw2-fresh}
BASE=$CACHE/$REL-base
RUN=$CACHE/$REL-run
OUT=$TOP/build/check-fresh/$REL

die() { echo "check-fresh: $*" >&2; exit 1; }
say() { echo "check-fresh: $*"; }

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, mount, chroot): run it with sudo"
case $REL in
bookworm | trixie) ;;
*) die "release '$REL' is not supported (bookworm, trixie)" ;;
esac
git -C "$TOP" rev-parse --verify -q HEAD >/dev/null || die "$TOP is not a git checkout"

mkdir -p "$OUT" "$CACHE"
: >"$OUT/times.txt"
exec 9>"$CACHE/.lock"
flock -n 9 || die "another check-fresh holds $CACHE/.lock"

# step NAME LOG CMD...: run CMD with its output in LOG (and on the
# terminal), record the seconds it took; return its status.
step() {
	local name=$1 log=$2 t0 rc
	shift 2
	t0=${EPOCHREALTIME/./}
	say "$name (log: ${log#"$TOP"/})"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	printf '%-10s %6d s  rc %d\n' "$name" $(( (${EPOCHREALTIME/./} - t0) / 1000000 )) "$rc" |
		tee -a "$OUT/times.txt"
	return "$rc"
}

# shellcheck source=tools/lib-root.sh
source "$TOP/tools/lib-root.sh"
cleanup() {
	# Anything the suite left running in the chroot (it should be none).
	root_kill "$RUN" >/dev/null
	root_unmount "$RUN"
	[[ ${SIW2_FRESH_KEEP:-0} == 1 ]] || rm -rf --one-file-system "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1. the pristine root, once ----
make_base() { root_make_base "$REL" "$MIRROR" "$BASE"; }
cd "$TOP" || exit 1
if [[ ! -x $BASE/bin/bash ]]; then
	step debootstrap "$OUT/debootstrap.log" make_base || die "debootstrap failed"
else
	say "using the cached clean root $BASE"
fi

# ---- 2. this run's root ----
setup_run() {
	rm -rf --one-file-system "$RUN"
	cp -a "$BASE" "$RUN" || return 1
	root_configure "$RUN" "$REL" "$MIRROR" "$SECURITY"
	# Copy the tree as committed, never the working copy.
	mkdir -p "$RUN/root/siw2"
	git -C "$TOP" archive --format=tar HEAD | tar -x -C "$RUN/root/siw2" || return 1
	root_digest "$RUN" "$TOP"
	root_mount "$RUN" || return 1
	in_root apt-get update -q &&
		in_root apt-get install -y -q --no-install-recommends make
}

# in_root CMD...: CMD in the run's root, as root, in a clean environment.
in_root() { root_run "$RUN" "$@"; }

step setup "$OUT/setup.log" setup_run || die "setting up the run's root failed"
say "HEAD $(git -C "$TOP" rev-parse --short HEAD) in $RUN/root/siw2"

# DKMS (step 5): installed for 6.12, then rebuilt by itself for 6.1 (on
# Debian 13, which has 6.12 alone: for its headers installed again).
# dkms_ko KVER: the module DKMS installed for KVER, checked.
dkms_ko() {
	local kver=$1 ko ver magic
	ko=$(in_root sh -c "ls /lib/modules/$kver/updates/dkms/siw2.ko* 2>/dev/null" | head -n1)
	[[ -n $ko ]] || { echo "dkms: no siw2 module for $kver"; return 1; }
	ver=$(in_root modinfo -F version "$ko")
	magic=$(in_root modinfo -F vermagic "$ko")
	echo "dkms: $ko: version $ver, vermagic $magic"
	[[ $ver == "$WANT_VER" && $magic == "$kver "* ]] ||
		{ echo "dkms: want version $WANT_VER and vermagic $kver"; return 1; }
}
dkms_step() {
	local hdr=linux-headers-6.12-amd64 k612 k61 old
	# Debian 13's 6.12 headers go by the plain name.
	[[ $REL == trixie ]] && hdr=linux-headers-amd64
	# make check installed the 6.1 headers (tools/install-deps.sh): they go
	# first, so that their coming back below is a newly installed kernel.
	old=$(in_root dpkg-query -W -f '${Package}\n' 'linux-headers-6.1.*-amd64' 2>/dev/null)
	if [[ $REL == bookworm && -n $old ]]; then
		# shellcheck disable=SC2086
		in_root apt-get purge -y -q linux-headers-amd64 $old || return 1
	fi
	in_root apt-get install -y -q --no-install-recommends dkms "$hdr" || return 1
	k612=$(in_root sh -c 'ls -d /usr/src/linux-headers-6.12*-amd64' | sed 's|.*/linux-headers-||' | sort -V | tail -n1)
	in_root make -C /root/siw2 dkms-install KDIR="/usr/src/linux-headers-$k612" || return 1
	dkms_ko "$k612" || return 1
	if [[ $REL == trixie ]]; then
		# Debian 13 has one kernel series: its headers installed again
		# must make DKMS build siw2 again by itself, as a new kernel's do.
		# unbuild, not remove: removing the last kernel's build
		# unregisters the module from DKMS altogether.
		in_root dkms unbuild "siw2/$WANT_VER" -k "$k612" || return 1
		! in_root sh -c "ls /lib/modules/$k612/updates/dkms/siw2.ko* 2>/dev/null" | grep -q . ||
			{ echo "dkms: siw2 still installed for $k612 after dkms unbuild"; return 1; }
		in_root apt-get install -y -q --reinstall "linux-headers-$k612" || return 1
		in_root dkms status
		dkms_ko "$k612"
		return
	fi
	in_root apt-get install -y -q --no-install-recommends linux-headers-amd64 || return 1
	k61=$(in_root sh -c 'ls -d /usr/src/linux-headers-6.1.*-amd64' | sed 's|.*/linux-headers-||' | sort -V | tail -n1)
	[[ -n $k61 ]] || { echo "dkms: linux-headers-amd64 brought no 6.1 headers"; return 1; }
	in_root dkms status
	dkms_ko "$k61"
}
WANT_VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")

# ---- 3.-5. the README's two commands, once each, then DKMS ----
rc=0
STEPS=" ${SIW2_FRESH_STEPS:-demo check dkms} "
if [[ $STEPS == *" demo "* ]]; then
	step "make demo" "$OUT/demo.log" in_root make -C /root/siw2 demo || rc=1
fi
if [[ $STEPS == *" check "* ]]; then
	step "make check" "$OUT/check.log" in_root make -C /root/siw2 check \
		${SIW2_FRESH_VM_JOBS:+VM_JOBS=$SIW2_FRESH_VM_JOBS} || rc=1
fi
if [[ $STEPS == *" dkms "* ]]; then
	step dkms "$OUT/dkms.log" dkms_step || rc=1
fi
# Keep what the suite wrote, for the record.
[[ -d $RUN/root/siw2/build/vm-logs ]] &&
	{ rm -rf "$OUT/vm-logs"; cp -a "$RUN/root/siw2/build/vm-logs" "$OUT/"; }

echo
cat "$OUT/times.txt"
if [[ $STEPS != *" check "* ]]; then
	(( rc == 0 )) && say "steps$STEPS passed" || say "steps$STEPS: a step failed"
	exit "$rc"
fi
[[ $STEPS != *" demo "* ]] || grep -q '^demo: ok' "$OUT/demo.log" ||
	{ say "make demo did not end with 'demo: ok'"; rc=1; }
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$OUT/check.log" | tail -n1)
[[ -n $summary ]] || { summary="0 passed, 1 failed, 0 skipped"; rc=1; }
[[ $summary == *" 0 failed,"* ]] || rc=1
echo "$summary"
exit "$rc"
