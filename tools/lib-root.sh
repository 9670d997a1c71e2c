# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# tools/lib-root.sh: a Debian root to run the project in with chroot, as
# tools/check-fresh.sh (a throw-away copy per run) and tools/check-release.sh
# (a cached root per release, make check's vm13 stage) both use it.  Source
# it; every function takes the root's directory and needs root.
#
#   root_make_base REL MIRROR BASE
#            a pristine "debootstrap --variant=minbase REL" root at BASE,
#            made in BASE.tmp and moved into place only when complete (the
#            host's debootstrap and keyring: tools/install-deps.sh fresh)
#   root_configure ROOT REL MIRROR SECURITY
#            the apt sources of REL (main, updates and security: Linux 6.12
#            comes from the security suite), a policy-rc.d that keeps package
#            scripts from starting daemons (nfs-kernel-server, rpcbind) in
#            the chroot, where nothing would stop them, and the host's
#            resolv.conf
#   root_digest ROOT TOP
#            TOP/../shared/specs (the protocol digest, as CI has it beside
#            the clone) at ROOT/root/shared/specs, when it exists
#   root_mount ROOT
#            ROOT bound onto itself (a machine's / is a mount point; unshare
#            -m, in match-selftest.sh, needs it) and /proc, /sys and /dev
#            rbind-mounted into it
#   root_run ROOT CMD...
#            CMD in ROOT, as root, in a clean environment (HOME=/root),
#            stdin from /dev/null
#   root_kill ROOT
#            SIGKILL to every process whose root is ROOT (what a run left
#            behind, e.g. QEMU after an interrupt), then wait up to 10 s for
#            them to go; prints one line per process killed
#   root_unmount ROOT
#            every mount at or below ROOT, deepest first (lazily if busy)

LIBROOT_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

root_make_base() {
	local rel=$1 mirror=$2 base=$3 tmp=$3.tmp
	"$LIBROOT_TOOLS/install-deps.sh" fresh || return 1
	rm -rf --one-file-system "$tmp"
	debootstrap --variant=minbase "$rel" "$tmp" "$mirror" || return 1
	mv "$tmp" "$base"
}

root_configure() {
	local root=$1 rel=$2 mirror=$3 security=$4
	cat >"$root/etc/apt/sources.list" <<-EOF
	deb $mirror $rel main
	deb $mirror $rel-updates main
	deb $security $rel-security main
	EOF
	printf '#!/bin/sh\n# siw2 test root (tools/lib-root.sh): no daemons in the chroot\nexit 101\n' \
		>"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	# A leftover symlink (systemd-resolved's) would make cp write through it.
	rm -f "$root/etc/resolv.conf"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
}

root_digest() {
	local root=$1 top=$2
	rm -rf "$root/root/shared/specs"
	[[ -d $top/../shared/specs ]] || return 0
	mkdir -p "$root/root/shared"
	cp -a "$top/../shared/specs" "$root/root/shared/"
}

root_mount() {
	local root=$1 m
	mount --bind "$root" "$root" || return 1
	mount --make-private "$root"
	for m in proc sys dev; do
		mount --rbind "/$m" "$root/$m" || return 1
		mount --make-rslave "$root/$m"
	done
}

root_run() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive "$@" </dev/null
}

# The pids of the processes whose root directory is ROOT (one find, not
# a readlink per process: the wait below scans often, on a busy host).
root_pids() {
	find /proc -mindepth 2 -maxdepth 2 -name root -lname "$1" 2>/dev/null |
		cut -d/ -f3
}

root_kill() {
	local root=$1 p i
	[[ -d $root/proc ]] || return 0
	for p in $(root_pids "$root"); do
		echo "lib-root: killing $p ($({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | cut -c1-100)) in $root"
		kill -9 "$p" 2>/dev/null
	done
	for ((i = 0; i < 100; i++)); do
		[[ -z $(root_pids "$root") ]] && return 0
		sleep 0.1
	done
}

root_unmount() {
	local root=$1 m
	awk -v r="$root/" 'index($2 "/", r) == 1 { print $2 }' /proc/self/mounts |
		sort -r | while read -r m; do
			umount "$m" 2>/dev/null || umount -l "$m"
		done
}
