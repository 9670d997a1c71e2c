#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Host-side check of the provider's device matching, no kernel module needed.
# Builds a fake sysfs tree (SYSFS_PATH) and, in a private mount namespace,
# a fake /dev/infiniband, then asks libibverbs which devices it lists:
#   siw2_a  fw_ver siw2-..., ABI N   -> claimed by libsiw2 (N: SIW2_ABI_VERSION)
#   other_b fw_ver 1.2.3             -> nobody
#   siw2_c  fw_ver siw2-..., ABI N-1 -> refused (an older module)
#   siw2_d  fw_ver siw2-..., ABI N+1 -> refused (a newer module)
# Needs root (unshare -m). Usage: tests/progs/match-selftest.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/userspace-provider/build/libsiw2
[[ -f $lib-rdmav34.so ]] || { echo "build the provider first" >&2; exit 2; }
abi=$(sed -n 's/^#define SIW2_ABI_VERSION \([0-9]*\)$/\1/p' "$top/include/uapi/rdma/siw2-abi.h")
[[ -n $abi ]] || { echo "no SIW2_ABI_VERSION in siw2-abi.h" >&2; exit 2; }
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
mkdir -p "$fake/class/infiniband_verbs"
echo 6 >"$fake/class/infiniband_verbs/abi_version"
# mkdev UVERBS IBDEV MINOR FW_VER ABI
mkdev() {
	local uv=$fake/class/infiniband_verbs/$1 ib=$fake/class/infiniband/$2
	mkdir -p "$uv" "$ib"
	echo "$2" >"$uv/ibdev"
	echo "231:$3" >"$uv/dev"
	echo "$5" >"$uv/abi_version"
	echo "4: RNIC" >"$ib/node_type"
	echo "$4" >"$ib/fw_ver"
	echo 0200:00ff:fe00:0001 >"$ib/node_guid"
}
mkdev uverbs0 siw2_a 192 siw2-0.1.0 "$abi"
mkdev uverbs1 other_b 193 1.2.3 1
mkdev uverbs2 siw2_c 194 siw2-0.1.0 $((abi - 1))
mkdev uverbs3 siw2_d 195 siw2-0.1.0 $((abi + 1))

out=$(unshare -m bash -c '
	mount -t tmpfs none /dev && mkdir /dev/infiniband &&
	touch /dev/infiniband/uverbs0 /dev/infiniband/uverbs1 /dev/infiniband/uverbs2 \
		/dev/infiniband/uverbs3 &&
	SYSFS_PATH=$1 RDMAV_DRIVERS=$2 IBV_SHOW_WARNINGS=1 ibv_devices 2>&1' _ "$fake" "$lib")
echo "$out"
rc=0
grep -Eq '^[[:space:]]+siw2_a[[:space:]]' <<<"$out" || { echo "FAIL: siw2_a not claimed"; rc=1; }
grep -Eq '^[[:space:]]+other_b[[:space:]]' <<<"$out" && { echo "FAIL: other_b claimed"; rc=1; }
for d in siw2_c:$((abi - 1)) siw2_d:$((abi + 1)); do
	grep -Eq "^[[:space:]]+${d%:*}[[:space:]]" <<<"$out" && { echo "FAIL: ${d%:*} (ABI ${d#*:}) claimed"; rc=1; }
	grep -q "does not support the kernel ABI of ${d#*:}" <<<"$out" || { echo "FAIL: no ABI warning for ${d%:*}"; rc=1; }
done
(( rc == 0 )) && echo "match-selftest: ok"
exit $rc
