#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The Debian packages, as a user installs them: "apt-get install" of
# build/debs/siw2-dkms_*.deb and libsiw2_*.deb (tools/build-debs.sh, the
# host stage "debs", builds them) with nothing of the build tree in use.
# DKMS builds siw2 for the running kernel in the package's postinst; the
# guest is a machine with that one kernel (the other kernels' build links
# are hidden in its overlay, or DKMS would build for the newest too).
# Checked: dpkg knows both packages; siw2.ko is DKMS's, in
# updates/dkms, with the packaged version; the provider in libibverbs'
# directory is the package's file (and RDMAV_DRIVERS is unset); then the demo (demo-guest.sh:
# rping with verification, ib_write_bw -R, ib_send_lat -R, iperf3) runs on
# them (SIW2_FROM_PACKAGES=1: modprobe, no copy of the tree's module);
# purging both packages removes the module and the provider.
# timeout: 1800
source "$SIW2_TOP/tests/vm/lib.sh"

need apt-get dpkg dkms modinfo
DEBS=$SIW2_TOP/build/debs
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$SIW2_TOP/dkms.conf")
shopt -s nullglob
dkms_deb=("$DEBS"/siw2-dkms_"$ver"_all.deb)
lib_deb=("$DEBS"/libsiw2_"$ver"_*.deb)
shopt -u nullglob
(( ${#dkms_deb[@]} == 1 && ${#lib_deb[@]} == 1 )) ||
	fail "no packages of $ver in $DEBS (tools/build-debs.sh)"
kver=$(uname -r)
for d in /lib/modules/*; do
	[[ ${d##*/} == "$kver" ]] || rm -f "$d/build" "$d/source"
done
[[ -e /lib/modules/$kver/build/Makefile ]] || fail "no headers for $kver"

# DKMS compiles the module in the guest: 770 s under TCG on a quiet
# 2-core host (30 s natively); the budget leaves room for a loaded one.
t0=$(cut -d' ' -f1 /proc/uptime)
log "apt-get install ${dkms_deb[0]##*/} ${lib_deb[0]##*/} (DKMS builds for $kver)"
env DEBIAN_FRONTEND=noninteractive timeout $((1500 * ${SIW2_TIMEOUT_SCALE:-1})) \
	apt-get install -y -q --no-install-recommends \
	"${dkms_deb[0]}" "${lib_deb[0]}" >"$SIW2_RESULTS/apt.log" 2>&1 ||
	{ tail -n 40 "$SIW2_RESULTS/apt.log"; fail "apt-get install of the packages failed"; }
log "installed in $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.0f", b - a }') s"
for p in siw2-dkms libsiw2; do
	[[ $(dpkg-query -W -f='${Status} ${Version}' "$p") == "install ok installed $ver" ]] ||
		fail "$p is not installed at $ver: $(dpkg-query -W -f='${Status} ${Version}' "$p")"
done
dkms status siw2 | sed 's/^/  /'
dkms status siw2 | grep -q "siw2/$ver, $kver, .*: installed" || fail "DKMS did not install siw2 for $kver"
ko=$(modinfo -n siw2) || fail "modinfo siw2"
[[ $ko == /lib/modules/$kver/updates/dkms/siw2.ko* ]] || fail "modprobe would load $ko, not DKMS's"
[[ $(modinfo -F version siw2) == "$ver" ]] || fail "siw2.ko version $(modinfo -F version siw2), want $ver"
prov=$(dpkg -L libsiw2 | grep '/libsiw2-rdmav34\.so$')
[[ -n $prov ]] || fail "libsiw2 ships no provider"
# The one siw2 provider there is (a make install's copy was replaced).
[[ $(dpkg -S "$prov" | cut -d: -f1) == libsiw2 ]] || fail "$prov does not belong to libsiw2"
grep -qx 'driver siw2' /etc/libibverbs.d/siw2.driver || fail "no /etc/libibverbs.d/siw2.driver"
log "module $ko, provider $prov"

# The demo on what the packages installed.
unset RDMAV_DRIVERS
export SIW2_FROM_PACKAGES=1
bash "$SIW2_TOP/tests/vm/demo-guest.sh" || fail "the demo failed on the packages"
sed 's/^/  /' "$SIW2_RESULTS/summary"

# Purge: the module and the provider go.
! siw2_loaded || modprobe -r siw2 || fail "modprobe -r siw2"
env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q siw2-dkms libsiw2 >>"$SIW2_RESULTS/apt.log" 2>&1 ||
	{ tail -n 20 "$SIW2_RESULTS/apt.log"; fail "apt-get purge failed"; }
! ls /lib/modules/"$kver"/updates/dkms/siw2.ko* >/dev/null 2>&1 || fail "siw2.ko left after purge"
[[ ! -e $prov && ! -e /etc/libibverbs.d/siw2.driver ]] || fail "provider left after purge"
log "packages ok: installed, demo passed, purged"
