#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# NVMe over Fabrics on siw2 when the path fails, and with authentication:
# nvmet-rdma and nvme-rdma in the initial namespace over siw2 devices on
# lo (127.0.0.1) and on two dummy netdevs (10.91.1.1, 10.91.2.1: local
# addresses, so their traffic also goes through lo), one subsystem with a
# 64 MiB brd namespace.  Each scenario runs over rdma, then over nvme-tcp
# on the same addresses to show what the transport changes.
#  - Keep-alive: connected with a 5 s keep-alive timeout, during verified
#    I/O every packet of the connection is dropped (tc on lo).  The host
#    must leave "live" on its own (nothing but the keep-alive can tell it),
#    stay disconnected while the traffic is gone, be live again within 60 s
#    of the traffic returning, and fio must finish without an error, the
#    device equal to its backing store.
#  - Multipath: the subsystem reached through 10.91.1.1 and 10.91.2.1 (over
#    rdma: two siw2 devices, one per address), native NVMe multipath with
#    round-robin I/O.  During verified I/O the second path's traffic is
#    dropped: its controller leaves "live", I/O goes on through the first
#    (writes complete while the second is down), the second comes back
#    when the traffic returns, no I/O error, the device equal to its store.
#  - DH-HMAC-CHAP: the subsystem admits one host NQN with a host key and a
#    controller key (bidirectional, SHA-256, ffdhe2048).  Connecting with
#    both keys works and moves verified data; a wrong host key, a wrong
#    controller key and no key are each refused and leave no controller.
# SIW2_NVME_DRV=siw runs it on Linux siw (lib-nvme.sh).  Then the devices
# go, object counts are zero and the module unloads.
# timeout: 900
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-nvme.sh"

need rdma ip nvme fio sha256sum tc
R=$SIW2_RESULTS
NQN=nqn.2026-11.org.siw2:test92
A=10.91.1.1 B=10.91.2.1
D_LO=${NVME_DRV}_lo D_A=${NVME_DRV}_pa D_B=${NVME_DRV}_pb

nvme_modules
modprobe brd rd_nr=1 rd_size=65536 || fail "modprobe brd"
ip link set lo up
ns_dummy - nvpa $A/24
ns_dummy - nvpb $B/24
nvme_rdma_dev "$D_LO" lo
nvme_rdma_dev "$D_A" nvpa
nvme_rdma_dev "$D_B" nvpb

cleanup() { blackhole_off; nvmet_clear; }
trap cleanup EXIT
nvmet_subsys "$NQN"
nvmet_ns "$NQN" 1 /dev/ram0
nvmet_port 1 rdma 127.0.0.1 4420 "$NQN"
nvmet_port 2 tcp 127.0.0.1 4421 "$NQN"
# rdma_cm counts a loopback address as a wildcard when it checks a port
# (cma_check_port): the two addresses' rdma ports need a port of their own.
nvmet_port 3 rdma $A 4422 "$NQN"
nvmet_port 4 rdma $B 4422 "$NQN"
nvmet_port 5 tcp $A 4423 "$NQN"
nvmet_port 6 tcp $B 4423 "$NQN"

# A host that must reconnect does so every second, for 60 s at most.
RECONNECT=(--keep-alive-tmo=5 --reconnect-delay=1 --ctrl-loss-tmo=60)

