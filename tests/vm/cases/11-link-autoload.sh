# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# With siw2 only installed (not loaded), "rdma link add ... type siw2"
# autoloads it through the rdma-link-siw2 alias.  Deleting the netdev
# removes the ib device, also when the netdev goes away with its network
# namespace; counts drop to zero and rmmod succeeds.
# timeout: 240
source "$SIW2_TOP/tests/vm/lib.sh"
need rdma ip modprobe depmod rmmod

gone() { ! siw2_dev_exists "$1"; }

siw2_install_only
siw2_loaded && fail "siw2 loaded before the test"
ns_dummy - al0

log "autoload via rdma link add"
siw2_link_add - siw2_x al0 || fail "rdma link add siw2_x (autoload)"
siw2_loaded || fail "siw2 not loaded after rdma link add"
siw2_dev_exists siw2_x || fail "siw2_x not in /sys/class/infiniband"
rdma link show | grep -q '^link siw2_x/1 .*netdev al0' || fail "siw2_x not in rdma link show: $(rdma link show)"
[[ $(siw2_count devices) == 1 ]] || fail "devices $(siw2_count devices), want 1"

log "deleting the netdev removes the device"
ip link del al0 || fail "ip link del al0"
wait_until 10 gone siw2_x || fail "siw2_x still present after its netdev was deleted"
rdma link show | grep -q 'siw2_x/' && fail "siw2_x still in rdma link show"
[[ $(siw2_count devices) == 0 ]] || fail "devices $(siw2_count devices) after netdev deletion"

log "deleting a namespace removes the device on its netdev"
ns_dummy alns al1
siw2_link_add alns siw2_y al1 || fail "rdma link add siw2_y in namespace alns"
siw2_dev_exists siw2_y || fail "siw2_y not in /sys/class/infiniband"
ip netns del alns || fail "ip netns del alns"
# Namespace teardown runs from a workqueue: give it time.
wait_until 30 gone siw2_y || fail "siw2_y still present after its namespace was deleted"

siw2_assert_zero_counts
rmmod siw2 || fail "rmmod siw2"
siw2_loaded && fail "siw2 still loaded after rmmod"
log "ok"
