#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# NVMe over Fabrics on siw2: the kernel's target (nvmet-rdma) and host
# (nvme-rdma), both in the initial namespace (both use init_net), over a
# siw2 device on lo, 127.0.0.1 port 4420.  The target's subsystem has a
# block-backed namespace (a 64 MiB brd RAM disk) and a file-backed one
# (64 MiB on tmpfs).  For each: "nvme connect -t rdma", fio random
# writes of 4 KiB at queue depth 16 with crc32c verification, then the
# whole device read back and its sha256 compared with the backing store
# read on the target side; "nvme disconnect".  nvme-tcp on the same
# address runs the same I/O, to show the transport alone differs.  Then
# over rdma again: the target's port removed during verified I/O,
# nvmet-rdma unloaded and loaded, the port re-created; the host must be
# live again within 60 s and fio must finish without an error, the device
# equal to its backing store.
# Then the device goes, object counts are zero and the module unloads.
# timeout: 900
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip nvme fio sha256sum
R=$SIW2_RESULTS
CFS=/sys/kernel/config/nvmet
NQN=nqn.2026-11.org.siw2:test91

siw2_load
for m in nvmet nvmet-rdma nvmet-tcp nvme-rdma nvme-tcp; do
	modprobe "$m" || fail "modprobe $m"
done
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || fail "configfs"
modprobe brd rd_nr=1 rd_size=65536 || fail "modprobe brd"
mkdir -p /tmp/nvme91 && mount -t tmpfs -o size=208m nvme91 /tmp/nvme91 || fail "tmpfs"
truncate -s 64M /tmp/nvme91/ns2.img || fail "ns2.img"

ip link set lo up
siw2_link_add - s2lo lo || fail "rdma link add s2lo on lo"
wait_port_active s2lo || fail "s2lo not ACTIVE"

# The target: one subsystem, namespaces 1 (brd) and 2 (file), ports rdma
# and tcp.
sub=$CFS/subsystems/$NQN
mkdir "$sub" || fail "nvmet subsystem"
echo 1 >"$sub/attr_allow_any_host"
ns_add() {	# ns_add NSID PATH
	mkdir "$sub/namespaces/$1" || fail "namespace $1"
	echo -n "$2" >"$sub/namespaces/$1/device_path"
	echo 1 >"$sub/namespaces/$1/enable" || fail "enable namespace $1 ($2)"
}
ns_add 1 /dev/ram0
ns_add 2 /tmp/nvme91/ns2.img
port_add() {	# port_add ID TRTYPE
	mkdir "$CFS/ports/$1" || fail "nvmet port $1"
	echo "$2" >"$CFS/ports/$1/addr_trtype"
	echo ipv4 >"$CFS/ports/$1/addr_adrfam"
	echo 127.0.0.1 >"$CFS/ports/$1/addr_traddr"
	echo "$3" >"$CFS/ports/$1/addr_trsvcid"
	ln -s "$sub" "$CFS/ports/$1/subsystems/$NQN" || fail "link the subsystem to port $1 ($2)"
}
port_add 1 rdma 4420
port_add 2 tcp 4421

