#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/build-siw.sh [--print-path]
#
# Build Linux's own software iWARP driver (siw.ko), the interoperability peer
# of siw2 in the VM tests.  Debian's kernels are built without it
# (CONFIG_RDMA_SIW unset), so it is built out of tree from Debian's
# linux-source-<series> package (6.12, or 6.1 for Debian 12's default
# kernel) against the guest kernel's headers:
#
#   - the guest kernel is the newest installed /boot/vmlinuz-6.12*-amd64,
#     or SIW2_VM_KVER (the same lookup as tests/vm/vm.sh vm_kernel);
#   - only drivers/infiniband/sw/siw/ is extracted from
#     /usr/src/linux-source-<series>.tar.xz into
#     ${XDG_CACHE_HOME:-$HOME/.cache}/siw2-peer/<kver>/src, outside the repo
#     (siw's source is never copied into this repository);
#   - make -C /lib/modules/<kver>/build M=<src> CONFIG_RDMA_SIW=m modules.
#
# The result is cached, keyed on the tarball's size and mtime and the kernel
# version; a second run only compares the stamp.  The guest finds the module
# at the same place through the read-only 9p root (tests/vm/lib-peer.sh).
#
# --print-path   print the absolute path of the built siw.ko on stdout
#                (build messages go to stderr)
set -euo pipefail

print_path=
case ${1:-} in
--print-path) print_path=1 ;;
'') ;;
-h|--help) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) echo "build-siw: unknown argument '$1' (usage: $0 [--print-path])" >&2; exit 2 ;;
esac

die() { echo "build-siw: $*" >&2; exit 1; }

if [[ -n ${SIW2_VM_KVER:-} ]]; then
	img=/boot/vmlinuz-$SIW2_VM_KVER	# the guest runs another kernel (vm.sh)
else
	img=$(ls -1 /boot/vmlinuz-6.12*-amd64 2>/dev/null | sort -V | tail -n1 || true)
fi
[[ -n $img ]] || die "no /boot/vmlinuz-6.12*-amd64 (run tools/install-deps.sh)"
kver=${img#/boot/vmlinuz-}
kbuild=/lib/modules/$kver/build
[[ -f $kbuild/Makefile ]] ||
	die "no kernel headers at $kbuild (install linux-headers-$kver, or run tools/install-deps.sh)"

# The kernel's series (6.12 of 6.12.117+deb12-amd64, 6.1 of 6.1.0-56-amd64)
# names the source package: siw as that kernel has it.
series=$(cut -d. -f1,2 <<<"${kver%%[-+]*}")
TARBALL=/usr/src/linux-source-$series.tar.xz
[[ -f $TARBALL ]] ||
	die "$TARBALL missing (apt-get install linux-source-$series, or run tools/install-deps.sh)"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/siw2-peer/$kver
src=$cache/src
ko=$src/siw.ko
# The headers are part of the key too: a reinstalled linux-headers package
# with the same version string but a new vermagic/symbol CRCs needs a rebuild.
stamp="$kver $(stat -c '%s %Y' "$TARBALL") $(stat -c '%Y' "$kbuild/Module.symvers" 2>/dev/null || echo -)"

if [[ -f $ko && "$(cat "$cache/.stamp" 2>/dev/null)" == "$stamp" ]]; then
	[[ -n $print_path ]] && echo "$ko"
	exit 0
fi

t0=$EPOCHREALTIME
echo "build-siw: building Linux siw.ko for $kver from $TARBALL (once per tarball/kernel)" >&2
mkdir -p "$cache"
rm -rf "$src" "$cache/.stamp"
tmp=$(mktemp -d "$cache/.src.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The tarball's top directory (linux-source-6.12); reading the first entry
# stops tar early.
top=$( (tar -tJf "$TARBALL" 2>/dev/null || true) | head -n1 | cut -d/ -f1)
[[ -n $top ]] || die "cannot read $TARBALL"
rel=drivers/infiniband/sw/siw
# --strip-components: top + drivers/infiniband/sw/siw = 5 components.
tar -xJf "$TARBALL" -C "$tmp" --strip-components=5 "$top/$rel" ||
	die "cannot extract $top/$rel from $TARBALL"
[[ -f $tmp/Makefile && -f $tmp/siw_main.c ]] || die "$rel incomplete in $TARBALL"
mv "$tmp" "$src"
trap - EXIT

# W=0: siw is not our code; its warnings are not ours to fix.  Kbuild's
# output goes to stderr so --print-path prints just the path on stdout.
MAKEFLAGS= make -j"$(nproc)" -C "$kbuild" M="$src" CONFIG_RDMA_SIW=m modules >&2 ||
	die "building siw.ko failed (sources in $src)"
[[ -f $ko ]] || die "build finished but $ko is missing"
echo "$stamp" >"$cache/.stamp"
t1=$EPOCHREALTIME
echo "build-siw: built $ko in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s" >&2
[[ -n $print_path ]] && echo "$ko"
exit 0
