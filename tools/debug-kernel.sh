#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/debug-kernel.sh [--coverage] [--print-kver]
#
# Build and install the debug guest kernel of issue 17 (make debug-kernel):
# Debian's linux-source-6.12 with x86_64 defconfig plus the fragments
# tests/debug/kernel.config (what the VM suite needs, fault injection, gcov)
# and tests/debug/checkers.config (KASAN, KFENCE, UBSAN, lockdep, kmemleak,
# DEBUG_OBJECTS, DEBUG_LIST): release 6.12.N-siw2dbg.
# --coverage builds the coverage kernel of issue 36 instead: kernel.config
# plus tests/debug/coverage.config, no checkers, release 6.12.N-siw2cov
# (tools/check-debug.sh --coverage).
#
#   - The tarball is extracted once into ${XDG_CACHE_HOME:-$HOME/.cache}/
#     siw2-debug/src (outside the repo); each build lives in build-<key>
#     (the coverage kernel's in cov-<key>), <key> a hash of the fragments,
#     the tarball and this script, so a changed fragment builds afresh and
#     an unchanged one only compares.
#   - Every line of the fragment must survive Kconfig; a dropped option
#     (a missing dependency) fails the build with its name.
#   - The result is installed as a kernel of this host would be, under a
#     release name of its own (6.12.N-siw2dbg): /boot/vmlinuz-<release>,
#     /lib/modules/<release> and its build link, so that the guest, which
#     sees the host's root, finds it, and modules build against it with
#     KDIR=/lib/modules/<release>/build.  Debian's kernel is untouched and
#     stays the default of every test (tests/vm/vm.sh picks *-amd64).
#
# Needs root (the install) and the build packages tools/install-deps.sh
# installs (gcc, make, bc, bison, flex, libssl-dev, libelf-dev).
#
# --print-kver   print the release name on stdout (build messages go to
#                stderr)
set -euo pipefail

print= variant=debug
while [[ $# -gt 0 ]]; do
	case $1 in
	--print-kver) print=1 ;;
	--coverage) variant=cov ;;
	-h|--help) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "debug-kernel: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/siw2-debug
FRAGS=("$TOP/tests/debug/kernel.config" "$TOP/tests/debug/checkers.config")
prefix=build marker=.siw2-debug
if [[ $variant == cov ]]; then
	FRAGS=("$TOP/tests/debug/kernel.config" "$TOP/tests/debug/coverage.config")
	prefix=cov marker=.siw2-cov
fi
JOBS=${SIW2_DEBUG_JOBS:-$(nproc)}
die() { echo "debug-kernel: $*" >&2; exit 1; }
say() { echo "debug-kernel: $*" >&2; }

tarball=$(ls -1 /usr/src/linux-source-6.12*.tar.xz 2>/dev/null | sort -V | tail -n1 || true)
[[ -n $tarball ]] || die "no /usr/src/linux-source-6.12*.tar.xz (tools/install-deps.sh)"
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9

# 1. The source, once per tarball.
stamp="$(basename "$tarball") $(stat -c '%s %Y' "$tarball")"
if [[ ! -f $CACHE/src/Makefile || "$(cat "$CACHE/.stamp" 2>/dev/null)" != "$stamp" ]]; then
	say "extracting $tarball (once per tarball)"
	rm -rf "$CACHE/src" "$CACHE"/build-* "$CACHE/.stamp"
	tmp=$(mktemp -d "$CACHE/.src.XXXXXX")
	tar -xJf "$tarball" -C "$tmp" --strip-components=1 || { rm -rf "$tmp"; die "cannot extract $tarball"; }
	mv "$tmp" "$CACHE/src"
	echo "$stamp" >"$CACHE/.stamp"
fi

# 2. The configuration, checked line by line against the fragment.
key=$( { echo "$stamp"; cat "${FRAGS[@]}" "$0"; } | sha256sum | cut -c1-12)
OUT=$CACHE/$prefix-$key
if [[ ! -f $OUT/.done ]]; then
	# Older builds of this kernel's fragments go: each is several GiB.
	find "$CACHE" -maxdepth 1 -name "$prefix-*" ! -name "$prefix-$key" -exec rm -rf {} +
	mkdir -p "$OUT"
	say "configuring $OUT (defconfig + ${FRAGS[*]##*/})"
	make -s -C "$CACHE/src" O="$OUT" defconfig >&2
	"$CACHE/src/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$OUT/.config" "${FRAGS[@]}" >/dev/null
	make -s -C "$CACHE/src" O="$OUT" olddefconfig >&2
	# What the fragments ask for, a later one's line winning.
	declare -A want=()
	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Z0-9_]+)=(.*)$ ]] && want[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done < <(cat "${FRAGS[@]}")
	lost=()
	for opt in "${!want[@]}"; do
		val=${want[$opt]}
		if [[ $val == n ]]; then
			grep -qx "$opt=y\|$opt=m" "$OUT/.config" && lost+=("$opt=n")
		else
			grep -qxF "$opt=$val" "$OUT/.config" || lost+=("$opt=$val")
		fi
	done
	(( ${#lost[@]} == 0 )) || die "Kconfig did not keep: ${lost[*]}"
	say "building with $JOBS jobs (bzImage, modules; long)"
	make -s -C "$CACHE/src" O="$OUT" -j"$JOBS" bzImage modules >&2 || die "build failed"
	touch "$OUT/.done"
fi
kver=$(cat "$OUT/include/config/kernel.release")

# 3. Installed like a kernel of this host, if not already this build.
if [[ "$(cat "/lib/modules/$kver/$marker" 2>/dev/null)" != "$key" ]]; then
	say "installing $kver"
	rm -rf "/lib/modules/$kver"
	make -s -C "$CACHE/src" O="$OUT" INSTALL_MOD_PATH=/ modules_install >&2
	ln -sfn "$OUT" "/lib/modules/$kver/build"
	install -m 0644 "$OUT/arch/x86/boot/bzImage" "/boot/vmlinuz-$kver"
	echo "$key" >"/lib/modules/$kver/$marker"
fi
say "$kver ready: /boot/vmlinuz-$kver, KDIR=/lib/modules/$kver/build"
[[ -z $print ]] || echo "$kver"
