#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# siw2 on every kind of netdev Linux siw accepts, each part ending with
# "rdma link delete", zero object counts and the module unloaded:
#  - lo, one host (the initial namespace): the device's GID is generated
#    (02:SS:NN:NN:NN:NN, SS drawn when the module loads, NN the device's
#    instance number: siw2_main.c), and the same after traffic and after
#    lo went down and up; rping -V (20 rounds of 1000 octets, the data
#    checked), ib_write_bw -R and ib_send_lat -R with perftest's defaults,
#    and NFSv4.2 over RDMA on 127.0.0.1 (8 MiB written, read back after
#    a remount, sha256 compared);
#  - WireGuard (ARPHRD_NONE) between two namespaces over veth: both GIDs
#    generated and distinct; rping -V and ib_write_bw -R (200 Writes of
#    64 KiB: WireGuard encrypts in software, slowly under TCG) through it;
#  - a tun device (ARPHRD_NONE, no reader): accepted, GID generated;
#  - VLAN 100 over veth: rping -V and ib_write_bw -R;
#  - macvlan (bridge mode) over veth, and a bond (active-backup) over
#    veth, each against a plain veth: rping -V.
# Linux before 6.5 refuses lo and tunnels (case 10); this case runs on the
# 6.12 kernels only.
# timeout: 900
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-nfs.sh"

need rdma ip rping ib_write_bw ib_send_lat wg stdbuf sha256sum exportfs rpc.mountd nfsdcld
R=$SIW2_RESULTS
gid0() { cat "/sys/class/infiniband/$1/ports/1/gids/0"; }
# gid_generated DEV: GID[0] of DEV is a generated one (02:..).
gid_generated() { [[ $(gid0 "$1") =~ ^02[0-9a-f]{2}:[0-9a-f]{4}:[0-9a-f]{4}:0000:0000:0000:0000:0000$ ]]; }

# rping_pair NAME SNS CNS ADDR PORT: 20 rounds of 1000 octets, both sides'
# data checked.
rping_pair() {
	local m
	srv_cli "$1" "$2" "$3" "$5" rping -s -a "$4" -p "$5" -S 1000 -v -V -- \
		rping -c -a "$4" -p "$5" -S 1000 -C 20 -v -V || fail "$1: rping failed"
	m=$(rping_check_data "$R/$1.c" 'ping data: ' 1000 20) || fail "$1: rping client data: $m"
	m=$(rping_check_data "$R/$1.s" 'server ping data: ' 1000 20) || fail "$1: rping server data: $m"
	log "$1: rping 20 x 1000 octets, data checked"
}

# part_end DEV...: delete the devices once nothing holds them, then zero
# objects, unload and load again.
part_end() {
	dp_devices_gone "$@"
	siw2_assert_zero_counts
	siw2_unload
	siw2_load
}

siw2_load

# ---------------------------------------------------------------- lo
ip link set lo up
siw2_link_add - s2lo lo || fail "rdma link add s2lo on lo"
wait_port_active s2lo || fail "s2lo port not ACTIVE"
g=$(gid0 s2lo)
gid_generated s2lo || fail "s2lo GID $g is not a generated one"
log "s2lo on lo: GID $g"
rping_pair lo-rping - - 127.0.0.1 7101
perftest_pair lo-write_bw - - s2lo s2lo 127.0.0.1 7102 ib_write_bw || fail "lo: ib_write_bw -R with defaults"
perftest_pair lo-send_lat - - s2lo s2lo 127.0.0.1 7103 ib_send_lat || fail "lo: ib_send_lat -R with defaults"
log "lo: ib_write_bw $(perftest_result lo-write_bw bw); ib_send_lat $(perftest_result lo-send_lat lat)"

# NFSv4.2 over RDMA, server and client on lo.
NFS_NS=-
for m in sunrpc nfsd rpcrdma nfs nfsv4; do
	modprobe "$m" || fail "modprobe $m"
