#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/build-compat.sh [SERIES...]: build siw2.ko for each kernel series
# (default: 6.1 6.12, Debian 12's default kernel and its 6.12; 6.12 alone
# on Debian 13) from the source DKMS builds (make dkms-src), against the
# newest installed Debian headers of that series, with W=1.  A missing header package, a
# failed build or any compiler warning fails.  Scratch trees in
# build/compat/<release>; the tree's own objects are not touched.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$TOP/build/compat
series=("$@")
if (( ${#series[@]} == 0 )); then
	# Debian 13 has no 6.1 kernel to build for.
	[[ $(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}") == trixie ]] &&
		series=(6.12) || series=(6.1 6.12)
fi
rc=0
for s in "${series[@]}"; do
	kdir=$(ls -d /usr/src/linux-headers-"$s".*-amd64 2>/dev/null | sort -V | tail -n1)
	if [[ -z $kdir || ! -f $kdir/Makefile ]]; then
		echo "build-compat: no linux-headers for $s (tools/install-deps.sh installs them)"
		rc=1
		continue
	fi
	kver=${kdir##*/linux-headers-}
	dst=$OUT/$kver
	rm -rf "$dst"
	make -s -C "$TOP" dkms-src DESTDIR="$dst" >/dev/null || { rc=1; continue; }
	src=$(ls -d "$dst"/usr/src/siw2-*)
	log=$dst/build.log
	if ! make -C "$kdir" M="$src" W=1 modules >"$log" 2>&1; then
		tail -n 20 "$log"
		echo "build-compat: $kver: build failed ($log)"
		rc=1
		continue
	fi
	if grep -q 'warning:' "$log"; then
		grep -B2 -A3 'warning:' "$log" | head -n 40
		echo "build-compat: $kver: compiler warnings ($log)"
		rc=1
		continue
	fi
	echo "build-compat: $kver: $(modinfo -F vermagic "$src/drivers/siw2/siw2.ko"), no warning"
done
exit "$rc"
