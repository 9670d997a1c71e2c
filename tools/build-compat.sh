#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/build-compat.sh [SERIES...]: build siw2.ko for each kernel series
# (default: 6.1 6.12, Debian 12's default kernel and its 6.12; 6.12 alone
# on Debian 13) from the source DKMS builds (make dkms-src), against the
# newest installed Debian headers of that series, with W=1.  A missing header package, a
# failed build or any compiler warning fails.  Scratch trees in
# build/compat/<release>; the tree's own objects are not touched.
#
# With 6.12, a third build: the PMEM API gate (DEC-14, siw2_pmem.h).
# Every x86_64 kernel has CONFIG_ARCH_HAS_PMEM_API, so the 6.12 headers
# are copied (build/compat/<release>-nopmem/headers) with that symbol
# taken out of their configuration, as on an architecture without it,
# where arch_wb_cache_pmem() is an empty stub.  That build must be free
# of warnings too and reference neither arch_wb_cache_pmem() (a Commit's
# write-back) nor region_intersects() (the durable registration's
# persistent-memory check), both of which the plain 6.12 build must
# reference: without the API the compiler drops both paths.  What such
# a module advertises and refuses is the KUnit suite siw2_pmem's (UML
# has no PMEM API either).
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
	if ! make -j"$(nproc)" -C "$kdir" M="$src" W=1 modules >"$log" 2>&1; then
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
	[[ $s == 6.12 ]] && pmem_ko=$src/drivers/siw2/siw2.ko pmem_kdir=$kdir
done

# refs KO: the PMEM symbols KO uses, one line each.
refs() { nm -u "$1" | awk '$2 == "arch_wb_cache_pmem" || $2 == "region_intersects" { print $2 }' | sort; }

if [[ -n ${pmem_ko:-} ]]; then
	kver=${pmem_kdir##*/linux-headers-}-nopmem
	dst=$OUT/$kver
	hdr=$dst/headers
	rm -rf "$dst"
	mkdir -p "$hdr"
	cp -a "$pmem_kdir"/. "$hdr"/
	# Debian's scripts and tools links are relative to /usr/src.
	for l in scripts tools; do
		[[ -L $pmem_kdir/$l ]] && ln -sfn "$(readlink -f "$pmem_kdir/$l")" "$hdr/$l"
	done
	sed -i '/^CONFIG_ARCH_HAS_PMEM_API=/d' "$hdr/.config" "$hdr/include/config/auto.conf"
	sed -i '/^#define CONFIG_ARCH_HAS_PMEM_API /d' "$hdr/include/generated/autoconf.h"
	for f in .config include/config/auto.conf include/generated/autoconf.h; do
		touch -r "$pmem_kdir/$f" "$hdr/$f"
	done
	log=$dst/build.log
	if grep -qs ARCH_HAS_PMEM_API "$hdr/include/generated/autoconf.h" "$hdr/include/config/auto.conf"; then
		echo "build-compat: $kver: CONFIG_ARCH_HAS_PMEM_API still in the copied configuration"
		rc=1
	elif ! make -s -C "$TOP" dkms-src DESTDIR="$dst" >/dev/null; then
		rc=1
	else
		src=$(ls -d "$dst"/usr/src/siw2-*)
		if ! make -j"$(nproc)" -C "$hdr" M="$src" W=1 modules >"$log" 2>&1; then
			tail -n 20 "$log"
			echo "build-compat: $kver: build failed ($log)"
			rc=1
		elif grep -q 'warning:' "$log"; then
			grep -B2 -A3 'warning:' "$log" | head -n 40
			echo "build-compat: $kver: compiler warnings ($log)"
			rc=1
		else
			with=$(refs "$pmem_ko" | tr '\n' ' ')
			without=$(refs "$src/drivers/siw2/siw2.ko" | tr '\n' ' ')
			if [[ $with != "arch_wb_cache_pmem region_intersects " ]]; then
				echo "build-compat: the 6.12 module uses [${with% }], want arch_wb_cache_pmem and region_intersects (DEC-14: the check below would prove nothing)"
				rc=1
			elif [[ -n $without ]]; then
				echo "build-compat: $kver: the module still uses [${without% }] without CONFIG_ARCH_HAS_PMEM_API (DEC-14: no durable registration, no write-back)"
				rc=1
			else
				echo "build-compat: $kver: without CONFIG_ARCH_HAS_PMEM_API no write-back and no durable registration left (DEC-14), no warning"
			fi
		fi
	fi
fi
exit "$rc"
