#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# NVMe over Fabrics on siw2, I/O and target restarts: the kernel's target
# (nvmet-rdma) and host (nvme-rdma), both in the initial namespace (both
# use init_net), over a siw2 device on lo, 127.0.0.1 port 4420; nvme-tcp on
# port 4421 runs the same scenarios, to show what the transport alone
# changes.  The subsystem has a block-backed namespace (a 64 MiB brd RAM
# disk) and a file-backed one (64 MiB on tmpfs).
#  - I/O: "nvme connect", fio random 4 KiB writes at queue depth 16 with
#    crc32c verification on each namespace, the whole device read back
#    and its sha256 compared with the backing store read on the target
#    side, "nvme disconnect".
#  - Target restart: during verified I/O the target's port is removed,
#    its transport module (nvmet-rdma, nvmet-tcp) unloaded and loaded
#    again and the port re-created; the host must be live again within
#    60 s, fio must finish without an error and the device equal its
#    backing store.
# Keep-alive, multipath and authentication: case 92.  SIW2_NVME_DRV=siw
# runs it all on Linux siw (lib-nvme.sh).
# Then the device goes, object counts are zero and the module unloads.
# timeout: 900
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-nvme.sh"

need rdma ip nvme fio sha256sum tc
R=$SIW2_RESULTS
NQN=nqn.2026-11.org.siw2:test91
NVME_TMP=/tmp/nvme91
DEV=${NVME_DRV}_lo

nvme_modules
modprobe brd rd_nr=1 rd_size=65536 || fail "modprobe brd"
mkdir -p $NVME_TMP && mount -t tmpfs -o size=208m nvme91 $NVME_TMP || fail "tmpfs"
truncate -s 64M $NVME_TMP/ns2.img || fail "ns2.img"

ip link set lo up
nvme_rdma_dev "$DEV" lo

trap nvmet_clear EXIT
nvmet_subsys "$NQN"
nvmet_ns "$NQN" 1 /dev/ram0
nvmet_ns "$NQN" 2 $NVME_TMP/ns2.img
nvmet_port 1 rdma 127.0.0.1 4420 "$NQN"
nvmet_port 2 tcp 127.0.0.1 4421 "$NQN"

# io TRANSPORT SVCID: connect, verified I/O on both namespaces, compare
# with the backing stores, disconnect.
io() {
	local t=$1 s=$2 d h n=0
	nvme_conn "$t" 127.0.0.1 "$s" "$NQN"
	nvme_wait_ns "$t" "-ge 2"
	[[ $t != rdma ]] || rdma resource show qp | grep -q "link $DEV/.* state RTS" ||
		fail "rdma: no RTS QP on $DEV while connected"
	for d in $(nvme_ns_devs "$NQN"); do
		h=${d/c[0-9]*n/n}
		n=$((n + 1))
		nvme_fio "$t-$h" "/dev/$h" --size=16M --do_verify=1
		log "$t $h: $(grep -m1 -o 'write: IOPS=[^,]*' "$R/fio-$t-$h"), crc32c verified"
		# Everything the host sees equals the backing store.
		case $(cat "/sys/block/$h/nsid") in
		1) nvme_same "$t" "/dev/$h" /dev/ram0 direct ;;	# nvmet's bios bypass its page cache
		2) nvme_same "$t" "/dev/$h" $NVME_TMP/ns2.img fullblock ;;
		*) fail "$t: which namespace is $h?" ;;
		esac
	done
	nvme disconnect -n "$NQN" >"$R/disconnect-$t" 2>&1 || { cat "$R/disconnect-$t"; fail "nvme disconnect ($t)"; }
	wait_until 20 eval '[[ -z $(nvme_ns_devs $NQN) ]]' || fail "$t: namespaces left after disconnect"
	log "$t: $n namespaces verified against their backing stores"
}

# restart TRANSPORT PORT SVCID: the target's port removed during verified
# I/O, its transport module unloaded and loaded again, the port
# re-created: the host reconnects (every second, for 60 s at most) and no
# I/O is lost or corrupted.
restart() {
	local t=$1 p=$2 s=$3 ctrl dev
	nvme_conn "$t" 127.0.0.1 "$s" "$NQN" --reconnect-delay=1 --ctrl-loss-tmo=60
	nvme_wait_ns "restart ($t)" "-ge 2"
	ctrl=$(nvme_ctrl "$NQN") dev=$NVME_DEV
	nvme_fio_bg "restart-$t" "$dev" 25
	sleep 5
	nvmet_port_del "$p"
	wait_until 20 eval '[[ $(nvme_ctrl_state $ctrl) != live ]]' ||
		fail "restart ($t): $ctrl still live 20 s after its port went"
	log "restart ($t): port removed during I/O, $ctrl $(nvme_ctrl_state "$ctrl")"
	modprobe -r "nvmet-$t" || fail "restart ($t): modprobe -r nvmet-$t during I/O"
	sleep 2
	modprobe "nvmet-$t" || fail "restart ($t): modprobe nvmet-$t"
	nvmet_port "$p" "$t" 127.0.0.1 "$s" "$NQN"
	wait_until 60 eval '[[ $(nvme_ctrl_state $ctrl) == live ]]' ||
		fail "restart ($t): $ctrl $(nvme_ctrl_state "$ctrl") 60 s after the port came back"
	wait "$NVME_FIO_PID" || fail "restart ($t): verified I/O failed across the target's restart"
	nvme_same "restart ($t)" "$dev" /dev/ram0 direct
	nvme disconnect -n "$NQN" >/dev/null 2>&1 || fail "restart ($t): nvme disconnect"
	log "restart ($t): $ctrl live again, $(grep -m1 -o 'write: IOPS=[^,]*' "$R/fio-restart-$t") crc32c verified, device equal to its backing store"
}

io rdma 4420
io tcp 4421
restart rdma 1 4420
restart tcp 2 4421

nvmet_clear
trap - EXIT
nvme_rdma_end "$DEV"
log "NVMe over Fabrics over $NVME_DRV on lo, I/O and target restarts: passed"