# keepalive TRANSPORT SVCID
keepalive() {
	local t=$1 s=$2 ctrl dev t0 gone back
	nvme_conn "$t" 127.0.0.1 "$s" "$NQN" "${RECONNECT[@]}"
	nvme_wait_ns "keep-alive ($t)" "-ge 1"
	ctrl=$(nvme_ctrl "$NQN") dev=$NVME_DEV
	nvme_fio_bg "ka-$t" "$dev" 30
	sleep 5
	kmsg_mark "ka-$t"
	blackhole_on ip_proto tcp dst_port "$s"
	blackhole_on ip_proto tcp src_port "$s"
	t0=$SECONDS
	wait_until 30 eval '[[ $(nvme_ctrl_state $ctrl) != live ]]' ||
		fail "keep-alive ($t): $ctrl still live 30 s after its traffic stopped (keep-alive timeout 5 s)"
	gone=$((SECONDS - t0))
	sleep 3
	[[ $(nvme_ctrl_state "$ctrl") != live ]] ||
		fail "keep-alive ($t): $ctrl live again while its traffic is still dropped"
	blackhole_off
	t0=$SECONDS
	wait_until 60 eval '[[ $(nvme_ctrl_state $ctrl) == live ]]' ||
		fail "keep-alive ($t): $ctrl $(nvme_ctrl_state "$ctrl") 60 s after its traffic returned"
	back=$((SECONDS - t0))
	wait "$NVME_FIO_PID" || fail "keep-alive ($t): verified I/O failed across the outage"
	nvme_same "keep-alive ($t)" "$dev" /dev/ram0 direct
	nvme disconnect -n "$NQN" >/dev/null 2>&1 || fail "keep-alive ($t): nvme disconnect"
	log "keep-alive ($t): traffic dropped, $ctrl left live after ${gone} s (target's keep-alive" \
		"expired: $(kmsg_since "ka-$t" | grep -c 'keep-alive timer') time(s)), live again ${back} s" \
		"after it returned; $(grep -m1 -o 'write: IOPS=[^,]*' "$R/fio-ka-$t") crc32c verified, device equal"
}