done
EXP=/srv/nfs87 MNT=/mnt/nfs87
mkdir -p "$EXP" "$MNT" || fail "mkdir"
mount -t tmpfs -o size=64m nfs87 "$EXP" || fail "tmpfs on $EXP"
cleanup() {
	mountpoint -q "$MNT" && { timeout 30 umount -f "$MNT" || umount -l "$MNT"; } 2>/dev/null
	nfsd_stop 2>/dev/null
	mountd_stop
	nfsdcld_stop
}
trap cleanup EXIT
srv "exportfs -o rw,fsid=0,no_root_squash,insecure,no_subtree_check,sync 127.0.0.1:$EXP" || fail "exportfs"
mountd_start -N 3
nfsdcld_start
nfsd_start "-3 +4 +4.1 +4.2"
wait_until 30 grace_over || log "nfsd still in its grace period"
nfs_mount() {
	timeout -k 5 90 mount -t nfs -o rdma,port=20049,vers=4.2 127.0.0.1:/ "$MNT" >"$R/mount.out" 2>&1 ||
		{ cat "$R/mount.out"; fail "mount -o rdma 127.0.0.1:/ over lo failed"; }
	x=$(nfs_xprt) || fail "no xprt line for $MNT"
	[[ $x == *"xprt:"*rdma* ]] || fail "NFS transport is not RDMA: $x"
}
nfs_mount
head -c 8M /dev/urandom >/tmp/nfs87.src || fail "source file"
want=$(sha256sum </tmp/nfs87.src)
dd if=/tmp/nfs87.src of="$MNT/f" bs=1M conv=fsync status=none || fail "write through the NFS mount"
timeout -k 5 60 umount "$MNT" || fail "umount $MNT"
nfs_mount
got=$(sha256sum <"$MNT/f") || fail "read through the NFS mount"
[[ $got == "$want" ]] || fail "NFS over lo: read back $got, wrote $want"
[[ $(sha256sum <"$EXP/f") == "$want" ]] || fail "NFS over lo: the exported file differs"
rdma resource show qp | grep -q 'link s2lo/.* state RTS' || fail "no RTS QP on s2lo during the NFS mount"
timeout -k 5 60 umount "$MNT" || fail "umount $MNT"
log "lo: NFSv4.2 over RDMA on 127.0.0.1, 8 MiB written and read back"
nfsd_stop
mountd_stop
nfsdcld_stop
trap - EXIT
umount "$EXP"

ip link set lo down
ip link set lo up
[[ $(gid0 s2lo) == "$g" ]] || fail "s2lo GID changed from $g to $(gid0 s2lo) (traffic, lo down/up)"
wait_port_active s2lo || fail "s2lo port not ACTIVE after lo up"
part_end s2lo

# ---------------------------------------------------------------- WireGuard
ns_pair wa wb 87
ka=$(wg genkey) kb=$(wg genkey)
pa=$(wg pubkey <<<"$ka") pb=$(wg pubkey <<<"$kb")
wg_up() {	# wg_up NS KEY PEERKEY PEERIP LOCAL ADDR
	ip -n "$1" link add wg0 type wireguard || fail "wireguard in $1"
	ip netns exec "$1" wg set wg0 listen-port 51820 private-key <(echo "$2") \
		peer "$3" endpoint "$4:51820" allowed-ips "$5/32" || fail "wg set in $1"
	ip -n "$1" addr add "$6/24" dev wg0 || fail "addr on wg0 in $1"
	ip -n "$1" link set wg0 up || fail "wg0 up in $1"
}
wg_up wa "$ka" "$pb" 198.18.87.2 10.87.0.2 10.87.0.1
wg_up wb "$kb" "$pa" 198.18.87.1 10.87.0.1 10.87.0.2
siw2_link_add wa s2wa wg0 || fail "rdma link add s2wa on wg0"
siw2_link_add wb s2wb wg0 || fail "rdma link add s2wb on wg0"
for d in s2wa s2wb; do
	wait_port_active "$d" || fail "$d port not ACTIVE"
	gid_generated "$d" || fail "$d GID $(gid0 "$d") is not a generated one"
