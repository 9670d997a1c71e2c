# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of tools/demo.sh: load siw2, join two network namespaces with a
# veth pair, put a siw2 device on each end and show what RDMA tools see.
source "$SIW2_TOP/tests/vm/lib.sh"

show() {		# show CMD...: print the command, then run it
	echo
	echo "### $*"
	"$@" 2>&1
}

log "loading siw2 ($SIW2_KO)"
siw2_load
log "namespaces siwa <-> siwb over veth siwa-v/siwb-v (198.18.0.1 <-> 198.18.0.2)"
ns_pair siwa siwb 0
siw2_link_add siwa siw2_a siwa-v || fail "rdma link add siw2_a"
siw2_link_add siwb siw2_b siwb-v || fail "rdma link add siw2_b"

show ip -n siwa -br addr show siwa-v
show ip -n siwb -br addr show siwb-v
command -v ping >/dev/null && show ip netns exec siwa ping -c1 -W2 198.18.0.2
# Each namespace sees its own netdev name; the initial one sees none.
show rdma link show
show ip netns exec siwa rdma link show
show ip netns exec siwb rdma link show
show rdma dev show
show ibv_devices
show ibv_devinfo -v
[[ -r /sys/kernel/debug/siw2/objects ]] && show cat /sys/kernel/debug/siw2/objects

echo
log "cleaning up"
siw2_link_del siw2_a
siw2_link_del siw2_b
siw2_unload
log "demo done"