cleanup() {
	nvme disconnect -n "$NQN" >/dev/null 2>&1
	rm -f "$CFS"/ports/*/subsystems/"$NQN"
	rmdir "$CFS"/ports/* "$sub"/namespaces/* "$sub" 2>/dev/null
}
trap cleanup EXIT

# ns_devs: the namespace devices of NQN's controller, "nvmeXnY" per line.
ns_devs() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[[ $(cat "$c/subsysnqn" 2>/dev/null) == "$NQN" ]] || continue
		ls "$c" | grep -E '^nvme[0-9]+(c[0-9]+)?n[0-9]+$'
	done | sort
}

# io TRANSPORT PORT: connect, verified I/O on both namespaces, compare
# with the backing stores, disconnect.
io() {
	local t=$1 p=$2 devs d n=0 src sflag want got
	nvme connect -t "$t" -a 127.0.0.1 -s "$p" -n "$NQN" >"$R/connect-$t" 2>&1 ||
		{ cat "$R/connect-$t"; fail "nvme connect -t $t"; }
	wait_until 20 eval '[[ $(ns_devs | wc -l) -ge 2 ]]' || { ns_devs; fail "$t: namespaces did not appear"; }
	[[ $t != rdma ]] || rdma resource show qp | grep -q 'link s2lo/.* state RTS' ||
		fail "rdma: no RTS QP on s2lo while connected"
	devs=$(ns_devs)
	for d in $devs; do
		n=$((n + 1))
		fio --name="$t-$d" --filename="/dev/${d/c[0-9]*n/n}" --rw=randwrite --bs=4k --iodepth=16 \
			--ioengine=libaio --direct=1 --size=32M --verify=crc32c --do_verify=1 \
			--randrepeat=0 --output="$R/fio-$t-$d" >/dev/null 2>&1 ||
			{ cat "$R/fio-$t-$d"; fail "$t: fio verify on $d"; }
		grep -q 'err= 0' "$R/fio-$t-$d" || { cat "$R/fio-$t-$d"; fail "$t: fio reported errors on $d"; }
		log "$t $d: $(grep -m1 -o 'IOPS=[^,]*' "$R/fio-$t-$d") write, crc32c verified"
	done
	# Everything the host sees equals the backing stores.
	sync
	for d in $devs; do
		case $(cat "/sys/block/${d/c[0-9]*n/n}/nsid" 2>/dev/null) in
		1) src=/dev/ram0 sflag=direct ;;	# nvmet's bios bypass its page cache
		2) src=/tmp/nvme91/ns2.img sflag=fullblock ;;
		*) fail "$t: which namespace is $d?" ;;
		esac
		got=$(dd if="/dev/${d/c[0-9]*n/n}" bs=1M iflag=direct status=none | sha256sum)
		want=$(dd if="$src" bs=1M iflag="$sflag" status=none | sha256sum)
		[[ $got == "$want" ]] || fail "$t: $d read over the fabric differs from $src"
	done
	nvme disconnect -n "$NQN" >"$R/disconnect-$t" 2>&1 || { cat "$R/disconnect-$t"; fail "nvme disconnect ($t)"; }
	wait_until 20 eval '[[ -z $(ns_devs) ]]' || fail "$t: namespaces left after disconnect"
	log "$t: $n namespaces verified against their backing stores"
}
io rdma 4420
io tcp 4421

# The target's port removed during verified I/O, nvmet-rdma unloaded and
# loaded again, the port re-created: the host reconnects (every second, for
# 60 s at most) and no I/O is lost or corrupted.
nvme connect -t rdma -a 127.0.0.1 -s 4420 -n "$NQN" --reconnect-delay=1 --ctrl-loss-tmo=60 \
	>"$R/connect-restart" 2>&1 || { cat "$R/connect-restart"; fail "nvme connect for the restart"; }
wait_until 20 eval '[[ $(ns_devs | wc -l) -ge 2 ]]' || fail "restart: namespaces did not appear"
ctrl=$(for c in /sys/class/nvme/nvme*; do [[ $(cat "$c/subsysnqn") == "$NQN" ]] && basename "$c"; done)
# The head's name says nothing of the namespace (heads are numbered as the
# scan finds them): namespace 1, the brd one, by its nsid.
dev=
for d in $(ns_devs); do
	d=${d/c[0-9]*n/n}
	[[ $(cat "/sys/block/$d/nsid") == 1 ]] && dev=/dev/$d
done
[[ -n $dev ]] || fail "restart: no device of namespace 1"
fio --name=restart --filename="$dev" --rw=randwrite --bs=4k --iodepth=16 --ioengine=libaio \
	--direct=1 --size=48M --time_based --runtime=25 --verify=crc32c --verify_backlog=256 \
	--randrepeat=0 --output="$R/fio-restart" >/dev/null 2>&1 &
fpid=$!
sleep 5
rm "$CFS/ports/1/subsystems/$NQN" && rmdir "$CFS/ports/1" || fail "removing the target's rdma port"
wait_until 20 eval '[[ $(cat /sys/class/nvme/$ctrl/state) != live ]]' ||
	fail "restart: $ctrl still live after its port went"
log "port removed during I/O: $ctrl $(cat "/sys/class/nvme/$ctrl/state")"
modprobe -r nvmet-rdma || fail "modprobe -r nvmet-rdma during I/O"
sleep 2
modprobe nvmet-rdma || fail "modprobe nvmet-rdma"
mkdir "$CFS/ports/1" || fail "re-creating port 1"
echo rdma >"$CFS/ports/1/addr_trtype"
echo ipv4 >"$CFS/ports/1/addr_adrfam"
echo 127.0.0.1 >"$CFS/ports/1/addr_traddr"
echo 4420 >"$CFS/ports/1/addr_trsvcid"
ln -s "$sub" "$CFS/ports/1/subsystems/$NQN" || fail "re-linking the subsystem"
wait_until 60 eval '[[ $(cat /sys/class/nvme/$ctrl/state) == live ]]' ||
	fail "restart: $ctrl $(cat "/sys/class/nvme/$ctrl/state") 60 s after the port came back"
log "port back: $ctrl live again"
wait "$fpid" || { cat "$R/fio-restart"; fail "restart: fio failed across the target's restart"; }
grep -q 'err= 0' "$R/fio-restart" || { cat "$R/fio-restart"; fail "restart: fio reported errors"; }
sync
dd if="$dev" of=/tmp/nvme91/host.img bs=1M iflag=direct status=none || fail "restart: reading $dev"
dd if=/dev/ram0 of=/tmp/nvme91/target.img bs=1M iflag=direct status=none || fail "restart: reading /dev/ram0"
if ! cmp -s /tmp/nvme91/host.img /tmp/nvme91/target.img; then
	cmp -l /tmp/nvme91/host.img /tmp/nvme91/target.img | awk '{ b = int(($1 - 1) / 4096); if (!(b in s)) { s[b] = 1; n++; if (n <= 10) print "  4 KiB block", b, "differs" } } END { print "  " n " blocks differ" }'
	fail "restart: $dev differs from /dev/ram0 after the target's restart"
fi
rm -f /tmp/nvme91/host.img /tmp/nvme91/target.img
nvme disconnect -n "$NQN" >/dev/null 2>&1 || fail "nvme disconnect after the restart"
log "target restart during I/O: $(grep -m1 -o 'IOPS=[^,]*' "$R/fio-restart"), crc32c verified, device equal to its backing store"

cleanup
trap - EXIT
# nvme-rdma's CQs come from the core's per-device pool (ib_cq_pool_get),
# which keeps them until the device goes: only QPs and cm_ids must be gone.
wait_until 20 eval '! rdma resource show qp | grep -q "link s2lo/" && ! rdma resource show cm_id | grep -q "link s2lo/"' ||
	{ rdma resource show; fail "QPs or cm_ids left on s2lo after disconnect and port removal"; }
siw2_link_del s2lo || fail "rdma link delete s2lo"
siw2_assert_zero_counts
siw2_unload
log "NVMe over Fabrics (nvmet-rdma, nvme-rdma) over siw2 on lo: passed"