done
[[ $(gid0 s2wa) != "$(gid0 s2wb)" ]] || fail "s2wa and s2wb share GID $(gid0 s2wa)"
log "WireGuard: s2wa GID $(gid0 s2wa), s2wb GID $(gid0 s2wb)"
rping_pair wg-rping wa wb 10.87.0.1 7201
# WireGuard encrypts in software: 200 Writes of 64 KiB, not the default 5000.
perftest_pair wg-write_bw wa wb s2wa s2wb 10.87.0.1 7202 ib_write_bw -n 200 || fail "WireGuard: ib_write_bw -R -n 200"
log "WireGuard: ib_write_bw $(perftest_result wg-write_bw bw)"
part_end s2wa s2wb

# ---------------------------------------------------------------- tun
modprobe tun || fail "modprobe tun"
ip tuntap add mode tun name tn87 || fail "ip tuntap add tn87"
siw2_link_add - s2tn tn87 || fail "rdma link add s2tn on a tun device"
gid_generated s2tn || fail "s2tn GID $(gid0 s2tn) is not a generated one"
log "tun: s2tn GID $(gid0 s2tn)"
part_end s2tn
ip tuntap del mode tun name tn87

# ---------------------------------------------------------------- VLAN
ip -n wa link add link wa-v name wa-v.100 type vlan id 100 || fail "vlan in wa"
ip -n wb link add link wb-v name wb-v.100 type vlan id 100 || fail "vlan in wb"
ip -n wa addr add 10.88.0.1/24 dev wa-v.100 && ip -n wa link set wa-v.100 up || fail "wa-v.100 up"
ip -n wb addr add 10.88.0.2/24 dev wb-v.100 && ip -n wb link set wb-v.100 up || fail "wb-v.100 up"
siw2_link_add wa s2va wa-v.100 || fail "rdma link add on wa-v.100"
siw2_link_add wb s2vb wb-v.100 || fail "rdma link add on wb-v.100"
wait_port_active s2va && wait_port_active s2vb || fail "VLAN ports not ACTIVE"
rping_pair vlan-rping wa wb 10.88.0.1 7301
perftest_pair vlan-write_bw wa wb s2va s2vb 10.88.0.1 7302 ib_write_bw || fail "VLAN: ib_write_bw -R"
part_end s2va s2vb

# ---------------------------------------------------------------- macvlan, bond
ns_pair ma mb 89
ip -n ma link add mv0 link ma-v type macvlan mode bridge || fail "macvlan in ma"
ip -n ma addr add 198.18.89.11/24 dev mv0 && ip -n ma link set mv0 up || fail "mv0 up"
siw2_link_add ma s2mv mv0 || fail "rdma link add on macvlan"
siw2_link_add mb s2mb mb-v || fail "rdma link add on mb-v"
wait_port_active s2mv && wait_port_active s2mb || fail "macvlan ports not ACTIVE"
rping_pair macvlan-rping ma mb 198.18.89.11 7401
part_end s2mv s2mb

ns_pair ba bb 90
ip -n ba link add bond0 type bond mode active-backup || fail "bond in ba"
ip -n ba link set ba-v down
ip -n ba link set ba-v master bond0 || fail "ba-v into bond0"
ip -n ba addr flush dev ba-v
ip -n ba addr add 198.18.90.1/24 dev bond0 && ip -n ba link set bond0 up || fail "bond0 up"
wait_until 10 eval "ip -n ba link show bond0 | grep -q LOWER_UP" || fail "no carrier on bond0"
siw2_link_add ba s2bo bond0 || fail "rdma link add on bond0"
siw2_link_add bb s2bb bb-v || fail "rdma link add on bb-v"
wait_port_active s2bo && wait_port_active s2bb || fail "bond ports not ACTIVE"
rping_pair bond-rping ba bb 198.18.90.1 7501
part_end s2bo s2bb

siw2_assert_zero_counts
siw2_unload
log "lo, WireGuard, tun, VLAN, macvlan and bond: all passed"
