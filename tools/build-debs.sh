#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/build-debs.sh: the Debian packages, built from this tree with
# dpkg-buildpackage (debian/), into build/debs: siw2-dkms (the module's
# source for DKMS) and libsiw2 (the provider, siw2.driver, siw2dv.h,
# siw2dv(3)).  The tree is copied first (without build/ and .git), so
# the build leaves nothing in it.  Then each package's contents are
# checked against what it must hold.  Exit 0 when both are right.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$TOP/build/debs
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
die() { echo "build-debs: $*"; exit 1; }

for t in dpkg-buildpackage dh dh_dkms; do
	command -v "$t" >/dev/null || die "$t missing (tools/install-deps.sh)"
done
dver=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
[[ $dver == "$ver" ]] || die "debian/changelog says $dver, dkms.conf $ver"

rm -rf "$OUT"
mkdir -p "$OUT/src"
tar -C "$TOP" --exclude=./build --exclude=./.git -cf - . | tar -C "$OUT/src" -xf - ||
	die "cannot copy the tree"
if ! (cd "$OUT/src" && dpkg-buildpackage -us -uc -b) >"$OUT/build.log" 2>&1; then
	tail -n 30 "$OUT/build.log"
	die "dpkg-buildpackage failed (build/debs/build.log)"
fi
rm -rf "$OUT/src"

# has DEB PATH...: every PATH is in DEB.
rc=0
has() {
	local deb=$1 list p
	shift
	list=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
	for p in "$@"; do
		grep -qx "./$p" <<<"$list" || { echo "build-debs: $(basename "$deb") lacks /$p"; rc=1; }
	done
}
arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
dkms_deb=$OUT/siw2-dkms_${ver}_all.deb
lib_deb=$OUT/libsiw2_${ver}_$arch.deb
[[ -f $dkms_deb && -f $lib_deb ]] || die "missing $(basename "$dkms_deb") or $(basename "$lib_deb")"
src=usr/src/siw2-$ver
has "$dkms_deb" "$src/dkms.conf" "$src/Kbuild" "$src/LICENSE" "$src/drivers/siw2/Kbuild" \
	"$src/drivers/siw2/siw2_main.c" "$src/drivers/siw2/siw2_compat.h" \
	"$src/include/uapi/rdma/siw2-abi.h" "$src/include/siw2/kapi.h"
has "$lib_deb" "usr/lib/$ma/libibverbs/libsiw2-rdmav34.so" etc/libibverbs.d/siw2.driver \
	usr/include/infiniband/siw2dv.h usr/share/man/man3/siw2dv.3.gz \
	usr/share/man/man3/siw2dv_wr_commit.3.gz
dpkg-deb -f "$dkms_deb" Depends | grep -q dkms || { echo "build-debs: siw2-dkms does not depend on dkms"; rc=1; }
# Pinned to the rdma-core release it was built against (siw2_abi34.h).
ibv=$(dpkg-query -W -f='${Version}' libibverbs-dev | sed 's/^[0-9]*://; s/\..*//')
dpkg-deb -f "$lib_deb" Depends | grep -q "libibverbs1 (>= $ibv), libibverbs1 (<< $((ibv + 1)))" ||
	{ echo "build-debs: libsiw2 is not pinned to libibverbs1 $ibv: $(dpkg-deb -f "$lib_deb" Depends)"; rc=1; }
(( rc == 0 )) && echo "build-debs: $(cd "$OUT" && ls ./*.deb | tr '\n' ' ')ok"
exit "$rc"