# multipath TRANSPORT SVCID
multipath() {
	local t=$1 s=$2 ca cb sub dev h w0 w1
	nvme_conn "$t" $A "$s" "$NQN" "${RECONNECT[@]}"
	nvme_conn "$t" $B "$s" "$NQN" "${RECONNECT[@]}"
	ca=$(nvme_ctrl "$NQN" $A) cb=$(nvme_ctrl "$NQN" $B)
	[[ -n $ca && -n $cb && $ca != "$cb" ]] || fail "multipath ($t): controllers '$ca' ($A), '$cb' ($B)"
	# One namespace path per controller.
	nvme_wait_ns "multipath ($t)" "-eq 2"
	dev=$NVME_DEV h=${NVME_DEV#/dev/}
	if [[ $t == rdma ]]; then
		rdma resource show qp | grep -q "link $D_A/.* state RTS" &&
			rdma resource show qp | grep -q "link $D_B/.* state RTS" ||
			{ rdma resource show qp; fail "multipath: not a path on each of $D_A and $D_B"; }
	fi
	for sub in /sys/class/nvme-subsystem/*; do
		[[ $(cat "$sub/subsysnqn") == "$NQN" ]] && break
	done
	echo round-robin >"$sub/iopolicy" || fail "multipath ($t): iopolicy round-robin"
	nvme_fio_bg "mp-$t" "$dev" 30
	sleep 5
	blackhole_on dst_ip $B
	blackhole_on src_ip $B
	wait_until 30 eval '[[ $(nvme_ctrl_state $cb) != live ]]' ||
		fail "multipath ($t): $cb ($B) still live 30 s after its traffic stopped"
	w0=$(awk '{ print $5 }' "/sys/block/$h/stat")
	sleep 3
	w1=$(awk '{ print $5 }' "/sys/block/$h/stat")
	[[ $(nvme_ctrl_state "$ca") == live ]] || fail "multipath ($t): $ca ($A) $(nvme_ctrl_state "$ca") while $B was down"
	((w1 > w0)) || fail "multipath ($t): no write completed in 3 s while $cb ($B) was down and $ca ($A) live"
	blackhole_off
	wait_until 60 eval '[[ $(nvme_ctrl_state $cb) == live ]]' ||
		fail "multipath ($t): $cb $(nvme_ctrl_state "$cb") 60 s after its traffic returned"
	wait "$NVME_FIO_PID" || fail "multipath ($t): verified I/O failed across the path's outage"
	nvme_same "multipath ($t)" "$dev" /dev/ram0 direct
	nvme disconnect -n "$NQN" >/dev/null 2>&1 || fail "multipath ($t): nvme disconnect"
	log "multipath ($t): $((w1 - w0)) writes completed through $ca in 3 s while $cb was down;" \
		"$cb live again; $(grep -m1 -o 'write: IOPS=[^,]*' "$R/fio-mp-$t") crc32c verified, device equal"
}

# The host this subsystem admits, and its keys (secrets used as they are,
# no NQN transformation).
HOSTID=91929394-0000-4000-8000-000000000092
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$HOSTID
auth_setup() {
	local h=$NVME_CFS/hosts/$HOSTNQN
	KEY=$(nvme gen-dhchap-key -m 0 -l 32) && CKEY=$(nvme gen-dhchap-key -m 0 -l 32) &&
		BADKEY=$(nvme gen-dhchap-key -m 0 -l 32) || fail "nvme gen-dhchap-key"
	mkdir "$h" || fail "nvmet host $HOSTNQN"
	echo "$KEY" >"$h/dhchap_key" && echo "$CKEY" >"$h/dhchap_ctrl_key" &&
		echo 'hmac(sha256)' >"$h/dhchap_hash" && echo ffdhe2048 >"$h/dhchap_dhgroup" ||
		fail "DH-HMAC-CHAP keys of $HOSTNQN"
	echo 0 >"$NVME_CFS/subsystems/$NQN/attr_allow_any_host" || fail "allow_any_host 0"
	ln -s "$h" "$NVME_CFS/subsystems/$NQN/allowed_hosts/$HOSTNQN" || fail "allowed host"
}

# auth TRANSPORT SVCID
auth() {
	local t=$1 s=$2 dev what args
	local id=(--hostnqn="$HOSTNQN" --hostid="$HOSTID")
	nvme_conn "$t" 127.0.0.1 "$s" "$NQN" "${id[@]}" --dhchap-secret="$KEY" --dhchap-ctrl-secret="$CKEY"
	nvme_wait_ns "auth ($t)" "-ge 1"
	dev=$NVME_DEV
	nvme_fio "auth-$t" "$dev" --size=16M --do_verify=1
	nvme_same "auth ($t)" "$dev" /dev/ram0 direct
	nvme disconnect -n "$NQN" >/dev/null 2>&1 || fail "auth ($t): nvme disconnect"
	wait_until 20 eval '[[ -z $(nvme_ctrl $NQN) ]]' || fail "auth ($t): controller left after disconnect"
	for what in "a wrong host key" "a wrong controller key" "no key"; do
		case $what in
		*host*) args=(--dhchap-secret="$BADKEY" --dhchap-ctrl-secret="$CKEY") ;;
		*controller*) args=(--dhchap-secret="$KEY" --dhchap-ctrl-secret="$BADKEY") ;;
		*) args=() ;;
		esac
		if nvme connect -t "$t" -a 127.0.0.1 -s "$s" -n "$NQN" "${id[@]}" "${args[@]}" \
			>"$R/auth-refused-$t" 2>&1; then
			fail "auth ($t): connect with $what succeeded"
		fi
		wait_until 20 eval '[[ -z $(nvme_ctrl $NQN) ]]' ||
			fail "auth ($t): a controller remains after the connect with $what was refused"
	done
	log "auth ($t): both keys: connected, crc32c verified, device equal; wrong host key," \
		"wrong controller key, no key: refused"
}

keepalive rdma 4420
keepalive tcp 4421
multipath rdma 4422
multipath tcp 4423
auth_setup
auth rdma 4420
auth tcp 4421

cleanup
trap - EXIT
nvme_rdma_end "$D_LO" "$D_A" "$D_B"
log "NVMe over Fabrics over $NVME_DRV: keep-alive, multipath and DH-HMAC-CHAP: passed"
