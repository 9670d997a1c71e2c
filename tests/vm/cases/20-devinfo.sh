#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Two namespaces with one siw2 device each: libibverbs lists both through
# our provider, ibv_devinfo shows iWARP/RNIC/fw marker/active Ethernet port
# with sane limits, and without RDMAV_DRIVERS no provider claims them.
# timeout: 400
source "$SIW2_TOP/tests/vm/lib.sh"

dev_exists() { [[ -e /sys/class/infiniband/$1 ]]; }

need rdma ibv_devices ibv_devinfo ip awk
siw2_load
ns_pair sa sb 1
siw2_link_add sa siw2_a sa-v || fail "rdma link add siw2_a"
siw2_link_add sb siw2_b sb-v || fail "rdma link add siw2_b"
wait_until 10 dev_exists siw2_a || fail "siw2_a not in sysfs"
wait_until 10 dev_exists siw2_b || fail "siw2_b not in sysfs"

ibv_devices >"$SIW2_RESULTS/ibv_devices" 2>&1 || fail "ibv_devices failed"
cat "$SIW2_RESULTS/ibv_devices"
for d in siw2_a siw2_b; do
	grep -qw "$d" "$SIW2_RESULTS/ibv_devices" || fail "ibv_devices does not list $d"
done

# check_devinfo IBDEV NS NETDEV
check_devinfo() {
	local dev=$1 ns=$2 nd=$3 f=$SIW2_RESULTS/devinfo-$1 mac gid0 k v
	ibv_devinfo -v -d "$dev" >"$f" 2>&1 || { cat "$f"; fail "ibv_devinfo -d $dev"; }
	grep -Eq '^[[:space:]]*transport:[[:space:]]+iWARP \(1\)' "$f" || fail "$dev: transport not iWARP"
	grep -Eq '^[[:space:]]*fw_ver:[[:space:]]+siw2-' "$f" || fail "$dev: fw_ver lacks siw2- marker"
	grep -Eq '^[[:space:]]*phys_port_cnt:[[:space:]]+1$' "$f" || fail "$dev: phys_port_cnt not 1"
	grep -Eq '^[[:space:]]*state:[[:space:]]+PORT_ACTIVE' "$f" || fail "$dev: port not PORT_ACTIVE"
	grep -Eq '^[[:space:]]*link_layer:[[:space:]]+Ethernet' "$f" || fail "$dev: link layer not Ethernet"
	grep -q '^4: RNIC' "/sys/class/infiniband/$dev/node_type" ||
		fail "$dev: node_type is '$(cat "/sys/class/infiniband/$dev/node_type")'"
	for k in max_qp max_cq max_mr max_pd max_srq max_qp_wr max_sge max_cqe max_srq_wr max_srq_sge; do
		v=$(awk -v k="$k:" '$1 == k { print $2; exit }' "$f")
		[[ $v =~ ^[0-9]+$ ]] && (( v > 0 )) || fail "$dev: $k is '$v'"
	done
	# GID[0] is the netdev MAC followed by zeros.
	mac=$(ip netns exec "$ns" cat "/sys/class/net/$nd/address") || fail "no MAC for $nd"
	mac=${mac//:/}
	gid0=$(cat "/sys/class/infiniband/$dev/ports/1/gids/0") || fail "$dev: no gids/0"
	gid0=${gid0//:/}
	[[ ${gid0:0:12} == "$mac" && ${gid0:12:20} =~ ^0+$ ]] ||
		fail "$dev: GID[0] '$gid0' is not MAC $mac padded with zeros"
	log "$dev ok: $(grep -E 'fw_ver|transport' "$f" | tr -s '\t ' ' ')"
}
check_devinfo siw2_a sa sa-v
check_devinfo siw2_b sb sb-v

# Without our provider libibverbs has nothing that claims the devices: the
# match comes from libsiw2, not from a table in some other provider.
hidden=
if [[ -e /etc/libibverbs.d/siw2.driver ]]; then
	# The guest root is an overlay: this does not touch the host.
	mv /etc/libibverbs.d/siw2.driver /etc/libibverbs.d/siw2.driver.hidden || fail "cannot hide installed siw2.driver"
	hidden=1
fi
env -u RDMAV_DRIVERS IBV_SHOW_WARNINGS=1 ibv_devices >"$SIW2_RESULTS/no-provider" 2>&1
[[ -n $hidden ]] && mv /etc/libibverbs.d/siw2.driver.hidden /etc/libibverbs.d/siw2.driver
cat "$SIW2_RESULTS/no-provider"
for d in siw2_a siw2_b; do
	grep -q "no userspace device-specific driver found for $d" "$SIW2_RESULTS/no-provider" ||
		fail "without RDMAV_DRIVERS libibverbs did not warn about $d"
	grep -Eq "^[[:space:]]+$d[[:space:]]" "$SIW2_RESULTS/no-provider" &&
		fail "without RDMAV_DRIVERS $d is still listed"
done

siw2_link_del siw2_a || fail "rdma link delete siw2_a"
siw2_link_del siw2_b || fail "rdma link delete siw2_b"
wait_until 10 eval '! dev_exists siw2_a && ! dev_exists siw2_b' || fail "devices still present"
siw2_assert_zero_counts
siw2_unload
log "devinfo ok"
