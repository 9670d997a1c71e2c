#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# mkinitramfs.sh KVER OUT.cpio.gz
#
# Build the tiny busybox initramfs the test guest boots.  Its /init only
# gets the host's root file system on screen:
#   - loads virtio_pci (built in from 6.12 on, a module in 6.1), netfs,
#     9pnet, 9pnet_virtio, 9p and overlay (modules in Debian's kernel,
#     stored decompressed because busybox insmod cannot read .ko.xz),
#   - mounts the host's / read-only over 9p (tag hostroot) under a tmpfs
#     overlay, so the guest can use and "modify" every host tool,
#   - mounts proc, sys, devtmpfs, devpts, /dev/shm, debugfs, tracefs,
#     configfs, /tmp and /run tmpfs inside it, brings lo up, sets the hostname,
#     then then the repo
#     share (tag siw2top) at the same absolute path as on the host (so a clone
#     under the host's /tmp is visible despite the guest's /tmp tmpfs), again
#     under a throw-away tmpfs overlay, and the read-write results share (tag
#     siw2res) at /run/siw2,
#   - switch_roots into the overlay and execs bash on the repo's
#     tests/vm/guest-init.sh, which does the rest.  Keeping that stage in the
#     repo means editing it needs no initramfs rebuild.
# Parameters come from the kernel command line: unknown "key=value" words
# are handed to /init as environment variables (siw2_top=...).
set -euo pipefail

kver=$1
out=$2
moddir=/lib/modules/$kver
[[ -f $moddir/modules.dep ]] || { echo "mkinitramfs: no $moddir/modules.dep" >&2; exit 1; }
busybox=$(command -v busybox || true)
[[ -n $busybox ]] && file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	busybox=/bin/busybox
[[ -x $busybox ]] || { echo "mkinitramfs: busybox-static missing" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,dev,proc,sys,newroot,lower,rw,top,toprw,modules}
cp "$busybox" "$work/bin/busybox"
for t in sh mount umount mkdir insmod switch_root echo cat sleep poweroff ip hostname; do
	ln -s busybox "$work/bin/$t"
done

# Resolve each wanted module and its dependencies from modules.dep, in load
# order (dependencies first), skipping built-ins (absent from modules.dep).
declare -A seen=()
order=()
add_mod() {		# add_mod relative/path.ko.xz
	local rel=$1 line dep
	[[ -n ${seen[$rel]:-} ]] && return 0
	seen[$rel]=1
	line=$(grep -m1 "^$rel:" "$moddir/modules.dep") || return 0
	for dep in ${line#*:}; do
		add_mod "$dep"
	done
	order+=("$rel")
}
for m in virtio_pci netfs 9pnet 9pnet_virtio 9p overlay; do
	rel=$(grep -m1 -E "/$m\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" | cut -d: -f1 || true)
	[[ -n $rel ]] && add_mod "$rel"	# not found: built into the kernel
done
: >"$work/modules/order"
for rel in "${order[@]}"; do
	name=$(basename "$rel"); name=${name%%.ko*}.ko
	case $rel in
	*.xz)  xz -dc "$moddir/$rel" >"$work/modules/$name" ;;
	*.zst) zstd -qdc "$moddir/$rel" >"$work/modules/$name" ;;
	*.gz)  gzip -dc "$moddir/$rel" >"$work/modules/$name" ;;
	*)     cp "$moddir/$rel" "$work/modules/$name" ;;
	esac
	echo "$name" >>"$work/modules/order"
done

cat >"$work/init" <<'INIT'
#!/bin/sh
# Stage 1 of the siw2 test guest (see tests/vm/mkinitramfs.sh).
export PATH=/bin
stamp() { [ -n "$siw2_trace" ] && echo "siw2-init: $(cat /proc/uptime) $*"; }
die() { echo "siw2-init: $*"; echo o >/proc/sysrq-trigger; sleep 10; }
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules/order); do insmod /modules/$m || die "insmod $m"; done
[ -n "$siw2_top" ] || die "siw2_top= missing on the kernel command line"
# cache=loose: the host root does not change under a short test run, and it
# makes exec of host binaries (the bulk of guest time) much cheaper.
stamp "mount -t 9p -o trans"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro hostroot /lower ||
	die "cannot mount hostroot"
stamp "mount -t tmpfs -o mo"
mount -t tmpfs -o mode=755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
	die "cannot mount overlay root"
stamp "R=/newroot"
R=/newroot
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs devtmpfs $R/dev
mount -t tmpfs -o mode=1777 tmpfs $R/tmp
mount -t tmpfs -o mode=755 tmpfs $R/run
# Everything else stage 2 needs is mounted here too: busybox applets in the
# initramfs start far faster than host binaries read over 9p.
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $R/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $R/dev/shm
mount -t debugfs debugfs $R/sys/kernel/debug
mount -t tracefs tracefs $R/sys/kernel/tracing 2>/dev/null
mount -t configfs configfs $R/sys/kernel/config 2>/dev/null
ip link set lo up
hostname siw2-vm
# The repo: its own share (no cache: it may be rebuilt between boots), at the
# host's path, writable through a discarded tmpfs overlay.
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro siw2top /top ||
	die "cannot mount siw2top"
mount -t tmpfs -o mode=755 tmpfs /toprw
mkdir -p /toprw/upper /toprw/work $R$siw2_top
mount -t overlay -o lowerdir=/top,upperdir=/toprw/upper,workdir=/toprw/work overlay $R$siw2_top ||
	die "cannot mount repo overlay"
mkdir -p $R/run/siw2
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 siw2res $R/run/siw2 ||
	die "cannot mount siw2res"
stamp "exec switch_root"
exec switch_root $R /bin/bash "$siw2_top/tests/vm/guest-init.sh"
die "switch_root failed"
INIT
chmod +x "$work/init"

(cd "$work" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
